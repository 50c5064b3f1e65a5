"""Nothing lost: a sweep killed at a random moment and started again stores every run once.

The sweep runs in a child process (`sweep_fixtures/drive.py`: the campaign loop with the
fake runner, 10 ms a run, on a pool of 2) that is killed with SIGKILL, or interrupted
with SIGINT, once a random share of the runs is stored; a second process completes the
campaign. The store must then hold exactly the rows of an uninterrupted sweep.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest

FIXTURES = Path(__file__).resolve().parent / "sweep_fixtures"
sys.path.insert(0, str(FIXTURES))

from fake_runner import PER, fake_run, fake_validate  # noqa: E402

from lastmile.sweep import sweep  # noqa: E402

WALL = ["wall_s", "engine_wall_s", "finished_at"]
SEEDS = 16
PERS = [round(0.01 * i, 2) for i in range(12)]
TOTAL = SEEDS * len(PERS)


def campaign(tmp_path: Path) -> Path:
    (tmp_path / "chain.toml").write_text((FIXTURES / "chain.toml").read_text())
    path = tmp_path / "resume.toml"
    path.write_text(
        f'name = "resume"\nscenario = "chain.toml"\nseeds = {SEEDS}\n'
        f'[grid]\n"{PER}" = {PERS}\n[variants.a]\n[variants.b]\n"flow.0.tcp.variant" = "x"\n'
    )
    return path


def child_env() -> dict[str, str]:
    env = dict(os.environ, LASTMILE_FAKE_SLEEP="0.01")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def start(path: Path, store: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(FIXTURES / "drive.py"), str(path), str(store), "2"],
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
        start_new_session=True,
    )


def wait_for_share(proc: subprocess.Popen[str], share: float) -> None:
    """Read the child's progress lines until `share` of the runs are stored."""
    assert proc.stderr is not None
    for line in proc.stderr:
        done = line.split(": ", 1)[1].split("/", 1)[0] if ": " in line else ""
        if done.isdigit() and int(done) >= share * 2 * TOTAL:
            return
    pytest.fail(f"the sweep ended before {share:.0%} of its runs (status {proc.wait()})")


def stored(store: Path) -> pd.DataFrame:
    with duckdb.connect(str(store), read_only=True) as con:
        return con.sql("SELECT * FROM runs").to_arrow_table().to_pandas()


def finish_and_check(path: Path, store: Path, tmp_path: Path, note: str) -> None:
    partial = len(stored(store))
    assert 0 < partial < 2 * TOTAL, note
    again = start(path, store)
    _, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    rows = stored(store)
    assert len(rows) == 2 * TOTAL, note
    assert not rows.duplicated(["point_key", "seed"]).any(), note
    assert set(rows["status"]) == {"ok"}
    grid = {(v, p, s) for v in "ab" for p in PERS for s in range(1, SEEDS + 1)}
    assert set(zip(rows["variant"], rows[PER], rows["seed"], strict=True)) == grid
    # Exactly the rows of an uninterrupted sweep, whatever the interruption.
    clean = sweep(
        path,
        jobs=1,
        store=tmp_path / "clean.duckdb",
        runner=fake_run,
        validator=fake_validate,
        progress=False,
    )
    resumed = sweep(path, jobs=1, store=store, runner=fake_run, validator=fake_validate)
    pd.testing.assert_frame_equal(clean.drop(columns=WALL), resumed.drop(columns=WALL))


def test_sigkill_at_a_random_moment_then_resume(tmp_path: Path) -> None:
    path, store = campaign(tmp_path), tmp_path / "kill.duckdb"
    share, delay = random.uniform(0.1, 0.6), random.uniform(0, 0.2)
    proc = start(path, store)
    wait_for_share(proc, share)
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)  # the sweep itself, mid-write perhaps
    os.killpg(proc.pid, signal.SIGKILL)  # and its workers, as a crash would
    proc.communicate()
    finish_and_check(path, store, tmp_path, f"killed after {share:.0%} + {delay:.3f} s")


def test_ctrl_c_stops_cleanly_then_resume(tmp_path: Path) -> None:
    path, store = campaign(tmp_path), tmp_path / "int.duckdb"
    proc = start(path, store)
    wait_for_share(proc, 0.3)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C sends
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    finish_and_check(path, store, tmp_path, "interrupted at 30 %")
