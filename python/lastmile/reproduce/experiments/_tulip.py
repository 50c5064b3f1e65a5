"""What the TULIP experiments share: the base scenario, the protocols, their metrics.

C. Parsa and J.J. Garcia-Luna-Aceves, "Improving TCP Performance over Wireless Networks at
the Link Layer" (seed ``000_*``), §5. Base scenario ``tulip.toml`` (Fig. 8, TULIP over
FAMA-NCS, Reno, Poisson 1 Mbps source, 10 MB). The variants keep FAMA-NCS for all:
Snoop and "no LL" cannot use MAC acceleration (§5), so they run with ``link = "none"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from lastmile.reproduce.framework import Campaign, Context, Data, errorbars

SCENARIO = "tulip.toml"
SOURCE = "TULIP"
FWD_BER = "topology.wireless.errors.ber"
REV_BER = "topology.wireless.reverse_errors.ber"
RWND = "flow.0.tcp.rwnd"

VARIANTS: dict[str, dict[str, Any]] = {
    "tulip": {"topology.wireless.link": "tulip"},
    "snoop": {"topology.wireless.link": "none", "base_station.agent": "snoop"},
    "nollc": {"topology.wireless.link": "none", "base_station.agent": "none"},
}
SNOOP_FIX: dict[str, Any] = {
    "topology.wireless.link": "none",
    "base_station.agent": "snoop",
    "base_station.snoop.fix": True,
}
LABELS = {"tulip": "TULIP", "snoop": "Snoop", "snoop_fix": "Snoop w/fix", "nollc": "no LL"}
METRICS = (
    "throughput_bps",
    "completion_s",
    "tcp_timeouts",
    "delay_mean_s",
    "delay_std_s",
    "wireless_goodput_wireless",
    "wireless_redundant_tx",
    "measured_per",
    "ideal_goodput",
)


def measured_loss(runs: pd.DataFrame) -> Mapping[str, pd.Series]:
    """Per run: the data-frame loss rate and TULIP's ideal goodput, 1 - that (Table 1)."""
    per = runs["wireless_data_frames_lost"] / runs["wireless_data_frames_sent"]
    return {"measured_per": per, "ideal_goodput": 1.0 - per}


def ber_campaign(
    name: str, bers: list[float], variants: Mapping[str, Mapping[str, Any]], quick: bool
) -> Campaign:
    """TULIP's BER sweeps (Exps. 1 and 2): the same BER in both directions, windows 42 KB and
    16 KB, every variant, 2 seeds (quick) or 5."""
    return Campaign(
        name,
        SCENARIO,
        seeds=2 if quick else 5,
        grid={RWND: ["42KB", "16KB"]},
        zip={FWD_BER: bers, REV_BER: bers},
        variants=dict(variants),
        axes={"rwnd": RWND, "ber": FWD_BER},
        derive=measured_loss,
        metrics=METRICS,
    )


def per_of(ber: float, packet_bytes: int = 1440) -> float:
    """The paper's arithmetic: PER = 1 - (1 - BER)^bits (15/million → 0.16 at 1440 B)."""
    return float(1.0 - (1.0 - ber) ** (8 * packet_bytes))


def delay_panel(
    ctx: Context, ax: Any, data: Data, variants: Mapping[str, str], **where: Any
) -> None:
    """Mean delay with its standard deviation as bars against BER (Figs. 14, 16, 17)."""
    for variant, label in variants.items():
        xs, mean, _ = data.series("delay_mean_s", "ber", variant, **where)
        _, std, _ = data.series("delay_std_s", "ber", variant, **where)
        ax.errorbar(
            xs * 1e6, mean * 1e3, yerr=std * 1e3, label=label, marker="o", capsize=3, markersize=4
        )
    ax.set_xlabel("BER (bits per million)")
    ax.set_ylabel("packet delay, mean ± std (ms)")


def throughput_vs_ber(
    ctx: Context, data: Data, name: str, caption: str, variants: Mapping[str, Any]
) -> None:
    """Throughput against BER, one panel per receiver window (Figs. 10 and 15)."""
    with ctx.figure(name, caption, 2) as axes:
        for ax, w in zip(axes, ("42KB", "16KB"), strict=True):
            for v in variants:
                errorbars(
                    ax, data, "throughput_bps", "ber", v, LABELS[v], scale=1e-3, x_scale=1e6, rwnd=w
                )
            ax.set_xlabel("BER (bits per million)")
            ax.set_ylabel("throughput (kbps)")
            ax.set_title(f"receiver window {w}", fontsize="small")
