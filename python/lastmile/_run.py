"""Running a scenario: one call into the Rust core, and the `RunResult` it gives back.

The core returns the run summary as JSON and each recorded trace as little-endian column
buffers. `RunResult.trace` wraps those buffers as Arrow arrays (`pyarrow.Array.from_buffers`)
and converts the table to pandas: no Python loop ever touches a row. pandas and pyarrow are
imported only when a DataFrame or Arrow table is asked for, so `import lastmile` stays light.

`validate` does everything `run` does before the first event, without running, and returns
the run's estimated size (`Estimate`); `event_budget` is the size above which the CLI
warns. A run can report its progress (a callable) and is stopped cleanly by Ctrl-C: the
partial result comes with `lastmile.RunInterrupted`. A run may be given a budget
(``max_events``, ``max_wall_s``): past it, it stops cleanly and `lastmile.BudgetExceeded`
carries the partial result. An output folder that cannot be written is refused before the
run starts (`check_out_dir`).

The summary says what ran: ``scenario`` is the resolved scenario the core ran (every key,
defaults filled in, units spelled out, the run's seed), and ``command`` a ``lastmile run``
command line that runs it again (when the scenario came from a file).
"""

from __future__ import annotations

import json
import math
import operator
import os
import shlex
from collections.abc import Callable, Sequence

from lastmile import _core
from lastmile._errors import (
    ArgumentError,
    ArgumentTypeError,
    BudgetExceeded,
    RunInterrupted,
    UnknownNameError,
    clip,
)
from lastmile._scenario import Overrides, Scenario, check_path, normalise_overrides

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    import pandas as pd
    import pyarrow as pa
    from matplotlib.figure import Figure

    from lastmile._estimate import Estimate, Validation

__all__ = [
    "DEFAULT_EVENT_BUDGET",
    "FLOW_COLUMNS",
    "Estimate",
    "RunResult",
    "Validation",
    "check_out_dir",
    "event_budget",
    "run",
    "trace_frame",
    "validate",
]


def __getattr__(name: str) -> Any:
    # `Estimate` and `Validation` are dataclasses, whose module alone costs a few
    # milliseconds of every start-up: they load when first asked for.
    if name in ("Estimate", "Validation"):
        from lastmile import _estimate

        return getattr(_estimate, name)
    raise AttributeError(f"module 'lastmile._run' has no attribute {name!r}")


#: Seeds are unsigned 64-bit integers.
SEED_MAX = 2**64 - 1

#: The estimated events above which ``lastmile run`` and ``validate`` warn (about a minute
#: at the nominal 5 M events/s); ``LASTMILE_EVENT_BUDGET`` replaces it.
DEFAULT_EVENT_BUDGET: float = _core.DEFAULT_EVENT_BUDGET

#: The columns of `RunResult.flows`, in order, with their dtypes ("str" columns hold text).
FLOW_COLUMNS: dict[str, str] = {
    "name": "str",
    "src": "str",
    "dst": "str",
    "variant": "str",
    "cc": "str",
    "bytes_total": "int64",
    "bytes_delivered": "int64",
    "completed": "bool",
    "throughput_bps": "float64",
    "completion_s": "float64",
    "last_delivery_s": "float64",
    "longest_stall_s": "float64",
    "stalled": "bool",
    "stall_threshold_s": "float64",
    "tcp_timeouts": "int64",
    "tcp_fast_retransmits": "int64",
    "tcp_retransmits": "int64",
    "tcp_segments_sent": "int64",
    "delay_mean_s": "float64",
    "delay_std_s": "float64",
    "overhead_bytes": "int64",
    "tcp_ecn_reductions": "int64",
}

#: The columns of `RunResult.links` (one row per link direction) with their dtypes.
LINK_COLUMNS: dict[str, str] = {
    "name": "str",
    "from": "str",
    "to": "str",
    "frames_sent": "int64",
    "frames_lost": "int64",
    "bytes_sent": "int64",
    "queue_drops": "int64",
    "max_queue_packets": "int64",
    "ce_marks": "int64",
}

#: (column name, dtype, little-endian values, Arrow validity bitmap or None).
_Column = tuple[str, str, bytes, bytes | None]


def _frame(rows: list[dict[str, Any]], columns: dict[str, str]) -> pd.DataFrame:
    """A DataFrame of summary rows with the documented columns first, in their dtypes."""
    import pandas as pd

    extra = [key for key in (rows[0] if rows else {}) if key not in columns]
    frame = pd.DataFrame(rows, columns=[*columns, *extra])
    dtypes = {name: dtype for name, dtype in columns.items() if dtype != "str"}
    frame = frame.astype(dtypes)
    for name, dtype in columns.items():
        if dtype == "str":
            frame[name] = frame[name].astype(str)
    return frame


def _arrow_table(columns: list[_Column]) -> pa.Table:
    """Wrap the core's column buffers as an Arrow table, without copying row by row."""
    import pyarrow as pa

    arrays, fields = [], []
    for name, dtype, data, validity in columns:
        if dtype == "bool":
            # The core stores booleans one byte each (numpy's layout); Arrow packs bits.
            raw = pa.Array.from_buffers(pa.uint8(), len(data), [None, pa.py_buffer(data)])
            arrays.append(raw.cast(pa.bool_()))
            fields.append(pa.field(name, pa.bool_(), nullable=False))
            continue
        arrow_type = pa.type_for_alias(dtype)
        rows = len(data) // (arrow_type.bit_width // 8)
        # A validity bitmap marks absent values (e.g. an unlimited ssthresh) as nulls.
        mask = None if validity is None else pa.py_buffer(validity)
        arrays.append(pa.Array.from_buffers(arrow_type, rows, [mask, pa.py_buffer(data)]))
        # Only the columns the core sends a validity bitmap with can hold nulls.
        fields.append(pa.field(name, arrow_type, nullable=validity is not None))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def trace_frame(table: pa.Table) -> pd.DataFrame:
    """`table` as pandas; an integer column that can hold nulls (an unlimited ssthresh, a
    frame without stream data) becomes pandas' nullable integer type (``UInt64``, with
    ``<NA>``), whether or not this run produced a null, so its dtype never varies."""
    import pandas as pd
    import pyarrow as pa

    frame = table.to_pandas()
    for f in table.schema:
        if f.nullable and pa.types.is_integer(f.type):
            frame[f.name] = table[f.name].to_pandas(
                types_mapper={pa.uint64(): pd.UInt64Dtype(), pa.uint32(): pd.UInt32Dtype()}.get
            )
    return frame


class RunResult:
    """What a run produced: the summary, per-flow metrics and the recorded traces.

    - `summary`: the core's summary as a dict (``name``, ``seed``, ``flows``,
      ``wireless``, ``links``, ``engine``), metric names as in experiments.md.
    - `flows`: a pandas DataFrame, one row per flow (columns: `FLOW_COLUMNS`).
    - `groups`: a run of several flows, one row per group with Jain's fairness index and
      the shares (the summary's ``groups``; ``summary["fairness"]`` is over all flows).
    - `trace(name)`: a recorded trace as a pandas DataFrame; `arrow(name)` as Arrow.
    - `scenario`: the resolved scenario that ran (the summary's ``scenario``); `command`
      a command line that runs it again, when one is known.
    """

    __slots__ = ("_flows", "_tables", "_traces", "summary")

    def __init__(self, summary_json: str, traces: list[tuple[str, list[_Column]]]) -> None:
        #: The run summary (see the class docstring).
        self.summary: dict[str, Any] = json.loads(summary_json)
        self._traces: dict[str, list[_Column]] = dict(traces)
        self._tables: dict[str, pa.Table] = {}
        self._flows: pd.DataFrame | None = None

    @property
    def name(self) -> str:
        """The scenario's name."""
        return str(self.summary["name"])

    @property
    def seed(self) -> int:
        """The seed the run used."""
        return int(self.summary["seed"])

    @property
    def scenario(self) -> dict[str, Any]:
        """The scenario as run: every key, defaults filled in, the run's seed."""
        scenario: dict[str, Any] = self.summary.get("scenario") or {}
        return scenario

    @property
    def command(self) -> str | None:
        """A ``lastmile run`` command line that runs this again, when one is known."""
        command = self.summary.get("command")
        return str(command) if command else None

    @property
    def wireless(self) -> dict[str, Any] | None:
        """The lossy hop's metrics (``goodput_wireless``, ``frames_lost``, ...), if any."""
        wireless: dict[str, Any] | None = self.summary.get("wireless")
        return wireless

    @property
    def engine(self) -> dict[str, Any]:
        """The engine's figures: ``events``, ``sim_time_s``, ``wall_s``, ``stop_reason``."""
        engine: dict[str, Any] = self.summary["engine"]
        return engine

    @property
    def flows(self) -> pd.DataFrame:
        """One row per flow.

        Columns and dtypes: ``name``, ``src``, ``dst``, ``variant`` (str);
        ``bytes_total``, ``bytes_delivered`` (int64); ``completed`` (bool);
        ``throughput_bps``, ``completion_s``, ``last_delivery_s`` (float64, seconds; NaN
        if nothing was delivered), ``longest_stall_s`` (float64, seconds), ``stalled``
        (bool), ``stall_threshold_s`` (float64, seconds); ``tcp_timeouts``,
        ``tcp_fast_retransmits``, ``tcp_retransmits``, ``tcp_segments_sent`` (int64);
        ``delay_mean_s``, ``delay_std_s`` (float64, seconds); ``overhead_bytes``,
        ``tcp_ecn_reductions`` (int64); then any further metric the core reports.
        """
        if self._flows is None:
            self._flows = _frame(self.summary["flows"], FLOW_COLUMNS)
        return self._flows

    @property
    def groups(self) -> pd.DataFrame:
        """One row per group of flows (``[[flow]]`` ``group``; empty for a run of one flow):
        ``group``, ``background``, ``flows``, ``completed``, ``stalled``,
        ``bytes_delivered``, ``throughput_bps_sum`` / ``_mean`` / ``_min`` / ``_max``,
        ``jain_index`` and ``share_min`` / ``_max`` / ``_mean`` (NaN when the group
        delivered nothing), ``tcp_timeouts``, ``tcp_retransmits``."""
        import pandas as pd

        groups = self.summary.get("groups") or {}
        return pd.DataFrame([{"group": name, **g} for name, g in groups.items()])

    @property
    def links(self) -> pd.DataFrame:
        """One row per link direction (columns: `LINK_COLUMNS`)."""
        return _frame(self.summary["links"], LINK_COLUMNS)

    @property
    def trace_names(self) -> tuple[str, ...]:
        """The traces this run recorded."""
        return tuple(self._traces)

    def arrow(self, name: str) -> pa.Table:
        """The recorded trace `name` as a `pyarrow.Table` (zero-copy over the buffers)."""
        if name not in self._traces:
            recorded = ", ".join(self._traces) or "none"
            known = ", ".join(_core.trace_names())
            raise UnknownNameError(
                f"trace {clip(name)} was not recorded (recorded: {recorded}; "
                f"pass traces=[...] to lastmile.run, from: {known})",
                argument="name",
                value=name,
            )
        table = self._tables.get(name)
        if table is None:
            table = self._tables[name] = _arrow_table(self._traces[name])
        return table

    def trace(self, name: str) -> pd.DataFrame:
        """The recorded trace `name` as a pandas DataFrame (``time_s`` first). Columns that
        can be absent (``cwnd``'s ``ssthresh_bytes`` while ssthresh is unlimited,
        ``wireless_tx``'s ``offset`` for a frame without stream data) are ``UInt64`` with
        ``<NA>``.

        Raises `lastmile.UnknownNameError` (a KeyError) naming the traces that were
        recorded when `name` was not.
        """
        return trace_frame(self.arrow(name))

    def plot(
        self,
        *plots: str,
        out_dir: str | os.PathLike[str] | None = None,
        formats: Sequence[str] = ("png", "svg"),
    ) -> dict[str, Figure]:
        """The standard pictures of this run, drawn from its recorded traces.

        `plots` names some of ``seq`` (sequence/ACK), ``cwnd``, ``rtt``, ``wireless`` and
        ``throughput`` (default: every one whose traces were recorded; see
        `lastmile.plot.TRACES_FOR`). With `out_dir`, each is also written as
        ``<out_dir>/<plot>.<format>``. Returns matplotlib Figures by plot name. Raises
        KeyError naming the traces to record when a named plot (or, with none named, every
        plot) lacks its traces.
        """
        from pathlib import Path

        from lastmile import plot as _plot

        made = _plot.draw(
            lambda name: self.trace(name) if name in self._traces else None,
            kinds=plots or _plot.PLOTS,
            flow_names=[str(f.get("name")) for f in self.summary.get("flows", [])],
            hops=_plot.hop_names(self.summary),
            rwnd=_plot.receiver_windows(self.summary),
            title=f"{self.name} (seed {self.seed})",
            out_dir=Path(out_dir) if out_dir is not None else None,
            formats=formats,
        )
        missing = made.missing if plots else ({} if made.figures else made.missing)
        if missing:
            needed = sorted({t for k in missing for t in _plot.TRACES_FOR[k][:1]})
            raise KeyError(
                f"cannot draw {', '.join(missing)}: run with traces={needed!r} "
                f"(recorded: {', '.join(self._traces) or 'none'})"
            )
        return made.figures

    def to_json(self) -> str:
        """The summary as one JSON object (what ``lastmile run --json`` prints)."""
        return json.dumps(self.summary)

    def __repr__(self) -> str:
        flows = len(self.summary.get("flows", []))
        return f"RunResult(name={self.name!r}, seed={self.seed}, flows={flows})"


def _seed(seed: object) -> int | None:
    if seed is None:
        return None
    try:
        value = operator.index(seed)  # type: ignore[arg-type]
    except TypeError:
        raise ArgumentTypeError(
            f"seed = {clip(seed)}: expected a whole number from 0 to 2**64-1",
            argument="seed",
            value=seed,
        ) from None
    if isinstance(seed, bool) or not 0 <= value <= SEED_MAX:
        raise ArgumentError(
            f"seed = {clip(seed)}: expected a whole number from 0 to 2**64-1 "
            "(18446744073709551615)",
            argument="seed",
            value=seed,
        )
    return int(value)


def _names(values: Sequence[str] | str, argument: str) -> list[str]:
    items = [values] if isinstance(values, str) else values
    if not isinstance(items, Sequence) or not all(isinstance(v, str) for v in items):
        raise ArgumentTypeError(
            f"{argument} = {clip(values)}: expected a list of names",
            argument=argument,
            value=values,
        )
    return list(items)


def _core_arguments(
    scenario: object,
    seed: object,
    overrides: Overrides | None,
    traces: Sequence[str] | str,
    pcap: Sequence[str] | str,
    out_dir: object,
) -> dict[str, Any]:
    """The keyword arguments of `_core.run` / `_core.check`, every one checked."""
    names = _names(traces, "traces")
    known = _core.trace_names()
    for name in names:
        if name not in known:
            raise UnknownNameError(
                f"unknown trace {clip(name)}: expected one of {', '.join(known)}",
                argument="traces",
                value=name,
            )
    captures = _names(pcap, "pcap")
    if captures and out_dir is None:
        raise ArgumentError(
            f"pcap = {clip(captures)}: a capture is written to a file: give out_dir too",
            argument="pcap",
            value=pcap,
        )
    common: dict[str, Any] = {
        "overrides": normalise_overrides(overrides),
        "seed": _seed(seed),
        "traces": names,
        "pcap": captures,
        "out_dir": None if out_dir is None else check_out_dir(out_dir),
    }
    if isinstance(scenario, Scenario):
        return {
            "text": scenario.to_json(),
            "format": "json",
            "origin": scenario.origin,
            **common,
        }
    return {"path": check_path(scenario, "scenario"), **common}


def check_out_dir(out_dir: object, argument: str = "out_dir") -> Path:
    """`out_dir` as a `Path` if a run can write there, else `ArgumentError` before anything
    runs: an existing directory that can be written, or a path whose nearest existing
    ancestor is one (the run creates the rest)."""
    from pathlib import Path

    path = Path(check_path(out_dir, argument, "a directory"))

    def refuse(why: str) -> ArgumentError:
        # An option names itself as typed (`--out DIR`), an argument as `out_dir = 'DIR'`.
        named = (
            f"{argument} {path}" if argument.startswith("--") else f"{argument} = {clip(str(path))}"
        )
        return ArgumentError(f"{named}: {why}", argument=argument, value=path)

    if path.exists():
        if not path.is_dir():
            raise refuse("exists and is not a directory")
        if not os.access(path, os.W_OK | os.X_OK):
            raise refuse("the directory cannot be written (permission denied)")
        return path
    ancestor = path.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise refuse(f"cannot be created: {ancestor} is not a directory")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise refuse(f"cannot be created: {ancestor} cannot be written (permission denied)")
    return path


def _budget(max_events: object, max_wall_s: object) -> dict[str, Any]:
    """The `_core.run` budget arguments, checked."""
    # `numbers` only when a budget is given: its import costs 1 % of a `lastmile run`.
    events: int | None = None
    if max_events is not None:
        import numbers

        if isinstance(max_events, bool):
            pass
        elif isinstance(max_events, numbers.Integral):
            events = int(max_events)
        if events is None or not 1 <= events < 2**64:
            raise ArgumentError(
                f"max_events = {clip(max_events)}: expected a whole number of events, at least 1",
                argument="max_events",
                value=max_events,
            )
    wall: float | None = None
    if max_wall_s is not None:
        import numbers

        if isinstance(max_wall_s, bool):
            pass
        elif isinstance(max_wall_s, numbers.Real):
            wall = float(max_wall_s)
        if wall is None or not math.isfinite(wall) or not wall > 0:
            raise ArgumentError(
                f"max_wall_s = {clip(max_wall_s)}: expected a positive number of seconds",
                argument="max_wall_s",
                value=max_wall_s,
            )
    return {"max_events": events, "max_wall_s": wall}


def command_line(
    scenario: object, seed: int, overrides: Sequence[str], *, example: str | None = None
) -> str | None:
    """``lastmile run FILE --seed N --set K=V ...``: a command that runs the same scenario
    again (None for a scenario given as text, which has no file to name)."""
    if example is not None:
        words = ["lastmile", "run", "--example", example]
    else:
        path: Any = scenario.path if isinstance(scenario, Scenario) else scenario
        if path is None:
            return None
        words = ["lastmile", "run", os.fspath(path)]
    if isinstance(scenario, Scenario):
        overrides = [*scenario.overrides, *overrides]
    words += ["--seed", str(seed)]
    for text in overrides:
        words += ["--set", text]
    return shlex.join(words)


def event_budget() -> float:
    """The event budget: ``LASTMILE_EVENT_BUDGET`` if set (a number, read as `float` reads
    it), else 3e8. The core reads it, so that ``lastmile-run`` reads it alike."""
    text = os.environ.get("LASTMILE_EVENT_BUDGET")
    try:
        return _core.event_budget(text)
    except ValueError as e:
        raise ArgumentError(str(e), argument="LASTMILE_EVENT_BUDGET", value=text) from None


def validate(
    scenario: Scenario | str | os.PathLike[str],
    overrides: Overrides | None = None,
    *,
    seed: int | None = None,
    traces: Sequence[str] = (),
    pcap: Sequence[str] = (),
    out_dir: str | os.PathLike[str] | None = None,
) -> Validation:
    """Everything `run` does before the first event, without running.

    Loads and checks the scenario with `overrides`, checks the trace and capture names,
    and builds the world (nodes, links, cells, agents, flows, routes): a scenario that
    passes here is not refused when `run` starts. Raises as `run` does. Returns the
    scenario's size and the run's `Estimate`.
    """
    from lastmile._estimate import Estimate, Validation

    arguments = _core_arguments(scenario, seed, overrides, traces, pcap, out_dir)
    found = _core.check(**arguments)
    estimate = Estimate(float(found["events"]), float(found["sim_time_s"]), float(found["wall_s"]))
    return Validation(
        str(found["name"]), int(found["nodes"]), int(found["links"]), int(found["flows"]), estimate
    )


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    overrides: Overrides | None = None,
    traces: Sequence[str] = (),
    *,
    pcap: Sequence[str] = (),
    out_dir: str | os.PathLike[str] | None = None,
    progress: Callable[[dict[str, Any]], object] | None = None,
    max_events: int | None = None,
    max_wall_s: float | None = None,
) -> RunResult:
    """Run `scenario` (a `Scenario` or a path to a scenario file) to the end.

    `seed` replaces the scenario's seed (0 to 2**64-1); `overrides` change fields as
    ``--set`` does; `traces` names the traces to record (see `lastmile.trace_names()`);
    `pcap` names links to capture into ``<out_dir>/<link>.pcapng`` (the core creates the
    directory). The GIL is released while the core runs.

    `progress`, if given, is called with a dict: first ``{"phase": "start",
    "estimated_events", "estimated_sim_time_s", "estimated_wall_s"}``, then every
    ``_core.PROGRESS_EVERY`` events ``{"phase": "running", "events", "sim_time_s",
    "stop_time_s"}``. Ctrl-C stops the run cleanly and raises `lastmile.RunInterrupted`
    (a KeyboardInterrupt) whose ``result`` is the run so far.

    `max_events` and `max_wall_s` are the run's budget: a run that would go on past that
    many events, or that many seconds of wall-clock time, is stopped cleanly and
    `lastmile.BudgetExceeded` carries its partial result (``stop_reason`` "budget").

    The result's summary carries ``scenario`` (the resolved scenario that ran) and, for a
    scenario read from a file, ``command`` (a ``lastmile run`` line that runs it again).

    Raises `lastmile.ScenarioError` for a bad scenario, `lastmile.ArgumentError` for a bad
    argument (an output folder that cannot be written included, before anything runs) and
    `lastmile.SimulationError` when the run fails.
    """
    if progress is not None and not callable(progress):
        raise ArgumentTypeError(
            f"progress = {clip(progress)}: expected a callable or None",
            argument="progress",
            value=progress,
        )
    arguments = _core_arguments(scenario, seed, overrides, traces, pcap, out_dir)
    budget = _budget(max_events, max_wall_s)
    summary, tables = _core.run(**arguments, progress=progress, **budget)
    result = RunResult(summary, tables)
    command = command_line(scenario, result.seed, arguments["overrides"])
    if command is not None:
        result.summary["command"] = command
    reason = result.engine.get("stop_reason")
    if reason == "interrupted":
        raise RunInterrupted(result)
    if reason == "budget":
        raise BudgetExceeded(
            f"the run used up its budget ({_describe_budget(budget)}) after "
            f"{result.engine.get('events', 0):,} events, "
            f"{result.engine.get('sim_time_s', 0.0):.4g} s simulated",
            result,
        )
    return result


def _describe_budget(budget: dict[str, Any]) -> str:
    parts = []
    if budget["max_events"] is not None:
        parts.append(f"max_events = {budget['max_events']:,}")
    if budget["max_wall_s"] is not None:
        parts.append(f"max_wall_s = {budget['max_wall_s']:g}")
    return ", ".join(parts)
