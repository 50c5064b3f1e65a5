"""``comparison.md`` / ``.csv`` / ``.json`` per experiment, ``index.json``, and the docs page.

- ``comparison.md``: the headline ("claims: X of Y hold; numbers: A of B within 10 %"),
  the integrity of the runs, every published number beside ours with a flag where ours
  differs by more than 10 % or 25 %, every claim with the paper's sentence, its band, our
  numbers and (when it fails) why, and what we ran to find out why we differ.
- ``comparison.csv``: one row per number (``kind = number``), claim (``claim``) and
  integrity series (``integrity``).
- ``comparison.json``: the same, machine-readable, in the shape of ``REPRODUCE_JSON.md``
  (``format`` 1); ``<out>/index.json`` lists every experiment whose report is in ``<out>``.
- `write_docs` gathers every experiment into ``docs/reproductions.md`` (figures copied under
  ``docs/reproductions/<name>/``, PNG only), with a closing note of the claims held before
  issue 10's rewrite of the claims and now.
"""

from __future__ import annotations

import csv
import json
import math
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lastmile.reproduce.framework import fmt_num, fmt_stat
from lastmile.reproduce.integrity import integrity_ok

if TYPE_CHECKING:
    from lastmile.reproduce.integrity import IntegrityRow
    from lastmile.reproduce.runner import Outcome

__all__ = [
    "comparison_json",
    "comparison_markdown",
    "headline",
    "write_comparison",
    "write_docs",
    "write_index",
]

FORMAT = 1

#: Claims held per experiment in ``docs/reproductions.md`` at commit 3dfbda5, before the
#: claims were rewritten from the papers' sentences (issue 10): (held, total).
BEFORE_ISSUE_10: dict[str, tuple[int, int]] = {
    "lle-fig5": (8, 8),
    "lle-fig7": (3, 3),
    "survey-table1": (5, 5),
    "tulip-exp1": (6, 10),
    "tulip-exp2": (4, 4),
    "tulip-exp5a": (4, 4),
    "tulip-exp5b": (1, 2),
    "wtcp": (11, 12),
}

_FLAG_TEXT = {"": "", "10%": "> 10 %", "25%": "**> 25 %**"}


def _cell(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else fmt_num(value)


def _pct(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{100 * value:+.1f} %"


def _md(text: str | None) -> str:
    return "" if text is None else text.replace("|", "\\|").replace("\n", " ")


def _finite(value: float | None) -> float | None:
    """JSON has no NaN: None for a missing or undefined number."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    return float(value)


def headline(outcome: Outcome) -> dict[str, int]:
    """Claims held and published numbers within 10 % / 25 %, as counts."""
    ctx = outcome.context
    numbers = [c for c in ctx.comparisons if c.paper is not None]
    return {
        "claims_held": sum(c.holds for c in ctx.claims),
        "claims_total": len(ctx.claims),
        "numbers_within_10": sum(c.flag == "" for c in numbers),
        "numbers_within_25": sum(c.flag != "25%" for c in numbers),
        "numbers_total": len(numbers),
    }


def headline_text(h: dict[str, int]) -> str:
    return (
        f"claims: {h['claims_held']} of {h['claims_total']} hold; numbers: "
        f"{h['numbers_within_10']} of {h['numbers_total']} within 10 % "
        f"({h['numbers_within_25']} within 25 %)"
    )


def stalled_counts(rows: Sequence[IntegrityRow]) -> tuple[int | None, int | None]:
    """(stalled runs in mechanism series, in all series); None without a liveness check."""
    if any(r.stalled is None for r in rows):
        return None, None
    return (
        sum(r.stalled or 0 for r in rows if r.mechanism),
        sum(r.stalled or 0 for r in rows),
    )


def _integrity_lines(outcome: Outcome, h: str) -> list[str]:
    rows = outcome.context.integrity
    ok = integrity_ok(rows)
    verdict = (
        "every mechanism series ran without an unexplained stall and no run failed"
        if ok
        else "**FAILS**: a mechanism series stalled where the paper shows no stall, or a run failed"
    )
    lines = [
        f"{h}# Integrity of the runs",
        "",
        f"Kept apart from the paper's claims: {verdict}. A stalled run had data outstanding "
        "and no new in-order delivery for longer than the core's liveness threshold; an "
        "incomplete one did not finish a transfer meant to finish within the run.",
        "",
        "| series | mechanism | runs | stalled | incomplete | failed | runs named | "
        "why it stalls (where the paper shows it, or the evidence it is back-off) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        stalled = "n/a" if r.stalled is None else str(r.stalled)
        if r.stalled and r.mechanism and r.explanation is None:
            stalled = f"**{stalled}**"
        lines.append(
            f"| {r.series} | {'yes' if r.mechanism else 'no'} | {r.runs} | {stalled} | "
            f"{r.incomplete} | {r.failed} | {_md(r.where)} | {_md(r.explanation)} |"
        )
    return lines


def _number_lines(outcome: Outcome, h: str) -> list[str]:
    lines = [
        f"{h}# Published numbers beside ours",
        "",
        "| item | source | unit | paper | ours | difference | flag | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in outcome.context.comparisons:
        diff = c.difference
        diff_text = "-" if diff is None else f"{fmt_num(diff)} ({_pct(c.relative)})"
        lines.append(
            f"| {_md(c.item)} | {c.source} | {c.unit} | {_cell(c.paper)} | "
            f"{fmt_stat(c.ours.mean, c.ours.ci)} | {diff_text} | {_FLAG_TEXT[c.flag]} | "
            f"{_md(c.note)} |"
        )
    return lines


def _claim_lines(outcome: Outcome, h: str) -> list[str]:
    claims = outcome.context.claims
    held = sum(c.holds for c in claims)
    lines = [
        f"{h}# Claims ({held} of {len(claims)} hold)",
        "",
        "Each claim quotes the paper; its band is what that sentence says, fixed before the "
        "run (the rules are in `python/lastmile/reproduce/framework.py`).",
        "",
        "| claim | source | the paper's words | band, as tested | holds | ours | why it fails |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in claims:
        mark = "yes" if c.holds else "**NO**"
        lines.append(
            f'| {_md(c.claim)} | {c.source} | "{_md(c.quote)}" | {_md(c.band)} | {mark} | '
            f"{_md(c.detail)} | {_md(c.explanation)} |"
        )
    return lines


def _finding_lines(outcome: Outcome, h: str) -> list[str]:
    findings = outcome.context.findings
    if not findings:
        return []
    lines = [f"{h}# What we ran to find out why we differ", ""]
    lines += [f"- **{f.title}** {f.text}" for f in findings]
    return lines


def comparison_markdown(outcome: Outcome, figure_prefix: str = "", level: int = 1) -> str:
    """The report of one experiment (figure links when `figure_prefix` is given)."""
    ctx = outcome.context
    h = "#" * level
    mode = "quick" if ctx.quick else "full"
    lines = [
        f"{h} {outcome.experiment.title}",
        "",
        f"Paper: {outcome.experiment.paper}. Run: `{mode}` ({outcome.runs} runs, "
        f"{outcome.wall_s:.1f} s). Ours: mean ± 95 % confidence half-width over seeds.",
        "",
        f"**{headline_text(headline(outcome))}; integrity: "
        f"{'ok' if integrity_ok(ctx.integrity) else 'FAILS'}.**",
        "",
    ]
    if figure_prefix:
        for name, caption in ctx.figures:
            lines += [f"![{_md(caption)}]({figure_prefix}{name}.png)", "", f"*{_md(caption)}*", ""]
    for part in (_integrity_lines, _number_lines, _claim_lines, _finding_lines):
        section = part(outcome, h)
        if section:
            lines += [*section, ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def comparison_json(outcome: Outcome) -> dict[str, Any]:
    """The experiment's report in the shape of ``REPRODUCE_JSON.md`` (format 1)."""
    ctx = outcome.context
    exp = outcome.experiment
    return {
        "format": FORMAT,
        "experiment": exp.name,
        "title": exp.title,
        "paper": exp.paper,
        "description": exp.description,
        "differences": exp.differences,
        "mode": "quick" if ctx.quick else "full",
        "runs": outcome.runs,
        "wall_s": round(outcome.wall_s, 3),
        "figures": [
            {"name": name, "caption": caption, "png": f"{name}.png", "svg": f"{name}.svg"}
            for name, caption in ctx.figures
        ],
        "comparisons": [
            {
                "item": c.item,
                "source": c.source,
                "unit": c.unit,
                "paper": _finite(c.paper),
                "ours_mean": _finite(c.ours.mean),
                "ours_ci95": _finite(c.ours.ci),
                "seeds": c.ours.n,
                "relative": _finite(c.relative),
                "flag": c.flag,
                "note": c.note,
            }
            for c in ctx.comparisons
        ],
        "claims": [
            {
                "claim": c.claim,
                "quote": c.quote,
                "source": c.source,
                "band": c.band,
                "holds": c.holds,
                "detail": c.detail,
                "explanation": c.explanation,
            }
            for c in ctx.claims
        ],
        "integrity": [
            {
                "series": r.series,
                "mechanism": r.mechanism,
                "runs": r.runs,
                "stalled": r.stalled,
                "incomplete": r.incomplete,
                "failed": r.failed,
                "where": r.where,
                "explanation": r.explanation,
            }
            for r in ctx.integrity
        ],
        "integrity_ok": integrity_ok(ctx.integrity),
        "headline": headline(outcome),
        "findings": [{"title": f.title, "text": f.text} for f in ctx.findings],
    }


def write_comparison(outcome: Outcome) -> None:
    """``comparison.md``, ``.csv`` and ``.json`` in the experiment's output directory."""
    out = outcome.out_dir
    (out / "comparison.md").write_text(comparison_markdown(outcome, figure_prefix=""))
    report = comparison_json(outcome)
    (out / "comparison.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    with (out / "comparison.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, restval="")
        w.writeheader()
        for c in outcome.context.comparisons:
            w.writerow(
                {
                    "kind": "number",
                    "item": c.item,
                    "source": c.source,
                    "unit": c.unit,
                    "paper": c.paper,
                    "ours_mean": c.ours.mean,
                    "ours_ci95": c.ours.ci,
                    "seeds": c.ours.n,
                    "difference": c.difference,
                    "relative": c.relative,
                    "flag": c.flag,
                    "detail": c.note,
                }
            )
        for cl in outcome.context.claims:
            w.writerow(
                {
                    "kind": "claim",
                    "item": cl.claim,
                    "source": cl.source,
                    "holds": cl.holds,
                    "detail": cl.detail,
                    "quote": cl.quote,
                    "band": cl.band,
                    "explanation": cl.explanation or "",
                }
            )
        for r in outcome.context.integrity:
            w.writerow(
                {
                    "kind": "integrity",
                    "item": r.series,
                    "holds": r.ok,
                    "detail": f"runs {r.runs}, stalled {r.stalled}, incomplete "
                    f"{r.incomplete}, failed {r.failed}; {r.where}",
                    "explanation": r.explanation or "",
                }
            )


#: ``comparison.csv``'s columns: numbers fill paper...flag, claims holds...explanation,
#: integrity rows (one per series) holds (sound) and detail.
CSV_COLUMNS = [
    "kind",
    "item",
    "source",
    "unit",
    "paper",
    "ours_mean",
    "ours_ci95",
    "seeds",
    "difference",
    "relative",
    "flag",
    "holds",
    "detail",
    "quote",
    "band",
    "explanation",
]


def write_index(out: Path) -> Path:
    """``<out>/index.json``: every experiment whose ``comparison.json`` is under `out`."""
    entries = []
    for path in sorted(out.glob("*/comparison.json")):
        try:
            report = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if report.get("format") != FORMAT:
            continue
        entries.append(
            {
                "experiment": report["experiment"],
                "dir": path.parent.name,
                "title": report["title"],
                "mode": report["mode"],
                "headline": report["headline"],
                "integrity_ok": report["integrity_ok"],
            }
        )
    index = out / "index.json"
    index.write_text(json.dumps({"format": FORMAT, "experiments": entries}, indent=1) + "\n")
    return index


_DOCS_HEADER = """# Reproductions

Generated by `lastmile reproduce all --docs{quick}` (`make docs`, {mode} runs); do not edit
by hand.
Each section is one experiment of `experiments/` (see `python/lastmile/reproduce/`): our
figures redrawn from the runs; the integrity of every run (stalled, incomplete, failed),
kept apart from the paper's claims; every number the paper publishes beside ours (mean ±
95 % confidence half-width over seeds), flagged where ours differs by more than 10 % or
25 %; each of the paper's claims with its sentence quoted, the band that sentence implies
(fixed before the run, never widened after it) and whether it holds; and what we ran to
find out why we differ. `--quick` (fewer seeds and points) checks the same claims in
seconds; the tests use it.

**All experiments: {total}.**

{summary}
"""


def _summary_rows(outcomes: Sequence[Outcome]) -> list[str]:
    rows = [
        "| experiment | claims held | numbers within 10 % | within 25 % | stalled runs "
        "(mechanisms / all) | integrity | runs | wall time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        hl = headline(o)
        mech, every = stalled_counts(o.context.integrity)
        stalls = "n/a" if mech is None else f"{mech} / {every}"
        rows.append(
            f"| [{o.experiment.name}](#{_anchor(o.experiment.title)}) | "
            f"{hl['claims_held']} / {hl['claims_total']} | "
            f"{hl['numbers_within_10']} / {hl['numbers_total']} | "
            f"{hl['numbers_within_25']} / {hl['numbers_total']} | {stalls} | "
            f"{'ok' if integrity_ok(o.context.integrity) else '**FAILS**'} | {o.runs} | "
            f"{o.wall_s:.1f} s |"
        )
    return rows


def _closing_note(outcomes: Sequence[Outcome]) -> str:
    lines = [
        "## Closing note: claims held before and after issue 10",
        "",
        "Before: the claims of `docs/reproductions.md` at commit 3dfbda5, several of them "
        "loosened or chosen after seeing our results. After: every claim quotes the paper's "
        "sentence and tests the band that sentence implies; claims that could not fail "
        "moved to the integrity section or went; sentences the old claims skipped are now "
        "checked.",
        "",
        "| experiment | claims held before | claims held after | numbers within 10 % |",
        "|---|---|---|---|",
    ]
    for o in outcomes:
        before = BEFORE_ISSUE_10.get(o.experiment.name)
        hl = headline(o)
        lines.append(
            f"| {o.experiment.name} | "
            f"{'-' if before is None else f'{before[0]} / {before[1]}'} | "
            f"{hl['claims_held']} / {hl['claims_total']} | "
            f"{hl['numbers_within_10']} / {hl['numbers_total']} |"
        )
    return "\n".join(lines) + "\n"


def total_headline(outcomes: Sequence[Outcome]) -> dict[str, int]:
    total: dict[str, int] = {}
    for o in outcomes:
        for key, value in headline(o).items():
            total[key] = total.get(key, 0) + value
    return total


def write_docs(outcomes: Sequence[Outcome], docs_dir: Path, total_wall_s: float) -> Path:
    """``<docs_dir>/reproductions.md`` and the PNGs under ``<docs_dir>/reproductions/``."""
    quick = any(o.context.quick for o in outcomes)
    fig_root = docs_dir / "reproductions"
    rows = _summary_rows(outcomes)
    rows.append(f"\nTotal wall time: {total_wall_s:.1f} s on the machine that generated this.")
    total = total_headline(outcomes)
    parts = [
        _DOCS_HEADER.format(
            quick=" --quick" if quick else "",
            mode="quick" if quick else "full",
            total=headline_text(total),
            summary="\n".join(rows),
        )
    ]
    for o in outcomes:
        target = fig_root / o.experiment.name
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for name, _caption in o.context.figures:
            shutil.copy2(o.out_dir / f"{name}.png", target / f"{name}.png")
        body = comparison_markdown(o, figure_prefix=f"reproductions/{o.experiment.name}/", level=2)
        title, rest = body.split("\n", 1)
        parts.append(
            "\n".join(
                [
                    title,
                    "",
                    o.experiment.description,
                    "",
                    "**Where we differ from the paper, and why.** " + o.experiment.differences,
                    rest,
                ]
            )
        )
    parts.append(_closing_note(outcomes))
    page = docs_dir / "reproductions.md"
    page.write_text("\n".join(parts))
    return page


def _anchor(title: str) -> str:
    keep = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -")
    return keep.replace(" ", "-")
