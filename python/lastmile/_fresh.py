"""Writing an output file without writing through whatever already sits at its path.

An output folder may hold a symbolic link planted where lastmile writes (``summary.json``
pointing at some other file). Opening the path for writing would follow the link and
overwrite its target; `write_fresh` writes a new file beside the path instead and renames
it over the path: the rename replaces the link itself, never its target, and a reader
never sees a half-written file. The core does the same for its captures
(``lastmile_core::metrics::fresh_file``).
"""

from __future__ import annotations

import os
from collections.abc import Callable

# pathlib only for the type checker: ``lastmile run`` may start without it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["write_fresh"]


def write_fresh(path: Path, write: Callable[[Path], object]) -> None:
    """Write `path` by calling `write` on a new file beside it, then renaming that file
    over `path`; the new file is removed if `write` fails."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temp.unlink(missing_ok=True)
        write(temp)
        temp.replace(path)
    finally:
        temp.unlink(missing_ok=True)
