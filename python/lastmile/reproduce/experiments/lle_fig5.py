"""LLE-TCP Fig. 5: TCP Reno vs LLE-TCP on one 802.11b hop, against the datagram size.

D. Kliazovich, F. Granelli and M. Gerla, "Performance improvement in wireless networks using
cross-layer ARQ" (seed ``004_*``), §4.1 and §4.3, Table 3, Fig. 5. Base scenario ``lle.toml``:
two stations, DCF at 11 Mbps with 1 Mbps control frames, a bulk transfer n1 -> n2.

- Throughput of Reno and of LLE-TCP (the ARQ agent on the sender, n1) for TCP/IP datagrams
  of 100-1500 B (mss = datagram - 40 B), with RTS/CTS off and on; the gain of LLE-TCP.
- The paper does not say which ACK policy its Reno used, so we run both: an ACK per segment
  (``every``) and delayed ACKs (``delayed``, RFC 1122). LLE-TCP's receiver sends no ACK at
  all (the agent generates them), so its policy does not matter (``every``).
- "RTS/CTS on" is ambiguous too: ``rts_threshold = "0B"`` puts RTS/CTS before every frame,
  TCP ACK frames included (ns-2's threshold 0); ``"100B"`` only before data frames (a
  40-byte TCP ACK is a 76-byte MAC frame, the smallest data frame here 136 B). Both run.
- The paper keeps ns-2's other defaults, among them TCP's ``window_`` of 20 segments: the
  receiver window is 20 segments (``rwnd`` zipped with ``mss``). With our default 64 KB the
  sender's 50-frame MAC queue overflows for small datagrams (hundreds of segments in flight)
  and Reno with an ACK per segment times out now and then.

Steady state (the paper measures "during the data exchange phase", after slow start): every
point runs twice per seed with the same seed, stopped at 2 s and at the end (100 s, the
paper's duration; 12 s with ``--quick``). The simulator is deterministic, so the short run
is the long run's first 2 s, and ``steady_bps`` = (bytes delivered by the long run - by the
short run) * 8 / (the long run's transfer time - the short run's). Slow start and its
queue-overflow losses cost small datagrams up to 10 % of a 12 s average otherwise.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lastmile.reproduce.framework import Campaign, Context, Data, Experiment, Stat

if TYPE_CHECKING:
    import pandas as pd

SCENARIO = "lle.toml"
SOURCE = "LLE-TCP Fig. 5"
MSS = "flow.0.tcp.mss"
RTS = "topology.wireless.rts_threshold"
PER = "topology.wireless.errors.per"
REV_PER = "topology.wireless.reverse_errors.per"
RWND = "flow.0.tcp.rwnd"
STOP = "stop_time"
#: ns-2's default TCP window (``window_``, in segments): the paper keeps ns-2's defaults.
WINDOW_SEGMENTS = 20
#: Where the steady-state window starts (the short run's stop time).
WARMUP = "2s"

VARIANTS: dict[str, dict[str, Any]] = {
    "reno_every": {"flow.0.tcp.ack": "every"},
    "reno_delayed": {"flow.0.tcp.ack": "delayed"},
    "lle": {"base_station.agent": "lle"},
}
LABELS = {
    "reno_every": "TCP Reno, ACK every segment",
    "reno_delayed": "TCP Reno, delayed ACKs",
    "lle": "LLE-TCP",
}
BASELINES = ("reno_every", "reno_delayed")
#: RTS/CTS settings: off (the standard's 2347 B), before data frames only, before every frame.
RTS_MODES = {"off": "2347B", "data": "100B", "all": "0B"}
RTS_LABELS = {
    "off": "RTS/CTS off",
    "data": "RTS/CTS before data frames",
    "all": "RTS/CTS before every frame",
}

#: §4.3: throughput at 1500 B (Mbps), RTS/CTS off and on.
PAPER_1500 = {("off", "reno"): 5.08, ("off", "lle"): 6.09, ("on", "reno"): 4.1, ("on", "lle"): 4.71}


def datagrams(quick: bool) -> list[int]:
    return [296, 1500] if quick else [100, 296, 576, 1000, 1500]


def steady_derive(keys: Sequence[str], df: pd.DataFrame) -> Mapping[str, pd.Series]:
    """Per run: the throughput between t = 2 s and the end (see the module docstring).

    `keys` are the columns that pair a long run with its 2 s run (variant, axes, seed).
    """
    import numpy as np

    short = df["stop"] == WARMUP
    early = (
        df.loc[short, [*keys, "bytes_delivered", "completion_s"]]
        .drop_duplicates(subset=list(keys))
        .set_index(list(keys))
        .add_suffix("_early")
    )
    joined = df.join(early, on=list(keys))
    span = joined["completion_s"] - joined["completion_s_early"]
    bits = (joined["bytes_delivered"] - joined["bytes_delivered_early"]) * 8.0
    steady = (bits / span).where(~short & (span > 0), np.nan)
    return {"steady_bps": steady}


def steady_campaign(
    name: str,
    seeds: int,
    end: str,
    grid: Mapping[str, Sequence[Any]],
    axes: Mapping[str, str],
    zip: Mapping[str, Sequence[Any]] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Campaign:
    """A campaign whose points each run to `WARMUP` and to `end` (``stop`` axis)."""
    extra = dict(overrides or {})
    variants = {v: {**o, **extra} for v, o in VARIANTS.items()}
    all_axes = {**axes, "stop": STOP}
    keys = ("variant", *axes, "seed")
    return Campaign(
        name,
        SCENARIO,
        seeds,
        grid={**grid, STOP: [WARMUP, end]},
        zip=dict(zip or {}),
        variants=variants,
        axes=all_axes,
        derive=functools.partial(steady_derive, keys),
        metrics=(
            "steady_bps",
            "throughput_bps",
            "tcp_timeouts",
            "tcp_retransmits",
            "completed",
            "bytes_delivered",
            "bytes_total",
        ),
    )


def window(datagram: int) -> str:
    """The receiver window: ns-2's default 20 segments of `datagram` - 40 B."""
    return f"{WINDOW_SEGMENTS * (datagram - 40)}B"


def end_time(quick: bool) -> str:
    return "12s" if quick else "100s"


def campaigns(quick: bool) -> Sequence[Campaign]:
    sizes = datagrams(quick)
    return [
        steady_campaign(
            "fig5",
            3 if quick else 10,
            end_time(quick),
            grid={RTS: list(RTS_MODES.values())},
            zip={MSS: [f"{d - 40}B" for d in sizes], RWND: [window(d) for d in sizes]},
            axes={"mss": MSS, "rts": RTS},
        )
    ]


def mbps(stat: Stat) -> Stat:
    return Stat(stat.mean / 1e6, stat.ci / 1e6, stat.n)


def gain(lle: Stat, reno: Stat) -> Stat:
    """LLE-TCP's gain over `reno` in %, its CI from both relative CIs (first order)."""
    ratio = lle.mean / reno.mean
    rel = ((lle.ci / lle.mean) ** 2 + (reno.ci / reno.mean) ** 2) ** 0.5
    return Stat(100.0 * (ratio - 1.0), 100.0 * ratio * rel, min(lle.n, reno.n))


def tput(data: Data, variant: str, **where: Any) -> Stat:
    return data.value("steady_bps", variant, **where)


def analyse(ctx: Context) -> None:
    data = ctx["fig5"]
    end = end_time(ctx.quick)
    sizes = datagrams(ctx.quick)

    def at(variant: str, mode: str, size: int) -> Stat:
        return tput(data, variant, mss=f"{size - 40}B", rts=RTS_MODES[mode], stop=end)

    gains = {
        (b, mode, d): gain(at("lle", mode, d), at(b, mode, d))
        for b in BASELINES
        for mode in RTS_MODES
        for d in sizes
    }
    # Published numbers at 1500 B beside ours, in every RTS mode the paper's could be.
    for mode, paper_mode in (("off", "off"), ("data", "on"), ("all", "on")):
        for v in VARIANTS:
            kind = "lle" if v == "lle" else "reno"
            ctx.compare(
                f"1500 B, {RTS_LABELS[mode]}: {LABELS[v]}",
                f"{SOURCE}(a), §4.3",
                "Mbps",
                PAPER_1500[(paper_mode, kind)],
                mbps(at(v, mode, 1500)),
                "paper: Reno (ACK policy not given)" if kind == "reno" else "",
            )
        paper_gain = 100.0 * (
            PAPER_1500[(paper_mode, "lle")] / PAPER_1500[(paper_mode, "reno")] - 1
        )
        for b in BASELINES:
            ctx.compare(
                f"1500 B, {RTS_LABELS[mode]}: gain over {LABELS[b]}",
                f"{SOURCE}(b), §4.3",
                "%",
                round(paper_gain, 1),
                gains[(b, mode, 1500)],
                "paper: 6.09 / 5.08 (off), 4.71 / 4.1 (on)",
            )
    for b in BASELINES:
        ctx.compare(
            f"{min(sizes)} B, RTS/CTS off: gain over {LABELS[b]}",
            f"{SOURCE}(b), §4.3",
            "%",
            None,
            gains[(b, "off", min(sizes))],
            "paper: 50-70 % for small datagrams, -> 100 % near 40 B",
        )

    # Which baseline matches: the one whose 1500 B throughput (RTS/CTS off) is nearest 5.08.
    reno_1500 = {b: at(b, "off", 1500).mean / 1e6 for b in BASELINES}
    match = min(BASELINES, key=lambda b: abs(reno_1500[b] - PAPER_1500[("off", "reno")]))
    ctx.claim(
        "Reno at 1500 B (RTS/CTS off) matches the paper's 5.08 Mbps within 5 % with delayed "
        "ACKs, not with an ACK per segment",
        SOURCE,
        match == "reno_delayed"
        and abs(reno_1500["reno_delayed"] / 5.08 - 1) <= 0.05
        and abs(reno_1500["reno_every"] / 5.08 - 1) > 0.05,
        ", ".join(f"{LABELS[b]} {t:.2f} Mbps" for b, t in reno_1500.items()),
    )
    below = [f"{d} B {mode} vs {b}" for (b, mode, d), g in gains.items() if not g.mean > 0]
    ctx.claim(
        "LLE-TCP is above Reno at every datagram size (both ACK policies, RTS/CTS off and on)",
        SOURCE,
        not below,
        "lowest gain "
        + f"{min(g.mean for g in gains.values()):+.1f} %"
        + (f"; not above: {', '.join(below)}" if below else ""),
    )
    for mode in RTS_MODES:
        detail = []
        grows = True
        for b in BASELINES:
            series = [gains[(b, mode, d)].mean for d in sizes]  # sizes ascending
            grows &= all(x > y for x, y in itertools.pairwise(series))
            detail.append(
                f"vs {b}: "
                + ", ".join(f"{d} B {g:+.0f} %" for d, g in zip(sizes, series, strict=True))
            )
        ctx.claim(
            f"{RTS_LABELS[mode]}: the gain grows as the datagram shrinks",
            f"{SOURCE}(b)",
            grows,
            "; ".join(detail),
        )
    band = (15.0, 25.0)
    g_match = gains[("reno_delayed", "off", 1500)]
    ctx.claim(
        "RTS/CTS off, 1500 B: the gain over the matching baseline (delayed ACKs) is 15-25 % "
        "(paper ~20 %)",
        f"{SOURCE}(b), §4.3",
        band[0] <= g_match.mean <= band[1],
        f"{g_match} % (ACK every segment: {gains[('reno_every', 'off', 1500)]} %)",
    )
    g_rts = gains[("reno_delayed", "data", 1500)]
    ctx.claim(
        "RTS/CTS on, 1500 B: the gain over delayed-ACK Reno is 10-20 % (paper 4.71 / 4.1, "
        "+15 %) with RTS/CTS before data frames",
        f"{SOURCE}(b), §4.3",
        10.0 <= g_rts.mean <= 20.0,
        f"{g_rts} % (RTS/CTS before every frame: {gains[('reno_delayed', 'all', 1500)]} %)",
    )
    if len(sizes) > 2:
        g_small = gains[("reno_every", "off", 296)]
        ctx.claim(
            "RTS/CTS off: the gain over ACK-every Reno for small datagrams (296 B) is 50-70 %",
            f"{SOURCE}(b), §4.3",
            50.0 <= g_small.mean <= 70.0,
            f"{g_small} % (delayed ACKs: {gains[('reno_delayed', 'off', 296)]} %)",
        )

    styles = {"off": "-", "data": "--", "all": ":"}
    with ctx.figure(
        "fig5",
        "LLE-TCP Fig. 5: steady-state throughput (a, b) and LLE-TCP's gain (c) vs datagram "
        "size, one 802.11b hop (95 % CI)",
        3,
        width=5.2,
    ) as (ax_a, ax_b, ax_c):
        for v in VARIANTS:
            for ax, modes in ((ax_a, ("off",)), (ax_b, ("data", "all"))):
                for mode in modes:
                    points = [at(v, mode, d) for d in sizes]
                    label = LABELS[v] if mode == "off" else f"{LABELS[v]}, {RTS_LABELS[mode]}"
                    ax.errorbar(
                        sizes,
                        [p.mean / 1e6 for p in points],
                        yerr=[p.ci / 1e6 for p in points],
                        capsize=3,
                        marker="o",
                        markersize=4,
                        linestyle=styles[mode],
                        label=label,
                    )
        for mode in RTS_MODES:
            for base in BASELINES:
                g = [gains[(base, mode, d)] for d in sizes]
                policy = "ACK every" if base == "reno_every" else "delayed ACK"
                ax_c.errorbar(
                    sizes,
                    [x.mean for x in g],
                    yerr=[x.ci for x in g],
                    capsize=3,
                    marker="o" if base == "reno_every" else "s",
                    markersize=4,
                    linestyle=styles[mode],
                    label=f"vs {policy}, {RTS_LABELS[mode]}",
                )
        ax_a.plot([1500, 1500], [5.08, 6.09], "k*", markersize=9, label="paper, 1500 B")
        ax_b.plot([1500, 1500], [4.1, 4.71], "k*", markersize=9, label="paper, 1500 B")
        ax_c.plot([1500], [19.9], "k*", markersize=9, label="paper, 1500 B, RTS/CTS off")
        for ax, title in ((ax_a, "RTS/CTS off"), (ax_b, "RTS/CTS on"), (ax_c, "gain of LLE-TCP")):
            ax.set_xlabel("TCP/IP datagram size (bytes)")
            ax.set_title(title, fontsize="small")
        ax_a.set_ylabel("throughput (Mbps)")
        ax_b.set_ylabel("throughput (Mbps)")
        ax_c.set_ylabel("LLE-TCP gain over Reno (%)")


EXPERIMENT = Experiment(
    name="lle-fig5",
    title="LLE-TCP Fig. 5: Reno vs LLE-TCP vs datagram size on one 802.11b hop",
    paper="D. Kliazovich, F. Granelli, M. Gerla, LLE-TCP (seed 004), §4.1, §4.3, Table 3, Fig. 5",
    description=(
        "Two IEEE 802.11b stations (Table 3: 11 Mbps data, 1 Mbps control frames, long "
        "preamble, DCF), one bulk TCP transfer. Steady-state throughput (from 2 s to the end "
        "of a 100 s run, 10 seeds) of TCP Reno with an ACK per segment, Reno with delayed "
        "ACKs and LLE-TCP, for 100-1500 B datagrams, with RTS/CTS off, before data frames "
        "only, and before every frame; LLE-TCP's gain over each baseline."
    ),
    differences=(
        "The paper names neither its Reno's ACK policy nor which frames RTS/CTS guards, so "
        "we run both ACK policies and three RTS settings. Delayed ACKs match: at 1500 B our "
        "delayed-ACK Reno is within 2 % of the paper's 5.08 Mbps and the gain (about 18 %) "
        "is near its 20 %, while with an ACK per segment Reno reaches only about 4.3 Mbps "
        "(as in ns-3, 4.28) and the gain is about 37 %. Our LLE-TCP is 3-4 % below the "
        "paper's 6.09 Mbps. With RTS/CTS, guarding data frames only fits the paper's +15 % "
        "(ours about 13 %); guarding TCP ACK frames too makes every ACK cost a handshake, "
        "so Reno falls further and LLE-TCP's gain rises to about 25 %. The band for the "
        "1500 B gain (15-25 %) is the paper's 20 % widened by the spread between "
        "independent simulators' baselines (ours, ns-3 and the paper's ns-2 within 2 %) "
        "and by our LLE-TCP's few-% shortfall. For small datagrams (100-296 B) the gain "
        "over ACK-every Reno is 62-71 %, the paper's 50-70 %; over delayed ACKs it is only "
        "31-35 %, so the paper's Fig. 5(b) looks like an ACK-every comparison at small "
        "sizes while its 1500 B throughputs match delayed ACKs: its text does not settle it."
    ),
    campaigns=campaigns,
    analyse=analyse,
)
