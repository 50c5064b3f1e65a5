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
loop), `analysis` (results: aggregation), `stats` (Student t), `progress` (the stderr report).
The heavy libraries (duckdb, pandas, pyarrow, distributed) are imported on first use.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from lastmile.sweep.analysis import results
from lastmile.sweep.campaign import DEFAULT_STORE, SweepOutcome, default_store, run_campaign
from lastmile.sweep.executors import distributed
from lastmile.sweep.runner import Runner, Validator, flatten_summary
from lastmile.sweep.spec import Point, SweepError, SweepSpec, load_sweep
from lastmile.sweep.stats import mean_ci, t_quantile
from lastmile.sweep.store import Store, StoreError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "DEFAULT_STORE",
    "Point",
    "Runner",
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


def connect_dask(address: str, stack: ExitStack) -> Any:
    """A `distributed.Client` for `address`, closed when `stack` closes.

    ``local:N`` starts a LocalCluster of N single-threaded worker processes; anything
    else is a scheduler address (``tcp://host:8786``).
    """
    dask = distributed()
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"--dask local:N needs a worker count N ≥ 1, got {address!r}")
        cluster = stack.enter_context(
            dask.LocalCluster(
                n_workers=int(count),
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
        )
        return stack.enter_context(dask.Client(cluster))
    return stack.enter_context(dask.Client(address))


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
    with Store(outcome.store, read_only=True) as st:
        return st.runs(
            [outcome.campaign],
            code_version=outcome.code_version,
            point_keys=[p.key for p in outcome.points],
        )
