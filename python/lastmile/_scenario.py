"""Scenarios: loading a file (or text) into a checked, typed `Scenario`.

Parsing, unit handling, overrides and every check happen in the Rust core
(`lastmile_core::scenario`); this module only wraps the normalised result. The schema is
defined once, in Rust: `lastmile.schema()` exports it. Arguments of the wrong kind (a
path that is not a path, an override value with no scenario form, an unknown format) are
refused here with `lastmile.ArgumentError` naming the argument and the value.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

from lastmile import _core
from lastmile._errors import ArgumentError, ArgumentTypeError, clip

# `typing` only for the type checker: importing it costs a few ms of every start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Literal

    Format = Literal["toml", "yaml", "json"]

__all__ = [
    "FORMATS",
    "OVERRIDE_DEPTH_MAX",
    "Overrides",
    "Scenario",
    "check_path",
    "check_text",
    "load",
    "normalise_overrides",
]

#: Overrides as a mapping ``{"flow.0.tcp.variant": "newreno"}`` or as ``"key=value"``
#: strings (the CLI's ``--set``).
Overrides = Mapping[str, object] | Sequence[str]


#: The scenario formats `Scenario.from_text` reads (case does not matter).
FORMATS = ("toml", "yaml", "yml", "json")


#: The deepest nesting of mappings and lists an override value may have (a scenario needs
#: a handful of levels; the core refuses brackets nested deeper than 64).
OVERRIDE_DEPTH_MAX = 32


def check_text(text: str, argument: str) -> str:
    """`text` if it is valid Unicode (no lone surrogate), else `ArgumentError`."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ArgumentError(
            f"{argument}: {clip(text[max(0, e.start - 20) : e.end + 20])} is not valid "
            f"Unicode text (a lone surrogate at character {e.start})",
            argument=argument,
            value=text,
        ) from None
    return text


def _is_bool(value: object) -> bool:
    """True for `bool` and NumPy's ``bool_`` (which is not a `numbers.Integral`)."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    return isinstance(value, bool) or (kind == "b" and getattr(value, "ndim", 1) == 0)


def _literal(value: object, key: str, depth: int = 0) -> str:
    """`value` as a TOML literal, the syntax the core reads override values in.

    Numbers are any `numbers.Real` (int, float, Fraction, NumPy scalars)."""
    import numbers  # here: its import costs about 1 % of a `lastmile run`

    if depth > OVERRIDE_DEPTH_MAX:
        raise ArgumentError(
            f"override {clip(key, 60)}: nested more than {OVERRIDE_DEPTH_MAX} levels deep "
            "(a mapping or list that contains itself?)",
            argument="overrides",
            value=None,
        )
    if _is_bool(value):
        return "true" if bool(value) else "false"
    if isinstance(value, str):
        check_text(value, f"override {clip(key, 60)}")
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, Mapping):
        items = ", ".join(
            f"{json.dumps(check_text(str(k), 'override key'))} = "
            f"{_literal(v, f'{key}.{k}', depth + 1)}"
            for k, v in value.items()
        )
        return "{ " + items + " }"
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return "[" + ", ".join(_literal(v, key, depth + 1) for v in value) + "]"
    raise ArgumentTypeError(
        f"override {clip(key, 60)}: cannot use {clip(value)} ({type(value).__name__}) as a "
        "scenario value; expected a string, number, bool, list or mapping",
        argument="overrides",
        value=value,
    )


def normalise_overrides(overrides: Overrides | None) -> list[str]:
    """Turn a mapping or a sequence of ``"key=value"`` strings into ``"key=value"`` strings.

    Raises `lastmile.ArgumentError` for a key or value that has no scenario form.
    """
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [check_text(overrides, "override")]
    if isinstance(overrides, Mapping):
        out = []
        for key, value in overrides.items():
            if not isinstance(key, str):
                raise ArgumentTypeError(
                    f"override key {clip(key)}: expected a dotted path string such as "
                    "'flow.0.tcp.variant'",
                    argument="overrides",
                    value=key,
                )
            check_text(key, "override key")
            out.append(f"{key}={_literal(value, key)}")
        return out
    if not isinstance(overrides, Sequence):
        raise ArgumentTypeError(
            f"overrides = {clip(overrides)}: expected a mapping {{'key.path': value}} or "
            "a list of 'key.path=value' strings",
            argument="overrides",
            value=overrides,
        )
    for item in overrides:
        if not isinstance(item, str):
            raise ArgumentTypeError(
                f"override {clip(item)}: expected a 'key.path=value' string",
                argument="overrides",
                value=item,
            )
        check_text(item, "override")
    return list(overrides)


def check_path(
    path: object,
    argument: str = "path",
    what: str = "a path to a .toml, .yaml or .json file",
) -> str | os.PathLike[str]:
    """`path` if it is a file path (``str`` or ``os.PathLike``), else `ArgumentTypeError`
    saying it expected `what`; an empty path is an `ArgumentError`."""
    if isinstance(path, str) or (
        isinstance(path, os.PathLike) and isinstance(os.fspath(path), str)
    ):
        if not os.fspath(path):
            raise ArgumentError(f"{argument} = '': expected {what}", argument=argument, value=path)
        return path
    raise ArgumentTypeError(
        f"{argument} = {clip(path)}: expected {what}",
        argument=argument,
        value=path,
    )


class Scenario:
    """A scenario that the core has read and checked, in its normalised form.

    Create one with `lastmile.load` (a file) or `Scenario.from_text`. Its `to_dict()` is
    the resolved scenario as the core writes it out (every key with its default filled in,
    units spelled out, TCP's `recovery` and `cc` named; it loads again to the same
    scenario); `nodes` and `links` are the resolved topology's node and link names.
    """

    __slots__ = (
        "_data",
        "_flow_count",
        "_json",
        "_origin",
        "_overrides",
        "links",
        "nodes",
        "path",
    )

    def __init__(
        self,
        normalised_json: str,
        nodes: Sequence[str],
        links: Sequence[str],
        flow_count: int,
        path: Path | None = None,
        origin: str | None = None,
        overrides: Sequence[str] = (),
    ) -> None:
        self._json = normalised_json
        self._overrides = tuple(overrides)
        self._origin = origin
        self._data: dict[str, Any] = json.loads(normalised_json)
        #: The resolved topology's node names (a preset expanded).
        self.nodes: tuple[str, ...] = tuple(nodes)
        #: The resolved topology's link names (usable with ``--pcap``).
        self.links: tuple[str, ...] = tuple(links)
        self._flow_count = flow_count
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
        if not isinstance(text, str):
            raise ArgumentTypeError(
                f"text = {clip(text)}: expected the scenario as a string",
                argument="text",
                value=text,
            )
        if not isinstance(format, str) or format.lower() not in FORMATS:
            raise ArgumentError(
                f"format = {clip(format)}: expected 'toml', 'yaml' or 'json'",
                argument="format",
                value=format,
            )
        if not isinstance(origin, str):
            raise ArgumentTypeError(
                f"origin = {clip(origin)}: expected a string", argument="origin", value=origin
            )
        check_text(text, "text")
        check_text(origin, "origin")
        sets = normalise_overrides(overrides)
        loaded = _core.load_text(text, format, origin, sets)
        return cls(*loaded, origin=origin, overrides=sets)

    @property
    def name(self) -> str:
        """The scenario's name."""
        return str(self._data["name"])

    @property
    def seed(self) -> int:
        """The run seed written in the scenario (default 1)."""
        return int(self._data["seed"])

    @property
    def overrides(self) -> tuple[str, ...]:
        """The ``key=value`` overrides it was read with (as ``--set`` writes them)."""
        return self._overrides

    @property
    def flow_count(self) -> int:
        """The number of flows the ``[[flow]]`` entries expand to (``count``, node lists and
        patterns), as the core counts them."""
        return self._flow_count

    def to_dict(self) -> dict[str, Any]:
        """The normalised scenario as plain Python data (a fresh copy)."""
        import copy

        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """The normalised scenario as JSON text (what `lastmile.run` hands the core)."""
        return self._json

    @property
    def origin(self) -> str:
        """How error messages name this scenario: its file, else the `origin` it was read
        with (``Scenario.from_text``), else its name."""
        if self.path is not None:
            return str(self.path)
        if self._origin is not None and self._origin != "<string>":
            return self._origin
        return self.name

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
    Raises `lastmile.ScenarioError` naming the file, field path, value and expectation,
    and `lastmile.ArgumentError` for an argument of the wrong kind.
    """
    from pathlib import Path

    check_path(path)
    sets = normalise_overrides(overrides)
    loaded = _core.load(path, sets)
    return Scenario(*loaded, path=Path(path), overrides=sets)
