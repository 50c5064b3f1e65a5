"""What ``lastmile run`` says on stderr while a run goes on.

`RunProgress` is the `progress` callable of `lastmile.run`: at the start it warns when the
core's estimate of the run (from the scenario's own numbers: bytes, rates, ``stop_time``)
exceeds the event budget (``LASTMILE_EVENT_BUDGET``, default 3e8 events, about a minute);
once the run has taken longer than a few seconds it shows the simulated time reached and
the events per second (the core's wording, which ``lastmile-run`` prints too), on one line
rewritten in place on a terminal (a plain line every ten seconds otherwise). Ctrl-C then
stops the run with a summary of the run so far.

Nothing here changes the simulation: the core calls back every ``PROGRESS_EVERY`` events
whatever the wall clock says, and only the printing looks at the clock.
"""

from __future__ import annotations

import time

from lastmile import _core

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

    from lastmile._estimate import Estimate

__all__ = ["RunProgress", "budget_warning"]


def budget_warning(estimate: Estimate, budget: float) -> str | None:
    """The warning line for a run over `budget` events, or None (the core's wording,
    which ``lastmile-run`` prints too)."""
    text = _core.budget_warning(estimate.events, estimate.sim_time_s, estimate.wall_s, budget)
    return None if text is None else f"lastmile: warning: {text}"


class RunProgress:
    """Prints the budget warning and, on long runs, a progress line on `stream`."""

    def __init__(
        self,
        stream: TextIO,
        *,
        budget: float,
        after_s: float = 3.0,
        every_s: float | None = None,
    ) -> None:
        self.stream = stream
        self.budget = budget
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.after_s = after_s
        self.every_s = every_s if every_s is not None else (0.5 if self.tty else 10.0)
        self.started = time.monotonic()
        self.last_shown = 0.0
        self.shown = False
        #: The last (events, time) seen, for the rate.
        self._last: tuple[int, float] = (0, self.started)

    def __call__(self, info: dict[str, Any]) -> None:
        if info.get("phase") == "start":
            # Only a run over the budget needs its `Estimate` (a dataclass: its module is
            # not worth loading for the warning that most runs never print).
            if float(info["estimated_events"]) > self.budget:
                from lastmile._estimate import Estimate

                estimate = Estimate(
                    float(info["estimated_events"]),
                    float(info["estimated_sim_time_s"]),
                    float(info["estimated_wall_s"]),
                )
                warning = budget_warning(estimate, self.budget)
                if warning is not None:
                    print(warning, file=self.stream, flush=True)
            return
        now = time.monotonic()
        events = int(info["events"])
        if now - self.started < self.after_s or now - self.last_shown < self.every_s:
            return
        last_events, last_time = self._last
        rate = (events - last_events) / max(now - last_time, 1e-9)
        self._last = (events, now)
        self.last_shown = now
        sim, stop = float(info["sim_time_s"]), float(info["stop_time_s"])
        text = "lastmile: " + _core.progress_line(sim, stop, events, rate)
        if self.tty:
            self.stream.write("\r" + text + "\x1b[K")
            self.stream.flush()
        else:
            print(text, file=self.stream, flush=True)
        self.shown = True

    def close(self) -> None:
        """Clear the in-place line (a terminal), so what follows starts clean."""
        if self.tty and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
