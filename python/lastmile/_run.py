"""Running a scenario: one call into the Rust core, and the `RunResult` it gives back.

The core returns the run summary as JSON and each recorded trace as little-endian column
buffers. `RunResult.trace` wraps those buffers as Arrow arrays (`pyarrow.Array.from_buffers`)
and converts the table to pandas: no Python loop ever touches a row. pandas and pyarrow are
imported only when a DataFrame or Arrow table is asked for, so `import lastmile` stays light.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lastmile import _core
from lastmile._scenario import Overrides, Scenario, normalise_overrides

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa
    from matplotlib.figure import Figure

__all__ = ["FLOW_COLUMNS", "RunResult", "run", "trace_frame"]

#: The columns of `RunResult.flows`, in order, with their dtypes ("str" columns hold text).
FLOW_COLUMNS: dict[str, str] = {
    "name": "str",
    "src": "str",
    "dst": "str",
    "variant": "str",
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
    - `trace(name)`: a recorded trace as a pandas DataFrame; `arrow(name)` as Arrow.
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
        ``delay_mean_s``, ``delay_std_s`` (float64, seconds); ``overhead_bytes`` (int64);
        then any further metric the core reports.
        """
        if self._flows is None:
            self._flows = _frame(self.summary["flows"], FLOW_COLUMNS)
        return self._flows

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
            raise KeyError(
                f"trace {name!r} was not recorded (recorded: {recorded}; "
                f"pass traces=[...] to lastmile.run, from: {known})"
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

        Raises KeyError naming the traces that were recorded when `name` was not.
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


def run(
    scenario: Scenario | str | os.PathLike[str],
    seed: int | None = None,
    overrides: Overrides | None = None,
    traces: Sequence[str] = (),
    *,
    pcap: Sequence[str] = (),
    out_dir: str | os.PathLike[str] | None = None,
) -> RunResult:
    """Run `scenario` (a `Scenario` or a path to a scenario file) to the end.

    `seed` replaces the scenario's seed; `overrides` change fields as ``--set`` does;
    `traces` names the traces to record (see `lastmile.trace_names()`); `pcap` names links
    to capture into ``<out_dir>/<link>.pcap`` (the core creates the directory). The GIL is
    released while the core runs.

    Raises `lastmile.ScenarioError` for a bad scenario and `lastmile.SimulationError` when
    the run fails.
    """
    if isinstance(traces, str):
        traces = [traces]
    if isinstance(pcap, str):
        pcap = [pcap]
    common: dict[str, Any] = {
        "overrides": normalise_overrides(overrides),
        "seed": seed,
        "traces": list(traces),
        "pcap": list(pcap),
        "out_dir": out_dir,
    }
    if isinstance(scenario, Scenario):
        summary, tables = _core.run(
            text=scenario.to_json(), format="json", origin=scenario.origin, **common
        )
    else:
        summary, tables = _core.run(path=scenario, **common)
    return RunResult(summary, tables)
