"""Sweeps of the real simulator, through the command line: validation before anything runs,
identical rows from every executor, and a SIGKILLed ``lastmile sweep`` resumed to completion.

The base scenario is the chain at PER 5 % moving 100 KB (`sweep_fixtures/chain.toml`).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import lastmile
from lastmile.sweep import SweepError, results, sweep

FIXTURES = Path(__file__).resolve().parent / "sweep_fixtures"
CHAIN = FIXTURES / "chain.toml"
PER = "topology.wireless.errors.per"
WALL = ["wall_s", "engine_wall_s", "finished_at"]

if not hasattr(lastmile, "run"):
    pytest.skip("the lastmile package is not built", allow_module_level=True)


def write(tmp_path: Path, name: str, body: str) -> Path:
    (tmp_path / "chain.toml").write_text(CHAIN.read_text())
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nscenario = "chain.toml"\n{body}')
    return path


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lastmile.cli_sweep", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


GRID = f"""seeds = 3
[grid]
"{PER}" = [0.0, 0.05, 0.1]
[variants.newreno]
"flow.0.tcp.variant" = "newreno"
[variants.tahoe]
"flow.0.tcp.variant" = "tahoe"
"""


def test_invalid_values_are_named_before_anything_runs(tmp_path: Path) -> None:
    body = GRID.replace("0.1]", "1.5]").replace('= "tahoe"', '= "vegas-ish"')
    path = write(tmp_path, "bad", body)
    done = cli("sweep", str(path), cwd=tmp_path)
    assert done.returncode == 2
    err = done.stderr
    assert err.startswith("lastmile: error: ") and err.count("\n") == 1
    assert f"[grid] {PER} = 1.5" in err and "probability" in err
    assert "[variants.tahoe] flow.0.tcp.variant = 'vegas-ish'" in err
    assert not (tmp_path / "bad.duckdb").exists()


def test_sweep_then_results_on_the_command_line(tmp_path: Path) -> None:
    path = write(tmp_path, "grid", GRID)
    plan = cli("sweep", str(path), "--dry-run", cwd=tmp_path)
    assert plan.returncode == 0, plan.stderr
    assert "6 points x 3 seeds = 18 runs" in plan.stdout and "to run: 18" in plan.stdout
    done = cli("sweep", str(path), "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "18/18 runs" in done.stderr and "ran 18 runs (0 failed)" in done.stderr
    table = done.stdout.splitlines()
    assert table[0].split()[:4] == ["variant", PER, "runs", "failed"]
    assert len(table) == 7
    again = cli("sweep", str(path), cwd=tmp_path)
    assert "ran 0 runs" in again.stderr
    runs = results(tmp_path / "grid.duckdb", runs=True)
    assert len(runs) == 18 and set(runs["status"]) == {"ok"}
    lossless = runs[runs[PER] == 0.0]
    assert (lossless["wireless_frames_lost"] == 0).all()
    assert (runs["bytes_delivered"] == 100 * 1000).all() or (runs["completed"]).all()
    summary = results(tmp_path / "grid.duckdb", metrics=["throughput_bps"])
    by_per = summary.groupby(PER)["throughput_bps_mean"].mean()
    assert by_per[0.0] > by_per[0.1]


def test_an_inline_scenario_table_runs_and_is_validated(tmp_path: Path) -> None:
    inline = tomllib.loads(CHAIN.read_text())
    spec = {"name": "inline", "scenario": inline, "seeds": 2, "grid": {PER: [0.0, 0.1]}}
    runs = sweep(spec, jobs=1, store=tmp_path / "inline.duckdb", progress=False)
    assert len(runs) == 4 and set(runs["status"]) == {"ok"}
    from_file = sweep(
        write(tmp_path, "inline", f'seeds = 2\n[grid]\n"{PER}" = [0.0, 0.1]\n'),
        jobs=1,
        store=tmp_path / "file.duckdb",
        progress=False,
    )
    metrics = ["throughput_bps", "tcp_timeouts", "engine_events"]
    pd.testing.assert_frame_equal(runs[metrics], from_file[metrics])
    bad = {**spec, "grid": {PER: [0.0, 2.0]}}
    with pytest.raises(SweepError, match=rf"\[grid\] {PER} = 2.0: <inline scenario>"):
        sweep(bad, jobs=1, store=tmp_path / "bad.duckdb", progress=False)


def test_every_executor_stores_the_same_rows(tmp_path: Path) -> None:
    path = write(tmp_path, "same", GRID)
    serial = sweep(path, jobs=1, store=tmp_path / "serial.duckdb", progress=False)
    pooled = sweep(path, jobs=2, store=tmp_path / "pool.duckdb", chunk_size=2, progress=False)
    dask = sweep(path, client="local:2", store=tmp_path / "dask.duckdb", progress=False)
    for other in (pooled, dask):
        pd.testing.assert_frame_equal(serial.drop(columns=WALL), other.drop(columns=WALL))


def test_lastmile_sweep_killed_with_sigkill_resumes_to_the_same_rows(tmp_path: Path) -> None:
    path = write(tmp_path, "kill", f'seeds = 60\n[grid]\n"{PER}" = [0.0, 0.02, 0.05, 0.1]\n')
    store = tmp_path / "kill.duckdb"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lastmile.cli_sweep",
            "sweep",
            str(path),
            "-j",
            "2",
            "--chunk-size",
            "2",
        ],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        cwd=tmp_path,
        start_new_session=True,
    )
    assert proc.stderr is not None
    share = random.uniform(0.1, 0.5)
    for line in proc.stderr:
        count = line.split(": ", 1)[1].split("/", 1)[0] if ": " in line else ""
        if count.isdigit() and int(count) >= share * 240:
            break
    time.sleep(random.uniform(0, 0.05))
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    with duckdb.connect(str(store), read_only=True) as con:
        ((partial,),) = con.execute("SELECT count(*) FROM runs").fetchall()
    assert 0 < partial < 240, f"killed after {share:.0%}"
    done = cli("sweep", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"ran {240 - partial} runs" in done.stderr
    resumed = sweep(path, progress=False)
    clean = sweep(path, jobs=1, store=tmp_path / "clean.duckdb", progress=False)
    assert len(resumed) == 240 and not resumed.duplicated(["point_key", "seed"]).any()
    pd.testing.assert_frame_equal(clean.drop(columns=WALL), resumed.drop(columns=WALL))
