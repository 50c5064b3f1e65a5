"""Sweeps without the simulator: expansion, validation, the store, failures, statistics.

A deterministic fake runner (`sweep_fixtures/fake_runner.py`) stands in for `lastmile.run`,
so these tests pin the campaign machinery itself; `test_sweep_e2e.py` runs the real core.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pytest

FIXTURES = Path(__file__).resolve().parent / "sweep_fixtures"
sys.path.insert(0, str(FIXTURES))

from fake_runner import (  # noqa: E402
    PER,
    crash_run,
    fake_run,
    fake_validate,
    flaky_run,
    seed_run,
)

from lastmile import cli_sweep  # noqa: E402
from lastmile.sweep import (  # noqa: E402
    StoreError,
    SweepError,
    flatten_summary,
    load_sweep,
    mean_ci,
    results,
    run_campaign,
    sweep,
    t_quantile,
)
from lastmile.sweep.progress import Progress  # noqa: E402

#: Columns that hold wall-clock time: the only ones allowed to differ between executors.
WALL = ["wall_s", "engine_wall_s", "finished_at"]


def write_sweep(directory: Path, text: str) -> Path:
    (directory / "chain.toml").write_text((FIXTURES / "chain.toml").read_text())
    path = directory / "campaign.toml"
    path.write_text(text)
    return path


SPEC = """
name = "grid"
scenario = "chain.toml"
seeds = 3
[grid]
"topology.wireless.errors.per" = [0.0, 0.05, 0.1]
flow.0.tcp.rwnd = ["16KB", "42KB"]
[zip]
"flow.0.app.bytes" = ["100KB", "200KB"]
"topology.wired.delay" = ["1ms", "5ms"]
[variants.newreno]
"flow.0.tcp.variant" = "newreno"
[variants.tulip]
topology.wireless.link = "tulip"
base_station = { agent = "none" }
"""


def fake_sweep(path: Path, **kwargs: Any) -> pd.DataFrame:
    kwargs.setdefault("runner", fake_run)
    kwargs.setdefault("validator", fake_validate)
    kwargs.setdefault("jobs", 1)
    kwargs.setdefault("progress", False)
    return sweep(path, **kwargs)


# -- expansion ---------------------------------------------------------------------------


def test_grid_zip_variants_expand_to_the_cartesian_product(tmp_path: Path) -> None:
    spec = load_sweep(write_sweep(tmp_path, SPEC))
    points = spec.points()
    # 2 variants x (3 x 2 grid) x 2 zip rows; then 3 seeds each.
    assert len(points) == 24
    assert spec.run_count() == 72
    assert spec.axes == (
        PER,
        "flow.0.tcp.rwnd",
        "flow.0.app.bytes",
        "topology.wired.delay",
    )
    assert len({p.key for p in points}) == 24
    first, last = points[0], points[-1]
    assert first.variant == "newreno"
    assert dict(first.overrides) == {
        "flow.0.tcp.variant": "newreno",
        PER: 0.0,
        "flow.0.tcp.rwnd": "16KB",
        "flow.0.app.bytes": "100KB",
        "topology.wired.delay": "1ms",
    }
    # Variants cross the grid; unquoted dotted keys and inline tables flatten to paths.
    assert last.variant == "tulip"
    assert dict(last.overrides) == {
        "topology.wireless.link": "tulip",
        "base_station.agent": "none",
        PER: 0.1,
        "flow.0.tcp.rwnd": "42KB",
        "flow.0.app.bytes": "200KB",
        "topology.wired.delay": "5ms",
    }
    # Zip axes advance together: never 100KB with 5ms.
    pairs = {(p.params["flow.0.app.bytes"], p.params["topology.wired.delay"]) for p in points}
    assert pairs == {("100KB", "1ms"), ("200KB", "5ms")}
    # The last grid axis moves fastest, then the zip index.
    assert [p.params["flow.0.tcp.rwnd"] for p in points[:4]] == ["16KB", "16KB", "42KB", "42KB"]
    key = json.loads(first.key)
    assert key["variant"] == "newreno" and key["overrides"] == dict(first.overrides)
    assert spec.seeds == (1, 2, 3)


def test_no_variants_means_one_base_variant_and_seed_lists_are_kept(tmp_path: Path) -> None:
    spec = load_sweep(
        {"name": "x", "scenario": {"name": "inline"}, "seeds": [7, 3], "grid": {"a.b": [1, 2]}}
    )
    assert [p.variant for p in spec.points()] == ["base", "base"]
    assert spec.seeds == (7, 3)
    assert spec.run_count() == 4


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[zip]\n"a.b" = [1, 2]\n"c.d" = [1]', ["[zip]", "a.b has 2", "c.d has 1"]),
        ('[grid]\n"a.b" = [1]\n[zip]\n"a.b" = [2]', ["'a.b'", "both [grid] and [zip]"]),
        ('[grid]\n"a.b" = []', ["[grid] a.b = []", "non-empty list"]),
        ('[grid]\n"a.b" = 3', ["[grid] a.b = 3", "list"]),
        ('[grid]\n"a.b" = [1, 1]', ["[grid] a.b", "1", "twice"]),
        ('[grid]\n"a.b" = [1]\n[variants.v]\n"a.b" = 2', ["[variants.v]", "'a.b'", "axis"]),
        ("seeds = 0", ["seeds = 0"]),
        ('seeds = [1, "x"]', ["seeds", "'x'"]),
        ('color = "red"', ["unknown key 'color'"]),
        ('[grid]\n"seed" = [1, 2]', ["'seed'", "reserved"]),
    ],
)
def test_bad_sweep_files_name_the_axis_and_value(
    tmp_path: Path, text: str, words: list[str]
) -> None:
    path = write_sweep(tmp_path, f'name = "bad"\nscenario = "chain.toml"\n{text}\n')
    with pytest.raises(SweepError) as error:
        load_sweep(path)
    message = str(error.value)
    assert message.startswith(str(path))
    for word in words:
        assert word in message


def test_a_missing_scenario_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('name = "x"\nscenario = "nowhere.toml"\n')
    with pytest.raises(SweepError, match=r"scenario = 'nowhere.toml': no such file"):
        load_sweep(path)


def test_an_invalid_axis_value_stops_the_sweep_before_anything_runs(tmp_path: Path) -> None:
    path = write_sweep(
        tmp_path,
        f'name = "bad-value"\nscenario = "chain.toml"\n[grid]\n"{PER}" = [0.1, 1.5, -2]\n',
    )
    store = tmp_path / "out.duckdb"
    with pytest.raises(SweepError) as error:
        fake_sweep(path, store=store)
    message = str(error.value)
    assert f"[grid] {PER} = 1.5" in message
    assert f"[grid] {PER} = -2" in message
    assert "expected a probability in [0, 1]" in message
    assert error.value.axis == PER and error.value.value == 1.5
    assert not store.exists()


# -- running and storing -----------------------------------------------------------------


def test_flattening_names_flow_wireless_link_and_engine_columns() -> None:
    flat = flatten_summary(fake_run("chain.toml", 1, {}))
    for column in (
        "scenario_name",
        "flow0_throughput_bps",
        "flow0_variant",
        "throughput_bps",
        "tcp_timeouts",
        "wireless_goodput_wireless",
        "link0_queue_drops",
        "engine_events",
        "engine_wall_s",
    ):
        assert column in flat
    assert flat["throughput_bps"] == flat["flow0_throughput_bps"]
    assert "seed" not in flat and "variant" not in flat and "name" not in flat
    two = fake_run("chain.toml", 1, {})
    two["flows"].append(dict(two["flows"][0]))
    flat = flatten_summary(two)
    assert "flow1_throughput_bps" in flat and "throughput_bps" not in flat


def test_a_sweep_stores_every_run_once_and_a_rerun_runs_nothing(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, SPEC)
    runs = fake_sweep(path)
    assert len(runs) == 72
    assert (tmp_path / "grid.duckdb").is_file()  # the default store: <dir>/<campaign>.duckdb
    assert set(runs["status"]) == {"ok"}
    assert not runs.duplicated(["variant", "point_key", "seed"]).any()
    assert {"flow.0.tcp.rwnd", PER, "throughput_bps", "engine_events"} <= set(runs.columns)
    assert runs[PER].dtype == "float64"
    assert set(runs["lastmile_version"]) and set(runs["git_commit"])
    again = run_campaign(path, runner=fake_run, validator=fake_validate, jobs=1, progress=False)
    assert (again.stored_before, again.ran) == (72, 0)
    with duckdb.connect(str(tmp_path / "grid.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (72,)


def test_a_failing_point_is_recorded_and_the_rest_complete(tmp_path: Path) -> None:
    text = SPEC.replace('[variants.newreno]\n"flow.0.tcp.variant" = "newreno"', "")
    text += '[variants.broken]\n"flow.0.tcp.variant" = "boom"\n'
    path = write_sweep(tmp_path, text)
    outcome = run_campaign(path, runner=fake_run, validator=fake_validate, jobs=1, progress=False)
    assert (outcome.ran, outcome.failed) == (72, 36)
    runs = results(tmp_path / "grid.duckdb", runs=True)
    failed = runs[runs["status"] == "failed"]
    assert set(failed["variant"]) == {"broken"}
    assert set(failed["error"]) == {"RuntimeError: the simulator broke an invariant"}
    assert failed["throughput_bps"].isna().all()
    assert (runs[runs["variant"] == "tulip"]["status"] == "ok").all()
    summary = results(tmp_path / "grid.duckdb")
    assert set(summary[summary["variant"] == "broken"]["failed"]) == {3}
    assert set(summary[summary["variant"] == "broken"]["runs"]) == {0}


def test_retry_failed_reruns_only_failures_and_keeps_one_row_each(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, SPEC)
    first = run_campaign(path, runner=flaky_run, validator=fake_validate, jobs=1, progress=False)
    assert first.failed == 24  # every seed-2 run
    plain = run_campaign(path, runner=fake_run, validator=fake_validate, jobs=1, progress=False)
    assert plain.ran == 0  # a stored failure counts as done...
    retry = run_campaign(
        path,
        runner=fake_run,
        validator=fake_validate,
        jobs=1,
        progress=False,
        retry_failed=True,
    )
    assert (retry.ran, retry.failed) == (24, 0)  # ...until --retry-failed
    runs = results(tmp_path / "grid.duckdb", runs=True)
    assert len(runs) == 72 and set(runs["status"]) == {"ok"} and runs["error"].isna().all()


def test_local_pool_gives_the_same_rows_as_this_process(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, SPEC)
    serial = fake_sweep(path, store=tmp_path / "serial.duckdb")
    pooled = fake_sweep(path, store=tmp_path / "pool.duckdb", jobs=2, chunk_size=5)
    pd.testing.assert_frame_equal(serial.drop(columns=WALL), pooled.drop(columns=WALL))


def test_a_worker_that_dies_fails_only_its_own_run(tmp_path: Path) -> None:
    path = write_sweep(
        tmp_path,
        f'name = "crash"\nscenario = "chain.toml"\nseeds = 4\n[grid]\n"{PER}" = [0, 0.1]\n',
    )
    outcome = run_campaign(
        path, runner=crash_run, validator=fake_validate, jobs=2, chunk_size=3, progress=False
    )
    assert (outcome.ran, outcome.failed) == (8, 2)
    runs = results(tmp_path / "crash.duckdb", runs=True)
    failed = runs[runs["status"] == "failed"]
    assert list(failed["seed"]) == [3, 3]
    assert set(failed["error"]) == {"worker process died during this run"}


def test_column_types_widen_across_campaigns(tmp_path: Path) -> None:
    store = tmp_path / "shared.duckdb"
    for name, values in (("ints", "[1, 2]"), ("floats", "[0.5, 2]"), ("text", '["a", "b"]')):
        spec = f'name = "{name}"\nscenario = "chain.toml"\n[grid]\n"x.y" = {values}\n'
        fake_sweep(write_sweep(tmp_path, spec), store=store)
    runs = results(store, runs=True)
    # BIGINT, then DOUBLE, then VARCHAR: earlier values keep their (widened) text.
    assert sorted(runs["x.y"]) == ["0.5", "1.0", "2.0", "2.0", "a", "b"]


def test_an_axis_mixing_kinds_is_stored_as_json_text(tmp_path: Path) -> None:
    spec = 'name = "mixed"\nscenario = "chain.toml"\n[grid]\n"x.y" = [1, "a", [2, 3]]\n'
    runs = fake_sweep(write_sweep(tmp_path, spec))
    assert sorted(runs["x.y"]) == ['"a"', "1", "[2,3]"]


# -- results -----------------------------------------------------------------------------


def test_student_t_quantiles_and_the_interval_of_a_known_sample() -> None:
    assert t_quantile(0.975, 4) == pytest.approx(2.776445, abs=1e-6)
    assert t_quantile(0.975, 1) == pytest.approx(12.706205, abs=1e-6)
    assert t_quantile(0.975, 30) == pytest.approx(2.042272, abs=1e-6)
    assert t_quantile(0.025, 10) == pytest.approx(-2.228139, abs=1e-6)
    mean, half = mean_ci([1, 2, 3, 4, 5])
    assert mean == 3.0
    assert half == pytest.approx(t_quantile(0.975, 4) * math.sqrt(2.5) / math.sqrt(5), rel=1e-12)
    assert half == pytest.approx(1.963, abs=5e-4)
    assert math.isnan(mean_ci([4.0])[1])


def test_results_give_mean_and_ci_per_point_over_seeds(tmp_path: Path) -> None:
    path = write_sweep(
        tmp_path,
        f'name = "ci"\nscenario = "chain.toml"\nseeds = 5\n[grid]\n"{PER}" = [0.0, 0.1]\n',
    )
    fake_sweep(path, runner=seed_run)
    table = results(tmp_path / "ci.duckdb", metrics=["throughput_bps"])
    assert list(table.columns) == [
        "variant",
        PER,
        "runs",
        "failed",
        "throughput_bps_mean",
        "throughput_bps_ci95",
    ]
    assert list(table[PER]) == [0.0, 0.1]
    assert list(table["throughput_bps_mean"]) == [3.0, 3.0]
    assert table["throughput_bps_ci95"].tolist() == pytest.approx([1.9632, 1.9632], abs=1e-4)
    version = results(tmp_path / "ci.duckdb", runs=True)["code_version"].iloc[0]
    same = results(tmp_path / "ci.duckdb", metrics=["throughput_bps"], code_version=version)
    pd.testing.assert_frame_equal(same, table)
    other = results(tmp_path / "ci.duckdb", metrics=["throughput_bps"], code_version="0+other")
    assert other.empty
    pooled = results(tmp_path / "ci.duckdb", group_by=[], metrics=["throughput_bps"])
    assert pooled["runs"].tolist() == [10]
    assert pooled["throughput_bps_ci95"].iloc[0] == pytest.approx(
        t_quantile(0.975, 9) * pd.Series([1, 2, 3, 4, 5] * 2).std() / math.sqrt(10)
    )


def test_results_errors_name_what_is_missing(tmp_path: Path) -> None:
    path = write_sweep(tmp_path, f'name = "e"\nscenario = "chain.toml"\n[grid]\n"{PER}" = [0]\n')
    fake_sweep(path)
    store = tmp_path / "e.duckdb"
    with pytest.raises(StoreError, match=r"no campaign 'nope' .* holds: e\)"):
        results(store, campaign="nope")
    with pytest.raises(StoreError, match="unknown metric 'goodput'"):
        results(store, metrics=["goodput"])
    with pytest.raises(StoreError, match="not numeric"):
        results(store, metrics=["engine_stop_reason"])
    with pytest.raises(StoreError, match="cannot group by 'rwnd'"):
        results(store, group_by=["rwnd"])
    with pytest.raises(StoreError, match="no such results store"):
        results(tmp_path / "none.duckdb")


def test_results_cli_prints_exports_and_lists_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_sweep(tmp_path, SPEC)
    fake_sweep(path)
    store = str(tmp_path / "grid.duckdb")
    assert cli_sweep.main(["results", store, "--group-by", "variant"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["variant", "runs", "failed"]
    assert len(out) == 3 and " ± " in out[1]
    assert cli_sweep.main(["results", store, "--runs", "--csv", str(tmp_path / "r.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "r.csv")) == 72
    parquet = tmp_path / "p.parquet"
    assert (
        cli_sweep.main(["results", store, "--metric", "tcp_timeouts", "--parquet", str(parquet)])
        == 0
    )
    table = pd.read_parquet(parquet)
    assert len(table) == 24 and "tcp_timeouts_ci95" in table.columns
    assert cli_sweep.main(["results", store, "--campaign", "nope"]) == 2
    assert "lastmile: error:" in capsys.readouterr().err


def test_progress_is_plain_lines_without_a_terminal() -> None:
    class Sink:
        def __init__(self) -> None:
            self.text = ""

        def write(self, text: str) -> None:
            self.text += text

        def flush(self) -> None:
            pass

        def isatty(self) -> bool:
            return False

    sink = Sink()
    bar = Progress(100, label="c: ", stream=sink)  # type: ignore[arg-type]
    for _ in range(100):
        bar.advance(1, 0)
    bar.advance(0, 0)
    bar.close()
    lines = sink.text.splitlines()
    assert "\r" not in sink.text and len(lines) == 11
    assert lines[0].startswith("c: 0/100 runs")
    assert lines[-1].startswith("c: 100/100 runs") and "ETA 0:00" in lines[-1]
