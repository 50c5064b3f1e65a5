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
import sys

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

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType as _ModuleType
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
    from lastmile.sweep import results, sweep
    from lastmile.sweep.spec import SweepError

    __version__: str

#: Where each name loaded on first use lives: ``import lastmile`` (and so every ``lastmile``
#: command) pays only for what it touches; the scenario, run, example and sweep-file
#: modules load when a name from them is first asked for. (`sweep` and `results` are the
#: functions of the `lastmile.sweep` package; `_Package` keeps its name for the function.)
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
    "results": "lastmile.sweep",
    "sweep": "lastmile.sweep",
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


if not TYPE_CHECKING:
    _ModuleType = type(sys)


class _Package(_ModuleType):
    """The `lastmile` module's class: as when `lastmile.sweep` was imported with the
    package, ``lastmile.sweep`` stays the function `sweep` when the import system binds
    the subpackage of that name (on its first import, from anywhere)."""

    def __setattr__(self, name: str, value: object) -> None:
        if name == "sweep" and isinstance(value, _ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __dir__() -> list[str]:
    """The public names (those loaded on first use included) and the module's dunders, not
    the helpers this file imports or defines for itself (`sys`, `importlib`, `_Package`)."""
    dunders = (name for name in globals() if name.startswith("__") and name.endswith("__"))
    return sorted({*__all__, *dunders, "__version__"})


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
