"""The exceptions lastmile raises on purpose, in one hierarchy.

Every one derives from `LastmileError`, and also from the built-in exception a caller
would otherwise expect, so existing ``except ValueError`` code keeps working:

- `ScenarioError` (`ValueError`): a scenario file or override is wrong; carries ``file``,
  ``path`` (the field), ``value`` (as written), ``expected``, ``hint`` and ``message``.
  Raised by the Rust core for every check it makes.
- `SimulationError` (`RuntimeError`): a run could not be carried out or broke an
  invariant; ``kind`` is "invalid", "invariant", "past_event", "io" or "internal".
- `ArgumentError` (`ValueError`): a bad argument to the Python API (a seed outside
  0..2**64-1, an override value that has no scenario form, an unknown format);
  `ArgumentTypeError` (also `TypeError`) when its type is wrong (``load(None)``);
  `UnknownNameError` (also `KeyError`) for an unknown example or trace. ``argument`` names
  the parameter and ``value`` holds the offending value.
- `StoreError` (`RuntimeError`): a results store cannot be opened or read (missing,
  locked, truncated, corrupt).
- `BudgetExceeded` (`RuntimeError`): a run used up its budget (``max_events``,
  ``max_wall_s``) and was stopped; carries the partial ``result``, as `RunInterrupted`
  does.
- `RunInterrupted` is not a `LastmileError`: it is the `KeyboardInterrupt` of a run
  stopped by Ctrl-C, carrying the partial `result`, so that ``except Exception`` never
  swallows a Ctrl-C.

The classes report themselves as ``lastmile.<Name>`` (their ``__module__``), which is
where the public package exports them. The CLI turns any `LastmileError` into one line on
stderr and exit status 2 (1 for a `SimulationError` other than "invalid"; 3 for
`BudgetExceeded`, after printing the partial summary).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "BudgetExceeded",
    "LastmileError",
    "RunInterrupted",
    "ScenarioError",
    "SimulationError",
    "StoreError",
    "UnknownNameError",
    "clip",
]

#: The most characters of an offending value an error message quotes before "…".
QUOTE_MAX = 80


def clip(value: object, limit: int = QUOTE_MAX) -> str:
    """`value`'s repr (strings quoted) on one line, at most `limit` characters (then "…").

    A value without a printable repr (an integer of more digits than Python prints, a repr
    that raises) is named by its type and size instead."""
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        if isinstance(value, int):
            text = f"<an integer of {value.bit_length()} bits>"
        else:
            text = f"<{type(value).__name__}>"
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LastmileError(Exception):
    """Base of every error lastmile raises on purpose."""

    __module__ = "lastmile"


class ScenarioError(LastmileError, ValueError):
    """A scenario file or override is wrong.

    ``message`` is the whole one-line explanation (also ``str(error)``): the file, the
    field ``path``, the bad ``value`` as written, what was ``expected`` and a ``hint``.
    """

    __module__ = "lastmile"

    def __init__(
        self,
        message: str,
        *,
        file: str = "",
        path: str = "",
        value: str | None = None,
        expected: str = "",
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.path = path
        self.value = value
        self.expected = expected
        self.hint = hint


class SimulationError(LastmileError, RuntimeError):
    """A run could not be carried out, or broke an invariant.

    ``kind``: "invalid" (the scenario or options cannot run), "invariant", "past_event",
    "io" or "internal" (a bug: please report it).
    """

    __module__ = "lastmile"

    def __init__(self, message: str, *, kind: str = "internal") -> None:
        super().__init__(message)
        self.kind = kind


class ArgumentError(LastmileError, ValueError):
    """A bad argument to the Python API; ``argument`` names it, ``value`` holds it."""

    __module__ = "lastmile"

    def __init__(self, message: str, *, argument: str = "", value: Any = None) -> None:
        super().__init__(message)
        self.argument = argument
        self.value = value


class ArgumentTypeError(ArgumentError, TypeError):
    """An argument of the wrong type (e.g. ``lastmile.load(None)``)."""

    __module__ = "lastmile"


class UnknownNameError(ArgumentError, KeyError):
    """An unknown example or trace name; the message lists the known ones."""

    __module__ = "lastmile"

    def __str__(self) -> str:
        # KeyError would show the repr of its argument; the message is meant to be read.
        return str(self.args[0]) if self.args else ""


class StoreError(LastmileError, RuntimeError):
    """A results store cannot be opened or read, or lacks what was asked for."""

    __module__ = "lastmile"


class BudgetExceeded(LastmileError, RuntimeError):
    """A run used up its budget (``max_events`` or ``max_wall_s``) and was stopped cleanly;
    ``result`` is the `RunResult` of the run so far (``engine.stop_reason`` "budget")."""

    __module__ = "lastmile"

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.result))


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run; ``result`` is the `RunResult` of the run so far.

    Its summary's ``engine.stop_reason`` is "interrupted". A `KeyboardInterrupt`, so code
    that does not look for it stops as it always did.
    """

    __module__ = "lastmile"

    def __init__(self, result: Any) -> None:
        super().__init__("interrupted")
        self.result = result
