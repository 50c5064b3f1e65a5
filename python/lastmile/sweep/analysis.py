"""Reading a results store: per-point means with Student-t confidence intervals, or runs.

`results(store)` groups the successful runs of each point (by default: campaign when the
selection holds several, code version when it holds several, variant and every axis) and
reports, per metric, ``<metric>_mean`` and ``<metric>_ci95``, the half-width of the 95 %
interval over seeds (``t(0.975, n-1) · s/√n``, NaN for a single run), next to ``runs``
(successful runs) and ``failed``. The grouping and averaging run in DuckDB; only the t
factors (one per distinct n) are computed here.

With ``runs=True`` it returns one row per run instead: campaign, variant, axes, seed,
status, error, every metric, then the bookkeeping columns. With ``flows=True``, one row
per flow of every run (the store's ``flows`` table beside the run's variant and axes).

An axis whose values are quantities with units (``"10ms"``, ``"1Mbps"``, ``"42KB"``,
``"100pkt"``) gets a parsed numeric column beside it, named with its base unit
(``topology.wireless.delay_s``, ``..._bps``, ``..._bytes``, ``..._pkt``), and rows sort by
that number rather than by the text ("10ms" before "100ms").
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lastmile._units import parse_quantity
from lastmile.sweep.stats import t_quantile
from lastmile.sweep.store import Store, StoreError, quote

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_METRICS", "FAIRNESS_METRICS", "parse_axes", "resolve_metrics", "results"]

#: Reported when no metric is named; a multi-flow run's ``flow0_`` column stands in (and
#: for a run of more than 16 flows, which has none, the mean over its flows).
DEFAULT_METRICS = ("throughput_bps", "tcp_timeouts", "wireless_goodput_wireless")
#: Also reported by default when present (runs of several flows).
FAIRNESS_METRICS = ("fairness_jain_index",)
_STAND_INS = {
    "throughput_bps": ("flow0_throughput_bps", "fairness_throughput_bps_mean"),
    "tcp_timeouts": ("flow0_tcp_timeouts",),
}


def _select_campaigns(st: Store, campaign: str | Sequence[str] | None) -> list[str]:
    known = st.campaigns()
    if not known:
        raise StoreError(f"{st.path}: the store holds no campaign")
    if campaign is None:
        return known
    wanted = [campaign] if isinstance(campaign, str) else list(campaign)
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise StoreError(
            f"{st.path}: no campaign {unknown[0]!r} (the store holds: {', '.join(known)})"
        )
    return wanted


def resolve_metrics(st: Store, metrics: Sequence[str] | None) -> list[str]:
    """The metric columns to report: `metrics` checked, or the defaults present."""
    available = st.metric_columns()
    numeric = st.numeric_columns()
    if metrics is None:
        chosen = [
            next((c for c in (m, *_STAND_INS.get(m, ())) if c in available), m)
            for m in DEFAULT_METRICS
        ]
        chosen = [m for m in (*chosen, *FAIRNESS_METRICS) if m in available]
        return chosen or [m for m in available if m in numeric]
    for name in metrics:
        if name not in available:
            choices = [m for m in available if m in numeric]
            if f"flow0_{name}" in choices:
                nearest = [f"flow0_{name}"]
            else:
                nearest = difflib.get_close_matches(name, choices, n=1, cutoff=0.5)
            hint = f" (did you mean {nearest[0]}?)" if nearest else ""
            raise StoreError(
                f"unknown metric {name!r}{hint}; the numeric metrics are: {', '.join(choices)}"
            )
    return list(metrics)


def parse_axes(frame: pd.DataFrame, axes: Sequence[str]) -> pd.DataFrame:
    """Add a numeric column beside each axis of unit strings, and sort rows by it."""
    sort_by = []
    for axis in axes:
        if axis not in frame.columns:
            continue
        sort_by.append(axis)
        values = frame[axis].dropna().unique().tolist()
        parsed = [parse_quantity(v) for v in values]
        bases = {p[1] for p in parsed if p is not None}
        if not values or None in parsed or len(bases) != 1:
            continue
        column = f"{axis}_{bases.pop()}"
        lookup = {v: p[0] for v, p in zip(values, parsed, strict=True) if p is not None}
        frame.insert(frame.columns.get_loc(axis) + 1, column, frame[axis].map(lookup))
        sort_by[-1] = column
    if sort_by:
        frame = frame.sort_values(sort_by, kind="stable", na_position="last")
    return frame.reset_index(drop=True)


def _aggregate(
    st: Store,
    names: list[str],
    code_version: str | None,
    group_by: Sequence[str] | None,
    metrics: list[str],
) -> pd.DataFrame:
    scope = "list_contains(?, campaign) AND (? IS NULL OR code_version = ?)"
    scope_params = [names, code_version, code_version]
    groups = list(group_by) if group_by is not None else ["variant", *st.campaign_axes(names)]
    ((versions,),) = st.con.execute(
        f"SELECT count(DISTINCT code_version) FROM runs WHERE {scope}", scope_params
    ).fetchall()
    implicit = ["campaign"] if len(names) > 1 else []
    implicit += ["code_version"] if versions > 1 else []
    groups = [*(g for g in implicit if g not in groups), *groups]
    for name in groups:
        if name not in st.columns:
            raise StoreError(
                f"cannot group by {name!r}: no such column (axes: "
                f"{', '.join(st.campaign_axes(names)) or 'none'})"
            )
    numeric = st.numeric_columns()
    ok = "FILTER (WHERE status = 'ok')"
    parts = [quote(g) for g in groups]
    parts += [f"count(*) {ok} AS runs", "count(*) FILTER (WHERE status <> 'ok') AS failed"]
    for m in metrics:
        if m not in numeric:
            raise StoreError(f"metric {m!r} is not numeric; use --runs to see it")
        value = f"CAST({quote(m)} AS DOUBLE)"
        parts += [
            f"avg({value}) {ok} AS {quote(m + '_mean')}",
            f"stddev_samp({value}) {ok} AS {quote(m + '__std')}",
            f"count({value}) {ok} AS {quote(m + '__n')}",
        ]
    by = ", ".join(quote(g) for g in groups)
    query = f"SELECT {', '.join(parts)} FROM runs WHERE {scope}"
    if groups:
        query += f" GROUP BY {by} ORDER BY {by}"
    frame = st.frame(query, scope_params)
    for m in metrics:
        n = frame.pop(m + "__n").astype("int64")
        std = frame.pop(m + "__std")
        factor = n.map({k: t_quantile(0.975, k - 1) if k > 1 else math.nan for k in set(n)})
        frame[m + "_ci95"] = factor.astype("float64") * std / n.pow(0.5)
    head = [*groups, "runs", "failed"]
    ordered = [c for m in metrics for c in (m + "_mean", m + "_ci95")]
    return parse_axes(frame[[*head, *ordered]], groups)


def results(
    store: str | os.PathLike[str],
    campaign: str | Sequence[str] | None = None,
    group_by: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    runs: bool = False,
    code_version: str | None = None,
    flows: bool = False,
) -> pd.DataFrame:
    """`lastmile.sweep.results`, which documents the arguments."""
    if runs and flows:
        raise ValueError("choose one of runs (one row per run) and flows (one row per flow)")
    with Store(store, read_only=True) as st:
        names = _select_campaigns(st, campaign)
        if flows:
            frame = st.flows(names, code_version=code_version)
            axes = ["campaign", "variant", *st.campaign_axes(names), "seed"]
            return parse_axes(frame, [a for a in axes if a in frame.columns])
        if not runs:
            return _aggregate(st, names, code_version, group_by, resolve_metrics(st, metrics))
        frame = st.runs(names, code_version=code_version)
        if metrics is not None:
            chosen = resolve_metrics(st, metrics)
            keep = [c for c in frame.columns if c not in st.metric_columns() or c in chosen]
            frame = frame[keep]
        axes = ["campaign", "variant", *st.campaign_axes(names), "seed"]
        return parse_axes(frame, [a for a in axes if a in frame.columns])
