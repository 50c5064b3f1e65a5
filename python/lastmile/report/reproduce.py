"""The report of a ``lastmile reproduce`` output directory: an index across experiments
(claims held, numbers within 10 % and 25 % of the paper's, integrity), then per
experiment its description, where we differ from the paper, the figures, every published
number beside ours, each claim with the paper's sentence quoted, and the integrity of its
series.

Reads ``<dir>/index.json`` and each ``<dir>/<experiment>/comparison.json`` (format 1, see
`REPRODUCE_JSON.md` in the design notes); an experiment directory with only the older
``comparison.csv`` is shown from that (numbers and claims, without quotes), and its PNG
figures are inlined either way.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from lastmile.report.html import Page, esc, figure_file, link, table

__all__ = ["experiment_dirs", "reproduce_page"]


def _load_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def experiment_dirs(root: Path) -> list[Path]:
    """The experiment directories under `root`: from ``index.json`` when there is one,
    else every subdirectory holding a comparison.json or comparison.csv, by name."""
    index = _load_json(root / "index.json")
    if index is not None:
        entries = index.get("experiments") or []
        dirs = [root / str(e.get("dir") or e.get("experiment")) for e in entries]
        return [d for d in dirs if d.is_dir()]
    return sorted(
        d
        for d in root.iterdir()
        if d.is_dir() and ((d / "comparison.json").is_file() or (d / "comparison.csv").is_file())
    )


def _from_csv(path: Path) -> dict[str, Any]:
    """The comparison.json shape, as far as comparison.csv holds it."""
    comparisons, claims = [], []

    def number(text: str) -> float | None:
        try:
            return float(text) if text not in ("", "None", "nan") else None
        except ValueError:
            return None

    with path.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if row.get("kind") == "claim":
                claims.append(
                    {
                        "claim": row.get("item"),
                        "source": row.get("source"),
                        "holds": row.get("holds") == "True",
                        "detail": row.get("detail"),
                        "quote": None,
                        "band": None,
                        "explanation": None,
                    }
                )
            else:
                rel = number(row.get("relative", ""))
                flag = (
                    "" if rel is None or abs(rel) <= 0.10 else "10%" if abs(rel) <= 0.25 else "25%"
                )
                comparisons.append(
                    {
                        "item": row.get("item"),
                        "source": row.get("source"),
                        "unit": row.get("unit"),
                        "paper": number(row.get("paper", "")),
                        "ours_mean": number(row.get("ours_mean", "")),
                        "ours_ci95": number(row.get("ours_ci95", "")),
                        "seeds": row.get("seeds"),
                        "relative": rel,
                        "flag": flag,
                        "note": row.get("detail"),
                    }
                )
    title = path.parent.name
    markdown = path.with_name("comparison.md")
    if markdown.is_file():
        first = markdown.read_text(encoding="utf-8").splitlines()[:1]
        if first and first[0].startswith("# "):
            title = first[0][2:].strip()
    return {
        "experiment": path.parent.name,
        "title": title,
        "figures": [],
        "comparisons": comparisons,
        "claims": claims,
        "integrity": [],
        "from_csv": True,
    }


def _experiment(directory: Path) -> dict[str, Any]:
    data = _load_json(directory / "comparison.json")
    if data is None:
        data = _from_csv(directory / "comparison.csv")
    data.setdefault("experiment", directory.name)
    return data


def _headline(data: dict[str, Any]) -> dict[str, int]:
    """Claims held and numbers within 10 % / 25 % (from `headline`, else counted)."""
    given = data.get("headline")
    if isinstance(given, dict):
        return {k: int(v) for k, v in given.items() if isinstance(v, int | float)}
    claims = data.get("claims") or []
    numbers = [c for c in data.get("comparisons") or [] if c.get("relative") is not None]
    return {
        "claims_held": sum(1 for c in claims if c.get("holds")),
        "claims_total": len(claims),
        "numbers_within_10": sum(1 for c in numbers if abs(c["relative"]) <= 0.10),
        "numbers_within_25": sum(1 for c in numbers if abs(c["relative"]) <= 0.25),
        "numbers_total": len(numbers),
    }


def _num(value: object, digits: int = 3) -> str:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "-"
    return f"{value:.{digits}g}"


def _percent(relative: object) -> str:
    if not isinstance(relative, int | float) or isinstance(relative, bool):
        return "-"
    return "0.0 %" if abs(relative) < 0.0005 else f"{100 * relative:+.1f} %"


def _mark(ok: bool | None, yes: str = "holds", no: str = "fails") -> str:
    if ok is None:
        return "-"
    return f'<span class="ok">✓ {yes}</span>' if ok else f'<span class="bad">✗ {no}</span>'


def _comparisons(items: list[dict[str, Any]]) -> str:
    rows = []
    for c in items:
        rel = c.get("relative")
        flag = str(c.get("flag") or "")
        flag_html = (
            f'<span class="{"bad" if flag == "25%" else "warn"}">&gt; {esc(flag)}</span>'
            if flag
            else ""
        )
        ci = c.get("ours_ci95")
        ours = _num(c.get("ours_mean")) + (
            f" ± {_num(ci, 2)}" if isinstance(ci, int | float) else ""
        )
        rows.append(
            [
                esc(c.get("item")),
                esc(c.get("source")),
                esc(c.get("unit")),
                _num(c.get("paper")),
                esc(ours),
                esc(c.get("seeds")),
                _percent(rel),
                flag_html,
                esc(c.get("note")),
            ]
        )
    header = [
        "item",
        "source",
        "unit",
        "paper",
        "ours (mean ± 95 % CI)",
        "seeds",
        "relative",
        "flag",
        "note",
    ]
    return table(header, rows, numeric=[3, 4, 5, 6], raw=range(len(header)))


def _claims(items: list[dict[str, Any]]) -> str:
    out = []
    for c in items:
        parts = [f"<p>{_mark(bool(c.get('holds')))} <strong>{esc(c.get('claim'))}</strong></p>"]
        if c.get("quote"):
            parts.append(f"<blockquote>“{esc(c['quote'])}” — {esc(c.get('source'))}</blockquote>")
        elif c.get("source"):
            parts.append(f"<p>Source: {esc(c['source'])}</p>")
        if c.get("band"):
            parts.append(f"<p>Tested as: <code>{esc(c['band'])}</code></p>")
        if c.get("detail"):
            parts.append(f"<p>Ours: {esc(c['detail'])}</p>")
        if c.get("explanation"):
            parts.append(f"<p>Why: {esc(c['explanation'])}</p>")
        out.append(f'<div class="claim">{"".join(parts)}</div>')
    return "".join(out)


def _integrity(data: dict[str, Any]) -> str:
    items = data.get("integrity") or []
    if not items:
        return ""
    rows = [
        [
            esc(i.get("series")),
            "yes" if i.get("mechanism") else "no",
            esc(i.get("runs")),
            esc(i.get("stalled")),
            esc(i.get("incomplete")),
            esc(i.get("failed")),
            esc(i.get("explanation") or ""),
        ]
        for i in items
    ]
    ok = data.get("integrity_ok")
    verdict = (
        "" if ok is None else f"<p>{_mark(bool(ok), 'integrity ok', 'unexplained stalls')}</p>"
    )
    header = ["series", "mechanism", "runs", "stalled", "incomplete", "failed", "explanation"]
    return verdict + table(header, rows, numeric=[2, 3, 4, 5], raw=range(len(header)))


def _figures(directory: Path, data: dict[str, Any]) -> str:
    listed = data.get("figures") or []
    paths: list[tuple[Path, str]] = []
    for f in listed:
        for key in ("png", "svg"):
            if f.get(key) and (directory / f[key]).is_file():
                paths.append((directory / f[key], str(f.get("caption") or f.get("name") or "")))
                break
    if not listed:
        paths = [(p, p.stem) for p in sorted(directory.glob("*.png"))]
    return "".join(figure_file(p, caption) for p, caption in paths)


def _experiment_body(directory: Path, data: dict[str, Any], page_dir: Path) -> str:
    parts = []
    for key, label in (("description", ""), ("differences", "Where we differ, and why. ")):
        if data.get(key):
            parts.append(f"<p><strong>{esc(label)}</strong>{esc(data[key])}</p>")
    meta = [
        f"Paper: {data['paper']}" if data.get("paper") else "",
        f"mode {data['mode']}" if data.get("mode") else "",
        f"{data['runs']} runs" if data.get("runs") else "",
        f"{_num(data.get('wall_s'))} s" if data.get("wall_s") else "",
    ]
    if any(meta):
        parts.append(f'<p class="meta">{esc("; ".join(m for m in meta if m))}</p>')
    if data.get("from_csv"):
        parts.append(
            '<p class="meta">From comparison.csv (no comparison.json): the claims\' '
            "quotes are not shown.</p>"
        )
    parts.append(_figures(directory, data))
    if data.get("comparisons"):
        parts.append("<h3>Published numbers and ours</h3>" + _comparisons(data["comparisons"]))
    if data.get("claims"):
        parts.append("<h3>Claims</h3>" + _claims(data["claims"]))
    integrity = _integrity(data)
    if integrity:
        parts.append("<h3>Integrity</h3>" + integrity)
    files = [
        p for p in (directory / "comparison.json", directory / "comparison.csv") if p.is_file()
    ]
    links = []
    for p in files:
        try:
            links.append(link(p.resolve().relative_to(page_dir.resolve()).as_posix(), p.name))
        except ValueError:
            continue
    if links:
        parts.append(f"<p>Data: {' · '.join(links)}</p>")
    return "".join(parts)


def reproduce_page(root: Path, page_dir: Path) -> Page:
    """The page of a reproduce output directory; file links relative to `page_dir`."""
    page = Page("lastmile reproductions")
    dirs = experiment_dirs(root)
    experiments = [(d, _experiment(d)) for d in dirs]
    anchors = {d: page.anchor(str(data.get("title") or d.name)) for d, data in experiments}
    rows = []
    for d, data in experiments:
        h = _headline(data)
        ok = data.get("integrity_ok")
        rows.append(
            [
                link("#" + anchors[d], data.get("experiment") or d.name),
                esc(data.get("title")),
                f"{h.get('claims_held', 0)} / {h.get('claims_total', 0)}",
                f"{h.get('numbers_within_10', 0)} / {h.get('numbers_total', 0)}",
                f"{h.get('numbers_within_25', 0)} / {h.get('numbers_total', 0)}",
                "-" if ok is None else _mark(bool(ok), "ok", "unexplained stall"),
            ]
        )
    header = [
        "experiment",
        "title",
        "claims held",
        "numbers within 10 %",
        "within 25 %",
        "integrity",
    ]
    page.add("Index", table(header, rows, numeric=[2, 3, 4], raw=range(len(header))))
    for d, data in experiments:
        title = str(data.get("title") or d.name)
        page.add(title, _experiment_body(d, data, page_dir), anchor=anchors[d])
    return page
