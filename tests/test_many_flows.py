"""Many flows in one scenario through Python: the store's ``flows`` table
(one row per flow of every run), the fairness columns of ``runs``, ``lastmile results
--flows``, and the fairness table ``lastmile run`` prints.

The runs are real (the core), small: a few flows to the mobiles of a ``wlan`` cell.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

import lastmile
from lastmile import cli
from lastmile.sweep import flatten_summary, results, sweep
from lastmile.sweep.runner import MAX_FLOW_COLUMNS, flow_records, to_table
from lastmile.sweep.store import Store

CELL = """
name = "cell"
seed = 1
stop_time = "30s"
[topology]
preset = "wlan"
mobiles = 3
wired = { rate = "10Mbps", delay = "1ms" }
wireless = { rate = "11Mbps", mac = { kind = "dcf", phy = "802.11b" } }
[[flow]]
name = "down"
count = 3
src = "fh"
dst = "mh*"
stagger = "50ms"
app = { kind = "bulk", bytes = "30KB" }
"""

SWEEP = """
name = "fair"
scenario = "cell.toml"
seeds = 2
[grid]
"flow.0.count" = [2, 3]
"""


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    (tmp_path / "cell.toml").write_text(CELL)
    path = tmp_path / "fair.toml"
    path.write_text(SWEEP)
    return path


def test_a_sweep_stores_one_flows_row_per_flow_with_the_run_summary_values(
    campaign: Path, tmp_path: Path
) -> None:
    store = tmp_path / "fair.duckdb"
    runs = sweep(campaign, jobs=1, store=store, progress=False)
    assert list(runs["status"]) == ["ok"] * 4
    flows = results(store, flows=True)
    # 2 seeds x (2 + 3 flows), ordered by axis, seed, flow.
    assert len(flows) == 10
    assert list(flows["flow.0.count"]) == [2] * 4 + [3] * 6
    assert list(flows["flow"]) == [0, 1, 0, 1, 0, 1, 2, 0, 1, 2]
    assert list(flows["name"][4:7]) == ["down.1", "down.2", "down.3"]
    assert list(flows["dst"][4:7]) == ["mh1", "mh2", "mh3"]
    assert set(flows["group"]) == {"down"}

    one = lastmile.run(str(tmp_path / "cell.toml"), seed=int(flows["seed"][4])).summary
    mine = flows[(flows["flow.0.count"] == 3) & (flows["seed"] == flows["seed"][4])]
    assert list(mine["throughput_bps"]) == [f["throughput_bps"] for f in one["flows"]]
    assert list(mine["tcp_retransmits"]) == [f["tcp_retransmits"] for f in one["flows"]]
    stored = runs[(runs["flow.0.count"] == 3) & (runs["seed"] == flows["seed"][4])]
    assert stored["fairness_jain_index"].item() == one["fairness"]["jain_index"]
    assert stored["groups_down_flows"].item() == 3


def test_results_flows_on_the_command_line_lists_every_flow(
    campaign: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "fair.duckdb"
    sweep(campaign, jobs=1, store=store, progress=False)
    assert cli.main(["results", str(store), "--flows"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 11, lines  # header + 10 flows
    assert "throughput_bps" in lines[0] and "down.3" in "\n".join(lines)
    assert cli.main(["results", str(store), "--flows", "--runs"]) == 2
    assert "choose one of runs" in capsys.readouterr().err


def fake_summary(n: int) -> dict[str, Any]:
    """A summary of `n` flows with throughputs 1..n bps."""
    flows = [
        {"name": f"f.{i}", "group": "f", "src": "a", "dst": "b", "variant": "newreno",
         "throughput_bps": float(i + 1), "tcp_timeouts": i, "last_delivery_s": None}
        for i in range(n)
    ]  # fmt: skip
    total = n * (n + 1) / 2
    squares = n * (n + 1) * (2 * n + 1) / 6
    jain = total**2 / (n * squares)
    return {
        "name": "fake",
        "seed": 1,
        "flows": flows,
        "groups": {"f": {"flows": n, "jain_index": jain}},
        "fairness": {"flows": n, "jain_index": jain},
    }


def test_a_run_of_many_flows_keeps_them_out_of_the_runs_columns() -> None:
    few = flatten_summary(fake_summary(MAX_FLOW_COLUMNS))
    assert f"flow{MAX_FLOW_COLUMNS - 1}_throughput_bps" in few
    many = flatten_summary(fake_summary(MAX_FLOW_COLUMNS + 1))
    assert not any(k.startswith("flow") for k in many), sorted(many)
    # (1 + ... + 17)² / (17 · (1² + ... + 17²)) = 153² / (17 · 1785)
    assert many["fairness_jain_index"] == pytest.approx(153**2 / (17 * 1785), rel=1e-15)
    assert many["groups_f_flows"] == MAX_FLOW_COLUMNS + 1
    records = flow_records(fake_summary(MAX_FLOW_COLUMNS + 1))
    assert [r["flow"] for r in records] == list(range(MAX_FLOW_COLUMNS + 1))
    assert records[-1]["throughput_bps"] == MAX_FLOW_COLUMNS + 1


def test_a_run_stored_again_replaces_its_flows(tmp_path: Path) -> None:
    key: dict[str, list[Any]] = {
        "campaign": ["c"],
        "point_key": ["p"],
        "seed": [1],
        "code_version": ["v"],
    }
    rows: dict[str, list[Any]] = {"variant": ["x"], "status": ["ok"]}

    def batch(n: int) -> Any:
        return to_table([{**key, **rows, "flows": [flow_records(fake_summary(n))]}])

    with Store(tmp_path / "s.duckdb") as st:
        st.insert(batch(3))
        st.insert(batch(2))  # the key is stored: the batch replaces the run
    with duckdb.connect(str(tmp_path / "s.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
        got = con.execute("SELECT flow, throughput_bps FROM flows ORDER BY flow").fetchall()
        assert got == [(0, 1.0), (1, 2.0)]


def test_lastmile_run_prints_jains_index_per_group_and_over_all_flows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cell.toml"
    path.write_text(CELL)
    assert cli.main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    summary = lastmile.run(str(path)).summary
    jain = summary["fairness"]["jain_index"]
    assert 0.0 < jain <= 1.0
    assert "fairness (Jain's index" in out
    rows = [line.split() for line in out.splitlines() if line.startswith(("down ", "all flows"))]
    assert [r[0] for r in rows] == ["down", "all"]
    assert rows[0][1:4] == ["3", "3", f"{jain:.4f}"]
    assert rows[1][2:5] == ["3", "3", f"{jain:.4f}"]


def test_one_flow_beside_background_flows_is_stored_unprefixed() -> None:
    summary = fake_summary(3)
    summary["flows"][2]["group"] = "measured"
    summary["groups"] = {"f": {"flows": 2, "background": True}, "measured": {"flows": 1}}
    flat = flatten_summary(summary)
    assert flat["throughput_bps"] == 3.0 and flat["tcp_timeouts"] == 2
    summary["groups"]["f"]["background"] = False
    assert "throughput_bps" not in flatten_summary(summary)


def test_results_report_fairness_by_default_and_a_mean_for_runs_of_many_flows(
    campaign: Path, tmp_path: Path
) -> None:
    store = tmp_path / "fair.duckdb"
    sweep(campaign, jobs=1, store=store, progress=False)
    table = results(store)
    assert {"flow0_throughput_bps_mean", "fairness_jain_index_mean"} <= set(table.columns)
    many = tmp_path / "many.toml"
    many.write_text(SWEEP.replace('"flow.0.count" = [2, 3]', '"flow.0.count" = [17]'))
    many_store = tmp_path / "many.duckdb"
    runs = sweep(many, jobs=1, store=many_store, progress=False)
    assert not any(c.startswith("flow0_") for c in runs.columns)
    table = results(many_store)
    assert {"fairness_throughput_bps_mean_mean", "fairness_jain_index_mean"} <= set(table.columns)
    assert len(results(many_store, flows=True)) == 2 * 17


def test_run_result_groups_is_one_row_per_group_with_its_jain_index(tmp_path: Path) -> None:
    path = tmp_path / "cell.toml"
    path.write_text(CELL)
    result = lastmile.run(str(path))
    groups = result.groups
    assert list(groups["group"]) == ["down"]
    assert groups["jain_index"].item() == result.summary["fairness"]["jain_index"]
    assert groups["throughput_bps_mean"].item() == result.flows["throughput_bps"].mean()
    assert list(result.flows["group"]) == ["down"] * 3
    one = CELL.replace("count = 3", "count = 1").replace('dst = "mh*"', 'dst = "mh1"')
    path.write_text(one)
    assert lastmile.run(str(path)).groups.empty


def test_scenario_flow_count_is_the_expanded_number_of_flows() -> None:
    assert lastmile.Scenario.from_text(CELL).flow_count == 3
    # Without `count`, one flow per node the pattern matches.
    no_count = CELL.replace("count = 3\n", "")
    assert lastmile.Scenario.from_text(no_count).flow_count == 3
    one = CELL.replace("count = 3\n", "").replace('dst = "mh*"', 'dst = "mh2"')
    assert lastmile.Scenario.from_text(one).flow_count == 1
