"""The built-in example scenarios shipped in ``lastmile/examples/*.toml``.

Each file opens with a comment block; its first line is the example's description.
"""

from __future__ import annotations

from pathlib import Path

from lastmile._errors import UnknownNameError, clip

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False

__all__ = ["EXAMPLES_DIR", "Example", "example_path", "examples"]

#: Where the example files live inside the installed package.
EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"


if TYPE_CHECKING:
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


def _files() -> dict[str, Path]:
    """The built-in examples' files, by name, sorted by name."""
    return {p.stem: p for p in sorted(EXAMPLES_DIR.glob("*.toml"))}


def examples() -> dict[str, Example]:
    """The built-in examples, by name, sorted by name."""
    return {name: Example(name, p, _description(p)) for name, p in _files().items()}


def example_path(name: str) -> Path:
    """The file of the built-in example `name`.

    Raises `lastmile.UnknownNameError` (a KeyError) listing the known ones otherwise.
    """
    known = _files()
    if isinstance(name, str) and name in known:
        return known[name]
    raise UnknownNameError(
        f"unknown example {clip(name)} (known: {', '.join(known)})", argument="name", value=name
    )
