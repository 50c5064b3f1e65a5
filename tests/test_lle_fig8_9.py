"""LLE-TCP Figs. 8-9 (``lastmile reproduce lle-fig8-9``): the zero-point rule and the set-up.

The experiment's full run is covered by ``test_reproduce.py`` (its ``--quick`` run, claims
quoted from the seed, integrity). Here: the rule that turns a throughput curve into "the PER
where it reaches zero" (LLE-TCP §4.4: "degrade their performance down to zero for
PER = 0.32"), and the six TCP versions §4.4 names, each with and without LLE-TCP.
"""

from __future__ import annotations

import math

import pytest

from lastmile.reproduce.experiments import lle_fig8_9 as exp
from lastmile.reproduce.framework import EXPERIMENTS_DIR


def test_zero_point_is_interpolated_between_the_points_around_the_threshold() -> None:
    # 10 Mbps error-free, threshold 1: crossed between 0.30 (2.0) and 0.34 (0.0).
    cut = exp.cutoff([0.0, 0.2, 0.3, 0.34], [10.0, 5.0, 2.0, 0.0], 1.0)
    assert cut == pytest.approx(0.32)


def test_a_curve_that_never_falls_below_the_threshold_has_no_zero_point() -> None:
    assert math.isinf(exp.cutoff([0.0, 0.2, 0.4], [10.0, 8.0, 6.0], 1.0))


def test_a_curve_below_the_threshold_from_the_start_is_zero_at_the_first_point() -> None:
    assert exp.cutoff([0.0, 0.1], [0.5, 0.2], 1.0) == 0.0


def test_the_six_versions_of_section_4_4_run_with_and_without_lle_tcp() -> None:
    assert set(exp.NAMES.values()) == {"Reno", "NewReno", "Westwood", "FAST", "SACK", "Illinois"}
    plain = {v for v in exp.VARIANTS if not v.startswith("lle_")}
    assert {f"lle_{v}" for v in plain} == set(exp.VARIANTS) - plain
    for v, o in exp.VARIANTS.items():
        assert (o.get("base_station.agent") == "lle") == v.startswith("lle_")
    assert exp.VARIANTS["sack"]["flow.0.tcp.recovery"] == "sack"
    assert exp.VARIANTS["fast"]["flow.0.tcp.cc"] == "fast"


def test_the_infrastructure_scenario_is_the_papers() -> None:
    import lastmile

    s = lastmile.load(EXPERIMENTS_DIR / exp.SCENARIO).to_dict()
    assert s["topology"]["wired"]["rate"] == "100Mbps"
    assert s["topology"]["wired"]["delay"] == "5ms"
    assert s["topology"]["wireless"]["queue"] == "700pkt"
