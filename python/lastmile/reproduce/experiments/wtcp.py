"""WTCP Figs. 4-6: Tahoe, Snoop, I-TCP and WTCP over a fading last hop.

K. Ratnam and I. Matta, "WTCP: An Efficient Mechanism for Improving Wireless Access to TCP
Services" (seed ``001_*``), §4-5. Base scenario ``wtcp.toml`` (Fig. 3, Table I).

- Fig. 4: throughput and goodput (``goodput_bytes``) against the mean Bad period
  (10...100 ms) for Tahoe alone, Snoop, I-TCP and WTCP (exact timestamp rewriting).
- Fig. 5: the source's RTO, sampled every second as the paper plots it (``rtt`` trace; one
  seed, as the paper shows one run) with the residence time not hidden (``none``), hidden
  exactly, or with the most recent timestamp (``recent``), for source clocks of 100 ms
  and 300 ms, mean Bad period 100 ms.
- Fig. 6: random wired (congestion) losses P = 0.01 and 0.001 on the fixed host's link:
  WTCP with (``recent``) and without (``none``) timestamp rewriting, Snoop, Tahoe.
- Tahoe's sensitivity (issue 10, item 8): the paper's WTCP is 4-8x Tahoe, ours less; the
  ``tahoe`` campaign runs Tahoe with a 1 s minimum RTO (4.4BSD), with a 500 ms clock, and
  with errors on the data direction only, to see which of them moves the ratio.

Choices the paper leaves open: the Tahoe baseline runs without RFC 1323 timestamps (4.3BSD
Tahoe); WTCP's source has them, as its rewriting needs. The minimum RTO is two
source-clock ticks (ns-2's bound). Both wireless directions fade. I-TCP's base-station TCP
is Tahoe with a 10 ms clock and a 200 ms minimum RTO.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lastmile.reproduce.framework import (
    Campaign,
    Context,
    Experiment,
    Stat,
    clearly_above,
    errorbars,
    ratio,
    scaled,
    within,
)

if TYPE_CHECKING:
    import numpy as np

SCENARIO = "wtcp.toml"
SRC = "WTCP §5"
FWD_BAD = "topology.wireless.errors.mean_bad"
REV_BAD = "topology.wireless.reverse_errors.mean_bad"
WIRED_P = "topology.wired.errors.per"

WTCP_SOURCE = {"flow.0.tcp.timestamps": True}
MECHANISMS = ("snoop", "itcp", "wtcp", "wtcp_recent", "wtcp_none")
VARIANTS: dict[str, dict[str, Any]] = {
    "tahoe": {},
    "snoop": {"base_station.agent": "snoop"},
    "itcp": {
        "base_station.agent": "itcp",
        "base_station.itcp.tcp.variant": "tahoe",
        "base_station.itcp.tcp.mss": "960B",
        "base_station.itcp.tcp.timer_granularity": "10ms",
        "base_station.itcp.tcp.min_rto": "200ms",
    },
    "wtcp": {"base_station.agent": "wtcp", "base_station.wtcp.timestamps": "exact", **WTCP_SOURCE},
}
LABELS = {
    "tahoe": "TCP Tahoe",
    "snoop": "Snoop",
    "itcp": "I-TCP",
    "wtcp": "WTCP",
    "wtcp_recent": "WTCP, timestamp rewritten (recent)",
    "wtcp_none": "WTCP, timestamp not rewritten",
    "tahoe_rto1s": "Tahoe, 1 s minimum RTO",
    "tahoe_tick500": "Tahoe, 500 ms clock (1 s minimum RTO)",
    "tahoe_fwd": "Tahoe, errors on the data direction only",
}
FIG6_VARIANTS: dict[str, dict[str, Any]] = {
    "tahoe": VARIANTS["tahoe"],
    "snoop": VARIANTS["snoop"],
    "wtcp_recent": {
        "base_station.agent": "wtcp",
        "base_station.wtcp.timestamps": "recent",
        **WTCP_SOURCE,
    },
    "wtcp_none": {
        "base_station.agent": "wtcp",
        "base_station.wtcp.timestamps": "none",
        **WTCP_SOURCE,
    },
}
#: Tahoe as the paper's ns might have run it: the suspects for its 4-8x.
TAHOE_VARIANTS: dict[str, dict[str, Any]] = {
    "tahoe_rto1s": {"flow.0.tcp.min_rto": "1s"},
    "tahoe_tick500": {"flow.0.tcp.timer_granularity": "500ms", "flow.0.tcp.min_rto": "1s"},
    "tahoe_fwd": {"topology.wireless.reverse_errors.bad_ber": 1e-6},
}
#: Why an I-TCP run may stall (checked on the one that does: Bad 100 ms, seed 6).
ITCP_STALL = (
    "I-TCP's wireless leg is a standard TCP (Tahoe here) whose RTO doubles on every timeout "
    "and, by Karn's rule, stays doubled until a segment sent once is acknowledged; WTCP §4 "
    "sets WTCP apart by 'a linear back-off policy'. In the stalled run (Bad 100 ms, seed 6) "
    "a segment lost at 116.3 s was resent at 117.1, 118.7 and 121.9 s, the ACKs of the next "
    "two were lost, and the resends came at 128.3, 141.1 and 166.8 s: back-off, not a "
    "deadlock."
)
#: Fig. 5's settings: source clock → its two-tick minimum RTO.
CLOCKS = {"100ms": "200ms", "300ms": "600ms"}
#: Fig. 5 is sampled every second; samples before this time (slow start) are left out.
WARMUP_S = 5.0

Q_RATIO = "WTCP achieves throughput values 4-8 times higher than TCP-tahoe."
Q_GOODPUT = (
    "WTCP's aggressive retransmission policy slightly reduces the goodput of the wireless "
    "link as shown in Figure 4(b). However, the throughput gain (4-8 times higher than "
    "TCP-tahoe) outweighs the small loss in goodput (around 2%)."
)
Q_ITCP = "For a good quality wireless link, the throughput of I-TCP is better than other protocols."
Q_WTCP_BEST = (
    "However, when the wireless link quality degrades WTCP yields better throughput mainly "
    "because of its aggressive retransmission policy over the wireless link."
)
Q_SNOOP = (
    "Though Snoop achieves throughput values comparable to I-TCP and WTCP at low loss "
    "situations, the throughput of Snoop is poor when the wireless link is very bursty (in "
    "bad error state) for long durations."
)
Q_FIG5A = (
    "When the residence time is not excluded, the timeout value reaches as high as 2.4 "
    "seconds, a five fold jump from the timeout value when the residence time is excluded."
)
Q_FIG5A_RANGE = "In the latter case, the timeout value varies between 500–700 ms."  # noqa: RUF001
Q_FIG5A_SLOW = (
    "However, when the exact value of the residence time is excluded, the timeout value "
    "varies more slowly compared to when most recent timestamp is used."
)
Q_FIG5B = (
    "When the timestamp of the most recent segment is used or the exact residence time is "
    "excluded, the timeout value is always 900 ms (i.e. 3 clock ticks). However, if the "
    "timestamp is not modified (i.e. residence time is not excluded) the timeout value "
    "reaches as high as 2.4 seconds."
)
Q_FIG6A = (
    "The effect of residence time on the TCP source's ability to detect congestion losses in "
    "the wired link can be clearly seen in Figure 6(a) where the wired loss probability is "
    "0.01."
)
Q_FIG6B = (
    "However, when there are only few wired link losses (Figure 6(b)), as expected, the "
    "number of data segments lost is low, and hence number of retransmissions is low and "
    "excluding the residence time does not provide significant improvement in throughput."
)


def _bad(quick: bool) -> list[str]:
    return ["10ms", "100ms"] if quick else ["10ms", "25ms", "50ms", "75ms", "100ms"]


def campaigns(quick: bool) -> Sequence[Campaign]:
    bad = _bad(quick)
    seeds = 4 if quick else 10
    metrics = (
        "throughput_bps",
        "wireless_goodput_bytes",
        "tcp_timeouts",
        "tcp_fast_retransmits",
        "agent_residence_mean_s",
    )
    common: dict[str, Any] = {
        "zip": {FWD_BAD: bad, REV_BAD: bad},
        "metrics": metrics,
        "finite": False,
        "mechanisms": MECHANISMS,
        "paper_stalls": {"itcp": ITCP_STALL},
    }
    return [
        Campaign("fig4", SCENARIO, seeds, variants=VARIANTS, axes={"bad": FWD_BAD}, **common),
        Campaign(
            "fig6",
            SCENARIO,
            seeds,
            grid={WIRED_P: [0.01, 0.001]},
            variants=FIG6_VARIANTS,
            axes={"p": WIRED_P, "bad": FWD_BAD},
            **common,
        ),
        Campaign(
            "tahoe", SCENARIO, seeds, variants=TAHOE_VARIANTS, axes={"bad": FWD_BAD}, **common
        ),
    ]


def _mean_over(stats: Sequence[Stat]) -> Stat:
    """The mean of several points' means, its interval from theirs (independent runs)."""
    n = len(stats)
    return Stat(
        sum(s.mean for s in stats) / n,
        sum(s.ci**2 for s in stats) ** 0.5 / n,
        min(s.n for s in stats),
    )


def _fig4_throughput(ctx: Context, bad: list[str]) -> None:
    data = ctx["fig4"]
    tput = {(v, b): data.value("throughput_bps", v, bad=b) for v in VARIANTS for b in bad}
    longest, shortest = bad[-1], bad[0]
    for v in VARIANTS:
        ctx.compare(
            f"Fig. 4 {LABELS[v]} throughput, Bad {longest}",
            "WTCP Fig. 4",
            "kbps",
            None,
            scaled(tput[(v, longest)], 1e-3),
            "paper gives the curve only",
        )
    ratios = {b: ratio(tput[("wtcp", b)], tput[("tahoe", b)]) for b in bad}
    for b, r in ratios.items():
        ctx.compare(
            f"Fig. 4 WTCP / Tahoe throughput, Bad {b}",
            "WTCP §5 (4-8x)",
            "ratio",
            None,
            r,
            "paper: 4-8x (a range: no single number)",
        )
    outside = [b for b, r in ratios.items() if not 3.5 <= r.mean < 8.5]
    ctx.claim(
        "WTCP's throughput is 4-8 times Tahoe's (every Bad period)",
        "WTCP §5, Fig. 4(a)",
        not outside,
        ", ".join(f"Bad {b}: {r.mean:.2f}x" for b, r in ratios.items()),
        quote=Q_RATIO,
        band="3.5 <= WTCP / Tahoe < 8.5 at every mean Bad period (4-8 at integer precision)",
        explanation=(
            f"Our ratio grows with the Bad period, {ratios[shortest].mean:.1f}x to "
            f"{ratios[longest].mean:.1f}x. With a 1 s minimum RTO or a 500 ms clock "
            f"(finding 'Tahoe's sensitivity') it reaches {_sens_ratio(ctx, longest):.1f}x at "
            f"Bad {longest} but stays {_sens_ratio(ctx, shortest):.1f}x at Bad {shortest}: on "
            "a link that is Bad 1 % of the time our Tahoe, with fast retransmit and a window "
            "of 10 segments, keeps more than half of WTCP's throughput, and no timer setting "
            "we tried changes that."
        ),
    )
    ranked = {b: sorted(VARIANTS, key=lambda v: -tput[(v, b)].mean) for b in (shortest, longest)}
    detail = {
        b: ", ".join(f"{LABELS[v]} {tput[(v, b)].mean / 1e3:.0f}" for v in ranked[b]) + " kbps"
        for b in ranked
    }
    ctx.claim(
        "I-TCP has the highest throughput on a good link (shortest Bad period)",
        "WTCP §5, Fig. 4(a)",
        ranked[shortest][0] == "itcp",
        f"Bad {shortest}: {detail[shortest]}",
        quote=Q_ITCP,
        band=f"I-TCP's mean throughput above each other protocol's at Bad {shortest}",
    )
    ctx.claim(
        "WTCP has the highest throughput when the link degrades (longest Bad period)",
        "WTCP §5, Fig. 4(a)",
        ranked[longest][0] == "wtcp",
        f"Bad {longest}: {detail[longest]}",
        quote=Q_WTCP_BEST,
        band=f"WTCP's mean throughput above each other protocol's at Bad {longest}",
        explanation=(
            f"At Bad {longest} our {LABELS[ranked[longest][0]]} is ahead of WTCP "
            f"({tput[(ranked[longest][0], longest)].mean / 1e3:.0f} against "
            f"{tput[('wtcp', longest)].mean / 1e3:.0f} kbps); I-TCP also recovers on the "
            "wireless hop alone."
        ),
    )
    s, i, w = (tput[(v, shortest)].mean for v in ("snoop", "itcp", "wtcp"))
    ctx.claim(
        "Snoop's throughput is comparable to I-TCP's and WTCP's on a good link",
        "WTCP §5, Fig. 4(a)",
        within(s, i, 0.10) and within(s, w, 0.10),
        f"Bad {shortest}: Snoop {s / 1e3:.0f}, I-TCP {i / 1e3:.0f}, WTCP {w / 1e3:.0f} kbps",
        quote=Q_SNOOP,
        band=f"Snoop within 10 % of I-TCP and of WTCP at Bad {shortest} ('comparable')",
        explanation=(
            f"Snoop is {100 * (1 - s / w):.0f} % below WTCP and {100 * (1 - s / i):.0f} % below "
            f"I-TCP at Bad {shortest}; our I-TCP leads every protocol there."
        ),
    )
    s, i, w = (tput[(v, longest)].mean for v in ("snoop", "itcp", "wtcp"))
    ctx.claim(
        "Snoop is poor under long Bad periods: below I-TCP and WTCP",
        "WTCP §5, Fig. 4(a)",
        s < min(i, w),
        f"Bad {longest}: Snoop {s / 1e3:.0f}, I-TCP {i / 1e3:.0f}, WTCP {w / 1e3:.0f} kbps",
        quote=Q_SNOOP,
        band=f"Snoop's mean throughput below I-TCP's and WTCP's at Bad {longest}",
    )


def _sens_ratio(ctx: Context, bad: str) -> float:
    """WTCP / the slowest of the Tahoe sensitivity variants at `bad` (the largest ratio)."""
    wtcp = ctx["fig4"].value("throughput_bps", "wtcp", bad=bad).mean
    return max(wtcp / ctx["tahoe"].value("throughput_bps", v, bad=bad).mean for v in TAHOE_VARIANTS)


def _fig4_goodput(ctx: Context, bad: list[str]) -> None:
    data = ctx["fig4"]
    gp = {
        (v, b): data.value("wireless_goodput_bytes", v, bad=b).mean for v in VARIANTS for b in bad
    }
    loss = {}
    for b in bad:
        others = sum(gp[(v, b)] for v in VARIANTS if v != "wtcp") / (len(VARIANTS) - 1)
        loss[b] = 100.0 * (1.0 - gp[("wtcp", b)] / others)
    mean_loss = sum(loss.values()) / len(loss)
    ctx.compare(
        "Fig. 4(b) WTCP's goodput below the others' mean, mean over Bad periods",
        "WTCP §5, Fig. 4(b)",
        "%",
        2.0,
        Stat(mean_loss, float("nan"), data.value("wireless_goodput_bytes", "wtcp", bad=bad[0]).n),
        "paper: around 2 %",
    )
    ctx.claim(
        "WTCP's goodput is slightly lower than the others', by around 2 %",
        "WTCP §5, Fig. 4(b)",
        all(x > 0 for x in loss.values()) and 1.5 <= mean_loss < 2.5,
        ", ".join(f"Bad {b}: {x:+.1f} %" for b, x in loss.items())
        + f"; mean {mean_loss:.1f} % (goodput: "
        + ", ".join(f"{LABELS[v]} {gp[(v, bad[-1])]:.3f}" for v in VARIANTS)
        + f" at Bad {bad[-1]})",
        quote=Q_GOODPUT,
        band="WTCP's goodput below the other three's mean at every Bad period, by 1.5-2.5 % "
        "on average over the Bad periods ('around 2%')",
        explanation=(
            f"WTCP's shortfall averages {mean_loss:.1f} % over the Bad periods, from "
            f"{max(loss.values()):.1f} % to {min(loss.values()):.1f} % (detail): the others "
            "pay for retransmissions too (Snoop and I-TCP recover locally, Tahoe resends end "
            "to end), so the gap depends on the Bad period."
        ),
    )


def _sampled(trace: Any) -> Any:
    """The rows of an `rtt` trace with an RTT sample: the estimator's RTO (the rows without
    one record timer backoffs)."""
    return trace[trace["sample_s"].notna()]


def _rto_each_second(trace: Any, end_s: float) -> np.ndarray:
    """The RTO at t = 1, 2, ... s (the last value set before each), after the warm-up."""
    import numpy as np

    t = trace["time_s"].to_numpy()
    rto = trace["rto_s"].to_numpy()
    grid = np.arange(np.ceil(WARMUP_S), np.floor(end_s) + 1.0)
    idx = np.searchsorted(t, grid, side="right") - 1
    keep = idx >= 0
    out: np.ndarray = rto[idx[keep]]
    return out


def ns_integer_rto(samples_s: np.ndarray, tick_s: float) -> np.ndarray:
    """The RTO ns-2 (and 4.4BSD) would compute from the same RTT samples, in whole ticks.

    ns-2's ``rtt_update``: the sample in ticks (at least 1); srtt scaled by 8, rttvar by 4,
    both integers; rto = srtt/8 + rttvar ticks, at least 2 ticks (protocol-notes §2.2).
    Integer shifts keep the scaled rttvar from decaying below 2 or 3 (rttvar >> 2 is 0
    there): the RTO never falls below srtt + 2 ticks. A recurrence over one run's samples
    (thousands).
    """
    import numpy as np

    out = np.empty(len(samples_s))
    srtt = rttvar = 0
    for i, sample in enumerate(samples_s):
        ticks = max(1, round(float(sample) / tick_s))
        if srtt == 0:
            srtt, rttvar = ticks << 3, ticks << 1
        else:
            delta = ticks - (srtt >> 3)
            srtt = max(srtt + delta, 1)
            rttvar = max(rttvar + abs(delta) - (rttvar >> 2), 1)
        out[i] = max(srtt // 8 + rttvar, 2) * tick_s
    return out


def _fig5_runs(ctx: Context) -> tuple[dict[tuple[str, str], Any], dict[tuple[str, str], Any]]:
    import numpy as np

    end = 50.0 if ctx.quick else 200.0
    sampled = {}
    ns = {}
    with ctx.figure(
        "fig5",
        "WTCP Fig. 5: the source's RTO over time, sampled every second (mean Bad 100 ms); one "
        "run (seed 1), no bars",
        2,
    ) as axes:
        for ax, clock in zip(axes, CLOCKS, strict=True):
            for ts in ("none", "exact", "recent"):
                overrides = _fig5_overrides(clock, ts, end)
                trace = _sampled(ctx.run_traced(SCENARIO, 1, overrides, ["rtt"]).trace("rtt"))
                sampled[(clock, ts)] = _rto_each_second(trace, end)
                tick = float(clock.removesuffix("ms")) / 1e3
                replay = trace.assign(rto_s=ns_integer_rto(trace["sample_s"].to_numpy(), tick))
                ns[(clock, ts)] = _rto_each_second(replay, end)
                secs = np.arange(np.ceil(WARMUP_S), np.ceil(WARMUP_S) + len(sampled[(clock, ts)]))
                ax.step(secs, sampled[(clock, ts)], where="post", label=f"timestamps: {ts}")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("source RTO (s)")
            ax.set_title(f"source clock {clock}", fontsize="small")
    return sampled, ns


def _fig5_overrides(clock: str, ts: str, end: float) -> dict[str, Any]:
    return {
        **VARIANTS["wtcp"],
        "base_station.wtcp.timestamps": ts,
        "base_station.wtcp.source_clock": clock,
        "flow.0.tcp.timer_granularity": clock,
        "flow.0.tcp.min_rto": CLOCKS[clock],
        "stop_time": f"{end:g}s",
    }


def _none_peaks(ctx: Context, clock: str, seed1: float) -> list[float]:
    """The largest once-a-second RTO without rewriting for seeds 1..N (seed 1 given)."""
    import numpy as np

    end = 50.0 if ctx.quick else 200.0
    peaks = [seed1]
    for seed in range(2, 3 if ctx.quick else 6):
        trace = ctx.run_traced(SCENARIO, seed, _fig5_overrides(clock, "none", end), ["rtt"])
        peaks.append(float(np.max(_rto_each_second(_sampled(trace.trace("rtt")), end))))
    return peaks


def _fig5(ctx: Context) -> None:
    import numpy as np

    rto, ns = _fig5_runs(ctx)
    _fig5_finding(ctx, rto, ns)
    largest = {k: float(np.max(v)) for k, v in rto.items()}
    paper = {"none": 2.4, "exact": 0.7, "recent": 0.7}
    for (clock, ts), value in largest.items():
        ctx.compare(
            f"Fig. 5 largest source RTO, clock {clock}, timestamps {ts}",
            "WTCP Fig. 5",
            "s",
            paper[ts] if clock == "100ms" else (2.4 if ts == "none" else 0.9),
            Stat(value, float("nan"), 1),
            f"one seed, sampled every second from {WARMUP_S:g} s",
        )

    def rng(values: Any) -> str:
        return f"{float(np.min(values)):.1f}-{float(np.max(values)):.1f} s"

    floor_note = (
        "The paper's ns computes the RTO in integer clock ticks, where the scaled deviation "
        "cannot decay below half a tick: the RTO never falls below srtt + 2 ticks. Our "
        "estimator keeps the deviation exact and falls to the two-tick minimum (finding "
        "'Fig. 5's RTO floor'). ns-2's estimator on our run's own samples gives: "
    )
    none = largest[("100ms", "none")]
    peaks = {c: _none_peaks(ctx, c, largest[(c, "none")]) for c in CLOCKS}
    ctx.claim(
        "clock 100 ms, residence time not hidden: the RTO reaches 2.4 s",
        "WTCP §5, Fig. 5(a)",
        2.35 <= none < 2.45,
        f"largest RTO {none:.2f} s",
        quote=Q_FIG5A,
        band="largest RTO sampled each second 2.35-2.45 s ('as high as 2.4 seconds')",
        explanation=(
            f"Seed 1 peaks at {none:.1f} s; seeds 1-{len(peaks['100ms'])} peak at "
            f"{', '.join(f'{p:.1f}' for p in peaks['100ms'])} s. The peak follows the run's "
            "longest stay in the base station's buffer, i.e. its longest fades: one run's "
            "2.4 s is one draw of it."
        ),
    )
    typical = float(np.mean(rto[("100ms", "exact")]))
    ns_typical = float(np.mean(ns[("100ms", "exact")]))
    ctx.claim(
        "clock 100 ms: not hiding the residence time is a five fold jump in the RTO",
        "WTCP §5, Fig. 5(a)",
        4.5 <= none / typical < 5.5,
        f"largest RTO not hidden {none:.2f} s / mean RTO hidden exactly {typical:.2f} s = "
        f"{none / typical:.1f}x",
        quote=Q_FIG5A,
        band="largest RTO (not hidden) / mean RTO (hidden exactly) 4.5-5.5 ('five fold')",
        explanation=floor_note + f"a mean hidden RTO of {ns_typical:.2f} s, "
        f"{none / ns_typical:.1f}x below our peak; the paper's 2.4 s over its 500 ms is 4.8x.",
    )
    hidden = np.concatenate([rto[("100ms", "exact")], rto[("100ms", "recent")]])
    ns_hidden = np.concatenate([ns[("100ms", "exact")], ns[("100ms", "recent")]])
    ctx.claim(
        "clock 100 ms, residence time hidden: the RTO varies between 500 and 700 ms",
        "WTCP §5, Fig. 5(a)",
        bool(((hidden >= 0.45) & (hidden < 0.75)).all()),
        f"exact {rng(rto[('100ms', 'exact')])}, recent {rng(rto[('100ms', 'recent')])}",
        quote=Q_FIG5A_RANGE,
        band="every RTO sampled each second (exact and recent) in 0.45-0.75 s",
        explanation=floor_note + f"{rng(ns_hidden)}.",
    )
    changes = {ts: int((np.diff(rto[("100ms", ts)]) != 0).sum()) for ts in ("exact", "recent")}
    ns_changes = {ts: int((np.diff(ns[("100ms", ts)]) != 0).sum()) for ts in ("exact", "recent")}
    ctx.claim(
        "clock 100 ms: with exact rewriting the RTO varies more slowly than with the most "
        "recent timestamp",
        "WTCP §5, Fig. 5(a)",
        changes["exact"] < changes["recent"],
        f"changes between one-second samples: exact {changes['exact']}, recent {changes['recent']}",
        quote=Q_FIG5A_SLOW,
        band="fewer changes of the once-a-second RTO with exact rewriting than with recent",
        explanation=(
            "Ours moves by one 100 ms tick between the same two values with both rewritings. "
            "ns-2's integer estimator on the same samples changes "
            f"{ns_changes['exact']} times with exact rewriting and {ns_changes['recent']} "
            "times with the most recent timestamp: where it changes less with exact rewriting, "
            "as the paper says, the difference is the estimator's rounding."
        ),
    )
    b_vals = np.concatenate([rto[("300ms", "exact")], rto[("300ms", "recent")]])
    b_none = largest[("300ms", "none")]
    ctx.claim(
        "clock 300 ms: hidden, the RTO is always 900 ms; not hidden, it reaches 2.4 s",
        "WTCP §5, Fig. 5(b)",
        bool((np.abs(b_vals - 0.9) < 0.05).all()) and 2.35 <= b_none < 2.45,
        f"hidden: {np.mean(np.abs(b_vals - 0.9) < 0.05) * 100:.0f} % of samples at 900 ms "
        f"(values {', '.join(f'{v:g}' for v in np.unique(b_vals.round(3)))} s); "
        f"not hidden: largest {b_none:.2f} s (seeds 1-{len(peaks['300ms'])}: "
        f"{', '.join(f'{p:.1f}' for p in peaks['300ms'])} s)",
        quote=Q_FIG5B,
        band="every RTO sampled each second with exact and recent rewriting = 0.9 s (3 ticks), "
        "and the largest without rewriting 2.35-2.45 s",
        explanation=floor_note
        + f"exact {rng(ns[('300ms', 'exact')])}, recent {rng(ns[('300ms', 'recent')])} "
        "(the paper: always 0.9 s).",
    )


def _fig5_finding(
    ctx: Context, rto: dict[tuple[str, str], Any], ns: dict[tuple[str, str], Any]
) -> None:
    import numpy as np

    def span(values: np.ndarray) -> str:
        lo, hi = float(np.min(values)), float(np.max(values))
        share = {float(v): float(np.mean(values == v)) for v in np.unique(values.round(3))}
        top = max(share, key=lambda v: share[v])
        return f"{lo:.1f}-{hi:.1f} s (mostly {top:.1f} s, {100 * share[top]:.0f} %)"

    parts = [
        f"clock {clock}, {ts}: ours {span(rto[(clock, ts)])}, ns-2's integer estimator on "
        f"the same samples {span(ns[(clock, ts)].round(3))}"
        for clock in CLOCKS
        for ts in ("exact", "recent")
    ]
    ctx.finding(
        "Fig. 5's RTO floor.",
        "We replayed the RTT samples of each Fig. 5 run through ns-2's integer RTT "
        "estimator (srtt x 8 and rttvar x 4 in whole ticks, `ns_integer_rto`): "
        + "; ".join(parts)
        + ". The integer deviation cannot decay below half a tick, which adds at least two "
        "ticks to every RTO: at the 100 ms clock that is the paper's 500-700 ms, and at the "
        "300 ms clock its 900 ms with the most recent timestamp. Our RTO keeps the deviation "
        "exact and sits at the two-tick minimum.",
    )


def _fig6(ctx: Context, bad: list[str]) -> None:
    data = ctx["fig6"]
    with ctx.figure(
        "fig6",
        "WTCP Fig. 6: throughput with wired losses P = 0.01 (a), 0.001 (b); bars: 95 % CI",
        2,
    ) as axes:
        for ax, p in zip(axes, (0.01, 0.001), strict=True):
            for v in FIG6_VARIANTS:
                errorbars(
                    ax, data, "throughput_bps", "bad", v, LABELS[v], scale=1e-3, x_scale=1e3, p=p
                )
            ax.set_xlabel("mean Bad period (ms)")
            ax.set_ylabel("throughput (kbps)")
            ax.set_title(f"wired loss P = {p}", fontsize="small")
    mean = {
        (v, p): _mean_over([data.value("throughput_bps", v, p=p, bad=b) for b in bad])
        for v in FIG6_VARIANTS
        for p in (0.01, 0.001)
    }

    def detail(p: float) -> str:
        return "mean over Bad periods: " + ", ".join(
            f"{LABELS[v]} {scaled(mean[(v, p)], 1e-3)} kbps" for v in FIG6_VARIANTS
        )

    ctx.claim(
        "P = 0.01: rewriting the timestamp clearly raises WTCP's throughput",
        "WTCP §5, Fig. 6(a)",
        clearly_above(mean[("wtcp_recent", 0.01)], mean[("wtcp_none", 0.01)]),
        detail(0.01),
        quote=Q_FIG6A,
        band="WTCP with the most recent timestamp above WTCP without rewriting, mean over "
        "Bad periods, 95 % intervals apart ('clearly')",
        explanation=(
            "Per 200 s run at P = 0.01 (mean over Bad periods) the source times out "
            + " and ".join(
                f"{_mean_metric(data, 'tcp_timeouts', v, 0.01, bad):.1f} times {what}"
                for v, what in (("wtcp_recent", "with rewriting"), ("wtcp_none", "without"))
            )
            + ", and a segment waits "
            + " and ".join(
                f"{1e3 * _mean_metric(data, 'agent_residence_mean_s', v, 0.01, bad):.0f} ms"
                for v in ("wtcp_recent", "wtcp_none")
            )
            + " on average in the base station's buffer: under one 100 ms source tick, so the "
            "rewritten and the raw timestamps often give the source the same tick-rounded "
            "RTT sample, and the same RTO."
        ),
    )
    ctx.claim(
        "P = 0.001: rewriting makes no significant difference",
        "WTCP §5, Fig. 6(b)",
        not clearly_above(mean[("wtcp_recent", 0.001)], mean[("wtcp_none", 0.001)]),
        detail(0.001),
        quote=Q_FIG6B,
        band="WTCP with the most recent timestamp not above WTCP without rewriting beyond "
        "the 95 % intervals, mean over Bad periods ('not significant')",
    )


def _mean_metric(data: Any, metric: str, v: str, p: float, bad: list[str]) -> float:
    return float(sum(data.value(metric, v, p=p, bad=b).mean for b in bad) / len(bad))


def _tahoe_finding(ctx: Context, bad: list[str]) -> None:
    fig4, sens = ctx["fig4"], ctx["tahoe"]
    rows = []
    for v in ("tahoe", *TAHOE_VARIANTS):
        data = fig4 if v == "tahoe" else sens
        ratios = [
            fig4.value("throughput_bps", "wtcp", bad=b).mean
            / data.value("throughput_bps", v, bad=b).mean
            for b in bad
        ]
        rows.append(f"{LABELS[v]}: " + ", ".join(f"{r:.1f}x" for r in ratios))
        if v != "tahoe":
            ctx.compare(
                f"WTCP / {LABELS[v]}, Bad {bad[-1]}",
                "WTCP §5 (4-8x)",
                "ratio",
                None,
                ratio(
                    fig4.value("throughput_bps", "wtcp", bad=bad[-1]),
                    sens.value("throughput_bps", v, bad=bad[-1]),
                ),
                "sensitivity of the Tahoe baseline",
            )
    ctx.finding(
        "Tahoe's sensitivity (WTCP / Tahoe, Bad " + " / ".join(bad) + ").",
        "; ".join(rows) + ". The paper's 4-8x at every Bad period needs a Tahoe below a "
        f"quarter of WTCP's throughput even at Bad {bad[0]}. A 1 s minimum RTO or a 500 ms "
        "clock makes each timeout cost more and raises the ratio where timeouts are many "
        "(long Bad periods), hardly where fast retransmit repairs most losses (short ones); "
        "fading on the data direction only, which the paper might have meant, lowers it. The "
        "paper names only the 100 ms source clock.",
    )


def _fig4_figure(ctx: Context) -> None:
    data = ctx["fig4"]
    with ctx.figure(
        "fig4",
        "WTCP Fig. 4: throughput (a) and goodput (b) vs mean Bad period; bars: 95 % CI",
        2,
    ) as (a, b):
        for v in VARIANTS:
            errorbars(a, data, "throughput_bps", "bad", v, LABELS[v], scale=1e-3, x_scale=1e3)
            errorbars(b, data, "wireless_goodput_bytes", "bad", v, LABELS[v], x_scale=1e3)
        for ax, y in ((a, "throughput (kbps)"), (b, "goodput (new bytes / bytes sent)")):
            ax.set_xlabel("mean Bad period (ms)")
            ax.set_ylabel(y)


def analyse(ctx: Context) -> None:
    bad = _bad(ctx.quick)
    _fig4_throughput(ctx, bad)
    _fig4_goodput(ctx, bad)
    _fig4_figure(ctx)
    _fig5(ctx)
    _fig6(ctx, bad)
    _tahoe_finding(ctx, bad)


EXPERIMENT = Experiment(
    name="wtcp",
    title="WTCP Figs. 4-6: Tahoe, Snoop, I-TCP, WTCP over a fading link",
    paper="K. Ratnam and I. Matta, WTCP (seed 001), §4-5, Figs. 4-6, Table I",
    description=(
        "A Tahoe source 100 ms away from a base station that feeds an 800 kbps fading "
        "link (Gilbert-Elliott, mean Good 1 s, mean Bad 10-100 ms, BER 1e-6 / 1e-2), "
        "10 KB window, 960-byte segments, 200 s runs: throughput and goodput of Tahoe "
        "alone, Snoop, I-TCP and WTCP (Fig. 4); the source's RTO with WTCP's timestamp "
        "rewriting off, exact or most-recent (Fig. 5); random wired losses (Fig. 6)."
    ),
    differences=(
        "The paper publishes curves, not tables, so most of our numbers stand beside a "
        "range read from its text (4-8x, 500-700 ms, 900 ms, 2.4 s). Our Tahoe baseline "
        "has no RFC 1323 timestamps (the 4.3BSD Tahoe the paper compares with). Our RTO "
        "estimator keeps the RTT deviation exact, where the paper's ns rounds it to clock "
        "ticks with a floor of half a tick: that floor is what makes the paper's RTO "
        "'always 900 ms' at a 300 ms clock, and ours falls to the two-tick minimum. Fig. 5 "
        "is one seed, as the paper shows one run, sampled every second as the paper plots "
        "it."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="001",
)
