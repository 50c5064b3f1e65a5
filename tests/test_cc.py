"""The congestion controls from Python: `tcp.cc` in a scenario, the flows' `cc` column, the
`cc` trace's state columns (docs/congestion-control.md)."""

from __future__ import annotations

import pytest

import lastmile
from conftest import example


def _run(cc: str, *extra: str) -> lastmile.RunResult:
    # The example names `variant = "newreno"`, which implies cc = "reno": replace the table.
    tcp = f'{{ mss = "1400B", rwnd = "42KB", recovery = "newreno", cc = "{cc}" }}'
    overrides = ["flow.0.app.bytes=300KB", f"flow.0.tcp={tcp}", *extra]
    return lastmile.run(example("chain-per5-newreno"), overrides=overrides, traces=["cc"])


def test_the_flows_cc_column_names_the_congestion_control() -> None:
    result = _run("cubic")
    assert result.flows["cc"].tolist() == ["cubic"]
    assert result.flows["variant"].tolist() == ["newreno"]


def test_bbr_traces_its_state_machine_and_pacing_rate() -> None:
    cc = _run("bbr").trace("cc")
    phases = set(cc["phase"].tolist())
    assert {2, 3, 4} <= phases, "startup, drain and probe_bw"
    assert cc["pacing_rate_bps"].notna().any()
    assert cc["bandwidth_bps"].max() <= 1_000_000
    assert cc["pacing_gain"].dropna().isin([2.885, 1 / 2.885, 1.25, 0.75, 1.0]).all()
    assert cc["queue_segments"].isna().all(), "BBR keeps no queue estimate"


@pytest.mark.parametrize(
    ("cc", "column"),
    [
        ("vegas", "queue_segments"),
        ("veno", "queue_segments"),
        ("westwood_plus", "bandwidth_bps"),
        ("illinois", "alpha"),
        ("cubic", "w_max_segments"),
        ("fast", "queue_segments"),
        ("santa_cruz", "queue_segments"),
    ],
)
def test_each_algorithm_traces_its_own_estimate(cc: str, column: str) -> None:
    frame = _run(cc).trace("cc")
    assert frame[column].notna().any(), f"{cc} records {column}"
    assert (frame["cwnd_bytes"] >= 1400).all()


def test_settings_of_another_algorithm_are_refused() -> None:
    with pytest.raises(lastmile.ScenarioError, match=r"tcp\.cc\.alpha: unknown key"):
        _run("cubic", "flow.0.tcp.cc.alpha=2")


def test_an_old_per_algorithm_table_is_refused_with_its_cc_table() -> None:
    with pytest.raises(lastmile.ScenarioError, match=r'write cc = \{ kind = "vegas", alpha = 2 \}'):
        _run("cubic", "flow.0.tcp.vegas.alpha=2")
