"""Sweeps on Dask: a LocalCluster of 2 workers stores the same rows as the local pool, and
a worker lost mid-sweep costs nothing (Dask redoes its tasks; each run is stored once)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

FIXTURES = Path(__file__).resolve().parent / "sweep_fixtures"
sys.path.insert(0, str(FIXTURES))

from fake_runner import PER, crash_run, die_once_run, fake_run, fake_validate  # noqa: E402

from lastmile.sweep import ExecutorError, sweep  # noqa: E402

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
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def write(tmp_path: Path) -> Path:
    (tmp_path / "chain.toml").write_text((FIXTURES / "chain.toml").read_text())
    path = tmp_path / "dask.toml"
    path.write_text(SPEC)
    return path


def test_dask_rows_equal_local_pool_rows(tmp_path: Path, client: Any) -> None:
    path = write(tmp_path)
    common: dict[str, Any] = {"runner": fake_run, "validator": fake_validate, "progress": False}
    pool = sweep(path, jobs=2, store=tmp_path / "pool.duckdb", **common)
    dask = sweep(path, client=client, store=tmp_path / "dask.duckdb", chunk_size=3, **common)
    assert len(dask) == 40 and set(dask["status"]) == {"ok"}
    pd.testing.assert_frame_equal(pool.drop(columns=WALL), dask.drop(columns=WALL))


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
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
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
