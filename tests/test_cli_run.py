"""`lastmile run` on the built-in examples: the JSON shape, sane values, overrides,
determinism across processes, traces and pcap files."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from conftest import EXAMPLES, SMALL, example, lastmile_cli, run_json, without_wall_time

FLOW_KEYS = {
    "throughput_bps",
    "completion_s",
    "last_delivery_s",
    "longest_stall_s",
    "stalled",
    "stall_threshold_s",
    "bytes_delivered",
    "tcp_timeouts",
    "tcp_fast_retransmits",
    "tcp_retransmits",
    "delay_mean_s",
    "delay_std_s",
}
WIRELESS_KEYS = {"frames_sent", "frames_lost", "goodput_wireless", "goodput_bytes", "redundant_tx"}
ENGINE_KEYS = {"events", "sim_time_s", "wall_s"}

#: Per example: extra arguments keeping the run short, and whether every flow completes.
CASES: dict[str, tuple[tuple[str, ...], bool]] = {
    "tulip-basic": (SMALL, True),
    "chain-per5-newreno": (SMALL, True),
    "wtcp-fading": (("--set", "stop_time=20s"), False),
    "explicit-topology": (
        ("--set", "flow.0.app.bytes=300KB", "--set", "flow.1.app.bytes=50KB"),
        True,
    ),
    "tulip-fama": (SMALL, True),
    "lle-adhoc": (SMALL, True),
    "cells-handoff": (("--set", "stop_time=30s"), False),
    "snoop-side-by-side": (
        ("--set", "flow.0.app.bytes=300KB", "--set", "flow.1.app.bytes=300KB"),
        True,
    ),
}


def test_every_example_has_a_case() -> None:
    assert set(CASES) == set(EXAMPLES)


def check_shape(summary: dict[str, Any]) -> None:
    assert {"name", "seed", "flows", "wireless", "engine"} <= set(summary)
    assert summary["flows"], "no flows"
    for flow in summary["flows"]:
        assert set(flow) >= FLOW_KEYS, FLOW_KEYS - set(flow)
    assert set(summary["wireless"]) >= WIRELESS_KEYS
    assert set(summary["engine"]) >= ENGINE_KEYS


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_json_shape_and_values(name: str) -> None:
    args, completes = CASES[name]
    summary = run_json("--example", name, *args)
    check_shape(summary)
    assert summary["name"] == name
    for flow in summary["flows"]:
        assert flow["throughput_bps"] > 0
        assert flow["bytes_delivered"] > 0
        assert flow["completion_s"] > 0
        assert flow["delay_mean_s"] > 0 and flow["delay_std_s"] >= 0
        assert flow["tcp_retransmits"] >= flow["tcp_fast_retransmits"]
        assert flow["stalled"] is False, flow
        assert 0 <= flow["longest_stall_s"] < flow["stall_threshold_s"]
        if completes:
            assert flow["completed"] is True
            assert flow["bytes_delivered"] == flow["bytes_total"]
    engine = summary["engine"]
    assert engine["events"] > 0 and engine["sim_time_s"] > 0 and engine["wall_s"] >= 0
    wireless = summary["wireless"]
    assert 0 <= wireless["frames_lost"] <= wireless["frames_sent"]
    assert 0.0 < wireless["goodput_wireless"] <= 1.0
    assert 0.0 < wireless["goodput_bytes"] <= 1.0


def test_tulip_basic_delivers_exactly_the_app_bytes_at_a_plausible_rate() -> None:
    summary = run_json("--example", "tulip-basic", *SMALL)
    (flow,) = summary["flows"]
    assert flow["bytes_delivered"] == 200_000
    assert flow["variant"] == "reno"
    # Never faster than the 1 Mbps wireless hop.
    assert 0 < flow["throughput_bps"] < 1e6
    # BER 15e-6 on ~1480-byte frames: PER ~0.16, so losses occur and goodput is below 1.
    assert summary["wireless"]["frames_lost"] > 0
    assert 0.6 < summary["wireless"]["goodput_wireless"] < 0.98


def test_wtcp_fading_runs_to_its_stop_time() -> None:
    summary = run_json("--example", "wtcp-fading", "--set", "stop_time=20s")
    (flow,) = summary["flows"]
    assert flow["completed"] is False
    assert summary["engine"]["stop_reason"] == "stop_time"
    assert summary["engine"]["sim_time_s"] == pytest.approx(20.0, abs=1e-6)
    assert 0 < flow["throughput_bps"] < 800e3


def test_zero_ber_override_loses_no_frames() -> None:
    summary = run_json(
        "--example", "tulip-basic", *SMALL, "--set", "topology.wireless.errors.ber=0"
    )
    assert summary["wireless"]["frames_lost"] == 0
    assert summary["wireless"]["goodput_wireless"] == 1.0
    (flow,) = summary["flows"]
    assert flow["tcp_retransmits"] == 0 and flow["tcp_timeouts"] == 0


def test_variant_override_changes_the_result() -> None:
    base = run_json("--example", "chain-per5-newreno", *SMALL)
    tahoe = run_json("--example", "chain-per5-newreno", *SMALL, "--set", "flow.0.tcp.variant=tahoe")
    assert base["flows"][0]["variant"] == "newreno"
    assert tahoe["flows"][0]["variant"] == "tahoe"
    assert without_wall_time(base)["flows"] != without_wall_time(tahoe)["flows"]


def test_seed_option_replaces_the_seed_and_changes_losses() -> None:
    one = run_json("--example", "tulip-basic", *SMALL)
    two = run_json("--example", "tulip-basic", *SMALL, "--seed", "2")
    assert one["seed"] == 1 and two["seed"] == 2
    assert without_wall_time(one) != without_wall_time({**two, "seed": 1})


@pytest.mark.parametrize("name", ["tulip-basic", "explicit-topology"])
def test_runs_are_deterministic_across_processes(name: str) -> None:
    args = CASES[name][0]
    first = run_json("--example", name, *args)
    second = run_json("--example", name, *args)
    assert without_wall_time(first) == without_wall_time(second)


def test_scenario_file_argument_equals_example(tmp_path: Path) -> None:
    by_name = run_json("--example", "tulip-basic", *SMALL)
    by_path = run_json(str(example("tulip-basic")), *SMALL)
    assert without_wall_time(by_name) == without_wall_time(by_path)


def test_human_summary_has_units_in_headers() -> None:
    proc = lastmile_cli("run", "--example", "tulip-basic", *SMALL, check=True)
    out = proc.stdout
    assert "tulip-basic" in out
    assert "throughput (kbps)" in out or "throughput (Mbps)" in out
    for header in ("time (s)", "delivered (B)", "timeouts", "delay mean (s)"):
        assert header in out
    assert "200000" in out
    assert "goodput_wireless" in out
    assert proc.stderr == ""


def test_human_summary_names_each_flows_loss_recovery_and_congestion_control() -> None:
    proc = lastmile_cli(
        "run",
        "--example",
        "tulip-basic",
        *SMALL,
        "--set",
        'flow.0.tcp={recovery="sack", cc="cubic"}',
        check=True,
    )
    header, row = proc.stdout.splitlines()[2:4]
    assert header.split()[:3] == ["flow", "recovery", "cc"]
    assert row.split()[1:3] == ["sack", "cubic"]


def test_trace_option_writes_parquet_files(tmp_path: Path) -> None:
    out = tmp_path / "traces"
    proc = lastmile_cli(
        "run", "--example", "tulip-basic", *SMALL, "--json",
        "--trace", "cwnd", "seq", "--trace", "wireless_tx", "--out", str(out), check=True,
    )  # fmt: skip
    json.loads(proc.stdout)
    for name in ("cwnd", "seq", "wireless_tx"):
        path = out / f"{name}.parquet"
        assert f"wrote {path}" in proc.stderr
        table = pq.read_table(path)
        assert table.num_rows > 0 and table.num_columns >= 2
    assert not (out / "rtt.parquet").exists()


def pcapng_link_type(path: Path) -> int:
    """The link type of the first interface of a pcapng file (checked to be pcapng)."""
    data = path.read_bytes()
    block_type, shb_len, magic = struct.unpack_from("<III", data, 0)
    assert (block_type, magic) == (0x0A0D0D0A, 0x1A2B3C4D), f"not pcapng: {data[:12].hex()}"
    idb_type, _len, link_type = struct.unpack_from("<IIH", data, shb_len)
    assert idb_type == 1, "an interface description block after the section header"
    return int(link_type)


def test_pcap_option_writes_a_raw_ip_pcapng(tmp_path: Path) -> None:
    out = tmp_path / "cap"
    proc = lastmile_cli(
        "run", "--example", "tulip-basic", *SMALL, "--pcap", "wireless", "--out", str(out),
        check=True,
    )  # fmt: skip
    path = out / "wireless.pcapng"
    assert f"wrote {path}" in proc.stderr
    assert pcapng_link_type(path) == 101  # LINKTYPE_RAW: packets start with the IPv4 header
    assert path.stat().st_size > 200  # headers and at least one record with IP + TCP


def test_pcap_default_directory_is_out_slash_scenario_name(tmp_path: Path) -> None:
    proc = lastmile_cli(
        "run", "--example", "tulip-basic", *SMALL, "--pcap", "wireless", cwd=tmp_path, check=True
    )
    path = Path("out") / "tulip-basic" / "wireless.pcapng"
    assert f"wrote {path}" in proc.stderr
    assert pcapng_link_type(tmp_path / path) == 101


def test_throughput_is_consistent_with_bytes_and_time() -> None:
    # The flow starts at 0 s and completes: its window runs to its last delivery.
    summary = run_json("--example", "chain-per5-newreno", *SMALL)
    (flow,) = summary["flows"]
    assert flow["completed"] and not flow["stalled"]
    expected = flow["bytes_delivered"] * 8 / flow["last_delivery_s"]
    assert math.isclose(flow["throughput_bps"], expected, rel_tol=1e-9)
    # completion_s runs from the first byte sent, after the handshake.
    assert flow["completion_s"] < flow["last_delivery_s"]


def test_a_stalled_flow_is_warned_about_on_stderr() -> None:
    # The hop goes dead (ON/OFF, certain loss once ON) well before the 100 s run ends.
    proc = lastmile_cli(
        "run",
        "--example",
        "chain-per5-newreno",
        "--set",
        "stop_time=100s",
        "--set",
        'topology.wireless.errors={model="on_off", mean_off="2s", mean_on="100000s", on_loss=1.0}',
        check=True,
    )
    (warning,) = [line for line in proc.stderr.splitlines() if "stalled" in line]
    assert warning.startswith("lastmile: warning: flow 'fh-mh-0' stalled: no progress for ")
    assert "threshold 30.0 s" in warning
