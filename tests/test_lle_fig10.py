"""LLE-TCP Fig. 10 and Table 4 (``lastmile reproduce lle-fig10``): the set-up of §4.4's
multi-flow runs.

The experiment's run is covered by ``test_reproduce.py`` (its ``--quick`` run, claims quoted
from the seed, integrity). Here: the two scenarios ("no LLE-TCP enabled (Scenario 1)" and
"LLE-TCP enabled for 5 out of 10 evaluated flows (Scenario 2)") for the six TCP versions, and
a short run of Scenario 2 in which only the five LLE-TCP flows' ACKs stay off the air.
"""

from __future__ import annotations

from typing import Any

import lastmile
from lastmile.reproduce.experiments import lle_fig10 as exp
from lastmile.reproduce.experiments.lle_fig8_9 import TCPS
from lastmile.reproduce.framework import EXPERIMENTS_DIR

SCENARIO = EXPERIMENTS_DIR / exp.SCENARIO


def test_table_4_versions_run_in_both_scenarios() -> None:
    assert set(exp.PAPER) == set(TCPS)
    assert set(exp.VARIANTS) == {f"s{n}_{t}" for n in (1, 2) for t in TCPS}
    for v, o in exp.VARIANTS.items():
        lle = o.get("base_station.agent") == "lle"
        assert lle == v.startswith("s2_")
        if lle:
            assert o["base_station.lle.mobiles"] == ["mh1", "mh2", "mh3", "mh4", "mh5"]
        # Both entries (the LLE-TCP group and the plain one) run the same version.
        assert o["flow.0.tcp.cc"] == o["flow.1.tcp.cc"]
        assert o["flow.0.tcp.recovery"] == o["flow.1.tcp.recovery"]
    assert exp.PAPER["illinois"] == (0.68, 0.68)


def test_ten_flows_to_ten_mobiles_in_two_groups_of_five() -> None:
    s = lastmile.load(SCENARIO).to_dict()
    assert s["topology"]["mobiles"] == 10
    assert s["topology"]["wireless"]["queue"] == "700pkt"
    # Figs. 8-9's settings: ns-2's RTS/CTS before every frame, a window that never binds.
    assert s["topology"]["wireless"]["mac"]["rts_threshold"] == "0B"
    assert all(f["tcp"]["rwnd"] == "1000000B" for f in s["flow"])
    dsts = [f["dst"] for f in s["flow"]]
    assert dsts == [[f"mh{i}" for i in range(1, 6)], [f"mh{i}" for i in range(6, 11)]]
    assert [f["name"] for f in s["flow"]] == ["lle", "tcp"]


def _scenario_2(seconds: int) -> dict[str, Any]:
    overrides = {**exp.VARIANTS["s2_reno"], "stop_time": f"{seconds}s"}
    return lastmile.run(SCENARIO, overrides=overrides).summary


def test_scenario_2_keeps_only_the_lle_flows_acks_off_the_air() -> None:
    summary = _scenario_2(4)
    groups = summary["groups"]
    assert set(groups) == {"lle", "tcp"}
    assert all(g["throughput_bps_mean"] > 0 for g in groups.values())
    lle = summary["agent"]["lle"]
    # Generated ACKs for the LLE-TCP flows, the plain flows' own ACKs on the air: about as
    # many of each (every flow gets the same share of the air).
    assert lle["acks_generated"] > 0 and lle["tcp_ack_frames_on_air"] > 0
    assert 0.5 < lle["acks_generated"] / lle["tcp_ack_frames_on_air"] < 2.0
