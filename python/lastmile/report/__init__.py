"""``lastmile report``: one self-contained HTML page (figures inlined as data URIs, no
script, no external resource) for

- a run directory (``lastmile run --trace ... --out DIR`` or ``lastmile plot``): the
  summary tables and the standard pictures (`lastmile.report.run`);
- a sweep results store (``.duckdb``): per campaign its axes, means with 95 % confidence
  intervals and each metric against the first axis (`lastmile.report.sweep`);
- a ``lastmile reproduce`` output directory: an index across experiments, then each
  experiment's figures, comparison with the paper's numbers, claims with the paper's own
  sentences, and integrity (`lastmile.report.reproduce`).

`build_report(target, out)` detects which, writes the page and returns its path. pandas,
DuckDB and matplotlib load only when a page is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from lastmile import _core
from lastmile._fresh import write_fresh

__all__ = ["ReportError", "build_report", "detect"]

Kind = Literal["run", "sweep", "reproduce"]


class ReportError(ValueError):
    """The target is not something a report can be made of."""


def detect(target: Path) -> Kind:
    """What `target` is: a results store, a reproduce output, or a run directory."""
    if target.is_file() and target.suffix == ".duckdb":
        return "sweep"
    if not target.exists():
        raise ReportError(f"{target}: no such file or directory")
    if not target.is_dir():
        raise ReportError(
            f"{target}: expected a run directory, a .duckdb results store or a "
            "`lastmile reproduce` output directory"
        )
    from lastmile.report.reproduce import experiment_dirs

    if (target / "index.json").is_file() or experiment_dirs(target):
        return "reproduce"
    if (target / "summary.json").is_file() or any(target.glob("*.parquet")):
        return "run"
    raise ReportError(
        f"{target}: holds no summary.json or traces (a run directory: lastmile run --trace "
        "... --out DIR), and no experiments (a reproduce output: lastmile reproduce NAME --out "
        "DIR)"
    )


def build_report(target: Path, out: Path | None = None) -> Path:
    """Write the report of `target` to `out` (default: ``TARGET/report.html``, or
    ``STORE.html`` beside a store) and return the page's path."""
    target = Path(target)
    kind = detect(target)
    if out is None:
        out = target.with_suffix(".html") if kind == "sweep" else target / "report.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    page_dir = out.parent
    if kind == "sweep":
        from lastmile.report.sweep import sweep_page

        page = sweep_page(target)
    elif kind == "reproduce":
        from lastmile.report.reproduce import reproduce_page

        page = reproduce_page(target, page_dir)
    else:
        from lastmile.report.run import run_page

        page = run_page(target, page_dir)
    generator = f"lastmile {_core.version()} — lastmile report {target.name}"
    text = page.render(generator)
    write_fresh(out, lambda p: p.write_text(text, encoding="utf-8"))
    return out
