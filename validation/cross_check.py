"""Cross-check of lastmile's congestion controls against ns-3.

The same scenarios run in lastmile (this interpreter, with `lastmile` installed) and in
ns-3's Python wheel (a separate virtual environment, never a dependency of lastmile; its
interpreter is `$NS3_PYTHON`, default `/work/ns3-venv/bin/python`, running
`validation/ns3_chain.py`), and the results are written as a Markdown table:

    python validation/cross_check.py --out validation/results          # ~10 minutes
    python validation/cross_check.py --out validation/results --seeds 1 --only vegas

The scenarios, all on the TULIP chain (fixed host —wire— base station —hop— mobile host),
1400-byte segments, an ACK per segment, no SACK, NewReno recovery, drop-tail queues of 100
packets, a 1 s minimum RTO:

* `clean`: 10 Mb/s, 20 ms wire; 1 Mb/s hop without losses; 64 KB window; 2 MB. Throughput and
  the mean number of packets waiting at the base station (lastmile: each data packet's
  time at the bottleneck from the `seq` and `wireless_tx` traces, less its transmission,
  in transmission times; ns-3: the device queue sampled every 10 ms), after 5 s.
* `per1`: the same with 1 % of the hop's packets lost at random, averaged over `--seeds`
  seeds (the two simulators draw different losses).
* `long`: 100 Mb/s, 50 ms wire; 10 Mb/s hop losing 1 %; 2 MB window; 20 MB (Reno and BBR;
  ns-3's BBR also with SACK, which it assumes).

Not part of CI. Differences are explained in docs/congestion-control.md, not tuned away.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import lastmile

NS3_PYTHON = os.environ.get("NS3_PYTHON", "/work/ns3-venv/bin/python")
HERE = Path(__file__).resolve().parent

#: One ACK-clocked 1440-byte datagram on a 1 Mb/s hop, seconds; the 20 ms wire at 10 Mb/s.
SERVICE_S = 1440 * 8 / 1e6
WIRE_S = 0.020 + 1440 * 8 / 10e6


@dataclass(frozen=True)
class Algo:
    """One congestion control in both simulators."""

    label: str
    cc: str
    ns3: str | None
    lastmile_tcp: dict[str, object] = field(default_factory=dict)
    ns3_attrs: tuple[str, ...] = ()


ALGOS = [
    Algo("NewReno", "reno", "TcpNewReno"),
    # Reno's loss handling, as ns-3's Vegas (lastmile's default adds Brakmo & Peterson's
    # fine-grained retransmission, which ns-3 does not have).
    Algo(
        "Vegas alpha=1 beta=3",
        "vegas",
        "TcpVegas",
        {"cc": {"kind": "vegas", "fine_grained_retransmission": False}},
        ("ns3::TcpVegas::Alpha=1", "ns3::TcpVegas::Beta=3"),
    ),
    Algo(
        "Vegas alpha=2 beta=4",
        "vegas",
        "TcpVegas",
        {"cc": {"kind": "vegas", "alpha": 2.0, "beta": 4.0, "fine_grained_retransmission": False}},
        (),
    ),
    Algo("Westwood+", "westwood_plus", "TcpWestwoodPlus"),
    Algo("Veno", "veno", "TcpVeno"),
    Algo("Illinois", "illinois", "TcpIllinois"),
    # Without HyStart on both sides (lastmile's default runs HyStart++, ns-3's HyStart).
    Algo(
        "CUBIC",
        "cubic",
        "TcpCubic",
        {"cc": {"kind": "cubic", "hystart": False}},
        ("ns3::TcpCubic::HyStart=false",),
    ),
    Algo("BBR", "bbr", "TcpBbr"),
    Algo("FAST alpha=4", "fast", None, {"cc": {"kind": "fast", "alpha": 4.0}}),
    Algo("Santa Cruz", "santa_cruz", None, {"timestamps": True}),
]


@dataclass(frozen=True)
class Setting:
    name: str
    wired_rate: str
    wired_delay_ms: int
    hop_rate: str
    per: float
    rwnd: int
    bytes: int


CLEAN = Setting("clean", "10Mbps", 20, "1Mbps", 0.0, 65536, 2_000_000)
PER1 = Setting("per1", "10Mbps", 20, "1Mbps", 0.01, 65536, 2_000_000)
LONG = Setting("long", "100Mbps", 50, "10Mbps", 0.01, 2_000_000, 20_000_000)


def lastmile_run(a: Algo, s: Setting, seed: int) -> dict[str, float]:
    """The scenario in lastmile: throughput and the mean queue at the base station."""
    tcp = {
        "recovery": "newreno",
        "cc": a.cc,
        "mss": "1400B",
        "rwnd": f"{s.rwnd}B",
        **a.lastmile_tcp,
    }
    errors = {"model": "per", "per": s.per} if s.per > 0 else {"model": "none"}
    scenario = {
        "name": f"cross-check-{s.name}",
        "seed": seed,
        "stop_time": "600s",
        "topology": {
            "preset": "chain",
            "wired": {"rate": s.wired_rate, "delay": f"{s.wired_delay_ms}ms", "queue": "100pkt"},
            "wireless": {"rate": s.hop_rate, "delay": "1us", "queue": "100pkt", "errors": errors},
        },
        "flow": [
            {"src": "fh", "dst": "mh", "tcp": tcp, "app": {"kind": "bulk", "bytes": f"{s.bytes}B"}}
        ],
    }
    path = HERE / "results" / f".scenario-{os.getpid()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(scenario))
    traces = ["seq", "wireless_tx"] if s is CLEAN else []
    try:
        result = lastmile.run(lastmile.load(path), traces=traces)
    finally:
        path.unlink()
    flow = result.summary["flows"][0]
    out = {
        "throughput_bps": float(flow["throughput_bps"]),
        "packets_sent": float(flow["tcp_segments_sent"]),
    }
    if s is CLEAN:
        out["mean_queue_packets"] = _lastmile_queue(result)
    return out


def _lastmile_queue(result: lastmile.RunResult) -> float:
    """Mean packets waiting ahead of each data packet at the bottleneck, after 5 s."""
    seq = result.trace("seq")
    sends = seq[(~seq["ack"]) & (~seq["retransmission"])].drop_duplicates("offset")
    sent = dict(zip(sends["offset"].astype("int64"), sends["time_s"], strict=True))
    tx = result.trace("wireless_tx")
    tx = tx[tx["data"] & ~tx["lost"] & tx["offset"].notna()]
    waits = []
    for t, off in zip(tx["time_s"], tx["offset"].astype("int64"), strict=True):
        s = sent.get(int(off))
        if s is None or s + WIRE_S < 5.0:
            continue
        waits.append(max(0.0, (t - (s + WIRE_S) - SERVICE_S) / SERVICE_S))
    return statistics.fmean(waits) if waits else float("nan")


def ns3_run(a: Algo, s: Setting, seed: int, sack: bool = False) -> dict[str, float] | None:
    """The scenario in ns-3 (`ns3_chain.py` in ns-3's interpreter), or None without it."""
    if a.ns3 is None:
        return None
    cmd = [
        NS3_PYTHON,
        str(HERE / "ns3_chain.py"),
        "--cc",
        a.ns3,
        "--per",
        str(s.per),
        "--seed",
        str(seed),
        "--wired-rate",
        s.wired_rate,
        "--wired-delay",
        f"{s.wired_delay_ms}ms",
        "--hop-rate",
        s.hop_rate,
        "--rwnd",
        str(s.rwnd),
        "--bytes",
        str(s.bytes),
    ]
    for attr in a.ns3_attrs:
        cmd += ["--attr", attr]
    if sack:
        cmd.append("--sack")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=1800)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            r = json.loads(line[len("RESULT ") :])
            return {k: float(v) for k, v in r.items() if isinstance(v, (int, float))}
    sys.stderr.write(f"ns-3 failed for {a.label} {s.name}:\n{proc.stderr[-2000:]}\n")
    return None


def mean_of(runs: list[dict[str, float] | None], key: str) -> float | None:
    values = [r[key] for r in runs if r is not None and key in r]
    return statistics.fmean(values) if values else None


def fmt(x: float | None, scale: float = 1.0, digits: int = 2) -> str:
    return "—" if x is None else f"{x / scale:.{digits}f}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=HERE / "results")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--only", nargs="*", help="cc names to run (default: all)")
    args = p.parse_args()
    algos = [a for a in ALGOS if not args.only or a.cc in args.only]
    seeds = range(1, args.seeds + 1)
    rows = []
    for a in algos:
        row: dict[str, object] = {"algorithm": a.label, "cc": a.cc, "ns3": a.ns3}
        lm_clean = lastmile_run(a, CLEAN, 1)
        n3_clean = ns3_run(a, CLEAN, 1)
        lm_per = [lastmile_run(a, PER1, k) for k in seeds]
        # ns-3.44's TcpBbr without SACK trips NS_ASSERT(m_congState != CA_DISORDER)
        # (tcp-socket-base.cc:3532) once losses come: it runs with SACK there.
        n3_per = [ns3_run(a, PER1, k, sack=a.cc == "bbr") for k in seeds]
        row.update(
            lm_clean_bps=lm_clean["throughput_bps"],
            lm_clean_queue=lm_clean.get("mean_queue_packets"),
            ns3_clean_bps=None if n3_clean is None else n3_clean["throughput_bps"],
            ns3_clean_queue=None if n3_clean is None else n3_clean["mean_queue_packets"],
            lm_per1_bps=mean_of(list(lm_per), "throughput_bps"),
            ns3_per1_bps=mean_of(n3_per, "throughput_bps"),
            lm_per1_sent=mean_of(list(lm_per), "packets_sent"),
            ns3_per1_sent=mean_of(n3_per, "packets_sent"),
        )
        if a.cc in ("reno", "bbr"):
            lm_long = [lastmile_run(a, LONG, k) for k in seeds]
            row["lm_long_bps"] = mean_of(list(lm_long), "throughput_bps")
            if a.cc == "reno":
                row["ns3_long_bps"] = mean_of(
                    [ns3_run(a, LONG, k) for k in seeds], "throughput_bps"
                )
            row["ns3_long_sack_bps"] = mean_of(
                [ns3_run(a, LONG, k, sack=True) for k in seeds], "throughput_bps"
            )
        rows.append(row)
        print(json.dumps(row), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = merged(args.out / "ns3-comparison.json", rows)
    (args.out / "ns3-comparison.json").write_text(json.dumps(rows, indent=2) + "\n")
    (args.out / "ns3-comparison.md").write_text(table(rows, args.seeds))
    print((args.out / "ns3-comparison.md").read_text())


def merged(path: Path, rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """`rows` in place of the same algorithms' rows of an earlier run (`--only`), in
    `ALGOS` order."""
    old = json.loads(path.read_text()) if path.exists() else []
    fresh = {r["algorithm"]: r for r in rows}
    by_label = {r["algorithm"]: r for r in old} | fresh
    return [by_label[a.label] for a in ALGOS if a.label in by_label]


def table(rows: list[dict[str, object]], seeds: int) -> str:
    """The Markdown tables of the comparison."""

    def g(r: dict[str, object], k: str) -> float | None:
        v = r.get(k)
        return float(v) if isinstance(v, (int, float)) else None

    lines = [
        "| algorithm | clean: throughput Mb/s lastmile / ns-3 | clean: mean queue, packets "
        f"lastmile / ns-3 | PER 1 %: throughput Mb/s lastmile / ns-3 (mean of {seeds}) | PER 1 %: "
        "packets sent lastmile / ns-3 |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['algorithm']}{' ¹' if r['cc'] == 'bbr' else ''} | "
            f"{fmt(g(r, 'lm_clean_bps'), 1e6, 3)} / "
            f"{fmt(g(r, 'ns3_clean_bps'), 1e6, 3)} | {fmt(g(r, 'lm_clean_queue'))} / "
            f"{fmt(g(r, 'ns3_clean_queue'))} | {fmt(g(r, 'lm_per1_bps'), 1e6, 3)} / "
            f"{fmt(g(r, 'ns3_per1_bps'), 1e6, 3)} | {fmt(g(r, 'lm_per1_sent'), 1, 0)} / "
            f"{fmt(g(r, 'ns3_per1_sent'), 1, 0)} |"
        )
    lines += [
        "",
        "¹ ns-3's BBR runs with SACK under losses: without it ns-3.44 trips "
        "`NS_ASSERT(m_congState != CA_DISORDER)` (tcp-socket-base.cc:3532).",
    ]
    longs = [r for r in rows if "lm_long_bps" in r]
    if longs:
        lines += [
            "",
            f"10 Mb/s hop, 100 ms RTT, 1 % loss, 20 MB (mean of {seeds} seeds), throughput Mb/s:",
            "",
            "| algorithm | lastmile (no SACK) | ns-3 (no SACK) | ns-3 with SACK |",
            "|---|---|---|---|",
        ]
        for r in longs:
            lines.append(
                f"| {r['algorithm']} | {fmt(g(r, 'lm_long_bps'), 1e6)} | "
                f"{fmt(g(r, 'ns3_long_bps'), 1e6)} | {fmt(g(r, 'ns3_long_sack_bps'), 1e6)} |"
            )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
