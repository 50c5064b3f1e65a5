"""``lastmile reproduce``: every experiment's ``--quick`` run, its claims, integrity and reports.

One module-scoped fixture runs every experiment quickly (well under a minute on two cores)
through the same `lastmile.reproduce.reproduce` the command uses; the tests then read its
claims, integrity rows, figures and report files. What they hold the reproductions to:

- every claim quotes its paper verbatim (checked against the seed text when the seeds are
  on this machine) and states its band; a failing claim carries an explanation;
- the integrity check runs on every series, and no mechanism's series stalls;
- ``comparison.md`` / ``.csv`` / ``.json`` and ``index.json`` say the same, in the shape of
  ``REPRODUCE_JSON.md``; numbers are flagged beyond 10 % and 25 %;
- the command documents and returns its exit statuses (3 when the integrity check fails).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import re
from pathlib import Path

import pandas as pd
import pytest

from conftest import lastmile_cli
from lastmile.reproduce import Campaign, Outcome, Stat, catalogue, reproduce
from lastmile.reproduce.framework import Comparison, Data
from lastmile.reproduce.integrity import check, integrity_ok
from lastmile.reproduce.report import headline, headline_text

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: The seed documents the quotes come from (the specification, outside the repository).
SEEDS = Path("/work/shared/seeds")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    out = tmp_path_factory.mktemp("reproduce")
    return {
        name: reproduce(exp, out, quick=True, jobs=2, progress=False)
        for name, exp in catalogue().items()
    }


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _seed_text(seed: str) -> str | None:
    files = sorted(SEEDS.glob(f"{seed}_*.txt")) if SEEDS.is_dir() else []
    return _normalise(files[0].read_text()) if files else None


@pytest.mark.parametrize("name", list(catalogue()))
def test_every_claim_quotes_its_paper_and_states_its_band(
    outcomes: dict[str, Outcome], name: str
) -> None:
    outcome = outcomes[name]
    claims = outcome.context.claims
    assert len([c for c in claims if not c.calibration]) >= 1, f"{name} checks no claim"
    seed = outcome.experiment.seed
    assert seed, f"{name} names no seed document"
    text = _seed_text(seed)
    quotes = [c.quote for c in claims] + [n.quote for n in outcome.experiment.not_claims]
    for c in claims:
        assert len(c.quote) > 20 and c.band, c.claim
    for quote in quotes:
        if text is None:
            continue
        for part in quote.split(" [...] "):
            assert _normalise(part) in text, f"{name}: not verbatim in seed {seed}: {part!r}"


@pytest.mark.parametrize("name", list(catalogue()))
def test_a_failing_claim_carries_an_explanation(outcomes: dict[str, Outcome], name: str) -> None:
    for c in outcomes[name].context.claims:
        if c.holds:
            assert c.explanation is None, c.claim
        else:
            assert c.explanation and len(c.explanation) > 40, f"{name}: {c.claim} unexplained"


@pytest.mark.parametrize("name", list(catalogue()))
def test_integrity_covers_every_series_and_no_mechanism_stalls(
    outcomes: dict[str, Outcome], name: str
) -> None:
    outcome = outcomes[name]
    rows = outcome.context.integrity
    variants = {
        f"{c.name}/{v}" for c in outcome.experiment.campaigns(True) for v in c.variants or ["base"]
    }
    assert {r.series for r in rows} == variants
    assert all(r.stalled is not None for r in rows), "the core reports no liveness check"
    unsound = [r for r in rows if not r.ok]
    assert not unsound, unsound
    assert outcome.integrity_ok


@pytest.mark.parametrize("name", list(catalogue()))
def test_figures_are_valid_png_and_svg(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    assert outcome.context.figures, f"{name} draws no figure"
    for figure, caption in outcome.context.figures:
        assert "bars" in caption, f"{name}: the caption must say what the bars are: {caption}"
        png = outcome.out_dir / f"{figure}.png"
        svg = outcome.out_dir / f"{figure}.svg"
        data = png.read_bytes()
        assert data.startswith(PNG_SIGNATURE), png
        assert len(data) > 1024, png
        text = svg.read_text()
        assert "<svg" in text[:2000] and text.rstrip().endswith("</svg>"), svg


@pytest.mark.parametrize("name", list(catalogue()))
def test_reports_agree_and_follow_the_json_format(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    ctx = outcome.context
    md = (outcome.out_dir / "comparison.md").read_text()
    report = json.loads((outcome.out_dir / "comparison.json").read_text())
    h = report["headline"]
    assert headline_text(h) in md
    counted = [c for c in ctx.claims if not c.calibration]
    assert h["claims_total"] == len(counted)
    assert h["claims_held"] == sum(c.holds for c in counted)
    assert h["numbers_total"] == sum(c.counted for c in ctx.comparisons)
    assert report["format"] == 1 and report["experiment"] == name
    assert report["mode"] == "quick" and report["runs"] == outcome.runs
    assert report["integrity_ok"] == outcome.integrity_ok
    for key in ("title", "paper", "description", "differences", "wall_s", "figures"):
        assert key in report
    for c in report["comparisons"]:
        assert set(c) >= {"item", "source", "unit", "paper", "ours_mean", "ours_ci95", "seeds"}
        assert c["flag"] in ("", "10%", "25%")
        if c["paper"] not in (None, 0):
            assert c["relative"] == pytest.approx((c["ours_mean"] - c["paper"]) / c["paper"])
    for c in report["claims"]:
        assert set(c) >= {"claim", "quote", "source", "band", "holds", "detail", "explanation"}
    for r in report["integrity"]:
        assert set(r) >= {"series", "mechanism", "runs", "stalled", "incomplete", "failed"}
    with (outcome.out_dir / "comparison.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert sum(r["kind"] == "number" for r in rows) == len(ctx.comparisons)
    assert sum(r["kind"] == "claim" for r in rows) == len(ctx.claims)
    assert sum(r["kind"] == "integrity" for r in rows) == len(ctx.integrity)
    index = json.loads((outcome.out_dir.parent / "index.json").read_text())
    assert name in {e["experiment"] for e in index["experiments"]}


def test_each_published_number_is_counted_once_per_paper(outcomes: dict[str, Outcome]) -> None:
    seen: dict[tuple[str, str], str] = {}
    for name, outcome in outcomes.items():
        for c in outcome.context.comparisons:
            if not c.counted:
                continue
            key = (outcome.experiment.seed, c.ref)
            assert key not in seen, f"{name}: {c.ref!r} already counted by {seen[key]}"
            seen[key] = name


def test_calibration_numbers_and_claims_are_left_out_of_the_headline(
    outcomes: dict[str, Outcome],
) -> None:
    ctx = outcomes["survey-table1"].context
    roles = {c.item: c.role for c in ctx.comparisons}
    assert roles["tahoe error-free"] == roles["reno R86"] == "calibration"
    assert roles["newreno R50"] == "measure"
    h = headline(outcomes["survey-table1"])
    assert h["numbers_total"] == 9 and h["calibration_claims"] == 1


def test_numbers_are_flagged_beyond_ten_and_twenty_five_percent() -> None:
    def flag(paper: float | None, ours: float) -> str:
        return Comparison("x", "s", "u", paper, Stat(ours, 0.0, 1)).flag

    assert flag(100.0, 110.0) == ""
    assert flag(100.0, 89.0) == "10%"
    assert flag(100.0, 125.0) == "10%"
    assert flag(100.0, 74.0) == "25%"
    assert flag(None, 5.0) == ""
    assert flag(0.0, 0.0) == "" and flag(0.0, 0.4) == "25%"


def _runs(rows: list[dict[str, object]]) -> pd.DataFrame:
    base = {"status": "ok", "error": None, "completed": True, "stalled": False}
    return pd.DataFrame([{**base, "seed": i + 1, **r} for i, r in enumerate(rows)])


def test_integrity_fails_on_an_unexplained_mechanism_stall_or_a_failed_run() -> None:
    campaign = Campaign(
        "c", "x.toml", 2, variants={"tcp": {}, "agent": {}}, mechanisms=("agent",), metrics=()
    )
    stalled_tcp = _runs([{"variant": "tcp", "stalled": True}, {"variant": "agent"}])
    assert integrity_ok(check(Data(campaign, stalled_tcp)))  # a baseline may stall
    stalled_agent = _runs([{"variant": "tcp"}, {"variant": "agent", "stalled": True}])
    rows = check(Data(campaign, stalled_agent))
    assert not integrity_ok(rows)
    assert [r.stalled for r in rows] == [0, 1] and "seed 2: stalled" in rows[1].where
    shown = dataclasses.replace(campaign, paper_stalls={"agent": "Fig. 9: it stops"})
    assert integrity_ok(check(Data(shown, stalled_agent)))
    failed = _runs([{"variant": "tcp", "status": "failed", "error": "boom"}, {"variant": "agent"}])
    assert not integrity_ok(check(Data(campaign, failed)))
    incomplete = _runs([{"variant": "tcp"}, {"variant": "agent", "completed": False}])
    rows = check(Data(campaign, incomplete))
    assert integrity_ok(rows) and rows[1].incomplete == 1


def test_integrity_counts_a_run_of_several_flows_stalled_when_any_measured_flow_stalled() -> None:
    # Runs of several flows have no unprefixed columns, only per flow: flow 1 stalls in seed
    # 2 (a measured flow: the run stalled), flow 2 in seed 1 (background: it does not count).
    campaign = Campaign("c", "x.toml", 2, variants={"agent": {}}, mechanisms=("agent",), metrics=())
    base = {"status": "ok", "error": None, "variant": "agent", "groups_bg_background": True}
    flows = {"flow0_group": "m", "flow1_group": "m", "flow2_group": "bg"}
    runs = pd.DataFrame(
        [
            {**base, **flows, "seed": 1, "flow0_stalled": False, "flow1_stalled": False},
            {**base, **flows, "seed": 2, "flow0_stalled": False, "flow1_stalled": True},
        ]
    ).assign(
        flow2_stalled=[True, False],
        flow1_longest_stall_s=[0.0, 41.0],
        flow2_longest_stall_s=[50.0, 0.0],
        groups_m_background=False,
    )
    rows = check(Data(campaign, runs))
    assert rows[0].stalled == 1 and not integrity_ok(rows)
    assert "seed 2: stalled 41 s" in rows[0].where


def test_integrity_reads_several_flows_from_their_columns_in_a_store_shared_with_one_flow() -> None:
    # The store's table holds every experiment's columns: a run of several flows has empty
    # unprefixed `stalled` / `completed` (another experiment's), which must not read as
    # "never stalled" and "incomplete".
    campaign = Campaign("c", "x.toml", 2, variants={"agent": {}}, mechanisms=("agent",), metrics=())
    base = {"status": "ok", "error": None, "variant": "agent", "stalled": None, "completed": None}
    runs = pd.DataFrame(
        [
            {**base, "seed": 1, "flow0_stalled": False, "flow0_completed": True},
            {**base, "seed": 2, "flow0_stalled": True, "flow0_completed": False},
        ]
    ).assign(flow0_longest_stall_s=[0.0, 35.0])
    finite = dataclasses.replace(campaign, finite=True)
    rows = check(Data(finite, runs))
    assert rows[0].stalled == 1 and rows[0].incomplete == 1, rows[0]
    assert not integrity_ok(rows)


def test_survey_error_free_transfer_takes_forty_seconds(outcomes: dict[str, Outcome]) -> None:
    data = outcomes["survey-table1"].context["table1"]
    for variant in ("tahoe", "reno", "newreno"):
        assert data.value("completion_s", variant, per=0.0).mean == pytest.approx(40.0, rel=0.02)


def test_fec_arq_fec_costs_the_codes_rate_on_a_clean_channel(
    outcomes: dict[str, Outcome],
) -> None:
    # RS(63,47): every frame's airtime grows by 63/47 (plus its last block's padding); the
    # transfer's propagation and slow start do not, so TCP's goodput falls a little less.
    data = outcomes["fec-arq"].context["clean"]
    none = data.value("goodput_kbps", "none", ber=0.0).mean
    fec = data.value("goodput_kbps", "fec", ber=0.0).mean
    assert 0.9 * 47 / 63 < fec / none < 47 / 63


def test_fec_arq_arq_over_fec_survives_what_neither_survives_alone(
    outcomes: dict[str, Outcome],
) -> None:
    data = outcomes["fec-arq"].context["fading"]
    both = data.value("goodput_kbps", "fec+arq", ber=1e-2).mean
    alone = max(data.value("goodput_kbps", v, ber=1e-2).mean for v in ("fec", "arq"))
    assert both > 5.0 * alone and both > 5.0


def test_lle_delayed_ack_reno_matches_the_papers_baseline(outcomes: dict[str, Outcome]) -> None:
    data = outcomes["lle-fig5"].context["fig5"]
    where = {"mss": "1460B", "rts": "2347B", "stop": "12s"}
    delayed = data.value("steady_bps", "reno_delayed", **where).mean / 1e6
    every = data.value("steady_bps", "reno_every", **where).mean / 1e6
    lle = data.value("steady_bps", "lle", **where).mean / 1e6
    assert delayed == pytest.approx(5.08, rel=0.05)  # the paper's Reno at 1500 B
    assert every < 0.9 * 5.08 < delayed < lle


def test_wtcp_ns_integer_rto_has_the_papers_two_tick_floor() -> None:
    import numpy as np

    from lastmile.reproduce.experiments.wtcp import ns_integer_rto

    # A steady one-tick RTT at a 300 ms clock: "always 900 ms (i.e. 3 clock ticks)".
    assert ns_integer_rto(np.full(50, 0.3), 0.3)[-1] == pytest.approx(0.9)
    # 220 ms at a 100 ms clock: srtt 2 ticks, the scaled deviation stuck at 3 (from 4, as
    # 3 >> 2 == 0): 5 ticks, the paper's "500-700 ms".
    assert ns_integer_rto(np.full(50, 0.22), 0.1)[-1] == pytest.approx(0.5)


def test_listing_names_every_experiment() -> None:
    proc = lastmile_cli("reproduce", check=True)
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert names == list(catalogue())
    expected = {"survey-table1", "survey-onoff", "survey-knobs", "wtcp", "tulip-exp1"}
    assert expected | {"tulip-exp5a", "lle-fig5", "lle-fig7"} <= set(names)


def test_help_documents_the_exit_statuses() -> None:
    proc = lastmile_cli("reproduce", "--help", check=True)
    text = " ".join(proc.stdout.split())
    assert "exit status:" in text
    for status in ("0 every claim holds", "1 some claim", "2 bad input", "3 the integrity"):
        assert status in text, status


def test_unknown_experiment_exits_2_with_one_line() -> None:
    proc = lastmile_cli("reproduce", "no-such-experiment")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "no-such-experiment" in lines[0] and "survey-table1" in lines[0]


def test_command_exit_status_and_reports(tmp_path: Path) -> None:
    proc = lastmile_cli(
        "reproduce", "survey-table1", "--quick", "--jobs", "1", "--out", str(tmp_path)
    )
    report = json.loads((tmp_path / "survey-table1" / "comparison.json").read_text())
    h = report["headline"]
    expected = (
        3 if not report["integrity_ok"] else (0 if h["claims_held"] == h["claims_total"] else 1)
    )
    assert proc.returncode == expected, proc.stderr
    assert (tmp_path / "store.duckdb").is_file()
    assert re.search(rf"claims: {h['claims_held']} of {h['claims_total']} hold", proc.stdout)
    index = json.loads((tmp_path / "index.json").read_text())
    assert [e["experiment"] for e in index["experiments"]] == ["survey-table1"]
    bad = lastmile_cli("reproduce", "survey-table1", "--jobs", "0")
    assert bad.returncode == 2


def test_import_lastmile_does_not_load_matplotlib() -> None:
    import subprocess
    import sys

    code = "import sys, lastmile, lastmile.reproduce; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
