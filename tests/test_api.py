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

#: The documented columns of each trace (README, "The traces"), with their dtypes.
TRACE_COLUMNS = {
    "seq": {
        "time_s": "float64",
        "flow": "uint32",
        "offset": "uint64",
        "len": "uint32",
        "retransmission": "bool",
        "ack": "bool",
    },
    "cwnd": {
        "time_s": "float64",
        "flow": "uint32",
        "cwnd_bytes": "uint64",
        "ssthresh_bytes": "UInt64",
    },
    "cc": {
        "time_s": "float64",
        "flow": "uint32",
        "cwnd_bytes": "uint64",
        "ssthresh_bytes": "UInt64",
        "pacing_rate_bps": "UInt64",
        "phase": "uint32",
        "bandwidth_bps": "UInt64",
        "min_rtt_s": "float64",
        "queue_segments": "float64",
        "pacing_gain": "float64",
        "alpha": "float64",
        "beta": "float64",
        "w_max_segments": "float64",
    },
    "rtt": {
        "time_s": "float64",
        "flow": "uint32",
        "sample_s": "float64",
        "srtt_s": "float64",
        "rttvar_s": "float64",
        "rto_s": "float64",
    },
    "wireless_tx": {
        "time_s": "float64",
        "link": "uint32",
        "flow": "uint32",
        "packet_id": "uint64",
        "seq": "uint32",
        "offset": "UInt64",
        "bytes": "uint32",
        "data": "bool",
        "lost": "bool",
    },
    "agent_rtt": {
        "time_s": "float64",
        "flow": "uint32",
        "rtt_s": "float64",
        "timeout_s": "float64",
    },
    "handoff": {
        "time_s": "float64",
        "mobile": "uint32",
        "from": "uint32",
        "to": "uint32",
        "outage_s": "float64",
    },
}


@pytest.fixture(scope="module")
def traced() -> lastmile.RunResult:
    # With Snoop at the base station, so that the agent's own rtt trace has rows too.
    overrides = {**SMALL, "base_station.agent": "snoop"}
    return lastmile.run(example("tulip-basic"), overrides=overrides, traces=lastmile.trace_names())


@pytest.fixture(scope="module")
def moving() -> lastmile.RunResult:
    """The survey's handoff case (``experiments/survey_handoff.toml``): one 1 s handoff."""
    from lastmile.reproduce.framework import EXPERIMENTS_DIR

    path = EXPERIMENTS_DIR / "survey_handoff.toml"
    return lastmile.run(path, overrides={"stop_time": "8s"}, traces=lastmile.trace_names())


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


def test_pcap_without_out_dir_is_an_argument_error() -> None:
    with pytest.raises(lastmile.ArgumentError, match="give out_dir too") as info:
        lastmile.run(example("tulip-basic"), overrides=SMALL, pcap=["wireless"])
    assert info.value.argument == "pcap"


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


def test_every_trace_is_documented() -> None:
    assert set(TRACE_COLUMNS) == set(lastmile.trace_names())


@pytest.mark.parametrize("name", sorted(TRACE_COLUMNS))
def test_trace_dataframes_have_the_documented_columns(
    traced: lastmile.RunResult, moving: lastmile.RunResult, name: str
) -> None:
    frame = (moving if name == "handoff" else traced).trace(name)
    assert isinstance(frame, pd.DataFrame)
    assert {c: str(t) for c, t in frame.dtypes.items()} == TRACE_COLUMNS[name]
    assert list(frame.columns) == list(TRACE_COLUMNS[name])
    assert len(frame) > 0
    assert frame["time_s"].is_monotonic_increasing and frame["time_s"].iloc[0] >= 0
    table = (moving if name == "handoff" else traced).arrow(name)
    assert table.num_rows == len(frame) and table.column_names == list(frame.columns)


def test_a_handoff_is_traced_and_summarised(moving: lastmile.RunResult) -> None:
    h = moving.trace("handoff")
    assert h[["time_s", "mobile", "from", "to", "outage_s"]].values.tolist() == [
        [5.0, 0, 0, 1, 1.0]
    ]
    (m,) = moving.summary["mobiles"]
    assert (m["node"], m["cells"], m["handoffs"], m["outage_s"]) == (
        "mh1",
        ["cell1", "cell2"],
        1,
        1.0,
    )
    assert m["handoff_data_drops"] > 0


def test_cwnd_trace_values(traced: lastmile.RunResult) -> None:
    cwnd = traced.trace("cwnd")
    assert (cwnd["flow"] == 0).all()
    assert (cwnd["cwnd_bytes"] >= 1400).all()  # never below one segment
    assert cwnd["cwnd_bytes"].max() > 1400  # it grew


def test_seq_trace_has_data_and_acks(traced: lastmile.RunResult) -> None:
    seq = traced.trace("seq")
    data = seq[~seq["ack"]]
    assert len(data) > 0 and seq["ack"].any()
    # The highest offset sent covers the last byte of the 200 KB transfer.
    assert int((data["offset"] + data["len"]).max()) >= 200_000
    assert int(data["retransmission"].sum()) == traced.flows.loc[0, "tcp_retransmits"]


def test_rtt_trace_values(traced: lastmile.RunResult) -> None:
    rtt = traced.trace("rtt")
    assert (rtt["srtt_s"] > 0).all() and (rtt["rto_s"] >= 1.0).all()  # RFC 6298 (2.4)
    # A backoff row per timeout: no sample, the RTO as backed off (RFC 6298 (5.5)).
    backoffs = rtt[rtt["sample_s"].isna()]
    assert len(backoffs) == traced.flows.loc[0, "tcp_timeouts"]


def test_sack_ecn_and_red_settings_show_in_the_summary() -> None:
    result = lastmile.run(
        example("chain-per5-newreno"),
        overrides={
            "flow.0.app.bytes": "2MB",  # long enough for RED's average to climb
            "flow.0.tcp.variant": "sack",
            "flow.0.tcp.ecn": True,
            "flow.0.tcp.rwnd": "64KB",
            "topology.wireless.errors": {"model": "none"},
            "topology.wireless.aqm": {"kind": "red", "gentle": True},
        },
    )
    flow = result.flows.loc[0]
    assert flow["variant"] == "sack" and bool(flow["completed"])
    assert flow["tcp_ecn_reductions"] > 0 and flow["tcp_retransmits"] == 0
    hop = result.links[(result.links["from"] == "bs") & (result.links["to"] == "mh")]
    assert int(hop["ce_marks"].iloc[0]) >= flow["tcp_ecn_reductions"]


def test_wireless_tx_trace_agrees_with_the_summary(traced: lastmile.RunResult) -> None:
    tx = traced.trace("wireless_tx")
    wireless = traced.wireless
    assert wireless is not None
    # Both directions of the hop are traced; the summary splits them.
    assert int(tx["data"].sum()) >= wireless["data_frames_sent"]
    assert int(tx["lost"].sum()) == wireless["frames_lost"] + wireless["reverse_frames_lost"]


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


def test_dir_lists_the_public_surface_and_not_the_package_s_own_helpers() -> None:
    public = [name for name in dir(lastmile) if not name.startswith("_")]
    assert public == sorted(name for name in lastmile.__all__ if not name.startswith("_"))
    assert "__version__" in dir(lastmile)
    for helper in ("sys", "importlib", "TYPE_CHECKING", "annotations", "_Package", "_HOMES"):
        assert helper not in dir(lastmile), helper
