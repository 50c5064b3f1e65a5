"""The report of a sweep results store (``lastmile sweep``): per campaign, what it varied,
the command that runs it and its base scenario as resolved when it ran (every key, defaults
filled in, with units), the table of means with 95 % confidence intervals over seeds
(`lastmile.results`), and each default metric drawn against the campaign's first axis, one
line per variant, the axis labelled with the key's description and unit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lastmile.report.html import Page, esc, figure_matplotlib, table
from lastmile.report.run import command_html, scenario_table

__all__ = ["results_table", "sweep_page"]


def results_table(frame: Any) -> str:
    """A `lastmile.results` frame as HTML: ``mean ± half-width``, one unit per metric."""
    from lastmile._units import column_format
    from lastmile.plot import is_parsed_axis

    means = [c.removesuffix("_mean") for c in frame.columns if c.endswith("_mean")]
    plain = [
        c
        for c in frame.columns
        if not c.endswith(("_mean", "_ci95")) and not is_parsed_axis(frame, c)
    ]
    formats = {m: column_format(m, frame[m + "_mean"]) for m in means}
    rows = []
    for record in frame.to_dict("records"):
        cells = [record[c] for c in plain]
        for m in means:
            mean, ci = formats[m](record[m + "_mean"]), formats[m](record[m + "_ci95"])
            cells.append(mean if ci == "-" else f"{mean} ± {ci}")
        rows.append(cells)
    header = [*plain, *(formats[m].header(m) for m in means)]
    return table(header, rows, numeric=range(len(plain) - 2, len(header)))


def _campaigns(store: Path) -> list[tuple[str, dict[str, Any], list[str]]]:
    """(name, stored sweep, axes in the order the sweep file gave them) per campaign."""
    from lastmile.sweep.store import Store

    with Store(store, read_only=True) as st:
        rows = st.con.execute("SELECT campaign, sweep FROM campaigns ORDER BY 1").fetchall()
        out = []
        for name, sweep in rows:
            try:
                spec = json.loads(sweep) if sweep else {}
            except json.JSONDecodeError:
                spec = {}
            axes = st.campaign_axes([str(name)])
            out.append((str(name), spec if isinstance(spec, dict) else {}, axes))
    return out


def _spec_html(spec: dict[str, Any]) -> str:
    parts = []
    if spec.get("description"):
        parts.append(f"<p>{esc(spec['description'])}</p>")
    for section in ("grid", "zip"):
        axes = spec.get(section) or {}
        if axes:
            rows = [[axis, ", ".join(str(v) for v in values)] for axis, values in axes.items()]
            parts.append(f"<p>[{section}]</p>" + table(["axis", "values"], rows))
    variants = spec.get("variants") or {}
    if variants:
        rows = [
            [name, "; ".join(f"{k} = {v}" for k, v in o.items()) or "-"]
            for name, o in variants.items()
        ]
        parts.append(table(["variant", "overrides"], rows))
    seeds = spec.get("seeds")
    if seeds:
        parts.append(f"<p>seeds: {esc(len(seeds))} ({esc(seeds[0])} to {esc(seeds[-1])})</p>")
    if spec.get("command"):
        parts.append("<p>Run (or resume) it with:</p>" + command_html([str(spec["command"])]))
    base = spec.get("base_scenario")
    if isinstance(base, dict):
        parts.append(
            "<details><summary>The base scenario as run: every key, defaults filled in, "
            "with its unit (each point changes the axes' and its variant's keys)</summary>"
            + scenario_table(base)
            + "</details>"
        )
    return "".join(parts)


def sweep_page(store: Path) -> Page:
    """The page of a results store."""
    from lastmile.plot import results_figure
    from lastmile.sweep import results

    page = Page(f"lastmile sweep: {store.name}")
    for name, spec, axes in _campaigns(store):
        frame = results(store, campaign=name)
        body = _spec_html(spec) + results_table(frame)
        metrics = [c.removesuffix("_mean") for c in frame.columns if c.endswith("_mean")]
        if axes:
            x = axes[0]
            others = [a for a in axes[1:] if a in frame.columns]
            grouped = results(store, campaign=name, group_by=["variant", *others, x])
            for metric in metrics:
                fig = results_figure(grouped, metric, x, title=f"{name}: {metric} vs {x}")
                body += figure_matplotlib(fig, caption=f"mean ± 95 % CI over seeds; {metric}")
        page.add(f"Campaign {name}", body)
    if not page.sections:
        page.add("Campaigns", "<p>The store holds no campaign.</p>")
    return page
