"""Running one scenario as a whole process, in lastmile or in a reference, and reading what it
printed: the helpers every family's `run_lastmile` / `run_reference` needs.

- `run_lastmile(scenario)`: the scenario (a dict in lastmile's schema) written to a temporary
  JSON file and run by `python -m lastmile run --json` in a process of its own, so that the
  wall time is the whole process's, as it is for `ns` or ns-3's interpreter; the engine's own
  time is the summary's `engine.wall_s`.
- `run_ns2(script, args)`: `ns script args…` in a temporary directory; the script prints one
  line `RESULT {json}` (its `engine_s` is the time of `$ns run`, measured in Tcl).
- `run_ns3(script, args)`: ns-3's interpreter (`refs.ns3_python()`) on a script that prints
  the same kind of line (its `engine_s` is the time of `Simulator::Run`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from validation import refs

HERE = Path(__file__).resolve().parent
NS2_DIR = HERE / "ns2"
NS3_DIR = HERE / "ns3"

#: How long one run may take before it is abandoned, seconds.
RUN_TIMEOUT_S = 3600


def param_float(params: Mapping[str, object], key: str) -> float:
    """`params[key]` as a float (a family's own point parameters)."""
    value = params[key]
    if not isinstance(value, int | float):
        raise TypeError(f"point parameter {key} = {value!r}: expected a number")
    return float(value)


def param_int(params: Mapping[str, object], key: str) -> int:
    """`params[key]` as an int."""
    value = params[key]
    if not isinstance(value, int):
        raise TypeError(f"point parameter {key} = {value!r}: expected an integer")
    return value


def param_str(params: Mapping[str, object], key: str) -> str:
    """`params[key]` as a str."""
    value = params[key]
    if not isinstance(value, str):
        raise TypeError(f"point parameter {key} = {value!r}: expected a string")
    return value


class RunFailed(RuntimeError):
    """A simulator process failed or printed no result; the message carries its last words."""


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def _result_line(stdout: str) -> dict[str, Any] | None:
    for line in reversed(stdout.splitlines()):
        if line.startswith("RESULT "):
            parsed = json.loads(line[len("RESULT ") :])
            if isinstance(parsed, dict):
                return parsed
    return None


def _run(
    cmd: Sequence[str], cwd: Path | None = None
) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.perf_counter()
    proc = subprocess.run(
        list(cmd), capture_output=True, text=True, cwd=cwd, timeout=RUN_TIMEOUT_S, check=False
    )
    return proc, time.perf_counter() - start


def run_lastmile(scenario: Mapping[str, Any]) -> tuple[dict[str, Any], float]:
    """Runs `scenario` with the lastmile CLI in a process of its own: (summary, wall seconds)."""
    with tempfile.TemporaryDirectory(prefix="lastmile-validation-") as tmp:
        path = Path(tmp) / "scenario.json"
        path.write_text(json.dumps(scenario))
        proc, wall = _run([sys.executable, "-m", "lastmile", "run", str(path), "--json"], Path(tmp))
    if proc.returncode != 0:
        raise RunFailed(f"lastmile run failed ({proc.returncode}):\n{_tail(proc.stderr)}")
    summary = json.loads(proc.stdout)
    if not isinstance(summary, dict):
        raise RunFailed(f"lastmile run printed no summary:\n{_tail(proc.stdout)}")
    return summary, wall


def run_ns2(script: str, args: Sequence[object]) -> tuple[dict[str, Any], float]:
    """Runs `validation/ns2/<script>` in ns-2.35: (its RESULT line, wall seconds)."""
    binary = refs.ns2_binary()
    if binary is None:
        raise RunFailed(refs.status(refs.NS2).line)
    with tempfile.TemporaryDirectory(prefix="ns2-validation-") as tmp:
        cmd = [str(binary), str(NS2_DIR / script), *(str(a) for a in args)]
        proc, wall = _run(cmd, Path(tmp))
    result = _result_line(proc.stdout)
    if proc.returncode != 0 or result is None:
        raise RunFailed(
            f"ns {script} {' '.join(str(a) for a in args)} failed ({proc.returncode}):\n"
            f"{_tail(proc.stdout + proc.stderr)}"
        )
    return result, wall


def run_ns3(script: str, args: Sequence[object]) -> tuple[dict[str, Any], float]:
    """Runs `validation/ns3/<script>` with ns-3's interpreter: (its RESULT line, wall seconds)."""
    python = refs.ns3_python()
    with tempfile.TemporaryDirectory(prefix="ns3-validation-") as tmp:
        cmd = [str(python), str(NS3_DIR / script), *(str(a) for a in args)]
        proc, wall = _run(cmd, Path(tmp))
    result = _result_line(proc.stdout)
    if proc.returncode != 0 or result is None:
        raise RunFailed(
            f"ns-3 {script} {' '.join(str(a) for a in args)} failed ({proc.returncode}):\n"
            f"{_tail(proc.stderr)}"
        )
    return result, wall
