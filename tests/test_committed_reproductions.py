"""`docs/reproductions.md` is what lastmile's code gives now, for the experiments quick
enough to re-run here: each is run in full (`lastmile reproduce NAME --docs`, as `make docs`
runs them all) and its section must equal the committed one, but for the wall time. The
slower experiments (about 180 s of the page's 199) are not re-run in the test suite; the
page is regenerated whole by `lastmile reproduce all --docs`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import lastmile_cli

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "reproductions.md"

#: The experiments whose full run takes a few seconds (the page's wall-time column).
QUICK = ("fec-arq", "survey-handoff", "survey-knobs", "survey-mech", "survey-table1", "wtcp-table2")

#: A run's wall time, which differs from run to run: `(240 runs, 1.6 s)`.
WALL = re.compile(r"(\(\d[\d,]* runs), [\d.]+ s\)")


def section(page: str, name: str) -> str:
    """The section of `page` for experiment `name` (its heading links to `#name`)."""
    anchor = page.index(f"[{name}](#")
    slug = page[anchor:].split("(#", 1)[1].split(")", 1)[0]
    for start in (m.start() for m in re.finditer(r"^## ", page, flags=re.M)):
        heading = page[start : page.index("\n", start)]
        if _slug(heading[3:]) == slug:
            end = page.find("\n## ", start + 3)
            return WALL.sub(r"\1, - s)", page[start : end if end >= 0 else len(page)])
    raise AssertionError(f"no section for {name} ({slug})")


def _slug(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


@pytest.mark.parametrize("name", QUICK)
def test_the_committed_reproduction_is_what_the_code_gives(name: str, tmp_path: Path) -> None:
    proc = lastmile_cli(
        "reproduce", name, "--jobs", "2", "--out", str(tmp_path / "out"), "--docs", str(tmp_path)
    )
    assert proc.returncode in (0, 1), proc.stderr  # 1: a claim does not hold (a finding)
    ours = section((tmp_path / "reproductions.md").read_text(), name)
    committed = section(PAGE.read_text(), name)
    assert ours == committed, (
        f"{name}: docs/reproductions.md is not what the code gives now; regenerate it with "
        "`lastmile reproduce all --docs` (make docs) and commit it"
    )
