"""TULIP Experiment 5b (Fig. 19): a per-bit two-state Markov channel, pedestrian speed.

Seed ``000_*`` §5.3.2. Base ``tulip_markov.toml``: Experiment 1's set-up with a per-bit
Gilbert-Elliott channel in both radio directions; Bad-state bit loss 0.5, Good-state BER
0.01...100 per million (the sweep's axis).

The paper takes the chain from Lettieri et al. and gives only "pedestrian speed 2 km/h".
Our per-bit transition probabilities come from Rayleigh fading statistics (Jakes): carrier
2.4 GHz (802.11 DSSS) at 2 km/h gives a Doppler frequency f_d = v/lambda = 4.4 Hz; with a 20 dB
fade margin (rho^2 = 0.01) the mean fade lasts (e^rho^2 - 1)/(rho f_d sqrt(2π)) = 9.1 ms and fades
come at N = sqrt(2π) f_d rho e^-rho^2 = 1.09 per second (mean Good 0.91 s). At 1 Mbps:
p_bad_to_good = 1/9,100 = 1.1e-4 and p_good_to_bad = 1/908,000 = 1.1e-6 per bit. A 10 dB
margin (fades of 30 ms, 9.5 % of the time) is far harsher: TULIP then falls to about
180 kbps at 0.01 per million and Snoop nearly stops (checked while choosing).
"""

from __future__ import annotations

from collections.abc import Sequence

from lastmile.reproduce.experiments._tulip import LABELS, METRICS, VARIANTS, measured_loss
from lastmile.reproduce.framework import Campaign, Context, Experiment, Stat, errorbars

GOOD = "topology.wireless.errors.good_loss"
REV_GOOD = "topology.wireless.reverse_errors.good_loss"
SRC = "TULIP Fig. 19"


def _bers(quick: bool) -> list[float]:
    per_million = [0.01, 1, 30, 100] if quick else [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100]
    return [b * 1e-6 for b in per_million]


def campaigns(quick: bool) -> Sequence[Campaign]:
    bers = _bers(quick)
    return [
        Campaign(
            "exp5b",
            "tulip_markov.toml",
            seeds=2 if quick else 5,
            zip={GOOD: bers, REV_GOOD: bers},
            variants=VARIANTS,
            axes={"ber": GOOD},
            derive=measured_loss,
            metrics=METRICS,
        )
    ]


def analyse(ctx: Context) -> None:
    data = ctx["exp5b"]
    bers = _bers(ctx.quick)

    def tput(v: str, b: float) -> float:
        return data.value("throughput_bps", v, ber=b).mean

    for ber in bers:
        for v in VARIANTS:
            t = data.value("throughput_bps", v, ber=ber)
            ctx.compare(
                f"{LABELS[v]} throughput, Good-state BER {ber * 1e6:g} per million",
                SRC,
                "kbps",
                None,
                Stat(t.mean / 1e3, t.ci / 1e3, t.n),
                "the paper gives the curve only",
            )
    above = [b for b in bers if b > 10e-6]
    behind = [f"{b * 1e6:g}" for b in above if not tput("snoop", b) < tput("tulip", b)]
    ctx.claim(
        "Snoop falls below TULIP above 10 per million",
        SRC,
        not behind,
        ", ".join(
            f"{b * 1e6:g}: TULIP {tput('tulip', b) / 1e3:.0f} / Snoop "
            f"{tput('snoop', b) / 1e3:.0f} kbps"
            for b in above
        ),
    )
    low, mid = bers[0], next(b for b in bers if b >= 1e-6)
    ctx.claim(
        "TCP alone is fine at 0.01 per million (within 20 % of TULIP) and degrades "
        "above 0.1 per million",
        SRC,
        tput("nollc", low) >= 0.8 * tput("tulip", low)
        and tput("nollc", mid) < 0.8 * tput("nollc", low),
        f"no LL {tput('nollc', low) / 1e3:.1f} kbps at 0.01, "
        f"{tput('nollc', mid) / 1e3:.1f} kbps at {mid * 1e6:g}; TULIP "
        f"{tput('tulip', low) / 1e3:.0f} kbps at 0.01",
    )
    with ctx.figure(
        "fig19", "TULIP Fig. 19: Markov fading at 2 km/h: throughput (a), delay mean ± std (b)", 2
    ) as (a, b):
        for v in VARIANTS:
            errorbars(a, data, "throughput_bps", "ber", v, LABELS[v], scale=1e-3, x_scale=1e6)
        for v in ("tulip", "snoop"):
            xs, m, _ = data.series("delay_mean_s", "ber", v)
            _, s, _ = data.series("delay_std_s", "ber", v)
            b.errorbar(xs * 1e6, m * 1e3, yerr=s * 1e3, marker="o", capsize=3, label=LABELS[v])
        a.set_ylabel("throughput (kbps)")
        b.set_ylabel("packet delay, mean ± std (ms)")
        for ax in (a, b):
            ax.set_xscale("log")
            ax.set_xlabel("Good-state BER (bits per million)")


EXPERIMENT = Experiment(
    name="tulip-exp5b",
    title="TULIP Experiment 5b: Markov fading at pedestrian speed (Fig. 19)",
    paper="C. Parsa and J.J. Garcia-Luna-Aceves, TULIP (seed 000), §5.3.2, Fig. 19",
    description=(
        "A per-bit Good/Bad Markov channel (Bad-state bit loss 50 %, Good-state BER "
        "0.01-100 per million, fades of a pedestrian at 2 km/h: mean Bad 9.1 ms, mean "
        "Good 0.91 s) in both radio directions: TULIP, Snoop and no LL over FAMA-NCS."
    ),
    differences=(
        "The paper does not give its transition probabilities; ours (Rayleigh fading, "
        "2.4 GHz, 20 dB fade margin) are a choice, and the fade statistics dominate the "
        "results at low Good-state BER. Every fade wipes out the frames in flight in both "
        "directions, which TCP alone (500 ms clock) turns into timeouts; our no-LL "
        "therefore degrades already at 0.01 per million, not only above 0.1."
    ),
    campaigns=campaigns,
    analyse=analyse,
)
