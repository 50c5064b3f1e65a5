"""Sweep overhead: 1,000 short runs on the local pool and on Dask, against the runs' own time.

The campaign is the TULIP chain with 5 % of wireless frames lost and 100 KB transfers, one
point and N seeds (N = 1,000 by default). For each executor (this process, the local spawn
pool, a Dask LocalCluster, each with `--jobs` workers) it reports:

- runs per second of a whole sweep of N runs: worker start-up, validation, opening the
  store, storing every row and reading the campaign back included;
- the overhead per run beyond the simulation, ``(elapsed x workers - sum of the runs'
  engine.wall_s) / N``: the worker time not spent inside the core, spread over the runs;
  "whole" is that of the N-run sweep (start-up included), "marginal" that of each run
  beyond the first N (from a 2N-run sweep minus the N-run one: start-up cancels), which is
  what a campaign of many thousands of runs pays per run;
- "python": the part of it measured inside the workers around each `lastmile.run` call
  (the core's own parsing and summary, the Python wrapper, flattening the summary).

Both overheads are compared with the engine time of one 10 MB run of the same chain (the
target: below 5 %). Every sweep uses fresh seeds, so nothing is reused from the store.

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


def timed_sweep(root: Path, name: str, seeds: list[int], **kwargs: Any) -> tuple[float, Any]:
    sweep_file = root / f"{name}.toml"
    sweep_file.write_text(f'name = "{name}"\nscenario = "chain.toml"\nseeds = {seeds}\n')
    start = time.perf_counter()
    rows = sweep(sweep_file, store=root / f"{name}.duckdb", progress=False, **kwargs)
    elapsed = time.perf_counter() - start
    assert len(rows) == len(seeds) and set(rows["status"]) == {"ok"}
    return elapsed, rows


def measure(
    name: str, root: Path, runs: int, workers: int, big_s: float, repeat: int, **kwargs: Any
) -> dict[str, Any]:
    """Sweeps of N and 2N fresh runs with one executor, `repeat` times (medians kept)."""
    trials = [trial(f"{name}{r}", root, runs, workers, big_s, **kwargs) for r in range(repeat)]
    median = {k: statistics.median(t[k] for t in trials) for k in trials[0] if k != "executor"}
    return {"executor": name, **median}


def trial(
    name: str, root: Path, runs: int, workers: int, big_s: float, **kwargs: Any
) -> dict[str, Any]:
    once, rows = timed_sweep(root, name, list(range(1, runs + 1)), **kwargs)
    twice, rows2 = timed_sweep(root, f"{name}-2x", list(range(runs + 1, 3 * runs + 1)), **kwargs)
    engine = float(rows["engine_wall_s"].sum()) / runs
    engine_extra = (float(rows2["engine_wall_s"].sum()) - engine * runs) / runs
    whole = once * workers / runs - engine
    marginal = (twice - once) * workers / runs - engine_extra
    python = float((rows["wall_s"] - rows["engine_wall_s"]).mean())
    return {
        "executor": name,
        "workers": workers,
        "runs": runs,
        "elapsed_s": once,
        "runs_per_s": runs / once,
        "engine_s_per_run": engine,
        "whole_overhead_s_per_run": whole,
        "marginal_overhead_s_per_run": marginal,
        "python_s_per_run": python,
        "whole_vs_10MB_run": whole / big_s,
        "marginal_vs_10MB_run": marginal / big_s,
        "python_vs_10MB_run": python / big_s,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="trials per executor (medians)")
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        scenario = root / "chain.toml"
        scenario.write_text(SCENARIO)
        big_s = big_run_s(scenario)
        # Warm up: the first sweep of a process imports duckdb, pyarrow and pandas.
        timed_sweep(root, "warm-up", [1, 2], jobs=1)
        results = [
            measure("serial", root, args.runs, 1, big_s, args.repeat, jobs=1),
            measure("pool", root, args.runs, args.jobs, big_s, args.repeat, jobs=args.jobs),
        ]
        if not args.no_dask:
            from contextlib import ExitStack

            with ExitStack() as stack:
                client = connect_dask(f"local:{args.jobs}", stack)
                dask = measure(
                    "dask", root, args.runs, args.jobs, big_s, args.repeat, client=client
                )
                results.append(dask)

    if args.json:
        print(json.dumps({"run_10MB_s": big_s, "results": results}, indent=2))
        return 0
    print(f"one 10 MB run: {big_s * 1e3:.2f} ms (median of 5, engine.wall_s)")
    print(
        f"{'executor':<8} {'workers':>7} {'runs':>5} {'elapsed s':>9} {'runs/s':>7} "
        f"{'engine ms/run':>13} {'overhead ms/run: whole':>22} {'marginal':>15} "
        f"{'python':>15}"
    )
    for r in results:
        print(
            f"{r['executor']:<8} {r['workers']:>7.0f} {r['runs']:>5.0f} {r['elapsed_s']:>9.2f} "
            f"{r['runs_per_s']:>7.0f} {r['engine_s_per_run'] * 1e3:>13.3f} "
            f"{r['whole_overhead_s_per_run'] * 1e3:>13.3f} ({r['whole_vs_10MB_run']:>5.1%}) "
            f"{r['marginal_overhead_s_per_run'] * 1e3:>6.3f} ({r['marginal_vs_10MB_run']:>5.1%}) "
            f"{r['python_s_per_run'] * 1e3:>6.3f} ({r['python_vs_10MB_run']:>5.1%})"
        )
    print("(percentages: of one 10 MB run's engine time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
