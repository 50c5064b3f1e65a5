"""What a TCP ACK costs on one IEEE 802.11b hop: lastmile against ns-2.35.

LLE-TCP's gain (Kliazovich, Granelli and Gerla, seed ``004_*``, §4.3, Fig. 5) is the airtime
of the TCP ACKs it keeps off the air. Our gain over ACK-every Reno is about twice the
paper's, so either our ACK frames cost too much or the paper's baseline was not ACK-every
Reno. This check runs the paper's single-hop scenario in the paper's own simulator (ns-2,
`lle_ack_cost.tcl`, every parameter ns-2's default unless Table 3 gives it) and in lastmile
(`experiments/lle.toml`) with the settings matched, for three senders:

- ``every``: TCP Reno with ns-2's default sink (an ACK per segment);
- ``delayed``: TCP Reno with ns-2's DelAck sink (lastmile ``ack = "delayed"``);
- ``noack``: the same data frames with no TCP ACK on the air: ns-2 a saturating UDP source
  (the ceiling LLE-TCP approaches), lastmile LLE-TCP itself (its ACKs are made at the
  sender, its window 20 segments as ns-2's ``window_``).

and three RTS/CTS settings (before every frame: ns-2's default; before data frames only;
never), at the paper's 1500 B datagram and at 1000, 576 and 100 B. Throughput is the
payload delivered from 2 s to the end of 20 s runs, mean over seeds 1-3 (the two simulators
draw different backoffs). Not part of CI (about two minutes):

    python validation/ns2/lle_ack_cost.py --out validation/results

writes ``lle-ack-cost.md`` there: per point both simulators' Mbps, their ratio, and the
gains over each Reno beside the paper's 1500 B numbers (Reno 5.08, LLE-TCP 6.09 Mbps without
RTS/CTS; 4.1 and 4.71 with it), and the paper's Table 1 (802.11 at 1, 2 and 11 Mbps: 0.7,
1.4 and 5 Mbps of TCP/IP throughput) beside both simulators' delayed-ACK Reno.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
from pathlib import Path

import lastmile

HERE = Path(__file__).resolve().parent
TCL = HERE / "lle_ack_cost.tcl"
SCENARIO = HERE.parents[1] / "python/lastmile/reproduce/experiments/lle.toml"
STOP_S = 20.0
WARMUP_S = 2.0
SEEDS = (1, 2, 3)
SENDERS = ("every", "delayed", "noack")
#: RTS/CTS setting → lastmile's threshold (ns-2's are in the Tcl script: 0, 200 B, 3000 B).
RTS = {"all": "0B", "data": "200B", "off": "2347B"}
#: (datagram, RTS settings run at it): RTS/CTS before data frames only is the same as
#: before none once a data frame is smaller than the 200 B threshold.
POINTS = (
    (1500, ("off", "data", "all")),
    (1000, ("off", "data", "all")),
    (576, ("off", "data", "all")),
    (100, ("off", "all")),
)
#: LLE-TCP Table 1: 802.11's physical rate → its TCP/IP throughput (Mbps).
TABLE1 = {1: 0.7, 2: 1.4, 11: 5.0}
#: §4.3, 1500 B: (RTS/CTS, Reno or LLE-TCP) → Mbps.
PAPER = {("off", "reno"): 5.08, ("off", "lle"): 6.09, ("on", "reno"): 4.1, ("on", "lle"): 4.71}


def ns2(sender: str, datagram: int, rts: str, seed: int, rate_mbps: int = 11) -> float:
    agent = "udp" if sender == "noack" else sender
    return ns2_payload_bps(TCL, agent, str(datagram), rts, str(seed), f"{STOP_S:g}", str(rate_mbps))


def ns2_payload_bps(tcl: Path, *args: str) -> float:
    """Runs ns-2.35 on `tcl` with `args`; the `payload_bps` line it prints."""
    out = subprocess.run(
        ["ns", str(tcl), *args], capture_output=True, text=True, check=True, timeout=600
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("payload_bps"))
    return float(line.split()[1])


def steady_payload_bps(overrides: dict[str, object], seed: int) -> float:
    """lastmile's payload rate on `SCENARIO` with `overrides`, from `WARMUP_S` to `STOP_S`
    (two runs, the same seed: the difference of what each delivered)."""
    delivered = []
    for stop in (WARMUP_S, STOP_S):
        result = lastmile.run(
            SCENARIO, seed=seed, overrides={**overrides, "stop_time": f"{stop:g}s"}
        )
        delivered.append(float(result.flows["bytes_delivered"].iloc[0]))
    return 8.0 * (delivered[1] - delivered[0]) / (STOP_S - WARMUP_S)


def ours(sender: str, datagram: int, rts: str, seed: int, rate_mbps: int = 11) -> float:
    overrides: dict[str, object] = {
        "topology.wireless.rate": f"{rate_mbps}Mbps",
        "topology.wireless.mac.rts_threshold": RTS[rts],
        "flow.0.tcp.mss": f"{datagram - 40}B",
        "flow.0.tcp.rwnd": f"{20 * (datagram - 40)}B",
        "flow.0.tcp.ack": "delayed" if sender == "delayed" else "every",
    }
    if sender == "noack":
        overrides["base_station.agent"] = "lle"
    return steady_payload_bps(overrides, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=HERE.parent / "results")
    args = parser.parse_args()
    rows = []
    mean: dict[tuple[str, str, int, str], float] = {}
    for datagram, modes in POINTS:
        for rts in modes:
            for sender in SENDERS:
                for sim, fn in (("ns-2", ns2), ("lastmile", ours)):
                    mean[(sim, sender, datagram, rts)] = (
                        statistics.mean(fn(sender, datagram, rts, s) for s in SEEDS) / 1e6
                    )
                a, b = (
                    mean[("lastmile", sender, datagram, rts)],
                    mean[("ns-2", sender, datagram, rts)],
                )
                rows.append(f"| {datagram} | {rts} | {sender} | {a:.3f} | {b:.3f} | {a / b:.3f} |")
    gains = []
    for datagram, modes in POINTS:
        for rts in modes:
            cells = []
            for sim in ("lastmile", "ns-2"):
                top = mean[(sim, "noack", datagram, rts)]
                for base in ("every", "delayed"):
                    cells.append(f"{100 * (top / mean[(sim, base, datagram, rts)] - 1):+.1f}")
            gains.append(f"| {datagram} | {rts} | " + " | ".join(cells) + " |")
    gain_off = 100 * (PAPER[("off", "lle")] / PAPER[("off", "reno")] - 1)
    paper = (
        f"The paper at 1500 B: Reno {PAPER[('off', 'reno')]}, LLE-TCP {PAPER[('off', 'lle')]} "
        f"Mbps without RTS/CTS (gain {gain_off:.1f} %); "
        f"{PAPER[('on', 'reno')]} and {PAPER[('on', 'lle')]} with it "
        f"({100 * (PAPER[('on', 'lle')] / PAPER[('on', 'reno')] - 1):.1f} %)."
    )
    table1 = []
    for rate, published in TABLE1.items():
        mbps = [
            statistics.mean(fn("delayed", 1500, "off", s, rate) for s in SEEDS) / 1e6
            for fn in (ours, ns2)
        ]
        table1.append(f"| {rate} | {published} | {mbps[0]:.3f} | {mbps[1]:.3f} |")
    text = "\n".join(
        [
            "# What a TCP ACK costs on one 802.11b hop: lastmile against ns-2.35",
            "",
            "Generated by `python validation/ns2/lle_ack_cost.py` (see its docstring for the "
            "settings). Payload throughput from 2 s to 20 s, mean of seeds "
            f"{', '.join(map(str, SEEDS))}, Mbps. `noack`: ns-2 a saturating UDP source (no TCP "
            "ACK on the air: LLE-TCP's ceiling), lastmile LLE-TCP.",
            "",
            "| datagram (B) | RTS/CTS | sender | lastmile | ns-2 | lastmile / ns-2 |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
            "## The gain of removing the TCP ACKs (noack over Reno), %",
            "",
            paper,
            "",
            "| datagram (B) | RTS/CTS | lastmile over ACK-every | over delayed | ns-2 over "
            "ACK-every | over delayed |",
            "|---|---|---|---|---|---|",
            *gains,
            "",
            "## LLE-TCP Table 1: 802.11's TCP/IP throughput at 1, 2 and 11 Mbps",
            "",
            "Reno with delayed ACKs, 1500 B datagrams, RTS/CTS off, Mbps.",
            "",
            "| physical rate (Mbps) | Table 1 | lastmile | ns-2 |",
            "|---|---|---|---|",
            *table1,
            "",
        ]
    )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "lle-ack-cost.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
