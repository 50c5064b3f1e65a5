"""``lastmile run``'s progress line (``lastmile._progress.RunProgress``), worded by the core
(``lastmile_core::sim::progress_line``, which ``lastmile-run`` prints too)."""

from __future__ import annotations

import io

from lastmile._progress import RunProgress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _tick(events: int, sim_s: float, stop_s: float = 1000.0) -> dict[str, float]:
    return {"events": events, "sim_time_s": sim_s, "stop_time_s": stop_s}


def test_a_long_run_shows_where_it_stands_in_python_s_number_formats() -> None:
    stream = io.StringIO()
    progress = RunProgress(stream, budget=3e8, after_s=0.0, every_s=0.0)
    progress(_tick(12_345_678, 123.456))
    progress(_tick(40_000_000, 12345.0, 20000.0))
    first, second = stream.getvalue().splitlines()
    # The wording the CLI printed before the core worded it, numbers in Python's formats.
    sim, stop = 123.456, 1000.0
    assert first.startswith(
        f"lastmile: {sim:.4g} s of {stop:.4g} s simulated ({100.0 * sim / stop:.1f} %), "
        f"{12_345_678 / 1e6:.1f} M events, "
    ), first
    assert first.endswith(" M events/s; Ctrl-C stops"), first
    assert second.startswith(
        "lastmile: 1.234e+04 s of 2e+04 s simulated (61.7 %), 40.0 M events, "
    ), second


def test_the_line_waits_for_a_few_seconds_of_run() -> None:
    stream = io.StringIO()
    progress = RunProgress(stream, budget=3e8, after_s=3600.0)
    progress(_tick(1 << 16, 1.0))
    assert stream.getvalue() == ""


def test_on_a_terminal_the_line_is_rewritten_in_place_and_cleared_at_the_end() -> None:
    stream = _Terminal()
    progress = RunProgress(stream, budget=3e8, after_s=0.0, every_s=0.0)
    progress(_tick(1 << 16, 1.0))
    progress(_tick(1 << 17, 2.0))
    progress.close()
    text = stream.getvalue()
    assert text.count("\rlastmile: ") == 2 and text.count("\x1b[K") == 3, repr(text)
    assert text.endswith("\r\x1b[K"), repr(text)
    assert "\n" not in text
