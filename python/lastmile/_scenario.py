"""Scenarios: loading a file (or text) into a checked, typed `Scenario`.

Parsing, unit handling, overrides and every check happen in the Rust core
(`lastmile_core::scenario`); this module only wraps the normalised result. The schema is
defined once, in Rust: `lastmile.schema()` exports it.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from lastmile import _core

__all__ = ["Overrides", "Scenario", "load", "normalise_overrides"]

#: Overrides as a mapping ``{"flow.0.tcp.variant": "newreno"}`` or as ``"key=value"``
#: strings (the CLI's ``--set``).
Overrides = Mapping[str, object] | Sequence[str]

Format = Literal["toml", "yaml", "json"]


def _literal(value: object) -> str:
    """`value` as a TOML literal, the syntax the core reads override values in."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, Mapping):
        items = ", ".join(f"{json.dumps(str(k))} = {_literal(v)}" for k, v in value.items())
        return "{ " + items + " }"
    if isinstance(value, Sequence):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    raise TypeError(f"cannot use {value!r} as an override value")


def normalise_overrides(overrides: Overrides | None) -> list[str]:
    """Turn a mapping or a sequence of ``"key=value"`` strings into ``"key=value"`` strings."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{key}={_literal(value)}" for key, value in overrides.items()]
    return [str(item) for item in overrides]


class Scenario:
    """A scenario that the core has read and checked, in its normalised form.

    Create one with `lastmile.load` (a file) or `Scenario.from_text`. Its `to_dict()` is
    the normalised scenario (units spelled out, defaults filled in); `nodes` and `links`
    are the resolved topology's node and link names.
    """

    __slots__ = ("_data", "_json", "links", "nodes", "path")

    def __init__(
        self,
        normalised_json: str,
        nodes: Sequence[str],
        links: Sequence[str],
        path: Path | None = None,
    ) -> None:
        self._json = normalised_json
        self._data: dict[str, Any] = json.loads(normalised_json)
        #: The resolved topology's node names (a preset expanded).
        self.nodes: tuple[str, ...] = tuple(nodes)
        #: The resolved topology's link names (usable with ``--pcap``).
        self.links: tuple[str, ...] = tuple(links)
        #: The file it was read from, if any.
        self.path: Path | None = path

    @classmethod
    def from_text(
        cls,
        text: str,
        format: Format = "toml",
        *,
        origin: str = "<string>",
        overrides: Overrides | None = None,
    ) -> Scenario:
        """Read and check scenario `text` written in `format` ("toml", "yaml", "json")."""
        loaded = _core.load_text(text, format, origin, normalise_overrides(overrides))
        return cls(*loaded)

    @property
    def name(self) -> str:
        """The scenario's name."""
        return str(self._data["name"])

    @property
    def seed(self) -> int:
        """The run seed written in the scenario (default 1)."""
        return int(self._data["seed"])

    @property
    def flow_count(self) -> int:
        """The number of flows."""
        return len(self._data.get("flow", []))

    def to_dict(self) -> dict[str, Any]:
        """The normalised scenario as plain Python data (a fresh copy)."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """The normalised scenario as JSON text (what `lastmile.run` hands the core)."""
        return self._json

    @property
    def origin(self) -> str:
        """How error messages name this scenario: its file, else its name."""
        return str(self.path) if self.path is not None else self.name

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path is not None else ""
        return (
            f"Scenario(name={self.name!r}, nodes={len(self.nodes)}, links={len(self.links)}, "
            f"flows={self.flow_count}{where})"
        )


def load(path: str | os.PathLike[str], overrides: Overrides | None = None) -> Scenario:
    """Read and check the scenario file at `path` (.toml, .yaml/.yml or .json).

    `overrides` change fields before the checks, as the CLI's ``--set`` does:
    ``{"flow.0.tcp.variant": "tahoe"}`` or ``["flow.0.tcp.variant=tahoe"]``.
    Raises `lastmile.ScenarioError` naming the file, field path, value and expectation.
    """
    loaded = _core.load(path, normalise_overrides(overrides))
    return Scenario(*loaded, path=Path(path))
