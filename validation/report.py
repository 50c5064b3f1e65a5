"""`docs/validation.md` and one figure per family (`docs/validation/<family>.png`), written
from the outcomes kept in `validation/results/<family>.json` only: nothing here runs a
simulation.

Per point: the mean over seeds and the sample standard deviation (the spread) in each
simulator, the ratio of the means, and the verdict against the point's target — "within"
when |lastmile / reference - 1| ≤ target, otherwise "outside", marked "explained" when the
family gives an explanation for the point or its series. The two simulators draw different
random losses from their seeds, so only means are compared.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from validation.framework import Family, Outcome, Point
from validation.suite import ROOT, cache_path, cached_outcomes, load_cache

DOC = ROOT / "docs" / "validation.md"
FIGURES = ROOT / "docs" / "validation"


@dataclass(frozen=True)
class Stat:
    mean: float
    sd: float
    n: int


def stat(values: Sequence[float]) -> Stat | None:
    if not values:
        return None
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return Stat(statistics.fmean(values), sd, len(values))


@dataclass(frozen=True)
class Row:
    point: Point
    lastmile: dict[str, Stat | None]
    reference: dict[str, Stat | None]

    def ratio(self, metric: str) -> float | None:
        lm, ref = self.lastmile.get(metric), self.reference.get(metric)
        if lm is None or ref is None or ref.mean == 0:
            return None
        return lm.mean / ref.mean

    def ratio_interval(self, metric: str) -> tuple[float, float] | None:
        """About 95 % of the ratio of the means: +/- 2 standard errors, propagated."""
        ratio = self.ratio(metric)
        lm, ref = self.lastmile.get(metric), self.reference.get(metric)
        if ratio is None or lm is None or ref is None or lm.mean == 0 or min(lm.n, ref.n) < 2:
            return None
        rel = math.hypot(lm.sd / math.sqrt(lm.n) / lm.mean, ref.sd / math.sqrt(ref.n) / ref.mean)
        return ratio * (1 - 2 * rel), ratio * (1 + 2 * rel)


def verdict(row: Row, family: Family) -> str:
    """ "within", "outside, explained", "outside, unexplained", "no target" or "not run"."""
    ratio = row.ratio(family.metric)
    if row.point.target is None:
        return "no target"
    if ratio is None:
        lm, ref = row.lastmile.get(family.metric), row.reference.get(family.metric)
        if lm is not None and ref is not None and lm.mean == ref.mean == 0:
            return "within"
        return "not run"
    if abs(ratio - 1) <= row.point.target:
        return "within"
    explained = row.point.label in family.explanations or (row.point.series in family.explanations)
    return "outside, explained" if explained else "outside, unexplained"


def rows(family: Family) -> list[Row]:
    cache = load_cache(family)
    metrics = [family.metric, *family.extra_metrics]
    out = []
    for point in family.points:
        per_sim: list[dict[str, Stat | None]] = []
        for simulator in ("lastmile", "reference"):
            outcomes = cached_outcomes(cache, point, simulator)
            per_sim.append(
                {
                    m: stat([o.metrics[m] for o in outcomes.values() if m in o.metrics])
                    for m in metrics
                }
            )
        out.append(Row(point, per_sim[0], per_sim[1]))
    return out


def all_outcomes(family: Family) -> dict[str, list[Outcome]]:
    cache = load_cache(family)
    found: dict[str, list[Outcome]] = {"lastmile": [], "reference": []}
    for point in family.points:
        for simulator in found:
            found[simulator] += cached_outcomes(cache, point, simulator).values()
    return found


def _num(x: float) -> str:
    if x == 0:
        return "0"
    magnitude = abs(x)
    if magnitude >= 100:
        return f"{x:,.0f}"
    if magnitude >= 10:
        return f"{x:.1f}"
    if magnitude >= 1:
        return f"{x:.2f}"
    return f"{x:.3g}"


def _pm(s: Stat | None) -> str:
    return "—" if s is None else f"{_num(s.mean)} ± {_num(s.sd)}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


VERDICT_MARK = {
    "within": "✓ within",
    "outside, explained": "✗ outside, explained",
    "outside, unexplained": "✗ outside, **unexplained**",
    "no target": "— (no target)",
    "not run": "not run",
}


def _counts(family: Family, table: Sequence[Row]) -> dict[str, int]:
    counts = dict.fromkeys(VERDICT_MARK, 0)
    for row in table:
        counts[verdict(row, family)] += 1
    return counts


def _times(family: Family) -> dict[str, tuple[float, float | None, int]]:
    """Per simulator: total whole-process seconds, total engine seconds, runs."""
    out = {}
    for simulator, outcomes in all_outcomes(family).items():
        engines = [o.engine_s for o in outcomes if o.engine_s is not None]
        out[simulator] = (
            sum(o.wall_s for o in outcomes),
            sum(engines) if engines else None,
            len(outcomes),
        )
    return out


def _settings_table(family: Family) -> list[str]:
    lines = [
        "| setting | lastmile | " + family.reference + " | matched |",
        "|---|---|---|---|",
    ]
    for s in family.settings:
        matched = "yes" if s.matched else "**no**"
        if s.note:
            matched += f": {s.note}"
        lines.append(
            f"| {_cell(s.name)} | {_cell(s.lastmile)} | {_cell(s.reference)} | {_cell(matched)} |"
        )
    return lines


def _ratio_cell(ratio: float | None, interval: tuple[float, float] | None) -> str:
    if ratio is None:
        return "—"
    if interval is None:
        return f"{ratio:.2f}"
    return f"{ratio:.2f} ({interval[0]:.2f}-{interval[1]:.2f})"


def _results_table(family: Family, table: Sequence[Row]) -> list[str]:
    extra = list(family.extra_metrics)
    head = (
        f"| point | lastmile {family.metric} | {family.reference} | ratio (about 95 %) | verdict |"
    ) + "".join(f" {m} lastmile / {family.reference} |" for m in extra)
    lines = [head, "|---|---|---|---|---|" + "---|" * len(extra)]
    for row in table:
        ratio = row.ratio(family.metric)
        target = "" if row.point.target is None else f" (±{row.point.target:.0%})"
        cells = [
            _cell(row.point.label),
            _pm(row.lastmile.get(family.metric)),
            _pm(row.reference.get(family.metric)),
            _ratio_cell(ratio, row.ratio_interval(family.metric)),
            VERDICT_MARK[verdict(row, family)] + target,
        ]
        for m in extra:
            lm, ref = row.lastmile.get(m), row.reference.get(m)
            cells.append(
                f"{'—' if lm is None else _num(lm.mean)} / {'—' if ref is None else _num(ref.mean)}"
            )
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _panel(family: Family, point: Point) -> tuple[str, str]:
    """The figure panel a point is drawn in and the label of its lastmile curve: the
    family's optional `panel(point)` (series that share their reference runs in one
    panel), else one panel per series."""
    chooser = getattr(family, "panel", None)
    if chooser is None:
        return point.series, "lastmile"
    found: tuple[str, str] = chooser(point)
    return found


LASTMILE_COLOURS = ("tab:blue", "tab:green", "tab:purple", "tab:red")


def figure(family: Family, table: Sequence[Row]) -> Path | None:
    """Per panel, lastmile (solid, one curve per series in it) and the reference (dashed),
    mean ± spread against x."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: dict[str, dict[str, list[Row]]] = {}
    for row in table:
        if not (row.lastmile.get(family.metric) or row.reference.get(family.metric)):
            continue
        name, curve = _panel(family, row.point)
        panels.setdefault(name, {}).setdefault(curve, []).append(row)
    if not panels:
        return None
    ncols = 2 if len(panels) > 1 else 1
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(6 * ncols, 3.2 * nrows), squeeze=False, sharex=True
    )
    for ax, (name, curves) in zip(axes.flat, panels.items(), strict=False):
        lines: list[tuple[str, str, str, list[tuple[float, Stat]]]] = []
        for i, (curve, rs) in enumerate(curves.items()):
            colour = LASTMILE_COLOURS[i % len(LASTMILE_COLOURS)]
            lines.append(
                (
                    curve,
                    "-",
                    colour,
                    [(r.point.x, s) for r in rs if (s := r.lastmile.get(family.metric))],
                )
            )
        first = next(iter(curves.values()))
        lines.append(
            (
                family.reference,
                "--",
                "tab:orange",
                [(r.point.x, s) for r in first if (s := r.reference.get(family.metric))],
            )
        )
        for label, style, colour, pts in lines:
            if not pts:
                continue
            ax.errorbar(
                [x for x, _ in pts],
                [s.mean for _, s in pts],
                yerr=[s.sd for _, s in pts],
                fmt="o" + style,
                color=colour,
                capsize=3,
                markersize=4,
                label=label,
            )
        ax.set_title(name, fontsize=10)
        ax.set_ylabel(family.metric)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(family.x_label)
    fig.suptitle(family.title)
    fig.tight_layout()
    FIGURES.mkdir(parents=True, exist_ok=True)
    path = FIGURES / f"{family.name}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _seconds(x: float | None) -> str:
    if x is None:
        return "—"
    if x >= 3600:
        return f"{x / 3600:.1f} h"
    if x >= 60:
        return f"{x / 60:.1f} min"
    return f"{x:.1f} s"


INTRO = """# Validation against ns-2 and ns-3

lastmile's numbers are checked against the simulators its users know: ns-2.35 (Debian's
`ns2`, the simulator the seed papers used) and ns-3.44 (the `ns3` wheel). Each *family* runs
a set of scenarios in lastmile and in one reference with every setting matched — the
settings table of each family says how, and lists what cannot be matched — over several
seeds, and compares the means. The scenarios are stressed on purpose (windows at or above
the bandwidth-delay product, queues that overflow, losses where recovery dominates): a
cross-check where every algorithm fills the link proves nothing.

For each point the tables give lastmile's mean ± spread (the sample standard deviation over
the seeds), the reference's, their ratio with an interval of about 95 % (two standard errors
of each mean, propagated), and the verdict against the point's target: the means within the
target (e.g. 10 %), or outside it. Every point outside its target is
explained below its family's table, with the evidence (a run, a trace, the reference's source
file and line); an "unexplained" verdict is an open finding. The two simulators draw their
random losses from different generators, so single runs differ and only means are compared.

## How to run

    make validate                                    # everything missing; lastmile re-runs
    python -m validation.suite --family classic-tcp-ns2 --jobs 2
    python -m validation.suite --quick               # a few points per family, 3 seeds
    python -m validation.suite --smoke               # one point per family, as CI does
    python -m validation.suite --report-only         # this page from validation/results/

The references are installed when missing and possible (`validation/refs.py`): ns-2.35 with
`apt-get install ns2` (as root), ns-3.44 as `ns3==3.44.post0` in a virtual environment of its
own (`$LASTMILE_NS3_VENV`, default `/work/ns3-venv`); neither is ever a dependency of
lastmile. Raw outcomes are kept in `validation/results/<family>.json`; a reference outcome is
reused while its point's parameters are unchanged, a lastmile outcome while lastmile's
sources are those it was recorded with. Wall times are whole processes (process start to
result: `python -m lastmile run`, `ns`, ns-3's interpreter with its ~8 s import) and
engines alone (lastmile's `engine.wall_s`, ns-2's `$ns run`, ns-3's `Simulator::Run`), summed
over every run kept, on the machine that ran them. The test suite re-runs the first seed of
every point in lastmile and fails when any metric differs from the one kept here
(`tests/test_committed_results.py`), so this page never describes older code than the
commit it is in.
"""


def write(families: Sequence[Family]) -> list[Path]:
    """Writes docs/validation.md and the figures; returns the files written."""
    written: list[Path] = []
    summary = [
        "## Summary",
        "",
        "| family | reference | points with a target: within / outside, explained / outside, "
        "unexplained | points run | wall time, lastmile / reference (whole processes; engines) |",
        "|---|---|---|---|---|",
    ]
    sections: list[str] = []
    for family in families:
        if not cache_path(family).exists():
            continue
        table = rows(family)
        counts = _counts(family, table)
        times = _times(family)
        lm_t, ref_t = times["lastmile"], times["reference"]
        run = sum(1 for r in table if r.lastmile.get(family.metric) is not None)
        summary.append(
            f"| [{family.name}](#{_anchor(family.title)}) | {family.reference} | "
            f"{counts['within']} / {counts['outside, explained']} / "
            f"{counts['outside, unexplained']} | {run} of {len(table)} | "
            f"{_seconds(lm_t[0])} / {_seconds(ref_t[0])}; "
            f"{_seconds(lm_t[1])} / {_seconds(ref_t[1])} |"
        )
        fig = figure(family, table)
        if fig is not None:
            written.append(fig)
        sections += _family_section(family, table, counts, times, fig)
    text = "\n".join([INTRO, *summary, "", *sections]).rstrip() + "\n"
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(text)
    written.append(DOC)
    return written


def _anchor(title: str) -> str:
    keep = [c.lower() if c.isalnum() else "-" if c in " -" else "" for c in title]
    return "".join(keep)


def _family_section(
    family: Family,
    table: Sequence[Row],
    counts: Mapping[str, int],
    times: Mapping[str, tuple[float, float | None, int]],
    fig: Path | None,
) -> list[str]:
    module = __import__(type(family).__module__, fromlist=["__doc__"])
    description = (module.__doc__ or "").strip()
    seeds = sorted({s.n for r in table for s in (r.lastmile.get(family.metric),) if s is not None})
    lm_t, ref_t = times["lastmile"], times["reference"]
    out = [
        f"## {family.title}",
        "",
        description,
        "",
        f"Re-run: `python -m validation.suite --family {family.name}`. Seeds per point: "
        f"{', '.join(str(s) for s in seeds) or '—'} (the family asks for {family.seeds}).",
        "",
        f"Points with a target: {counts['within']} within, {counts['outside, explained']} "
        f"outside and explained, {counts['outside, unexplained']} outside and unexplained; "
        f"{counts['no target']} without a target.",
        "",
        f"Wall time over the {lm_t[2]} lastmile runs and {ref_t[2]} {family.reference} runs "
        f"kept: whole processes {_seconds(lm_t[0])} against {_seconds(ref_t[0])} "
        f"({_seconds(lm_t[0] / lm_t[2] if lm_t[2] else None)} against "
        f"{_seconds(ref_t[0] / ref_t[2] if ref_t[2] else None)} per run); engines alone "
        f"{_seconds(lm_t[1])} against {_seconds(ref_t[1])}.",
        "",
        "### Settings",
        "",
        *_settings_table(family),
        "",
        "### Results",
        "",
    ]
    if fig is not None:
        out += [f"![{family.title}](validation/{fig.name})", ""]
    out += [*_results_table(family, table), ""]
    if family.explanations:
        out += ["### Differences and their causes", ""]
        keys_by_text: dict[str, list[str]] = {}
        for key, text in family.explanations.items():
            keys_by_text.setdefault(text, []).append(key)
        for text, keys in keys_by_text.items():
            out += [f"**{'; '.join(keys)}.** {text}", ""]
    return out
