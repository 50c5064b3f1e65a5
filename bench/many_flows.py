"""Scale with the number of flows: one cell and one wired bottleneck with
1, 10, 100, 1,000 and 10,000 concurrent flows.

Each run is a process of its own (`crates/lastmile-core/examples/many_flows.rs`, which
describes the two scenarios), so that its peak memory is that run's. For each topology and
flow count it reports the events, events per second and nanoseconds per event (the
run's CPU time — building the world, the event loop and the summary — best of
``--repeats``: on a shared machine CPU time leaves out the time other processes held the
core, though not what they did to the caches), CPU seconds per simulated
second, and peak RSS. Runs are sized to a few million events each (the simulated time
shrinks as the flows grow), so that every row is measured over the same amount of work.

    python bench/many_flows.py [--repeats 3] [--flows 1 10 100 1000 10000] [--json]
    python bench/many_flows.py --check 2.0     # exit 1 if ns/event grows more than 2x
    python bench/many_flows.py --binary OTHER/target/release/examples/many_flows

Build first: ``cargo build --release -p lastmile-core --example many_flows`` (``make
bench`` does).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BINARY = ROOT / "target" / "release" / "examples" / "many_flows"

#: Simulated seconds per run (``/ flows``): a few million events whatever the flow count.
SIM_SECONDS = {"wired": 20_000.0, "cell": 1_000.0}
#: The shortest run, in simulated seconds: the flows start within the first second.
SIM_MIN = {"wired": 2.0, "cell": 10.0}


def sim_seconds(topology: str, flows: int) -> float:
    """The run's length: ``SIM_SECONDS / flows`` seconds, at least ``SIM_MIN``."""
    return max(SIM_MIN[topology], SIM_SECONDS[topology] / flows)


def run_once(binary: Path, topology: str, flows: int) -> dict[str, Any]:
    """One run in a child process: its JSON line."""
    command = [str(binary), topology, str(flows), str(sim_seconds(topology, flows))]
    proc = subprocess.run(command, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{proc.stderr}")
    row: dict[str, Any] = json.loads(proc.stdout)
    return row


def measure(binary: Path, topology: str, flows: int, repeats: int) -> dict[str, Any]:
    """The best of `repeats` runs (least CPU time); memory is the same in each."""
    runs = [run_once(binary, topology, flows) for _ in range(repeats)]
    best = min(runs, key=lambda r: float(r["cpu_s"]))
    best["peak_rss_mib"] = best["peak_rss_kib"] / 1024
    return best


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table, with ns/event relative to the topology's first row and
    the memory per flow as (RSS - RSS of that first row) / (flows - its flows), from 100
    flows up (below, the difference is within the allocator's noise)."""
    head = (
        "| topology | flows | simulated s | events | events/s | ns/event | vs 1 flow "
        "| CPU s per simulated s | peak RSS (MiB) | KiB per flow | Jain's index |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    lines = [head]
    first: dict[str, dict[str, Any]] = {}
    for r in rows:
        base = first.setdefault(r["topology"], r)
        per_flow = "-"
        if r["flows"] >= 100 and r["flows"] > base["flows"]:
            kib = (r["peak_rss_kib"] - base["peak_rss_kib"]) / (r["flows"] - base["flows"])
            per_flow = f"{kib:.1f}"
        lines.append(
            f"| {r['topology']} | {r['flows']:,} | {r['sim_s']:g} | {r['events']:,} "
            f"| {r['events_per_s'] / 1e6:.1f} M | {r['ns_per_event']:.0f} "
            f"| {r['ns_per_event'] / base['ns_per_event']:.2f} | {r['cpu_per_sim_s']:.3g} "
            f"| {r['peak_rss_mib']:.1f} | {per_flow} | {r['jain_index']:.2f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per row (best is kept)")
    parser.add_argument("--flows", type=int, nargs="+", default=[1, 10, 100, 1000, 10000])
    parser.add_argument("--topology", nargs="+", default=["wired", "cell"])
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument(
        "--check", type=float, help="fail if ns/event grows more than this factor over 1 flow"
    )
    parser.add_argument(
        "--binary",
        type=Path,
        default=BINARY,
        help="the many_flows example to run (another build's, to compare commits)",
    )
    args = parser.parse_args()
    if not args.binary.exists():
        print(
            f"{args.binary} is missing: cargo build --release -p lastmile-core --example many_flows"
        )
        return 2
    rows = []
    for topology in args.topology:
        for flows in args.flows:
            row = measure(args.binary, topology, flows, args.repeats)
            rows.append(row)
            print(
                f"{topology:5} {flows:6} flows: {row['events']:>10,} events "
                f"{row['ns_per_event']:6.1f} ns/event {row['peak_rss_mib']:7.1f} MiB",
                file=sys.stderr,
            )
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    if args.check is not None:
        worst = max(
            r["ns_per_event"] / min(x["ns_per_event"] for x in rows if x["topology"] == t)
            for t in args.topology
            for r in rows
            if r["topology"] == t
        )
        if worst > args.check:
            print(f"ns/event grows {worst:.2f}x (limit {args.check}x)", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
