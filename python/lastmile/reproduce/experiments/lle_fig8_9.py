"""LLE-TCP Figs. 8-9: six TCP versions with and without LLE-TCP in the infrastructure network.

D. Kliazovich, F. Granelli and M. Gerla, "Performance improvement in wireless networks using
cross-layer ARQ" (seed ``004_*``), §4.4, Figs. 8 and 9. Base scenario ``lle_infra.toml``: a
fixed host behind a 100 Mbps, 5 ms wire, an access point with a 700-packet FIFO, one
802.11b mobile (Table 3); a bulk transfer from the fixed host to the mobile. TCP Reno,
NewReno, Westwood, FAST, SACK and Illinois (``tcp.recovery`` x ``tcp.cc``), each alone and
with LLE-TCP's ARQ agent on the access point.

- Fig. 8: steady-state throughput against the TCP/IP datagram size (100-1500 B) without
  errors, and LLE-TCP's gain per TCP version.
- Fig. 9: throughput against a uniform packet error rate on every frame, both directions
  (1000 B datagrams, MAC retry limits 7 / 4), and the PER at which each curve "reaches
  zero": where it first falls below 10 % of the same TCP version's error-free throughput
  without LLE-TCP (the framework's "near standstill"), interpolated linearly between the
  PER points we run.

The paper keeps ns-2's defaults ("All the configuration parameters are set to their default
values"). As in Fig. 5 (`lle_fig5`): an ACK per segment and a receiver window of 20 segments
(ns-2's ``window_``). Whether RTS/CTS guarded its frames is not said: ns-2's default
``RTSThreshold_`` is 0 (RTS/CTS before every frame), while Table 3 and Fig. 5's main curves
run without it, so both run here and every claim is tested under each. Throughput is
measured from 2 s to the end of the run as in Fig. 5 (20 s runs; the paper's are 100 s).
The versions whose ns-2 code came from their authors (Westwood, FAST, Illinois) run here
with NewReno recovery and their window rule from ``tcp.cc`` (Westwood+ for Westwood).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from lastmile.reproduce.experiments.lle_fig5 import (
    MSS,
    PER,
    REV_PER,
    RTS,
    RWND,
    gain,
    steady_campaign,
    window,
)
from lastmile.reproduce.framework import Campaign, Context, Experiment, Stat, errorbars

SCENARIO = "lle_infra.toml"
SOURCE = "LLE-TCP §4.4"
END = "20s"
DATAGRAM = 1000
#: The six TCP versions of §4.4: loss recovery and congestion control.
TCPS: dict[str, dict[str, str]] = {
    "reno": {"recovery": "reno", "cc": "reno"},
    "newreno": {"recovery": "newreno", "cc": "reno"},
    "westwood": {"recovery": "newreno", "cc": "westwood_plus"},
    "fast": {"recovery": "newreno", "cc": "fast"},
    "sack": {"recovery": "sack", "cc": "reno"},
    "illinois": {"recovery": "newreno", "cc": "illinois"},
}
NAMES = {
    "reno": "Reno",
    "newreno": "NewReno",
    "westwood": "Westwood",
    "fast": "FAST",
    "sack": "SACK",
    "illinois": "Illinois",
}
#: RTS/CTS off (the standard's threshold) and before every frame (ns-2's default 0).
RTS_MODES = {"off": "2347B", "all": "0B"}
RTS_LABELS = {"off": "RTS/CTS off", "all": "RTS/CTS before every frame (ns-2's default)"}
#: The finding's receiver window, far above the path's needs (the windows open until the
#: access point's 700-packet FIFO or the errors stop them): do the versions then differ?
BIG_WINDOW = "1MB"
#: "Reaches zero": below this fraction of the version's error-free throughput without LLE.
ZERO_FRACTION = 0.10


def _variants() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name, tcp in TCPS.items():
        base = {f"flow.0.tcp.{k}": v for k, v in tcp.items()}
        out[name] = base
        out[f"lle_{name}"] = {**base, "base_station.agent": "lle"}
    return out


VARIANTS = _variants()


def label(variant: str) -> str:
    if variant.startswith("lle_"):
        return f"LLE-TCP + {NAMES[variant[4:]]}"
    return NAMES[variant]


def datagrams(quick: bool) -> list[int]:
    return [100, 1500] if quick else [100, 296, 576, 1000, 1500]


def pers(quick: bool) -> list[float]:
    if quick:
        return [0.0, 0.1, 0.25, 0.32, 0.36, 0.4]
    return [0.0, 0.1, 0.15, 0.2, 0.22, 0.25, 0.28, 0.3, 0.32, 0.34, 0.36, 0.37, 0.38, 0.4]


#: Where the paper shows LLE-TCP's throughput at zero (the only excuse for a stall).
LLE_STALL = (
    "LLE-TCP §4.4, Fig. 9: with LLE-TCP, Reno and NewReno reach zero at PER 0.36 and FAST "
    "beyond 0.37; our PER points run to 0.4."
)


def campaigns(quick: bool) -> Sequence[Campaign]:
    sizes = datagrams(quick)
    rates = pers(quick)
    seeds = 2 if quick else 3
    end = end_time(quick)
    lle_stalls = {v: LLE_STALL for v in VARIANTS if v.startswith("lle_")}
    return [
        steady_campaign(
            "fig8",
            seeds,
            end,
            grid={RTS: list(RTS_MODES.values())},
            zip={MSS: [f"{d - 40}B" for d in sizes], RWND: [window(d) for d in sizes]},
            axes={"mss": MSS, "rts": RTS},
            variants=VARIANTS,
            scenario=SCENARIO,
        ),
        steady_campaign(
            "fig9",
            seeds,
            end,
            grid={RTS: list(RTS_MODES.values())},
            zip={PER: rates, REV_PER: rates},
            axes={"per": PER, "rts": RTS},
            overrides={MSS: f"{DATAGRAM - 40}B", RWND: window(DATAGRAM)},
            variants=VARIANTS,
            scenario=SCENARIO,
            paper_stalls=lle_stalls,
        ),
        steady_campaign(
            "fig9w",
            seeds,
            end,
            grid={RTS: list(RTS_MODES.values())},
            zip={PER: rates, REV_PER: rates},
            axes={"per": PER, "rts": RTS},
            overrides={MSS: f"{DATAGRAM - 40}B", RWND: BIG_WINDOW},
            variants=VARIANTS,
            scenario=SCENARIO,
            paper_stalls=lle_stalls,
        ),
    ]


def end_time(quick: bool) -> str:
    return "6s" if quick else END


def cutoff(rates: Sequence[float], tput: Sequence[float], threshold: float) -> float:
    """The PER where `tput` first falls below `threshold`, linear between points; inf when
    it never does within the PERs run."""
    for i, (p, y) in enumerate(zip(rates, tput, strict=True)):
        if y < threshold:
            if i == 0:
                return p
            p0, y0 = rates[i - 1], tput[i - 1]
            return p0 + (threshold - y0) * (p - p0) / (y - y0)
    return math.inf


def cutoffs(ctx: Context, campaign: str = "fig9") -> dict[tuple[str, str], Stat]:
    """Per RTS mode and variant: the zero point of the mean curve (``mean``), its 95 % CI
    from the per-seed curves' zero points (``ci``: nan when a seed never reaches zero)."""
    from lastmile.sweep.stats import t_quantile

    data = ctx[campaign]
    end = end_time(ctx.quick)
    rates = pers(ctx.quick)
    runs = data.runs[data.runs["stop"] == end]
    out = {}
    for mode, rts in RTS_MODES.items():
        for v in VARIANTS:
            base = v.removeprefix("lle_")
            ref = data.value("steady_bps", base, per=0.0, rts=rts, stop=end).mean
            thr = ZERO_FRACTION * ref
            mean = [data.value("steady_bps", v, per=p, rts=rts, stop=end).mean for p in rates]
            sel = runs[(runs["variant"] == v) & (runs["rts"] == rts)]
            table = sel.pivot_table(index="seed", columns="per", values="steady_bps")
            per_seed = [
                cutoff(rates, [float(row[p]) for p in rates], thr) for _, row in table.iterrows()
            ]
            n = len(per_seed)
            if n > 1 and all(math.isfinite(c) for c in per_seed):
                m = sum(per_seed) / n
                sd = math.sqrt(sum((c - m) ** 2 for c in per_seed) / (n - 1))
                ci = t_quantile(0.975, n - 1) * sd / math.sqrt(n)
            else:
                ci = math.nan
            out[(mode, v)] = Stat(cutoff(rates, mean, thr), ci, n)
    return out


def _fmt_cut(c: float) -> str:
    return f"> {pers(False)[-1]:g}" if math.isinf(c) else f"{c:.3f}"


def _gains(ctx: Context) -> dict[tuple[str, str, int], Stat]:
    data = ctx["fig8"]
    end = end_time(ctx.quick)

    def at(variant: str, mode: str, size: int) -> Stat:
        return data.value("steady_bps", variant, mss=f"{size - 40}B", rts=RTS_MODES[mode], stop=end)

    return {
        (mode, tcp, d): gain(at(f"lle_{tcp}", mode, d), at(tcp, mode, d))
        for mode in RTS_MODES
        for tcp in TCPS
        for d in datagrams(ctx.quick)
    }


def _mean_gain(gains: dict[tuple[str, str, int], Stat], mode: str, size: int) -> Stat:
    points = [gains[(mode, t, size)] for t in TCPS]
    return Stat(
        sum(g.mean for g in points) / len(points),
        math.sqrt(sum(g.ci**2 for g in points)) / len(points),
        min(g.n for g in points),
    )


def _spread(values: Sequence[float]) -> float:
    """(max - min) / max: "similar" is at most 0.10."""
    return (max(values) - min(values)) / max(values) if max(values) > 0 else 0.0


Q_SIMILAR_8 = (
    "All the evaluated versions of TCP maintain a similar level of throughput due to "
    "simplicity of wireless-cum-wired topology as well as sufficient bottleneck buffer "
    "resources at the base station."
)
Q_GAIN = (
    "In this scenario LLE-TCP performance ranges from 35% for large packets to 70% for small "
    "packets."
)
Q_SIMILAR_9 = (
    "In error prone environment (Fig. 9) all TCP versions maintain similar level of "
    "throughput for small error rates ($PER < 0.20$)."
)
Q_RENO = (
    "For higher error rates, TCP Reno and TCP NewReno degrade their performance down to zero "
    "for $PER = 0.32$, while LLE-TCP is able shift this point to $PER = 0.36$, leading to a "
    "throughput performance similar to that achieved by TCP SACK approach."
)
Q_FAST = (
    "However, the most relevant LLE-TCP performance improvement is demonstrated in case when "
    "TCP FAST with its fast window dynamics is not able to tolerate high error rates and "
    "drops the throughput down for $PER = 0.25$. In such scenario, the usage of LLE-TCP "
    "allows TCP FAST operation up to $PER = 0.37$."
)


def _fig8_claims(ctx: Context, gains: dict[tuple[str, str, int], Stat], mode: str) -> None:
    data = ctx["fig8"]
    end = end_time(ctx.quick)
    sizes = datagrams(ctx.quick)
    rts = RTS_MODES[mode]
    spreads = {
        (lle, d): _spread(
            [
                data.value("steady_bps", f"{lle}{t}", mss=f"{d - 40}B", rts=rts, stop=end).mean
                for t in TCPS
            ]
        )
        for lle in ("", "lle_")
        for d in sizes
    }
    worst = max(spreads, key=lambda k: spreads[k])
    ctx.claim(
        f"{RTS_LABELS[mode]}: the six TCP versions reach similar throughput at every size",
        f"{SOURCE}, Fig. 8(a)",
        all(s <= 0.10 for s in spreads.values()),
        f"largest spread {100 * spreads[worst]:.1f} % ({'with' if worst[0] else 'without'} "
        f"LLE-TCP, {worst[1]} B)",
        quote=Q_SIMILAR_8,
        band="at every datagram size, with and without LLE-TCP, the six versions' mean "
        "throughputs within 10 % of the largest ('similar')",
        explanation=(
            "Spreads over 10 %: "
            + ", ".join(
                f"{'LLE-TCP, ' if k[0] else ''}{k[1]} B {100 * s:.0f} %"
                for k, s in spreads.items()
                if s > 0.10
            )
        ),
    )
    largest, smallest = max(sizes), min(sizes)
    for size, paper, lo, hi, words in (
        (largest, 35.0, 34.5, 35.5, "'35%' at its precision"),
        (smallest, 70.0, 65.0, 75.0, "'70%' at its precision, 65-75 %"),
    ):
        g = _mean_gain(gains, mode, size)
        ctx.claim(
            f"{RTS_LABELS[mode]}: LLE-TCP's gain is {paper:.0f} % at {size} B",
            f"{SOURCE}, Fig. 8(b)",
            lo <= g.mean < hi,
            f"{g} % (mean over the six versions; "
            + ", ".join(f"{NAMES[t]} {gains[(mode, t, size)].mean:+.1f}" for t in TCPS)
            + ")",
            quote=Q_GAIN,
            band=f"LLE-TCP's gain at {size} B ('{'large' if size == largest else 'small'} "
            f"packets'), mean over the six versions, {lo}-{hi} % ({words})",
            explanation=_gain_why(ctx, gains, mode),
        )


def _gain_why(ctx: Context, gains: dict[tuple[str, str, int], Stat], mode: str) -> str:
    sizes = datagrams(ctx.quick)
    other = "all" if mode == "off" else "off"
    return (
        f"Our gain runs {_mean_gain(gains, mode, max(sizes)).mean:.0f} % (large) to "
        f"{_mean_gain(gains, mode, min(sizes)).mean:.0f} % (small) here and "
        f"{_mean_gain(gains, other, max(sizes)).mean:.0f} % to "
        f"{_mean_gain(gains, other, min(sizes)).mean:.0f} % with {RTS_LABELS[other]}: the gain "
        "is the airtime of the TCP ACKs LLE-TCP removes, which RTS/CTS before every frame "
        "makes dearer (a handshake per ACK). The window (20 segments) caps every version "
        "alike, so the six gains are the same."
    )


def _fig9_claims(ctx: Context, cuts: dict[tuple[str, str], Stat], mode: str) -> None:
    data = ctx["fig9"]
    end = end_time(ctx.quick)
    rts = RTS_MODES[mode]
    low = [p for p in pers(ctx.quick) if p < 0.2]
    spreads = {
        (lle, p): _spread(
            [data.value("steady_bps", f"{lle}{t}", per=p, rts=rts, stop=end).mean for t in TCPS]
        )
        for lle in ("", "lle_")
        for p in low
    }
    worst = max(spreads, key=lambda k: spreads[k])
    ctx.claim(
        f"{RTS_LABELS[mode]}: all versions similar below PER 0.20",
        f"{SOURCE}, Fig. 9(a)",
        all(s <= 0.10 for s in spreads.values()),
        f"largest spread {100 * spreads[worst]:.1f} % ({'with' if worst[0] else 'without'} "
        f"LLE-TCP, PER {worst[1]:g})",
        quote=Q_SIMILAR_9,
        band="at every PER below 0.20 we run ("
        + ", ".join(f"{p:g}" for p in low)
        + "), with and without LLE-TCP, the six versions within 10 % of the largest",
        explanation="Spreads over 10 %: "
        + ", ".join(
            f"{'LLE-TCP, ' if k[0] else ''}PER {k[1]:g} {100 * s:.0f} %"
            for k, s in spreads.items()
            if s > 0.10
        ),
    )
    why = _cut_why(cuts, mode)
    for variants, paper, quote, words in (
        (("reno", "newreno"), 0.32, Q_RENO, "Reno and NewReno reach zero at PER 0.32"),
        (("lle_reno", "lle_newreno"), 0.36, Q_RENO, "LLE-TCP moves that point to PER 0.36"),
        (("fast",), 0.25, Q_FAST, "FAST drops to zero at PER 0.25"),
        (("lle_fast",), 0.37, Q_FAST, "LLE-TCP lets FAST operate up to PER 0.37"),
    ):
        got = {v: cuts[(mode, v)].mean for v in variants}
        ctx.claim(
            f"{RTS_LABELS[mode]}: {words}",
            f"{SOURCE}, Fig. 9",
            all(paper - 0.005 <= c < paper + 0.005 for c in got.values()),
            ", ".join(f"{label(v)} {_fmt_cut(c)}" for v, c in got.items()),
            quote=quote,
            band=f"zero point (below {100 * ZERO_FRACTION:.0f} % of the version's error-free "
            f"throughput without LLE-TCP, interpolated) {paper - 0.005:.3f}-"
            f"{paper + 0.005:.3f} ('{paper:g}' at its precision)",
            explanation=why,
        )
    sack = cuts[(mode, "sack")].mean
    lle = {v: cuts[(mode, v)].mean for v in ("lle_reno", "lle_newreno")}
    ctx.claim(
        f"{RTS_LABELS[mode]}: with LLE-TCP, Reno and NewReno reach zero where SACK does",
        f"{SOURCE}, Fig. 9",
        all(
            math.isfinite(c) and math.isfinite(sack) and abs(c - sack) <= 0.10 * max(c, sack)
            for c in lle.values()
        ),
        f"SACK {_fmt_cut(sack)}; " + ", ".join(f"{label(v)} {_fmt_cut(c)}" for v, c in lle.items()),
        quote=Q_RENO,
        band="the zero points of LLE-TCP + Reno and + NewReno within 10 % of SACK's ('similar')",
        explanation=why,
    )


def _cut_why(cuts: dict[tuple[str, str], Stat], mode: str) -> str:
    plain = ", ".join(f"{NAMES[t]} {_fmt_cut(cuts[(mode, t)].mean)}" for t in TCPS)
    lle = ", ".join(f"{NAMES[t]} {_fmt_cut(cuts[(mode, f'lle_{t}')].mean)}" for t in TCPS)
    return (
        f"Zero points without LLE-TCP: {plain}; with it: {lle}. Every version runs in the same "
        "20-segment window, so its window rule hardly acts: the versions fail at nearly the "
        "same PER, set by how often the MAC gives a frame up (each attempt needs every frame "
        "of the exchange through: data and MAC ACK, plus RTS and CTS with RTS/CTS), not by "
        "FAST's window dynamics (finding 'Where the curves reach zero')."
    )


def analyse(ctx: Context) -> None:
    gains = _gains(ctx)
    cuts = cutoffs(ctx)
    sizes = datagrams(ctx.quick)
    for mode in RTS_MODES:
        for size, paper in ((max(sizes), 35.0), (min(sizes), 70.0)):
            ctx.compare(
                f"{RTS_LABELS[mode]}: LLE-TCP's gain at {size} B (mean of six versions)",
                f"{SOURCE}, Fig. 8(b)",
                "%",
                paper,
                _mean_gain(gains, mode, size),
                "paper: 35 % for large, 70 % for small packets",
            )
        for v, paper in (
            ("reno", 0.32),
            ("newreno", 0.32),
            ("lle_reno", 0.36),
            ("lle_newreno", 0.36),
            ("sack", 0.36),
            ("fast", 0.25),
            ("lle_fast", 0.37),
        ):
            c = cuts[(mode, v)]
            if math.isfinite(c.mean):
                ctx.compare(
                    f"{RTS_LABELS[mode]}: PER where {label(v)} reaches zero",
                    f"{SOURCE}, Fig. 9",
                    "PER",
                    paper,
                    c,
                    "SACK's: the paper's 'similar' to LLE-TCP's 0.36" if v == "sack" else "",
                )
        _fig8_claims(ctx, gains, mode)
        _fig9_claims(ctx, cuts, mode)
    _finding(ctx, cuts)
    _figures(ctx, gains)


def _finding(ctx: Context, cuts: dict[tuple[str, str], Stat]) -> None:
    data = ctx["fig9"]
    end = end_time(ctx.quick)
    parts = []
    for mode, rts in RTS_MODES.items():
        t0 = data.value("steady_bps", "reno", per=0.0, rts=rts, stop=end).mean
        t2 = data.value("steady_bps", "reno", per=0.25, rts=rts, stop=end).mean
        parts.append(
            f"{RTS_LABELS[mode]}: Reno {t0 / 1e6:.2f} Mbps error-free, {t2 / 1e6:.2f} at PER "
            f"0.25; zero points "
            + ", ".join(f"{label(v)} {_fmt_cut(cuts[(mode, v)].mean)}" for v in VARIANTS)
        )
    ctx.finding(
        "Where the curves reach zero.",
        "; ".join(parts) + ". With RTS/CTS off a frame is lost for TCP only when seven "
        "attempts of data + MAC ACK all fail ((1 - (1 - p)^2)^7: 1.3 % at p = 0.32), so no "
        "version reaches zero in the range the paper plots. With RTS/CTS before every frame "
        "(ns-2's default) each attempt needs four frames through and the curves fall to zero "
        "within it, LLE-TCP's later, since it sends no TCP ACK over the air. In the paper "
        "FAST fails first (0.25), which a 20-segment window leaves no room for here: the "
        "window rule of every version is capped alike.",
    )
    wide = cutoffs(ctx, "fig9w")
    data = ctx["fig9w"]
    parts = []
    for mode, rts in RTS_MODES.items():
        free = {v: data.value("steady_bps", v, per=0.0, rts=rts, stop=end).mean / 1e6 for v in TCPS}
        parts.append(
            f"{RTS_LABELS[mode]}: error-free "
            + ", ".join(f"{NAMES[v]} {t:.2f}" for v, t in free.items())
            + f" Mbps (spread {100 * _spread(list(free.values())):.0f} %); zero points "
            + ", ".join(f"{label(v)} {_fmt_cut(wide[(mode, v)].mean)}" for v in VARIANTS)
        )
    ctx.finding(
        f"With a {BIG_WINDOW} receiver window instead of ns-2's 20 segments.",
        "; ".join(parts) + ". The windows now open until the access point's FIFO overflows, "
        "so the versions part without errors (Fig. 8's 'similar' no longer holds for every "
        "one), yet none of them reaches zero much before the others under errors, FAST "
        "included: the paper's early FAST collapse (0.25) is not reproduced by its window "
        "rule here either.",
    )


def _figures(ctx: Context, gains: dict[tuple[str, str, int], Stat]) -> None:
    end = end_time(ctx.quick)
    sizes = datagrams(ctx.quick)
    for fig, x, xlabel in (
        ("fig8", "mss", "TCP/IP datagram size (bytes)"),
        ("fig9", "per", "packet error rate, each direction"),
    ):
        data = ctx[fig]
        with ctx.figure(
            fig,
            f"LLE-TCP {'Fig. 8' if fig == 'fig8' else 'Fig. 9'}: throughput of six TCP versions "
            "without (solid) and with LLE-TCP (dashed), infrastructure network; left RTS/CTS "
            "off, right before every frame; bars: 95 % CI",
            2,
        ) as axes:
            for ax, (mode, rts) in zip(axes, RTS_MODES.items(), strict=True):
                for v in VARIANTS:
                    style = "--" if v.startswith("lle_") else "-"
                    if fig == "fig9":
                        errorbars(
                            ax,
                            data,
                            "steady_bps",
                            x,
                            v,
                            label(v),
                            scale=1e-6,
                            linestyle=style,
                            rts=rts,
                            stop=end,
                        )
                        continue
                    pts = [
                        data.value("steady_bps", v, mss=f"{d - 40}B", rts=rts, stop=end)
                        for d in sizes
                    ]
                    ax.errorbar(
                        sizes,
                        [q.mean / 1e6 for q in pts],
                        yerr=[q.ci / 1e6 for q in pts],
                        capsize=3,
                        marker="o",
                        markersize=4,
                        linestyle=style,
                        label=label(v),
                    )
                ax.set_title(RTS_LABELS[mode], fontsize="small")
                ax.set_xlabel(xlabel)
                ax.set_ylabel("throughput (Mbps)")
                if fig == "fig9":
                    for p in (0.25, 0.32, 0.36, 0.37):
                        ax.axvline(p, color="0.6", linestyle=":", linewidth=0.8)
    with ctx.figure(
        "fig8b",
        "LLE-TCP Fig. 8(b): LLE-TCP's gain per TCP version vs datagram size; bars: 95 % CI; "
        "stars: the paper's 35 % (large) and 70 % (small)",
        2,
    ) as axes:
        for ax, mode in zip(axes, RTS_MODES, strict=True):
            for t in TCPS:
                g = [gains[(mode, t, d)] for d in sizes]
                ax.errorbar(
                    sizes,
                    [x.mean for x in g],
                    yerr=[x.ci for x in g],
                    capsize=3,
                    marker="o",
                    markersize=4,
                    label=NAMES[t],
                )
            ax.plot([1500, min(sizes)], [35.0, 70.0], "k*", markersize=10, label="paper")
            ax.set_title(RTS_LABELS[mode], fontsize="small")
            ax.set_xlabel("TCP/IP datagram size (bytes)")
            ax.set_ylabel("LLE-TCP gain (%)")


EXPERIMENT = Experiment(
    name="lle-fig8-9",
    title="LLE-TCP Figs. 8-9: six TCP versions with and without LLE-TCP, infrastructure",
    paper="D. Kliazovich, F. Granelli, M. Gerla, LLE-TCP (seed 004), §4.4, Figs. 8-9",
    description=(
        "A fixed host behind a 100 Mbps, 5 ms wire, an access point with a 700-packet FIFO "
        "and one 802.11b mobile (Table 3). TCP Reno, NewReno, Westwood, FAST, SACK and "
        "Illinois, each alone and with LLE-TCP's agent on the access point: steady-state "
        "throughput (2 s to 20 s, 3 seeds) against the datagram size without errors "
        "(Fig. 8) and against a uniform packet error rate on every frame, both directions, "
        "with 1000 B datagrams (Fig. 9); LLE-TCP's gain, and the PER where each curve "
        "reaches zero. RTS/CTS off and before every frame."
    ),
    differences=(
        "The paper gives neither its PER points, its RTS/CTS setting nor its windows; it "
        "keeps ns-2's defaults, so we run ns-2's 20-segment window and an ACK per segment, "
        "and both RTS/CTS settings (ns-2's default puts RTS/CTS before every frame). With "
        "that window no version's window rule acts differently, so the six curves coincide; "
        "in the paper they differ at high PER. Westwood, FAST and Illinois came to the "
        "paper as their authors' ns-2 code: here they are NewReno recovery with Westwood+, "
        "FAST (alpha 100) and Illinois window rules (docs/congestion-control.md). Runs are "
        "20 s (the paper's 100 s), throughput from 2 s on. 'Zero' is below 10 % of the "
        "version's error-free throughput, interpolated between our PER points."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="004",
)
