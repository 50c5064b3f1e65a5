"""Sweep overhead: 1,000 short runs on the local pool and on Dask, against the runs' own time.

The campaign is the TULIP chain with 5 % of wireless frames lost and 100 KB transfers, one
point and 1,000 seeds. For each executor it reports the wall time of the whole sweep
(worker start-up, validation, storing every row included), runs per second, and the
overhead per run beyond the simulation:

    overhead per run = (elapsed x workers - sum of the runs' engine.wall_s) / runs

i.e. the worker time not spent inside the core, spread over the runs. It is compared with
the time of one 10 MB run of the same chain (the issue's target: below 5 %). The fixed
cost (worker start-up, validation, opening the store) is measured by a sweep of one run
per worker; "steady" subtracts it, which is what a campaign of many thousands of runs pays.

    python bench/sweep_bench.py [--runs 1000] [--jobs 2] [--no-dask] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import lastmile
from lastmile.sweep import connect_dask, sweep

SCENARIO = """
name = "chain"
seed = 1
stop_time = "300s"
[topology]
preset = "chain"
wired = { rate = "10Mbps", delay = "1ms", queue = "100pkt" }
wireless = { rate = "1Mbps", delay = "1us", errors = { model = "per", per = 0.05 } }
[[flow]]
src = "fh"
dst = "mh"
tcp = { variant = "newreno", mss = "1400B", rwnd = "42KB", timer_granularity = "500ms" }
app = { kind = "bulk", bytes = "100KB" }
"""


def big_run_s(scenario: Path, repeats: int = 5) -> float:
    """Median engine time of one 10 MB run of the chain."""
    times = [
        float(
            lastmile.run(str(scenario), seed=s, overrides={"flow.0.app.bytes": "10MB"}).summary[
                "engine"
            ]["wall_s"]
        )
        for s in range(1, repeats + 1)
    ]
    return statistics.median(times)


def write_sweep(root: Path, name: str, seeds: list[int] | int) -> Path:
    path = root / f"{name}.toml"
    path.write_text(f'name = "{name}"\nscenario = "chain.toml"\nseeds = {seeds}\n')
    return path


def timed_sweep(sweep_file: Path, store: Path, **kwargs: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    rows = sweep(sweep_file, store=store, progress=False, **kwargs)
    elapsed = time.perf_counter() - start
    assert set(rows["status"]) == {"ok"}, rows["error"].dropna().unique()
    return elapsed, rows


def measure(
    name: str, root: Path, runs: int, workers: int, big_s: float, **kwargs: Any
) -> dict[str, Any]:
    """Time a sweep of `runs` runs; the fixed cost from a sweep of one run per worker."""
    tiny = write_sweep(root, f"{name}-fixed", list(range(10**6, 10**6 + workers)))
    fixed, _ = timed_sweep(tiny, root / f"{name}-fixed.duckdb", **kwargs)
    elapsed, rows = timed_sweep(write_sweep(root, name, runs), root / f"{name}.duckdb", **kwargs)
    engine = float(rows["engine_wall_s"].sum())
    in_worker = float(rows["wall_s"].sum())
    overhead = (elapsed * workers - engine) / runs
    steady = ((elapsed - fixed) * workers - engine) / runs
    return {
        "executor": name,
        "workers": workers,
        "runs": len(rows),
        "elapsed_s": elapsed,
        "runs_per_s": runs / elapsed,
        "engine_s_per_run": engine / runs,
        "python_s_per_run": (in_worker - engine) / runs,
        "overhead_s_per_run": overhead,
        "overhead_vs_10MB_run": overhead / big_s,
        "fixed_s": fixed,
        "steady_overhead_s_per_run": steady,
        "steady_overhead_vs_10MB_run": steady / big_s,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scenario = root / "chain.toml"
        scenario.write_text(SCENARIO)
        big_s = big_run_s(scenario)
        # Warm up: the first sweep of a process imports duckdb, pyarrow and pandas.
        timed_sweep(write_sweep(root, "warm-up", 2), root / "warm-up.duckdb", jobs=1)
        results = [
            measure("serial", root, args.runs, 1, big_s, jobs=1),
            measure("pool", root, args.runs, args.jobs, big_s, jobs=args.jobs),
        ]
        if not args.no_dask:
            from contextlib import ExitStack

            with ExitStack() as stack:
                client = connect_dask(f"local:{args.jobs}", stack)
                results.append(measure("dask", root, args.runs, args.jobs, big_s, client=client))

    if args.json:
        print(json.dumps({"run_10MB_s": big_s, "results": results}, indent=2))
        return 0
    print(f"one 10 MB run: {big_s * 1e3:.2f} ms (median of 5, engine.wall_s)")
    print(
        f"{'executor':<8} {'workers':>7} {'runs':>5} {'elapsed s':>9} {'runs/s':>7} "
        f"{'engine ms/run':>13} {'python ms/run':>13} {'overhead ms/run':>15} {'vs 10 MB':>8} "
        f"{'fixed s':>7} {'steady ms/run':>13} {'vs 10 MB':>8}"
    )
    for r in results:
        print(
            f"{r['executor']:<8} {r['workers']:>7} {r['runs']:>5} {r['elapsed_s']:>9.2f} "
            f"{r['runs_per_s']:>7.0f} {r['engine_s_per_run'] * 1e3:>13.3f} "
            f"{r['python_s_per_run'] * 1e3:>13.3f} {r['overhead_s_per_run'] * 1e3:>15.3f} "
            f"{r['overhead_vs_10MB_run']:>8.1%} {r['fixed_s']:>7.2f} "
            f"{r['steady_overhead_s_per_run'] * 1e3:>13.3f} "
            f"{r['steady_overhead_vs_10MB_run']:>8.1%}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
