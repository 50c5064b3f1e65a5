"""Time a whole `lastmile run --json --example chain-per5-newreno` process, best of N.

The figure that matters to a user is the whole process: interpreter start, imports,
loading the scenario, the simulation itself and printing the JSON. The core's own
`engine.wall_s` is reported beside it, so the difference is Python's share.

    python bench/whole_run.py [-n 7] [--example NAME] [--budget 0.4]

Build in release first (`make bench` does: `maturin develop --release`); a debug build is
many times slower.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def lastmile_command() -> list[str]:
    script = Path(sys.executable).with_name("lastmile")
    if script.exists():
        return [str(script)]
    found = shutil.which("lastmile")
    return [found] if found else [sys.executable, "-m", "lastmile"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="runs (best is reported)")
    parser.add_argument("--example", default="chain-per5-newreno")
    parser.add_argument("--budget", type=float, help="fail if the best run exceeds this (s)")
    args = parser.parse_args()

    command = [*lastmile_command(), "run", "--json", "--example", args.example]
    times, engine = [], []
    for _ in range(args.n):
        start = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            print(proc.stderr, file=sys.stderr)
            return 1
        times.append(elapsed)
        engine.append(json.loads(proc.stdout)["engine"]["wall_s"])
    best = min(times)
    summary = json.loads(proc.stdout)
    flow = summary["flows"][0]
    print(f"command: {' '.join(command)}")
    print(
        f"flow: {flow['bytes_delivered']} B in {flow['completion_s']:.1f} s simulated, "
        f"{summary['engine']['events']} events"
    )
    print(
        f"whole process: best {best:.3f} s, median {statistics.median(times):.3f} s "
        f"(n={args.n}); simulation alone best {min(engine):.3f} s; "
        f"rest (start-up, imports, load, JSON) {best - min(engine):.3f} s"
    )
    if args.budget is not None and best > args.budget:
        print(f"over budget: {best:.3f} s > {args.budget:.3f} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
