"""TULIP Experiment 2 (Figs. 15-17): BER 15...75 per million, with Snoop and Snoop w/fix.

Seed ``000_*`` §5.2. As Experiment 1 (``tulip.toml``) at higher error rates, adding
"Snoop w/fix" (no rtt samples from retransmitted segments). Delay panels show mean ±
standard deviation, as the paper's do.
"""

from __future__ import annotations

from collections.abc import Sequence

from lastmile.reproduce.experiments._tulip import (
    LABELS,
    SNOOP_FIX,
    VARIANTS,
    ber_campaign,
    delay_panel,
    throughput_vs_ber,
)
from lastmile.reproduce.framework import Campaign, Context, Experiment, Stat

ALL = {**VARIANTS, "snoop_fix": SNOOP_FIX}


def _bers(quick: bool) -> list[float]:
    per_million = [15, 45, 75] if quick else [15, 25, 35, 45, 55, 65, 75]
    return [b * 1e-6 for b in per_million]


def campaigns(quick: bool) -> Sequence[Campaign]:
    return [ber_campaign("exp2", _bers(quick), ALL, quick)]


def analyse(ctx: Context) -> None:
    data = ctx["exp2"]
    bers = _bers(ctx.quick)
    high = [b for b in bers if b >= 30e-6]
    top = bers[-1]

    def tput(v: str, b: float, w: str = "42KB") -> float:
        return data.value("throughput_bps", v, rwnd=w, ber=b).mean

    for w in ("42KB", "16KB"):
        behind = [
            f"{b * 1e6:g}"
            for b in high
            if not tput("tulip", b, w) > max(tput(v, b, w) for v in ("snoop", "snoop_fix", "nollc"))
        ]
        ctx.claim(
            f"{w}: TULIP above Snoop (both) and no LL for BER >= 30 per million",
            "TULIP Fig. 15",
            not behind,
            "above at every BER" if not behind else "not above at " + ", ".join(behind),
        )
    for v in ("snoop", "nollc"):
        ratio = tput("tulip", top) / tput(v, top)
        ctx.compare(
            f"TULIP / {LABELS[v]} throughput at BER {top * 1e6:g}, 42 KB",
            "TULIP §5.2 (up to 3x)",
            "ratio",
            3.0,
            Stat(ratio, float("nan"), 1),
        )
    nollc = tput("nollc", top) / tput("tulip", top)
    ctx.claim(
        "TCP alone nearly stops above 30 per million (< 10 % of TULIP's throughput)",
        "TULIP §5.2",
        nollc < 0.1,
        f"no LL at {100 * nollc:.1f} % of TULIP at {top * 1e6:g}/million",
    )
    over = [b for b in bers if b > 35e-6]
    worse = [
        f"{b * 1e6:g}"
        for b in over
        if not (
            data.value("delay_mean_s", "snoop", rwnd="42KB", ber=b).mean
            > data.value("delay_mean_s", "tulip", rwnd="42KB", ber=b).mean
            and data.value("delay_std_s", "snoop", rwnd="42KB", ber=b).mean
            > data.value("delay_std_s", "tulip", rwnd="42KB", ber=b).mean
        )
    ]
    ctx.claim(
        "Snoop's delay and its deviation exceed TULIP's above 35 per million (42 KB)",
        "TULIP Fig. 16",
        not worse,
        "exceed at every BER" if not worse else "not at " + ", ".join(worse),
    )
    throughput_vs_ber(
        ctx, data, "fig15", "TULIP Fig. 15: throughput at high BER, 42 KB (a) and 16 KB (b)", ALL
    )
    for fig, w in (("fig16", "42KB"), ("fig17", "16KB")):
        with ctx.figure(
            fig,
            f"TULIP Fig. {fig[3:]}: delay mean ± std, {w}: Snoop, Snoop w/fix, "
            "no LL (a); Snoop w/fix, TULIP (b)",
            2,
        ) as (a, b):
            delay_panel(
                ctx, a, data, {v: LABELS[v] for v in ("snoop", "snoop_fix", "nollc")}, rwnd=w
            )
            delay_panel(ctx, b, data, {v: LABELS[v] for v in ("snoop_fix", "tulip")}, rwnd=w)


EXPERIMENT = Experiment(
    name="tulip-exp2",
    title="TULIP Experiment 2: BER 15-75 per million (Figs. 15-17)",
    paper="C. Parsa and J.J. Garcia-Luna-Aceves, TULIP (seed 000), §5.2, Figs. 15-17",
    description=(
        "Experiment 1's set-up at BER 15-75 per million, with Snoop and Snoop w/fix "
        "(no rtt samples from retransmitted segments), windows 42 KB and 16 KB."
    ),
    differences=(
        "As in Experiment 1, our Snoop over FAMA-NCS already trails TULIP at low error "
        "rates (its local timer fires while ACKs wait for the half-duplex floor), so the "
        "crossover the paper places at 30 per million is below our range; above it the "
        "paper's ordering holds. The paper's 'up to 3x' is read from its text; the "
        "table gives our ratios at 75 per million."
    ),
    campaigns=campaigns,
    analyse=analyse,
)
