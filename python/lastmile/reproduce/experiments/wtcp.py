"""WTCP Figs. 4-6: Tahoe, Snoop, I-TCP and WTCP over a fading last hop.

K. Ratnam and I. Matta, "WTCP: An Efficient Mechanism for Improving Wireless Access to TCP
Services" (seed ``001_*``), §4-5. Base scenario ``wtcp.toml`` (Fig. 3, Table I).

- Fig. 4: throughput and goodput (``goodput_bytes``) against the mean Bad period
  (10...100 ms) for Tahoe alone, Snoop, I-TCP and WTCP (exact timestamp rewriting).
- Fig. 5: the source's RTO over time (``rtt`` trace; one seed) with the residence time not
  hidden (``none``), hidden exactly, or with the most recent timestamp (``recent``), for
  source clocks of 100 ms and 300 ms, mean Bad period 100 ms.
- Fig. 6: random wired (congestion) losses P = 0.01 and 0.001 on the fixed host's link:
  WTCP with (``recent``) and without (``none``) timestamp rewriting, Snoop, Tahoe.

Choices the paper leaves open: the Tahoe baseline runs without RFC 1323 timestamps (4.3BSD
Tahoe; with them the WTCP/Tahoe ratio at 100 ms is about 3.0 instead of 3.4, see
``crates/lastmile-core/tests/agents.rs``); WTCP's source has them, as its rewriting needs.
The minimum RTO is two source-clock ticks (ns-2's bound). Both wireless directions fade.
I-TCP's base-station TCP is Tahoe with a 10 ms clock and a 200 ms minimum RTO.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lastmile.reproduce.framework import Campaign, Context, Experiment, errorbars

SCENARIO = "wtcp.toml"
FWD_BAD = "topology.wireless.errors.mean_bad"
REV_BAD = "topology.wireless.reverse_errors.mean_bad"
WIRED_P = "topology.wired.errors.per"

WTCP_SOURCE = {"flow.0.tcp.timestamps": True}
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


def _bad(quick: bool) -> list[str]:
    return ["10ms", "100ms"] if quick else ["10ms", "25ms", "50ms", "75ms", "100ms"]


def campaigns(quick: bool) -> Sequence[Campaign]:
    bad = _bad(quick)
    seeds = 4 if quick else 10
    metrics = ("throughput_bps", "wireless_goodput_bytes", "tcp_timeouts")
    axes = {"bad": FWD_BAD}
    return [
        Campaign(
            "fig4",
            SCENARIO,
            seeds,
            zip={FWD_BAD: bad, REV_BAD: bad},
            variants=VARIANTS,
            axes=axes,
            metrics=metrics,
        ),
        Campaign(
            "fig6",
            SCENARIO,
            seeds,
            grid={WIRED_P: [0.01, 0.001]},
            zip={FWD_BAD: bad, REV_BAD: bad},
            variants=FIG6_VARIANTS,
            axes={"p": WIRED_P, **axes},
            metrics=metrics,
        ),
    ]


def _fig4(ctx: Context, bad: list[str]) -> None:
    data = ctx["fig4"]
    longest, shortest = bad[-1], bad[0]
    tput = {v: data.value("throughput_bps", v, bad=longest) for v in VARIANTS}
    ratio = tput["wtcp"].mean / tput["tahoe"].mean
    for v in VARIANTS:
        ctx.compare(
            f"Fig. 4 {LABELS[v]} throughput, Bad {longest}",
            "WTCP Fig. 4",
            "kbps",
            None,
            _scaled(tput[v], 1e-3),
            "paper gives the curve only",
        )
    ctx.compare(
        "Fig. 4 WTCP / Tahoe throughput, Bad 100 ms",
        "WTCP §5 (4-8x)",
        "ratio",
        4.0,
        _ratio(tput["wtcp"], tput["tahoe"]),
        "paper: 4-8x; 4 is its lower bound",
    )
    ctx.claim(
        "WTCP's throughput is at least 3x Tahoe's at the longest Bad period (paper 4-8x)",
        "WTCP Fig. 4",
        ratio >= 3.0,
        f"WTCP {tput['wtcp'].mean / 1e3:.1f} kbps / Tahoe {tput['tahoe'].mean / 1e3:.1f} "
        f"kbps = {ratio:.2f}x",
    )
    gp = {v: data.value("wireless_goodput_bytes", v, bad=longest).mean for v in VARIANTS}
    others = [gp[v] for v in VARIANTS if v != "wtcp"]
    ctx.claim(
        "WTCP's goodput is within a few % (5 points) of the others' (paper ~2 % lower)",
        "WTCP Fig. 4(b)",
        all(abs(gp["wtcp"] - g) <= 0.05 for g in others),
        ", ".join(f"{LABELS[v]} {g:.3f}" for v, g in gp.items()),
    )
    good = {v: data.value("throughput_bps", v, bad=shortest).mean for v in VARIANTS}
    ctx.claim(
        "I-TCP is best on a good link (shortest Bad period)",
        "WTCP §5",
        max(good, key=lambda v: good[v]) == "itcp",
        ", ".join(f"{LABELS[v]} {t / 1e3:.0f} kbps" for v, t in good.items()),
    )
    ctx.claim(
        "Snoop is poor under long Bad periods: below WTCP and I-TCP",
        "WTCP §5",
        tput["snoop"].mean < min(tput["wtcp"].mean, tput["itcp"].mean),
        f"Snoop {tput['snoop'].mean / 1e3:.0f} kbps, WTCP {tput['wtcp'].mean / 1e3:.0f}, "
        f"I-TCP {tput['itcp'].mean / 1e3:.0f}",
    )
    with ctx.figure(
        "fig4", "WTCP Fig. 4: throughput (a) and goodput (b) vs mean Bad period", 2
    ) as (a, b):
        for v in VARIANTS:
            errorbars(a, data, "throughput_bps", "bad", v, LABELS[v], scale=1e-3, x_scale=1e3)
            errorbars(b, data, "wireless_goodput_bytes", "bad", v, LABELS[v], x_scale=1e3)
        for ax, y in ((a, "throughput (kbps)"), (b, "goodput (new bytes / bytes sent)")):
            ax.set_xlabel("mean Bad period (ms)")
            ax.set_ylabel(y)


def _scaled(stat: Any, k: float) -> Any:
    from lastmile.reproduce.framework import Stat

    return Stat(stat.mean * k, stat.ci * k, stat.n)


def _ratio(num: Any, den: Any) -> Any:
    from lastmile.reproduce.framework import Stat

    mean = num.mean / den.mean
    rel = ((num.ci / num.mean) ** 2 + (den.ci / den.mean) ** 2) ** 0.5
    return Stat(mean, mean * rel, min(num.n, den.n))


def _fig5(ctx: Context) -> None:
    import numpy as np

    clocks = {"100ms": "200ms", "300ms": "600ms"}
    largest: dict[tuple[str, str], float] = {}
    with ctx.figure("fig5", "WTCP Fig. 5: the source's RTO over time (mean Bad 100 ms)", 2) as axes:
        for ax, (clock, min_rto) in zip(axes, clocks.items(), strict=True):
            for ts in ("none", "exact", "recent"):
                overrides = {
                    **VARIANTS["wtcp"],
                    "base_station.wtcp.timestamps": ts,
                    "base_station.wtcp.source_clock": clock,
                    "flow.0.tcp.timer_granularity": clock,
                    "flow.0.tcp.min_rto": min_rto,
                    "stop_time": "50s" if ctx.quick else "200s",
                }
                trace = ctx.run_traced(SCENARIO, 1, overrides, ["rtt"]).trace("rtt")
                t = trace["time_s"].to_numpy()
                rto = trace["rto_s"].to_numpy()
                # The estimator's RTO: rows with a sample (the others are timer backoffs).
                sampled = trace["sample_s"].notna().to_numpy()
                after = rto[(t > 5.0) & sampled]
                largest[(clock, ts)] = float(np.max(after)) if after.size else float("nan")
                ax.step(t, rto, where="post", label=f"timestamps: {ts}")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("source RTO (s)")
            ax.set_title(f"source clock {clock}", fontsize="small")
    from lastmile.reproduce.framework import Stat

    paper = {
        ("100ms", "none"): 2.4,
        ("100ms", "exact"): 0.7,
        ("100ms", "recent"): 0.7,
        ("300ms", "none"): 2.4,
        ("300ms", "exact"): 0.9,
        ("300ms", "recent"): 0.9,
    }
    for (clock, ts), value in largest.items():
        ctx.compare(
            f"Fig. 5 largest source RTO, clock {clock}, timestamps {ts}",
            "WTCP Fig. 5",
            "s",
            paper[(clock, ts)],
            Stat(value, float("nan"), 1),
            "one seed, after 5 s",
        )
    for clock, bound in (("100ms", 0.8), ("300ms", 1.2)):
        none, exact, recent = (largest[(clock, ts)] for ts in ("none", "exact", "recent"))
        ctx.claim(
            f"clock {clock}: not hiding the residence time at least doubles the RTO",
            "WTCP Fig. 5",
            none >= 2.0 * exact,
            f"largest RTO none {none:.2f} s, exact {exact:.2f} s",
        )
        ctx.claim(
            f"clock {clock}: hidden (exact, recent), the RTO stays near "
            f"{'500-700' if clock == '100ms' else '900'} ms (<= {bound} s)",
            "WTCP Fig. 5",
            max(exact, recent) <= bound,
            f"exact {exact:.2f} s, recent {recent:.2f} s",
        )


def _fig6(ctx: Context, bad: list[str]) -> None:
    data = ctx["fig6"]
    with ctx.figure(
        "fig6", "WTCP Fig. 6: throughput with wired losses P = 0.01 (a), 0.001 (b)", 2
    ) as axes:
        for ax, p in zip(axes, (0.01, 0.001), strict=True):
            for v in FIG6_VARIANTS:
                errorbars(
                    ax, data, "throughput_bps", "bad", v, LABELS[v], scale=1e-3, x_scale=1e3, p=p
                )
            ax.set_xlabel("mean Bad period (ms)")
            ax.set_ylabel("throughput (kbps)")
            ax.set_title(f"wired loss P = {p}", fontsize="small")
    for p in (0.01, 0.001):
        t = {
            v: sum(data.value("throughput_bps", v, p=p, bad=b).mean for b in bad) / len(bad)
            for v in FIG6_VARIANTS
        }
        detail = ", ".join(f"{LABELS[v]} {x / 1e3:.0f} kbps" for v, x in t.items())
        if p == 0.01:
            ctx.claim(
                "P = 0.01: rewriting the timestamp raises WTCP's throughput (> 2 %)",
                "WTCP Fig. 6(a)",
                t["wtcp_recent"] > 1.02 * t["wtcp_none"],
                "mean over Bad periods: " + detail,
            )
        else:
            ctx.claim(
                "P = 0.001: rewriting makes no large difference (within 15 %)",
                "WTCP Fig. 6(b)",
                abs(t["wtcp_recent"] / t["wtcp_none"] - 1) <= 0.15,
                "mean over Bad periods: " + detail,
            )
        ctx.claim(
            f"P = {p}: WTCP (rewritten) above Snoop and Tahoe",
            "WTCP Fig. 6",
            t["wtcp_recent"] > max(t["snoop"], t["tahoe"]),
            "mean over Bad periods: " + detail,
        )


def analyse(ctx: Context) -> None:
    bad = _bad(ctx.quick)
    _fig4(ctx, bad)
    _fig5(ctx)
    _fig6(ctx, bad)


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
        "range read from its text (4-8x, 500-700 ms, 2.4 s). Our Tahoe baseline has no "
        "RFC 1323 timestamps (the 4.3BSD Tahoe the paper compares with); with them its "
        "throughput rises and WTCP's advantage at 100 ms falls to about 3x. Our WTCP is "
        "about 3.3-3.5x Tahoe at 100 ms, below the paper's 4-8x: our I-TCP, Snoop and "
        "Tahoe follow ns-2-like behaviour, while the paper's own simulator may have lost "
        "more to timeouts in Tahoe. Fig. 5 is one seed (as the paper shows one run); the "
        "RTO comparisons are the largest value after the first 5 s."
    ),
    campaigns=campaigns,
    analyse=analyse,
)
