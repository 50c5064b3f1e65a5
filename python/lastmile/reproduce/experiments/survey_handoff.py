"""The survey's handoff case: a one-second handoff, fast retransmit after it, M-TCP, Freeze-TCP.

K. Pentikousis, "TCP in wired-cum-wireless environments" (seed ``003_*``), §2.4.4.5,
reporting R. Cáceres and L. Iftode (IEEE JSAC 13(5), 1995): a one-second handoff silences
TCP for 2.8 s, because the sender, which hears no duplicate ACKs, waits for its timer;
when the mobile's TCP sends duplicate ACKs as the handoff completes, it need not.
Base scenario ``survey_handoff.toml`` (its header gives the setting).

Variants: plain Reno; fast retransmit after handoff (three duplicate ACKs when the handoff
completes, Cáceres & Iftode), with the BSD rule that lets duplicate ACKs start a fast
retransmit after a timeout and, beside it, with RFC 6582's guard that does not; Freeze-TCP
(Goff et al., INFOCOM 2000: a zero window one RTT before the handoff, three copies of the
last ACK after it; not in the seeds); M-TCP at the gateway (Brown & Singh, CCR 1997). The
handoff moves across one 500 ms tick of the sender's clock (ten phases, 25 ms to 475 ms
after the 5 s boundary): where the handoff falls in the tick decides when the sender's
timer fires, and real handoffs are not in step with it.

"Silence" is the longest time without new in-order delivery (``longest_stall_s``): the
loss of communication at the transport level the survey speaks of.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lastmile.reproduce.framework import Campaign, Context, Experiment, Published, Stat
from lastmile.reproduce.words import written

SCENARIO = "survey_handoff.toml"
SOURCE = "Survey §2.4.4.5"
AT = "mobile.0.residence.at.0"
HANDOFF_S = 5.0
OUTAGE_S = 1.0
TICK_S = 0.5
#: The handoff times: ten phases across one tick of the sender's 500 ms clock.
PHASES = [f"{HANDOFF_S + 0.025 + 0.05 * k:.3f}s" for k in range(10)]

VARIANTS: dict[str, dict[str, Any]] = {
    "reno": {},
    "fra": {"mobile.0.tcp": {"kind": "fast_retransmit", "dupacks": 3}},
    "fra_rfc6582": {
        "mobile.0.tcp": {"kind": "fast_retransmit", "dupacks": 3},
        "flow.0.tcp.fast_retransmit_after_timeout": False,
    },
    "freeze": {"mobile.0.tcp": {"kind": "freeze"}},
    "mtcp": {"base_station": [{"node": "gw", "agent": "mtcp"}]},
}
LABELS = {
    "reno": "Reno",
    "fra": "fast retransmit after handoff",
    "fra_rfc6582": "fast retransmit after handoff, RFC 6582 guard",
    "freeze": "Freeze-TCP",
    "mtcp": "M-TCP at the gateway",
}
MECHANISMS = ("fra", "fra_rfc6582", "freeze", "mtcp")

#: Overlapping cells: the mobile hears the old cell this long after joining the new one.
OVERLAP = "1s"

Q_MERE = (
    "TCP throughput suffers in all these cases: even in the case of overlapping cells "
    "throughput is less, though by a mere 6%."
)
Q_SILENCE = (
    "The case where the handoff needs one second to complete leads to complete loss of "
    "communication at the transport level for a period of 2.8 seconds."
)
Q_TIMEOUT = (
    "During this period, TCP loses segments on the forward path and acknowledgments on the "
    "return path. The absence of acknowledgments means that Fast Retransmit will not kick "
    "in, and so the TCP sender must wait for a timeout."
)
Q_FRA = (
    "Then, the receiver's TCP sends duplicate acknowledgements to initiate Fast Retransmit "
    "at the sender TCP. Under this approach the sender does not have to wait for a timeout, "
    "and takes full advantage of Mobile IP's knowledge about handoffs."
)

METRICS = (
    "throughput_bps",
    "longest_stall_s",
    "tcp_timeouts",
    "tcp_fast_retransmits",
    "tcp_retransmits",
)


def campaigns(quick: bool) -> Sequence[Campaign]:
    phases = PHASES[::2] if quick else PHASES
    return [
        Campaign(
            "handoff",
            SCENARIO,
            1,
            grid={AT: phases},
            variants=VARIANTS,
            axes={"at": AT},
            metrics=METRICS,
            finite=False,
            mechanisms=MECHANISMS,
        ),
        Campaign(
            "still",
            SCENARIO,
            1,
            variants={
                "reno": {"mobile.0.residence": {"kind": "none"}},
                "overlap": {"mobile.0.handoff_delay": "0s", "mobile.0.overlap": OVERLAP},
            },
            metrics=METRICS,
            finite=False,
        ),
    ]


def _per_phase(ctx: Context, metric: str, v: str) -> list[float]:
    data = ctx["handoff"]
    return [data.value(metric, v, at=p).mean for p in _phases(ctx)]


def _phases(ctx: Context) -> list[str]:
    return PHASES[::2] if ctx.quick else PHASES


def _mean(values: list[float]) -> Stat:
    n = len(values)
    m = sum(values) / n
    return Stat(m, float("nan"), n)


def _fmt(values: list[float], unit: str = "s") -> str:
    return ", ".join(f"{x:.2f}" for x in values) + f" {unit}"


def _counts(values: list[float]) -> str:
    return ", ".join(f"{x:g}" for x in values)


def _silences(ctx: Context) -> dict[str, list[float]]:
    return {v: _per_phase(ctx, "longest_stall_s", v) for v in VARIANTS}


def claim_silence(ctx: Context) -> None:
    silence = ctx.quantity("silence_reno", lambda: _silences(ctx)["reno"])
    band = written("2.8")
    plain = sum(silence) / len(silence)
    ctx.claim(
        "a one-second handoff silences TCP for 2.8 s",
        SOURCE,
        band.holds(plain),
        f"mean {plain:.3f} s over {len(silence)} phases of the sender's clock ({_fmt(silence)})",
        quote=Q_SILENCE,
        band=f"the longest time without new in-order delivery, mean over the phases, "
        f"{band.describe('s')}",
        explanation=(
            "Where the handoff falls in the sender's 500 ms clock decides when its timer "
            f"fires: our silences span {min(silence):.2f}-{max(silence):.2f} s over the phases."
        ),
    )


def claim_timeout(ctx: Context) -> None:
    timeouts = _per_phase(ctx, "tcp_timeouts", "reno")
    fast = _per_phase(ctx, "tcp_fast_retransmits", "reno")
    ctx.claim(
        "without help the sender gets no fast retransmit and waits for its timer",
        SOURCE,
        all(f == 0 for f in fast) and all(t >= 1 for t in timeouts),
        f"Reno: fast retransmits {_counts(fast)}; timeouts {_counts(timeouts)}",
        quote=Q_TIMEOUT,
        band="no fast retransmit and at least one timeout in every phase",
        explanation="See the detail: the sender's recoveries per phase.",
    )


def claim_fra(ctx: Context) -> None:
    silence = _silences(ctx)["fra"]
    fast = _per_phase(ctx, "tcp_fast_retransmits", "fra")
    limit = OUTAGE_S + TICK_S
    ctx.claim(
        "with duplicate ACKs after the handoff the sender does not wait for a timeout",
        SOURCE,
        all(s < limit for s in silence),
        f"silence with fast retransmit after handoff: {_fmt(silence)} (mean "
        f"{_mean(silence).mean:.3f} s); fast retransmits {_counts(fast)}",
        quote=Q_FRA,
        band=f"silence below the handoff ({OUTAGE_S:g} s) plus one tick of the sender's "
        f"clock ({TICK_S:g} s, the least a timer armed at the handoff's end needs), in "
        "every phase: the retransmission leaves when the handoff completes",
        explanation="See the detail: the silence per phase.",
    )


def claim_mere(ctx: Context) -> None:
    less = ctx.quantity(
        "overlap_loss",
        lambda: (
            100
            * (
                1
                - ctx["still"].value("throughput_bps", "overlap").mean
                / ctx["still"].value("throughput_bps", "reno").mean
            )
        ),
    )
    band = written("6%")
    ctx.claim(
        "with overlapping cells the throughput is less, by a mere 6 %",
        SOURCE,
        band.holds(less),
        lambda: (
            f"a handoff between overlapping cells ({OVERLAP} of overlap, at 5 s): "
            f"{ctx['still'].value('throughput_bps', 'overlap').mean / 1e3:.0f} kbps, without a "
            f"handoff {ctx['still'].value('throughput_bps', 'reno').mean / 1e3:.0f} kbps over the "
            f"20 s run: {less:.1f} % less"
        ),
        quote=Q_MERE,
        band=f"throughput with one handoff between overlapping cells below the throughput "
        f"without a handoff by {band.describe('%')}",
        explanation=lambda: (
            "With overlapping cells the mobile hears both base stations through the handoff "
            "and what the old one holds still arrives: nothing is lost, so the transfer "
            "loses only the packets in flight to a route that changes. The survey does not "
            "say how often Cáceres and Iftode's mobile handed off, nor what the 6 % went "
            "to."
        ),
    )


def _compare(ctx: Context) -> None:
    silence = _silences(ctx)
    timeouts = {v: _per_phase(ctx, "tcp_timeouts", v) for v in VARIANTS}
    ctx.compare(
        "silence after a 1 s handoff, Reno, mean over the clock phases",
        SOURCE,
        "s",
        2.8,
        _mean(silence["reno"]),
        "Cáceres & Iftode as the survey reports them",
        ref="§2.4.4.5: 2.8 s",
    )
    for v in VARIANTS:
        ctx.compare(
            f"silence, {LABELS[v]}, mean over the clock phases",
            SOURCE,
            "s",
            None,
            _mean(silence[v]),
            "the survey gives 2.8 s for plain TCP only",
        )
        ctx.compare(
            f"timeouts per run, {LABELS[v]}",
            SOURCE,
            "count",
            None,
            _mean(timeouts[v]),
            "one handoff per run",
        )
    _finding(
        ctx,
        silence,
        timeouts,
        {v: _per_phase(ctx, "tcp_fast_retransmits", v) for v in VARIANTS},
    )


def _finding(
    ctx: Context,
    silence: dict[str, list[float]],
    timeouts: dict[str, list[float]],
    fast: dict[str, list[float]],
) -> None:
    guard = silence["fra_rfc6582"]
    helped = sum(s < OUTAGE_S + TICK_S for s in guard)
    still = ctx["still"].value("throughput_bps", "reno")
    tput = {v: _mean(_per_phase(ctx, "throughput_bps", v)).mean for v in VARIANTS}
    ctx.finding(
        "Fast retransmit after handoff needs BSD's duplicate-ACK rule.",
        f"With RFC 6582's guard (a timeout raises `recover`, ns-2's `bug_fix_`) the "
        f"duplicate ACKs helped in {helped} of {len(guard)} phases (silences {_fmt(guard)}): "
        "in the others the sender's timer had already fired during the outage, and the "
        "duplicates of data sent before it start no fast retransmit. BSD's tcp_input counts "
        "them whenever the timer runs, and then every phase recovers at the handoff's end "
        f"({_fmt(silence['fra'])}; fast retransmits {_counts(fast['fra'])}). Freeze-TCP and "
        "M-TCP avoid the timeout altogether (timeouts "
        f"{_counts(timeouts['freeze'])} and {_counts(timeouts['mtcp'])}). Throughput over "
        "the 20 s run: "
        + ", ".join(f"{LABELS[v]} {tput[v] / 1e3:.0f}" for v in VARIANTS)
        + f" kbps; without a handoff {still.mean / 1e3:.0f} kbps.",
    )


def _figure(ctx: Context) -> None:
    at = PHASES[5]
    with ctx.figure(
        "handoff",
        f"The sender's cwnd (a) and the data acknowledged (b) around a 1 s handoff at {at} "
        "(one run each, no bars; dashed: the end of the survey's 2.8 s silence)",
        2,
    ) as (a, b):
        styles = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)))
        for (v, over), style in zip(VARIANTS.items(), styles, strict=True):
            run = ctx.run_traced(SCENARIO, 1, {**over, AT: at}, ["cwnd", "seq"])
            cwnd = run.trace("cwnd")
            keep = (cwnd["time_s"] > HANDOFF_S - 1) & (cwnd["time_s"] < HANDOFF_S + 4)
            a.step(
                cwnd["time_s"][keep],
                cwnd["cwnd_bytes"][keep] / 1e3,
                where="post",
                label=LABELS[v],
                linestyle=style,
            )
            seq = run.trace("seq")
            acks = seq[
                seq["ack"] & (seq["time_s"] > HANDOFF_S - 1) & (seq["time_s"] < HANDOFF_S + 4)
            ]
            b.plot(acks["time_s"], acks["offset"] / 1e6, label=LABELS[v], linestyle=style)
        a.set_yscale("log")
        a.set_ylabel("cwnd (KB, log; the 16 KB window limits the sending)")
        b.set_ylabel("acknowledged (MB)")
        for ax in (a, b):
            ax.axvspan(
                float(at.removesuffix("s")), float(at.removesuffix("s")) + OUTAGE_S, alpha=0.15
            )
            ax.axvline(
                float(at.removesuffix("s")) + 2.8,
                color="k",
                linestyle="--",
                linewidth=1,
                label="paper: silence ends 2.8 s after the handoff" if ax is b else None,
            )
            ax.set_xlabel("time (s)")


def analyse(ctx: Context) -> None:
    _compare(ctx)
    _figure(ctx)


EXPERIMENT = Experiment(
    name="survey-handoff",
    title="Survey §2.4.4.5: a one-second handoff, fast retransmit after it, M-TCP, Freeze-TCP",
    paper="K. Pentikousis, TCP in wired-cum-wireless environments (seed 003), §2.4.4.5, "
    "reporting Cáceres & Iftode (JSAC 1995)",
    description=(
        "A bulk Reno transfer from a fixed host to a mobile host on a 2 Mbps wireless LAN; "
        "one handoff at about 5 s leaves the mobile out of reach for 1 s. Plain Reno, fast "
        "retransmit after handoff (three duplicate ACKs), Freeze-TCP and M-TCP: the silence "
        "at the transport level, timeouts, throughput, and the sender's cwnd over time."
    ),
    differences=(
        "The survey reports one number (2.8 s) and gives no setting beyond the 2 Mbps "
        "wireless LAN and the one-second handoff; the LAN's rates and delays, the window and "
        "the BSD sender with a 500 ms clock are ours. The silence depends on where the "
        "handoff falls in the sender's clock, so we average ten phases across one tick. "
        "Freeze-TCP (Goff et al.) and M-TCP (Brown & Singh) are not in the seeds; they "
        "stand beside the survey's case."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="003",
    claims=(claim_silence, claim_timeout, claim_fra, claim_mere),
    published=Published(numbers={"silence_reno": [2.8], "overlap_loss": 6.0}),
    settings=(
        "The LAN: a 10 Mbps wire, a 2 Mbps wireless LAN ('2 Mbps for IEEE 802.11'), two "
        "cells behind a gateway, a 16 KB window, a BSD Reno sender with a 500 ms clock "
        "(survey_handoff.toml); the handoff at 5 s in ten phases of the sender's clock.",
        f"Overlapping cells: a handoff with no outage and {OVERLAP} of overlap, one in a 20 s "
        "run (the survey gives neither the overlap nor how often the mobile hands off).",
    ),
)
