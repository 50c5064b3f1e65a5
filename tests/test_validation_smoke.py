"""The validation suite cannot rot: each family's smoke point runs once in lastmile and, when
its reference simulator is installed here, in the reference (ns-2.35 or ns-3.44); otherwise
the reference half is skipped with the reason. The full comparison is `make validate`, not
CI. Also the suite's bookkeeping: verdicts and the sharing of reference runs."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from validation import refs, report, suite
from validation.framework import Family, Outcome, Point, Setting

FAMILIES = suite.families()


def _check(family: Family, outcome: Outcome) -> None:
    value = outcome.metrics[family.metric]
    assert math.isfinite(value) and value > 0, f"{family.name}: {family.metric} = {value}"
    for metric in family.extra_metrics:
        if metric in outcome.metrics:
            assert math.isfinite(outcome.metrics[metric])
    assert outcome.wall_s > 0


def test_the_families_are_found() -> None:
    names = {f.name for f in FAMILIES}
    assert {
        "classic-tcp-ns2",
        "cc_ns3",
        "snoop-ns2",
        "dcf-ns3",
        "dcf-ns2",
        "lle-80211b-ns3",
    } <= names
    for family in FAMILIES:
        labels = [p.label for p in family.points]
        assert len(labels) == len(set(labels)), f"{family.name}: point labels repeat"
        assert family.reference in refs.REFERENCES


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_smoke_point_in_lastmile(family: Family) -> None:
    _check(family, family.run_lastmile(family.smoke, 1))


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_smoke_point_in_the_reference(family: Family) -> None:
    status = refs.status(family.reference)
    if not status.ok:
        pytest.skip(status.line)
    _check(family, family.run_reference(family.smoke, 1))


class _Stub:
    """A family of two points that differ only in a lastmile-only parameter."""

    name = "stub"
    title = "stub"
    reference = refs.NS2
    metric = "x"
    extra_metrics: Sequence[str] = ()
    x_label = "x"
    settings: Sequence[Setting] = ()
    points: Sequence[Point] = (
        Point("a", "s", 0.0, {"per": 0.1, "rule": "a"}, target=0.1),
        Point("b", "s", 0.0, {"per": 0.1, "rule": "b"}, target=0.1),
    )
    seeds = 2
    smoke = Point("a", "s", 0.0, {"per": 0.1, "rule": "a"}, target=0.1)
    explanations: Mapping[str, str] = MappingProxyType({"b": "because"})
    lastmile_only = ("rule",)

    def run_lastmile(self, point: Point, seed: int) -> Outcome:
        return Outcome({"x": 1.0}, 0.1)

    def run_reference(self, point: Point, seed: int) -> Outcome:
        return Outcome({"x": 1.0}, 0.1)


def test_points_differing_only_in_a_lastmile_option_share_their_reference_runs() -> None:
    family = _Stub()
    tasks = suite._needed(family, {"points": {}}, family.points, 2, suite.SIMULATORS, set(), "s")
    reference = [t for t in tasks if t.simulator == "reference"]
    assert len(reference) == 2, "one reference run per seed, not per point"
    assert len([t for t in tasks if t.simulator == "lastmile"]) == 4


def test_verdicts_compare_the_means_with_the_target() -> None:
    family = _Stub()

    def row(label: str, lm: float, ref: float) -> report.Row:
        point = next(p for p in family.points if p.label == label)
        return report.Row(point, {"x": report.Stat(lm, 1.0, 10)}, {"x": report.Stat(ref, 1.0, 10)})

    assert report.verdict(row("a", 105.0, 100.0), family) == "within"
    assert report.verdict(row("a", 115.0, 100.0), family) == "outside, unexplained"
    assert report.verdict(row("b", 80.0, 100.0), family) == "outside, explained"
