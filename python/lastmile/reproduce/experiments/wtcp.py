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
- Tahoe's sensitivity: the paper's WTCP is 4-8x Tahoe, ours less; the
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
    Published,
    Stat,
    clearly_above,
    errorbars,
    ratio,
    scaled,
)
from lastmile.reproduce.words import about, similar, written

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
#: Fig. 6's wired loss probabilities, and the higher ones its text speaks of.
FIG6_P = (0.01, 0.001)
HIGHER_P = (0.02, 0.05)
#: Fig. 5's runs: seeds 1-5 (the paper shows one run; its numbers are tested on the mean).
FIG5_SEEDS = 5
#: Fig. 5's settings: source clock → its two-tick minimum RTO.
CLOCKS = {"100ms": "200ms", "300ms": "600ms"}
#: Fig. 5 is sampled every second; samples before this time (slow start) are left out.
WARMUP_S = 5.0

#: What the runs of docs/models/wtcp.md ("Table II: why hiding the residence time
#: matters") found about the model questions behind the residence-time effect.
WTCP_EVIDENCE = (
    " The model questions behind the effect were run for Table II (docs/models/wtcp.md): "
    "the receiver's echo decides it (ns's sink, each ACK echoing its own segment, as WTCP "
    "§3.1 describes: wtcp at buffer 50 with LRT included 14.8 -> 8.6 kbps); the wireless "
    "window counted from the mobile's ACK point, as §3 words it (counted in flight the "
    "effect disappears); timers on clock ticks or at exact times, and ns-2's RTT estimator "
    "at the source, move wtcp only within the seeds' spread (LRT included 7.0-7.2 kbps at "
    "buffer 50)."
)

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
Q_HIGHER = (
    "The advantage of hiding the residence time at the base station becomes even more "
    "pronounced for higher wired (congestion) loss probabilities."
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
            grid={WIRED_P: list(FIG6_P)},
            variants=FIG6_VARIANTS,
            axes={"p": WIRED_P, "bad": FWD_BAD},
            **common,
        ),
        Campaign(
            "fig6hi",
            SCENARIO,
            seeds,
            grid={WIRED_P: list(HIGHER_P)},
            variants={v: FIG6_VARIANTS[v] for v in ("wtcp_recent", "wtcp_none")},
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


def _tput(ctx: Context) -> dict[tuple[str, str], Stat]:
    data = ctx["fig4"]
    return {
        (v, b): data.value("throughput_bps", v, bad=b) for v in VARIANTS for b in _bad(ctx.quick)
    }


def _fig4_compare(ctx: Context) -> None:
    bad = _bad(ctx.quick)
    tput = _tput(ctx)
    for v in VARIANTS:
        ctx.compare(
            f"Fig. 4 {LABELS[v]} throughput, Bad {bad[-1]}",
            "WTCP Fig. 4",
            "kbps",
            None,
            scaled(tput[(v, bad[-1])], 1e-3),
            "paper gives the curve only",
        )
    for b in bad:
        ctx.compare(
            f"Fig. 4 WTCP / Tahoe throughput, Bad {b}",
            "WTCP §5 (4-8x)",
            "ratio",
            None,
            ratio(tput[("wtcp", b)], tput[("tahoe", b)]),
            "paper: 4-8x (a range: no single number)",
        )
    loss = _goodput_loss(ctx)
    ctx.compare(
        "Fig. 4(b) WTCP's goodput below the others' mean, mean over Bad periods",
        "WTCP §5, Fig. 4(b)",
        "%",
        2.0,
        Stat(
            sum(loss.values()) / len(loss),
            float("nan"),
            ctx["fig4"].value("wireless_goodput_bytes", "wtcp", bad=bad[0]).n,
        ),
        "paper: around 2 %",
        ref="§5: goodput around 2 % lower",
    )


def claim_ratio(ctx: Context) -> None:
    bad = _bad(ctx.quick)
    ratios = ctx.quantity(
        "wtcp_over_tahoe",
        lambda: {b: _tput(ctx)[("wtcp", b)].mean / _tput(ctx)[("tahoe", b)].mean for b in bad},
    )
    band = written("4-8")
    ctx.claim(
        "WTCP's throughput is 4-8 times Tahoe's (every Bad period)",
        "WTCP §5, Fig. 4(a)",
        all(band.holds(r) for r in ratios.values()),
        ", ".join(f"Bad {b}: {r:.2f}x" for b, r in ratios.items()),
        quote=Q_RATIO,
        band=f"WTCP / Tahoe at every mean Bad period {band.describe('x')}",
        explanation=lambda: (
            f"Our ratio grows with the Bad period, {ratios[bad[0]]:.1f}x to "
            f"{ratios[bad[-1]]:.1f}x. With a 1 s minimum RTO or a 500 ms clock (finding "
            f"'Tahoe's sensitivity') it reaches {_sens_ratio(ctx, bad[-1]):.1f}x at Bad "
            f"{bad[-1]} but stays {_sens_ratio(ctx, bad[0]):.1f}x at Bad {bad[0]}: on a link "
            "that is Bad 1 % of the time our Tahoe, with fast retransmit and a window of 10 "
            "segments, keeps more than half of WTCP's throughput, and no timer setting we "
            "tried changes that."
        ),
    )


def _ranked(ctx: Context, b: str) -> list[str]:
    tput = _tput(ctx)
    return sorted(VARIANTS, key=lambda v: -tput[(v, b)].mean)


def _detail(ctx: Context, b: str) -> str:
    tput = _tput(ctx)
    return (
        ", ".join(f"{LABELS[v]} {tput[(v, b)].mean / 1e3:.0f}" for v in _ranked(ctx, b)) + " kbps"
    )


def claim_itcp(ctx: Context) -> None:
    shortest = _bad(ctx.quick)[0]
    ctx.claim(
        "I-TCP has the highest throughput on a good link (shortest Bad period)",
        "WTCP §5, Fig. 4(a)",
        _ranked(ctx, shortest)[0] == "itcp",
        lambda: f"Bad {shortest}: {_detail(ctx, shortest)}",
        quote=Q_ITCP,
        band=f"I-TCP's mean throughput above each other protocol's at Bad {shortest}",
        explanation=lambda: f"At Bad {shortest}: {_detail(ctx, shortest)}.",
    )


def claim_wtcp_best(ctx: Context) -> None:
    longest = _bad(ctx.quick)[-1]
    first = _ranked(ctx, longest)[0]
    ctx.claim(
        "WTCP has the highest throughput when the link degrades (longest Bad period)",
        "WTCP §5, Fig. 4(a)",
        first == "wtcp",
        lambda: f"Bad {longest}: {_detail(ctx, longest)}",
        quote=Q_WTCP_BEST,
        band=f"WTCP's mean throughput above each other protocol's at Bad {longest}",
        explanation=lambda: (
            f"At Bad {longest} our {LABELS[first]} is ahead of WTCP ({_detail(ctx, longest)}); "
            "I-TCP also recovers on the wireless hop alone."
        ),
    )


def claim_snoop_good(ctx: Context) -> None:
    shortest = _bad(ctx.quick)[0]
    tput = _tput(ctx)
    s, i, w = (tput[(v, shortest)].mean for v in ("snoop", "itcp", "wtcp"))
    ctx.claim(
        "Snoop's throughput is comparable to I-TCP's and WTCP's on a good link",
        "WTCP §5, Fig. 4(a)",
        similar(s, i) and similar(s, w),
        f"Bad {shortest}: Snoop {s / 1e3:.0f}, I-TCP {i / 1e3:.0f}, WTCP {w / 1e3:.0f} kbps",
        quote=Q_SNOOP,
        band=f"Snoop within 10 % of I-TCP and of WTCP at Bad {shortest} ('comparable')",
        explanation=(
            f"Snoop is {100 * (1 - s / w):.0f} % below WTCP and {100 * (1 - s / i):.0f} % below "
            f"I-TCP at Bad {shortest}; our I-TCP leads every protocol there: its fixed host's "
            "connection ends at the base station, and the source times out "
            + ", ".join(
                f"{ctx['fig4'].value('tcp_timeouts', v, bad=shortest).mean:.1f} times with "
                f"{LABELS[v]}"
                for v in ("snoop", "itcp", "wtcp")
            )
            + " per run."
        ),
    )


def claim_snoop_poor(ctx: Context) -> None:
    longest = _bad(ctx.quick)[-1]
    tput = _tput(ctx)
    s, i, w = (tput[(v, longest)].mean for v in ("snoop", "itcp", "wtcp"))
    ctx.claim(
        "Snoop is poor under long Bad periods: below I-TCP and WTCP",
        "WTCP §5, Fig. 4(a)",
        s < min(i, w),
        f"Bad {longest}: Snoop {s / 1e3:.0f}, I-TCP {i / 1e3:.0f}, WTCP {w / 1e3:.0f} kbps",
        quote=Q_SNOOP,
        band=f"Snoop's mean throughput below I-TCP's and WTCP's at Bad {longest}",
        explanation=lambda: (
            f"At Bad {longest} the source times out "
            + ", ".join(
                f"{ctx['fig4'].value('tcp_timeouts', v, bad=longest).mean:.1f} times with "
                f"{LABELS[v]}"
                for v in ("snoop", "itcp", "wtcp")
            )
            + " per run, and makes "
            + ", ".join(
                f"{ctx['fig4'].value('tcp_fast_retransmits', v, bad=longest).mean:.1f} fast "
                f"retransmits with {LABELS[v]}"
                for v in ("snoop", "wtcp")
            )
            + ": Snoop's local retransmissions, sent ahead of the base station's queue, keep "
            "its source's timeouts "
            + (
                "below WTCP's"
                if ctx["fig4"].value("tcp_timeouts", "snoop", bad=longest).mean
                < ctx["fig4"].value("tcp_timeouts", "wtcp", bad=longest).mean
                else "near WTCP's"
            )
            + ", so under long Bad periods our Snoop does not fall behind as the paper's did."
        ),
    )


def _sens_ratio(ctx: Context, bad: str) -> float:
    """WTCP / the slowest of the Tahoe sensitivity variants at `bad` (the largest ratio)."""
    wtcp = ctx["fig4"].value("throughput_bps", "wtcp", bad=bad).mean
    return max(wtcp / ctx["tahoe"].value("throughput_bps", v, bad=bad).mean for v in TAHOE_VARIANTS)


def _goodput_loss(ctx: Context) -> dict[str, float]:
    """Per Bad period, WTCP's goodput below the other three's mean, in %."""
    data = ctx["fig4"]
    bad = _bad(ctx.quick)
    gp = {
        (v, b): data.value("wireless_goodput_bytes", v, bad=b).mean for v in VARIANTS for b in bad
    }
    out = {}
    for b in bad:
        others = sum(gp[(v, b)] for v in VARIANTS if v != "wtcp") / (len(VARIANTS) - 1)
        out[b] = 100.0 * (1.0 - gp[("wtcp", b)] / others)
    return out


def claim_goodput(ctx: Context) -> None:
    loss = ctx.quantity("goodput_loss", lambda: _goodput_loss(ctx))
    mean_loss = sum(loss.values()) / len(loss)
    band = about("2")
    ctx.claim(
        "WTCP's goodput is slightly lower than the others', by around 2 %",
        "WTCP §5, Fig. 4(b)",
        all(x > 0 for x in loss.values()) and band.holds(mean_loss),
        lambda: (
            ", ".join(f"Bad {b}: {x:+.1f} %" for b, x in loss.items()) + f"; mean {mean_loss:.1f} %"
        ),
        quote=Q_GOODPUT,
        band="WTCP's goodput below the other three's mean at every Bad period, by "
        f"{band.describe('%')} on average over the Bad periods",
        explanation=lambda: (
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


def _fig5_end(ctx: Context) -> float:
    return 50.0 if ctx.quick else 200.0


def _fig5_seeds(ctx: Context) -> range:
    return range(1, 3 if ctx.quick else FIG5_SEEDS + 1)


def _fig5_runs(ctx: Context) -> dict[tuple[str, str], dict[str, list[Any]]]:
    """Per (clock, timestamps): the once-a-second RTO of each seed's run, ours and ns-2's
    integer estimator replayed on the same samples."""

    def compute() -> dict[tuple[str, str], dict[str, list[Any]]]:
        end = _fig5_end(ctx)
        out: dict[tuple[str, str], dict[str, list[Any]]] = {}
        for clock in CLOCKS:
            tick = float(clock.removesuffix("ms")) / 1e3
            for ts in ("none", "exact", "recent"):
                ours, ns = [], []
                for seed in _fig5_seeds(ctx):
                    over = _fig5_overrides(clock, ts, end)
                    trace = _sampled(ctx.run_traced(SCENARIO, seed, over, ["rtt"]).trace("rtt"))
                    ours.append(_rto_each_second(trace, end))
                    replay = trace.assign(rto_s=ns_integer_rto(trace["sample_s"].to_numpy(), tick))
                    ns.append(_rto_each_second(replay, end))
                out[(clock, ts)] = {"ours": ours, "ns": ns}
        return out

    return ctx.memo("fig5", compute)


def _fig5_overrides(clock: str, ts: str, end: float) -> dict[str, Any]:
    return {
        **VARIANTS["wtcp"],
        "base_station.wtcp.timestamps": ts,
        "base_station.wtcp.source_clock": clock,
        "flow.0.tcp.timer_granularity": clock,
        "flow.0.tcp.min_rto": CLOCKS[clock],
        "stop_time": f"{end:g}s",
    }


def _peaks(ctx: Context) -> dict[str, list[float]]:
    """Per clock, each seed's largest once-a-second RTO without rewriting."""
    runs = _fig5_runs(ctx)
    return {c: [float(max(r)) for r in runs[(c, "none")]["ours"]] for c in CLOCKS}


def _hidden(ctx: Context, key: str = "ours") -> dict[str, dict[str, list[float]]]:
    """Per clock and rewriting (exact, recent): every once-a-second RTO of every seed."""
    runs = _fig5_runs(ctx)
    return {
        c: {ts: [float(x) for r in runs[(c, ts)][key] for x in r] for ts in ("exact", "recent")}
        for c in CLOCKS
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _rng(values: Sequence[float]) -> str:
    return f"{min(values):.1f}-{max(values):.1f} s"


FLOOR_NOTE = (
    "The paper's ns computes the RTO in integer clock ticks, where the scaled deviation "
    "cannot decay below half a tick: the RTO never falls below srtt + 2 ticks. Our estimator "
    "keeps the deviation exact and falls to the two-tick minimum (finding 'Fig. 5's RTO "
    "floor'). ns-2's estimator on our runs' own samples gives: "
)


def claim_fig5a_peak(ctx: Context) -> None:
    peaks = ctx.quantity("fig5_peaks", lambda: _peaks(ctx))["100ms"]
    band = written("2.4")
    ctx.claim(
        "clock 100 ms, residence time not hidden: the RTO reaches 2.4 s",
        "WTCP §5, Fig. 5(a)",
        band.holds(_mean(peaks)),
        lambda: (
            f"largest RTO per seed {', '.join(f'{p:.1f}' for p in peaks)} s, mean "
            f"{_mean(peaks):.2f} s"
        ),
        quote=Q_FIG5A,
        band=f"the largest once-a-second RTO of a run, mean over seeds 1-{len(peaks)}, "
        f"{band.describe('s')} ('as high as 2.4 seconds')",
        explanation=lambda: (
            "The peak follows the run's longest stay in the base station's buffer, i.e. its "
            "longest fades; the detail gives it per seed."
        ),
    )


def claim_fig5a_fivefold(ctx: Context) -> None:
    peaks = ctx.quantity("fig5_peaks", lambda: _peaks(ctx))["100ms"]
    hidden = ctx.quantity("fig5_hidden", lambda: _hidden(ctx))["100ms"]["exact"]
    jump = _mean(peaks) / min(hidden)
    band = written("five")
    ctx.claim(
        "clock 100 ms: not hiding the residence time is a five fold jump in the RTO",
        "WTCP §5, Fig. 5(a)",
        band.holds(jump),
        lambda: (
            f"largest RTO not hidden (mean over seeds) {_mean(peaks):.2f} s / the RTO "
            f"hidden exactly, at its lowest, {min(hidden):.2f} s = {jump:.1f}x"
        ),
        quote=Q_FIG5A,
        band="largest RTO without rewriting (mean over seeds) over the exact-rewriting RTO's "
        f"lowest once-a-second value (the level it jumps from) {band.describe('x')} "
        "('a five fold jump'; the paper's 2.4 s over its 500 ms is 4.8)",
        explanation=lambda: (
            FLOOR_NOTE
            + f"a lowest hidden RTO of {min(_hidden(ctx, 'ns')['100ms']['exact']):.2f} s."
        ),
    )


def claim_fig5a_range(ctx: Context) -> None:
    hidden = ctx.quantity("fig5_hidden", lambda: _hidden(ctx))["100ms"]
    values = hidden["exact"] + hidden["recent"]
    band = written("500–700").scaled(1e-3)  # noqa: RUF001
    ctx.claim(
        "clock 100 ms, residence time hidden: the RTO varies between 500 and 700 ms",
        "WTCP §5, Fig. 5(a)",
        all(band.holds(x) for x in values),
        lambda: f"exact {_rng(hidden['exact'])}, recent {_rng(hidden['recent'])}",
        quote=Q_FIG5A_RANGE,
        band="every RTO sampled each second, exact and recent rewriting, every seed, "
        f"{written('500–700').describe('ms')}",  # noqa: RUF001
        explanation=lambda: (
            FLOOR_NOTE
            + _rng(_hidden(ctx, "ns")["100ms"]["exact"] + _hidden(ctx, "ns")["100ms"]["recent"])
            + "."
        ),
    )


def _changes(series: list[Any]) -> float:
    import numpy as np

    return float(np.mean([(np.diff(r) != 0).sum() for r in series]))


def claim_fig5a_slow(ctx: Context) -> None:
    runs = _fig5_runs(ctx)
    ch = {ts: _changes(runs[("100ms", ts)]["ours"]) for ts in ("exact", "recent")}
    ctx.claim(
        "clock 100 ms: with exact rewriting the RTO varies more slowly than with the most "
        "recent timestamp",
        "WTCP §5, Fig. 5(a)",
        ch["exact"] < ch["recent"],
        f"changes between one-second samples, mean over seeds: exact {ch['exact']:.1f}, "
        f"recent {ch['recent']:.1f}",
        quote=Q_FIG5A_SLOW,
        band="fewer changes of the once-a-second RTO with exact rewriting than with recent "
        "(mean over seeds)",
        explanation=lambda: (
            "Ours moves by one 100 ms tick between the same two values with both "
            "rewritings. ns-2's integer estimator on the same samples changes "
            f"{_changes(runs[('100ms', 'exact')]['ns']):.1f} times with exact rewriting and "
            f"{_changes(runs[('100ms', 'recent')]['ns']):.1f} times with the most recent "
            "timestamp."
        ),
    )


def claim_fig5b(ctx: Context) -> None:
    hidden = ctx.quantity("fig5_hidden", lambda: _hidden(ctx))["300ms"]
    peaks = ctx.quantity("fig5_peaks", lambda: _peaks(ctx))["300ms"]
    values = hidden["exact"] + hidden["recent"]
    always, high = written("900").scaled(1e-3), written("2.4")
    ctx.claim(
        "clock 300 ms: hidden, the RTO is always 900 ms; not hidden, it reaches 2.4 s",
        "WTCP §5, Fig. 5(b)",
        all(always.holds(x) for x in values) and high.holds(_mean(peaks)),
        lambda: (
            f"hidden: {100 * _mean([always.holds(x) for x in values]):.0f} % of samples at "
            f"900 ms ({_rng(values)}); not hidden: largest per seed "
            f"{', '.join(f'{p:.1f}' for p in peaks)} s"
        ),
        quote=Q_FIG5B,
        band=f"every RTO sampled each second with exact and recent rewriting "
        f"{written('900').describe('ms')} ('always'), and the largest without rewriting, "
        f"mean over seeds, {high.describe('s')}",
        explanation=lambda: (
            FLOOR_NOTE + f"exact {_rng(_hidden(ctx, 'ns')['300ms']['exact'])}, recent "
            f"{_rng(_hidden(ctx, 'ns')['300ms']['recent'])} (the paper: always 0.9 s)."
        ),
    )


def _fig5_compare(ctx: Context) -> None:
    peaks = _peaks(ctx)
    hidden = _hidden(ctx)
    n = len(_fig5_seeds(ctx))
    for clock in CLOCKS:
        ctx.compare(
            f"Fig. 5 largest source RTO, clock {clock}, not hidden (mean of the seeds' peaks)",
            "WTCP Fig. 5",
            "s",
            2.4,
            Stat(_mean(peaks[clock]), _ci(peaks[clock]), n),
            f"seeds 1-{n}, sampled every second from {WARMUP_S:g} s",
            ref=f"Fig. 5 clock {clock}: as high as 2.4 s",
        )
        paper = 0.7 if clock == "100ms" else 0.9
        for ts in ("exact", "recent"):
            ctx.compare(
                f"Fig. 5 largest source RTO, clock {clock}, hidden ({ts})",
                "WTCP Fig. 5",
                "s",
                paper,
                Stat(max(hidden[clock][ts]), float("nan"), n),
                "the paper: 500-700 ms (clock 100 ms), always 900 ms (300 ms)",
                role="measure" if ts == "exact" else "sensitivity",
                ref=f"Fig. 5 clock {clock}: hidden, at most {paper:g} s",
            )


def _ci(values: Sequence[float]) -> float:
    import statistics

    from lastmile.sweep.stats import t_quantile

    if len(values) < 2:
        return float("nan")
    return float(t_quantile(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5)


def _fig5_figure(ctx: Context) -> None:
    import numpy as np

    runs = _fig5_runs(ctx)
    with ctx.figure(
        "fig5",
        "WTCP Fig. 5: the source's RTO over time, sampled every second (mean Bad 100 ms); one "
        "run (seed 1), no bars; dashed: the paper's 2.4 s peak, shaded: its 500-700 ms (a) and "
        "900 ms (b) with the residence time hidden",
        2,
    ) as axes:
        for ax, clock in zip(axes, CLOCKS, strict=True):
            for ts in ("none", "exact", "recent"):
                rto = runs[(clock, ts)]["ours"][0]
                secs = np.arange(np.ceil(WARMUP_S), np.ceil(WARMUP_S) + len(rto))
                ax.step(secs, rto, where="post", label=f"timestamps: {ts}")
            ax.axhline(2.4, color="k", linestyle="--", linewidth=1, label="paper: peak, not hidden")
            lo, hi = (0.5, 0.7) if clock == "100ms" else (0.895, 0.905)
            ax.axhspan(lo, hi, color="k", alpha=0.15, label="paper: hidden")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("source RTO (s)")
            ax.set_title(f"source clock {clock}", fontsize="small")


def _fig5_finding(ctx: Context) -> None:
    import numpy as np

    runs = _fig5_runs(ctx)

    def span(values: list[Any]) -> str:
        flat = np.concatenate(values).round(3)
        lo, hi = float(np.min(flat)), float(np.max(flat))
        share = {float(v): float(np.mean(flat == v)) for v in np.unique(flat)}
        top = max(share, key=lambda v: share[v])
        return f"{lo:.1f}-{hi:.1f} s (mostly {top:.1f} s, {100 * share[top]:.0f} %)"

    parts = [
        f"clock {clock}, {ts}: ours {span(runs[(clock, ts)]['ours'])}, ns-2's integer "
        f"estimator on the same samples {span(runs[(clock, ts)]['ns'])}"
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


def _fig6_mean(ctx: Context, v: str, p: float, campaign: str = "fig6") -> Stat:
    data = ctx[campaign]
    return _mean_over([data.value("throughput_bps", v, p=p, bad=b) for b in _bad(ctx.quick)])


def _fig6_detail(ctx: Context, p: float) -> str:
    return "mean over Bad periods: " + ", ".join(
        f"{LABELS[v]} {scaled(_fig6_mean(ctx, v, p), 1e-3)} kbps" for v in FIG6_VARIANTS
    )


def claim_fig6a(ctx: Context) -> None:
    data, bad = ctx["fig6"], _bad(ctx.quick)
    ctx.claim(
        "P = 0.01: rewriting the timestamp clearly raises WTCP's throughput",
        "WTCP §5, Fig. 6(a)",
        clearly_above(_fig6_mean(ctx, "wtcp_recent", 0.01), _fig6_mean(ctx, "wtcp_none", 0.01)),
        lambda: _fig6_detail(ctx, 0.01),
        quote=Q_FIG6A,
        band="WTCP with the most recent timestamp above WTCP without rewriting, mean over "
        "Bad periods, 95 % intervals apart ('clearly')",
        explanation=lambda: (
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
            "RTT sample, and the same RTO." + WTCP_EVIDENCE
        ),
    )


def claim_fig6b(ctx: Context) -> None:
    data, bad = ctx["fig6"], _bad(ctx.quick)
    ctx.claim(
        "P = 0.001: rewriting makes no significant difference",
        "WTCP §5, Fig. 6(b)",
        not clearly_above(
            _fig6_mean(ctx, "wtcp_recent", 0.001), _fig6_mean(ctx, "wtcp_none", 0.001)
        ),
        lambda: _fig6_detail(ctx, 0.001),
        quote=Q_FIG6B,
        band="WTCP with the most recent timestamp not above WTCP without rewriting beyond "
        "the 95 % intervals, mean over Bad periods ('not significant')",
        explanation=lambda: (
            "Per 200 s run at P = 0.001 (mean over Bad periods) the source times out "
            + " and ".join(
                f"{_mean_metric(data, 'tcp_timeouts', v, 0.001, bad):.1f} times {what}"
                for v, what in (("wtcp_recent", "with rewriting"), ("wtcp_none", "without"))
            )
            + ", and a segment waits "
            + " and ".join(
                f"{1e3 * _mean_metric(data, 'agent_residence_mean_s', v, 0.001, bad):.0f} ms"
                for v in ("wtcp_recent", "wtcp_none")
            )
            + " on average in the base station's buffer; WTCP with rewriting gets "
            + f"{_fig6_mean(ctx, 'wtcp_recent', 0.001).mean / 1e3:.0f} kbps, without "
            + f"{_fig6_mean(ctx, 'wtcp_none', 0.001).mean / 1e3:.0f} kbps over "
            + f"{_fig6_mean(ctx, 'wtcp_none', 0.001).n} seeds per Bad period, "
            + f"{100 * (_advantage(ctx, 0.001) - 1):+.1f} %: a difference the 95 % intervals "
            "of our seeds resolve and the paper's plot does not show."
        ),
    )


def _advantage(ctx: Context, p: float) -> float:
    campaign = "fig6" if p in FIG6_P else "fig6hi"
    return (
        _fig6_mean(ctx, "wtcp_recent", p, campaign).mean
        / _fig6_mean(ctx, "wtcp_none", p, campaign).mean
    )


def claim_fig6_higher(ctx: Context) -> None:
    adv = {p: _advantage(ctx, p) for p in (0.01, *HIGHER_P)}
    ctx.claim(
        "The advantage of hiding the residence time grows with the wired loss probability",
        "WTCP §5, Fig. 6",
        all(adv[p] > adv[0.01] for p in HIGHER_P),
        lambda: (
            "WTCP with the most recent timestamp over WTCP without rewriting (throughput, "
            "mean over Bad periods): " + ", ".join(f"P = {p:g}: {a:.3f}x" for p, a in adv.items())
        ),
        quote=Q_HIGHER,
        band="the throughput ratio of WTCP with the most recent timestamp over WTCP without "
        "rewriting (mean over Bad periods) above its value at P = 0.01 at every higher P we "
        f"run ({', '.join(f'{p:g}' for p in HIGHER_P)}): 'even more pronounced'",
        explanation="See the detail: the ratio per wired loss probability.",
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


def _fig6_figure(ctx: Context) -> None:
    data = ctx["fig6"]
    with ctx.figure(
        "fig6",
        "WTCP Fig. 6: throughput with wired losses P = 0.01 (a), 0.001 (b); bars: 95 % CI",
        2,
    ) as axes:
        for ax, p in zip(axes, FIG6_P, strict=True):
            for v in FIG6_VARIANTS:
                errorbars(
                    ax, data, "throughput_bps", "bad", v, LABELS[v], scale=1e-3, x_scale=1e3, p=p
                )
            ax.set_xlabel("mean Bad period (ms)")
            ax.set_ylabel("throughput (kbps)")
            ax.set_title(f"wired loss P = {p}", fontsize="small")


def analyse(ctx: Context) -> None:
    bad = _bad(ctx.quick)
    _fig4_compare(ctx)
    _fig4_figure(ctx)
    _fig5_compare(ctx)
    _fig5_figure(ctx)
    _fig5_finding(ctx)
    _fig6_figure(ctx)
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
    claims=(
        claim_ratio,
        claim_itcp,
        claim_wtcp_best,
        claim_snoop_good,
        claim_snoop_poor,
        claim_goodput,
        claim_fig5a_peak,
        claim_fig5a_fivefold,
        claim_fig5a_range,
        claim_fig5a_slow,
        claim_fig5b,
        claim_fig6a,
        claim_fig6b,
        claim_fig6_higher,
    ),
    published=Published(
        numbers={
            "goodput_loss": {"10ms": 2.0, "100ms": 2.0},
            "wtcp_over_tahoe": {"10ms": 4.0, "100ms": 8.0},
            "fig5_peaks": {"100ms": [2.4], "300ms": [2.4]},
            "fig5_hidden": {
                "100ms": {"exact": [0.5, 0.7], "recent": [0.5, 0.7]},
                "300ms": {"exact": [0.9], "recent": [0.9]},
            },
        }
    ),
    settings=(
        "The Tahoe baseline runs without RFC 1323 timestamps (4.3BSD Tahoe); WTCP's source "
        "has them, as its rewriting needs.",
        "The minimum RTO is two source-clock ticks (ns-2's bound).",
        "Both wireless directions fade (Table I gives one channel).",
        "I-TCP's base-station TCP: Tahoe with a 10 ms clock and a 200 ms minimum RTO.",
    ),
)
