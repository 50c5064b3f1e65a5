"""Hardening: no traceback, no write outside the output folder, no orphaned
workers, and long runs that announce themselves and stop cleanly on Ctrl-C.

Each test is the regression test of one defect the adversarial pass found.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import lastmile
from conftest import SMALL, edit_example, example, lastmile_cli, write
from lastmile import _core

FIXTURES = Path(__file__).resolve().parent / "sweep_fixtures"

TULIP = str(example("tulip-basic"))


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a refused command (exit status 2, no traceback)."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("lastmile: error: "), lines[0]
    return lines[0]


# ---- item 1: huge quantities are refused at load, by `validate` as by `run` -----------


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ('topology.wired.delay="1e308s"', "topology.wired.delay"),
        ('topology.wireless.delay="2e10s"', "topology.wireless.delay"),
        ('flow.0.tcp.delack_timeout="2e10s"', "flow[0].tcp.delack_timeout"),
        ('flow.0.app.bytes="1e400MB"', "flow[0].app.bytes"),
        ('topology.wired.rate="1e400Mbps"', "topology.wired.rate"),
    ],
)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_huge_quantities_are_refused_as_typed(command: str, setting: str, field: str) -> None:
    line = one_error_line(lastmile_cli(command, TULIP, "--set", setting))
    typed = setting.split("=", 1)[1]
    assert f"{field}: got {typed}" in line, line
    assert "18446744073709551615" not in line and "overflow" not in line


def test_validate_refuses_what_run_refuses_at_start(tmp_path: Path) -> None:
    flow = '[[flow]]\nsrc = "fh"\ndst = "mh"\napp = { kind = "bulk", bytes = "1B" }\n'
    head = example("tulip-basic").read_text().split("[[flow]]")[0]
    path = write(tmp_path, "many.toml", head + flow * 16385)
    for command in ("validate", "run"):
        line = one_error_line(lastmile_cli(command, str(path)))
        assert f"{path}: flow: got 16385 flows, expected at most 16384" in line, line


# ---- item 2: names cannot escape the output folder ------------------------------------


@pytest.mark.parametrize("name", ["../../../x", "/abs/x", "a/b", ".hidden", ""])
def test_scenario_name_cannot_write_outside_the_output_folder(tmp_path: Path, name: str) -> None:
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    proc = lastmile_cli(
        "run", TULIP, *SMALL, "--set", f"name={json.dumps(name)}", "--trace", "cwnd", cwd=work
    )
    line = one_error_line(proc)
    assert "name: got" in line and "letters, digits" in line, line
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written == [], written
    assert not Path("/abs/x").exists()


def test_traces_go_under_out_slash_name(tmp_path: Path) -> None:
    lastmile_cli("run", TULIP, *SMALL, "--trace", "cwnd", cwd=tmp_path, check=True)
    files = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert files == [
        Path("out/tulip-basic/cwnd.parquet"),
        Path("out/tulip-basic/scenario.json"),
        Path("out/tulip-basic/summary.json"),
    ]


def test_a_link_name_cannot_point_pcap_elsewhere(tmp_path: Path) -> None:
    proc = lastmile_cli(
        "run", TULIP, *SMALL, "--set", 'topology.wired.name="../x"', "--pcap", "../x",
        cwd=tmp_path,
    )  # fmt: skip
    assert "topology.wired.name" in one_error_line(proc)
    assert not (tmp_path.parent / "x.pcap").exists()


# ---- item 3: one-line errors instead of tracebacks; typed API errors ------------------


@pytest.mark.parametrize("seed", ["-1", "18446744073709551616", "99999999999999999999999"])
def test_out_of_range_seeds_are_one_line_errors(seed: str) -> None:
    line = one_error_line(lastmile_cli("run", TULIP, *SMALL, "--seed", seed))
    assert f"--seed {seed}: expected a whole number" in line and "2**64-1" in line, line


def test_largest_seed_runs() -> None:
    result = lastmile.run(TULIP, seed=2**64 - 1, overrides={"flow.0.app.bytes": "20KB"})
    assert result.seed == 2**64 - 1


def sweep_file(tmp_path: Path, name: str = "hard", seeds: int = 2) -> Path:
    (tmp_path / "chain.toml").write_text((FIXTURES / "chain.toml").read_text())
    return write(
        tmp_path,
        "s.toml",
        f'name = "{name}"\nscenario = "chain.toml"\nseeds = {seeds}\n'
        '[grid]\n"flow.0.app.bytes" = ["20KB", "40KB"]\n',
    )


@pytest.fixture(scope="module")
def stored_campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("store")
    lastmile_cli("sweep", str(sweep_file(tmp)), "--jobs", "1", check=True)
    return tmp / "hard.duckdb"


@pytest.mark.parametrize("damage", ["truncated", "garbage", "text"])
def test_a_damaged_store_is_a_one_line_error(
    tmp_path: Path, stored_campaign: Path, damage: str
) -> None:
    store = tmp_path / "damaged.duckdb"
    data = stored_campaign.read_bytes()
    store.write_bytes(
        {
            "truncated": data[: len(data) // 2],
            "garbage": bytes(range(256)) * 20,
            "text": b"not a database\n",
        }[damage]
    )
    line = one_error_line(lastmile_cli("results", str(store)))
    assert str(store) in line and "results store" in line, line
    sweep = sweep_file(tmp_path)
    line = one_error_line(lastmile_cli("sweep", str(sweep), "--jobs", "1", "--store", str(store)))
    assert "results store" in line, line
    with pytest.raises(lastmile.StoreError):
        lastmile.results(store)


def test_api_errors_are_lastmile_errors_naming_the_value() -> None:
    # Values of the wrong type, as an untyped caller would pass them.
    seven: Any = "7"
    nothing: Any = None
    forty_two: Any = 42
    ini: Any = "ini"
    cases: list[tuple[Callable[[], object], type[Exception], type[Exception], str]] = [
        (lambda: lastmile.run(TULIP, seed=-1), lastmile.ArgumentError, ValueError, "-1"),
        (lambda: lastmile.run(TULIP, seed=2**64), lastmile.ArgumentError, ValueError, "2**64"),
        (lambda: lastmile.run(TULIP, seed=seven), lastmile.ArgumentTypeError, TypeError, "'7'"),
        (
            lambda: lastmile.load(TULIP, {"seed": object()}),
            lastmile.ArgumentTypeError,
            TypeError,
            "object",
        ),
        (
            lambda: lastmile.load(TULIP, {"flow.0.tcp.variant": b"reno"}),
            lastmile.ArgumentTypeError,
            TypeError,
            "b'reno'",
        ),
        (lambda: lastmile.load(nothing), lastmile.ArgumentTypeError, TypeError, "None"),
        (lambda: lastmile.load(TULIP, forty_two), lastmile.ArgumentTypeError, TypeError, "42"),
        (
            lambda: lastmile.Scenario.from_text("", ini),
            lastmile.ArgumentError,
            ValueError,
            "'ini'",
        ),
        (lambda: lastmile.example_path("nope"), lastmile.UnknownNameError, KeyError, "'nope'"),
        (
            lambda: lastmile.run(TULIP, traces=["nope"]),
            lastmile.UnknownNameError,
            KeyError,
            "'nope'",
        ),
    ]
    for call, kind, builtin, named in cases:
        with pytest.raises(kind) as info:
            call()
        assert isinstance(info.value, lastmile.LastmileError) and isinstance(info.value, builtin)
        message = str(info.value)
        assert named in message and "\n" not in message, message


def test_unrecorded_trace_is_an_unknown_name() -> None:
    result = lastmile.run(TULIP, overrides={"flow.0.app.bytes": "20KB"})
    with pytest.raises(lastmile.UnknownNameError, match="'cwnd' was not recorded"):
        result.trace("cwnd")


def test_exceptions_show_and_pickle_as_lastmile_names() -> None:
    for cls in (
        lastmile.LastmileError,
        lastmile.ScenarioError,
        lastmile.SimulationError,
        lastmile.ArgumentError,
        lastmile.StoreError,
        lastmile.SweepError,
        lastmile.BudgetExceeded,
        lastmile.RunInterrupted,
    ):
        assert cls.__module__ == "lastmile" and getattr(lastmile, cls.__name__) is cls
    assert _core.ScenarioError is lastmile.ScenarioError
    assert issubclass(lastmile.ScenarioError, ValueError)
    assert issubclass(lastmile.SimulationError, RuntimeError)
    assert not issubclass(lastmile.RunInterrupted, Exception)
    with pytest.raises(lastmile.ScenarioError) as info:
        lastmile.load(TULIP, {"topology.wired.delay": "1e308s"})
    again = pickle.loads(pickle.dumps(info.value))
    assert type(again) is lastmile.ScenarioError
    assert (again.path, again.value) == ("topology.wired.delay", '"1e308s"')
    assert "lastmile.ScenarioError" in repr(type(info.value))
    with pytest.raises(lastmile.BudgetExceeded) as over:
        lastmile.run(TULIP, max_events=100)
    again_over = pickle.loads(pickle.dumps(over.value))
    assert type(again_over) is lastmile.BudgetExceeded
    assert again_over.result.engine["events"] == 100


def test_a_long_bad_value_is_quoted_to_80_characters(tmp_path: Path) -> None:
    long_name = "x" * 5000
    line = one_error_line(lastmile_cli("validate", TULIP, "--set", f'flow.0.src="{long_name}"'))
    assert f'got "{"x" * 79}…"' in line and len(line) < 800, len(line)


# ---- item 4: workers die with the sweep -----------------------------------------------


def session_members(sid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every live process in session `sid` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, session = fields[0], int(fields[3])
        if session == sid and state != "Z":
            found.append((int(entry.name), cmdline.strip()))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_sweep_leaves_no_worker_or_resource_tracker(tmp_path: Path) -> None:
    (tmp_path / "chain.toml").write_text((FIXTURES / "chain.toml").read_text())
    path = write(
        tmp_path,
        "orphans.toml",
        'name = "orphans"\nscenario = "chain.toml"\nseeds = 40\n'
        '[grid]\n"topology.wireless.errors.per" = [0.01, 0.02]\n',
    )
    env = dict(os.environ, LASTMILE_FAKE_SLEEP="0.5")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURES / "drive.py"), str(path), str(tmp_path / "s.db"), "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        # The parent, two workers and the resource tracker.
        while len(session_members(proc.pid)) < 4:
            assert time.monotonic() < deadline, session_members(proc.pid)
            assert proc.poll() is None, "the sweep ended before it was killed"
            time.sleep(0.1)
        children = [m for m in session_members(proc.pid) if m[0] != proc.pid]
        assert any("resource_tracker" in cmd for _, cmd in children), children
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(5)
        assert session_members(proc.pid) == [], "outlived the sweep"
    finally:
        for pid, _ in session_members(proc.pid):
            os.kill(pid, signal.SIGKILL)


# ---- item 7: huge runs are announced; progress; Ctrl-C --------------------------------

SLOW = [
    "--set",
    'topology.wired.rate="1bps"',
    "--set",
    'topology.wireless.rate="1bps"',
    "--set",
    'topology.wireless.errors={ model = "none" }',
    "--set",
    'stop_time="100000000s"',
]


def test_a_run_over_the_budget_is_announced(tmp_path: Path) -> None:
    env = dict(os.environ, LASTMILE_EVENT_BUDGET="1e5")
    proc = subprocess.run(
        [sys.executable, "-m", "lastmile", "validate", TULIP, *SLOW],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: tulip-basic")
    assert "warning: this run looks big: about 1.4e+06 events" in proc.stderr, proc.stderr
    quiet = lastmile_cli("validate", TULIP, check=True)
    assert quiet.stderr == ""


def test_a_bad_budget_is_a_one_line_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "lastmile", "validate", TULIP],
        capture_output=True,
        text=True,
        env=dict(os.environ, LASTMILE_EVENT_BUDGET="lots"),
        timeout=120,
    )
    assert "LASTMILE_EVENT_BUDGET = 'lots'" in one_error_line(proc)


def test_progress_reports_simulated_time_and_the_estimate() -> None:
    seen: list[dict[str, object]] = []
    result = lastmile.run(TULIP, overrides={"flow.0.app.bytes": "30MB"}, progress=seen.append)
    start, *running = seen
    assert start["phase"] == "start" and float(start["estimated_events"]) > 1e5  # type: ignore[arg-type]
    assert running and all(r["phase"] == "running" for r in running)
    events = [int(r["events"]) for r in running]  # type: ignore[call-overload]
    assert events == [_core.PROGRESS_EVERY * (i + 1) for i in range(len(events))]
    assert result.engine["events"] >= events[-1]


def test_an_exception_in_the_progress_callable_stops_the_run() -> None:
    def boom(info: dict[str, object]) -> None:
        if info["phase"] == "running":
            raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        lastmile.run(TULIP, overrides={"flow.0.app.bytes": "30MB"}, progress=boom)


def test_ctrl_c_stops_a_run_with_a_partial_summary(tmp_path: Path) -> None:
    # A run of about 4e9 events: minutes, unless interrupted.
    long_run = ["--set", "flow.0.app.bytes=1000GB", "--set", "stop_time=100000000s"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "lastmile", "run", TULIP, "--json", *long_run],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    summary = json.loads(out)
    assert summary["engine"]["stop_reason"] == "interrupted"
    assert 0 < summary["flows"][0]["bytes_delivered"] < 1e12
    assert "Traceback" not in err and "interrupted" in err


def test_an_interrupted_api_run_carries_its_result() -> None:
    def interrupt(info: dict[str, object]) -> None:
        if info["phase"] == "running":
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(lastmile.RunInterrupted) as info:
        lastmile.run(TULIP, overrides={"flow.0.app.bytes": "30MB"}, progress=interrupt)
    partial = info.value.result
    assert partial.engine["stop_reason"] == "interrupted"
    assert partial.engine["events"] == _core.PROGRESS_EVERY
    assert isinstance(info.value, KeyboardInterrupt)


def test_a_huge_topology_validates_in_linear_time(tmp_path: Path) -> None:
    n = 40_000
    nodes = ", ".join(f'"n{i}"' for i in range(n))
    links = "".join(
        f'[[topology.links]]\nfrom = "n{i}"\nto = "n{i + 1}"\nrate = "1Gbps"\n'
        for i in range(n - 1)
    )
    text = (
        f'name = "big"\n[topology]\nnodes = [{nodes}]\n{links}'
        '[[flow]]\nsrc = "n0"\ndst = "n10"\napp = { kind = "bulk", bytes = "1KB" }\n'
    )
    path = write(tmp_path, "big.toml", text)
    start = time.monotonic()
    found = lastmile.validate(path)
    assert (found.nodes, found.links, found.flows) == (n, n - 1, 1)
    assert time.monotonic() - start < 20  # quadratic: minutes on this machine


def test_edit_example_helper_still_refuses_bad_units(tmp_path: Path) -> None:
    path = edit_example(tmp_path, "tulip-basic", 'rate = "1Mbps"', 'rate = "1e400Mbps"')
    line = one_error_line(lastmile_cli("validate", str(path)))
    assert 'topology.wireless.rate: got "1e400Mbps", expected a rate from 1bps' in line
