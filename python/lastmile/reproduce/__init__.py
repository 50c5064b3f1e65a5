"""Reproductions of the seed papers' experiments: ``lastmile reproduce``.

Each experiment is one module of `lastmile.reproduce.experiments` (the repository's
top-level ``experiments/`` is a symlink to that directory, so the files ship inside the
installed package as well): its base scenario TOML(s), its campaigns for a full and a
``--quick`` run, the numbers the paper publishes with where they come from, its claims and
its figures. `reproduce` runs one through `lastmile.sweep`, checks the integrity of its runs,
and writes the redrawn figures and ``comparison.md`` / ``.csv`` / ``.json``; `catalogue`
lists them.

Nothing heavy is imported here: pandas, duckdb and matplotlib load when an experiment runs.
"""

from __future__ import annotations

from lastmile.reproduce.framework import (
    Campaign,
    ClaimResult,
    Comparison,
    Context,
    Data,
    Experiment,
    ExperimentError,
    Finding,
    Stat,
)
from lastmile.reproduce.integrity import IntegrityRow
from lastmile.reproduce.runner import Outcome, catalogue, reproduce

__all__ = [
    "Campaign",
    "ClaimResult",
    "Comparison",
    "Context",
    "Data",
    "Experiment",
    "ExperimentError",
    "Finding",
    "IntegrityRow",
    "Outcome",
    "Stat",
    "catalogue",
    "reproduce",
]
