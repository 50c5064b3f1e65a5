"""A small HTML page builder for the reports: escaped text, tables, figures inlined as data
URIs, sections with anchors and a table of contents. No JavaScript, no external resource:
the page is one file that opens the same anywhere.
"""

from __future__ import annotations

import base64
import html
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["Page", "esc", "figure_file", "figure_matplotlib", "link", "table"]

_CSS = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2329;
  margin: 0 auto; max-width: 1100px; padding: 1.5em 2em 4em; }
h1 { font-size: 1.7em; margin-bottom: 0.2em; }
h2 { font-size: 1.35em; border-bottom: 1px solid #d0d7de; padding-bottom: 0.2em;
  margin-top: 2em; }
h3 { font-size: 1.1em; margin-top: 1.6em; }
.meta { color: #57606a; font-size: 0.9em; }
nav.toc { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px;
  padding: 0.6em 1.2em; margin: 1em 0; }
nav.toc ul { margin: 0.3em 0; padding-left: 1.2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #d0d7de; padding: 0.3em 0.6em; vertical-align: top; }
th { background: #f6f8fa; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { color: #57606a; font-size: 0.9em; }
blockquote { border-left: 4px solid #d0d7de; margin: 0.4em 0; padding: 0.1em 0.9em;
  color: #424a53; }
.ok { color: #1a7f37; font-weight: 600; }
.bad { color: #cf222e; font-weight: 600; }
.warn { color: #9a6700; font-weight: 600; }
.ok, .bad, .warn { white-space: nowrap; }
.claim { border: 1px solid #d0d7de; border-radius: 6px; padding: 0.5em 1em; margin: 0.8em 0; }
.claim p { margin: 0.3em 0; }
code { background: #f6f8fa; padding: 0.1em 0.3em; border-radius: 4px; }
"""


def esc(text: object) -> str:
    """`text` as HTML text (None as empty)."""
    return "" if text is None else html.escape(str(text), quote=True)


def link(href: str, text: object) -> str:
    return f'<a href="{esc(href)}">{esc(text)}</a>'


def table(
    header: Sequence[str],
    rows: Iterable[Sequence[object]],
    numeric: Iterable[int] = (),
    raw: Iterable[int] = (),
) -> str:
    """A table; columns in `numeric` are right-aligned, cells of columns in `raw` are
    already HTML (everything else is escaped)."""
    numeric, raw = set(numeric), set(raw)
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="num"' if i in numeric else ""
            cells.append(f"<td{cls}>{cell if i in raw else esc(cell)}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _figure(uri: str, caption: str, alt: str) -> str:
    cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f'<figure><img src="{uri}" alt="{esc(alt or caption)}">{cap}</figure>'


def figure_matplotlib(fig: Figure, caption: str = "", alt: str = "") -> str:
    """A matplotlib figure inlined as an SVG data URI."""
    from lastmile.plot import save

    buffer = io.BytesIO()
    save(fig, buffer, "svg")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return _figure(f"data:image/svg+xml;base64,{data}", caption, alt)


_MIME = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg"}


def figure_file(path: Path, caption: str = "", alt: str = "") -> str:
    """An image file inlined as a data URI."""
    mime = _MIME.get(path.suffix.lower(), "application/octet-stream")
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return _figure(f"data:{mime};base64,{data}", caption, alt or path.name)


@dataclass
class _Section:
    anchor: str
    title: str
    level: int
    body: str


@dataclass
class Page:
    """A page: a title, an optional lead paragraph, sections, and a table of contents."""

    title: str
    lead: str = ""
    sections: list[_Section] = field(default_factory=list)
    _anchors: set[str] = field(default_factory=set)

    def anchor(self, text: str) -> str:
        """A unique id for `text` (lower case, words joined by hyphens)."""
        base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
        anchor, n = base, 2
        while anchor in self._anchors:
            anchor, n = f"{base}-{n}", n + 1
        self._anchors.add(anchor)
        return anchor

    def add(self, title: str, body: str, level: int = 2, anchor: str | None = None) -> str:
        """Append a section (its body is HTML); return its anchor."""
        anchor = anchor or self.anchor(title)
        self.sections.append(_Section(anchor, title, level, body))
        return anchor

    def render(self, generator: str) -> str:
        toc = "".join(
            f"<li>{link('#' + s.anchor, s.title)}</li>" for s in self.sections if s.level == 2
        )
        nav = f'<nav class="toc"><strong>Contents</strong><ul>{toc}</ul></nav>' if toc else ""
        body = "".join(
            f'<section id="{esc(s.anchor)}"><h{s.level}>{esc(s.title)}</h{s.level}>'
            f"{s.body}</section>"
            for s in self.sections
        )
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,">'
            f"<title>{esc(self.title)}</title><style>{_CSS}</style></head><body>"
            f'<header><h1>{esc(self.title)}</h1><p class="meta">{esc(generator)}</p>'
            f"{self.lead}</header>{nav}<main>{body}</main></body></html>\n"
        )
