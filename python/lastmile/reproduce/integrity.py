"""Integrity of an experiment's runs, kept apart from the paper's claims.

Good numbers can sit on a broken simulation: a flow that stopped delivering half-way, a
transfer that never finished, a run that raised. Every experiment therefore lists, per
series (one campaign's variant), how many runs it made and how many of them
- **stalled**: the run's summary says ``stalled`` (the core's liveness check: the flow had
  data outstanding and no new in-order delivery for longer than its threshold; its longest
  such interval is ``longest_stall_s``);
- were **incomplete**: the transfer was meant to finish within the run (`Campaign.finite`)
  and did not;
- **failed**: the run raised (its summary is missing).

A stall in a mechanism's series (`Campaign.mechanisms`: TULIP, Snoop, WTCP, I-TCP,
LLE-TCP) fails the experiment unless the campaign names where the paper itself shows that
stall, or the evidence that it is the scenario's own back-off (`Campaign.paper_stalls`); a
failed run fails it too. Stalls of a baseline (TCP
alone) are listed, not fatal: the papers show TCP alone stalling. Runs that are not
measurements (`Campaign.not_measured`, e.g. a 2 s warm-up) are left out.

In a run of several flows (background load) completion is read from flow 0
(``flow0_completed``), and a run counts as stalled when any flow that is not background
stalled (``flow<i>_stalled``; the background flows are TCP alone): in a run of ten measured
flows (LLE-TCP Fig. 10) any of the ten. When the store has no ``stalled`` column (a core
without the liveness check) the counts of stalls are None and shown as "n/a"; nothing is
guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from lastmile.reproduce.framework import Data

__all__ = ["IntegrityRow", "check", "integrity_ok"]

#: How many problem runs a row names before it says "and N more".
_MAX_NAMED = 6


@dataclass(frozen=True)
class IntegrityRow:
    """One series (``<campaign>/<variant>``): its runs and what went wrong in them."""

    series: str
    mechanism: bool
    runs: int
    stalled: int | None
    incomplete: int
    failed: int
    #: The runs behind the counts ("bad=100ms seed 3: stalled 141 s, ...").
    where: str
    #: Where the paper shows this series' stall, or None.
    explanation: str | None

    @property
    def ok(self) -> bool:
        """False when a mechanism stalled with no paper to show it, or a run failed."""
        stalled = bool(self.stalled) and self.mechanism and self.explanation is None
        return not stalled and self.failed == 0


def integrity_ok(rows: Sequence[IntegrityRow]) -> bool:
    return all(row.ok for row in rows)


def check(data: Data) -> list[IntegrityRow]:
    """One row per variant of `data`'s campaign, in the campaign's variant order."""
    campaign = data.campaign
    runs = data.all_runs
    if campaign.not_measured is not None:
        ok = runs["status"] == "ok"
        skip = ok & campaign.not_measured(runs).fillna(False).astype(bool)
        runs = runs[~skip.to_numpy()]
    rows = []
    order = list(campaign.variants) or ["base"]
    for variant in order:
        own = runs[(runs["variant"] == variant).to_numpy()]
        if own.empty:
            continue
        rows.append(_row(data, variant, own))
    return rows


def _row(data: Data, variant: str, runs: pd.DataFrame) -> IntegrityRow:
    campaign = data.campaign
    # The store's table holds every experiment's columns: a single-flow experiment's
    # `stalled` and `completed` are empty in a series of several flows, which must then be
    # read from its per-flow columns (an empty `completed` read as "incomplete", an empty
    # `stalled` as "never stalled").
    runs = runs.dropna(axis=1, how="all")
    ok = (runs["status"] == "ok").to_numpy()
    failed = runs[~ok]
    good = runs[ok]
    flow = "" if "stalled" in good.columns or "flow0_stalled" not in good.columns else "flow0_"
    stalls = _stalls(good)
    stalled = None if stalls is None else good[stalls.to_numpy()]
    incomplete = good.iloc[0:0]
    if campaign.finite and f"{flow}completed" in good.columns:
        incomplete = good[~good[f"{flow}completed"].fillna(False).astype(bool).to_numpy()]
    problems = [
        (stalled if stalled is not None else good.iloc[0:0], "stalled"),
        (incomplete, "incomplete"),
        (failed, "failed"),
    ]
    named: list[str] = []
    for table, what in problems:  # a handful of problem runs, never every run
        for _, r in table.head(_MAX_NAMED - len(named)).iterrows():
            named.append(f"{_point(data, r)}: {what}{_what_more(what, r, flow)}")
    total = sum(len(table) for table, _ in problems)
    where = "; ".join(named)
    if total > len(named):
        where += f"; and {total - len(named)} more"
    mechanism = variant in campaign.mechanisms
    n_stalled = None if stalled is None else len(stalled)
    explanation = campaign.paper_stalls.get(variant) if n_stalled else None
    return IntegrityRow(
        series=f"{campaign.name}/{variant}",
        mechanism=mechanism,
        runs=len(runs),
        stalled=n_stalled,
        incomplete=len(incomplete),
        failed=len(failed),
        where=where,
        explanation=explanation,
    )


def _stalled_flows(runs: pd.DataFrame) -> list[int]:
    """The flows with a per-flow ``stalled`` column (runs of several flows), from flow 0."""
    flows: list[int] = []
    while f"flow{len(flows)}_stalled" in runs.columns:
        flows.append(len(flows))
    return flows


def _measured(runs: pd.DataFrame, i: int) -> pd.Series:
    """Per run, whether flow `i` is measured: its group (``flow<i>_group``) not background."""
    import pandas as pd

    out = pd.Series(True, index=runs.index)
    group = f"flow{i}_group"
    if group not in runs.columns:
        return out
    for g in runs[group].dropna().unique():
        background = f"groups_{g}_background"
        if background in runs.columns:
            out &= ~((runs[group] == g) & runs[background].fillna(False).astype(bool))
    return out


def _stalls(runs: pd.DataFrame) -> pd.Series | None:
    """Per run, whether it stalled: its flow's ``stalled``, or in a run of several flows
    (no unprefixed columns) whether any flow that is not background did."""
    import pandas as pd

    if "stalled" in runs.columns:
        return runs["stalled"].fillna(False).astype(bool)
    flows = _stalled_flows(runs)
    if not flows:
        return None
    out = pd.Series(False, index=runs.index)
    for i in flows:
        out |= runs[f"flow{i}_stalled"].fillna(False).astype(bool) & _measured(runs, i)
    return out


def _point(data: Data, row: pd.Series) -> str:
    """A run named by its axes and seed (only problem runs are named: a handful)."""
    axes = [
        f"{a}={row[a]:g}" if isinstance(row[a], float) else f"{a}={row[a]}"
        for a in data.campaign.axes
    ]
    return " ".join([*axes, f"seed {int(row['seed'])}"])


def _what_more(what: str, row: pd.Series, flow: str = "") -> str:
    """The longest stall of a stalled run, the error of a failed one."""
    if what == "failed":
        return f" ({' '.join(str(row.get('error', '')).split())[:80]})"
    if what == "stalled":
        value = row.get(f"{flow}longest_stall_s")
        if flow:  # several flows: the longest stall of any of them
            stalls = [row.get(f"flow{i}_longest_stall_s") for i in range(len(row))]
            value = max((float(v) for v in stalls if _number(v)), default=value)
        try:
            return f" {float(value):.0f} s"
        except (TypeError, ValueError):
            return ""
    return ""


def _number(value: object) -> bool:
    """A stored number (not missing, not NaN)."""
    return isinstance(value, int | float) and value == value
