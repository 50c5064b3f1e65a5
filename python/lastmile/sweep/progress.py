"""The sweep's progress report on stderr: done / total, runs per second, ETA, failures.

On a terminal it is one line redrawn in place (at most ten times a second); elsewhere (CI
logs, a pipe) it prints a plain line at the start, every 10 % or 30 s, and at the end, so
logs stay readable.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]

_BAR = 24


def _clock(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):  # NaN or unknown
        return "--:--"
    s = int(seconds + 0.5)
    return (
        f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


class Progress:
    """Counts finished runs of a sweep and reports them on `stream`.

    `enabled` False makes every method a no-op; `tty` None asks the stream.
    """

    def __init__(
        self,
        total: int,
        *,
        label: str = "",
        stream: TextIO | None = None,
        enabled: bool = True,
        tty: bool | None = None,
    ) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = self.stream.isatty() if tty is None else tty
        self.start = time.monotonic()
        self._last_draw = self.start
        self._last_step = 0
        if enabled and not self.tty:
            self._line()

    @property
    def elapsed_s(self) -> float:
        """Seconds since the sweep started running."""
        return time.monotonic() - self.start

    def rate(self) -> float:
        """Runs per second so far."""
        elapsed = self.elapsed_s
        return self.done / elapsed if elapsed > 0 else 0.0

    def advance(self, done: int, failed: int) -> None:
        """Count `done` more finished runs, `failed` of which failed, and report."""
        self.done += done
        self.failed += failed
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if now - self._last_draw >= 0.1 or self.done >= self.total:
                self._last_draw = now
                self._draw()
            return
        step = 10 * self.done // max(1, self.total)
        if step > self._last_step or now - self._last_draw >= 30:
            self._last_step = step
            self._last_draw = now
            self._line()

    def close(self) -> None:
        """End the report (a last line, and a newline on a terminal)."""
        if not self.enabled:
            return
        if self.tty:
            self._draw()
            self.stream.write("\n")
        elif self._last_step < 10 * self.done // max(1, self.total):
            self._line()
        self.stream.flush()

    def _status(self) -> str:
        rate = self.rate()
        left = (self.total - self.done) / rate if rate > 0 else float("nan")
        failed = f", {self.failed} failed" if self.failed else ""
        return (
            f"{self.done}/{self.total} runs, {rate:.1f} runs/s, "
            f"elapsed {_clock(self.elapsed_s)}, ETA {_clock(left)}{failed}"
        )

    def _draw(self) -> None:
        filled = _BAR * self.done // max(1, self.total)
        bar = "#" * filled + "-" * (_BAR - filled)
        self.stream.write(f"\r\x1b[2K{self.label}[{bar}] {self._status()}")
        self.stream.flush()

    def _line(self) -> None:
        self.stream.write(f"{self.label}{self._status()}\n")
        self.stream.flush()
