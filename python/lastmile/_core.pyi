"""Typed signatures of the private native module ``lastmile._core`` (Rust, PyO3).

Checked against the compiled module by ``python -m mypy.stubtest lastmile._core``. Use the
public API in ``lastmile`` instead of calling these directly.
"""

from collections.abc import Sequence
from os import PathLike

__all__ = [
    "ScenarioError",
    "SimulationError",
    "__version__",
    "load",
    "load_text",
    "run",
    "schema",
    "trace_names",
    "version",
]

__version__: str

class ScenarioError(ValueError):
    """A scenario file or override is wrong; ``message`` is the whole one-line text."""

    file: str
    path: str
    value: str | None
    expected: str
    hint: str | None
    message: str

class SimulationError(RuntimeError):
    """A run could not be carried out or broke an invariant.

    ``kind`` is "invalid", "invariant", "past_event", "io" or "internal".
    """

    kind: str

def load(
    path: str | PathLike[str], overrides: Sequence[str] = ...
) -> tuple[str, list[str], list[str]]:
    """Load and check a file; return (scenario JSON, node names, link names)."""

def load_text(
    text: str, format: str, origin: str = ..., overrides: Sequence[str] = ...
) -> tuple[str, list[str], list[str]]:
    """Load and check scenario text in ``format``; return as ``load``."""

def run(
    *,
    path: str | PathLike[str] | None = None,
    text: str | None = None,
    format: str | None = None,
    origin: str | None = None,
    overrides: Sequence[str] = ...,
    seed: int | None = None,
    traces: Sequence[str] = ...,
    pcap: Sequence[str] = ...,
    out_dir: str | PathLike[str] | None = None,
) -> tuple[str, list[tuple[str, list[tuple[str, str, bytes, bytes | None]]]]]:
    """Run a scenario; return (summary JSON, [(trace, [(column, dtype, bytes, validity)])])."""

def schema() -> str:
    """The JSON Schema of scenario files."""

def version() -> str:
    """The native module's version."""

def trace_names() -> list[str]:
    """The traces a run can record."""
