"""TULIP Experiment 5a (Table 2, Fig. 18): bursts of 2, 4, 6 data packets lost every 64 KB.

Seed ``000_*`` §5.3.1. Base ``tulip_burst.toml``: Experiment 1's set-up (42 KB window)
with the core's ``burst`` error model on data frames only. "64KB" is 64,000 B in our
units; the paper most likely meant 65,536 B (it writes 42 KB windows in the 1024 sense).
The full run also sweeps ``every = "64KiB"`` to show that the difference (bursts 2.4 %
rarer) is below the seed-to-seed spread.
"""

from __future__ import annotations

from collections.abc import Sequence

from lastmile.reproduce.experiments._tulip import LABELS, METRICS
from lastmile.reproduce.framework import Campaign, Context, Experiment, Stat

LENGTH = "topology.wireless.errors.length"
EVERY = "topology.wireless.errors.every"
SRC = "TULIP Table 2"
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


def campaigns(quick: bool) -> Sequence[Campaign]:
    return [
        Campaign(
            "exp5a",
            "tulip_burst.toml",
            seeds=2 if quick else 5,
            grid={LENGTH: [2, 4, 6], EVERY: ["64KB"] if quick else ["64KB", "64KiB"]},
            variants=VARIANTS,
            axes={"burst": LENGTH, "every": EVERY},
            metrics=(*METRICS[:5], "wireless_redundant_tx"),
        )
    ]


def analyse(ctx: Context) -> None:
    data = ctx["exp5a"]
    for burst, (tk, sk, td, sd) in TABLE2.items():
        for v, kbps, (dm, ds) in (("tulip", tk, td), ("snoop", sk, sd)):
            t = data.value("throughput_bps", v, burst=burst, every="64KB")
            ctx.compare(
                f"burst {burst}: {LABELS[v]} throughput",
                SRC,
                "kbps",
                kbps,
                Stat(t.mean / 1e3, t.ci / 1e3, t.n),
            )
            d = data.value("delay_mean_s", v, burst=burst, every="64KB")
            ctx.compare(
                f"burst {burst}: {LABELS[v]} mean delay",
                SRC,
                "ms",
                dm,
                Stat(d.mean * 1e3, d.ci * 1e3, d.n),
            )
            sd_ = data.value("delay_std_s", v, burst=burst, every="64KB")
            ctx.compare(
                f"burst {burst}: {LABELS[v]} delay std",
                SRC,
                "ms",
                ds,
                Stat(sd_.mean * 1e3, sd_.ci * 1e3, sd_.n),
            )
        if not ctx.quick:
            k = data.value("throughput_bps", "tulip", burst=burst, every="64KiB")
            ctx.compare(
                f"burst {burst}: TULIP throughput, every 65,536 B (sensitivity)",
                SRC,
                "kbps",
                tk,
                Stat(k.mean / 1e3, k.ci / 1e3, k.n),
            )
        tul = data.value("throughput_bps", "tulip", burst=burst, every="64KB").mean
        sno = data.value("throughput_bps", "snoop", burst=burst, every="64KB").mean
        ctx.claim(
            f"burst {burst}: TULIP's throughput above Snoop's",
            SRC,
            tul > sno,
            f"TULIP {tul / 1e3:.0f} kbps, Snoop {sno / 1e3:.0f} kbps",
        )
    tuls = [data.value("throughput_bps", "tulip", burst=b, every="64KB").mean for b in TABLE2]
    ctx.claim(
        "TULIP's throughput falls as bursts grow (2 > 4 > 6)",
        SRC,
        tuls[0] > tuls[1] > tuls[2],
        " > ".join(f"{t / 1e3:.0f}" for t in tuls) + " kbps",
    )
    with ctx.figure(
        "table2",
        "TULIP Table 2: throughput (a) and delay mean ± std (b) vs burst "
        "length, one burst every 64 KB",
        2,
    ) as (a, b):
        import numpy as np

        bursts = np.array(list(TABLE2), dtype=float)
        for v in VARIANTS:
            xs, m, ci = data.series("throughput_bps", "burst", v, every="64KB")
            a.errorbar(xs, m / 1e3, yerr=ci / 1e3, marker="o", capsize=3, label=f"{LABELS[v]}")
            a.plot(
                bursts,
                [TABLE2[int(x)][0 if v == "tulip" else 1] for x in bursts],
                "s--",
                label=f"{LABELS[v]} (paper)",
            )
            _, dmean, _ = data.series("delay_mean_s", "burst", v, every="64KB")
            _, dstd, _ = data.series("delay_std_s", "burst", v, every="64KB")
            b.errorbar(xs, dmean * 1e3, yerr=dstd * 1e3, marker="o", capsize=3, label=LABELS[v])
            b.errorbar(
                bursts + 0.1,
                [_delay(int(x), v)[0] for x in bursts],
                yerr=[_delay(int(x), v)[1] for x in bursts],
                fmt="s--",
                capsize=3,
                label=f"{LABELS[v]} (paper)",
            )
        a.set_ylabel("throughput (kbps)")
        b.set_ylabel("packet delay, mean ± std (ms)")
        for ax in (a, b):
            ax.set_xlabel("burst length (consecutive data packets lost)")
    _fig18(ctx)


def _delay(burst: int, variant: str) -> tuple[int, int]:
    """Table 2's delay (mean, std) in ms for `variant` at `burst`."""
    row = TABLE2[burst]
    return row[2] if variant == "tulip" else row[3]


def _fig18(ctx: Context) -> None:
    with ctx.figure(
        "fig18", "TULIP Fig. 18: recovery from a burst of 6 lost packets: TULIP (a), Snoop (b)", 2
    ) as axes:
        for ax, (v, over) in zip(axes, VARIANTS.items(), strict=True):
            run = ctx.run_traced("tulip_burst.toml", 1, {**over, LENGTH: 6}, ["wireless_tx"])
            tx = run.trace("wireless_tx")
            window = tx[(tx["time_s"] > 0.4).to_numpy() & (tx["time_s"] < 1.6).to_numpy()]
            seq_col = "seq" if "seq" in window.columns else window.columns[1]
            lost = window["lost"].to_numpy().astype(bool)
            ax.plot(window["time_s"][~lost], window[seq_col][~lost], "b.", label="delivered")
            ax.plot(window["time_s"][lost], window[seq_col][lost], "rx", label="lost")
            ax.set_xlabel("time (s)")
            ax.set_ylabel(f"wireless transmission ({seq_col})")
            ax.set_title(LABELS[v], fontsize="small")


EXPERIMENT = Experiment(
    name="tulip-exp5a",
    title="TULIP Experiment 5a: burst losses (Table 2, Fig. 18)",
    paper="C. Parsa and J.J. Garcia-Luna-Aceves, TULIP (seed 000), §5.3.1, Table 2, Fig. 18",
    description=(
        "Bursts of 2, 4 or 6 consecutive data packets lost, one burst every 64 KB of data, "
        "42 KB window, TULIP vs Snoop over FAMA-NCS; otherwise Experiment 1's set-up."
    ),
    differences=(
        "Our throughputs are higher than Table 2's (no other errors, and our FAMA-NCS "
        "constants cost less airtime than the paper's), and our delays lower, but the "
        "ordering and the trend with burst length are the paper's. Our Snoop again makes "
        "redundant wireless transmissions the paper's does not (see Experiment 1)."
    ),
    campaigns=campaigns,
    analyse=analyse,
)
