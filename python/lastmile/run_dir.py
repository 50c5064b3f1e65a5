"""A run directory, as ``lastmile run --out`` writes it and ``lastmile plot`` / ``lastmile
report`` read it: ``summary.json`` (with the resolved scenario and the command line),
``scenario.json`` (the scenario as run, which ``lastmile run`` reads again) and each trace as
``NAME.parquet``. Every file is written beside its name and renamed over it
(`lastmile._fresh.write_fresh`): a link planted in the output folder is replaced, never
written through.

A library module: the CLI and the report both use it, and it imports neither.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from lastmile._fresh import write_fresh

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from lastmile._run import RunResult

__all__ = [
    "SCENARIO_FILE",
    "SUMMARY_FILE",
    "flow_names",
    "read_summary",
    "run_title",
    "write_run_dir",
]

#: The summary file of a run directory.
SUMMARY_FILE = "summary.json"
#: The scenario as run (resolved), a file ``lastmile run`` reads again.
SCENARIO_FILE = "scenario.json"


def write_run_dir(result: RunResult, out_dir: Path, traces: Sequence[str]) -> list[Path]:
    """Write a run directory: ``summary.json`` (with the resolved scenario and the command
    line), ``scenario.json`` (the scenario as run) and each trace as ``NAME.parquet``."""
    import pyarrow.parquet as pq

    out_dir.mkdir(parents=True, exist_ok=True)
    summary = out_dir / SUMMARY_FILE
    text = json.dumps(result.summary, indent=1) + "\n"
    write_fresh(summary, lambda p: p.write_text(text, encoding="utf-8"))
    written = [summary]
    if result.scenario:
        scenario = out_dir / SCENARIO_FILE
        as_run = json.dumps(result.scenario, indent=1) + "\n"
        write_fresh(scenario, lambda p: p.write_text(as_run, encoding="utf-8"))
        written.append(scenario)
    for name in dict.fromkeys(traces):
        path = out_dir / f"{name}.parquet"
        table = result.arrow(name)
        write_fresh(path, lambda p, table=table: pq.write_table(table, p))  # type: ignore[misc]
        written.append(path)
    return written


def read_summary(run_dir: Path) -> dict[str, object]:
    """The summary of a run directory ({} when it has none)."""
    path = run_dir / SUMMARY_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def run_title(summary: dict[str, object]) -> str:
    """``name (seed N)`` of a summary, or "run"."""
    if "name" not in summary:
        return "run"
    return f"{summary['name']} (seed {summary.get('seed')})"


def flow_names(summary: dict[str, object]) -> list[str]:
    """The flows' names of a summary, in order."""
    flows = summary.get("flows")
    if not isinstance(flows, list):
        return []
    return [str(f.get("name")) if isinstance(f, dict) else "?" for f in flows]
