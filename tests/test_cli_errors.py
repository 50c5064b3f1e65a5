"""Bad input never shows a traceback: one line on stderr naming the file, the field path,
the bad value and what was expected, and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import edit_example, example, lastmile_cli, write

UNREACHABLE = """\
name = "unreachable"
[topology]
nodes = ["a", "b", "c"]
[[topology.links]]
from = "a"
to = "b"
rate = "1Mbps"
[[flow]]
src = "a"
dst = "c"
app = { kind = "bulk", bytes = "1MB" }
"""


def one_error_line(proc_stderr: str) -> str:
    lines = proc_stderr.strip().splitlines()
    assert len(lines) == 1, proc_stderr
    assert "Traceback" not in proc_stderr
    assert lines[0].startswith("lastmile: error: ")
    return lines[0]


def bad(*args: str, cwd: Path | None = None) -> str:
    """Runs the CLI, expects exit status 2 and one error line; returns that line."""
    proc = lastmile_cli(*args, cwd=cwd)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    return one_error_line(proc.stderr)


@pytest.mark.parametrize("command", ["run", "validate"])
def test_unknown_key_suggests_the_closest(tmp_path: Path, command: str) -> None:
    path = edit_example(tmp_path, "tulip-basic", 'variant = "reno"', 'varient = "reno"')
    line = bad(command, str(path))
    assert str(path) in line
    assert "flow[0].tcp.varient" in line
    assert "unknown key" in line
    assert 'did you mean "variant"' in line


def test_bad_unit(tmp_path: Path) -> None:
    path = edit_example(tmp_path, "tulip-basic", 'rate = "1Mbps"', 'rate = "1 Mbits"')
    line = bad("validate", str(path))
    assert "topology.wireless.rate" in line
    assert '"1 Mbits"' in line
    assert "bps, kbps, Mbps or Gbps" in line


def test_negative_rate(tmp_path: Path) -> None:
    path = edit_example(tmp_path, "tulip-basic", 'rate = "10Mbps"', 'rate = "-10Mbps"')
    line = bad("run", str(path))
    assert "topology.wired.rate" in line and '"-10Mbps"' in line and "positive" in line


def test_probability_above_one(tmp_path: Path) -> None:
    path = edit_example(tmp_path, "tulip-basic", "ber = 15e-6", "ber = 1.5")
    line = bad("validate", str(path))
    assert "topology.wireless.errors.ber" in line and "1.5" in line
    assert "probability between 0 and 1" in line


def test_flow_to_a_node_that_does_not_exist(tmp_path: Path) -> None:
    path = edit_example(tmp_path, "tulip-basic", 'dst = "mh"', 'dst = "nowhere"')
    line = bad("run", str(path))
    assert "flow[0].dst" in line and '"nowhere"' in line
    assert "fh, bs, mh" in line


def test_unreachable_destination(tmp_path: Path) -> None:
    path = write(tmp_path, "unreachable.toml", UNREACHABLE)
    line = bad("run", str(path))
    assert "flow[0].dst" in line and '"c"' in line and "reachable" in line


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.toml", "")
    line = bad("validate", str(path))
    assert str(path) in line and "empty" in line


def test_yaml_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", "name: x\n  seed: [1\n")
    line = bad("run", str(path))
    assert str(path) in line and "YAML" in line and "line 2" in line


def test_toml_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.toml", 'name = "x\nseed = 1\n')
    line = bad("validate", str(path))
    assert str(path) in line and "TOML" in line and "line 1" in line


@pytest.mark.parametrize("command", ["run", "validate"])
def test_missing_file(tmp_path: Path, command: str) -> None:
    line = bad(command, "no-such-scenario.toml", cwd=tmp_path)
    assert "no-such-scenario.toml" in line
    assert "No such file" in line or "cannot read" in line


def test_bad_override_names_the_override() -> None:
    line = bad("run", "--example", "tulip-basic", "--set", "flow.0.tcp.rwnd=-5")
    assert "--set flow.0.tcp.rwnd=-5" in line
    assert "flow[0].tcp.rwnd" in line and "-5" in line


def test_override_without_equals() -> None:
    line = bad("validate", str(example("tulip-basic")), "--set", "flow.0.tcp.variant")
    assert "--set flow.0.tcp.variant" in line and "key.path=value" in line


def test_unknown_example() -> None:
    line = bad("run", "--example", "no-such-example")
    assert "no-such-example" in line and "tulip-basic" in line


def test_scenario_and_example_together() -> None:
    line = bad("run", "x.toml", "--example", "tulip-basic")
    assert "not both" in line


def test_unknown_trace_name_is_a_usage_error() -> None:
    proc = lastmile_cli("run", "--example", "tulip-basic", "--trace", "nope")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "invalid choice" in proc.stderr


def test_unknown_pcap_link(tmp_path: Path) -> None:
    proc = lastmile_cli(
        "run", "--example", "tulip-basic", "--set", "flow.0.app.bytes=10KB",
        "--pcap", "no-such-link", "--out", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    line = one_error_line(proc.stderr)
    assert "no-such-link" in line
