"""The built-in example scenarios shipped in ``lastmile/examples/*.toml``.

Each file opens with a comment block; its first line is the example's description.
`lastmile run --example NAME` finds its file with `example_file`, without pathlib (which
brings `urllib.parse` and `ipaddress`: about 2.6 ms of the start-up); the public
functions give `Path`s.
"""

from __future__ import annotations

import os

from lastmile._errors import UnknownNameError, clip

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False

__all__ = ["Example", "example_file", "example_path", "examples"]

#: Where the example files live inside the installed package (as `Path.resolve` has it).
_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "examples")  # noqa: PTH118, PTH120 (pathlib)


if TYPE_CHECKING:
    from pathlib import Path
    from typing import NamedTuple

    class Example(NamedTuple):
        """A built-in example: its name (the file stem), file and one-line description."""

        name: str
        path: Path
        description: str

else:
    from collections import namedtuple

    class Example(namedtuple("Example", ["name", "path", "description"])):
        """A built-in example: its name (the file stem), file and one-line description."""

        __slots__ = ()


def _description(path: Path) -> str:
    with path.open(encoding="utf-8") as f:
        for line in f:
            text = line.strip()
            if not text.startswith("#"):
                break
            text = text.lstrip("#").strip()
            if text:
                return text
    return ""


def _files() -> dict[str, str]:
    """The built-in examples' files, by name, sorted by name."""
    # os, not pathlib: `lastmile run --example` imports this module.
    names = sorted(f for f in os.listdir(_DIR) if f.endswith(".toml"))  # noqa: PTH208
    return {f[: -len(".toml")]: os.path.join(_DIR, f) for f in names}  # noqa: PTH118


def examples() -> dict[str, Example]:
    """The built-in examples, by name, sorted by name."""
    from pathlib import Path

    return {name: Example(name, Path(f), _description(Path(f))) for name, f in _files().items()}


def example_file(name: str) -> str:
    """The file of the built-in example `name`, as a string.

    Raises `lastmile.UnknownNameError` (a KeyError) listing the known ones otherwise.
    """
    known = _files()
    if isinstance(name, str) and name in known:
        return known[name]
    raise UnknownNameError(
        f"unknown example {clip(name)} (known: {', '.join(known)})", argument="name", value=name
    )


def example_path(name: str) -> Path:
    """The file of the built-in example `name` (`example_file` as a `Path`)."""
    from pathlib import Path

    return Path(example_file(name))
