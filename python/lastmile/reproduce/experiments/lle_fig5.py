"""LLE-TCP Fig. 5: TCP Reno vs LLE-TCP on one 802.11b hop, against the datagram size.

D. Kliazovich, F. Granelli and M. Gerla, "Performance improvement in wireless networks using
cross-layer ARQ" (seed ``004_*``), §4.1 and §4.3, Table 3, Fig. 5. Base scenario ``lle.toml``:
two stations, DCF at 11 Mbps with 1 Mbps control frames, a bulk transfer n1 -> n2.

- Throughput of Reno and of LLE-TCP (the ARQ agent on the sender, n1) for TCP/IP datagrams
  of 100-1500 B (mss = datagram - 40 B), and at 44 and 60 B (RTS/CTS off, 30 s runs),
  nearing the 40 B ACK of the paper's "tends to 100%"; the gain of LLE-TCP. Table 1's
  802.11 rows (1, 2 and 11 Mbps) and the RTT LLE-TCP saves.
- The Reno the claims compare with is the one the paper's own simulator gives its numbers
  for: ns-2.35 in the paper's set-up (``validation/ns2/lle_ack_cost.py``) puts its 5.08 Mbps
  on delayed ACKs (DelAck sink) and its 4.1 Mbps with RTS/CTS on delayed ACKs with RTS/CTS
  before data frames only, and matches our per-frame costs within 1-3 %. Both settings
  are calibrated on those two numbers; Reno with an ACK per segment and RTS/CTS before
  every frame (``rts_threshold = "0B"``, ns-2's default) run beside them. LLE-TCP's
  receiver sends no ACK (the agent generates them), so its ACK policy does not matter.
- The paper keeps ns-2's other defaults, among them TCP's ``window_`` of 20 segments: the
  receiver window is 20 segments (``rwnd`` zipped with ``mss``).

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

from lastmile.reproduce.framework import (
    Campaign,
    Context,
    Data,
    Experiment,
    Published,
    Stat,
    paper_marks,
)
from lastmile.reproduce.words import about, ratio_band, written

if TYPE_CHECKING:
    import pandas as pd

SCENARIO = "lle.toml"
SOURCE = "LLE-TCP Fig. 5"
MSS = "flow.0.tcp.mss"
RTS = "topology.wireless.mac.rts_threshold"
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

#: ns-2.35 at 1500 B (Mbps, seeds 1-3): Reno with an ACK per segment and with delayed ACKs,
#: per RTS setting (validation/results/lle-ack-cost.md).
NS2_RENO_1500 = {"off": (4.260, 4.978), "data": (3.477, 3.900), "all": (2.884, 3.498)}
#: §4.3: throughput at 1500 B (Mbps), RTS/CTS off and on.
PAPER_1500 = {("off", "reno"): 5.08, ("off", "lle"): 6.09, ("on", "reno"): 4.1, ("on", "lle"): 4.71}


def datagrams(quick: bool) -> list[int]:
    """The paper's axis (100-1500 B)."""
    return [100, 296, 1500] if quick else [100, 296, 576, 1000, 1500]


def limit_datagrams(quick: bool) -> list[int]:
    """Datagrams nearing the 40 B TCP ACK, for "tends to 100%"."""
    return [44, 100] if quick else [44, 60, 100]


LIMIT_END = {True: "12s", False: "30s"}


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


#: LLE-TCP Table 1's 802.11 rows: physical rate (Mbps) → TCP/IP throughput as printed.
TABLE1 = {1: "0.7", 2: "1.4", 11: "5"}
RATE = "topology.wireless.rate"


def campaigns(quick: bool) -> Sequence[Campaign]:
    sizes = datagrams(quick)
    return [
        steady_campaign(
            "table1",
            3 if quick else 5,
            "12s" if quick else "30s",
            grid={RATE: [f"{r}Mbps" for r in TABLE1]},
            axes={"rate": RATE},
            overrides={MSS: "1460B", RWND: window(1500), RTS: RTS_MODES["off"]},
            variants={BASE: VARIANTS[BASE]},
        ),
        steady_campaign(
            "fig5",
            3 if quick else 10,
            end_time(quick),
            grid={RTS: list(RTS_MODES.values())},
            zip={MSS: [f"{d - 40}B" for d in sizes], RWND: [window(d) for d in sizes]},
            axes={"mss": MSS, "rts": RTS},
        ),
        steady_campaign(
            "limit",
            3 if quick else 5,
            LIMIT_END[quick],
            grid={RTS: [RTS_MODES["off"]]},
            zip={
                MSS: [f"{d - 40}B" for d in limit_datagrams(quick)],
                RWND: [window(d) for d in limit_datagrams(quick)],
            },
            axes={"mss": MSS, "rts": RTS},
            variants={v: VARIANTS[v] for v in ("reno_every", "lle")},
        ),
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
Q_TABLE1 = (
    "IEEE 802.11 40–100 m 2.4 GHz 22 MHz 1/2 Mbps 0.7/1.4 Mbps [...] 802.11b (Wi-Fi) 11 "  # noqa: RUF001
    "Mbps 5 Mbps"
)
Q_RTT = (
    "TCP ACK suppression reduces RTT by the time required for TCP ACK transmission over the "
    "wireless link."
)
Q_RTS = (
    "In case of RTS/CTS exchange, LLE-TCP achieves 4.71 Mbps while TCP Reno provides only 4.1 Mbps."
)
#: The Reno the claims compare with: delayed ACKs (ns-2's DelAck sink), the one whose 1500 B
#: throughput is the paper's 5.08 Mbps in ns-2 itself (validation/results/lle-ack-cost.md:
#: DelAck 4.98, an ACK per segment 4.26 Mbps). The 100 % rule states its own condition ("in
#: case a TCP ACK is generated for every TCP data packet") and is tested over ACK-every Reno.
BASE = "reno_delayed"
#: "RTS/CTS exchange": before data frames only, the setting under which ns-2 gives the
#: paper's 4.1 Mbps Reno (3.90; before every frame 3.50).
RTS_ON = "data"
#: The RTS settings the claims run: off, and the paper's "RTS/CTS exchange".
CLAIM_MODES = ("off", RTS_ON)
#: Small datagrams for "50-70 %": from 100 B to below ns-2's default 576-byte datagram.
SMALL_BELOW = 576


def _small(sizes: list[int]) -> list[int]:
    return [d for d in sizes if 100 <= d < SMALL_BELOW]


def gain_why(ctx: Context, mode: str) -> str:
    """Why the gain over delayed-ACK Reno misses the paper's, with the run's numbers."""
    data = ctx["fig5"]
    end = end_time(ctx.quick)
    reno, lle = (
        tput(data, v, mss="1460B", rts=RTS_MODES[mode], stop=end).mean / 1e6 for v in (BASE, "lle")
    )
    return (
        f"At 1500 B ({RTS_LABELS[mode]}) our delayed-ACK Reno runs {reno:.2f} Mbps and "
        f"LLE-TCP {lle:.2f}. ns-2.35 in the same set-up (validation/results/lle-ack-cost.md) "
        "gives the same per-frame costs within 1 % for Reno and 2-3 % for a sender with no "
        "ACK on the air: the gain the paper reports is what its own simulator gives at "
        "1500 B without RTS/CTS (19.9 %), and with RTS/CTS before data frames 13.9 % "
        "(paper 14.9 %)."
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


def _ctx_gains(ctx: Context) -> dict[tuple[str, str, int], Stat]:
    return ctx.memo("gains", lambda: _gains(ctx, datagrams(ctx.quick), end_time(ctx.quick)))


def _compare_1500(ctx: Context, gains: dict[tuple[str, str, int], Stat], end: str) -> None:
    data = ctx["fig5"]
    for mode, paper_mode in (("off", "off"), ("data", "on"), ("all", "on")):
        for v in VARIANTS:
            kind = "lle" if v == "lle" else "reno"
            counted = mode in CLAIM_MODES and v in ("lle", BASE)
            calibration = counted and kind == "reno"
            ctx.compare(
                f"1500 B, {RTS_LABELS[mode]}: {LABELS[v]}",
                f"{SOURCE}(a), §4.3",
                "Mbps",
                PAPER_1500[(paper_mode, kind)],
                mbps(tput(data, v, mss="1460B", rts=RTS_MODES[mode], stop=end)),
                "calibration: the Reno and RTS/CTS setting were chosen by this number"
                if calibration
                else ("" if counted else "another Reno or RTS/CTS setting than the paper's"),
                role="calibration" if calibration else ("measure" if counted else "sensitivity"),
                ref=f"Fig. 5 1500 B {paper_mode} {kind}",
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
                "the paper's 6.09 / 5.08 (off), 4.71 / 4.1 (on): derived from the numbers "
                "above, not counted again",
                role="sensitivity",
            )


def claim_max(ctx: Context) -> None:
    data = ctx["fig5"]
    end = end_time(ctx.quick)
    sizes = datagrams(ctx.quick)
    lle = {
        (mode, d): tput(data, "lle", mss=f"{d - 40}B", rts=RTS_MODES[mode], stop=end).mean
        for mode in CLAIM_MODES
        for d in sizes
    }
    best = {mode: max(sizes, key=lambda d: lle[(mode, d)]) for mode in CLAIM_MODES}
    ctx.claim(
        "LLE-TCP's throughput is highest at the largest datagram, 1500 B",
        f"{SOURCE}(a), §4.3",
        all(b == 1500 for b in best.values()),
        ", ".join(
            f"{RTS_LABELS[m]}: highest at {b} B ({lle[(m, b)] / 1e6:.2f} Mbps)"
            for m, b in best.items()
        ),
        quote=Q_MAX,
        band="LLE-TCP's mean throughput at 1500 B above every smaller datagram's, RTS/CTS "
        "off and on",
        explanation="See the detail.",
    )


def claim_inverse(ctx: Context) -> None:
    gains = _ctx_gains(ctx)
    sizes = [d for d in datagrams(ctx.quick) if d >= 100]
    for mode in CLAIM_MODES:
        series = [gains[(BASE, mode, d)].mean for d in sizes]
        ctx.claim(
            f"{RTS_LABELS[mode]}: the gain falls as the datagram grows",
            f"{SOURCE}(b), §4.3",
            all(x > y for x, y in itertools.pairwise(series)),
            ", ".join(f"{d} B {g:+.0f} %" for d, g in zip(sizes, series, strict=True))
            + f" (vs {LABELS[BASE]})",
            quote=Q_INVERSE,
            band=f"gain over {LABELS[BASE]} strictly decreasing with the datagram size. Read "
            "as 'decreasing': literally inversely proportional, 20 % at 1500 B would be "
            "300 % at 100 B, which the paper's own 50-70 % and 100 % contradict",
            explanation="See the detail.",
        )


def claim_20(ctx: Context) -> None:
    data = ctx["fig5"]
    end = end_time(ctx.quick)
    g = gain(
        tput(data, "lle", mss="1460B", rts=RTS_MODES["off"], stop=end),
        tput(data, BASE, mss="1460B", rts=RTS_MODES["off"], stop=end),
    )
    band = about("20")
    ctx.claim(
        "RTS/CTS off: the gain at 1500 B is around 20 %",
        f"{SOURCE}(b), §4.3",
        band.holds(g.mean),
        lambda: f"{g} % over {LABELS[BASE]}",
        quote=Q_20_70,
        band=f"gain over {LABELS[BASE]} at 1500 B, RTS/CTS off, {band.describe('%')}",
        explanation=lambda: gain_why(ctx, "off"),
    )


def claim_50_70(ctx: Context) -> None:
    vals = ctx.quantity(
        "small_gains",
        lambda: {d: _ctx_gains(ctx)[(BASE, "off", d)].mean for d in _small(datagrams(ctx.quick))},
    )
    band = written("50–70%")  # noqa: RUF001
    ctx.claim(
        "RTS/CTS off: the gain for small datagrams is 50-70 %",
        f"{SOURCE}(b), §4.3",
        all(band.holds(g) for g in vals.values()),
        lambda: (
            ", ".join(f"{d} B {g:+.1f} %" for d, g in vals.items())
            + f" over {LABELS[BASE]} (over ACK-every Reno: "
            + ", ".join(
                f"{d} B {_ctx_gains(ctx)[('reno_every', 'off', d)].mean:+.1f} %" for d in vals
            )
            + ")"
        ),
        quote=Q_20_70,
        band=f"gain over {LABELS[BASE]} at every datagram from 100 B to below {SMALL_BELOW} B, "
        f"RTS/CTS off, {band.describe('%')}",
        explanation=lambda: (
            "Our gains over delayed-ACK Reno are those of ns-2.35 at the same sizes within a "
            "few points (validation/results/lle-ack-cost.md: 39 % at 100 B, 29 % at 576 B); "
            "over ACK-every Reno they are 50-70 %: the paper's small-datagram numbers look "
            "like an ACK per segment, its 1500 B numbers like delayed ACKs."
        ),
    )


def _limit_gain(ctx: Context, size: int) -> Stat:
    data, end = ctx["limit"], LIMIT_END[ctx.quick]
    where = {"mss": f"{size - 40}B", "rts": RTS_MODES["off"], "stop": end}
    return gain(tput(data, "lle", **where), tput(data, "reno_every", **where))


def claim_100(ctx: Context) -> None:
    series = ctx.quantity(
        "limit_gains",
        lambda: {d: _limit_gain(ctx, d).mean for d in limit_datagrams(ctx.quick)},
    )
    sizes = sorted(series)
    band = about("100")
    towards = all(series[a] > series[b] for a, b in itertools.pairwise(sizes))
    ctx.claim(
        "RTS/CTS off: as the datagram nears the 40 B ACK the gain tends to 100 %",
        f"{SOURCE}(b), §4.3",
        towards and band.holds(series[sizes[0]]),
        lambda: ", ".join(f"{d} B {series[d]:+.1f} %" for d in sizes) + " over ACK-every Reno",
        quote=f"{Q_100} [...] {Q_RANGE}",
        band="gain over ACK-every Reno (the rule's own condition: an ACK for every data "
        f"packet), RTS/CTS off, rising as the datagram falls from 100 B to {sizes[0]} B, and "
        f"at {sizes[0]} B (4 bytes of payload) {band.describe('%')} ('tends to 100%')",
        explanation=lambda: (
            "Removing one ACK frame per data frame of nearly the same size frees about half "
            "the channel's accesses, but LLE-TCP's sender still pays DIFS and a backoff for "
            "each data frame alone, so the gain levels below 100 % (ns-2.35, a sender with "
            "no ACK on the air: +78 % at 100 B, ours +71 %)."
        ),
    )


def claim_table1(ctx: Context) -> None:
    end = "12s" if ctx.quick else "30s"
    got = ctx.quantity(
        "table1",
        lambda: {
            r: ctx["table1"].value("steady_bps", BASE, rate=f"{r}Mbps", stop=end).mean / 1e6
            for r in TABLE1
        },
    )
    bands = {r: written(x) for r, x in TABLE1.items()}
    ctx.claim(
        "802.11 at 1, 2 and 11 Mbps gives 0.7, 1.4 and 5 Mbps of TCP/IP throughput",
        "LLE-TCP Table 1",
        all(bands[r].holds(got[r]) for r in TABLE1),
        ", ".join(f"{r} Mbps: {got[r]:.2f} Mbps" for r in TABLE1)
        + f" ({LABELS[BASE]}, 1500 B, RTS/CTS off)",
        quote=Q_TABLE1,
        band="the TCP/IP throughput of one Reno transfer (the experiment's Reno, 1500 B "
        "datagrams, RTS/CTS off) at each physical rate, as written: "
        + ", ".join(f"{r} Mbps {b.describe('Mbps')}" for r, b in bands.items()),
        explanation=(
            "ns-2.35 in the same set-up gives 0.83, 1.54 and 4.99 Mbps "
            "(validation/results/lle-ack-cost.md), ours within 1 % of it: Table 1's 0.7 and "
            "1.4 Mbps are not what one Reno transfer over Table 3's DCF gets at 1 and 2 Mbps; "
            "the paper gives them as typical figures without a set-up."
        ),
    )


def _rtt(ctx: Context) -> dict[str, float]:
    """Mean RTT sample of the sender, 1500 B, RTS/CTS off, seeds 1-3, 10 s runs."""
    out = {}
    for v in (BASE, "lle"):
        samples = []
        for seed in (1, 2, 3):
            over = {
                **VARIANTS[v],
                MSS: "1460B",
                RWND: window(1500),
                RTS: RTS_MODES["off"],
                "stop_time": "10s",
            }
            trace = ctx.run_traced(SCENARIO, seed, over, ["rtt"]).trace("rtt")
            samples.append(float(trace["sample_s"].dropna().mean()))
        out[v] = sum(samples) / len(samples)
    return out


def claim_rtt(ctx: Context) -> None:
    rtt = ctx.memo("rtt", lambda: _rtt(ctx))
    ctx.claim(
        "LLE-TCP's ACK suppression reduces the connection's RTT",
        "LLE-TCP §5",
        rtt["lle"] < rtt[BASE],
        f"mean RTT sample at the sender, 1500 B, RTS/CTS off, seeds 1-3: LLE-TCP "
        f"{1e3 * rtt['lle']:.2f} ms, {LABELS[BASE]} {1e3 * rtt[BASE]:.2f} ms",
        quote=Q_RTT,
        band=f"LLE-TCP's mean RTT sample below {LABELS[BASE]}'s ('reduces'); by how much "
        "('by the time required for TCP ACK transmission') is not tested: the sample holds "
        "the 20-segment window queued at the sender, whose wait grows with every frame on "
        "the air",
        explanation="See the detail.",
    )


def claim_rts(ctx: Context) -> None:
    data = ctx["fig5"]
    end = end_time(ctx.quick)
    g = gain(
        tput(data, "lle", mss="1460B", rts=RTS_MODES[RTS_ON], stop=end),
        tput(data, BASE, mss="1460B", rts=RTS_MODES[RTS_ON], stop=end),
    )
    band = ratio_band("4.71", "4.1", minus_one=True, percent=True)
    ctx.claim(
        "RTS/CTS on: the gain at 1500 B is the paper's 4.71 / 4.1",
        f"{SOURCE}(a), §4.3",
        band.holds(g.mean),
        lambda: (
            f"{g} % over {LABELS[BASE]} ({RTS_LABELS[RTS_ON]}; before every frame: "
            f"{_ctx_gains(ctx)[(BASE, 'all', 1500)]} %)"
        ),
        quote=Q_RTS,
        band=f"gain over {LABELS[BASE]} at 1500 B, {RTS_LABELS[RTS_ON]}, {band.describe('%')}",
        explanation=lambda: gain_why(ctx, RTS_ON),
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
        f"(paper {PAPER_1500[('off' if m == 'off' else 'on', 'reno')]}; ns-2.35 "
        f"{NS2_RENO_1500[m][0]:.2f} and {NS2_RENO_1500[m][1]:.2f})"
        for m in RTS_MODES
    ]
    ctx.finding(
        "Which Reno, and which RTS/CTS, the paper ran: what a TCP ACK costs, against ns-2.",
        "Reno at 1500 B, ours and ns-2.35's in the same set-up (Table 3, ns-2's defaults "
        "otherwise; validation/results/lle-ack-cost.md, `python validation/ns2/"
        "lle_ack_cost.py`): " + "; ".join(parts) + ". Our per-frame costs are ns-2's within "
        "1 % for Reno at every size and RTS setting, and within 2-3 % for a sender with no "
        "ACK on the air (ns-2: a saturating UDP source; ours: LLE-TCP). So an ACK does not "
        "cost us more than it costs ns-2: the gain over ACK-every Reno is about twice the "
        "paper's in ns-2 too. The paper's 5.08 Mbps is ns-2's delayed-ACK Reno, and its "
        "4.1 Mbps with RTS/CTS is ns-2's delayed-ACK Reno with RTS/CTS before data frames "
        "only; the claims therefore compare with delayed-ACK Reno and read 'RTS/CTS "
        "exchange' as before data frames, both calibrated on those two numbers. Over "
        f"delayed-ACK Reno our 1500 B gain is {gains[('reno_delayed', 'off', 1500)].mean:.1f} "
        f"% (RTS/CTS off) and {gains[('reno_delayed', 'data', 1500)].mean:.1f} % (before "
        "data frames), ns-2's 19.9 % and 13.9 %, the paper's 19.9 % and 14.9 %.",
    )


def analyse(ctx: Context) -> None:
    end = end_time(ctx.quick)
    sizes = datagrams(ctx.quick)
    gains = _ctx_gains(ctx)
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
    t1_end = "12s" if ctx.quick else "30s"
    for r, x in TABLE1.items():
        ctx.compare(
            f"TCP/IP throughput of 802.11 at {r} Mbps",
            "LLE-TCP Table 1",
            "Mbps",
            float(x),
            mbps(ctx["table1"].value("steady_bps", BASE, rate=f"{r}Mbps", stop=t1_end)),
            f"{LABELS[BASE]}, 1500 B, RTS/CTS off",
            ref=f"Table 1 802.11 {r} Mbps",
        )
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
        "size, one 802.11b hop; bars: 95 % CI; squares: the paper's numbers at 1500 B; "
        "shaded: its 50-70 %",
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
        paper_marks(ax_a, [1500, 1500], [5.08, 6.09], "paper: Reno 5.08, LLE-TCP 6.09")
        paper_marks(ax_b, [1500, 1500], [4.1, 4.71], "paper: Reno 4.1, LLE-TCP 4.71")
        paper_marks(ax_c, [1500, 1500], [19.9, 14.9], "paper, 1500 B: 19.9 % (off), 14.9 % (on)")
        ax_c.axhspan(50, 70, color="k", alpha=0.1, label="paper: 50-70 % for small datagrams")
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
        "The paper names neither its Reno's ACK policy nor which frames RTS/CTS guards. "
        "Run in ns-2.35 with the paper's settings, its 1500 B Reno numbers (5.08 and "
        "4.1 Mbps) are delayed-ACK Reno, without RTS/CTS and with RTS/CTS before data "
        "frames: the claims use those two settings (calibrated on those two numbers), and "
        "the other Reno and RTS settings run beside them. Our per-frame costs are ns-2's "
        "within 1-3 %. The paper's small-datagram gains (50-70 %) are what an ACK-every "
        "Reno gives, while its 1500 B gain is a delayed-ACK one: one baseline cannot give "
        "both."
    ),
    campaigns=campaigns,
    analyse=analyse,
    claims=(
        claim_max,
        claim_inverse,
        claim_20,
        claim_50_70,
        claim_100,
        claim_rts,
        claim_table1,
        claim_rtt,
    ),
    published=Published(
        points=[
            (
                "fig5",
                "steady_bps",
                v,
                {"mss": "1460B", "rts": RTS_MODES[m], "stop": "100s"},
                x * 1e6,
            )
            for (paper_mode, kind), x in PAPER_1500.items()
            for m in (("off",) if paper_mode == "off" else (RTS_ON,))
            for v in (("lle",) if kind == "lle" else (BASE,))
        ],
        numbers={
            "table1": {r: float(x) for r, x in TABLE1.items()},
            "small_gains": {100: 70.0, 296: 50.0},
            "limit_gains": {44: 100.0, 100: 70.0},
        },
    ),
    settings=(
        "Reno's ACKs: delayed ACKs (ns-2's DelAck sink), calibrated on the paper's 5.08 Mbps "
        "at 1500 B: ns-2.35 gives 4.98 Mbps with it and 4.26 with an ACK per segment "
        "(finding 'Which Reno'). The 100 % rule, stated for an ACK per data packet, is "
        "tested over ACK-every Reno.",
        "'RTS/CTS exchange': before data frames only, calibrated on the paper's 4.1 Mbps: "
        "ns-2.35 gives 3.90 Mbps with it, 3.50 with RTS/CTS before every frame.",
        "The receiver window: ns-2's default 20 segments (the paper keeps ns-2's defaults).",
    ),
)
