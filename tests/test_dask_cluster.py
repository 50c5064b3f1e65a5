"""A campaign on a real Dask cluster, started the way one is on a cluster of machines.

A scheduler and two workers run as separate processes, started with Dask's own commands
(``dask scheduler``, ``dask worker ADDRESS --nworkers 1 --nthreads 1``); the client is
``lastmile sweep FILE --dask tcp://127.0.0.1:PORT`` in a process of its own, running the
real simulator. The tests check what docs/sweeps.md promises:

- a worker killed with SIGKILL midway (its nanny and its worker process, as when a machine
  goes down) while it holds a chunk: the campaign completes, and every run is stored
  exactly once (per (variant, point, seed) key: none missing, none twice; the client ran
  each run once), with the same rows as a local sweep;
- the client killed with SIGKILL midway: the cluster lives on, and the same command run
  again runs exactly the runs the store lacks;
- the scheduler killed midway: the sweep stops with one line and exit status 1, and keeps
  what it stored, each run once.

Every process the tests start is in its own session and is killed with its whole group when
the test ends, whether it passed or not; teardown then checks that none is left. Should
pytest itself be killed, the scheduler exits after ``--idle-timeout`` and the workers
``--death-timeout`` after losing it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import duckdb
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

import lastmile  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "sweep_fixtures"
PER = "topology.wireless.errors.per"
PERS = [0.0, 0.02, 0.05, 0.1]
VARIANTS = ["newreno", "tahoe"]
SEEDS = 12
TOTAL = len(VARIANTS) * len(PERS) * SEEDS
#: Columns that differ between two runs of the same campaign: times.
WALL = ["wall_s", "engine_wall_s", "finished_at"]
#: Seconds any one step may take before the test gives up (the machine may be loaded).
STEP_S = 120.0

#: 100 MB over the chain: about 40 ms a run, so the campaign lasts a few seconds.
SPEC = f"""
name = "cluster"
scenario = "chain.toml"
seeds = {SEEDS}
[grid]
"{PER}" = {PERS}
"flow.0.app.bytes" = ["100MB"]
"stop_time" = ["100000s"]
""" + "".join(f'[variants.{v}]\n"flow.0.tcp.variant" = "{v}"\n' for v in VARIANTS)


def dask_command() -> list[str]:
    """The ``dask`` command of this interpreter's environment (``python -m dask`` else)."""
    script = Path(sys.executable).parent / "dask"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dask"]


def living_in_groups(groups: set[int]) -> list[str]:
    """Processes (not zombies) whose process group is one of `groups`: ``pid command``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:  # it ended meanwhile
            continue
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
        state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) in groups and state != "Z":
            found.append(f"{entry.name} {cmdline.strip()}")
    return found


def left_in_groups(groups: set[int], within_s: float = 10.0) -> list[str]:
    """`living_in_groups` once they had `within_s` to end (a killed process takes a moment)."""
    deadline = time.monotonic() + within_s
    while (left := living_in_groups(groups)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@dataclass
class Processes:
    """Processes started in sessions of their own, so each can be killed with its group."""

    logs: Path
    started: list[subprocess.Popen[str]] = field(default_factory=list)

    def start(self, name: str, args: list[str], **kwargs: Any) -> subprocess.Popen[str]:
        log = (self.logs / f"{name}.log").open("w")
        kwargs.setdefault("stdout", log)
        kwargs.setdefault("stderr", log)
        proc = subprocess.Popen(args, text=True, start_new_session=True, **kwargs)
        log.close()  # the child holds its own copy
        self.started.append(proc)
        return proc

    @staticmethod
    def kill(proc: subprocess.Popen[str]) -> None:
        """SIGKILL `proc` and every process of its group, and reap it."""
        with contextlib.suppress(ProcessLookupError):  # it is gone already
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=STEP_S)

    def close(self) -> list[str]:
        """Kill them all; return what is still alive in their groups a moment later."""
        for proc in self.started:
            self.kill(proc)
        return left_in_groups({proc.pid for proc in self.started})

    def log_tails(self) -> str:
        return "\n".join(
            f"--- {log.name}:\n" + "\n".join(log.read_text().splitlines()[-15:])
            for log in sorted(self.logs.glob("*.log"))
        )


@dataclass
class Cluster:
    address: str
    scheduler: subprocess.Popen[str]
    workers: dict[str, subprocess.Popen[str]]
    #: A client of the test's own, to watch the cluster (the sweep has its own).
    watch: Any
    processes: Processes


def scheduler_address(proc: subprocess.Popen[str], file: Path, processes: Processes) -> str:
    """The address the scheduler writes to its `file` once it listens."""
    deadline = time.monotonic() + STEP_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            address: str = json.loads(file.read_text())["address"]
            return address
        except (OSError, ValueError, KeyError):  # not written yet, or half-written
            time.sleep(0.05)
    pytest.fail(f"the scheduler did not start\n{processes.log_tails()}")


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    logs = tmp_path / "logs"
    logs.mkdir()
    processes = Processes(logs)
    watch = None
    try:
        # Port 0: the system picks a free port, with no window for another process to
        # take it; the scheduler says which in its file.
        scheduler = processes.start(
            "scheduler",
            [
                *dask_command(),
                "scheduler",
                *("--host", "127.0.0.1", "--port", "0", "--no-dashboard"),
                *("--idle-timeout", "300s", "--scheduler-file", str(tmp_path / "scheduler.json")),
            ],
        )
        address = scheduler_address(scheduler, tmp_path / "scheduler.json", processes)
        workers = {
            name: processes.start(
                name,
                [
                    *dask_command(),
                    *("worker", address, "--nworkers", "1", "--nthreads", "1"),
                    *("--name", name, "--host", "127.0.0.1", "--no-dashboard"),
                    *("--death-timeout", "60s", "--local-directory", str(tmp_path / name)),
                ],
            )
            for name in ("w0", "w1")
        }
        try:
            watch = distributed.Client(address, timeout=STEP_S)
            watch.wait_for_workers(len(workers), timeout=STEP_S)
        except (OSError, TimeoutError) as e:
            pytest.fail(f"the cluster did not come up ({e})\n{processes.log_tails()}")
        yield Cluster(address, scheduler, workers, watch, processes)
    finally:
        if watch is not None:
            watch.close()
        left = processes.close()
    assert not left, f"processes left behind: {left}"


def campaign(tmp_path: Path) -> Path:
    (tmp_path / "chain.toml").write_text((FIXTURES / "chain.toml").read_text())
    path = tmp_path / "cluster.toml"
    path.write_text(SPEC)
    return path


class Sweep:
    """``lastmile sweep FILE --dask ADDRESS`` in a process of its own; stderr read aside."""

    def __init__(self, cluster: Cluster, path: Path, name: str) -> None:
        self.proc = cluster.processes.start(
            name,
            [sys.executable, "-m", "lastmile", "sweep", str(path), "--dask", cluster.address],
            stderr=subprocess.PIPE,
            cwd=path.parent,
        )
        assert self.proc.stderr is not None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.err: list[str] = []
        threading.Thread(target=self._read, args=(self.proc.stderr,), daemon=True).start()

    def _read(self, stream: IO[str]) -> None:
        with stream:  # closed at end of file: no unclosed pipe left for the next test
            for line in stream:
                self.lines.put(line)
        self.lines.put(None)

    def wait_for_stored(self, runs: int) -> None:
        """Read progress lines (``cluster: 24/96 runs, ...``) until `runs` are stored."""
        deadline = time.monotonic() + STEP_S
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if line is None:
                pytest.fail(f"the sweep ended before {runs} runs: {''.join(self.err)}")
            self.err.append(line)
            done = re.match(r"cluster: (\d+)/\d+ runs", line)
            if done and int(done[1]) >= runs:
                return
        pytest.fail(f"no {runs} runs stored within {STEP_S} s: {''.join(self.err)}")

    def finish(self) -> str:
        """Wait for the sweep to end; its whole stderr."""
        self.proc.wait(timeout=STEP_S)
        while (line := self.lines.get(timeout=STEP_S)) is not None:
            self.err.append(line)
        return "".join(self.err)


def holding_a_chunk(cluster: Cluster, name: str) -> bool:
    """True when the scheduler has given worker `name` a task it has not finished."""
    info = cluster.watch.scheduler_info()["workers"]
    return any(
        w["name"] == name and keys
        for address, keys in cluster.watch.processing().items()
        for w in [info.get(address, {"name": None})]
    )


def stored_rows(store: Path) -> pd.DataFrame:
    with duckdb.connect(str(store), read_only=True) as con:
        return con.sql("SELECT * FROM runs").to_arrow_table().to_pandas()


def assert_every_run_once(store: Path) -> None:
    rows = stored_rows(store)
    counts = rows.groupby(["variant", "point_key", "seed"]).size()
    assert len(counts) == TOTAL and set(counts) == {1}, counts[counts != 1]
    expected = {(v, p, s) for v in VARIANTS for p in PERS for s in range(1, SEEDS + 1)}
    assert set(zip(rows["variant"], rows[PER], rows["seed"], strict=True)) == expected
    assert set(rows["status"]) == {"ok"}, rows.loc[rows["status"] != "ok", "error"].iloc[0]


def assert_same_rows_as_a_local_sweep(path: Path, store: Path, tmp_path: Path) -> None:
    local = lastmile.sweep(path, jobs=2, store=tmp_path / "local.duckdb", progress=False)
    here = lastmile.sweep(path, jobs=1, store=store, progress=False)  # runs nothing
    pd.testing.assert_frame_equal(local.drop(columns=WALL), here.drop(columns=WALL))


def test_a_worker_killed_midway_costs_no_run(cluster: Cluster, tmp_path: Path) -> None:
    path = campaign(tmp_path)
    sweep = Sweep(cluster, path, "sweep")
    sweep.wait_for_stored(TOTAL // 4)
    victim = "w1"
    deadline = time.monotonic() + STEP_S
    while not holding_a_chunk(cluster, victim):
        assert time.monotonic() < deadline and sweep.proc.poll() is None, sweep.finish()
        time.sleep(0.02)
    Processes.kill(cluster.workers[victim])  # its nanny and its worker process
    assert not left_in_groups({cluster.workers[victim].pid})
    err = sweep.finish()
    assert sweep.proc.returncode == 0, err
    # The client stored each run once (a chunk stored twice would count twice here).
    assert f"ran {TOTAL} runs (0 failed)" in err, err
    assert "Traceback" not in err, err
    assert f"{TOTAL} of {TOTAL} stored" in err, err
    assert [w["name"] for w in cluster.watch.scheduler_info()["workers"].values()] == ["w0"]
    store = tmp_path / "cluster.duckdb"
    assert_every_run_once(store)
    assert_same_rows_as_a_local_sweep(path, store, tmp_path)


def test_a_client_killed_midway_resumes_from_the_store(cluster: Cluster, tmp_path: Path) -> None:
    path = campaign(tmp_path)
    first = Sweep(cluster, path, "first")
    first.wait_for_stored(TOTAL // 4)
    Processes.kill(first.proc)
    stored = len(stored_rows(tmp_path / "cluster.duckdb"))
    assert TOTAL // 4 <= stored < TOTAL
    again = Sweep(cluster, path, "again")
    err = again.finish()
    assert again.proc.returncode == 0, err
    assert f"ran {TOTAL - stored} runs (0 failed)" in err, err
    assert_every_run_once(tmp_path / "cluster.duckdb")
    # The dead client's tasks were dropped with it: the cluster is idle again.
    assert not any(cluster.watch.processing().values())


def test_a_lost_scheduler_stops_the_sweep_in_one_line(cluster: Cluster, tmp_path: Path) -> None:
    sweep = Sweep(cluster, campaign(tmp_path), "sweep")
    sweep.wait_for_stored(TOTAL // 4)
    Processes.kill(cluster.scheduler)
    err = sweep.finish()
    assert sweep.proc.returncode == 1, err
    assert "Traceback" not in err, err
    last = err.splitlines()[-1]
    assert last.startswith("lastmile: error: the sweep lost its Dask scheduler"), err
    rows = stored_rows(tmp_path / "cluster.duckdb")
    assert TOTAL // 4 <= len(rows) < TOTAL
    assert not rows.duplicated(["point_key", "seed"]).any()
