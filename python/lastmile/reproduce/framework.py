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

**Claims.** A claim carries the paper's sentence verbatim (`quote`) and the band that
sentence implies, as tested; the band is read from the words by the rules of
`lastmile.reproduce.words` (the same for every paper), fixed before the run and never
widened after seeing ours. A claim that fails keeps failing, with an `explanation` that
points at evidence (a series of the same experiment, or a run named in it). An experiment's
claims are functions of the `Context` (`Experiment.claims`), so that the same code can be
fed the paper's own published numbers (`Experiment.published`, `paper_claims`): every claim
those numbers bear on must hold for them, or its band is mis-read. A claim that chose a
setting the paper leaves out (`calibration=True`) is reported but not counted.

**Numbers.** A published number beside ours is flagged when ours differs by more than
10 % ("10%") or 25 % ("25%"); a published zero is flagged unless ours is zero too. Each
published number is counted once (`Comparison.ref` names it), against the series the
experiment's declared settings run; the same number beside another series is a
"sensitivity" row, and a number a setting was chosen by is a "calibration" row: both are
shown and not counted.

Aggregation is column-wise (pandas group-by over the runs table): no per-row Python loops.
matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

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
    "NotClaim",
    "NotPublished",
    "PaperClaims",
    "Published",
    "Stat",
    "clearly_above",
    "paper_claims",
    "paper_marks",
    "paper_stat",
    "ratio",
    "run_claims",
    "scaled",
    "within",
]

#: Where the experiment files' scenarios live (next to the modules).
EXPERIMENTS_DIR = Path(__file__).resolve().parent / "experiments"

#: Relative differences above which a published number is flagged.
FLAG_LIMITS = (0.10, 0.25)
#: What a published number beside ours is (`Comparison.role`).
ROLES = ("measure", "sensitivity", "calibration")

T = TypeVar("T")


class NotPublished(LookupError):
    """A claim asked the paper's numbers for one the paper does not publish."""


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
    """a is above b with non-overlapping 95 % intervals ("clearly", "significantly").

    A published number (`paper_stat`: no runs behind it, ``n == 0``) carries no interval,
    so a claim about significance cannot be fed it: `NotPublished`.
    """
    if a.n == 0 or b.n == 0:
        raise NotPublished("a published number has no confidence interval")
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
    #: "measure" (counted), "sensitivity" (the same published number beside another
    #: series) or "calibration" (a number a setting was chosen by): only "measure" counts.
    role: str = "measure"
    #: The published number's name, unique within its paper among counted rows.
    ref: str = ""

    @property
    def counted(self) -> bool:
        """A published number counted in the headline (once per paper)."""
        return self.paper is not None and self.role == "measure"

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
    #: A setting the paper leaves out was chosen by this claim's number: shown, not counted.
    calibration: bool = False


@dataclass(frozen=True)
class Finding:
    """A run made to find out why we differ from the paper, and what it showed."""

    title: str
    text: str


@dataclass(frozen=True)
class Published:
    """The numbers a paper publishes for one experiment, addressed as our runs are.

    `points`: (campaign, metric, variant, point, value): what `Data.value(metric, variant,
    **point)` gives for our runs (e.g. a table cell); `numbers`: what
    `Context.quantity(name, ...)` gives for a quantity the paper states in its text or
    derives (a ratio, a share, the largest RTO), in the type the claim computes.
    """

    points: Sequence[tuple[str, str, str, Mapping[str, Any], float]] = ()
    numbers: Mapping[str, Any] = field(default_factory=dict)


def paper_stat(value: float) -> Stat:
    """A published number as a `Stat`: no runs of ours behind it (``n == 0``), no interval."""
    return Stat(float(value), float("nan"), 0)


class PaperData:
    """A campaign's published points, answering `value` as `Data` does (else `NotPublished`)."""

    def __init__(self, campaign: str, published: Published) -> None:
        self.name = campaign
        self._points = [p for p in published.points if p[0] == campaign]

    def value(self, metric: str, variant: str = "base", **where: Any) -> Stat:
        for _, m, v, point, value in self._points:
            if m == metric and v == variant and _same_point(point, where):
                return paper_stat(value)
        raise NotPublished(f"{self.name}: {metric} of {variant} at {where}")

    def __getattr__(self, name: str) -> Any:
        # series, samples, runs, ...: the paper publishes single points, not our runs.
        raise NotPublished(f"{self.name}.{name}")


def _same_point(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if set(a) != set(b):
        return False
    for key, x in a.items():
        y = b[key]
        if isinstance(x, float) and isinstance(y, float):
            if abs(x - y) > 1e-9 * max(abs(x), abs(y), 1e-300):
                return False
        elif x != y:
            return False
    return True


def _text(text: Text) -> str:
    return text if isinstance(text, str) else text()


#: A detail or explanation: text, or a function giving it (called only for our runs, so a
#: claim fed the paper's numbers need not know every number it reports).
Text = str | Callable[[], str]


@dataclass
class Context:
    """What an experiment's claims and ``analyse`` work with, and collects what they report.

    With `published` set the context is the paper's: `ctx[campaign]` answers with the
    published points, `quantity` with the published numbers, and anything else a claim
    asks for raises `NotPublished` (the claim is then not one the paper's numbers bear on).
    """

    experiment: Experiment
    quick: bool
    data: Mapping[str, Data]
    out_dir: Path
    comparisons: list[Comparison] = field(default_factory=list)
    claims: list[ClaimResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    figures: list[tuple[str, str]] = field(default_factory=list)
    integrity: list[IntegrityRow] = field(default_factory=list)
    published: Published | None = None
    #: Results computed once and shared by several claims (`memo`).
    memos: dict[str, Any] = field(default_factory=dict)

    def memo(self, key: str, compute: Callable[[], T]) -> T:
        """`compute()` once per context (e.g. a set of traced runs several claims read)."""
        if key not in self.memos:
            self.memos[key] = compute()
        value: T = self.memos[key]
        return value

    def __getitem__(self, campaign: str) -> Data:
        if self.published is not None:
            return PaperData(campaign, self.published)  # type: ignore[return-value]
        return self.data[campaign]

    def quantity(self, name: str, compute: Callable[[], T]) -> T:
        """A quantity a claim tests: `compute()` for our runs, the paper's number `name`
        when the context is the paper's."""
        if self.published is None:
            return compute()
        if name not in self.published.numbers:
            raise NotPublished(name)
        value: T = self.published.numbers[name]
        return value

    def compare(
        self,
        item: str,
        source: str,
        unit: str,
        paper: float | None,
        ours: Stat,
        note: str = "",
        *,
        role: str = "measure",
        ref: str = "",
    ) -> None:
        """Put a published number (in `unit`) beside ours (in the same unit); `role` and
        `ref` as in `Comparison`."""
        if role not in ROLES:
            raise ExperimentError(f"compare({item!r}): role {role!r} is not one of {ROLES}")
        if paper is not None and role == "measure" and not ref:
            raise ExperimentError(f"compare({item!r}): a counted number needs its ref")
        if self.published is None:
            self.comparisons.append(Comparison(item, source, unit, paper, ours, note, role, ref))

    def claim(
        self,
        claim: str,
        source: str,
        holds: bool,
        detail: Text,
        *,
        quote: str,
        band: str,
        explanation: Text | None = None,
        calibration: bool = False,
    ) -> bool:
        """Record whether one of the paper's claims holds; `detail` gives our numbers.

        `quote` is the paper's sentence, `band` what it implies as tested; `explanation`
        (kept only when the claim fails) says why, with evidence. `calibration`: a setting
        the paper leaves out was chosen by this claim's number (shown, not counted).
        """
        holds = bool(holds)
        paper = self.published is not None
        text = "" if paper else _text(detail)
        why = None if holds or paper or explanation is None else _text(explanation)
        self.claims.append(ClaimResult(claim, source, holds, text, quote, band, why, calibration))
        return holds

    def finding(self, title: str, text: str) -> None:
        """Report a run made to test a suspected cause of a difference, whatever it showed."""
        if self.published is None:
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

        if self.published is not None:
            raise NotPublished(f"a traced run of {scenario}")

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
class NotClaim:
    """A sentence of the paper deliberately not tested as a claim, and why."""

    quote: str
    source: str
    why: str


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
    #: Compare, report findings, draw figures (the claims are `claims`).
    analyse: Callable[[Context], None]
    #: The seed document (``/work/shared/seeds/<seed>_*.txt``) the quotes come from.
    seed: str = ""
    #: The claims, each a function recording one or more `Context.claim`s from the data it
    #: asks the context for; run for our runs and, for `paper_claims`, on the paper's numbers.
    claims: Sequence[Callable[[Context], None]] = ()
    #: The numbers the paper publishes, as the claims ask for them.
    published: Published = field(default_factory=Published)
    #: The settings the paper leaves out and what we chose, from which evidence: one line each.
    settings: Sequence[str] = ()
    #: Sentences deliberately not tested, and why.
    not_claims: Sequence[NotClaim] = ()


def run_claims(ctx: Context) -> None:
    """Record every claim of the context's experiment for its runs."""
    for check in ctx.experiment.claims:
        check(ctx)


@dataclass(frozen=True)
class PaperClaims:
    """The claims the paper's own numbers bear on, and the checks they do not reach."""

    claims: list[ClaimResult]
    #: The checks (function names) that asked for a number the paper does not publish.
    not_fed: list[str]


def paper_claims(experiment: Experiment) -> PaperClaims:
    """Every claim of `experiment`, fed the paper's published numbers instead of our runs."""
    ctx = Context(
        experiment=experiment,
        quick=False,
        data={},
        out_dir=Path(),
        published=experiment.published,
    )
    not_fed = []
    for check in experiment.claims:
        before = len(ctx.claims)
        try:
            check(ctx)
        except NotPublished:
            del ctx.claims[before:]
            not_fed.append(getattr(check, "__name__", repr(check)))
    return PaperClaims(ctx.claims, not_fed)


def paper_marks(
    ax: Axes,
    xs: Sequence[float] | np.ndarray,
    ys: Sequence[float] | np.ndarray,
    label: str = "paper",
    **style: Any,
) -> None:
    """The paper's published points beside our series: black hollow squares, no line."""
    ax.plot(
        list(xs),
        list(ys),
        **{
            "marker": "s",
            "linestyle": "none",
            "markerfacecolor": "none",
            "markeredgecolor": "k",
            "markersize": 8,
            "markeredgewidth": 1.5,
            "label": label,
            "zorder": 6,
            **style,
        },
    )
