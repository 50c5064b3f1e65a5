"""The validation results committed in `validation/results/` (and `docs/validation.md`, made
from them) are what lastmile's code gives now: every point of every family is re-run for
its first seed and each metric must equal the committed one exactly (a run is
deterministic), the modern-CC table (`validation/modern_cc.py`) is made again whole and the
ns-3 cross-check's lastmile columns (`validation/cross_check.py`) are run again. A
change that moves a result fails here until the family is re-run, so that a committed
table never silently describes older code. The reference simulators' halves are not
re-run (they do not change with lastmile's code)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation import suite
from validation.framework import Family

FAMILIES = suite.families()
SEED = 1
ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "validation" / "results"
CROSS_CHECK = RESULTS / "ns3-comparison.json"


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_the_committed_lastmile_outcomes_are_what_the_code_gives(family: Family) -> None:
    points = suite.load_cache(family).get("points", {})
    moved: list[str] = []
    for point in family.points:
        entry = points.get(point.label)
        assert entry is not None, f"{family.name}: {point.label!r} has no committed outcome"
        assert entry.get("fingerprint") == suite.fingerprint(point), (
            f"{family.name}: {point.label!r} was committed with other parameters"
        )
        committed = entry["lastmile"][str(SEED)]["metrics"]
        now = family.run_lastmile(point, SEED).metrics
        changed = {k: (v, now.get(k)) for k, v in committed.items() if now.get(k) != v}
        if changed:
            moved.append(f"{point.label}: {changed}")
    assert not moved, (
        f"{family.name}: {len(moved)} of {len(family.points)} points give other results "
        f"than committed (metric: (committed, now)); re-run them with `python -m "
        f"validation.suite --family {family.name} --rerun lastmile` and commit "
        f"validation/results and docs/validation.md:\n" + "\n".join(moved[:10])
    )


def test_the_committed_modern_cc_table_is_what_the_code_gives() -> None:
    # `validation/modern_cc.py`'s full table (5 seeds, 60 s: about 300 short runs).
    from validation import modern_cc as mcc

    with (RESULTS / "modern-cc.csv").open(newline="") as f:
        committed = list(csv.DictReader(f))
    now = mcc.measure(5, 60.0)
    rerun = "re-run `python validation/modern_cc.py` and commit its outputs"
    assert len(now) == len(committed), rerun
    for old, new in zip(committed, now, strict=True):
        assert {k: str(v) for k, v in new.items()} == old, rerun
    assert mcc.table(now) == (RESULTS / "modern-cc.md").read_text(), rerun


def test_the_committed_ns3_cross_check_rows_are_what_the_code_gives() -> None:
    # `validation/cross_check.py`'s lastmile columns (its default 3 seeds); ns-3's are kept.
    from validation import cross_check as cc

    committed = {row["algorithm"]: row for row in json.loads(CROSS_CHECK.read_text())}
    rerun = "re-run `python validation/cross_check.py --only <cc>` and commit its outputs"
    seeds = range(1, 4)
    for algo in cc.ALGOS:
        row = committed[algo.label]
        clean = cc.lastmile_run(algo, cc.CLEAN, 1)
        per1 = [cc.lastmile_run(algo, cc.PER1, k) for k in seeds]
        now = {
            "lm_clean_bps": clean["throughput_bps"],
            "lm_clean_queue": clean.get("mean_queue_packets"),
            "lm_per1_bps": cc.mean_of(list(per1), "throughput_bps"),
            "lm_per1_sent": cc.mean_of(list(per1), "packets_sent"),
        }
        if "lm_long_bps" in row:
            long = [cc.lastmile_run(algo, cc.LONG, k) for k in seeds]
            now["lm_long_bps"] = cc.mean_of(list(long), "throughput_bps")
        assert {k: row[k] for k in now} == now, f"{algo.label}: {rerun}"
