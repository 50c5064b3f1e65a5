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

from lastmile._core import schema as _schema_json
from lastmile._core import trace_names as _trace_names
from lastmile._core import version as _version
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

__version__: str = _version()

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
    return _schema_json()


def trace_names() -> list[str]:
    """The names of the traces a run can record (``traces=[...]``, ``--trace``)."""
    return _trace_names()
