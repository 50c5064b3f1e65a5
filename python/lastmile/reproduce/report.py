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
  ``docs/reproductions/<name>/``, PNG only), opening with the headline per paper and
  closing with the headline per paper before the claims were read by the rules of
  `lastmile.reproduce.words` and counted strictly, and now.

The headline counts each published number once (`Comparison.counted`: calibration and
sensitivity rows are shown, not counted) and leaves calibration claims out.
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
    "paper_headlines",
    "write_comparison",
    "write_docs",
    "write_index",
]

FORMAT = 1

#: The seed documents by paper, in the order the headline lists them.
PAPERS: dict[str, str] = {
    "000": "TULIP (Parsa & Garcia-Luna-Aceves)",
    "001": "WTCP (Ratnam & Matta)",
    "003": "Survey (Pentikousis)",
    "004": "LLE-TCP (Kliazovich, Granelli & Gerla)",
}

#: The headline per paper before the bands were read by `lastmile.reproduce.words` and the
#: numbers counted once each (``lastmile reproduce all`` at commit 00a58d8, its own
#: counting: every comparison, calibration targets and sensitivity series included):
#: (claims held, claims, numbers within 10 %, within 25 %, numbers).
BEFORE: dict[str, tuple[int, int, int, int, int]] = {
    "000": (12, 26, 15, 21, 42),
    "001": (12, 25, 10, 14, 21),
    "003": (26, 51, 6, 9, 16),
    "004": (16, 39, 27, 40, 54),
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
    """Claims held (calibration claims apart) and published numbers within 10 % / 25 %
    (each counted once: `Comparison.counted`), as counts."""
    ctx = outcome.context
    numbers = [c for c in ctx.comparisons if c.counted]
    claims = [c for c in ctx.claims if not c.calibration]
    return {
        "claims_held": sum(c.holds for c in claims),
        "claims_total": len(claims),
        "calibration_claims": len(ctx.claims) - len(claims),
        "numbers_within_10": sum(c.flag == "" for c in numbers),
        "numbers_within_25": sum(c.flag != "25%" for c in numbers),
        "numbers_total": len(numbers),
    }


def headline_text(h: dict[str, int]) -> str:
    calibration = h.get("calibration_claims", 0)
    return (
        f"claims: {h['claims_held']} of {h['claims_total']} hold"
        + (f" (and {calibration} calibration)" if calibration else "")
        + f"; numbers: {h['numbers_within_10']} of {h['numbers_total']} within 10 % "
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
        "Counted: each published number once, beside the series the declared settings run; "
        "`sensitivity` rows put it beside another series, `calibration` rows are the numbers "
        "a setting was chosen by (neither counted).",
        "",
        "| item | source | unit | paper | ours | difference | flag | counted | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in outcome.context.comparisons:
        diff = c.difference
        diff_text = "-" if diff is None else f"{fmt_num(diff)} ({_pct(c.relative)})"
        counted = "yes" if c.counted else ("-" if c.paper is None else c.role)
        lines.append(
            f"| {_md(c.item)} | {c.source} | {c.unit} | {_cell(c.paper)} | "
            f"{fmt_stat(c.ours.mean, c.ours.ci)} | {diff_text} | {_FLAG_TEXT[c.flag]} | "
            f"{counted} | {_md(c.note)} |"
        )
    return lines


def _claim_lines(outcome: Outcome, h: str) -> list[str]:
    claims = outcome.context.claims
    counted = [c for c in claims if not c.calibration]
    held = sum(c.holds for c in counted)
    lines = [
        f"{h}# Claims ({held} of {len(counted)} hold)",
        "",
        "Each claim quotes the paper; its band is what that sentence says, read by the rules "
        "of `python/lastmile/reproduce/words.py` before the run. A claim marked "
        "*(calibration)* chose a setting the paper leaves out and is not counted.",
        "",
        "| claim | source | the paper's words | band, as tested | holds | ours | why it fails |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in claims:
        mark = "yes" if c.holds else "**NO**"
        name = f"{c.claim} *(calibration)*" if c.calibration else c.claim
        lines.append(
            f'| {_md(name)} | {c.source} | "{_md(c.quote)}" | {_md(c.band)} | {mark} | '
            f"{_md(c.detail)} | {_md(c.explanation)} |"
        )
    return lines


def _settings_lines(outcome: Outcome, h: str) -> list[str]:
    settings = outcome.experiment.settings
    if not settings:
        return []
    return [
        f"{h}# Settings the paper leaves out",
        "",
        "Chosen once, from the paper's own evidence, and held for every claim:",
        "",
        *[f"- {_md(line)}" for line in settings],
    ]


def _not_claim_lines(outcome: Outcome, h: str) -> list[str]:
    dropped = outcome.experiment.not_claims
    if not dropped:
        return []
    lines = [
        f"{h}# Sentences not tested as claims",
        "",
        "| the paper's words | source | why not a claim |",
        "|---|---|---|",
    ]
    lines += [f'| "{_md(n.quote)}" | {n.source} | {_md(n.why)} |' for n in dropped]
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
    for part in (
        _settings_lines,
        _integrity_lines,
        _number_lines,
        _claim_lines,
        _not_claim_lines,
        _finding_lines,
    ):
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
                "role": c.role,
                "ref": c.ref,
                "counted": c.counted,
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
                "calibration": c.calibration,
            }
            for c in ctx.claims
        ],
        "settings": list(exp.settings),
        "not_claims": [
            {"quote": n.quote, "source": n.source, "why": n.why} for n in exp.not_claims
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
(read by the rules of `python/lastmile/reproduce/words.py` before the run, never widened
after it) and whether it holds; the settings each paper leaves out and what we chose from
its evidence; the sentences not tested and why; and what we ran to find out why we differ.
`--quick` (fewer seeds and points) checks the same claims in seconds; the tests use it.

The counting is strict: each published number counts once, against the series the declared
settings run (the same number beside another series is a sensitivity row), and neither the
numbers a setting was chosen by nor their claims count (calibration). A test feeds each
paper's own numbers through every claim they bear on (`tests/test_reproduce_papers.py`);
another re-runs the experiments that take a few seconds and requires their sections here,
but for wall times, to be what the code gives (`tests/test_committed_reproductions.py`).

**All experiments: {total}.**

{papers}

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


def paper_headlines(outcomes: Sequence[Outcome]) -> dict[str, dict[str, int]]:
    """The headline summed per paper (seed document), in `PAPERS` order."""
    out: dict[str, dict[str, int]] = {seed: {} for seed in PAPERS}
    for o in outcomes:
        total = out.setdefault(o.experiment.seed, {})
        for key, value in headline(o).items():
            total[key] = total.get(key, 0) + value
    return {seed: h for seed, h in out.items() if h}


def _paper_rows(outcomes: Sequence[Outcome]) -> list[str]:
    rows = [
        "| paper | claims held | calibration claims | numbers within 10 % | within 25 % |",
        "|---|---|---|---|---|",
    ]
    for seed, h in paper_headlines(outcomes).items():
        rows.append(
            f"| {PAPERS.get(seed, seed)} | {h['claims_held']} / {h['claims_total']} | "
            f"{h['calibration_claims']} | {h['numbers_within_10']} / {h['numbers_total']} | "
            f"{h['numbers_within_25']} / {h['numbers_total']} |"
        )
    return rows


def _closing_note(outcomes: Sequence[Outcome]) -> str:
    lines = [
        "## Closing note: the headline per paper, before and after the strict counting",
        "",
        "Before: `lastmile reproduce all` at commit 00a58d8 with its own counting (every "
        "comparison counted, calibration targets and sensitivity series included; bands "
        "chosen claim by claim). After: the bands read by one set of rules "
        "(`words.py`), each published number counted once, calibration left out, the "
        "settings each paper leaves out chosen once from its evidence, vacuous claims "
        "dropped (each experiment's 'Sentences not tested as claims') and the paper's "
        "untested statements added.",
        "",
        "| paper | claims held before | after | numbers within 10 % before | after | "
        "within 25 % before | after |",
        "|---|---|---|---|---|---|---|",
    ]
    for seed, h in paper_headlines(outcomes).items():
        b = BEFORE.get(seed)
        before = (
            ("-",) * 3
            if b is None
            else (f"{b[0]} / {b[1]}", f"{b[2]} / {b[4]}", f"{b[3]} / {b[4]}")
        )
        lines.append(
            f"| {PAPERS.get(seed, seed)} | {before[0]} | {h['claims_held']} / "
            f"{h['claims_total']} | {before[1]} | {h['numbers_within_10']} / "
            f"{h['numbers_total']} | {before[2]} | {h['numbers_within_25']} / "
            f"{h['numbers_total']} |"
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
            papers="\n".join(_paper_rows(outcomes)),
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
