"""The argparse pieces of the ``lastmile`` command line: a parser whose help formatter
gets the terminal's width without `shutil`, and a subparsers object that builds only the
parser of the command a command line names.

Imported only when a command line is parsed by argparse: ``lastmile run`` with a simple
command line (a scenario, ``--json``, ``--set`` and the other one-value options) is read
without it (`lastmile.cli`), since importing argparse costs milliseconds of each start-up.
"""

from __future__ import annotations

import argparse
import sys

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

__all__ = ["Commands", "Parser", "Unused", "terminal_width"]


def terminal_width() -> int:
    """The terminal's width in columns, as `shutil.get_terminal_size` finds it (``COLUMNS``,
    then the terminal of stdout, else 80), without importing `shutil` (with `bz2`, `lzma`
    and `zlib`: about 2 ms of every start-up, which argparse spends on every
    ``add_argument`` to build a help formatter)."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", ""))
        if columns > 0:
            return columns
    except ValueError:
        pass
    stdout = sys.__stdout__
    if stdout is None:
        return 80
    try:
        return os.get_terminal_size(stdout.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class Parser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose help formatter is given the terminal's width
    (`terminal_width`) instead of asking `shutil` for it; its help reads the same. The
    commands' parsers are of the same class (argparse makes subparsers of the parent's)."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        # argparse narrows the width it asks for by 2 columns; so does this. (typeshed's
        # formatter_class takes only `prog`; every HelpFormatter takes `width` too.)
        make: Any = self.formatter_class
        formatter: argparse.HelpFormatter = make(prog=self.prog, width=terminal_width() - 2)
        return formatter


class Unused:
    """Stands for the parser of a command that this invocation does not run: it takes
    every call the registration makes (arguments, groups, defaults) and keeps nothing."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self


class Commands:
    """The subparsers object as the registrations see it. When the command line names its
    command, only that command gets a parser (the others' arguments would never be
    parsed, and argparse takes several milliseconds of each start-up to build them all);
    with no command named, every one is built, for the help or the error argparse
    prints."""

    def __init__(self, real: Any, wanted: str | None) -> None:
        self.real, self.wanted = real, wanted

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if self.wanted is None or name == self.wanted:
            return self.real.add_parser(name, **kwargs)
        return Unused()

    def wants_any(self, names: Iterable[str]) -> bool:
        return self.wanted is None or self.wanted in names
