"""``lastmile reproduce``: every experiment's ``--quick`` run checks its paper's claims.

One module-scoped fixture runs every experiment quickly (about 20 s in all on two cores)
through the same `lastmile.reproduce.reproduce` the command uses; the tests then read its
claim results, figures and comparison files. Claims our model does not reproduce are listed
in `KNOWN_FAILURES` with the reason: they are asserted to *fail*, so a change that makes one
hold shows up here and the list (and `docs/reproductions.md`) must be updated.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from conftest import lastmile_cli
from lastmile.reproduce import Outcome, catalogue, reproduce

#: (experiment, start of the claim text) → why it does not hold in our model.
KNOWN_FAILURES = {
    ("tulip-exp1", "Snoop: zero TCP timeouts"): "lost ACKs leave Snoop only its timer",
    ("tulip-exp1", "TCP alone is unhurt below 0.5"): "no LL loses ~5 % at 0.5 per million",
    ("tulip-exp1", "at BER 15 TCP alone has done"): "no LL at ~7 % instead of 30 %",
    ("tulip-exp1", "TULIP's mean delay is below"): "at 42 KB TULIP keeps the window queued",
    ("tulip-exp5b", "TCP alone is fine at 0.01"): "fades alone stall TCP with a 500 ms clock",
    ("wtcp", "P = 0.01: rewriting the timestamp"): "fast retransmit hides the RTO difference",
}

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    out = tmp_path_factory.mktemp("reproduce")
    return {
        name: reproduce(exp, out, quick=True, jobs=2, progress=False)
        for name, exp in catalogue().items()
    }


def _known(experiment: str, claim: str) -> str | None:
    for (name, start), why in KNOWN_FAILURES.items():
        if name == experiment and claim.startswith(start):
            return why
    return None


@pytest.mark.parametrize("name", list(catalogue()))
def test_quick_run_checks_the_papers_claims(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    claims = outcome.context.claims
    assert claims, f"{name} checks no claim"
    unexpected = [
        f"{c.claim}: {c.detail}" for c in claims if not c.holds and _known(name, c.claim) is None
    ]
    assert not unexpected, "claims that fail:\n" + "\n".join(unexpected)
    fixed = [c.claim for c in claims if c.holds and _known(name, c.claim) is not None]
    assert not fixed, f"known failures that now hold (update KNOWN_FAILURES and docs): {fixed}"


def test_every_known_failure_is_a_real_claim(outcomes: dict[str, Outcome]) -> None:
    for name, start in KNOWN_FAILURES:
        assert any(c.claim.startswith(start) for c in outcomes[name].context.claims), start


@pytest.mark.parametrize("name", list(catalogue()))
def test_figures_are_valid_png_and_svg(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    assert outcome.context.figures, f"{name} draws no figure"
    for figure, _caption in outcome.context.figures:
        png = outcome.out_dir / f"{figure}.png"
        svg = outcome.out_dir / f"{figure}.svg"
        data = png.read_bytes()
        assert data.startswith(PNG_SIGNATURE), png
        assert len(data) > 1024, png
        text = svg.read_text()
        assert "<svg" in text[:2000] and text.rstrip().endswith("</svg>"), svg


@pytest.mark.parametrize("name", list(catalogue()))
def test_comparison_puts_published_numbers_beside_ours(
    outcomes: dict[str, Outcome], name: str
) -> None:
    outcome = outcomes[name]
    md = (outcome.out_dir / "comparison.md").read_text()
    assert "| item | source | unit | paper | ours | difference | note |" in md
    with (outcome.out_dir / "comparison.csv").open() as f:
        rows = list(csv.DictReader(f))
    numbers = [r for r in rows if r["kind"] == "number"]
    claims = [r for r in rows if r["kind"] == "claim"]
    assert len(numbers) == len(outcome.context.comparisons) > 0
    assert len(claims) == len(outcome.context.claims)
    assert all(r["ours_mean"] not in ("", "nan") for r in numbers)


def test_survey_error_free_transfer_takes_forty_seconds(outcomes: dict[str, Outcome]) -> None:
    data = outcomes["survey-table1"].context["table1"]
    for variant in ("tahoe", "reno", "newreno"):
        assert data.value("completion_s", variant, per=0.0).mean == pytest.approx(40.0, rel=0.02)


def test_lle_delayed_ack_reno_matches_the_papers_baseline(outcomes: dict[str, Outcome]) -> None:
    data = outcomes["lle-fig5"].context["fig5"]
    where = {"mss": "1460B", "rts": "2347B", "stop": "12s"}
    delayed = data.value("steady_bps", "reno_delayed", **where).mean / 1e6
    every = data.value("steady_bps", "reno_every", **where).mean / 1e6
    lle = data.value("steady_bps", "lle", **where).mean / 1e6
    assert delayed == pytest.approx(5.08, rel=0.05)  # the paper's Reno at 1500 B
    assert every < 0.9 * 5.08 < delayed < lle


def test_lle_fig7_transfers_complete(outcomes: dict[str, Outcome]) -> None:
    data = outcomes["lle-fig7"].context["fig7"]
    done = data.runs[data.runs["stop"] == "1000s"]
    assert data.failed == 0 and len(done) > 0
    assert (done["bytes_delivered"] == done["bytes_total"]).all()


def test_listing_names_every_experiment() -> None:
    proc = lastmile_cli("reproduce", check=True)
    names = [line.split()[0] for line in proc.stdout.splitlines()]
    assert names == list(catalogue())
    assert {"survey-table1", "wtcp", "tulip-exp1", "tulip-exp5a", "lle-fig5", "lle-fig7"} <= set(
        names
    )


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
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "survey-table1" / "comparison.md").is_file()
    assert (tmp_path / "store.duckdb").is_file()
    assert "5/5 claims hold" in proc.stdout
    bad = lastmile_cli("reproduce", "survey-table1", "--jobs", "0")
    assert bad.returncode == 2


def test_import_lastmile_does_not_load_matplotlib() -> None:
    import subprocess
    import sys

    code = "import sys, lastmile, lastmile.reproduce; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
