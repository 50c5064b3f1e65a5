"""lastmile: a fast, deterministic simulator of TCP over wired-cum-wireless paths.

The Rust core does all of the simulation; this package reads scenarios, runs them and
hands back the results::

    import lastmile

    result = lastmile.run(lastmile.examples()["tulip-basic"].path, seed=2)
    print(result.flows[["name", "throughput_bps", "tcp_timeouts"]])
    cwnd = result.trace("cwnd")  # only when run with traces=["cwnd"]

Public surface: `load`, `Scenario`, `validate` (every check of a run's start, and the
run's `Estimate`), `run`, `RunResult`, `examples`, `schema`, `trace_names`, `sweep` and
`results` (parameter campaigns, see `lastmile.sweep`), and the exceptions: every one
derives from `LastmileError` (`ScenarioError`, `SimulationError`, `ArgumentError`,
`ArgumentTypeError`, `UnknownNameError`, `StoreError`, `SweepError`), besides
`RunInterrupted`, the KeyboardInterrupt of a run stopped by Ctrl-C; `BudgetExceeded` (a
`LastmileError`) carries the partial result of a run stopped by its budget.
"""

from __future__ import annotations

import importlib

from lastmile._errors import (
    ArgumentError,
    ArgumentTypeError,
    BudgetExceeded,
    LastmileError,
    RunInterrupted,
    ScenarioError,
    SimulationError,
    StoreError,
    UnknownNameError,
)
from lastmile.sweep import results, sweep

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from lastmile._examples import Example, example_path, examples
    from lastmile._run import (
        FLOW_COLUMNS,
        LINK_COLUMNS,
        Estimate,
        RunResult,
        Validation,
        run,
        validate,
    )
    from lastmile._scenario import Overrides, Scenario, load
    from lastmile.sweep.spec import SweepError

    __version__: str

#: Where each name loaded on first use lives: ``import lastmile`` (and so every ``lastmile``
#: command) pays only for what it touches; the scenario, run, example and sweep-file
#: modules load when a name from them is first asked for.
_HOMES = {
    "Example": "lastmile._examples",
    "example_path": "lastmile._examples",
    "examples": "lastmile._examples",
    "FLOW_COLUMNS": "lastmile._run",
    "LINK_COLUMNS": "lastmile._run",
    "Estimate": "lastmile._run",
    "RunResult": "lastmile._run",
    "Validation": "lastmile._run",
    "run": "lastmile._run",
    "validate": "lastmile._run",
    "Overrides": "lastmile._scenario",
    "Scenario": "lastmile._scenario",
    "load": "lastmile._scenario",
    "SweepError": "lastmile.sweep.spec",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = importlib.import_module("lastmile._core").version()
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    else:
        raise AttributeError(f"module 'lastmile' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES, "__version__"})


__all__ = [
    "FLOW_COLUMNS",
    "LINK_COLUMNS",
    "ArgumentError",
    "ArgumentTypeError",
    "BudgetExceeded",
    "Estimate",
    "Example",
    "LastmileError",
    "Overrides",
    "RunInterrupted",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "StoreError",
    "SweepError",
    "UnknownNameError",
    "Validation",
    "__version__",
    "example_path",
    "examples",
    "load",
    "results",
    "run",
    "schema",
    "sweep",
    "trace_names",
    "validate",
]


def schema() -> str:
    """The JSON Schema of scenario files (JSON text), exported from the Rust definition."""
    from lastmile import _core

    return _core.schema()


def trace_names() -> list[str]:
    """The names of the traces a run can record (``traces=[...]``, ``--trace``)."""
    from lastmile import _core

    return _core.trace_names()
