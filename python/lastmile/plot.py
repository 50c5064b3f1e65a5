"""The standard pictures of one TCP run, drawn from its traces (``lastmile plot``,
`RunResult.plot`).

- ``seq``: the sender's sequence/ACK plot (Stevens' "time-sequence graph", as tcptrace
  draws it): each data segment sent at its relative sequence number (the stream offset of
  its first byte, 0 = the first byte of data), retransmissions marked, the cumulative ACK
  as a step line, and data frames lost on the wireless hop marked where they were sent.
- ``cwnd``: the congestion window and ssthresh (RFC 5681) over time, each in its own
  colour; an unlimited ssthresh (the trace's null) is drawn as absent. Beside them the
  receiver's window (``rwnd``, from the summary: the most the receiver advertises; it
  advertises less only while it holds data out of order) and the effective send window,
  min(cwnd, rwnd), which is what the source may have in flight. When cwnd climbs far
  above rwnd the bytes axis is logarithmic, so both stay readable.
- ``rtt``: RTT samples with the smoothed RTT and the RTO (RFC 6298).
- ``wireless``: frames per second on each wireless hop, data frames and frames without
  data (ACKs, link-layer control) apart — for a one-way transfer, one line per direction —
  each sent and lost.
- ``throughput``: per-flow goodput over time, from the cumulative ACKs (bytes newly
  acknowledged per bin); the bin width is in the axis label (a bin catches ACKs in
  bursts, so a short bin can show more than the line rate).

`draw(window=(start, end))` draws only that stretch of simulated time (``lastmile plot
--from/--to``). `results_figure` labels a sweep's axis with the scenario key's own
description and unit from the JSON Schema (`axis_label`), the dotted key beneath.

Figures are matplotlib `Figure` objects built without pyplot (no global state, so a
notebook's backend is left alone); matplotlib is imported only here, when drawing. A plot
whose traces were not recorded is skipped and named in `missing`, with the trace to add.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "PLOTS",
    "TRACES_FOR",
    "Plots",
    "axis_label",
    "draw",
    "hop_names",
    "is_parsed_axis",
    "results_figure",
    "save",
    "traces_from_dir",
]

#: The plots, in the order they are drawn.
PLOTS = ("seq", "cwnd", "rtt", "wireless", "throughput")

#: The traces each plot reads (the first is required, the others optional).
TRACES_FOR: dict[str, tuple[str, ...]] = {
    "seq": ("seq", "wireless_tx"),
    "cwnd": ("cwnd",),
    "rtt": ("rtt",),
    "wireless": ("wireless_tx",),
    "throughput": ("seq",),
}

#: Scatter plots with more points than this are rasterized inside SVG files.
_RASTER_ABOVE = 4000

TraceGetter = Callable[[str], "pd.DataFrame | None"]


@dataclass(frozen=True)
class _Labels:
    """What the pictures call things: the run, its flows, its wireless hops; and each
    flow's receiver window (bytes), where the summary gives it."""

    title: str
    flows: Sequence[str]
    hops: Sequence[str]
    rwnd: Sequence[int | None] = ()
    window: tuple[float, float] | None = None


def receiver_windows(summary: Mapping[str, Any]) -> list[int | None]:
    """Each flow's receiver window in bytes (the summary's ``rwnd_bytes``), in flow order."""
    flows = summary.get("flows") or []
    return [
        int(f["rwnd_bytes"]) if isinstance(f, Mapping) and f.get("rwnd_bytes") else None
        for f in flows
    ]


def hop_names(summary: Mapping[str, Any]) -> list[str]:
    """The names behind `wireless_tx`'s ``link`` numbers: the links in order (the summary
    lists each link's two directions in a row), then the cells."""
    links = summary.get("links") or []
    cells = summary.get("cells") or []
    return [str(link.get("name")) for link in links[::2]] + [str(c.get("name")) for c in cells]


@dataclass
class Plots:
    """What `draw` made: the figures by plot name, the files written, and the plots skipped
    with the reason (the trace to record)."""

    figures: dict[str, Figure] = field(default_factory=dict)
    files: list[Path] = field(default_factory=list)
    missing: dict[str, str] = field(default_factory=dict)


def traces_from_dir(run_dir: Path) -> TraceGetter:
    """A trace getter over the ``NAME.parquet`` files of a run directory."""

    def get(name: str) -> pd.DataFrame | None:
        path = run_dir / f"{name}.parquet"
        if not path.is_file():
            return None
        import pyarrow.parquet as pq

        from lastmile._run import trace_frame

        return trace_frame(pq.read_table(path))

    return get


def _flow_label(flow: int, names: Sequence[str]) -> str:
    return names[flow] if flow < len(names) else f"flow {flow}"


def _colour(flow: int) -> str:
    return f"C{flow % 10}"


def _new_figure(title: str, ylabel: str) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 4.2), layout="constrained")
    ax = fig.add_subplot()
    ax.set_title(title, fontsize=11)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def _scatter(ax: Axes, x: Any, y: Any, **kwargs: Any) -> None:
    ax.scatter(x, y, rasterized=len(x) > _RASTER_ABOVE, **kwargs)


def _seq(get: TraceGetter, labels: _Labels) -> Figure | str:
    names, title = labels.flows, labels.title
    seq = get("seq")
    if seq is None:
        return "record the seq trace (--trace seq)"
    wtx = get("wireless_tx")
    fig, ax = _new_figure(f"{title}: sequence and ACK numbers", "relative sequence number (KB)")
    for flow in sorted(set(seq["flow"].tolist())):
        rows = seq[seq["flow"] == flow]
        sent = rows[~rows["ack"]]
        first = sent[~sent["retransmission"]]
        again = sent[sent["retransmission"]]
        acks = rows[rows["ack"]]
        c, label = _colour(flow), _flow_label(flow, names)
        _scatter(ax, first["time_s"], first["offset"] / 1e3, s=4, color=c, label=f"{label}: sent")
        if len(acks):
            ax.step(
                acks["time_s"],
                acks["offset"] / 1e3,
                where="post",
                color=c,
                alpha=0.5,
                linewidth=1.0,
                label=f"{label}: cumulative ACK",
            )
        if len(again):
            _scatter(
                ax,
                again["time_s"],
                again["offset"] / 1e3,
                s=22,
                marker="x",
                color="red",
                linewidths=1.0,
                label=f"{label}: retransmitted",
            )
        if wtx is not None and "offset" in wtx:
            lost = wtx[(wtx["flow"] == flow) & wtx["lost"] & wtx["data"] & wtx["offset"].notna()]
            if len(lost):
                _scatter(
                    ax,
                    lost["time_s"],
                    lost["offset"] / 1e3,
                    s=30,
                    marker="v",
                    facecolors="none",
                    edgecolors="black",
                    linewidths=0.9,
                    label=f"{label}: lost on the air",
                )
    ax.legend(fontsize=8, loc="upper left", markerscale=1.5)
    return fig


#: The colours of the cwnd plot's quantities (one flow; several flows add line styles).
_CWND_COLOURS = {"cwnd": "C0", "ssthresh": "C3", "rwnd": "0.45", "send": "C2"}
_STYLES = ("-", "--", ":", "-.")


def _cwnd(get: TraceGetter, labels: _Labels) -> Figure | str:
    names, title = labels.flows, labels.title
    cwnd = get("cwnd")
    if cwnd is None:
        return "record the cwnd trace (--trace cwnd)"
    fig, ax = _new_figure(f"{title}: congestion window", "bytes (KB)")
    top_cwnd, top_rwnd = 0.0, 0.0
    for k, flow in enumerate(sorted(set(cwnd["flow"].tolist()))):
        rows = cwnd[cwnd["flow"] == flow]
        label = _flow_label(flow, names)
        prefix = f"{label}: " if len(names) > 1 else ""
        style = _STYLES[k % len(_STYLES)]
        times, window_kb = rows["time_s"], rows["cwnd_bytes"].astype("float64") / 1e3
        rwnd = labels.rwnd[flow] if flow < len(labels.rwnd) else None
        if rwnd:
            rwnd_kb = rwnd / 1e3
            ax.step(
                times,
                window_kb.clip(upper=rwnd_kb),
                where="post",
                color=_CWND_COLOURS["send"],
                linewidth=4.0,
                alpha=0.35,
                linestyle=style,
                label=f"{prefix}send window = min(cwnd, rwnd)",
            )
            ax.axhline(
                rwnd_kb,
                color=_CWND_COLOURS["rwnd"],
                linestyle=style,
                linewidth=1.2,
                label=f"{prefix}rwnd (receiver's window, {rwnd:,} B)",
            )
            top_rwnd = max(top_rwnd, rwnd_kb)
        ax.step(
            times,
            window_kb,
            where="post",
            color=_CWND_COLOURS["cwnd"],
            linestyle=style,
            linewidth=1.0,
            label=f"{prefix}cwnd",
        )
        top_cwnd = max(top_cwnd, float(window_kb.max()) if len(window_kb) else 0.0)
        # A null ssthresh (unlimited) becomes NaN: matplotlib leaves a gap there.
        ssthresh = rows["ssthresh_bytes"].astype("float64") / 1e3
        if ssthresh.notna().any():
            ax.step(
                times,
                ssthresh,
                where="post",
                color=_CWND_COLOURS["ssthresh"],
                linestyle=style,
                linewidth=1.0,
                alpha=0.9,
                label=f"{prefix}ssthresh",
            )
    if top_rwnd and top_cwnd > 10 * top_rwnd:
        ax.set_yscale("log")
        ax.set_ylabel("bytes (KB, log scale: cwnd far above rwnd)")
    else:
        ax.set_ylim(bottom=0)
    _legend_beside(ax)
    return fig


def _legend_beside(ax: Axes) -> None:
    """The legend to the right of the plot, where it hides no line."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def _rtt(get: TraceGetter, labels: _Labels) -> Figure | str:
    names, title = labels.flows, labels.title
    rtt = get("rtt")
    if rtt is None:
        return "record the rtt trace (--trace rtt)"
    fig, ax = _new_figure(f"{title}: round-trip time", "seconds")
    for flow in sorted(set(rtt["flow"].tolist())):
        rows = rtt[rtt["flow"] == flow]
        c, label = _colour(flow), _flow_label(flow, names)
        _scatter(
            ax, rows["time_s"], rows["sample_s"], s=5, color=c, alpha=0.6, label=f"{label}: sample"
        )
        ax.plot(rows["time_s"], rows["srtt_s"], color=c, linewidth=1.2, label=f"{label}: SRTT")
        ax.step(
            rows["time_s"],
            rows["rto_s"],
            where="post",
            color=c,
            linestyle=":",
            linewidth=1.2,
            label=f"{label}: RTO",
        )
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="upper left")
    return fig


def _bins(times: pd.Series, bins: int, window: tuple[float, float] | None) -> tuple[Any, float]:
    """Bin edges over the window drawn ([0, last time] by default) and the bin width (at
    least 1 ms)."""
    import numpy as np

    last = float(times.max()) if len(times) else 1.0
    start, end = window if window is not None else (0.0, last)
    end = min(end, last) if len(times) else start + 1.0
    width = max((end - start) / bins, 1e-3)
    return np.arange(start, end + width, width), width


def _seconds(width: float) -> str:
    """A bin width for a label: ``25 s``, ``120 ms``."""
    return f"{width:.3g} s" if width >= 1 else f"{width * 1e3:.3g} ms"


def _wireless(get: TraceGetter, labels: _Labels) -> Figure | str:
    title = labels.title
    wtx = get("wireless_tx")
    if wtx is None:
        return "record the wireless_tx trace (--trace wireless_tx)"
    import numpy as np

    edges, width = _bins(wtx["time_s"], 60, labels.window)
    fig, ax = _new_figure(
        f"{title}: wireless frames", f"frames per second (per {_seconds(width)} bin)"
    )
    kinds = (("data frames", True, 0), ("frames without data (ACKs, control)", False, 1))
    for i, link in enumerate(sorted(set(wtx["link"].tolist()))):
        on_link = wtx[wtx["link"] == link]
        hop = labels.hops[link] if link < len(labels.hops) else f"link {link}"
        for kind, is_data, shade in kinds:
            c, style = _colour(2 * i + shade), "-" if is_data else "--"
            rows = on_link[on_link["data"] == is_data]
            if not len(rows):
                continue
            sent, _ = np.histogram(rows["time_s"], edges)
            lost, _ = np.histogram(rows["time_s"][rows["lost"]], edges)
            ax.step(
                edges[:-1],
                sent / width,
                where="post",
                color=c,
                linestyle=style,
                label=f"{hop}: {kind} sent",
            )
            if lost.any():
                ax.step(
                    edges[:-1],
                    lost / width,
                    where="post",
                    color="red",
                    linestyle=style,
                    linewidth=0.9,
                    label=f"{hop}: {kind} lost",
                )
    ax.set_ylim(bottom=0)
    _legend_beside(ax)
    return fig


def _throughput(get: TraceGetter, labels: _Labels) -> Figure | str:
    names, title = labels.flows, labels.title
    seq = get("seq")
    if seq is None:
        return "record the seq trace (--trace seq)"
    import numpy as np

    acks = seq[seq["ack"]]
    edges, width = _bins(seq["time_s"], 60, labels.window)
    fig, ax = _new_figure(
        f"{title}: throughput per flow",
        f"goodput (kbps, bytes newly ACKed per {_seconds(width)} bin)",
    )
    for flow in sorted(set(acks["flow"].tolist())):
        rows = acks[acks["flow"] == flow]
        offsets = rows["offset"].astype("float64").cummax().to_numpy()
        # The highest cumulative ACK at each bin edge; bytes acknowledged per bin.
        at = np.searchsorted(rows["time_s"].to_numpy(), edges, side="right") - 1
        acked = np.where(at >= 0, offsets[np.clip(at, 0, None)], 0.0)
        rate_kbps = np.diff(acked) * 8 / width / 1e3
        ax.step(
            edges[:-1], rate_kbps, where="post", color=_colour(flow), label=_flow_label(flow, names)
        )
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="upper left")
    return fig


_DRAW: dict[str, Callable[[TraceGetter, _Labels], Figure | str]] = {
    "seq": _seq,
    "cwnd": _cwnd,
    "rtt": _rtt,
    "wireless": _wireless,
    "throughput": _throughput,
}


def draw(
    get: TraceGetter,
    *,
    kinds: Iterable[str] = PLOTS,
    flow_names: Sequence[str] = (),
    hops: Sequence[str] = (),
    title: str = "",
    out_dir: Path | None = None,
    formats: Sequence[str] = ("png", "svg"),
    rwnd: Sequence[int | None] = (),
    window: tuple[float, float] | None = None,
) -> Plots:
    """Draw the plots named in `kinds` from the traces `get` returns (`flow_names` and
    `hops` name the flows and the wireless hops, see `hop_names`; `rwnd` the flows'
    receiver windows, see `receiver_windows`); with `out_dir`, write each as
    ``out_dir/<plot>.<format>``. `window` (start, end) in seconds of simulated time draws
    only that stretch. Unknown names raise ValueError."""
    kinds = list(kinds)
    unknown = [k for k in kinds if k not in _DRAW]
    if unknown:
        raise ValueError(f"unknown plot {unknown[0]!r}; the plots are: {', '.join(PLOTS)}")
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad:
        raise ValueError(f"unknown format {bad[0]!r}: expected png, svg or pdf")
    cache: dict[str, pd.DataFrame | None] = {}

    def cached(name: str) -> pd.DataFrame | None:
        if name not in cache:
            frame = get(name)
            if frame is not None and window is not None:
                frame = frame[(frame["time_s"] >= window[0]) & (frame["time_s"] <= window[1])]
            cache[name] = frame
        return cache[name]

    labels = _Labels(title or "run", flow_names, hops, rwnd, window)
    plots = Plots()
    for kind in kinds:
        made = _DRAW[kind](cached, labels)
        if isinstance(made, str):
            plots.missing[kind] = made
            continue
        if window is not None:
            ax = made.axes[0]
            end = window[1] if window[1] != float("inf") else ax.get_xlim()[1]
            ax.set_xlim(window[0], end)
        plots.figures[kind] = made
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            for fmt in formats:
                path = out_dir / f"{kind}.{fmt}"
                save(made, path, fmt)
                plots.files.append(path)
    return plots


def save(fig: Figure, target: Any, fmt: str) -> None:
    """Save `fig` as `fmt` (png, svg, pdf) byte-stable: no dates or versions stamped, and
    SVG element ids from a fixed salt rather than a random one. A file path is written
    beside and renamed over (`lastmile._fresh.write_fresh`): a link there is replaced."""
    import matplotlib

    def write(out: Any) -> None:
        with matplotlib.rc_context({"svg.hashsalt": "lastmile"}):
            fig.savefig(out, format=fmt, dpi=110, metadata=_metadata(fmt))

    if isinstance(target, str | Path):
        from lastmile._fresh import write_fresh

        write_fresh(Path(target), write)
    else:
        write(target)


def _metadata(fmt: str) -> dict[str, Any] | None:
    # Byte-stable files: no creation date in SVG/PDF, no software version stamp.
    if fmt == "svg":
        return {"Date": None, "Creator": None}
    if fmt == "pdf":
        return {"CreationDate": None, "Creator": None, "Producer": None}
    return {"Software": None}


def is_parsed_axis(frame: pd.DataFrame, column: str) -> bool:
    """True for the numeric column `lastmile.results` adds beside an axis of unit strings."""
    cols = list(frame.columns)
    i = cols.index(column)
    return i > 0 and any(column == f"{cols[i - 1]}_{b}" for b in ("s", "bps", "bytes", "pkt"))


def results_figure(frame: pd.DataFrame, metric: str, x_axis: str, title: str = "") -> Figure:
    """Mean ± 95 % CI of `metric` against `x_axis`, one line per variant (and per value of
    every other grouping column), from a `lastmile.results` table. A unit-string axis is
    placed by its parsed number; any other non-numeric axis by its order."""
    from lastmile._units import column_format

    mean, ci = f"{metric}_mean", f"{metric}_ci95"
    if mean not in frame.columns:
        known = [c.removesuffix("_mean") for c in frame.columns if c.endswith("_mean")]
        raise ValueError(f"no metric {metric!r} in the table (metrics: {', '.join(known)})")
    if x_axis not in frame.columns:
        axes = [c for c in frame.columns if not c.endswith(("_mean", "_ci95"))]
        axes = [c for c in axes if c not in ("runs", "failed")]
        raise ValueError(f"no axis {x_axis!r} in the table (columns: {', '.join(axes)})")
    cols = list(frame.columns)
    parsed = cols[cols.index(x_axis) + 1] if x_axis in cols[:-1] else None
    x_column = parsed if parsed is not None and is_parsed_axis(frame, parsed) else x_axis
    numeric_x = frame[x_column].dtype.kind in "iuf"
    groups = [
        c
        for c in frame.columns
        if c not in (x_axis, x_column, "runs", "failed")
        and not c.endswith(("_mean", "_ci95"))
        and not is_parsed_axis(frame, c)
    ]
    fmt = column_format(metric, frame[mean])
    x_fmt = column_format(x_column, frame[x_column]) if numeric_x else None
    xlabel = axis_label(x_axis, x_fmt.unit if x_fmt is not None else "")
    fig, ax = _new_figure(title or f"{fmt.header(metric)} vs {x_axis}", fmt.header(metric))
    ax.set_xlabel(xlabel)
    labels = list(dict.fromkeys(frame[x_axis].tolist()))
    for i, (key, rows) in enumerate(frame.groupby(groups, sort=False) if groups else [((), frame)]):
        parts = key if isinstance(key, tuple) else (key,)
        # The variant by name, any other axis by its key's last part: "newreno, per = 0.05".
        label = (
            ", ".join(
                str(p) if g == "variant" else f"{g.rsplit('.', 1)[-1]} = {p}"
                for g, p in zip(groups, parts, strict=False)
            )
            or metric
        )
        if numeric_x:
            xs = rows[x_column].astype("float64") / (x_fmt.divide_by if x_fmt else 1.0)
        else:
            xs = rows[x_axis].map(labels.index)
        ax.errorbar(
            xs,
            rows[mean] / fmt.divide_by,
            yerr=rows[ci].fillna(0.0) / fmt.divide_by,
            marker="o",
            markersize=4,
            capsize=3,
            color=_colour(i),
            label=label,
        )
    if not numeric_x:
        ax.set_xticks(range(len(labels)), [str(v) for v in labels])
    ax.legend(fontsize=8)
    return fig


def _schema_node(path: str) -> dict[str, Any] | None:
    """The JSON Schema of the scenario key at dotted `path` (``flow.0.tcp.rwnd``), found
    through tables, lists (a numeric segment), references and tagged forms."""
    import json

    from lastmile import _core

    schema = json.loads(_core.schema())
    definitions = schema.get("definitions", {})

    def resolved(node: dict[str, Any]) -> dict[str, Any]:
        for _ in range(16):
            ref = node.get("$ref")
            options = [n for n in node.get("anyOf") or [] if n != {"type": "null"}]
            if isinstance(ref, str):
                node = definitions.get(ref.rsplit("/", 1)[-1], {})
            elif len(node.get("allOf") or []) == 1:
                node = node["allOf"][0]
            elif len(options) == 1:
                node = options[0]
            else:
                break
        return node

    node: dict[str, Any] = schema
    for part in path.split("."):
        node = resolved(node)
        if part.isdigit() and "items" in node:
            node = node["items"]
            continue
        forms = [node, *node.get("oneOf", []), *node.get("anyOf", [])]
        found = next(
            (
                resolved(f).get("properties", {}).get(part)
                for f in forms
                if part in resolved(f).get("properties", {})
            ),
            None,
        )
        if found is None:
            return None
        node = found
    return node


def axis_label(path: str, unit: str = "") -> str:
    """A sweep axis as an axis label: the key's description from the JSON Schema (its
    first sentence) with the unit, and the dotted key beneath; the key alone for one the
    schema does not describe."""
    try:
        node = _schema_node(path)
    except Exception:  # a label must never stop a figure
        node = None
    description = str((node or {}).get("description") or "").strip()
    head = description.split(". ")[0].rstrip(".").strip()
    if len(head) > 60:
        head = head[:59] + "…"
    unit_part = f" ({unit})" if unit else ""
    if not head:
        return f"{path}{unit_part}"
    return f"{head}{unit_part}\n{path}"
