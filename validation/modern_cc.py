"""Modern congestion control under every mechanism: {Reno, NewReno, SACK, CUBIC, BBR} x
{no link layer, TULIP, Snoop, WTCP, LLE-TCP} on the seeds' two channels.

No seed paper has this table; it asks whether the seeds' mechanisms still help the TCPs in
use today. The channels are the seeds' error processes and paths:

- TULIP's (seed 000, Experiment 1, ``tulip.toml``): 10 Mbps, 1 ms wire; 1 Mbps wireless hop;
  independent bit errors at BER 15e-6 both ways (PER 0.16 for a 1440-byte frame); 1400 B
  segments, 42 KB window.
- WTCP's (seed 001, Fig. 4, ``wtcp.toml``): 10 Mbps, 100 ms wire; the two-state fading
  channel (good 1 s at BER 1e-6, bad 100 ms at BER 1e-2) both ways; 960 B segments, 10 KB
  window; the wireless hop at 1 Mbps (the seed's 800 kbps is not an 802.11 DSSS rate) and
  its 10 ms of propagation moved onto the wire (110 ms): a cell's MAC ACK must come back
  within microseconds, so a 10 ms hop would time every frame out.

One MAC for every mechanism, so that each can run: IEEE 802.11 DCF at 1 Mbps (data and
control frames), long preamble. LLE-TCP needs it (its agent acknowledges on the MAC's
TxSuccess); TULIP runs over it with one MAC attempt per frame (TULIP does the ARQ). "No link
layer" is then 802.11's own ARQ (7 / 4 attempts) alone; a second baseline, "no ARQ", turns
the MAC's retries off (one attempt), the seeds' "no link layer". Snoop and WTCP run on the
base station over the same DCF hop (its retries on). WTCP's base-station buffer is set to
64 KB on TULIP's channel: at its default 20 KB (WTCP Table I, whose window is 10 KB) a 42 KB
window overruns it and the transfer stalls (noted in docs/modern-cc.md).

Every TCP runs with RFC 7323 timestamps (WTCP needs them at the source), a 1 ms clock and
a 200 ms minimum RTO (Linux's; the seeds' 500 / 100 ms ticks would blind BBR), an ACK per
segment, SACK recovery for SACK, CUBIC and BBR (as they run today), the chain's queues. Each
point: a 60 s bulk transfer, throughput = bytes delivered x 8 / 60 s, mean and 95 % CI over
5 seeds. Writes ``validation/results/modern-cc.csv``, ``.md`` and ``docs/modern-cc.png``.

    python validation/modern_cc.py [--seeds N] [--stop 60]
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path
from typing import Any

import lastmile
from lastmile.reproduce.framework import EXPERIMENTS_DIR
from lastmile.sweep.stats import t_quantile

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "validation" / "results"

TCPS: dict[str, dict[str, str]] = {
    "Reno": {"recovery": "reno", "cc": "reno"},
    "NewReno": {"recovery": "newreno", "cc": "reno"},
    "SACK": {"recovery": "sack", "cc": "reno"},
    "CUBIC": {"recovery": "sack", "cc": "cubic"},
    "BBR": {"recovery": "sack", "cc": "bbr"},
}
DCF: dict[str, Any] = {
    "topology.wireless.mac": "dcf",
    "topology.wireless.mac.phy": "802.11b",
    "topology.wireless.rate": "1Mbps",
    "topology.wireless.link": "none",
    "base_station.agent": "none",
}
MECHANISMS: dict[str, dict[str, Any]] = {
    "no ARQ": {
        "topology.wireless.mac.retry_limit_short": 1,
        "topology.wireless.mac.retry_limit_long": 1,
    },
    "802.11 ARQ only": {},
    "TULIP": {"topology.wireless.link": "tulip"},
    "Snoop": {"base_station.agent": "snoop"},
    "WTCP": {"base_station.agent": "wtcp"},
    "LLE-TCP": {"base_station.agent": "lle", "base_station.node": "bs"},
}
CHANNELS: dict[str, tuple[str, dict[str, Any]]] = {
    "TULIP's BER 15e-6": (
        "tulip.toml",
        {
            "flow.0.app": {"kind": "bulk", "bytes": "1GB"},
            "flow.0.tcp": {"mss": "1400B", "rwnd": "42KB"},
            "base_station.wtcp.buffer": "64KB",
        },
    ),
    "WTCP's fading channel": (
        "wtcp.toml",
        {
            "topology.wireless.delay": "1us",
            "topology.wired.delay": "110ms",
            "flow.0.tcp": {
                "mss": "960B",
                "rwnd": "10KB",
            },
        },
    ),
}


#: Today's TCP clock (Linux: 1 ms ticks, 200 ms minimum RTO), not the seeds' 500 / 100 ms:
#: with a 500 ms tick BBR's RTprop is 0.5 s (docs/congestion-control.md).
MODERN = {"timestamps": True, "ack": "every", "timer_granularity": "1ms", "min_rto": "200ms"}


def one(channel: str, mech: str, tcp: str, seed: int, stop_s: float) -> tuple[float, bool]:
    """Throughput (bit/s) of one run, and whether the core's liveness check saw it stall."""
    scenario, extra = CHANNELS[channel]
    overrides: dict[str, Any] = {**DCF, **MECHANISMS[mech], "stop_time": f"{stop_s:g}s"}
    for key, value in extra.items():
        if key == "flow.0.tcp":
            value = {**value, **TCPS[tcp], **MODERN}
        if key == "base_station.wtcp.buffer" and mech != "WTCP":
            continue
        overrides[key] = value
    if mech == "WTCP":
        overrides["base_station.wtcp.source_clock"] = MODERN["timer_granularity"]
    result = lastmile.run(EXPERIMENTS_DIR / scenario, seed=seed, overrides=overrides)
    flow = result.summary["flows"][0]
    return float(flow["bytes_delivered"]) * 8.0 / stop_s, bool(flow["stalled"])


def stat(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.nan
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, t_quantile(0.975, n - 1) * sd / math.sqrt(n)


def measure(seeds: int, stop_s: float, *, echo: bool = False) -> list[dict[str, Any]]:
    """Every row of the table: each channel x mechanism x TCP over seeds 1..`seeds`."""
    rows = []
    for channel in CHANNELS:
        for mech in MECHANISMS:
            for tcp in TCPS:
                runs = [one(channel, mech, tcp, s, stop_s) for s in range(1, seeds + 1)]
                mean, ci = stat([r[0] for r in runs])
                stalled = sum(r[1] for r in runs)
                rows.append(
                    {
                        "channel": channel,
                        "mechanism": mech,
                        "tcp": tcp,
                        "throughput_kbps": mean / 1e3,
                        "ci95_kbps": ci / 1e3,
                        "stalled_runs": stalled,
                        "runs": len(runs),
                    }
                )
                if echo:
                    print(
                        f"{channel:24} {mech:16} {tcp:8} {mean / 1e3:7.1f} ± {ci / 1e3:.1f} "
                        f"kbps ({stalled} of {len(runs)} stalled)",
                        flush=True,
                    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--stop", type=float, default=60.0)
    args = parser.parse_args()
    rows = measure(args.seeds, args.stop, echo=True)
    RESULTS.mkdir(parents=True, exist_ok=True)
    with (RESULTS / "modern-cc.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    write_table(rows)
    draw(rows)


def write_table(rows: list[dict[str, Any]]) -> None:
    (RESULTS / "modern-cc.md").write_text(table(rows))


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown tables of ``validation/results/modern-cc.md``, one per channel."""
    lines = []
    for channel in CHANNELS:
        lines += [
            f"**{channel}** (throughput, kbps, mean ± 95 % CI; a cell counts its runs that "
            "the core's liveness check saw stall)",
            "",
            "| mechanism | " + " | ".join(TCPS) + " |",
            "|---|" + "---|" * len(TCPS),
        ]
        for mech in MECHANISMS:
            cells = [
                f"{r['throughput_kbps']:.0f} ± {r['ci95_kbps']:.0f}"
                + (f" ({r['stalled_runs']} stalled)" if r["stalled_runs"] else "")
                for tcp in TCPS
                for r in rows
                if r["channel"] == channel and r["mechanism"] == mech and r["tcp"] == tcp
            ]
            lines.append(f"| {mech} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def draw(rows: list[dict[str, Any]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(CHANNELS), figsize=(13, 4.4))
    width = 0.8 / len(MECHANISMS)
    for ax, channel in zip(axes, CHANNELS, strict=True):
        for i, mech in enumerate(MECHANISMS):
            sel = [
                r
                for tcp in TCPS
                for r in rows
                if r["channel"] == channel and r["mechanism"] == mech and r["tcp"] == tcp
            ]
            xs = [j + (i - len(MECHANISMS) / 2 + 0.5) * width for j in range(len(TCPS))]
            ax.bar(
                xs,
                [r["throughput_kbps"] for r in sel],
                width,
                yerr=[0 if math.isnan(r["ci95_kbps"]) else r["ci95_kbps"] for r in sel],
                capsize=2,
                label=mech,
            )
        ax.set_xticks(range(len(TCPS)), list(TCPS))
        ax.set_title(channel, fontsize="small")
        ax.set_ylabel("throughput (kbps)")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize="x-small")
    fig.suptitle(
        "Five TCPs under the seeds' mechanisms over 802.11 DCF at 1 Mbps; bars: 95 % CI",
        fontsize="medium",
    )
    fig.tight_layout()
    fig.savefig(ROOT / "docs" / "modern-cc.png", dpi=110)


if __name__ == "__main__":
    main()
