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
    return [100, 296, 1500] if quick else [100, 296, 576, 1000, 1500]


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
    variants: Mapping[str, Mapping[str, Any]] = VARIANTS,
    finite: bool = False,
    paper_stalls: Mapping[str, str] | None = None,
    scenario: str = SCENARIO,
) -> Campaign:
    """A campaign whose points each run to `WARMUP` and to `end` (``stop`` axis); the
    `WARMUP` runs are not measurements (left out of the integrity check). `scenario` is the
    base scenario (Fig. 5's single hop unless given)."""
    extra = dict(overrides or {})
    variants = {v: {**o, **extra} for v, o in variants.items()}
    all_axes = {**axes, "stop": STOP}
    keys = ("variant", *axes, "seed")
    return Campaign(
        name,
        scenario,
        seeds,
        grid={**grid, STOP: [WARMUP, end]},
        zip=dict(zip or {}),
        variants=variants,
        axes=all_axes,
        derive=functools.partial(steady_derive, keys),
        mechanisms=tuple(v for v in variants if v.startswith("lle")),
        finite=finite,
        paper_stalls=dict(paper_stalls or {}),
        not_measured=lambda runs: runs["stop"] == WARMUP,
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


Q_MAX = (
    "The maximum LLE-TCP throughput corresponds to the largest datagram size of 1500 bytes "
    "(most common MTU in Ethernet) and is equal to [...] 6.09 Mbps for LLE-TCP."
)
Q_INVERSE = (
    "The improvement level achieved by LLE-TCP is inversely proportional to the TCP/IP "
    "datagram size (see Fig. 5b), which derives from the 40 bytes fixed size of the TCP ACKs "
    "(including TCP and IP headers)."
)
Q_20_70 = (
    "Being fixed at around 20% for the maximum datagram size, it rises up to 50–70% for the "  # noqa: RUF001
    "smaller packet sizes."
)
Q_100 = (
    "However, the general rule is that as the datagram size tends to the size of TCP ACK the "
    "improvement level tends to 100% (in case a TCP ACK is generated for every TCP data "
    "packet)."
)
Q_RANGE = (
    "it ranges from 20% to 100% giving more advantages for applications producing smaller packets."
)
Q_RTS = (
    "In case of RTS/CTS exchange, LLE-TCP achieves 4.71 Mbps while TCP Reno provides only 4.1 Mbps."
)
#: The baseline the claims use: ns-2's default sink ACKs every packet, the paper keeps
#: ns-2's defaults, and its 100 % rule is stated for "a TCP ACK ... for every TCP data
#: packet". Delayed-ACK Reno is reported beside it (numbers, finding), not tested.
BASE = "reno_every"
#: Small datagrams for "50-70 %": those below ns-2's default 576-byte datagram.
SMALL_BELOW = 576


def gain_why(ctx: Context, gains: dict[tuple[str, str, int], Stat], mode: str) -> str:
    """Why the gain over ACK-every Reno misses the paper's, with the run's numbers."""
    data = ctx["fig5"]
    end = end_time(ctx.quick)
    every, delayed = (
        tput(data, b, mss="1460B", rts=RTS_MODES[mode], stop=end).mean / 1e6 for b in BASELINES
    )
    return (
        f"Each of Reno's ACKs costs a DCF access (DIFS, backoff, a 192 µs preamble, a MAC "
        f"ACK): halving them (delayed ACKs) alone takes Reno at 1500 B ({RTS_LABELS[mode]}) "
        f"from {every:.2f} to {delayed:.2f} Mbps. Over ACK-every Reno LLE-TCP gains "
        f"{gains[('reno_every', mode, 1500)].mean:.1f} %, over delayed-ACK Reno "
        f"{gains[('reno_delayed', mode, 1500)].mean:.1f} %; the paper's Reno (5.08 Mbps with "
        "RTS/CTS off) is our delayed-ACK one, its text points to an ACK per segment: its "
        "Fig. 5 cannot be both (finding 'Which Reno')."
    )


def _gains(ctx: Context, sizes: list[int], end: str) -> dict[tuple[str, str, int], Stat]:
    data = ctx["fig5"]

    def at(variant: str, mode: str, size: int) -> Stat:
        return tput(data, variant, mss=f"{size - 40}B", rts=RTS_MODES[mode], stop=end)

    return {
        (b, mode, d): gain(at("lle", mode, d), at(b, mode, d))
        for b in BASELINES
        for mode in RTS_MODES
        for d in sizes
    }


def _compare_1500(ctx: Context, gains: dict[tuple[str, str, int], Stat], end: str) -> None:
    data = ctx["fig5"]
    for mode, paper_mode in (("off", "off"), ("data", "on"), ("all", "on")):
        for v in VARIANTS:
            kind = "lle" if v == "lle" else "reno"
            ctx.compare(
                f"1500 B, {RTS_LABELS[mode]}: {LABELS[v]}",
                f"{SOURCE}(a), §4.3",
                "Mbps",
                PAPER_1500[(paper_mode, kind)],
                mbps(tput(data, v, mss="1460B", rts=RTS_MODES[mode], stop=end)),
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


def _size_claims(
    ctx: Context, gains: dict[tuple[str, str, int], Stat], sizes: list[int], end: str
) -> None:
    data = ctx["fig5"]
    lle = {
        (mode, d): tput(data, "lle", mss=f"{d - 40}B", rts=RTS_MODES[mode], stop=end).mean
        for mode in RTS_MODES
        for d in sizes
    }
    best = {mode: max(sizes, key=lambda d: lle[(mode, d)]) for mode in RTS_MODES}
    ctx.claim(
        "LLE-TCP's throughput is highest at the largest datagram, 1500 B",
        f"{SOURCE}(a), §4.3",
        all(b == 1500 for b in best.values()),
        ", ".join(
            f"{RTS_LABELS[m]}: highest at {b} B ({lle[(m, b)] / 1e6:.2f} Mbps)"
            for m, b in best.items()
        ),
        quote=Q_MAX,
        band="LLE-TCP's mean throughput at 1500 B above every smaller datagram's, every RTS "
        "setting",
    )
    for mode in RTS_MODES:
        series = [gains[(BASE, mode, d)].mean for d in sizes]
        ctx.claim(
            f"{RTS_LABELS[mode]}: the gain falls as the datagram grows",
            f"{SOURCE}(b), §4.3",
            all(x > y for x, y in itertools.pairwise(series)),
            ", ".join(f"{d} B {g:+.0f} %" for d, g in zip(sizes, series, strict=True))
            + " (vs Reno, ACK every segment)",
            quote=Q_INVERSE,
            band="gain over ACK-every Reno strictly decreasing with the datagram size. Read as "
            "'decreasing': literally inversely proportional, 20 % at 1500 B would be 300 % at "
            "100 B, which the paper's own 50-70 % and 100 % contradict",
        )


def _level_claims(ctx: Context, gains: dict[tuple[str, str, int], Stat], sizes: list[int]) -> None:
    g1500 = gains[(BASE, "off", 1500)]
    ctx.claim(
        "RTS/CTS off: the gain at 1500 B is around 20 %",
        f"{SOURCE}(b), §4.3",
        15.0 <= g1500.mean < 25.0,
        f"{g1500} % over ACK-every Reno (over delayed-ACK Reno: "
        f"{gains[('reno_delayed', 'off', 1500)]} %)",
        quote=Q_20_70,
        band="gain over ACK-every Reno at 1500 B, RTS/CTS off, 15-25 % ('around 20%')",
        explanation=gain_why(ctx, gains, "off"),
    )
    small = [d for d in sizes if d < SMALL_BELOW]
    vals = {d: gains[(BASE, "off", d)].mean for d in small}
    ctx.claim(
        "RTS/CTS off: the gain for small datagrams is 50-70 %",
        f"{SOURCE}(b), §4.3",
        all(49.5 <= g < 70.5 for g in vals.values()),
        ", ".join(f"{d} B {g:+.1f} %" for d, g in vals.items()) + " over ACK-every Reno "
        "(over delayed-ACK: "
        + ", ".join(f"{d} B {gains[('reno_delayed', 'off', d)].mean:+.1f} %" for d in small)
        + ")",
        quote=Q_20_70,
        band=f"gain over ACK-every Reno at every datagram below {SMALL_BELOW} B, RTS/CTS off, "
        "49.5-70.5 % ('50-70%' at its precision)",
        explanation=(
            "Outside the band: "
            + ", ".join(f"{d} B {g:+.1f} %" for d, g in vals.items() if not 49.5 <= g < 70.5)
            + "; the others are inside. The gain grows as the datagram shrinks towards the "
            "ACK's 40 B (the paper's own 100 % rule), so the smallest size reaches past 70 %."
        ),
    )
    smallest = min(sizes)
    gs = gains[(BASE, "off", smallest)]
    ctx.claim(
        "RTS/CTS off: the gain reaches 100 % at the smallest datagram",
        f"{SOURCE}(b), §4.3",
        95.0 <= gs.mean < 105.0,
        f"{smallest} B: {gs} % over ACK-every Reno",
        quote=f"{Q_100} [...] {Q_RANGE}",
        band=f"gain over ACK-every Reno at {smallest} B, RTS/CTS off, 95-105 % ('100%'); the "
        "paper's '50-70%' for small sizes contradicts it unless its smallest size is much "
        "closer to 40 B than ours",
        explanation=(
            f"At {smallest} B our gain is {gs.mean:.0f} %, at the top of the paper's other "
            "sentence's 50–70 % for small sizes: the two sentences cannot both hold at "  # noqa: RUF001
            "one size, and ours follows the 50–70 % one."  # noqa: RUF001
        ),
    )
    for mode in ("data", "all"):
        g = gains[(BASE, mode, 1500)]
        ctx.claim(
            f"{RTS_LABELS[mode]}: the gain at 1500 B is the paper's 4.71 / 4.1",
            f"{SOURCE}(a), §4.3",
            13.4 <= g.mean < 16.4,
            f"{g} % over ACK-every Reno (over delayed-ACK Reno: "
            f"{gains[('reno_delayed', mode, 1500)]} %)",
            quote=Q_RTS,
            band="gain over ACK-every Reno at 1500 B 13.4-16.4 % (4.705/4.15 - 1 to "
            "4.715/4.05 - 1: the two numbers at their precision)",
            explanation=gain_why(ctx, gains, mode),
        )


def _finding(ctx: Context, gains: dict[tuple[str, str, int], Stat], end: str) -> None:
    data = ctx["fig5"]
    reno = {
        (b, mode): tput(data, b, mss="1460B", rts=RTS_MODES[mode], stop=end).mean / 1e6
        for b in BASELINES
        for mode in RTS_MODES
    }
    parts = [
        f"{RTS_LABELS[m]}: ACK every {reno[('reno_every', m)]:.2f}, delayed "
        f"{reno[('reno_delayed', m)]:.2f} Mbps "
        f"(paper {PAPER_1500[('off' if m == 'off' else 'on', 'reno')]})"
        for m in RTS_MODES
    ]
    ctx.finding(
        "Which Reno, and which RTS/CTS, the paper ran.",
        "Reno at 1500 B: " + "; ".join(parts) + ". The paper keeps ns-2's defaults (an ACK per "
        "packet) and states its 100 % rule for an ACK per data packet, so the claims use "
        "ACK-every Reno; yet its 5.08 Mbps is our delayed-ACK Reno's, and our ACK-every Reno "
        "(like ns-3's 4.28 Mbps) is 15 % below it. Over delayed-ACK Reno the 1500 B gain is "
        f"{gains[('reno_delayed', 'off', 1500)].mean:.1f} % (RTS/CTS off), "
        f"{gains[('reno_delayed', 'data', 1500)].mean:.1f} % (before data frames) and "
        f"{gains[('reno_delayed', 'all', 1500)].mean:.1f} % (before every frame), against "
        "the paper's 19.9 % and 14.9 %. With RTS/CTS, Reno's 4.1 Mbps is nearest RTS/CTS "
        "before data frames only; before every frame each TCP ACK pays a handshake too.",
    )


def analyse(ctx: Context) -> None:
    end = end_time(ctx.quick)
    sizes = datagrams(ctx.quick)
    gains = _gains(ctx, sizes, end)
    _compare_1500(ctx, gains, end)
    for b in BASELINES:
        for d in sizes[:-1]:
            ctx.compare(
                f"{d} B, RTS/CTS off: gain over {LABELS[b]}",
                f"{SOURCE}(b), §4.3",
                "%",
                None,
                gains[(b, "off", d)],
                "paper: 50-70 % for small datagrams, -> 100 % near 40 B",
            )
    _size_claims(ctx, gains, sizes, end)
    _level_claims(ctx, gains, sizes)
    _finding(ctx, gains, end)
    _figure(ctx, gains, sizes, end)


def _figure(
    ctx: Context, gains: dict[tuple[str, str, int], Stat], sizes: list[int], end: str
) -> None:
    data = ctx["fig5"]
    styles = {"off": "-", "data": "--", "all": ":"}
    with ctx.figure(
        "fig5",
        "LLE-TCP Fig. 5: steady-state throughput (a, b) and LLE-TCP's gain (c) vs datagram "
        "size, one 802.11b hop; bars: 95 % CI; stars: the paper's numbers at 1500 B",
        3,
        width=5.2,
    ) as (ax_a, ax_b, ax_c):
        for v in VARIANTS:
            for ax, modes in ((ax_a, ("off",)), (ax_b, ("data", "all"))):
                for mode in modes:
                    points = [
                        tput(data, v, mss=f"{d - 40}B", rts=RTS_MODES[mode], stop=end)
                        for d in sizes
                    ]
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
        ax_a.plot([1500], [5.08], "k*", markersize=10, label="paper: Reno 5.08")
        ax_a.plot([1500], [6.09], "r*", markersize=10, label="paper: LLE-TCP 6.09")
        ax_b.plot([1500], [4.1], "k*", markersize=10, label="paper: Reno 4.1")
        ax_b.plot([1500], [4.71], "r*", markersize=10, label="paper: LLE-TCP 4.71")
        ax_c.plot(
            [1500, 1500],
            [19.9, 14.9],
            "k*",
            markersize=10,
            label="paper, 1500 B: 19.9 % (off), 14.9 % (on)",
        )
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
    seed="004",
    differences=(
        "The paper names neither its Reno's ACK policy nor which frames RTS/CTS guards, so "
        "we run both ACK policies and three RTS settings. Its own words point to an ACK per "
        "segment (ns-2's default sink; its 100 % rule is stated for an ACK per data packet), "
        "so the claims test the gain over ACK-every Reno; but its 1500 B Reno (5.08 Mbps) "
        "is our delayed-ACK Reno, while our ACK-every Reno (like ns-3's) is 15 % slower, "
        "and the gain over it is about twice the paper's. The two cannot both be the "
        "paper's Fig. 5: see the finding, and the numbers for both baselines. Guarding TCP "
        "ACK frames with RTS/CTS too makes every ACK cost a handshake, so Reno falls further "
        "and LLE-TCP's gain rises."
    ),
    campaigns=campaigns,
    analyse=analyse,
)
