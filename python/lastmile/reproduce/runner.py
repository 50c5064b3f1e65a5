"""Finding the experiments and running one: sweep, analyse, report.

Experiments are the modules of `lastmile.reproduce.experiments` that define
``EXPERIMENT`` (files starting with ``_`` are helpers). Adding one is adding one module
(plus, if it wants, its base scenario TOML beside it). `reproduce` runs an experiment's
campaigns through `lastmile.sweep.sweep` into ``<out>/store.duckdb`` (a second call runs
only what is missing), checks the integrity of every run (`lastmile.reproduce.integrity`),
then its claims and its analysis, and writes ``<out>/<name>/``: the figures, ``comparison.md``,
``comparison.csv`` and ``comparison.json``, and refreshes ``<out>/index.json``.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lastmile.reproduce.framework import Context, Data, Experiment, run_claims

__all__ = ["Outcome", "catalogue", "reproduce"]


def catalogue() -> dict[str, Experiment]:
    """Every experiment, by name, in file order."""
    package = importlib.import_module("lastmile.reproduce.experiments")

    found: dict[str, Experiment] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        experiment = getattr(module, "EXPERIMENT", None)
        if isinstance(experiment, Experiment):
            found[experiment.name] = experiment
    return found


@dataclass(frozen=True)
class Outcome:
    """What one reproduction produced."""

    experiment: Experiment
    context: Context
    out_dir: Path
    wall_s: float
    runs: int

    @property
    def all_hold(self) -> bool:
        """Every counted claim holds (calibration claims are shown, not counted)."""
        return all(c.holds for c in self.context.claims if not c.calibration)

    @property
    def integrity_ok(self) -> bool:
        """No unexplained stall in a mechanism series and no failed run."""
        from lastmile.reproduce.integrity import integrity_ok

        return integrity_ok(self.context.integrity)


def _log(message: str) -> None:
    print(f"reproduce: {message}", file=sys.stderr, flush=True)


def reproduce(
    experiment: Experiment,
    out: Path,
    *,
    quick: bool = False,
    jobs: int | None = None,
    client: Any = None,
    progress: bool | None = None,
) -> Outcome:
    """Run `experiment` (full or quick) and write its figures and comparison under `out`."""
    from lastmile.reproduce.integrity import check
    from lastmile.reproduce.report import headline, headline_text, write_comparison, write_index
    from lastmile.sweep import sweep

    start = time.perf_counter()
    mode = "quick" if quick else "full"
    store = out / "store.duckdb"
    out.mkdir(parents=True, exist_ok=True)
    data: dict[str, Data] = {}
    runs = 0
    for campaign in experiment.campaigns(quick):
        _log(f"{experiment.name} ({mode}): campaign {campaign.name}")
        table = sweep(
            campaign.spec(f"{experiment.name}.{mode}"),
            jobs=jobs,
            client=client,
            store=store,
            progress=progress,
        )
        runs += len(table)
        data[campaign.name] = Data(campaign, table)
    exp_dir = out / experiment.name
    exp_dir.mkdir(parents=True, exist_ok=True)
    context = Context(experiment=experiment, quick=quick, data=data, out_dir=exp_dir)
    context.integrity = [row for d in data.values() for row in check(d)]
    _log(f"{experiment.name}: comparing with the paper and drawing figures")
    run_claims(context)
    experiment.analyse(context)
    wall = time.perf_counter() - start
    outcome = Outcome(experiment, context, exp_dir, wall, runs)
    write_comparison(outcome)
    write_index(out)
    _log(
        f"{experiment.name}: {runs} runs, {headline_text(headline(outcome))}, integrity "
        f"{'ok' if outcome.integrity_ok else 'FAILS'}, {wall:.1f} s; wrote {exp_dir}"
    )
    return outcome
