"""Shared helpers for the pytest suite: running the CLI in a fresh process, example paths."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import lastmile

EXAMPLES = lastmile.examples()

#: Shrinks a bulk example's transfer so a run takes milliseconds.
SMALL = ("--set", "flow.0.app.bytes=200KB")


def lastmile_cli(
    *args: str, cwd: Path | None = None, check: bool = False
) -> subprocess.CompletedProcess[str]:
    """Runs `python -m lastmile ARGS` in a new process and captures its output."""
    proc = subprocess.run(
        [sys.executable, "-m", "lastmile", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"lastmile {' '.join(args)} -> {proc.returncode}\n{proc.stderr}")
    return proc


def run_json(*args: str, cwd: Path | None = None) -> dict[str, Any]:
    """`lastmile run ARGS --json`, checked to print exactly one JSON object."""
    proc = lastmile_cli("run", *args, "--json", cwd=cwd, check=True)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    summary = json.loads(lines[0])
    assert isinstance(summary, dict)
    return summary


def example(name: str) -> Path:
    return EXAMPLES[name].path


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def edit_example(tmp_path: Path, name: str, old: str, new: str, *, out: str = "s.toml") -> Path:
    """A copy of example `name` with `old` replaced by `new` (which must occur once)."""
    text = example(name).read_text()
    assert text.count(old) == 1, f"{old!r} not unique in {name}"
    return write(tmp_path, out, text.replace(old, new))


def without_wall_time(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary's results: without the wall-clock time and the command line typed."""
    summary = json.loads(json.dumps(summary))
    summary["engine"].pop("wall_s")
    summary.pop("command", None)
    return summary


@pytest.fixture
def small_args() -> Sequence[str]:
    return SMALL


@pytest.fixture(scope="session")
def native() -> Path:
    """`lastmile-run` (`crates/lastmile-cli`): built here with `cargo build -p lastmile-cli`
    (a no-op when it is up to date, as after `cargo test --workspace` in CI), or taken from
    ``LASTMILE_RUN_BIN``."""
    given = os.environ.get("LASTMILE_RUN_BIN")
    if given:
        return Path(given)
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("cargo not found: lastmile-run cannot be built here")
    root = Path(__file__).resolve().parent.parent
    subprocess.run([cargo, "build", "-q", "-p", "lastmile-cli"], cwd=root, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR", root / "target"))
    return target / "debug" / "lastmile-run"
