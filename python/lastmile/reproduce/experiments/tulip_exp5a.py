"""TULIP Experiment 5a (Table 2, Fig. 18): bursts of 2, 4, 6 data packets lost every 64 KB.

Seed ``000_*`` §5.3.1. Base ``tulip_burst.toml``: Experiment 1's set-up (42 KB window)
with the core's ``burst`` error model on data frames only. "64KB" is 64,000 B in our
units; the paper most likely meant 65,536 B (it writes 42 KB windows in the 1024 sense).
The full run also sweeps ``every = "64KiB"`` (bursts 2.4 % rarer) as a sensitivity.

Series added to find out why we differ: Snoop over the ideal MAC (what
does FAMA-NCS's floor acquisition cost it?), and TULIP and Snoop with FAMA-NCS
settings the papers leave open (our throughput is about 30 % above Table 2's): the backoff
counted in RTS-long slots, and a CTS twice the RTS.

Fig. 18 redraws the paper's view of one burst of 6: the data segments on the radio (no
ACKs), numbered in segments from the first of the run, around the first burst, with the
lost ones marked: TULIP resends the six at once, Snoop one by one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lastmile.reproduce.experiments._tulip import LABELS, METRICS, SNOOP_IDEAL, delay_why
from lastmile.reproduce.framework import (
    Campaign,
    Context,
    Experiment,
    NotClaim,
    Published,
    paper_marks,
    scaled,
    spread_bars,
)
from lastmile.reproduce.words import slightly_above

LENGTH = "topology.wireless.errors.length"
EVERY = "topology.wireless.errors.every"
SCENARIO = "tulip_burst.toml"
SRC = "TULIP Table 2"
SEGMENT_BYTES = 1400
#: Table 2: burst → (TULIP kbps, Snoop kbps, TULIP delay ms ± std, Snoop delay ms ± std).
TABLE2: dict[int, tuple[float, float, tuple[int, int], tuple[int, int]]] = {
    2: (587.3, 562.6, (540, 56), (582, 60)),
    4: (550.0, 527.6, (579, 74), (621, 84)),
    6: (516.1, 496.4, (618, 98), (660, 114)),
}
VARIANTS = {
    "tulip": {"topology.wireless.link": "tulip"},
    "snoop": {"topology.wireless.link": "none", "base_station.agent": "snoop"},
}
#: FAMA-NCS's backoff in the unit of its analysis, an RTS's airtime plus 2τ (352 + 2 µs at
#: 1 Mbps), with windows of 8 to 256 such slots (mechanism-notes §8), and a CTS twice the
#: RTS ("lasts much longer than the RTS", the MONET '99 abstract): the FAMA-NCS settings the
#: papers leave open, as sensitivity runs.
FAMA_RTS_SLOT = {
    "topology.wireless.mac.slot": "354us",
    "topology.wireless.mac.cw_min": 7,
    "topology.wireless.mac.cw_max": 255,
}
FAMA_LONG_CTS = {"topology.wireless.mac.cts_bytes": 40}
SENSITIVITY = {
    "snoop_ideal": SNOOP_IDEAL,
    "tulip_rtsslot": {"topology.wireless.link": "tulip", **FAMA_RTS_SLOT},
    "snoop_rtsslot": {**VARIANTS["snoop"], **FAMA_RTS_SLOT},
    "tulip_longcts": {"topology.wireless.link": "tulip", **FAMA_LONG_CTS},
}

Q_TABLE2 = (
    "However, this experiment is still interesting to show, because it indicates that TULIP "
    "provides smaller delays and slightly better throughput [...] than Snoop, even in such "
    "rare cases in which the MAC layer manages to send multiple packets into the channel "
    "that reach the receiver in error, even though the corresponding RTS and CTS packets "
    "did not."
)
Q_FIG18_LOSSES = (
    "It should also be noted that in this transfer, Snoop only suffers from 4 original packet "
    "losses (and 2 retransmissions), whereas 6 original packets are dropped for TULIP."
)
Q_CAPTION = (
    "Experiment 5a: Throughput of TULIP and Snoop in the presence of bursts of length 2,4 "
    "and 6 packets."
)


def campaigns(quick: bool) -> Sequence[Campaign]:
    seeds = 2 if quick else 5
    metrics = (*METRICS[:5], "wireless_redundant_tx", "agent_persist_retransmissions")
    return [
        Campaign(
            "exp5a",
            SCENARIO,
            seeds,
            grid={LENGTH: [2, 4, 6], EVERY: ["64KB"] if quick else ["64KB", "64KiB"]},
            variants=VARIANTS,
            axes={"burst": LENGTH, "every": EVERY},
            metrics=metrics,
            mechanisms=tuple(VARIANTS),
        ),
        Campaign(
            "mac",
            SCENARIO,
            seeds,
            grid={LENGTH: [2, 4, 6]},
            variants=SENSITIVITY,
            axes={"burst": LENGTH},
            metrics=metrics,
            mechanisms=tuple(SENSITIVITY),
        ),
    ]


def _table2(ctx: Context) -> None:
    data = ctx["exp5a"]
    for burst, (tk, sk, td, sd) in TABLE2.items():
        for v, kbps, (dm, ds) in (("tulip", tk, td), ("snoop", sk, sd)):
            for metric, paper, unit, k, what in (
                ("throughput_bps", kbps, "kbps", 1e-3, "throughput"),
                ("delay_mean_s", dm, "ms", 1e3, "mean delay"),
                ("delay_std_s", ds, "ms", 1e3, "delay std"),
            ):
                ctx.compare(
                    f"burst {burst}: {LABELS[v]} {what}",
                    SRC,
                    unit,
                    paper,
                    scaled(data.value(metric, v, burst=burst, every="64KB"), k),
                    ref=f"Table 2 burst {burst} {v} {what}",
                )
        if not ctx.quick:
            ctx.compare(
                f"burst {burst}: TULIP throughput, every 65,536 B (sensitivity)",
                SRC,
                "kbps",
                tk,
                scaled(data.value("throughput_bps", "tulip", burst=burst, every="64KiB"), 1e-3),
                role="sensitivity",
            )


def _at(ctx: Context, metric: str, v: str, burst: int) -> float:
    return ctx["exp5a"].value(metric, v, burst=burst, every="64KB").mean


def claim_throughput(ctx: Context) -> None:
    tput = {(v, b): _at(ctx, "throughput_bps", v, b) for v in VARIANTS for b in TABLE2}
    gaps = {b: 100 * (tput[("tulip", b)] / tput[("snoop", b)] - 1) for b in TABLE2}
    ctx.claim(
        "TULIP's throughput slightly better than Snoop's at every burst length",
        "TULIP §5.3.1, Table 2",
        all(slightly_above(tput[("tulip", b)], tput[("snoop", b)]) for b in TABLE2),
        ", ".join(
            f"burst {b}: TULIP {tput[('tulip', b)] / 1e3:.0f} / Snoop "
            f"{tput[('snoop', b)] / 1e3:.0f} kbps ({g:+.1f} %)"
            for b, g in gaps.items()
        ),
        quote=Q_TABLE2,
        band="at every burst length TULIP's mean throughput above Snoop's by at most 10 % of "
        "it ('slightly better'; Table 2: 4.4, 4.2, 4.0 %)",
        explanation=lambda: (
            "Our Snoop over FAMA-NCS loses "
            f"{100 * (1 - tput[('snoop', 6)] / tput[('snoop', 2)]):.0f} % from bursts of 2 to "
            f"6, TULIP {100 * (1 - tput[('tulip', 6)] / tput[('tulip', 2)]):.0f} %; the "
            f"paper's Snoop {100 * (1 - TABLE2[6][1] / TABLE2[2][1]):.0f} %, its TULIP "
            f"{100 * (1 - TABLE2[6][0] / TABLE2[2][0]):.0f} % (finding 'Snoop and the MAC')."
        ),
    )


def claim_delay(ctx: Context) -> None:
    delay = {(v, b): _at(ctx, "delay_mean_s", v, b) for v in VARIANTS for b in TABLE2}
    worse = [b for b in TABLE2 if not delay[("tulip", b)] < delay[("snoop", b)]]
    ctx.claim(
        "TULIP provides smaller delays than Snoop at every burst length",
        "TULIP §5.3.1, Table 2",
        not worse,
        ", ".join(
            f"burst {b}: TULIP {delay[('tulip', b)] * 1e3:.0f}, Snoop "
            f"{delay[('snoop', b)] * 1e3:.0f} ms"
            for b in TABLE2
        ),
        quote=Q_TABLE2,
        band="at every burst length TULIP's mean packet delay below Snoop's (means)",
        explanation=lambda: delay_why(ctx, SCENARIO, {"burst 2": {LENGTH: 2}}),
    )


def _fig18_losses(ctx: Context) -> dict[str, tuple[int, int]]:
    """Per protocol, the first burst's lost frames: (originals, retransmissions), seed 1."""
    out = {}
    for v, over in VARIANTS.items():
        run = ctx.run_traced(SCENARIO, 1, {**over, LENGTH: 6}, ["wireless_tx"])
        w = _fig18_window(run.trace("wireless_tx"))
        burst = w[w["lost"].to_numpy().astype(bool)].head(6)
        retx = int(burst["retransmission"].sum())
        out[v] = (len(burst) - retx, retx)
    return out


def claim_fig18(ctx: Context) -> None:
    lost = ctx.quantity("fig18_losses", lambda: _fig18_losses(ctx))
    ctx.claim(
        "Fig. 18, a burst of 6: TULIP loses 6 original packets, Snoop 4 originals and 2 "
        "retransmissions",
        "TULIP §5.3.1, Fig. 18",
        lost["tulip"] == (6, 0) and lost["snoop"] == (4, 2),
        ", ".join(f"{LABELS[v]}: {o} originals, {r} retransmissions" for v, (o, r) in lost.items())
        + " (the first burst of 6 lost frames, seed 1)",
        quote=Q_FIG18_LOSSES,
        band="in the first burst of six lost data frames of one run (the paper shows one): "
        "TULIP's six all originals; Snoop's four originals and two retransmissions (counts as "
        "written)",
        explanation=lambda: (
            "Our burst model drops six consecutive data frames on the air, whichever they "
            "are: Snoop resends a lost segment only after two duplicate ACKs or its timer, "
            "which come back after the burst has passed, so all six it loses are originals."
            if lost["snoop"][1] == 0
            else "Fig. 18 shows which of Snoop's frames the burst caught."
        ),
    )


def _findings(ctx: Context) -> None:
    data, mac = ctx["exp5a"], ctx["mac"]
    rows = []
    for b, (tk, _sk, (td, _), _) in TABLE2.items():
        t = data.value("throughput_bps", "tulip", burst=b, every="64KB").mean
        d = data.value("delay_mean_s", "tulip", burst=b, every="64KB").mean
        rows.append(
            f"burst {b}: ours {t * d / 8e3:.1f} KB, paper {tk * 1e3 * td / 1e3 / 8e3:.1f} KB; "
            f"per packet ours {SEGMENT_BYTES * 8 / t * 1e3:.1f} ms, paper "
            f"{SEGMENT_BYTES * 8 / (tk * 1e3) * 1e3:.1f} ms"
        )

    def kbps(v: str) -> str:
        return ", ".join(
            f"{mac.value('throughput_bps', v, burst=b).mean / 1e3:.0f}" for b in TABLE2
        )

    ctx.finding(
        "Why our TULIP is about 30 % faster and its delay 25 % lower (FAMA-NCS timing).",
        "TULIP's mean delay times its throughput (the data queued, by Little's law), and the "
        "time per 1400-byte packet: " + "; ".join(rows) + ". The delays differ as the "
        "throughputs do; the question is what the paper's radio spends per packet that ours "
        "does not. FAMA-NCS's RTS, CTS, turnaround and propagation are microseconds each at "
        "1 Mbps (ours: RTS 352 µs and CTS 360 µs with their PLCP headers, turnaround 5 µs, "
        "a backoff of 1 + U[0, 31] slots of 20 µs after each exchange). TULIP's throughput "
        "at bursts 2, 4, 6 (kbps; Table 2: 587, 550, 516): as run, "
        + ", ".join(
            f"{data.value('throughput_bps', 'tulip', burst=b, every='64KB').mean / 1e3:.0f}"
            for b in TABLE2
        )
        + f"; with the backoff in RTS-long slots (354 µs, windows 8-256) {kbps('tulip_rtsslot')}"
        f" (Snoop: {kbps('snoop_rtsslot')}); with a CTS twice the RTS {kbps('tulip_longcts')}. "
        "The FAMA-NCS paper (Fullmer "
        "and Garcia-Luna-Aceves, SIGCOMM '97) was not retrievable with our tools (its text is "
        "not in the indexed corpora; the design notes record the same), so its own slot, "
        "window and CTS length stay unknown; its MONET '99 abstract says the CTS 'lasts much "
        "longer than the RTS', where ours is one byte (8 µs) longer, the least its dominance "
        "rule allows.",
    )
    parts = []
    for b in TABLE2:
        s = data.value("throughput_bps", "snoop", burst=b, every="64KB").mean / 1e3
        p = data.value("agent_persist_retransmissions", "snoop", burst=b, every="64KB").mean
        si = mac.value("throughput_bps", "snoop_ideal", burst=b).mean / 1e3
        pi = mac.value("agent_persist_retransmissions", "snoop_ideal", burst=b).mean
        parts.append(
            f"burst {b}: over FAMA-NCS {s:.0f} kbps with {p:.0f} persist retransmissions, "
            f"over the ideal MAC {si:.0f} kbps with {pi:.0f}"
        )
    ctx.finding(
        "Snoop and the MAC.",
        "; ".join(parts) + ". Without floor acquisition the mobile's ACKs, duplicate ACKs "
        "included, need no floor of their own: the difference is what FAMA-NCS costs them.",
    )


def _table2_figure(ctx: Context) -> None:
    data = ctx["exp5a"]
    import numpy as np

    with ctx.figure(
        "table2",
        "TULIP Table 2: throughput (a; bars: 95 % CI) and delay (b; bars: the packets' "
        "delay standard deviation) vs burst length; squares: the paper's Table 2",
        2,
    ) as (a, b):
        bursts = np.array(list(TABLE2), dtype=float)
        for v in VARIANTS:
            xs, m, ci = data.series("throughput_bps", "burst", v, every="64KB")
            a.errorbar(xs, m / 1e3, yerr=ci / 1e3, marker="o", capsize=3, label=LABELS[v])
            paper_marks(
                a,
                bursts,
                [TABLE2[int(x)][0] if v == "tulip" else TABLE2[int(x)][1] for x in bursts],
                f"{LABELS[v]} (paper)",
                markeredgecolor=a.get_lines()[-1].get_color(),
            )
            _, dmean, _ = data.series("delay_mean_s", "burst", v, every="64KB")
            _, dstd, _ = data.series("delay_std_s", "burst", v, every="64KB")
            spread_bars(b, xs - 0.05, dmean * 1e3, dstd * 1e3, LABELS[v])
            spread_bars(
                b,
                bursts + 0.05,
                [_delay(int(x), v)[0] for x in bursts],
                [_delay(int(x), v)[1] for x in bursts],
                f"{LABELS[v]} (paper)",
                marker="s",
                linestyle="--",
            )
        a.set_ylabel("throughput (kbps)")
        b.set_ylabel("packet delay, mean ± std (ms)")
        for ax in (a, b):
            ax.set_xlabel("burst length (consecutive data packets lost)")
            ax.set_xticks(bursts)


def _delay(burst: int, variant: str) -> tuple[int, int]:
    """Table 2's delay (mean, std) in ms for `variant` at `burst`."""
    row = TABLE2[burst]
    return row[2] if variant == "tulip" else row[3]


def _fig18_window(tx: Any) -> Any:
    """The data frames around the first burst: segment number from the first data frame
    (sequence numbers modulo 2^32), whether each was lost, and whether it was a
    retransmission (its sequence number went out before)."""
    import numpy as np

    data = tx[tx["data"].to_numpy().astype(bool)]
    seq = data["seq"].to_numpy().astype(np.int64)
    offset = (seq - seq[0]) % (1 << 32)
    lost = data["lost"].to_numpy().astype(bool)
    t = data["time_s"].to_numpy()
    burst_at = float(t[lost][0]) if lost.any() else float(t[0])
    keep = (t > burst_at - 0.3) & (t < burst_at + 1.0)
    return data.assign(
        segment=offset // SEGMENT_BYTES,
        retransmission=data["seq"].duplicated().to_numpy(),
    )[keep]


def _fig18(ctx: Context) -> None:
    with ctx.figure(
        "fig18",
        "TULIP Fig. 18: data segments on the radio around the first burst of 6 lost "
        "packets: TULIP (a), Snoop (b); segments numbered from the first of the run; one run "
        "(seed 1), no bars",
        2,
    ) as axes:
        for ax, (v, over) in zip(axes, VARIANTS.items(), strict=True):
            run = ctx.run_traced(SCENARIO, 1, {**over, LENGTH: 6}, ["wireless_tx"])
            w = _fig18_window(run.trace("wireless_tx"))
            lost = w["lost"].to_numpy().astype(bool)
            retx = w["retransmission"].to_numpy().astype(bool)
            for mask, style, label in (
                (~lost & ~retx, "b.", "sent, delivered"),
                (retx & ~lost, "g^", "retransmission, delivered"),
                (lost, "rx", "lost"),
            ):
                ax.plot(w["time_s"][mask], w["segment"][mask], style, markersize=5, label=label)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("segment number (from the first)")
            ax.set_title(LABELS[v], fontsize="small")


def _delay_parts(ctx: Context, variant: str, burst: int) -> dict[str, tuple[float, float]]:
    """One run (seed 1) traced: each segment's delay from its first transmission by the
    source to its in-order delivery; the time to its first attempt on the radio (the queue),
    to its first correct frame (the queue and loss repair), and the wait behind an earlier
    hole; (mean, std) in ms."""
    import numpy as np

    run = ctx.run_traced(SCENARIO, 1, {**VARIANTS[variant], LENGTH: burst}, ["seq", "wireless_tx"])
    seq, tx = run.trace("seq"), run.trace("wireless_tx")
    sent = seq[~seq["ack"].to_numpy()].drop_duplicates("offset").set_index("offset")["time_s"]
    data = tx[tx["data"].to_numpy()]
    tried = data.drop_duplicates("offset").set_index("offset")["time_s"]
    ok = data[~data["lost"].to_numpy()].drop_duplicates("offset").sort_values("offset")
    first = ok["time_s"].to_numpy()
    delivered = np.maximum.accumulate(first)
    start = sent.reindex(ok["offset"]).to_numpy()
    keep = ~np.isnan(start)
    parts = {
        "delay": delivered - start,
        "to the first attempt": tried.reindex(ok["offset"]).to_numpy() - start,
        "to the first correct receipt": first - start,
        "behind a hole": delivered - first,
    }
    return {k: (1e3 * float(v[keep].mean()), 1e3 * float(v[keep].std())) for k, v in parts.items()}


def _delay_spread(ctx: Context) -> None:
    burst = 2
    parts = {v: _delay_parts(ctx, v, burst) for v in VARIANTS}
    paper = {"tulip": TABLE2[burst][2], "snoop": TABLE2[burst][3]}
    ctx.finding(
        "Why Snoop's delay varies more than the paper's (Table 2's deviations).",
        f"Burst {burst}, seed 1, traced, per segment (ms, mean ± standard deviation; the "
        "radio's times are frame starts): "
        + "; ".join(
            f"{LABELS[v]}: "
            + ", ".join(f"{k} {m:.0f} ± {sd:.0f}" for k, (m, sd) in p.items())
            + f" (Table 2: {paper[v][0]} ± {paper[v][1]})"
            for v, p in parts.items()
        )
        + ". Most of Snoop's spread is before the first attempt, in the queue: the "
        "mobile's TCP ACKs contend with the base station's data for the floor, so the share "
        "of the window waiting at the mobile as ACKs, and with it the base station's queue, "
        "wanders (the claim on delays gives the means); the rest is the wait behind a hole "
        "while Snoop's duplicate ACKs come back through the same contention.",
    )


def analyse(ctx: Context) -> None:
    _table2(ctx)
    _findings(ctx)
    _delay_spread(ctx)
    _table2_figure(ctx)
    _fig18(ctx)


EXPERIMENT = Experiment(
    name="tulip-exp5a",
    title="TULIP Experiment 5a: burst losses (Table 2, Fig. 18)",
    paper="C. Parsa and J.J. Garcia-Luna-Aceves, TULIP (seed 000), §5.3.1, Table 2, Fig. 18",
    description=(
        "Bursts of 2, 4 or 6 consecutive data packets lost, one burst every 64 KB of data, "
        "42 KB window, TULIP vs Snoop over FAMA-NCS; otherwise Experiment 1's set-up. "
        "Series added to test why we differ: Snoop over the ideal MAC, TULIP without MAC "
        "acceleration."
    ),
    differences=(
        "Our throughputs are about 30 % above Table 2's and our delays about 25 % below, by "
        "the same factor: the data queued (delay times throughput) is the paper's, so the "
        "paper's radio costs about 4-5 ms more per packet than our FAMA-NCS (see the "
        "findings). Snoop's mean delay is below TULIP's: its TCP ACKs wait at the mobile for a "
        "floor of their own and hold part of its window there, where TULIP's ride in the "
        "data's floor (see the claim)."
    ),
    campaigns=campaigns,
    analyse=analyse,
    seed="000",
    claims=(claim_throughput, claim_delay, claim_fig18),
    published=Published(
        points=[
            (
                "exp5a",
                metric,
                v,
                {"burst": burst, "every": "64KB"},
                (tk if v == "tulip" else sk) * 1e3
                if metric == "throughput_bps"
                else (td if v == "tulip" else sd)[0] / 1e3,
            )
            for burst, (tk, sk, td, sd) in TABLE2.items()
            for v in VARIANTS
            for metric in ("throughput_bps", "delay_mean_s")
        ],
        numbers={"fig18_losses": {"tulip": (6, 0), "snoop": (4, 2)}},
    ),
    settings=(
        "The bursts: 'one burst every 64KB of data', read as every 64,000 bytes (64 KB in "
        "our units); every 65,536 bytes runs beside it as a sensitivity series.",
        "The rest is Experiment 1's set-up (tulip_burst.toml), with the FAMA-NCS constants "
        "of the TULIP experiments.",
    ),
    not_claims=(
        NotClaim(
            Q_CAPTION,
            "TULIP Table 2",
            "A caption, not a claim: the table's numbers are compared one by one.",
        ),
    ),
)
