"""What a run is expected to cost (`Estimate`) and what `lastmile.validate` found
(`Validation`).

They live apart from `lastmile._run` (which re-exports them) because they are
dataclasses: the `dataclasses` module costs a few milliseconds to import, which a plain
``lastmile run`` need not pay.
"""

from __future__ import annotations

from dataclasses import dataclass

from lastmile import _core

__all__ = ["Estimate", "Validation"]


@dataclass(frozen=True)
class Estimate:
    """What a run is expected to cost, from the scenario's own numbers (an order of
    magnitude: losses and agents' timers are left out)."""

    #: Events the engine will process.
    events: float
    #: Simulated seconds the run will cover (at most ``stop_time``).
    sim_time_s: float
    #: Wall seconds at the nominal 5 M events/s.
    wall_s: float

    def over(self, budget: float) -> bool:
        """True when the run is expected to process more than `budget` events."""
        return self.events > budget

    def describe(self) -> str:
        """E.g. ``about 2.1e+10 events (~1.2 h at 5 M events/s) over 1e+08 s simulated``
        (the core's wording, which ``lastmile-run`` prints too)."""
        return _core.describe_estimate(self.events, self.sim_time_s, self.wall_s)


@dataclass(frozen=True)
class Validation:
    """What `validate` found: the scenario's name and size, and the run's estimate."""

    name: str
    #: Nodes and point-to-point links of the resolved topology, and flows.
    nodes: int
    links: int
    flows: int
    estimate: Estimate

    def describe(self) -> str:
        """``<name>: N nodes, L links, F flows`` (what ``lastmile validate`` prints)."""
        return f"{self.name}: {self.nodes} nodes, {self.links} links, {self.flows} flows"
