"""Survey Table 1: 5 MB with Tahoe, Reno and NewReno under random segment drops.

K. Pentikousis, "TCP in wired-cum-wireless environments", IEEE Communications Surveys
(2000), §3, Table 1 (seed ``003_*``): the total time of a 5 MB transfer in "a LAN-like
setting" with random drops of 1 in 86, 50, 20 and 10 segments, and error-free (40 s).

Parameters the survey leaves out, and what we chose (base scenario
``survey_table1.toml``): the link (10 Mbps / 1 ms wire, 1.028 Mbps / 1 ms last hop tuned so the
error-free transfer takes 40 s: a calibration, not a claim), the segment size (1460 B), the
receiver window (64 KiB), the timer (RFC 6298: 1 s minimum RTO, 1 ms clock), one ACK per
segment. The drop rates are packet error rates on the last hop's data direction.

The survey's text states two increases (R86: "approximately 47%", R50: "75% to 92.5%");
its table gives one run per cell, and its variants' order changes from column to column.
We run 50 seeds and check, per column, whether our order is the table's and whether the
differences between variants are beyond their 95 % intervals (the order is then real).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from lastmile.reproduce.framework import (
    Campaign,
    Context,
    Experiment,
    Stat,
    clearly_above,
    errorbars,
)

SOURCE = "Survey Table 1"
VARIANTS = ("tahoe", "reno", "newreno")
#: Column label → drop probability (error-free, R86, R50, R20, R10).
RATES = {"error-free": 0.0, "R86": 1 / 86, "R50": 1 / 50, "R20": 1 / 20, "R10": 1 / 10}
#: Survey Table 1, total transfer time in seconds.
PUBLISHED = {
    "tahoe": (40, 58.220, 70.005, 137.418, 282.548),
    "reno": (40, 58.925, 77.186, 118.525, 257.807),
    "newreno": (40, 58.755, 77.648, 136.428, 272.414),
}
PER = "topology.wireless.errors.per"

Q_R86 = (
    "For example, when we introduced random segment drops with probability 1.16%, i.e. one "
    "segment in 86, on the average, was dropped (column named R86 in Table 1), the total "
    "connection time to complete a 5-MB file transfer was increased by approximately 47%."
)
Q_R50 = (
    "When the network corrupts segments only 2% of the time (column R50 in Table 1), the "
    "total connection time to complete the 5-MB file transfer increases by 75% to 92.5%."
)
Q_TABLE = (
    "Total transmission time in seconds to complete a 5-MB file transfer under random errors "
    "in a LAN-like environment [46]."
)
#: Segments of a 5 MB transfer (1460-byte segments): the expected drops are this x rate.
SEGMENTS = 5_000_000 / 1460


def drop_cost(ctx: Context, times: dict[tuple[str, str], Stat], label: str) -> str:
    """What one drop costs ours and the survey's transfers at `label`, with our recoveries."""
    data = ctx["table1"]
    per = RATES[label]
    col = list(RATES).index(label)
    drops = SEGMENTS * per
    ours = {v: (times[(v, label)].mean - times[(v, "error-free")].mean) / drops for v in VARIANTS}
    paper = {v: (PUBLISHED[v][col] - PUBLISHED[v][0]) / drops for v in VARIANTS}
    to = {v: data.value("tcp_timeouts", v, per=per).mean for v in VARIANTS}
    fr = {v: data.value("tcp_fast_retransmits", v, per=per).mean for v in VARIANTS}
    ratio = sum(paper.values()) / sum(ours.values())
    mostly_fr = all(fr[v] > to[v] for v in VARIANTS)
    return (
        f"At {label} (about {drops:.0f} drops per transfer) a drop costs our transfers "
        + ", ".join(f"{v} {1e3 * ours[v]:.0f} ms" for v in VARIANTS)
        + ", the survey's "
        + ", ".join(f"{1e3 * paper[v]:.0f} ms" for v in VARIANTS)
        + f" ({ratio:.1f} times ours on average). Our recoveries per transfer: "
        + ", ".join(f"{v} {fr[v]:.0f} fast retransmits and {to[v]:.0f} timeouts" for v in VARIANTS)
        + (
            "; most drops are repaired by fast retransmit on a path whose RTT is a few ms. "
            if mostly_fr
            else "; timeouts of at least RFC 6298's 1 s take most of the time. "
        )
        + "The survey gives neither its link nor its timer."
    )


#: The TCP knobs that may make the survey's drops costlier than ours (a finding, not a
#: tuning: the claims use the base scenario). 4.4BSD's 500 ms timer clock, a small window
#: (8 KiB, 5 segments), delayed ACKs (every second segment), alone and together (all3).
KNOBS: dict[str, dict[str, str]] = {
    "clock500": {"flow.0.tcp.timer_granularity": "500ms"},
    "rwnd8k": {"flow.0.tcp.rwnd": "8KiB"},
    "delack": {"flow.0.tcp.ack": "delayed"},
    "rwnd8k+delack": {"flow.0.tcp.rwnd": "8KiB", "flow.0.tcp.ack": "delayed"},
    "all3": {
        "flow.0.tcp.timer_granularity": "500ms",
        "flow.0.tcp.rwnd": "8KiB",
        "flow.0.tcp.ack": "delayed",
    },
}


def campaigns(quick: bool) -> Sequence[Campaign]:
    return [
        Campaign(
            name="knobs",
            scenario="survey_table1.toml",
            seeds=2 if quick else 10,
            grid={PER: list(RATES.values())},
            variants={
                f"{v}.{k}": {"flow.0.tcp.variant": v, **knob}
                for v in VARIANTS
                for k, knob in KNOBS.items()
            },
            axes={"per": PER},
            metrics=("completion_s", "tcp_timeouts", "tcp_fast_retransmits"),
        ),
        Campaign(
            name="table1",
            scenario="survey_table1.toml",
            seeds=4 if quick else 50,
            grid={PER: list(RATES.values())},
            variants={v: {"flow.0.tcp.variant": v} for v in VARIANTS},
            axes={"per": PER},
            metrics=(
                "completion_s",
                "throughput_bps",
                "tcp_timeouts",
                "tcp_retransmits",
                "tcp_fast_retransmits",
            ),
        ),
    ]


def _increase(t: Stat, t0: Stat) -> float:
    return 100.0 * (t.mean / t0.mean - 1.0)


def _order_claims(ctx: Context, times: dict[tuple[str, str], Stat]) -> None:
    for label in list(RATES)[1:]:
        col = list(RATES).index(label)
        paper = sorted(VARIANTS, key=lambda v: PUBLISHED[v][col])
        ours = sorted(VARIANTS, key=lambda v: times[(v, label)].mean)
        real = [
            clearly_above(times[(b, label)], times[(a, label)]) for a, b in itertools.pairwise(ours)
        ]
        ctx.claim(
            f"{label}: the variants in Table 1's order, fastest first",
            SOURCE,
            ours == paper,
            f"table: {' < '.join(paper)}; ours: "
            + " < ".join(f"{v} {times[(v, label)].mean:.1f}" for v in ours)
            + " s; adjacent differences beyond the 95 % intervals: "
            + ", ".join("yes" if r else "no" for r in real),
            quote=Q_TABLE,
            band=f"our mean times at {label} ordered as the table's row values "
            f"({', '.join(f'{v} {PUBLISHED[v][col]:g}' for v in VARIANTS)} s)",
            explanation=(
                "The variants differ in how they recover from a second drop in a window; "
                "which is faster depends on the window and RTT, which the survey does not "
                "give. Where our adjacent differences are beyond their 95 % intervals (the "
                "detail says), our order is real for our path; the survey's is one run per "
                "cell."
            ),
        )


def knobs_finding(ctx: Context) -> None:
    """What one drop costs with each knob set, against the survey's ~460 ms at R86."""
    data = ctx["knobs"]

    def cost(variant: str, label: str) -> float:
        t = data.value("completion_s", variant, per=RATES[label]).mean
        t0 = data.value("completion_s", variant, per=0.0).mean
        return (t - t0) / (SEGMENTS * RATES[label])

    paper = {
        label: sum(PUBLISHED[v][i] - PUBLISHED[v][0] for v in VARIANTS)
        / (len(VARIANTS) * SEGMENTS * RATES[label])
        for i, label in enumerate(RATES)
        if label != "error-free"
    }
    rows, near = [], []
    for k in KNOBS:
        per_rate = []
        for label in paper:
            ms = [1e3 * cost(f"{v}.{k}", label) for v in VARIANTS]
            per_rate.append(f"{label} {min(ms):.0f}-{max(ms):.0f}")
            if label == "R86" and 0.9 * min(ms) <= 1e3 * paper[label] <= 1.1 * max(ms):
                near.append(k)
        timeouts = [data.value("tcp_timeouts", f"{v}.{k}", per=RATES["R86"]).mean for v in VARIANTS]
        rows.append(
            f"{k}: " + ", ".join(per_rate) + f" ms (timeouts at R86 {min(timeouts):.0f}-"
            f"{max(timeouts):.0f})"
        )
    ctx.finding(
        "Do BSD's coarse timer, a small window and delayed ACKs explain the survey's costlier "
        "drops?",
        "Cost of one drop (extra time over the error-free run / expected drops), over the "
        "three variants, 10 seeds: the survey's "
        + ", ".join(f"{label} {1e3 * c:.0f}" for label, c in paper.items())
        + " ms; ours (base scenario) in the claims' explanations; with "
        + "; ".join(rows)
        + ". Knob sets within 10 % of the survey's R86 cost: "
        + (", ".join(near) or "none")
        + ". Where the cost is the survey's, the timeouts show why: with few segments in "
        "flight and one ACK per two segments, too few duplicate ACKs arrive for fast "
        "retransmit, and a drop waits for a timeout of at least 1 s.",
    )


def analyse(ctx: Context) -> None:
    data = ctx["table1"]
    times = {
        (v, label): data.value("completion_s", v, per=per)
        for v in VARIANTS
        for label, per in RATES.items()
    }
    for variant in VARIANTS:
        for label, paper in zip(RATES, PUBLISHED[variant], strict=True):
            ctx.compare(
                f"{variant} {label}",
                SOURCE,
                "s",
                paper,
                times[(variant, label)],
                "calibrated: the link's rate is set for 40 s" if label == "error-free" else "",
            )
    r86 = {v: _increase(times[(v, "R86")], times[(v, "error-free")]) for v in VARIANTS}
    mean86 = sum(r86.values()) / len(r86)
    ctx.claim(
        "R86 (1.16 % drops) increases the transfer time by approximately 47 %",
        "Survey §3",
        46.5 <= mean86 < 47.5,
        ", ".join(f"{v} {x:+.1f} %" for v, x in r86.items()) + f"; mean {mean86:+.1f} % "
        "(the table: +45.6, +47.3, +46.9 %, mean +46.6 %)",
        quote=Q_R86,
        band="the mean increase over the three variants 46.5-47.5 % ('approximately 47%')",
        explanation=drop_cost(ctx, times, "R86"),
    )
    r50 = {v: _increase(times[(v, "R50")], times[(v, "error-free")]) for v in VARIANTS}
    ctx.claim(
        "R50 (2 % drops) increases the transfer time by 75 % to 92.5 %",
        "Survey §3",
        all(74.5 <= x < 92.55 for x in r50.values()),
        ", ".join(f"{v} {x:+.1f} %" for v, x in r50.items())
        + " (the table itself: +75.0, +93.0, +94.1 %: its Reno and NewReno are above 92.5 %)",
        quote=Q_R50,
        band="every variant's increase 74.5-92.55 % ('75% to 92.5%' at its precision)",
        explanation=drop_cost(ctx, times, "R50"),
    )
    _order_claims(ctx, times)
    knobs_finding(ctx)
    factor = {v: times[(v, "R10")].mean / times[(v, "error-free")].mean for v in VARIANTS}
    ctx.claim(
        "R10 costs each variant Table 1's 6.4-7.1x the error-free time",
        SOURCE,
        all(6.4 <= f <= 7.1 for f in factor.values()),
        ", ".join(f"{v} {f:.2f}x ({times[(v, 'R10')].mean:.0f} s)" for v, f in factor.items()),
        quote=Q_TABLE,
        band="R10 time / error-free time 6.4-7.1 for every variant (the table's R10 column "
        "over 40 s: 257.8-282.5 s)",
        explanation=drop_cost(ctx, times, "R10")
        + " The variants spread more in ours than in the survey (see the order claims).",
    )
    with ctx.figure(
        "table1",
        "Survey Table 1: 5 MB transfer time vs random drop rate; ours (circles, bars: 95 % "
        "CI) and the survey's (squares, dashed) on the same axes",
    ) as (ax,):
        colours = {}
        for variant in VARIANTS:
            errorbars(ax, data, "completion_s", "per", variant, f"{variant} (ours)", x_scale=100.0)
            colours[variant] = ax.get_lines()[-1].get_color()
        for variant in VARIANTS:
            ax.plot(
                [100 * p for p in RATES.values()],
                PUBLISHED[variant],
                "s--",
                color=colours[variant],
                label=f"{variant} (survey)",
            )
        ax.set_xlabel("segment drop rate (%)")
        ax.set_ylabel("transfer time (s)")


EXPERIMENT = Experiment(
    name="survey-table1",
    title="Survey Table 1: Tahoe, Reno, NewReno under random drops",
    paper="K. Pentikousis, TCP in wired-cum-wireless environments (2000), §3, Table 1",
    description=(
        "A 5 MB transfer over a LAN-like path (error-free: 40 s) with random segment drops "
        "of 1/86, 1/50, 1/20 and 1/10, for Tahoe, Reno and NewReno, 50 seeds. The survey "
        "does not describe the link; we use a 1.028 Mbps last hop tuned so that the "
        "error-free transfer takes 40 s (1460-byte segments, 64 KiB window, RFC 6298 "
        "timer): a calibration, so the error-free column is not a claim."
    ),
    differences=(
        "The survey names neither link nor timer, so absolute times depend on our choices: "
        "with RFC 6298's 1 s minimum RTO and a window of a few segments every timeout costs "
        "about 1 s, and the R10 column is dominated by timeouts. Its text and its table "
        "disagree at R50 (the text says 75-92.5 %, the table's Reno and NewReno are 93.0 "
        "and 94.1 %). Our times at R86-R20 are below the survey's: on our short, fast path "
        "fast retransmit repairs most single drops within one RTT."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="003",
)
