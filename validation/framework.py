"""The validation suite's contract: a *family* of scenarios, each point run in lastmile and in a
reference simulator (ns-2.35 from Debian's `ns2`, or ns-3.44 from the `ns3` wheel in a virtual
environment of its own — never a dependency of lastmile) with the settings matched.

A family is a module in `validation/families/` that defines `FAMILY`, an object satisfying
`Family`. The runner discovers the modules, runs every (point, seed) in both simulators,
keeps the raw outcomes in `validation/results/<family>.json` (so one family can be re-run
alone and the report rebuilt without running anything), and writes `docs/validation.md`:
the settings table (matched, and what cannot be matched), per point lastmile ± spread, the
reference ± spread, their ratio and a verdict against the point's target, and for every
difference the family's explanation with its evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Point:
    """One scenario of a family, run over the family's seeds in both simulators."""

    #: Unique within the family, readable: "Reno, window 20, PER 0.05".
    label: str
    #: The curve of the family's figure this point belongs to: "Reno, window 20".
    series: str
    #: Its position on the figure's x axis (e.g. the PER).
    x: float
    #: Family-specific settings, passed back to `run_lastmile` / `run_reference`.
    params: Mapping[str, object] = field(default_factory=dict)
    #: Largest relative difference of the means that passes (0.10: within 10 %), or None
    #: for a point that is reported but carries no target.
    target: float | None = None


@dataclass(frozen=True)
class Outcome:
    """What one run of one simulator measured."""

    #: Metrics named with units: "throughput_kbps", "timeouts", "attempts_per_frame", ...
    metrics: Mapping[str, float]
    #: Wall time of the whole run (process start to result), seconds.
    wall_s: float
    #: Wall time of the simulation alone (the engine / `Simulator::Run`), where known.
    engine_s: float | None = None


@dataclass(frozen=True)
class Setting:
    """One row of a family's settings table."""

    name: str
    lastmile: str
    reference: str
    #: False for a setting that cannot be matched; `note` then says why and what it costs.
    matched: bool = True
    note: str = ""


class Family(Protocol):
    """A family of validation scenarios against one reference simulator."""

    #: Short identifier, the module's name: "classic-tcp-ns2".
    name: str
    #: Section title in docs/validation.md.
    title: str
    #: "ns-2.35" or "ns-3.44".
    reference: str
    #: The key of `Outcome.metrics` that the verdict compares.
    metric: str
    #: Other metrics to show beside it in the table (timeouts, retransmissions, ...).
    extra_metrics: Sequence[str]
    #: The figure's axis label for `Point.x`, with its unit.
    x_label: str
    settings: Sequence[Setting]
    points: Sequence[Point]
    #: Seeds per point (the two simulators draw different losses: compare means).
    seeds: int
    #: One cheap point for the CI smoke test (run only where the reference is installed).
    smoke: Point
    #: Why a point or a series differs, with its evidence (a run, a trace, the reference's
    #: source file and line); keyed by point label or series name.
    explanations: Mapping[str, str]

    def run_lastmile(self, point: Point, seed: int) -> Outcome: ...

    def run_reference(self, point: Point, seed: int) -> Outcome: ...
