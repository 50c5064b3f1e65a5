"""The typed Python API: `load`, `Scenario`, `run`, `RunResult`'s DataFrames, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import lastmile
from conftest import edit_example, example, without_wall_time
from lastmile import _core

SMALL = {"flow.0.app.bytes": "200KB"}
TRACE_DTYPES = {"float64", "uint64", "uint32", "bool"}


@pytest.fixture(scope="module")
def traced() -> lastmile.RunResult:
    return lastmile.run(example("tulip-basic"), overrides=SMALL, traces=lastmile.trace_names())


def test_load_gives_a_typed_normalised_scenario() -> None:
    path = example("tulip-basic")
    s = lastmile.load(path)
    assert isinstance(s, lastmile.Scenario)
    assert s.name == "tulip-basic" and s.seed == 1 and s.path == path
    assert s.nodes == ("fh", "bs", "mh") and s.links == ("wired", "wireless")
    assert s.flow_count == 1
    d = s.to_dict()
    assert d["flow"][0]["tcp"]["variant"] == "reno"
    d["name"] = "changed"
    assert s.name == "tulip-basic", "to_dict must return a copy"
    assert json.loads(s.to_json())["name"] == "tulip-basic"
    assert "tulip-basic" in repr(s)


def test_overrides_as_mapping_or_strings() -> None:
    path = example("tulip-basic")
    by_map = lastmile.load(path, {"flow.0.tcp.variant": "tahoe", "seed": 9})
    by_list = lastmile.load(path, ["flow.0.tcp.variant=tahoe", "seed=9"])
    assert by_map.to_dict() == by_list.to_dict()
    assert by_map.seed == 9 and by_map.to_dict()["flow"][0]["tcp"]["variant"] == "tahoe"
    nested = lastmile.load(path, {"topology.wireless.errors": {"model": "per", "per": 0.1}})
    assert nested.to_dict()["topology"]["wireless"]["errors"] == {"model": "per", "per": 0.1}


def test_scenario_from_text_yaml() -> None:
    text = lastmile.load(example("explicit-topology")).to_json()
    s = lastmile.Scenario.from_text(text, "json", origin="mem")
    assert s.name == "explicit-topology" and len(s.nodes) == 4 and s.flow_count == 2
    y = lastmile.Scenario.from_text(
        "name: y\ntopology: {preset: chain, wired: {rate: 10Mbps}, wireless: {rate: 1Mbps}}\n"
        "flow: [{src: fh, dst: mh, app: {kind: bulk, bytes: 1MB}}]\n",
        "yaml",
    )
    assert y.name == "y" and y.seed == 1


def test_scenario_error_attributes(tmp_path: Path) -> None:
    path = edit_example(tmp_path, "tulip-basic", 'rwnd = "42KB"', 'rwnd = "42 furlongs"')
    with pytest.raises(lastmile.ScenarioError) as info:
        lastmile.load(path)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.file == str(path)
    assert e.path == "flow[0].tcp.rwnd"
    assert e.value == '"42 furlongs"'
    assert "size" in e.expected
    assert e.message == str(e)
    assert str(path) in str(e) and "flow[0].tcp.rwnd" in str(e)
    assert lastmile.ScenarioError is _core.ScenarioError


def test_scenario_error_hint(tmp_path: Path) -> None:
    path = edit_example(tmp_path, "tulip-basic", 'variant = "reno"', 'varient = "reno"')
    with pytest.raises(lastmile.ScenarioError) as info:
        lastmile.load(path)
    assert info.value.path == "flow[0].tcp.varient"
    assert info.value.hint is not None and "variant" in info.value.hint


def test_missing_file_is_a_scenario_error(tmp_path: Path) -> None:
    with pytest.raises(lastmile.ScenarioError) as info:
        lastmile.load(tmp_path / "missing.toml")
    assert info.value.file == str(tmp_path / "missing.toml") and info.value.path == ""


def test_unknown_format_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="format"):
        lastmile.Scenario.from_text("", "ini")  # type: ignore[arg-type]


def test_run_requires_out_dir_for_pcap() -> None:
    with pytest.raises(ValueError, match="out_dir"):
        lastmile.run(example("tulip-basic"), pcap=["wireless"])


def test_native_surface() -> None:
    assert _core.version() == lastmile.__version__ == _core.__version__
    assert _core.trace_names() == lastmile.trace_names()
    assert {"seq", "cwnd", "rtt", "wireless_tx"} <= set(lastmile.trace_names())
    with pytest.raises(ValueError, match="exactly one"):
        _core.run()
    assert issubclass(_core.SimulationError, RuntimeError)


# ---- runs (need the simulator) --------------------------------------------------------


def test_run_path_and_scenario_agree() -> None:
    by_path = lastmile.run(example("tulip-basic"), overrides=SMALL)
    by_obj = lastmile.run(lastmile.load(example("tulip-basic"), SMALL))
    assert without_wall_time(by_path.summary) == without_wall_time(by_obj.summary)
    assert by_path.name == "tulip-basic" and by_path.seed == 1
    assert json.loads(by_path.to_json()) == by_path.summary


def test_run_seed_argument() -> None:
    r = lastmile.run(example("tulip-basic"), seed=5, overrides=SMALL)
    assert r.seed == 5 and r.summary["seed"] == 5


def test_flows_dataframe_columns_and_dtypes(traced: lastmile.RunResult) -> None:
    flows = traced.flows
    assert isinstance(flows, pd.DataFrame)
    assert list(flows.columns[: len(lastmile.FLOW_COLUMNS)]) == list(lastmile.FLOW_COLUMNS)
    assert len(flows) == 1
    for column, dtype in lastmile.FLOW_COLUMNS.items():
        if dtype == "str":
            assert pd.api.types.is_string_dtype(flows[column]), column
        else:
            assert str(flows[column].dtype) == dtype, (column, flows[column].dtype)
    row = flows.iloc[0]
    assert row["name"] and row["src"] == "fh" and row["dst"] == "mh" and row["variant"] == "reno"
    assert row["bytes_delivered"] == 200_000 and bool(row["completed"])
    assert row["throughput_bps"] > 0


def test_links_dataframe(traced: lastmile.RunResult) -> None:
    links = traced.links
    assert set(links["name"]) >= {"wired", "wireless"}
    assert str(links["frames_sent"].dtype) == "int64"
    assert (links["frames_sent"] > 0).all()


@pytest.mark.parametrize("name", ["cwnd", "seq", "rtt", "wireless_tx"])
def test_trace_dataframes(traced: lastmile.RunResult, name: str) -> None:
    frame = traced.trace(name)
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) > 0 and len(frame.columns) >= 2
    assert {str(t) for t in frame.dtypes} <= TRACE_DTYPES
    time = frame.iloc[:, 0]
    assert str(time.dtype) == "float64"
    assert time.is_monotonic_increasing and time.iloc[0] >= 0
    table = traced.arrow(name)
    assert table.num_rows == len(frame) and table.column_names == list(frame.columns)


def test_wireless_tx_trace_agrees_with_the_summary(traced: lastmile.RunResult) -> None:
    frame = traced.trace("wireless_tx")
    bool_columns = [c for c in frame.columns if str(frame[c].dtype) == "bool"]
    assert bool_columns, "wireless_tx records whether each frame was lost"
    assert traced.wireless is not None
    assert int(frame[bool_columns[0]].sum()) <= traced.wireless["frames_lost"] + traced.summary[
        "wireless"
    ].get("reverse_frames_lost", 0)


def test_unrecorded_trace_is_a_key_error_listing_recorded_ones() -> None:
    r = lastmile.run(example("tulip-basic"), overrides=SMALL, traces=["cwnd"])
    assert r.trace_names == ("cwnd",)
    with pytest.raises(KeyError, match="recorded: cwnd") as info:
        r.trace("seq")
    assert "seq" in str(info.value)
    with pytest.raises(KeyError, match="nope"):
        r.trace("nope")


def test_run_releases_results_without_traces_by_default() -> None:
    r = lastmile.run(example("tulip-basic"), overrides=SMALL)
    assert r.trace_names == ()
    assert r.engine["events"] > 0
