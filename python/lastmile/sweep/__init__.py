"""Parameter sweeps: campaigns of runs on all cores or a Dask cluster, stored in DuckDB.

A campaign is a base scenario, a parameter space (grid axes, zipped axes, named variants)
and seeds, read from a sweep file (see `spec`). Every run is stored in one DuckDB file,
keyed by (campaign, parameter point, seed, code version), as soon as it finishes; running
the same sweep again runs only what is missing, so a killed sweep resumes::

    import lastmile

    runs = lastmile.sweep("experiments/per.sweep.toml")            # all local cores
    table = lastmile.results("experiments/per-newreno.duckdb")     # mean ± 95 % CI per point

Pieces: `spec` (sweep files and their expansion), `runner` (what a worker runs, summary
flattening), `executors` (serial, process pool, Dask), `store` (DuckDB), `campaign` (the
loop), `analysis` (results: aggregation), `stats` (Student t), `progress` (the stderr
report). This module loads them on first use, so ``import lastmile`` stays as light as
it was; duckdb, pandas, pyarrow and distributed are imported only when needed.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from lastmile.sweep.campaign import DEFAULT_STORE, SweepOutcome, default_store, run_campaign
    from lastmile.sweep.executors import ExecutorError, connect_dask
    from lastmile.sweep.runner import Runner, Validator, flatten_summary
    from lastmile.sweep.spec import Point, SweepError, SweepSpec, load_sweep
    from lastmile.sweep.stats import mean_ci, t_quantile
    from lastmile.sweep.store import Store, StoreError

__all__ = [
    "DEFAULT_STORE",
    "ExecutorError",
    "Point",
    "Runner",
    "Store",
    "StoreError",
    "SweepError",
    "SweepOutcome",
    "SweepSpec",
    "Validator",
    "connect_dask",
    "default_store",
    "flatten_summary",
    "load_sweep",
    "mean_ci",
    "results",
    "run_campaign",
    "sweep",
    "t_quantile",
]

#: Where each lazily loaded name lives.
_HOMES = {
    "DEFAULT_STORE": "campaign",
    "SweepOutcome": "campaign",
    "default_store": "campaign",
    "run_campaign": "campaign",
    "ExecutorError": "executors",
    "connect_dask": "executors",
    "Runner": "runner",
    "Validator": "runner",
    "flatten_summary": "runner",
    "Point": "spec",
    "SweepError": "spec",
    "SweepSpec": "spec",
    "load_sweep": "spec",
    "mean_ci": "stats",
    "t_quantile": "stats",
    "Store": "store",
    "StoreError": "store",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'lastmile.sweep' has no attribute {name!r}")
    return getattr(importlib.import_module(f"lastmile.sweep.{home}"), name)


def sweep(
    spec: str | os.PathLike[str] | Mapping[str, Any] | SweepSpec,
    jobs: int | None = None,
    client: Any = None,
    store: str | os.PathLike[str] | None = None,
    *,
    retry_failed: bool = False,
    progress: bool | None = None,
    runner: Runner | None = None,
    validator: Validator | None = None,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """Run a campaign's missing runs and return all of its runs, one row each.

    `spec`: a sweep file, a dict of the same shape, or a `SweepSpec`. `jobs`: local worker
    processes (default: every core; 1 runs in this process). `client`: a
    `distributed.Client`, or an address (``tcp://...``, ``local:N``), to run on Dask
    instead. `store`: the DuckDB file (default: `default_store`). `retry_failed` re-runs
    stored failures. `runner` replaces the function that runs one scenario
    (``lastmile.run``), `validator` the check of each point before anything runs.

    Raises `SweepError` (bad sweep or point, nothing ran) or `StoreError`; Ctrl-C raises
    KeyboardInterrupt once the finished runs are stored.
    """
    from lastmile.sweep.campaign import run_campaign
    from lastmile.sweep.executors import connect_dask
    from lastmile.sweep.store import Store, store_errors

    with ExitStack() as stack:
        if isinstance(client, str):
            client = connect_dask(client, stack)
        outcome = run_campaign(
            spec,
            jobs=jobs,
            client=client,
            store=store,
            retry_failed=retry_failed,
            progress=progress,
            runner=runner,
            validator=validator,
            chunk_size=chunk_size,
        )
    if outcome.interrupted:
        raise KeyboardInterrupt
    with Store(outcome.store, read_only=True) as st, store_errors(outcome.store):
        return st.runs(
            [outcome.campaign],
            code_version=outcome.code_version,
            point_keys=[p.key for p in outcome.points],
        )


def results(
    store: str | os.PathLike[str],
    campaign: str | Sequence[str] | None = None,
    group_by: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    runs: bool = False,
    code_version: str | None = None,
    flows: bool = False,
) -> pd.DataFrame:
    """Summarise (or list) the runs stored in `store`.

    Per point (by default: variant and every axis; `group_by` to choose), each metric's
    ``<metric>_mean`` and ``<metric>_ci95`` (half-width of the 95 % Student-t interval
    over seeds), with ``runs`` and ``failed`` counts. `campaign` picks one or more
    campaigns (default: all); `metrics` the metric columns (default: throughput_bps,
    tcp_timeouts, wireless_goodput_wireless and fairness_jain_index, those present;
    `docs/sweeps.md` names the stand-ins for runs of several flows). ``runs=True``
    returns one row per run instead; ``flows=True`` one row per flow of every run
    (campaign, variant, axes, seed, ``flow``, the flow's summary fields). `code_version`
    keeps only that code version's runs (by default all are used, and several versions
    are grouped apart). Raises `StoreError` for an unknown store, campaign, column or
    metric, or a damaged store.
    """
    from lastmile._scenario import check_path
    from lastmile.sweep.analysis import results as summarise
    from lastmile.sweep.store import store_errors

    check_path(store, "store", "a path to a results store (.duckdb)")
    with store_errors(store):
        return summarise(
            store,
            campaign=campaign,
            group_by=group_by,
            metrics=metrics,
            runs=runs,
            code_version=code_version,
            flows=flows,
        )
