"""The radios' energy as the user sees it: the ``energy`` block of ``lastmile run`` (text and
JSON), the ``[energy]`` profile and powers, and the ns-2 joules the survey-onoff
reproduction derives from the state times (docs/models/energy.md)."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd
import pytest

from conftest import SMALL, lastmile_cli, run_json
from lastmile.reproduce.experiments import survey_onoff
from lastmile.sweep import flatten_summary

CHAIN = ("--example", "chain-per5-newreno", *SMALL)
NS3_W_STATES = ("transmit", "receive", "idle", "sleep")
NS3_W = {"transmit_w": 1.14, "receive_w": 0.939, "idle_w": 0.819, "sleep_w": 0.099}


def _joules(node: dict[str, Any], powers: dict[str, float]) -> float:
    return float(sum(node[f"{state}_s"] * powers[f"{state}_w"] for state in NS3_W_STATES))


def test_the_chain_radios_fill_the_run_at_the_ns3_powers() -> None:
    summary = run_json(*CHAIN)
    energy = summary["energy"]
    assert energy["profile"] == "ns3"
    assert {k: energy[k] for k in NS3_W} == NS3_W
    assert sorted(energy["nodes"]) == ["bs", "mh"]
    run_s = summary["engine"]["sim_time_s"]
    for node in energy["nodes"].values():
        assert sum(node[f"{s}_s"] for s in NS3_W_STATES) == pytest.approx(run_s, abs=1e-6)
        assert node["total_j"] == pytest.approx(_joules(node, NS3_W), rel=1e-12)
    delivered = sum(f["bytes_delivered"] for f in summary["flows"])
    assert energy["joules_per_mb"] == pytest.approx(energy["total_j"] / (delivered / 1e6))


def test_the_ns2_profile_charges_airtime_only_and_a_setting_replaces_one_power() -> None:
    ns2 = run_json(*CHAIN, "--set", "energy.profile=ns2", "--set", "energy.receive_w=0.5")
    energy = ns2["energy"]
    assert (energy["transmit_w"], energy["receive_w"], energy["idle_w"]) == (0.66, 0.5, 0.0)
    for node in energy["nodes"].values():
        assert node["idle_j"] == 0.0 and node["idle_s"] > 0
        assert node["total_j"] == pytest.approx(
            0.66 * node["transmit_s"] + 0.5 * node["receive_s"], rel=1e-12
        )


def test_run_prints_the_energy_block_with_one_row_per_radio() -> None:
    text = lastmile_cli("run", *CHAIN, check=True).stdout
    summary = run_json(*CHAIN)
    head = re.search(r"energy \(ns3 profile: transmit 1.14 W.*total ([0-9.]+) J", text)
    assert head is not None, text
    assert float(head.group(1)) == pytest.approx(summary["energy"]["total_j"], abs=1e-3)
    rows = {line.split()[0]: line.split() for line in text.splitlines()[-2:]}
    assert set(rows) == {"bs", "mh"}
    for name, cells in rows.items():
        assert float(cells[5]) == pytest.approx(
            summary["energy"]["nodes"][name]["total_j"], abs=1e-3
        )


def test_bad_energy_profile_is_one_line_with_exit_2() -> None:
    proc = lastmile_cli("run", *CHAIN, "--set", "energy.profile=ns4")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "ns4" in proc.stderr


def test_survey_onoff_ns2_joules_match_a_run_with_the_ns2_profile() -> None:
    args = ("--example", "chain-per5-newreno", *SMALL)
    ns3 = flatten_summary(run_json(*args))
    ns2 = run_json(*args, "--set", "energy.profile=ns2")
    derived = survey_onoff._ns2_joules(pd.DataFrame([ns3]))["energy_ns2_j"].iloc[0]
    assert derived == pytest.approx(ns2["energy"]["total_j"], rel=1e-12)
