"""What a hostile or careless input gets: no write through a planted link, bounded input,
no finished run thrown away, no traceback, NumPy numbers, duplicate keys, run budgets and
SIGTERM, and the small things (a foreign DuckDB file, ``--out ''``, ``--seed 1e3``, a
value echoed as typed). Each test reproduces one hostile input found by an adversarial pass.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest

import lastmile
from conftest import SMALL, example, lastmile_cli, write

TULIP = str(example("tulip-basic"))
EXPLICIT = str(example("explicit-topology"))


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a refused command (exit status 2, no traceback)."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("lastmile: error: "), lines[0]
    return lines[0]


# ---- 7: nothing is written through a link that was there before the run --------------


@pytest.mark.parametrize("planted", ["summary.json", "seq.parquet", "wireless.pcapng"])
def test_a_planted_link_in_the_output_folder_is_replaced_not_written_through(
    tmp_path: Path, planted: str
) -> None:
    victim = write(tmp_path, "victim.txt", "precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / planted).symlink_to(victim)
    lastmile_cli(
        "run", EXPLICIT, "--trace", "seq", "--pcap", "wireless", "--out", str(out), check=True
    )
    assert victim.read_text() == "precious"
    assert not (out / planted).is_symlink()
    assert (out / planted).stat().st_size > 0
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []


def test_the_default_output_folder_is_safe_too(tmp_path: Path) -> None:
    victim = write(tmp_path, "victim.txt", "precious")
    out = tmp_path / "out" / "explicit-topology"
    out.mkdir(parents=True)
    (out / "summary.json").symlink_to(victim)
    lastmile_cli(
        "run", "--example", "explicit-topology", "--trace", "seq", cwd=tmp_path, check=True
    )
    assert victim.read_text() == "precious"
    assert json.loads((out / "summary.json").read_text())["name"] == "explicit-topology"


def test_pictures_and_pages_are_not_written_through_a_planted_link(tmp_path: Path) -> None:
    victim = write(tmp_path, "victim.txt", "precious")
    out = tmp_path / "out"
    lastmile_cli("run", EXPLICIT, "--trace", "seq", "cwnd", "--out", str(out), check=True)
    for name in ("seq.png", "cwnd.svg", "report.html"):
        (out / name).symlink_to(victim)
    lastmile_cli("plot", str(out), check=True)
    lastmile_cli("report", str(out), check=True)
    assert victim.read_text() == "precious"
    assert not any((out / n).is_symlink() for n in ("seq.png", "cwnd.svg", "report.html"))


# ---- 8: input size and nesting are bounded, error location is linear ------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("topology.wireless.errors", '{{model="drop_list", packets=[{items}]}}'),
        ("flow.0.app", '{{kind="bulk", bytes=[{items}]}}'),
    ],
)
def test_one_bad_entry_at_the_end_of_a_long_list_is_reported_quickly(
    field: str, value: str
) -> None:
    items = ",".join([*(str(i) for i in range(1, 50_000)), '"x"'])
    start = time.monotonic()
    with pytest.raises(lastmile.ScenarioError) as info:
        lastmile.load(TULIP, [f"{field}={value.format(items=items)}"])
    assert time.monotonic() - start < 10  # 77 s before: quadratic in the list's length
    assert "\n" not in str(info.value)


def test_a_long_residence_schedule_with_a_bad_time_at_the_end_is_reported_quickly() -> None:
    times = ", ".join([*(f'"{i}s"' for i in range(1, 50_000)), '"soon"'])
    start = time.monotonic()
    with pytest.raises(lastmile.ScenarioError) as info:
        lastmile.load(
            example("cells-handoff"),
            [f'mobile.0.residence={{kind="schedule", at=[{times}]}}'],
        )
    assert time.monotonic() - start < 10
    assert info.value.path.endswith("at[49999]"), info.value
    assert info.value.value == '"soon"'


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".yaml", "a: " + "[" * 100_000 + "]" * 100_000 + "\n"),
        (".toml", "a = " + "[" * 800_000 + "]" * 800_000 + "\n"),
        (".json", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    ],
)
def test_deeply_nested_brackets_are_refused_at_once(tmp_path: Path, suffix: str, text: str) -> None:
    path = write(tmp_path, f"deep{suffix}", text)
    start = time.monotonic()
    line = one_error_line(lastmile_cli("validate", str(path)))
    assert time.monotonic() - start < 15  # 20 s (YAML) and 44 s (TOML) before
    assert "brackets nested more than 64 deep at line 1" in line


def test_a_huge_file_a_device_and_a_fifo_are_refused_without_reading_them(
    tmp_path: Path,
) -> None:
    big = tmp_path / "big.toml"
    with big.open("w") as f:
        f.write('name = "' + "x" * (17 << 20) + '"\n')
    line = one_error_line(lastmile_cli("validate", str(big)))
    assert "larger than 16 MiB" in line
    (tmp_path / "zero.toml").symlink_to("/dev/zero")
    start = time.monotonic()
    line = one_error_line(lastmile_cli("validate", str(tmp_path / "zero.toml")))
    assert "is not a regular file" in line
    os.mkfifo(tmp_path / "fifo.toml")
    line = one_error_line(lastmile_cli("run", str(tmp_path / "fifo.toml")))
    assert "is not a regular file" in line
    assert time.monotonic() - start < 30  # no 2 GB read, no block forever


# ---- 9: a folder the run cannot write is refused before the run -----------------------


def test_an_output_folder_that_is_a_file_is_refused_before_the_run(tmp_path: Path) -> None:
    taken = write(tmp_path, "taken", "")
    for args in (["run", TULIP, "--out", str(taken)], ["validate", TULIP, "--out", str(taken)]):
        line = one_error_line(lastmile_cli(*args))
        assert f"--out {taken}: exists and is not a directory" in line
    with pytest.raises(lastmile.ArgumentError, match="exists and is not a directory"):
        lastmile.validate(TULIP, out_dir=taken)
    with pytest.raises(lastmile.ArgumentError, match=r"cannot be created: .* is not a dir"):
        lastmile.run(TULIP, traces=["seq"], out_dir=taken / "below")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_output_folder_is_refused_before_the_run(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    line = one_error_line(lastmile_cli("run", TULIP, "--out", str(locked / "run")))
    assert "permission denied" in line


def test_the_refusal_comes_before_the_simulation(tmp_path: Path) -> None:
    taken = write(tmp_path, "taken", "")
    start = time.monotonic()
    proc = lastmile_cli("run", TULIP, "--set", "flow.0.app.bytes=1GB", "--out", str(taken))
    one_error_line(proc)
    assert proc.stdout == ""  # no summary: nothing ran
    assert time.monotonic() - start < 20  # the 1 GB run takes minutes


# ---- 10: no traceback, no bare exception ---------------------------------------------


SWEEP = """
name = "hostile"
scenario = "{scenario}"
seeds = 1
[grid]
"flow.0.app.bytes" = ["20KB"]
"""


def sweep_file(tmp_path: Path) -> Path:
    return write(tmp_path, "s.sweep.toml", SWEEP.format(scenario=TULIP))


@pytest.mark.parametrize("size", ["0", "-1"])
def test_a_chunk_size_below_one_is_a_one_line_error(tmp_path: Path, size: str) -> None:
    line = one_error_line(lastmile_cli("sweep", str(sweep_file(tmp_path)), "--chunk-size", size))
    assert f"chunk_size = {size}: expected a whole number, at least 1" in line
    with pytest.raises(lastmile.ArgumentError, match="chunk_size"):
        lastmile.sweep(sweep_file(tmp_path), chunk_size=int(size), progress=False)


def test_api_arguments_of_the_wrong_kind_are_lastmile_errors(tmp_path: Path) -> None:
    spec = sweep_file(tmp_path)
    cases: list[tuple[Any, type[Exception], str]] = [
        (lambda: lastmile.run(TULIP, seed=10**5000), lastmile.ArgumentError, "seed"),
        (lambda: lastmile.sweep(123), lastmile.ArgumentTypeError, "spec = 123"),  # type: ignore[arg-type]
        (
            lambda: lastmile.sweep(spec, store=123),  # type: ignore[arg-type]
            lastmile.ArgumentTypeError,
            "store = 123",
        ),
        (lambda: lastmile.results(123), lastmile.ArgumentTypeError, "store = 123"),  # type: ignore[arg-type]
        (
            lambda: lastmile.sweep(spec, jobs="2"),  # type: ignore[arg-type]
            lastmile.ArgumentTypeError,
            "jobs = '2'",
        ),
        (lambda: lastmile.run(TULIP, pcap=["nope"]), lastmile.ArgumentError, "give out_dir"),
        (
            lambda: lastmile.Scenario.from_text("name = '\ud800'"),
            lastmile.ArgumentError,
            "lone surrogate",
        ),
    ]
    for call, kind, words in cases:
        with pytest.raises(kind) as info:
            call()
        assert words in str(info.value), str(info.value)
        assert len(str(info.value)) < 300


def test_deep_and_self_referential_overrides_are_argument_errors() -> None:
    deep: object = []
    for _ in range(5000):
        deep = [deep]
    loop: dict[str, object] = {}
    loop["x"] = loop
    for value in (deep, loop):
        with pytest.raises(lastmile.ArgumentError, match="nested more than 32 levels"):
            lastmile.load(TULIP, {"flow.0.app": value})
    line = one_error_line(lastmile_cli("validate", TULIP, "--set", "x=" + "[" * 5000 + "]" * 5000))
    assert "brackets nested more than 64 deep" in line


def test_a_sweep_dict_that_contains_itself_is_a_sweep_error_naming_the_key(
    tmp_path: Path,
) -> None:
    grid: dict[str, object] = {"flow.0.app.bytes": ["1KB"]}
    looped: dict[str, Any] = {"name": "loop", "scenario": example("tulip-basic"), "grid": grid}
    grid["again"] = looped
    scenario: dict[str, object] = {"name": "loop"}
    scenario["self"] = scenario
    in_scenario = {"name": "loop", "scenario": scenario, "grid": {"flow.0.app.bytes": ["1KB"]}}
    deep: object = ["1KB"]
    for _ in range(100):
        deep = [deep]
    too_deep = {"name": "deep", "scenario": example("tulip-basic"), "grid": {"x": deep}}
    store = tmp_path / "s.duckdb"
    for spec, where, what in [
        (looped, "grid.again.grid", "contains itself"),
        (in_scenario, "scenario.self", "contains itself"),
        (too_deep, "grid.x" + "[0]" * 63, "nested more than 64 deep"),
    ]:
        with pytest.raises(lastmile.SweepError, match=f"{re.escape(where)}: .*{what}"):
            lastmile.sweep(spec, jobs=1, store=store)
    assert not store.exists(), "nothing ran"


def test_an_unreachable_dask_scheduler_is_a_one_line_error(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(lastmile.LastmileError, match="cannot reach the Dask scheduler"):
        lastmile.sweep(sweep_file(tmp_path), client=f"tcp://127.0.0.1:{port}", progress=False)
    assert time.monotonic() - start < 25


# ---- 11: NumPy numbers are numbers ----------------------------------------------------


def test_numpy_numbers_are_accepted_as_overrides_and_sweep_values(tmp_path: Path) -> None:
    per = "topology.wireless.errors"
    s = lastmile.load(
        TULIP,
        {
            per: {"model": "per", "per": np.float64(0.1)},
            "seed": np.int64(7),
            "flow.0.tcp.timestamps": np.bool_(True),
        },
    )
    assert s.to_dict()["topology"]["wireless"]["errors"] == {"model": "per", "per": 0.1}
    assert s.seed == 7 and s.to_dict()["flow"][0]["tcp"]["timestamps"] is True
    runs = lastmile.sweep(
        {
            "name": "numpy",
            "scenario": str(example("chain-per5-newreno")),
            "seeds": [np.int64(1)],
            "grid": {f"{per}.per": list(np.linspace(0.0, 0.1, 3))},
            "variants": {"small": {"flow.0.app.bytes": "20KB"}},
        },
        store=tmp_path / "n.duckdb",
        jobs=1,
        progress=False,
    )
    assert sorted(runs[f"{per}.per"]) == [0.0, 0.05, 0.1]
    assert set(runs["status"]) == {"ok"}


# ---- 12: a key given twice is refused in every format ---------------------------------


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".json", '{"name": "a", "name": "b"}'),
        (".yaml", "name: a\nname: b\n"),
        (".toml", 'name = "a"\nname = "b"\n'),
    ],
)
def test_a_key_given_twice_is_refused_in_every_format(
    tmp_path: Path, suffix: str, text: str
) -> None:
    line = one_error_line(lastmile_cli("validate", str(write(tmp_path, f"d{suffix}", text))))
    assert "line 1" in line or "line 2" in line, line
    if suffix != ".toml":
        assert "the key `name` is given twice in one table" in line


# ---- 13: run budgets, SIGTERM ----------------------------------------------------------

LONG = ["--set", "flow.0.app.bytes=1000GB", "--set", "stop_time=100000000s"]


def test_an_event_budget_stops_the_run_with_a_partial_summary_and_status_3() -> None:
    proc = lastmile_cli("run", TULIP, *LONG, "--max-events", "1e5", "--json")
    assert proc.returncode == 3, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["engine"]["stop_reason"] == "budget"
    assert summary["engine"]["events"] == 100_000
    assert summary["flows"][0]["bytes_delivered"] > 0
    assert "used up its budget (max_events = 100,000)" in proc.stderr


def test_a_wall_clock_budget_stops_a_runaway_run(tmp_path: Path) -> None:
    start = time.monotonic()
    proc = lastmile_cli("run", TULIP, *LONG, "--max-wall", "1s", "--out", str(tmp_path / "o"))
    assert proc.returncode == 3, proc.stderr
    assert time.monotonic() - start < 30
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["engine"]["stop_reason"] == "budget"
    with pytest.raises(lastmile.BudgetExceeded) as info:
        lastmile.run(TULIP, overrides={"flow.0.app.bytes": "30MB"}, max_events=1000)
    assert info.value.result.engine["events"] == 1000
    bad: dict[str, Any]
    for bad in ({"max_events": 0}, {"max_wall_s": -1.0}, {"max_events": 1.5}):
        with pytest.raises(lastmile.ArgumentError):
            lastmile.run(TULIP, **bad)
    one_error_line(lastmile_cli("run", TULIP, "--max-wall", "soon"))


def test_sigterm_gives_the_partial_summary_ctrl_c_gives() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "lastmile", "run", TULIP, "--json", *LONG],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    summary = json.loads(out)
    assert summary["engine"]["stop_reason"] == "interrupted"
    assert 0 < summary["flows"][0]["bytes_delivered"] < 1e12
    assert "Traceback" not in err and "terminated" in err


# ---- 14: the small things ------------------------------------------------------------


def test_a_duckdb_file_that_is_no_store_is_refused_untouched(tmp_path: Path) -> None:
    foreign = tmp_path / "mine.duckdb"
    with duckdb.connect(str(foreign)) as con:
        con.execute("CREATE TABLE mine (a INTEGER)")
    before = foreign.read_bytes()
    line = one_error_line(
        lastmile_cli("sweep", str(sweep_file(tmp_path)), "--store", str(foreign), "--jobs", "1")
    )
    assert "not a lastmile results store (it holds the tables mine)" in line
    assert foreign.read_bytes() == before
    with duckdb.connect(str(foreign), read_only=True) as con:
        tables = con.execute("SELECT table_name FROM information_schema.tables").fetchall()
    assert tables == [("mine",)]


def test_an_empty_out_is_refused(tmp_path: Path) -> None:
    line = one_error_line(lastmile_cli("run", TULIP, *SMALL, "--out", "", cwd=tmp_path))
    assert "--out '': expected a directory" in line
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("seed", ["1e3", "0x10", "-1", "1.5"])
def test_a_seed_not_written_in_digits_is_a_one_line_error(seed: str) -> None:
    line = one_error_line(lastmile_cli("run", TULIP, "--seed", seed))
    assert f"--seed {seed}: expected a whole number from 0 to 2**64-1" in line
    line = one_error_line(lastmile_cli("plot", TULIP, "--seed", seed))
    assert f"--seed {seed}" in line


def test_a_value_is_echoed_as_typed() -> None:
    line = one_error_line(lastmile_cli("validate", TULIP, "--set", "flow.0.tcp.rwnd=-0 MB"))
    assert 'flow[0].tcp.rwnd: got "-0 MB", expected at least one segment' in line
