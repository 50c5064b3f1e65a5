"""Survey Table 1: 5 MB with Tahoe, Reno and NewReno under random segment drops.

K. Pentikousis, "TCP in wired-cum-wireless environments", IEEE Communications Surveys
(2000), §3, Table 1 (seed ``003_*``): the total time of a 5 MB transfer in "a LAN-like
setting" with random drops of 1 in 86, 50, 20 and 10 segments, and error-free (40 s).

Parameters the survey leaves out, and what we chose (base scenario
``survey_table1.toml``): the link (10 Mbps / 1 ms wire, 1.028 Mbps / 1 ms last hop tuned so the
error-free transfer takes 40 s), the segment size (1460 B), the receiver window (64 KiB),
the timer (RFC 6298: 1 s minimum RTO, 1 ms clock), one ACK per segment. The drop rates are
packet error rates on the last hop's data direction.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from lastmile.reproduce.framework import Campaign, Context, Experiment, errorbars

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


def campaigns(quick: bool) -> Sequence[Campaign]:
    return [
        Campaign(
            name="table1",
            scenario="survey_table1.toml",
            seeds=4 if quick else 20,
            grid={PER: list(RATES.values())},
            variants={v: {"flow.0.tcp.variant": v} for v in VARIANTS},
            axes={"per": PER},
            metrics=("completion_s", "throughput_bps", "tcp_timeouts", "tcp_retransmits"),
        )
    ]


def analyse(ctx: Context) -> None:
    data = ctx["table1"]
    for variant in VARIANTS:
        for (label, per), paper in zip(RATES.items(), PUBLISHED[variant], strict=True):
            ctx.compare(
                f"{variant} {label}",
                SOURCE,
                "s",
                paper,
                data.value("completion_s", variant, per=per),
            )
    free = {v: data.value("completion_s", v, per=0.0) for v in VARIANTS}
    ctx.claim(
        "error-free 5 MB takes 40 s ± 2 %",
        "Survey §3",
        all(abs(s.mean - 40.0) <= 0.8 for s in free.values()),
        ", ".join(f"{v} {s}" for v, s in free.items()),
    )
    for variant in VARIANTS:
        times = [data.value("completion_s", variant, per=p).mean for p in RATES.values()]
        ctx.claim(
            f"{variant}: transfer time increases with the drop rate",
            SOURCE,
            all(b > a for a, b in itertools.pairwise(times)),
            " < ".join(f"{t:.1f}" for t in times) + " s",
        )
    worst = {v: data.value("completion_s", v, per=0.1).mean for v in VARIANTS}
    ctx.claim(
        "R10 costs Tahoe, Reno and NewReno 6-7x the error-free time (257-283 s)",
        SOURCE,
        all(200.0 <= t <= 350.0 for t in worst.values()),
        ", ".join(f"{v} {t:.0f} s" for v, t in worst.items()) + " (band 200-350 s)",
    )
    with ctx.figure("table1", "Survey Table 1: 5 MB transfer time vs random drop rate", 2) as (
        ax_ours,
        ax_paper,
    ):
        for variant in VARIANTS:
            errorbars(ax_ours, data, "completion_s", "per", variant, variant, x_scale=100.0)
            ax_paper.plot(
                [100 * p for p in RATES.values()], PUBLISHED[variant], marker="s", label=variant
            )
        for ax, who in ((ax_ours, "lastmile (95 % CI)"), (ax_paper, "published (Table 1)")):
            ax.set_xlabel("segment drop rate (%)")
            ax.set_ylabel("transfer time (s)")
            ax.set_title(who, fontsize="small")


EXPERIMENT = Experiment(
    name="survey-table1",
    title="Survey Table 1: Tahoe, Reno, NewReno under random drops",
    paper="K. Pentikousis, TCP in wired-cum-wireless environments (2000), §3, Table 1",
    description=(
        "A 5 MB transfer over a LAN-like path (error-free: 40 s) with random segment drops "
        "of 1/86, 1/50, 1/20 and 1/10, for Tahoe, Reno and NewReno. The survey does not "
        "describe the link; we use a 1.028 Mbps last hop tuned so that the error-free "
        "transfer takes 40 s (1460-byte segments, 64 KiB window, RFC 6298 timer)."
    ),
    differences=(
        "The survey names neither link nor timer, so absolute times at high drop rates "
        "depend on our choices: with RFC 6298's 1 s minimum RTO and a window of a few "
        "segments, every timeout costs about 1 s, and the R10 column is dominated by "
        "timeouts. The survey's own orderings between variants are inconsistent across "
        "columns (Tahoe best at R50, Reno at R20/R10), which points at seed noise in a "
        "single run per cell; we report 20 seeds with confidence intervals and check "
        "only the claims the survey states: 40 s error-free and times growing with the "
        "drop rate. Our times at R86-R20 are 10-45 % below the survey's: on our short, "
        "fast path fast retransmit repairs most single drops within one RTT, and the "
        "survey's slower times suggest a longer RTT or a coarser timer than its text says."
    ),
    campaigns=campaigns,
    analyse=analyse,
)
