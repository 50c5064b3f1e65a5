"""`lastmile report`: one self-contained HTML page for a run directory, a sweep store and a
`lastmile reproduce` output, checked for content here and in a real headless Chromium
(`browser.py`): no console errors, every image rendered with a non-zero size, every internal
link resolving. Where no browser can be driven the browser checks are skipped, with the
reason printed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import lastmile
from browser import chromium, page_problems, unavailable
from conftest import SMALL, example, lastmile_cli

NO_BROWSER = unavailable()


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    if NO_BROWSER is not None:
        print(f"\nbrowser checks skipped: {NO_BROWSER}")
        pytest.skip(NO_BROWSER)
    yield from chromium()


def report(target: Path, *extra: str) -> Path:
    proc = lastmile_cli("report", str(target), *extra, check=True)
    match = re.search(r"wrote (.+\.html)", proc.stderr)
    assert match, proc.stderr
    return Path(match.group(1))


def images(html: str) -> int:
    return html.count("<img ")


def self_contained(html: str) -> None:
    """Every image is inlined; nothing is fetched from elsewhere."""
    sources = re.findall(r'<img src="([^"]*)"', html)
    assert sources and all(s.startswith("data:image/") for s in sources)
    assert "<script" not in html and "http://" not in html and "https://" not in html


# -- a run directory -------------------------------------------------------------------


@pytest.fixture(scope="module")
def run_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("run") / "tulip"
    lastmile_cli(
        "run", "--example", "tulip-basic", *SMALL, "--trace", "seq", "cwnd", "rtt",
        "wireless_tx", "--pcap", "wireless", "--out", str(out), check=True,
    )  # fmt: skip
    return report(out)


def test_run_report_holds_the_summary_pictures_and_files(run_page: Path) -> None:
    html = run_page.read_text()
    assert run_page.name == "report.html"
    self_contained(html)
    assert images(html) == 5  # seq, cwnd, rtt, wireless, throughput
    assert "tulip-basic (seed 1)" in html
    assert "throughput (kbps)" in html and "goodput_wireless (ratio)" in html
    assert "Energy (ns3 profile)" in html and "Energy per node" in html
    assert 'href="wireless.pcapng"' in html and 'href="summary.json"' in html


def test_a_report_is_byte_identical_when_built_again(run_page: Path, tmp_path: Path) -> None:
    again = report(run_page.parent, "--out", str(tmp_path / "again.html"))
    # The same page, but for its file links (the copy is not beside the run directory).
    strip = re.compile(r"<section id=\"files\">.*?</section>", re.DOTALL)
    assert strip.sub("", again.read_text()) == strip.sub("", run_page.read_text())


def test_run_report_in_a_browser(run_page: Path, driver: Any) -> None:
    assert page_problems(driver, run_page) == []


# -- a sweep store ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def sweep_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("sweep")
    store = tmp / "small.duckdb"
    lastmile.sweep(
        {
            "name": "small",
            "description": "two delays, two variants",
            "scenario": str(example("chain-per5-newreno")),
            "seeds": 2,
            "grid": {"topology.wireless.delay": ["100ms", "20ms"], "flow.0.app.bytes": ["50KB"]},
            "variants": {
                "reno": {"flow.0.tcp.variant": "reno"},
                "tahoe": {"flow.0.tcp.variant": "tahoe"},
            },
        },
        jobs=1,
        store=store,
        progress=False,
    )  # fmt: skip
    return report(store)


def test_sweep_report_holds_the_table_and_a_figure_per_metric(sweep_page: Path) -> None:
    html = sweep_page.read_text()
    assert sweep_page.suffix == ".html" and sweep_page.stem == "small"
    self_contained(html)
    assert "Campaign small" in html and "two delays, two variants" in html
    assert "throughput (kbps)" in html
    # One figure per default metric, drawn against the first axis.
    assert images(html) == 3
    # Unit axes sort by their value: 20ms before 100ms.
    assert html.index("<td>20ms</td>") < html.index("<td>100ms</td>")


def test_sweep_report_in_a_browser(sweep_page: Path, driver: Any) -> None:
    assert page_problems(driver, sweep_page) == []


# -- a reproduce output ------------------------------------------------------------------

QUOTE = "WTCP achieves a throughput 4-8 times that of TCP Tahoe"


def _png(path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 2))
    fig.add_subplot().plot([0, 1], [1, 0])
    fig.savefig(path)


def write_reproduction(root: Path) -> None:
    """A reproduce output in the format of REPRODUCE_JSON.md: one experiment with
    comparison.json, one with only the older comparison.csv."""
    wtcp = root / "wtcp"
    wtcp.mkdir(parents=True)
    _png(wtcp / "fig4.png")
    data = {
        "format": 1, "experiment": "wtcp", "title": "WTCP Figs. 4-6: a test",
        "paper": "K. Ratnam and I. Matta, WTCP", "description": "One paragraph.",
        "differences": "Where we differ.", "mode": "quick", "runs": 12, "wall_s": 1.5,
        "figures": [{"name": "fig4", "caption": "Fig. 4 redrawn", "png": "fig4.png",
                     "svg": "fig4.svg"}],
        "comparisons": [
            {"item": "throughput at 100 ms", "source": "WTCP Fig. 4", "unit": "kbps",
             "paper": 123.0, "ours_mean": 110.0, "ours_ci95": 3.0, "seeds": 10,
             "relative": -0.106, "flag": "10%", "note": "read off the curve"},
            {"item": "no published number", "source": "WTCP §5", "unit": "kbps",
             "paper": None, "ours_mean": 50.0, "ours_ci95": None, "seeds": 10,
             "relative": None, "flag": "", "note": ""},
        ],
        "claims": [
            {"claim": "WTCP is 4-8x Tahoe", "quote": QUOTE, "source": "WTCP §5, Fig. 4",
             "band": "4 <= ratio <= 8", "holds": False, "detail": "ratio 3.2",
             "explanation": "our Tahoe recovers faster"},
            {"claim": "Snoop beats Tahoe", "quote": "Snoop does better", "source": "WTCP §5",
             "band": "ratio > 1", "holds": True, "detail": "ratio 1.4", "explanation": None},
        ],
        "integrity": [{"series": "wtcp/bad=100ms", "mechanism": True, "runs": 10,
                       "stalled": 0, "incomplete": 0, "failed": 0, "explanation": None}],
        "integrity_ok": True,
        "headline": {"claims_held": 1, "claims_total": 2, "numbers_within_10": 0,
                     "numbers_within_25": 1, "numbers_total": 1},
    }  # fmt: skip
    (wtcp / "comparison.json").write_text(json.dumps(data))
    legacy = root / "legacy"
    legacy.mkdir()
    _png(legacy / "table1.png")
    (legacy / "comparison.md").write_text("# Legacy: an older output\n")
    (legacy / "comparison.csv").write_text(
        "kind,item,source,unit,paper,ours_mean,ours_ci95,seeds,difference,relative,holds,detail\n"
        "number,tahoe R10,Survey Table 1,s,283,278,39,4,-5,-0.0177,,\n"
        "claim,transfer time grows,Survey Table 1,,,,,,,,True,40 < 278\n"
    )
    index = {
        "format": 1,
        "experiments": [
            {"experiment": "wtcp", "dir": "wtcp", "title": data["title"],
             "headline": data["headline"], "integrity_ok": True},
            {"experiment": "legacy", "dir": "legacy", "title": "Legacy", "headline": {},
             "integrity_ok": None},
        ],
    }  # fmt: skip
    (root / "index.json").write_text(json.dumps(index))


@pytest.fixture(scope="module")
def reproduce_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reproduce") / "out"
    write_reproduction(root)
    return report(root)


def test_reproduce_report_quotes_claims_and_indexes_experiments(reproduce_page: Path) -> None:
    html = reproduce_page.read_text()
    self_contained(html)
    assert images(html) == 2
    assert QUOTE in html and "4 &lt;= ratio &lt;= 8" in html
    assert "our Tahoe recovers faster" in html and "Where we differ." in html
    # The index links each experiment's section and carries its headline.
    assert 'href="#wtcp-figs-4-6-a-test"' in html and 'id="wtcp-figs-4-6-a-test"' in html
    assert "1 / 2" in html  # claims held
    assert "-10.6 %" in html and "&gt; 10%" in html
    assert "wtcp/bad=100ms" in html  # integrity
    # The csv-only experiment is shown from its csv, titled from comparison.md.
    assert "Legacy: an older output" in html and "From comparison.csv" in html
    assert 'href="wtcp/comparison.json"' in html and 'href="legacy/comparison.csv"' in html


def test_reproduce_report_in_a_browser(reproduce_page: Path, driver: Any) -> None:
    assert page_problems(driver, reproduce_page) == []


def test_report_of_a_real_quick_reproduction(tmp_path: Path, driver: Any) -> None:
    out = tmp_path / "repro"
    proc = lastmile_cli("reproduce", "survey-table1", "--quick", "--out", str(out))
    assert proc.returncode in (0, 1), proc.stderr
    page = report(out, "--out", str(tmp_path / "site" / "index.html"))
    html = page.read_text()
    assert images(html) >= 1 and "survey-table1" in html
    assert page_problems(driver, page) == []


# -- the checker itself, and bad input ---------------------------------------------------


def test_the_browser_check_finds_broken_pages(tmp_path: Path, driver: Any) -> None:
    page = tmp_path / "broken.html"
    page.write_text(
        "<!DOCTYPE html><html><head><link rel='icon' href='data:,'></head><body>"
        "<img src='data:image/png;base64,AAAA' alt='bad'>"
        "<a href='#nowhere'>x</a><a href='missing.csv'>y</a>"
        "<script>console.error('boom')</script></body></html>"
    )
    problems = page_problems(driver, page)
    assert any("boom" in p for p in problems), problems
    assert any("'bad' did not render" in p for p in problems), problems
    assert any("#nowhere" in p for p in problems), problems
    assert any("missing.csv" in p for p in problems), problems


def test_report_of_something_else_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = lastmile_cli("report", str(tmp_path / "empty"))
    assert proc.returncode == 2
    assert "no summary.json or traces" in proc.stderr and "Traceback" not in proc.stderr
    junk = tmp_path / "junk.duckdb"
    junk.write_text("not a database")
    proc = lastmile_cli("report", str(junk))
    assert proc.returncode == 2 and "cannot open the results store" in proc.stderr
