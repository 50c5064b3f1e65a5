"""`lastmile-run` (`crates/lastmile-cli`), the native run command, against `lastmile run
--json`: the same summary, written the same way, for every built-in example; the same
warnings and exit statuses.

The binary is built here with `cargo build -p lastmile-cli` (a no-op when it is up to
date, as after `cargo test --workspace` in CI), or taken from ``LASTMILE_RUN_BIN``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, example, lastmile_cli, without_wall_time, write

ROOT = Path(__file__).resolve().parent.parent


def run_native(binary: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_prints_the_summary_lastmile_run_json_prints(native: Path, name: str) -> None:
    path = str(example(name))
    theirs = lastmile_cli("run", "--json", path, check=True)
    ours = run_native(native, path)
    assert ours.returncode == 0, ours.stderr
    # Written as `json.dumps` writes it: one line, Python's separators, escapes and floats.
    summary = json.loads(ours.stdout)
    assert ours.stdout == json.dumps(summary) + "\n"
    # The same results, keys in the same order; only the wall time and the command differ.
    python = json.loads(theirs.stdout)
    assert json.dumps(without_wall_time(summary)) == json.dumps(without_wall_time(python))
    seed = python["seed"]
    assert summary["command"] == f"lastmile-run {path} --seed {seed}"
    # The stall warnings (the snoop example has none; a stall test is below) read alike.
    assert ours.stderr.replace("lastmile-run:", "lastmile:") == theirs.stderr


def test_seed_and_overrides_are_the_python_clis(native: Path) -> None:
    path = str(example("tulip-basic"))
    args = ("--seed", "7", "--set", "flow.0.app.bytes=200KB", "--set", "base_station.agent=snoop")
    ours = json.loads(run_native(native, path, *args).stdout)
    python = json.loads(lastmile_cli("run", "--json", path, *args, check=True).stdout)
    assert without_wall_time(ours) == without_wall_time(python)
    assert ours["seed"] == 7
    assert ours["command"].endswith("--set base_station.agent=snoop")


def test_a_stalled_flow_is_warned_about_in_the_same_words(native: Path, tmp_path: Path) -> None:
    # 90 % of the wireless frames lost: the flow backs off for longer than its threshold.
    text = example("chain-per5-newreno").read_text()
    path = write(tmp_path, "stall.toml", text)
    args = ("--set", "stop_time=200s", "--set", "topology.wireless.errors.per=0.9")
    theirs = lastmile_cli("run", "--json", str(path), *args, check=True)
    ours = run_native(native, str(path), *args)
    assert "stalled" in theirs.stderr, "the scenario should stall a flow"
    assert ours.stderr.replace("lastmile-run:", "lastmile:") == theirs.stderr


@pytest.mark.parametrize(
    "budget",
    ["10", " 1_0 ", "1e9", "abc", "-1", "nan", "1__0", "x'y", "a\tb", "x" * 100],
)
def test_the_event_budget_is_read_and_warned_about_in_the_same_words(
    native: Path, budget: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A budget of 10 events is under the run's estimate (a warning before the run), 1e9 is
    # over it (no warning), the rest are refused before the scenario is read (status 2).
    monkeypatch.setenv("LASTMILE_EVENT_BUDGET", budget)
    args = (str(example("tulip-basic")), "--set", "stop_time=1s")
    theirs = lastmile_cli("run", "--json", *args)
    ours = run_native(native, *args)
    assert ours.returncode == theirs.returncode
    assert ours.stderr.replace("lastmile-run:", "lastmile:") == theirs.stderr
    if budget.strip() in ("10", "1_0"):
        assert "looks big" in ours.stderr
    elif budget != "1e9":
        assert ours.returncode == 2 and "LASTMILE_EVENT_BUDGET = " in ours.stderr


def test_bad_input_is_one_line_naming_the_field_and_exit_status_2(
    native: Path, tmp_path: Path
) -> None:
    path = str(example("tulip-basic"))
    bad_set = run_native(native, path, "--set", "flow.0.tcp.mss=-3B")
    assert bad_set.returncode == 2
    assert bad_set.stdout == ""
    assert bad_set.stderr.startswith("lastmile-run: error: ")
    assert "flow" in bad_set.stderr and "mss" in bad_set.stderr
    assert len(bad_set.stderr.strip().splitlines()) == 1
    missing = run_native(native, str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    trace = run_native(native, path, "--trace", "cwnd")
    assert trace.returncode == 2 and "lastmile run" in trace.stderr


def test_a_budget_stops_the_run_with_the_summary_so_far(native: Path) -> None:
    path = str(example("tulip-basic"))
    ours = run_native(native, path, "--max-events", "1e3")
    python = lastmile_cli("run", "--json", path, "--max-events", "1e3")
    assert ours.returncode == python.returncode == 3
    summary = json.loads(ours.stdout)
    assert summary["engine"]["stop_reason"] == "budget"
    assert summary["engine"]["events"] == 1000
    assert without_wall_time(summary) == without_wall_time(json.loads(python.stdout))
    assert "used up its budget (max_events = 1,000) after 1,000 events" in ours.stderr
