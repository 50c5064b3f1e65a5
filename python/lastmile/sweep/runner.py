"""What a worker does: run chunks of runs, and flatten each run's summary into columns.

The function that executes one run is injectable: `run_lastmile` (the default) calls
`lastmile.run`; any picklable callable with the same signature (a module-level function)
can replace it, which is how the tests run campaigns without the simulator. A run that
raises is a *failed run* (recorded with its error text), never a failed sweep.

Flattening (the store's metric columns): every leaf of the summary becomes one column,
nested names joined by ``_``; list items take the singular of the list's name and their
index (``flows[0].throughput_bps`` → ``flow0_throughput_bps``, ``links[2].queue_drops`` →
``link2_queue_drops``); ``wireless.goodput_wireless`` → ``wireless_goodput_wireless``;
``engine.events`` → ``engine_events``; the scenario's ``name`` → ``scenario_name`` (the
resolved ``scenario`` and the ``command`` are not metrics and are left out). When a
run has exactly one flow (or one beside its `background` flows) that flow's non-text
metrics are also stored unprefixed (``throughput_bps``, ``tcp_timeouts``, ...). The
summary's ``seed`` is the ``seed`` column. A multi-flow run's ``fairness`` and ``groups``
flatten like the rest (``fairness_jain_index``, ``groups_background_throughput_bps_mean``).

Flows: every run's flows also go, one row each, to the store's ``flows`` table
(see `flow_records`); a run of more than `MAX_FLOW_COLUMNS` flows keeps its flows there
only, rather than adding columns to ``runs`` for each of thousands of flows.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lastmile.sweep.spec import canonical_json

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "CodeVersion",
    "Columns",
    "RunTask",
    "Runner",
    "ScenarioSource",
    "Validator",
    "code_version",
    "columns_of",
    "default_jobs",
    "failed_rows",
    "flatten_summary",
    "flow_records",
    "ignore_sigint",
    "init_worker",
    "run_chunk",
    "run_lastmile",
    "to_table",
    "validate_lastmile",
]

#: A base scenario: a path to a scenario file, or a scenario as a (JSON-like) table.
ScenarioSource = str | Mapping[str, Any]
#: Runs one scenario with a seed and overrides and returns its summary dict.
Runner = Callable[[ScenarioSource, int, Mapping[str, Any]], Mapping[str, Any]]
#: Checks one point's scenario with its overrides; raises (e.g. `ScenarioError`) if wrong.
Validator = Callable[[ScenarioSource, Mapping[str, Any]], None]

#: Flow fields that label a flow rather than measure it: not repeated unprefixed.
_FLOW_LABELS = frozenset({"name", "group", "src", "dst", "variant"})
#: Runs of at most this many flows also store them as ``flow<i>_`` columns of ``runs``.
MAX_FLOW_COLUMNS = 16


@dataclass(frozen=True)
class RunTask:
    """One run for a worker: what to run, and the key columns of the row it fills."""

    scenario: ScenarioSource
    seed: int
    overrides: Mapping[str, Any]
    #: ``point_key``, ``seed``, ``variant`` and the axis values, as stored.
    columns: Mapping[str, Any]


@functools.lru_cache(maxsize=8)
def _inline_scenario(text: str) -> Any:
    """An inline scenario table as the core's `Scenario` (read once per worker)."""
    import lastmile

    return lastmile.Scenario.from_text(text, "json", origin="<inline scenario>")


def _scenario_arg(scenario: ScenarioSource) -> Any:
    return scenario if isinstance(scenario, str) else _inline_scenario(canonical_json(scenario))


def run_lastmile(
    scenario: ScenarioSource, seed: int, overrides: Mapping[str, Any]
) -> Mapping[str, Any]:
    """The default runner: ``lastmile.run(scenario, seed=seed, overrides=...).summary``."""
    import lastmile

    summary: Mapping[str, Any] = lastmile.run(
        _scenario_arg(scenario), seed=seed, overrides=dict(overrides)
    ).summary
    return summary


def validate_lastmile(scenario: ScenarioSource, overrides: Mapping[str, Any]) -> None:
    """The default validator: read and check the scenario with the overrides, run nothing.

    Uses ``lastmile.validate(scenario, overrides)`` when the package offers it, else
    ``lastmile.load(path, overrides)`` (or ``Scenario.from_text`` for an inline table).
    """
    import lastmile

    hook = getattr(lastmile, "validate", None)
    if hook is not None:
        hook(_scenario_arg(scenario), dict(overrides))
    elif isinstance(scenario, str):
        lastmile.load(scenario, overrides=dict(overrides))
    else:
        lastmile.Scenario.from_text(
            canonical_json(scenario), "json", origin="<inline scenario>", overrides=dict(overrides)
        )


def _flatten_into(out: dict[str, Any], prefix: str, table: Mapping[str, Any]) -> None:
    # JSON data: dicts, lists and scalars; plain type checks and string concatenation keep
    # this cheap, as it runs once per run.
    for key, value in table.items():
        name = prefix + key
        if isinstance(value, dict):
            _flatten_into(out, name + "_", value)
        elif isinstance(value, list):
            singular = name.removesuffix("s")
            for i, item in enumerate(value):
                if isinstance(item, dict):
                    _flatten_into(out, f"{singular}{i}_", item)
                elif item is not None:
                    out[f"{singular}{i}"] = item
        elif value is not None:
            out[name] = value


def flatten_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The run summary as flat metric columns (the rule is in the module docstring)."""
    flows = summary.get("flows")
    many = isinstance(flows, list) and len(flows) > MAX_FLOW_COLUMNS
    # The resolved scenario and the command line say what ran; they are no metrics.
    skip = ("name", "seed", "scenario", "command", *(("flows",) if many else ()))
    rest = {k: v for k, v in summary.items() if k not in skip}
    out: dict[str, Any] = {"scenario_name": summary["name"]} if "name" in summary else {}
    _flatten_into(out, "", rest)
    measured = _measured_flows(summary)
    if len(measured) == 1:
        out.update(
            (key, value)
            for key, value in measured[0].items()
            if key not in _FLOW_LABELS and not isinstance(value, dict | list)
        )
    return out


def _measured_flows(summary: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The run's flows but those of `background` groups (WTCP §5's competing traffic)."""
    flows = summary.get("flows")
    if not isinstance(flows, list):
        return []
    groups = summary.get("groups")
    if not isinstance(groups, dict):
        return flows
    background = {n for n, g in groups.items() if isinstance(g, dict) and g.get("background")}
    return [f for f in flows if f.get("group") not in background]


def flow_records(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The run's flows as rows of the store's ``flows`` table: ``flow`` (the index), then
    every scalar field of the flow's summary, its ``variant`` as ``tcp_variant`` (the
    sweep's variant is the run's); ``group`` is None in a run of one flow."""
    flows = summary.get("flows")
    if not isinstance(flows, list):
        return []
    return [
        {
            "flow": i,
            "group": None,
            **{
                ("tcp_variant" if k == "variant" else k): v
                for k, v in flow.items()
                if not isinstance(v, dict | list)
            },
        }
        for i, flow in enumerate(flows)
    ]


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())}"


#: A chunk's rows, column by column (plain lists: workers need no pyarrow).
Columns = dict[str, list[Any]]


def columns_of(rows: list[dict[str, Any]]) -> Columns:
    """`rows` as columns, with a column for every key any row has (None elsewhere)."""
    names = dict.fromkeys(key for row in rows for key in row)
    return {name: [row.get(name) for row in rows] for name in names}


def to_table(chunks: list[Columns]) -> pa.Table:
    """Chunks of columns as one Arrow table (columns united; int64 widened if mixed)."""
    import pyarrow as pa

    tables = [pa.table(columns) for columns in chunks]
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")


def run_chunk(runner: Runner, tasks: list[RunTask]) -> Columns:
    """Run `tasks` one after the other; one row per task, in order, as columns.

    A row holds the task's key columns, the flattened metrics, ``flows`` (the run's
    `flow_records`, for the store's ``flows`` table), ``status`` ("ok" or "failed"),
    ``error`` (text, or None) and ``wall_s`` (this run's time in the worker, the runner's
    own overhead included). Building the rows here keeps per-row work off
    the parent, which only converts and stores them.
    """
    rows = []
    for task in tasks:
        start = time.perf_counter()
        try:
            summary = runner(task.scenario, task.seed, task.overrides)
            row = flatten_summary(summary)
            row.update(flows=flow_records(summary), status="ok", error=None)
        except Exception as e:
            row = {"status": "failed", "error": _error_text(e)}
        row["wall_s"] = time.perf_counter() - start
        rows.append({**task.columns, **row})
    return columns_of(rows)


def failed_rows(tasks: list[RunTask], error: str) -> Columns:
    """Rows marking every task as failed with `error` (e.g. its worker was lost)."""
    return columns_of([{**t.columns, "status": "failed", "error": error} for t in tasks])


def ignore_sigint() -> None:
    """Ctrl-C is the parent's to handle (it stops the sweep)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _exit_when_parent_dies(sentinel: Any) -> None:
    from multiprocessing.connection import wait

    wait([sentinel])
    # The parent is gone (killed, crashed): nobody will read this worker's results.
    os._exit(1)


def init_worker() -> None:
    """Pool-worker initializer: ignore Ctrl-C, and die with the parent process.

    A spawned worker holds the read end of a pipe whose write end only its parent holds
    (multiprocessing's parent sentinel, on every platform): when the parent dies, even by
    SIGKILL, the pipe reads end-of-file, and a daemon thread waiting on it ends the worker.
    Without this, workers of a killed sweep lived on, re-parented to init, and kept the
    multiprocessing resource tracker alive with them.
    """
    import multiprocessing
    import threading

    ignore_sigint()
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return
    threading.Thread(
        target=_exit_when_parent_dies,
        args=(parent.sentinel,),
        name="lastmile-parent-watch",
        daemon=True,
    ).start()


@dataclass(frozen=True)
class CodeVersion:
    """The code a run was made with: part of every stored row's key."""

    lastmile_version: str
    git_commit: str

    @property
    def key(self) -> str:
        """``<version>+<commit>``: the ``code_version`` column."""
        return f"{self.lastmile_version}+{self.git_commit}"


def _git(cwd: Path, *args: str) -> str | None:
    import subprocess

    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args], capture_output=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.decode(errors="replace").strip()


def code_version() -> CodeVersion:
    """The installed lastmile's version and, when it runs from a git checkout, its commit.

    Uncommitted changes to ``crates/`` or ``python/`` append ``-dirty.<hash of the diff>``,
    so that results of modified code are never taken for those of the commit. Outside a
    checkout (an installed wheel) the commit is "unknown".
    """
    import lastmile

    version = str(getattr(lastmile, "__version__", "unknown"))
    init = getattr(lastmile, "__file__", None)
    package_dir = Path(init).resolve().parent if init else Path(__file__).resolve().parent
    commit = _git(package_dir, "rev-parse", "HEAD")
    if not commit:
        return CodeVersion(version, "unknown")
    diff = _git(package_dir, "diff", "HEAD", "--", ":/crates", ":/python")
    if diff:
        import hashlib

        commit += "-dirty." + hashlib.sha256(diff.encode()).hexdigest()[:8]
    return CodeVersion(version, commit)


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
