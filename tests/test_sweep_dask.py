"""Sweeps on Dask: a LocalCluster of 2 workers stores the same rows as the local pool, and
a worker lost mid-sweep costs nothing (Dask redoes its tasks; each run is stored once); a
chunk Dask gives up on is retried run by run; a worker running other code stops the sweep;
and without the Dask extra every Dask entry point says in one line how to install it.

A real cluster started with Dask's own commands is in `test_dask_cluster.py`.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest


def _optional(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


#: None when the Dask extra is not installed: only the tests of its absence run then.
distributed = _optional("distributed")
needs_dask = pytest.mark.skipif(distributed is None, reason="the Dask extra is not installed")

FIXTURES = Path(__file__).resolve().parent / "sweep_fixtures"
sys.path.insert(0, str(FIXTURES))

from fake_runner import PER, crash_run, die_once_run, fake_run, fake_validate  # noqa: E402

from lastmile import LastmileError, cli  # noqa: E402
from lastmile.sweep import ExecutorError, sweep  # noqa: E402
from lastmile.sweep.executors import MissingExtraError, run_chunk_checked  # noqa: E402
from lastmile.sweep.runner import RunTask, code_version  # noqa: E402

WALL = ["wall_s", "engine_wall_s", "finished_at"]

SPEC = f"""
name = "dask"
scenario = "chain.toml"
seeds = 5
[grid]
"{PER}" = [0.0, 0.05, 0.1, 0.2]
[variants.newreno]
"flow.0.tcp.variant" = "newreno"
[variants.tahoe]
"flow.0.tcp.variant" = "tahoe"
"""


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def write(tmp_path: Path) -> Path:
    (tmp_path / "chain.toml").write_text((FIXTURES / "chain.toml").read_text())
    path = tmp_path / "dask.toml"
    path.write_text(SPEC)
    return path


@needs_dask
def test_dask_rows_equal_local_pool_rows(tmp_path: Path, client: Any) -> None:
    path = write(tmp_path)
    common: dict[str, Any] = {"runner": fake_run, "validator": fake_validate, "progress": False}
    pool = sweep(path, jobs=2, store=tmp_path / "pool.duckdb", **common)
    dask = sweep(path, client=client, store=tmp_path / "dask.duckdb", chunk_size=3, **common)
    assert len(dask) == 40 and set(dask["status"]) == {"ok"}
    pd.testing.assert_frame_equal(pool.drop(columns=WALL), dask.drop(columns=WALL))


@needs_dask
def test_a_lost_dask_worker_loses_no_run(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "died"
    monkeypatch.setenv("LASTMILE_FAKE_MARKER", str(marker))
    client.run(lambda: __import__("os").environ.update(LASTMILE_FAKE_MARKER=str(marker)))
    path = write(tmp_path)
    rows = sweep(
        path,
        client=client,
        store=tmp_path / "lost.duckdb",
        runner=die_once_run,
        validator=fake_validate,
        chunk_size=2,
        progress=False,
    )
    assert marker.exists()  # a worker did die
    assert len(rows) == 40 and set(rows["status"]) == {"ok"}
    assert not rows.duplicated(["point_key", "seed"]).any()


def test_a_lost_pool_worker_loses_no_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "died"
    monkeypatch.setenv("LASTMILE_FAKE_MARKER", str(marker))
    rows = sweep(
        write(tmp_path),
        jobs=2,
        store=tmp_path / "lost.duckdb",
        runner=die_once_run,
        validator=fake_validate,
        chunk_size=2,
        progress=False,
    )
    assert marker.exists()
    assert len(rows) == 40 and set(rows["status"]) == {"ok"}


@needs_dask
def test_a_chunk_dask_gives_up_on_is_retried_run_by_run(tmp_path: Path) -> None:
    # allowed-failures 0: Dask gives up on a task the first time its worker dies. The
    # chunk holding the run that kills its worker is then retried run by run: its other
    # runs complete, and only the killer is stored as failed.
    import dask

    write(tmp_path)
    path = tmp_path / "crash.toml"
    path.write_text('name = "crash"\nscenario = "chain.toml"\nseeds = 6\n')
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        rows = sweep(
            path,
            client=c,
            store=tmp_path / "crash.duckdb",
            runner=crash_run,
            validator=fake_validate,
            chunk_size=3,
            progress=False,
        )
    status = dict(zip(rows["seed"], rows["status"], strict=True))
    assert status == {1: "ok", 2: "ok", 3: "failed", 4: "ok", 5: "ok", 6: "ok"}
    error = rows.loc[rows["seed"] == 3, "error"].item()
    assert error.startswith("Dask worker lost while running it alone: "), error


@needs_dask
def test_a_worker_with_another_code_version_stops_the_sweep(tmp_path: Path, client: Any) -> None:
    # The store keys every row by the client's code version: a worker running other code
    # must not store rows under it.
    def set_version(version: str) -> str:
        import lastmile
        from lastmile.sweep import executors

        before, lastmile.__version__ = lastmile.__version__, version
        executors._worker_code_version.cache_clear()
        return before

    before = set(client.run(set_version, "0.0.0-elsewhere").values())
    try:
        with pytest.raises(ExecutorError, match=r"runs lastmile 0\.0\.0-elsewhere\+") as caught:
            sweep(
                write(tmp_path),
                client=client,
                store=tmp_path / "version.duckdb",
                runner=fake_run,
                validator=fake_validate,
                progress=False,
            )
    finally:
        client.run(set_version, before.pop())
    assert "install the same lastmile on every worker" in str(caught.value)
    with duckdb.connect(str(tmp_path / "version.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (0,)


@needs_dask
def test_a_relative_sweep_path_runs_on_workers_elsewhere(
    tmp_path: Path, client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The scenario path is relative to the client's working directory, not the workers'.
    assert str(tmp_path) not in set(client.run(os.getcwd).values())
    write(tmp_path)
    monkeypatch.chdir(tmp_path)
    rows = sweep("dask.toml", client=client, store="relative.duckdb", progress=False)
    assert len(rows) == 40 and set(rows["status"]) == {"ok"}, rows["error"].dropna().iloc[:1]


def test_a_worker_that_cannot_read_the_scenario_stops_the_sweep(tmp_path: Path) -> None:
    missing = str(tmp_path / "elsewhere" / "chain.toml")
    task = RunTask(missing, 1, {}, {"point_key": "p", "seed": 1, "variant": "base"})
    with pytest.raises(ExecutorError, match=r"cannot read the scenario file .*elsewhere"):
        run_chunk_checked(fake_run, [task], code_version().key)


# -- without the Dask extra -------------------------------------------------------------

NO_DASK = "running on Dask needs the Dask extra, which is not installed"
INSTALL = "pip install 'lastmile[dask]'"


@pytest.fixture
def no_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    """`distributed` (and `dask`) cannot be imported, as without the extra.

    Their submodules stay loaded, for the module's LocalCluster that may still be up.
    """
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.setitem(sys.modules, "dask", None)


@pytest.mark.parametrize("where", ["local:2", "tcp://127.0.0.1:8786"])
def test_sweep_dask_without_the_extra_is_one_line_and_exit_2(
    tmp_path: Path, no_dask: None, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    status = cli.main(["sweep", str(write(tmp_path)), "--dask", where])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith(f"lastmile: error: {NO_DASK}"), err
    assert err.rstrip().endswith(INSTALL), err
    assert not (tmp_path / "dask.duckdb").exists()  # nothing ran


def test_reproduce_dask_without_the_extra_is_one_line_and_exit_2(
    tmp_path: Path, no_dask: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from lastmile.reproduce import catalogue

    name = next(iter(catalogue()))
    status = cli.main(["reproduce", name, "--quick", "--dask", "local:1", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and INSTALL in err, err


def test_the_api_without_the_extra_raises_an_import_error_naming_it(
    tmp_path: Path, no_dask: None
) -> None:
    with pytest.raises(MissingExtraError, match=r"Dask extra.*lastmile\[dask\]") as caught:
        sweep(write(tmp_path), client="local:2", runner=fake_run, validator=fake_validate)
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, LastmileError)
    assert caught.value.extra == "dask"


#: Runs the console script's entry point with `dask` and `distributed` unimportable.
BLOCKED = """
import importlib.abc, sys

class NoDask(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("dask", "distributed"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoDask())
from lastmile.cli import entry
sys.argv = ["lastmile", *sys.argv[1:]]
entry()
"""


def test_the_installed_command_without_the_extra_prints_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(BLOCKED), "sweep", str(path), "--dask", "local:2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f"lastmile: error: {NO_DASK} (No module named 'distributed'): {INSTALL}\n"
    ), proc.stderr
