"""lastmile: a fast, deterministic simulator of TCP over wired-cum-wireless paths.

The Rust core does all of the simulation; this package reads scenarios, runs them and
hands back the results::

    import lastmile

    result = lastmile.run(lastmile.examples()["tulip-basic"].path, seed=2)
    print(result.flows[["name", "throughput_bps", "tcp_timeouts"]])
    cwnd = result.trace("cwnd")  # only when run with traces=["cwnd"]

Public surface: `load`, `Scenario`, `run`, `RunResult`, `examples`, `schema`,
`trace_names`, `sweep` and `results` (parameter campaigns, see `lastmile.sweep`), and the
exceptions `ScenarioError` and `SimulationError`.
"""

from __future__ import annotations

from lastmile._core import ScenarioError, SimulationError
from lastmile._core import schema as _schema_json
from lastmile._core import trace_names as _trace_names
from lastmile._core import version as _version
from lastmile._examples import Example, example_path, examples
from lastmile._run import FLOW_COLUMNS, LINK_COLUMNS, RunResult, run
from lastmile._scenario import Overrides, Scenario, load
from lastmile.sweep import results, sweep

__version__: str = _version()

__all__ = [
    "FLOW_COLUMNS",
    "LINK_COLUMNS",
    "Example",
    "Overrides",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "example_path",
    "examples",
    "load",
    "results",
    "run",
    "schema",
    "sweep",
    "trace_names",
]


def schema() -> str:
    """The JSON Schema of scenario files (JSON text), exported from the Rust definition."""
    return _schema_json()


def trace_names() -> list[str]:
    """The names of the traces a run can record (``traces=[...]``, ``--trace``)."""
    return _trace_names()
