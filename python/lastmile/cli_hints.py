"""Clearer messages for the command-line mistakes the core cannot see as such.

The core checks a scenario after the ``--set`` overrides are applied, so it reports what is
wrong with the result; these helpers say what to type instead when the cause is the way an
override was written:

- ``--set topology.wireless.errors.model=per`` on a file whose errors table holds another
  model's keys: setting the tag alone keeps those keys; replace the whole table.
- ``--set flow.0.name=123``: the value reads as a TOML number; quote it to make a string.
- ``lastmile run tulip-basic``: that is a built-in example's name, not a file.

Each returns a one-line message, or None when the error is not of its kind.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence

# `typing` and `pathlib` only for the type checker: importing them costs milliseconds of
# every start-up (pathlib brings `re`, `urllib.parse` and `ipaddress`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = [
    "BadInput",
    "example_instead_of_file",
    "explain_override_error",
    "path_exists",
    "path_text",
]

#: The tag keys of the tagged tables (`errors.model`, `app.kind`).
_TAGS = ("model", "kind")
_NUMBER_OR_BOOL = r"^([+-]?(\d[\d_]*)(\.\d+)?([eE][+-]?\d+)?|true|false|inf|nan)$"

#: The errors of `os.stat` for which `pathlib.Path.exists` says False.
_ABSENT_ERRNOS = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)


class BadInput(Exception):
    """A command-line input problem found before or around a run: exit status 2."""


def _display(dotted: str) -> str:
    """``flow.0.app`` as the core writes field paths: ``flow[0].app``."""
    out = ""
    for part in dotted.split("."):
        out += f"[{part}]" if part.isdigit() else (f".{part}" if out else part)
    return out


def _override_of(error: Any, overrides: Sequence[str]) -> str | None:
    """The override text the error's file label names (``file (--set k=v)``)."""
    import re

    file = str(getattr(error, "file", ""))
    match = re.search(r"\(--set (.*)\)$", file)
    if match and match.group(1) in overrides:
        return match.group(1)
    return None


def _forms(tag: str, value: str) -> list[str]:
    """The required keys of the tagged form `tag = value`, from the JSON Schema."""
    import json

    from lastmile import _core

    schema = json.loads(_core.schema())
    for definition in schema.get("definitions", {}).values():
        for form in definition.get("oneOf", []):
            enum = form.get("properties", {}).get(tag, {}).get("enum")
            if enum == [value]:
                return [k for k in form.get("required", []) if k != tag]
    return []


def _table(scenario_file: Path | str | None, dotted: str) -> dict[str, Any] | None:
    """The table at `dotted` in the scenario file as written (normalised), if readable."""
    if scenario_file is None:
        return None
    from lastmile._scenario import load

    try:
        node: Any = load(scenario_file).to_dict()
    except Exception:
        return None
    for part in dotted.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node if isinstance(node, dict) else None


def _tag_override(
    error: Any, overrides: Sequence[str], scenario_file: Path | str | None
) -> str | None:
    path = str(getattr(error, "path", ""))
    if "unknown key" not in str(getattr(error, "expected", "")):
        return None
    for text in overrides:
        key, _, value = text.partition("=")
        key, value = key.strip(), value.strip().strip("\"'")
        table, _, tag = key.rpartition(".")
        if tag not in _TAGS or not table or value.startswith("{"):
            continue
        if not path.startswith(_display(table) + "."):
            continue
        old = _table(scenario_file, table) or {}
        kept = [k for k, v in old.items() if k != tag and v is not None]
        was = f' "{old[tag]}"' if tag in old else ""
        fields = ", ".join(f"{k} = ..." for k in _forms(tag, value))
        example = f'{{{tag} = "{value}"{", " + fields if fields else ""}}}'
        file = str(getattr(error, "file", "")).split(" (--set")[0]
        keeps = f" ({', '.join(kept)})" if kept else ""
        return (
            f"{file} (--set {text}): {key} changes only the tag of the{was} table {table}, "
            f"which keeps its other keys{keeps}; replace the whole table instead: "
            f"--set '{table}={example}'"
        )
    return None


def _unquoted_string(error: Any, overrides: Sequence[str]) -> str | None:
    if not str(getattr(error, "expected", "")).startswith("a string"):
        return None
    text = _override_of(error, overrides)
    if text is None:
        return None
    key, _, value = text.partition("=")
    import re

    if not re.match(_NUMBER_OR_BOOL, value.strip()):
        return None
    return (
        f"{error}; {value.strip()} reads as a number, not text: quote it, "
        f"--set '{key.strip()}=\"{value.strip()}\"'"
    )


def explain_override_error(
    error: Exception, overrides: Sequence[str], scenario_file: Path | str | None
) -> str | None:
    """A clearer one-line message for a `ScenarioError` an override caused, or None."""
    if not overrides:
        return None
    return _tag_override(error, overrides, scenario_file) or _unquoted_string(error, overrides)


def example_instead_of_file(name: str) -> str | None:
    """The message for a scenario argument that names no file but a built-in example."""
    if path_exists(name):
        return None
    from lastmile._examples import examples

    if name not in examples():
        return None
    return f"{name}: no such file; it is the name of a built-in example: use --example {name}"


def path_text(text: str) -> str:
    """``str(pathlib.Path(text))`` on POSIX, without importing pathlib: empty and ``.``
    parts and repeated slashes dropped, two leading slashes kept, ``.`` for nothing."""
    stripped = text.lstrip("/")
    slashes = len(text) - len(stripped)
    root = "//" if slashes == 2 else "/" if slashes else ""
    parts = [p for p in stripped.split("/") if p and p != "."]
    return root + "/".join(parts) or "."


def path_exists(text: str) -> bool:
    """``pathlib.Path(text).exists()`` without importing pathlib."""
    try:
        os.stat(path_text(text))  # noqa: PTH116 (Path.stat would import pathlib)
    except OSError as e:
        if e.errno not in _ABSENT_ERRNOS:
            raise
        return False
    except ValueError:  # not encodable
        return False
    return True
