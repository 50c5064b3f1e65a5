"""The report of one run directory (``lastmile run --trace ... --out DIR``, or ``lastmile
plot``): what ran — the command line and the resolved scenario, every key with its default
filled in and its unit (the summary's ``scenario``, written out by the core) — then the
summary as tables — flows, the wireless hop, links, cells, agent, energy — each metric in
one unit named in its header (a table of times in one unit throughout), the standard
pictures drawn from the traces, each captioned with the files it was drawn from, and links
to the directory's files (traces, captures).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lastmile._units import column_format
from lastmile.report.html import Page, esc, figure_matplotlib, link, table

__all__ = ["command_html", "run_page", "scenario_table"]

#: Flow columns shown, with their header stems (units come from the metric names).
_FLOW_COLUMNS = (
    "throughput_bps",
    "completion_s",
    "bytes_delivered",
    "tcp_timeouts",
    "tcp_fast_retransmits",
    "tcp_retransmits",
    "delay_mean_s",
    "delay_std_s",
)


def _leaves(node: Any, path: str) -> list[tuple[str, Any]]:
    """(dotted path, value) of every leaf of a nested document, lists indexed
    (``flow.0.tcp.rwnd``, as ``--set`` writes it)."""
    if isinstance(node, dict):
        return [leaf for k, v in node.items() for leaf in _leaves(v, f"{path}.{k}" if path else k)]
    if isinstance(node, list) and node and all(isinstance(v, dict | list) for v in node):
        return [leaf for i, v in enumerate(node) for leaf in _leaves(v, f"{path}.{i}")]
    return [(path, node)]


def scenario_table(scenario: dict[str, Any]) -> str:
    """The resolved scenario as a two-column table: each key (as ``--set`` names it) and
    its value as the scenario file writes it (units included)."""
    import json

    rows = [
        [key, value if isinstance(value, str) else json.dumps(value)]
        for key, value in _leaves(scenario, "")
    ]
    return table(["key", "value"], rows)


def command_html(commands: list[str]) -> str:
    """Command lines, one per line, as code."""
    return "".join(f"<pre><code>{esc(c)}</code></pre>" for c in commands)


def _what_ran(page: Page, summary: dict[str, Any], run_dir: Path) -> None:
    """The section saying what ran: how to run it again, and the resolved scenario."""
    from lastmile.run_dir import SCENARIO_FILE

    scenario = summary.get("scenario")
    commands = [str(summary["command"])] if summary.get("command") else []
    if (run_dir / SCENARIO_FILE).is_file():
        commands.append(f"lastmile run {run_dir / SCENARIO_FILE}")
    if not commands and not isinstance(scenario, dict):
        return
    body = ""
    if commands:
        body += "<p>Run again with:</p>" + command_html(commands)
    if isinstance(scenario, dict):
        body += (
            "<p>The scenario as run: every key, defaults filled in, with its unit (the "
            f"summary's <code>scenario</code>; <code>{esc(SCENARIO_FILE)}</code> holds the same "
            "as a scenario file).</p>" + scenario_table(scenario)
        )
    page.add("Scenario", body)


def metric_table(
    rows: list[dict[str, Any]],
    labels: dict[str, list[str]],
    columns: list[str],
    *,
    one_unit_per_quantity: bool = False,
) -> str:
    """Rows of metrics after text columns `labels` (header → one cell per row), one unit
    and precision per metric column (header ``name (unit)``); with
    `one_unit_per_quantity`, every column of one quantity (all the times, all the sizes)
    in the same unit and precision, so that the columns add up by eye."""
    formats = {c: column_format(c, [r.get(c) for r in rows]) for c in columns}
    if one_unit_per_quantity:
        from lastmile._units import metric_quantity

        for quantity in {metric_quantity(c) for c in columns} - {None}:
            same = [c for c in columns if metric_quantity(c) == quantity]
            shared = column_format(same[0], [r.get(c) for r in rows for c in same])
            formats.update(dict.fromkeys(same, shared))
    header = [*labels, *(formats[c].header(c) for c in columns)]
    body = [
        [*(cells[i] for cells in labels.values()), *(formats[c](r.get(c)) for c in columns)]
        for i, r in enumerate(rows)
    ]
    return table(header, body, numeric=range(len(labels), len(header)))


def _numbers(record: dict[str, Any]) -> list[str]:
    return [k for k, v in record.items() if isinstance(v, int | float) and not isinstance(v, bool)]


def _key_values(record: dict[str, Any], title: str) -> str:
    formats = {k: column_format(k, [record[k]]) for k in _numbers(record)}
    rows = [[f.header(k), f(record[k])] for k, f in formats.items()]
    words = [f"{k} = {v}" for k, v in record.items() if isinstance(v, str)]
    lead = f"<p>{esc('; '.join(words))}</p>" if words else ""
    return lead + table([title, "value"], rows, numeric=[1])


def _summary_sections(page: Page, summary: dict[str, Any]) -> None:
    engine = summary.get("engine", {})
    flows = summary.get("flows", [])
    sim_s, wall_s = engine.get("sim_time_s"), engine.get("wall_s")
    page.lead = (
        f"<p>{esc(engine.get('stop_reason', '?'))} at "
        f"{esc(f'{sim_s:.3f}' if isinstance(sim_s, float) else sim_s)} s simulated; "
        f"{esc(engine.get('events'))} events in "
        f"{esc(f'{wall_s:.3f}' if isinstance(wall_s, float) else wall_s)} s of wall time.</p>"
    )
    columns = [c for c in _FLOW_COLUMNS if any(c in f for f in flows)]
    labels = {
        "flow": [str(f.get("name")) for f in flows],
        "variant": [str(f.get("variant")) for f in flows],
    }
    page.add("Flows", metric_table(flows, labels, columns))
    wireless = summary.get("wireless")
    if isinstance(wireless, dict):
        page.add("Wireless hop", _key_values(wireless, "metric"))
    links = summary.get("links")
    if isinstance(links, list) and links:
        labels = {
            "link": [str(link.get("name")) for link in links],
            "direction": [f"{link.get('from')} → {link.get('to')}" for link in links],
        }
        page.add("Links", metric_table(links, labels, _numbers(links[0])))
    for cell in summary.get("cells") or []:
        page.add(f"Cell {cell.get('name')}", _key_values(cell, "metric"))
    agent = summary.get("agent")
    if isinstance(agent, dict):
        flat = {k: v for k, v in agent.items() if not isinstance(v, dict)}
        flat.update(
            {
                f"{k}.{kk}": vv
                for k, v in agent.items()
                if isinstance(v, dict)
                for kk, vv in v.items()
            }
        )
        page.add(f"Agent {agent.get('kind')}", _key_values(flat, "metric"))
    energy = summary.get("energy")
    if isinstance(energy, dict):
        nodes = energy.get("nodes") or {}
        head = {k: v for k, v in energy.items() if k != "nodes"}
        page.add(f"Energy ({energy.get('profile')} profile)", _key_values(head, "metric"))
        rows = list(nodes.values())
        if rows:
            labels = {"node": [str(n) for n in nodes]}
            table_html = metric_table(rows, labels, _numbers(rows[0]), one_unit_per_quantity=True)
            page.add("Energy per node", table_html)


def run_page(run_dir: Path, page_dir: Path) -> Page:
    """The page of a run directory; file links are relative to `page_dir`."""
    from lastmile.plot import draw, hop_names, receiver_windows, traces_from_dir
    from lastmile.run_dir import flow_names, read_summary, run_title

    summary: dict[str, Any] = read_summary(run_dir)
    page = Page(f"lastmile run: {run_title(summary)}")
    if summary:
        _what_ran(page, summary, run_dir)
        _summary_sections(page, summary)
    made = draw(
        traces_from_dir(run_dir),
        flow_names=flow_names(summary),
        hops=hop_names(summary),
        rwnd=receiver_windows(summary),
        title=run_title(summary),
    )
    figures = "".join(
        figure_matplotlib(fig, caption=_caption(kind, run_dir))
        for kind, fig in made.figures.items()
    )
    missing = "".join(f"<li>{esc(k)}: {esc(why)}</li>" for k, why in made.missing.items())
    if missing:
        figures += f"<p>Not drawn:</p><ul>{missing}</ul>"
    page.add("Pictures", figures)
    files = sorted(p for p in run_dir.iterdir() if p.suffix in (".parquet", ".pcapng", ".json"))
    items = []
    for p in files:
        rel = _relative(p, page_dir)
        items.append(f"<li>{link(rel, p.name) if rel else esc(p.name)}</li>")
    page.add("Files", f"<ul>{''.join(items)}</ul>" if items else "<p>none</p>")
    return page


def _caption(kind: str, run_dir: Path) -> str:
    """``cwnd (drawn from out/t/cwnd.parquet)``: the trace files the picture was drawn from,
    those that exist."""
    from lastmile.plot import TRACES_FOR

    files = [f"{run_dir.name}/{t}.parquet" for t in TRACES_FOR[kind]]
    found = [
        f
        for f, t in zip(files, TRACES_FOR[kind], strict=True)
        if (run_dir / f"{t}.parquet").is_file()
    ]
    return f"{kind} (drawn from {', '.join(found)})" if found else kind


def _relative(path: Path, page_dir: Path) -> str | None:
    """`path` relative to the page, when it lies under the page's directory."""
    try:
        return path.resolve().relative_to(page_dir.resolve()).as_posix()
    except ValueError:
        return None
