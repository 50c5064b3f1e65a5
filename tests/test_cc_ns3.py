"""The `cc_ns3` validation family (`validation/families/cc_ns3.py`): its contract with the
suite, and its smoke point in lastmile, so that the harness cannot rot. The ns-3 side runs in
the suite's own smoke test where ns-3 is installed (`python -m validation.suite --smoke`)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import lastmile

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
cc_ns3 = importlib.import_module("validation.families.cc_ns3")


def test_every_point_is_unique_and_every_explanation_names_a_point_or_a_series() -> None:
    family = cc_ns3.FAMILY
    labels = [p.label for p in family.points]
    assert len(labels) == len(set(labels)) == 7 * 2 * 5
    series = {p.series for p in family.points}
    for key in family.explanations:
        assert key in labels or key in series, key
    assert all(p.target == 0.20 for p in family.points)


def test_both_sides_read_the_same_path_and_settings() -> None:
    point = next(p for p in cc_ns3.FAMILY.points if p.label == "Illinois, path B, PER 0.02")
    scenario = cc_ns3.lastmile_scenario(point, 3)
    request = cc_ns3.ns3_request(point, 3)
    wired, hop = scenario["topology"]["wired"], scenario["topology"]["wireless"]
    assert (wired["rate"], wired["delay"]) == (request["wired_rate"], request["wired_delay"])
    assert (hop["rate"], hop["delay"]) == (request["hop_rate"], request["hop_delay"])
    assert hop["queue"] == f"{request['queue']}pkt" == wired["queue"]
    assert hop["errors"] == {"model": "per", "per": request["per"]}
    tcp = scenario["flow"][0]["tcp"]
    assert tcp["mss"] == f"{request['mss']}B" and tcp["initial_window"] == request["iw"]
    assert (tcp["recovery"], tcp["prr"], tcp["cc"]) == ("sack", True, "illinois")
    assert request["recovery"] == "TcpPrrRecovery" and request["cc"] == "TcpIllinois"
    assert request["attrs"] == {"ns3::TcpIllinois::WinThresh": "21000"}
    # The scenario is valid as written.
    lastmile.Scenario.from_text(json.dumps(scenario), "json")


def test_the_smoke_point_runs_in_lastmile() -> None:
    smoke = cc_ns3.FAMILY.smoke
    outcome = cc_ns3.FAMILY.run_lastmile(smoke, 1)
    assert outcome.metrics["completed"] == 1.0
    # 1 MB over a 10 Mb/s hop losing 2 % of its packets: well above nothing, below the hop.
    assert 0.5 < outcome.metrics["throughput_mbps"] < 9.71
    assert outcome.engine_s is not None and outcome.wall_s >= outcome.engine_s
