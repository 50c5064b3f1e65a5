"""The pieces an experiment file is made of, and the context its analysis runs in.

An experiment (one module under `lastmile.reproduce.experiments`) defines ``EXPERIMENT``,
an `Experiment`: its name and paper, the campaigns it runs (full and ``--quick``), and an
``analyse(ctx)`` function that, given the campaigns' results as `Data` (mean and 95 %
Student-t interval per point), puts every published number beside ours (`Context.compare`),
checks every claim (`Context.claim`), reports what it ran to find out why we differ
(`Context.finding`) and redraws every figure (`Context.figure`). The command
(`lastmile.reproduce.runner`) runs the campaigns through `lastmile.sweep`, checks every
run's integrity (`lastmile.reproduce.integrity`), calls ``analyse`` and writes
``comparison.md`` / ``.csv`` / ``.json`` (`lastmile.reproduce.report`).

**Claims.** A claim carries the paper's sentence verbatim (`quote`) and the `band` that
sentence implies, as tested; the band is fixed from the words before the run and never
widened after seeing ours. A claim that fails keeps failing, with an `explanation` that
points at evidence (a series of the same experiment, or a run named in it). How words
become bands, the same for every experiment:

- a number is tested at the precision it is written: "around 2 %" is 1.5-2.5 %, "4 - 5 %"
  is 3.5-5.5 %, "30 %" is 25-35 %, "2.4 seconds" is 2.35-2.45 s, "five fold" 4.5-5.5x;
  two published numbers give the range their roundings allow (4.71 / 4.1: 13.4-16.4 %);
- "similar", "nearly identical", "comparable": within 10 % of each other;
- "no appreciable degradation", "degrades once ...": less than 5 % below, and not;
- "does not greatly modify": stays within a factor of two either way;
- "near standstill": below 10 % of the mechanism's throughput at the same point;
- "clearly", "significantly", "much": the 95 % confidence intervals do not overlap;
- "in every instance", "consistently": at every point we run;
- a comparison ("above", "lower", "more than twice") compares means.

**Numbers.** A published number beside ours is flagged when ours differs by more than
10 % ("10%") or 25 % ("25%"); a published zero is flagged unless ours is zero too.

Aggregation is column-wise (pandas group-by over the runs table): no per-row Python loops.
matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from matplotlib.axes import Axes

    from lastmile._run import RunResult
    from lastmile.reproduce.integrity import IntegrityRow

__all__ = [
    "Campaign",
    "ClaimResult",
    "Comparison",
    "Context",
    "Data",
    "Experiment",
    "ExperimentError",
    "Finding",
    "Stat",
    "clearly_above",
    "ratio",
    "scaled",
    "within",
]

#: Where the experiment files' scenarios live (next to the modules).
EXPERIMENTS_DIR = Path(__file__).resolve().parent / "experiments"

#: Relative differences above which a published number is flagged (item 7 of issue 10).
FLAG_LIMITS = (0.10, 0.25)


class ExperimentError(Exception):
    """An experiment asked for a point or metric its campaigns do not have."""


@dataclass(frozen=True)
class Campaign:
    """One sweep of an experiment: a name, a base scenario and its parameter space.

    `scenario` is a file name under the experiments directory (or an absolute path);
    `axes` maps the short names the analysis uses to the sweep's dotted paths;
    `grid`, `zip` and `variants` are as in a sweep file (`docs/sweeps.md`).
    `mechanisms` names the variants that run one of the papers' mechanisms (TULIP, Snoop,
    WTCP, I-TCP, LLE-TCP): a stall in one of them fails the experiment unless
    `paper_stalls` says where the paper itself shows it, or gives the evidence (a capture,
    a named run) that it is the scenario's own back-off the mechanism does not touch, such
    as drop-tail lock-out on the wired path; either way the stall is still counted and
    shown. `finite` is true when every run's
    transfer is meant to finish within the run (an unfinished one is then "incomplete").
    """

    name: str
    scenario: str
    seeds: int
    grid: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    zip: Mapping[str, Sequence[Any]] = field(default_factory=dict)
    variants: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    axes: Mapping[str, str] = field(default_factory=dict)
    #: Per-run metrics computed from the stored columns before averaging (vectorised).
    derive: Callable[[pd.DataFrame], Mapping[str, pd.Series]] | None = None
    metrics: Sequence[str] = (
        "throughput_bps",
        "completion_s",
        "tcp_timeouts",
        "delay_mean_s",
        "delay_std_s",
    )
    mechanisms: Collection[str] = ()
    finite: bool = True
    #: variant → where the paper shows that variant's stall (the only excuse for one).
    paper_stalls: Mapping[str, str] = field(default_factory=dict)
    #: Runs of this campaign that are not measurements (e.g. a 2 s warm-up run): a boolean
    #: mask over the runs, excluded from the integrity check.
    not_measured: Callable[[pd.DataFrame], pd.Series] | None = None

    def scenario_path(self) -> Path:
        path = Path(self.scenario)
        return path if path.is_absolute() else EXPERIMENTS_DIR / path

    def spec(self, prefix: str) -> dict[str, Any]:
        """The sweep as a dict for `lastmile.sweep.sweep` (campaign ``<prefix>.<name>``)."""
        spec: dict[str, Any] = {
            "name": f"{prefix}.{self.name}",
            "scenario": str(self.scenario_path()),
            "seeds": self.seeds,
        }
        if self.grid:
            spec["grid"] = {k: list(v) for k, v in self.grid.items()}
        if self.zip:
            spec["zip"] = {k: list(v) for k, v in self.zip.items()}
        if self.variants:
            spec["variants"] = {k: dict(v) for k, v in self.variants.items()}
        return spec


@dataclass(frozen=True)
class Stat:
    """A mean over seeds with the half-width of its 95 % confidence interval."""

    mean: float
    ci: float
    n: int

    def __str__(self) -> str:
        return fmt_stat(self.mean, self.ci)


def scaled(stat: Stat, k: float) -> Stat:
    """`stat` in another unit (mean and interval times `k`)."""
    return Stat(stat.mean * k, stat.ci * k, stat.n)


def ratio(num: Stat, den: Stat) -> Stat:
    """num / den, its interval from both relative intervals (first order)."""
    mean = num.mean / den.mean
    rel = math.hypot(_rel(num), _rel(den))
    return Stat(mean, abs(mean) * rel, min(num.n, den.n))


def _rel(stat: Stat) -> float:
    if stat.mean == 0 or math.isnan(stat.ci):
        return 0.0
    return stat.ci / abs(stat.mean)


def clearly_above(a: Stat, b: Stat) -> bool:
    """a is above b with non-overlapping 95 % intervals ("clearly", "significantly")."""
    return a.mean - _ci(a) > b.mean + _ci(b)


def _ci(stat: Stat) -> float:
    return 0.0 if math.isnan(stat.ci) else stat.ci


def within(a: float, b: float, fraction: float) -> bool:
    """|a - b| is at most `fraction` of the larger of the two ("similar": 0.10)."""
    return abs(a - b) <= fraction * max(abs(a), abs(b))


def fmt_num(value: float | None) -> str:
    """A number with about four significant digits (integers stay integers)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if float(value).is_integer() and abs(value) < 1e9:
        return str(int(value))
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.3f}"
    return f"{value:.4g}"


def fmt_stat(mean: float, ci: float) -> str:
    if math.isnan(ci) or ci == 0:
        return fmt_num(mean)
    return f"{fmt_num(mean)} ± {fmt_num(ci)}"


class Data:
    """One campaign's runs, summarised per point (variant and axes) over seeds."""

    def __init__(self, campaign: Campaign, runs: pd.DataFrame) -> None:
        from lastmile.sweep.stats import t_quantile

        self.campaign = campaign
        renamed = runs.rename(columns={path: alias for alias, path in campaign.axes.items()})
        #: Every run, failed ones included (what the integrity check reads).
        self.all_runs = renamed
        ok = renamed[renamed["status"] == "ok"]
        self.failed = int((runs["status"] != "ok").sum())
        if campaign.derive is not None:
            ok = ok.assign(**campaign.derive(ok))
        self.keys = ["variant", *campaign.axes]
        metrics = list(dict.fromkeys(m for m in campaign.metrics if m in ok.columns))
        self.runs = ok
        grouped = ok.groupby(self.keys, sort=False, dropna=False)[metrics]
        mean = grouped.mean()
        std = grouped.std(ddof=1)
        count = grouped.count()
        quantile = count.map(lambda n: t_quantile(0.975, n - 1) if n > 1 else math.nan)
        self.mean = mean
        self.ci = (quantile * std / count.pow(0.5)).fillna(0.0)
        self.count = count

    def _select(self, table: pd.DataFrame, variant: str, where: Mapping[str, Any]) -> Any:
        idx = table.index.to_frame(index=False)
        mask = idx["variant"] == variant
        for key, value in where.items():
            if key not in idx.columns:
                raise ExperimentError(f"{self.campaign.name}: no axis {key!r}")
            mask &= _matches(idx[key], value)
        return mask.to_numpy()

    def value(self, metric: str, variant: str = "base", **where: Any) -> Stat:
        """The mean ± CI of `metric` at one point (every axis given in `where`)."""
        if metric not in self.mean.columns:
            raise ExperimentError(f"{self.campaign.name}: no metric {metric!r}")
        mask = self._select(self.mean, variant, where)
        if mask.sum() != 1:
            raise ExperimentError(
                f"{self.campaign.name}: {variant} {where} matches {int(mask.sum())} points"
            )
        return Stat(
            float(self.mean[metric].to_numpy()[mask][0]),
            float(self.ci[metric].to_numpy()[mask][0]),
            int(self.count[metric].to_numpy()[mask][0]),
        )

    def series(
        self, metric: str, x: str, variant: str = "base", **where: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(x, mean, ci) of `metric` along axis `x` (the other axes fixed by `where`)."""
        import numpy as np

        mask = self._select(self.mean, variant, where)
        xs = _numeric(self.mean.index.to_frame(index=False)[x].to_numpy()[mask])
        order = np.argsort(xs)
        mean = self.mean[metric].to_numpy()[mask].astype(float)
        ci = self.ci[metric].to_numpy()[mask].astype(float)
        return xs[order], mean[order], ci[order]

    def samples(self, metric: str, variant: str = "base", **where: Any) -> np.ndarray:
        """The per-seed values of `metric` at one point."""
        # A copy: pandas may hand out a read-only view, and `&=` writes into the mask.
        mask = (self.runs["variant"] == variant).to_numpy().copy()
        for key, value in where.items():
            mask &= _matches(self.runs[key], value).to_numpy()
        values: np.ndarray = self.runs[metric].to_numpy()[mask].astype(float)
        return values


def _matches(column: pd.Series, value: Any) -> pd.Series:
    """``column == value``, with floats compared to a relative 1e-9 (15 * 1e-6 is 15e-6)."""
    if isinstance(value, float) and column.dtype.kind == "f":
        return (column - value).abs() <= 1e-9 * max(abs(value), 1e-300)
    return column == value


_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "KB": 1e3, "MB": 1e6, "KiB": 1024.0}


def _numeric(values: np.ndarray) -> np.ndarray:
    """Axis values as floats; durations ("10ms") in seconds, sizes ("64KB") in bytes."""
    import re

    import numpy as np

    if values.dtype.kind in "fiu":
        return values.astype(float)
    out = np.empty(len(values), dtype=float)
    for i, text in enumerate(values):  # one per axis point, not per run
        m = re.fullmatch(r"([0-9.eE+-]+)\s*([A-Za-z]*)", str(text))
        if m is None or m.group(2) not in {*_UNITS, ""}:
            raise ExperimentError(f"axis value {text!r} is not a number with a unit")
        out[i] = float(m.group(1)) * _UNITS.get(m.group(2), 1.0)
    return out


@dataclass(frozen=True)
class Comparison:
    """A number the paper publishes beside ours."""

    item: str
    source: str
    unit: str
    paper: float | None
    ours: Stat
    note: str = ""

    @property
    def difference(self) -> float | None:
        return None if self.paper is None else self.ours.mean - self.paper

    @property
    def relative(self) -> float | None:
        if self.paper is None or self.paper == 0:
            return None
        return (self.ours.mean - self.paper) / abs(self.paper)

    @property
    def flag(self) -> str:
        """ "" (within 10 %), "10%" (more than 10 % apart) or "25%" (more than 25 %)."""
        if self.paper is None:
            return ""
        if self.paper == 0:
            return "" if self.ours.mean == 0 else "25%"
        rel = abs(self.relative or 0.0)
        if rel > FLAG_LIMITS[1]:
            return "25%"
        return "10%" if rel > FLAG_LIMITS[0] else ""


@dataclass(frozen=True)
class ClaimResult:
    """One of the paper's claims: its sentence, the band it implies, and our result."""

    claim: str
    source: str
    holds: bool
    detail: str
    #: The paper's sentence, verbatim (parts joined by " [...] ").
    quote: str
    #: What the sentence says, as tested (e.g. "4 <= WTCP / Tahoe <= 8 at every Bad period").
    band: str
    #: Why it fails, pointing at evidence; None when it holds.
    explanation: str | None = None


@dataclass(frozen=True)
class Finding:
    """A run made to find out why we differ from the paper, and what it showed."""

    title: str
    text: str


@dataclass
class Context:
    """What an experiment's ``analyse`` works with, and collects what it reports."""

    experiment: Experiment
    quick: bool
    data: Mapping[str, Data]
    out_dir: Path
    comparisons: list[Comparison] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)
    integrity: list[IntegrityRow] = field(default_factory=list)

    def __getitem__(self, campaign: str) -> Data:
        return self.data[campaign]

    def compare(
        self,
        item: str,
        source: str,
        unit: str,
        paper: float | None,
        ours: Stat,
        note: str = "",
    ) -> None:
        """Put a published number (in `unit`) beside ours (in the same unit)."""
        self.comparisons.append(Comparison(item, source, unit, paper, ours, note))

    def claim(
        self,
        claim: str,
        source: str,
        holds: bool,
        detail: str,
        *,
        quote: str,
        band: str,
        explanation: str | None = None,
    ) -> bool:
        """Record whether one of the paper's claims holds; `detail` gives our numbers.

        `quote` is the paper's sentence, `band` what it implies as tested; `explanation`
        (kept only when the claim fails) says why, with evidence.
        """
        holds = bool(holds)
        self.claims.append(
            ClaimResult(claim, source, holds, detail, quote, band, None if holds else explanation)
        )
        return holds

    def finding(self, title: str, text: str) -> None:
        """Report a run made to test a suspected cause of a difference, whatever it showed."""
        self.findings.append(Finding(title, " ".join(text.split())))

    @contextmanager
    def figure(
        self, name: str, caption: str, ncols: int = 1, width: float = 6.4
    ) -> Iterator[list[Axes]]:
        """A figure of `ncols` axes, saved as ``<name>.png`` and ``<name>.svg`` on exit."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, ncols, figsize=(width * ncols, 4.2), squeeze=False)
        try:
            yield list(axes[0])
            below = 0
            for ax in axes[0]:
                ax.grid(True, alpha=0.3)
                handles = ax.get_legend_handles_labels()[0]
                if len(handles) > 4:
                    # Many series: the legend goes below the axes, never over the data.
                    ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.2))
                    below = max(below, len(handles))
                elif handles:
                    ax.legend(fontsize="small")
            if below:
                fig.set_size_inches(width * ncols, 4.2 + 0.2 * below)
            fig.suptitle(caption, fontsize="medium")
            fig.tight_layout()
            self.out_dir.mkdir(parents=True, exist_ok=True)
            fig.savefig(self.out_dir / f"{name}.png", dpi=110, bbox_inches="tight")
            fig.savefig(self.out_dir / f"{name}.svg", bbox_inches="tight")
            self.figures.append((name, caption))
        finally:
            plt.close(fig)

    def run_traced(
        self, scenario: str, seed: int, overrides: Mapping[str, Any], traces: Sequence[str]
    ) -> RunResult:
        """One run with traces (the store keeps summaries only), e.g. WTCP Fig. 5's RTO."""
        from lastmile._run import run

        path = Path(scenario)
        path = path if path.is_absolute() else EXPERIMENTS_DIR / path
        return run(path, seed=seed, overrides=dict(overrides), traces=list(traces))


def errorbars(
    ax: Axes,
    data: Data,
    metric: str,
    x: str,
    variant: str,
    label: str,
    *,
    scale: float = 1.0,
    x_scale: float = 1.0,
    marker: str = "o",
    linestyle: str = "-",
    nonnegative: bool = True,
    **where: Any,
) -> None:
    """One series with its 95 % confidence interval as error bars; for a quantity that
    cannot be negative (`nonnegative`: throughput, delay) the lower bar stops at zero."""
    import numpy as np

    xs, mean, ci = data.series(metric, x, variant, **where)
    y = mean * scale
    half = ci * scale
    lower = np.minimum(half, np.maximum(y, 0.0)) if nonnegative else half
    ax.errorbar(
        xs * x_scale,
        y,
        yerr=[lower, half],
        label=label,
        marker=marker,
        linestyle=linestyle,
        capsize=3,
        markersize=4,
    )


def spread_bars(
    ax: Axes,
    xs: Sequence[float] | np.ndarray,
    mean: Sequence[float] | np.ndarray,
    std: Sequence[float] | np.ndarray,
    label: str,
    **style: Any,
) -> None:
    """Mean ± standard deviation bars, the lower bar cut at zero (a delay is never < 0)."""
    import numpy as np

    m = np.asarray(mean, dtype=float)
    s = np.asarray(std, dtype=float)
    ax.errorbar(
        np.asarray(xs, dtype=float),
        m,
        yerr=[np.minimum(s, np.maximum(m, 0.0)), s],
        label=label,
        capsize=3,
        markersize=4,
        **{"marker": "o", **style},
    )


@dataclass(frozen=True)
class Experiment:
    """One reproduction: what to run and how to read it against the paper."""

    name: str
    title: str
    paper: str
    description: str
    #: Where we differ from the paper and why: one honest paragraph for the docs.
    differences: str
    #: The campaigns for the full run (``quick=False``) and for ``--quick``.
    campaigns: Callable[[bool], Sequence[Campaign]]
    #: Compare, check claims, report findings, draw figures.
    analyse: Callable[[Context], None]
    #: The seed document (``/work/shared/seeds/<seed>_*.txt``) the quotes come from.
    seed: str = ""
