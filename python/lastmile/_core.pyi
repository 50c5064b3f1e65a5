"""Typed signatures of the private native module ``lastmile._core`` (Rust, PyO3).

Checked against the compiled module by ``python -m mypy.stubtest lastmile._core``. Use the
public API in ``lastmile`` instead of calling these directly.
"""

from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, final

from lastmile._errors import ScenarioError as ScenarioError
from lastmile._errors import SimulationError as SimulationError

__all__ = [
    "DEFAULT_EVENT_BUDGET",
    "PROGRESS_EVERY",
    "Emulator",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "budget_warning",
    "check",
    "describe_estimate",
    "event_budget",
    "load",
    "load_text",
    "progress_line",
    "run",
    "schema",
    "stall_warning",
    "trace_names",
    "version",
]

__version__: str
DEFAULT_EVENT_BUDGET: float
PROGRESS_EVERY: int

def check(
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
) -> dict[str, Any]:
    """Everything ``run`` does before the first event; return name, counts and estimate."""

def load(
    path: str | PathLike[str], overrides: Sequence[str] = ...
) -> tuple[str, list[str], list[str], int]:
    """Load and check a file; return (resolved scenario JSON, node names, link names, flows)."""

def load_text(
    text: str, format: str, origin: str = ..., overrides: Sequence[str] = ...
) -> tuple[str, list[str], list[str], int]:
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
    progress: Callable[[dict[str, Any]], object] | None = None,
    max_events: int | None = None,
    max_wall_s: float | None = None,
) -> tuple[str, list[tuple[str, list[tuple[str, str, bytes, bytes | None]]]]]:
    """Run a scenario (within its budget, if given); return (summary JSON, traces)."""

def schema() -> str:
    """The JSON Schema of scenario files."""

def version() -> str:
    """The native module's version."""

def trace_names() -> list[str]:
    """The traces a run can record."""

def stall_warning(
    *,
    name: str,
    longest_stall_s: float,
    stall_threshold_s: float,
    last_delivery_s: float | None,
    stall_cause: str | None,
    tcp_timeouts: int,
    tcp_persist_probes: int,
) -> str:
    """The warning for a stalled flow, from its summary's figures (the core's wording)."""

def progress_line(sim_s: float, stop_s: float, events: int, events_per_s: float) -> str:
    """The progress line of a long run (the core's wording)."""

def event_budget(text: str | None) -> float:
    """The budget ``LASTMILE_EVENT_BUDGET``'s value sets (3e8 when None or blank).

    Raises ValueError, naming the variable, for a value that is not a positive number."""

def describe_estimate(events: float, sim_time_s: float, wall_s: float) -> str:
    """A run's estimate in words (the core's wording)."""

def budget_warning(events: float, sim_time_s: float, wall_s: float, budget: float) -> str | None:
    """The warning for a run expected to exceed `budget` events, or None."""

@final
class Emulator:
    """A scenario with its flows' endpoints as ports to real hosts (``lastmile emulate``)."""

    def __new__(
        cls,
        *,
        path: str | PathLike[str] | None = None,
        text: str | None = None,
        format: str | None = None,
        origin: str | None = None,
        overrides: Sequence[str] = ...,
        seed: int | None = None,
        pcap: Sequence[str] = ...,
        out_dir: str | PathLike[str] | None = None,
    ) -> Emulator: ...
    def ports(self) -> list[tuple[str, str]]:
        """The ports, in order: (node name, IPv4 address)."""
    def open_tun(self, port: int, name: str) -> None:
        """Create port ``port``'s TUN device ``name`` in this process's namespace."""
    def run(self, limit_s: float, realtime: bool = True, cpu: int | None = None) -> str:
        """Run the real-time loop until ``stop`` or ``limit_s``; return the outcome JSON."""
    def stop(self, interrupted: bool = False) -> None:
        """Ask ``run`` to return (from any thread)."""
