"""Sweep files: a campaign's base scenario, parameter space and seeds, and their expansion.

A sweep file (TOML) names a campaign, its base scenario and the space to explore, in the
manner of ns-3's SEM (a campaign is a scenario, a parameter space and a code version)::

    name = "per-newreno"
    scenario = "chain.toml"            # relative to this file, or an inline [scenario] table
    seeds = 10                         # seeds 1..10, or a list: [1, 7, 42]

    [grid]                             # Cartesian product of every axis
    "topology.wireless.errors.per" = [0.0, 0.01, 0.05]

    [zip]                              # axes that advance together (equal lengths)
    "flow.0.tcp.rwnd" = ["16KB", "42KB"]
    "flow.0.app.bytes" = ["100KB", "1MB"]

    [variants.tulip]                   # named override sets, crossed with grid x zip
    "topology.wireless.link" = "tulip"
    [variants.snoop]
    "base_station.agent" = "snoop"

Axes and overrides are keyed by the dotted paths of ``lastmile run --set``. Unquoted
dotted keys (``topology.wireless.link = ...``) are TOML nested tables; both spellings are
read the same way, because nested tables are flattened to dotted paths. A value that is
itself a table is therefore set field by field.

Expansion order is fixed: variants in file order, then grid axes in file order (the last
one fastest), then the zip index; seeds are crossed last. Each point gets a canonical JSON
key (its variant, its effective overrides and the digest of the base scenario), which is
what the results store is keyed by. This module only reads and expands; it runs nothing.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import numbers
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lastmile._errors import LastmileError

__all__ = ["BASE_VARIANT", "Point", "SweepError", "SweepSpec", "canonical_json", "load_sweep"]

#: The variant name of every point when the sweep file defines no ``[variants]``.
BASE_VARIANT = "base"

_TOP_KEYS = ("name", "description", "scenario", "seeds", "grid", "zip", "variants")
_PATH_RE = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")
_NAME_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
#: Axis names that would collide with a results column (metric columns never hold a dot).
_RESERVED_AXES = frozenset(
    {
        "campaign",
        "variant",
        "seed",
        "status",
        "error",
        "point_key",
        "code_version",
        "lastmile_version",
        "git_commit",
        "wall_s",
        "finished_at",
        "scenario_name",
    }
)


class SweepError(LastmileError, ValueError):
    """A sweep file (or sweep dict) is wrong; raised before anything runs.

    Exported as ``lastmile.SweepError``.

    ``file`` is the sweep file (or "<dict>"), ``axis`` the offending axis, variant or key
    when one is to blame, ``value`` the offending value, if any.
    """

    __module__ = "lastmile"

    def __init__(
        self, message: str, *, file: str = "<dict>", axis: str | None = None, value: Any = None
    ) -> None:
        super().__init__(f"{file}: {message}")
        self.file = file
        self.axis = axis
        self.value = value


#: Builds the `SweepError` of one check: (message, axis=None, value=None).
Fail = Callable[..., SweepError]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: equal data always gives equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Point:
    """One parameter point: a variant, its axis values and the overrides to apply."""

    variant: str
    #: Axis (dotted path) → value, for the grid and zip axes only.
    params: Mapping[str, Any]
    #: Every override of the point: the variant's and the axes', by dotted path.
    overrides: Mapping[str, Any]
    #: Canonical JSON of (variant, overrides, scenario digest): the store's point key.
    key: str

    def origin(self, path: str, spec: SweepSpec) -> str:
        """Where the override at dotted `path` comes from, e.g. ``[grid] a.b = 3``."""
        value = self.overrides[path]
        if path in spec.grid:
            return f"[grid] {path} = {value!r}"
        if path in spec.zip:
            return f"[zip] {path} = {value!r}"
        return f"[variants.{self.variant}] {path} = {value!r}"


@dataclass(frozen=True)
class SweepSpec:
    """A parsed, checked sweep: build one with `load_sweep`."""

    name: str
    #: The base scenario: a path (resolved against the sweep file) or an inline table.
    scenario: Path | Mapping[str, Any]
    seeds: tuple[int, ...]
    grid: Mapping[str, tuple[Any, ...]]
    zip: Mapping[str, tuple[Any, ...]]
    #: Variant name → overrides; ``{"base": {}}`` when the file defines none.
    variants: Mapping[str, Mapping[str, Any]]
    #: The sweep file, when read from one.
    file: Path | None = None
    description: str = ""

    @property
    def origin(self) -> str:
        """How error messages name this sweep."""
        return str(self.file) if self.file is not None else "<dict>"

    @property
    def axes(self) -> tuple[str, ...]:
        """The grid axes then the zip axes, in file order: the parameter columns."""
        return (*self.grid, *self.zip)

    def scenario_digest(self) -> str:
        """SHA-256 (16 hex digits) of the base scenario: the file's bytes, or the table."""
        if isinstance(self.scenario, Path):
            data = self.scenario.read_bytes()
        else:
            data = canonical_json(self.scenario).encode()
        return hashlib.sha256(data).hexdigest()[:16]

    def to_json(self) -> str:
        """The sweep as canonical JSON (stored with the campaign)."""
        scenario = str(self.scenario) if isinstance(self.scenario, Path) else self.scenario
        return canonical_json(
            {
                "name": self.name,
                "description": self.description,
                "scenario": scenario,
                "seeds": list(self.seeds),
                "grid": {k: list(v) for k, v in self.grid.items()},
                "zip": {k: list(v) for k, v in self.zip.items()},
                "variants": self.variants,
            }
        )

    def points(self) -> list[Point]:
        """Every parameter point, in expansion order (see the module docstring)."""
        digest = self.scenario_digest()
        grid_axes = list(self.grid)
        zip_len = len(next(iter(self.zip.values()))) if self.zip else 1
        points = []
        for variant, fixed in self.variants.items():
            for combo in itertools.product(*self.grid.values()):
                for i in range(zip_len):
                    params = dict(zip(grid_axes, combo, strict=True))
                    params.update({axis: values[i] for axis, values in self.zip.items()})
                    overrides = {**fixed, **params}
                    key = canonical_json(
                        {"overrides": overrides, "scenario": digest, "variant": variant}
                    )
                    points.append(Point(variant, params, overrides, key))
        return points

    def text_axes(self) -> frozenset[str]:
        """Axes stored as JSON text: those mixing kinds (number, string, bool) or holding lists."""
        return frozenset(
            a for a, values in {**self.grid, **self.zip}.items() if not _uniform(values)
        )

    def run_count(self) -> int:
        """Points x seeds."""
        zip_len = len(next(iter(self.zip.values()))) if self.zip else 1
        grid = 1
        for values in self.grid.values():
            grid *= len(values)
        return len(self.variants) * grid * zip_len * len(self.seeds)


def _uniform(values: tuple[Any, ...]) -> bool:
    """True when every value is a scalar of one kind (bool, number or string)."""

    def kind(value: Any) -> str:
        if isinstance(value, bool):
            return "bool"
        if isinstance(value, int | float):
            return "number"
        return "str" if isinstance(value, str) else "other"

    kinds = {kind(v) for v in values}
    return len(kinds) == 1 and "other" not in kinds


def load_sweep(source: str | Path | Mapping[str, Any] | SweepSpec) -> SweepSpec:
    """Read and check a sweep: a TOML file path, an already-parsed dict, or a `SweepSpec`.

    Raises `SweepError` naming the file, the axis or key, and the offending value.
    """
    if isinstance(source, SweepSpec):
        return source
    if isinstance(source, Mapping):
        return _parse(source, None)
    path = Path(source)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"not valid TOML: {e}", file=str(path)) from None
    return _parse(data, path)


#: The deepest nesting of tables and lists a sweep dict may hold (as in a scenario file).
NESTING_MAX = 64


def plain(value: Any, _where: str = "", _open: tuple[int, ...] = ()) -> Any:
    """`value` with NumPy scalars (and any other `numbers.Real`) made plain Python bools,
    ints and floats, through lists and tables: a grid may be ``list(np.linspace(...))``.

    Raises `SweepError` for a table or list that contains itself (a dict built in Python can)
    or nests deeper than `NESTING_MAX`, naming the key where it happens."""
    if isinstance(value, Mapping | list | tuple):
        where = _where or "the sweep"
        if id(value) in _open:
            raise SweepError(
                f"{where}: a table or list that contains itself; expected plain data "
                "(tables, lists, numbers, strings)",
                axis=_where or None,
            )
        if len(_open) >= NESTING_MAX:
            raise SweepError(
                f"{where}: tables and lists nested more than {NESTING_MAX} deep",
                axis=_where or None,
            )
        inner = (*_open, id(value))
        if isinstance(value, Mapping):
            return {
                k: plain(v, f"{_where}.{k}" if _where else str(k), inner) for k, v in value.items()
            }
        return [plain(v, f"{_where}[{i}]", inner) for i, v in enumerate(value)]
    if isinstance(value, bool | str) or value is None:
        return value
    if getattr(getattr(value, "dtype", None), "kind", None) == "b" and not getattr(
        value, "ndim", 1
    ):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def _parse(data: Mapping[str, Any], file: Path | None) -> SweepSpec:
    origin = str(file) if file is not None else "<dict>"
    if file is None:
        data = {k: v if k == "scenario" else plain(v, k) for k, v in data.items()}

    def fail(message: str, axis: str | None = None, value: Any = None) -> SweepError:
        return SweepError(message, file=origin, axis=axis, value=value)

    unknown = [k for k in data if k not in _TOP_KEYS]
    if unknown:
        raise fail(f"unknown key {unknown[0]!r} (expected one of: {', '.join(_TOP_KEYS)})")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise fail(
            f"name = {name!r}: expected the campaign name, letters, digits and _.+-",
            "name",
            name,
        )
    description = data.get("description", "")
    if not isinstance(description, str):
        raise fail(f"description = {description!r}: expected a string", "description")
    grid = _axes(data.get("grid", {}), "grid", fail)
    zipped = _axes(data.get("zip", {}), "zip", fail)
    _check_zip(zipped, fail)
    both = set(grid) & set(zipped)
    if both:
        axis = sorted(both)[0]
        raise fail(f"axis {axis!r} is in both [grid] and [zip]", axis)
    variants = _variants(data.get("variants"), set(grid) | set(zipped), fail)
    return SweepSpec(
        name=name,
        scenario=_scenario(data.get("scenario"), file, fail),
        seeds=_seeds(data.get("seeds", 1), fail),
        grid=grid,
        zip=zipped,
        variants=variants,
        file=file,
        description=description,
    )


def _flatten(table: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Dotted paths of a (possibly nested) table's leaves."""
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            yield from _flatten(value, path + ".")
        else:
            yield path, value


def _check_path(path: str, section: str, fail: Fail) -> None:
    if not _PATH_RE.match(path):
        raise fail(f"[{section}] {path!r}: not a dotted path like 'flow.0.tcp.variant'", path)
    if path in _RESERVED_AXES:
        raise fail(f"[{section}] {path!r}: reserved name (use 'seeds' for seeds)", path)


def _repeats(values: Iterable[Any]) -> list[Any]:
    """The values listed again after their first appearance (compared as canonical JSON)."""
    seen: set[str] = set()
    repeated = []
    for value in values:
        text = canonical_json(value)
        if text in seen:
            repeated.append(value)
        seen.add(text)
    return repeated


def _axes(table: Any, section: str, fail: Fail) -> dict[str, tuple[Any, ...]]:
    if not isinstance(table, Mapping):
        raise fail(f"[{section}] must be a table of axes, got {table!r}", section)
    axes: dict[str, tuple[Any, ...]] = {}
    for path, values in _flatten(table):
        _check_path(path, section, fail)
        if not isinstance(values, list) or not values:
            raise fail(
                f"[{section}] {path} = {values!r}: expected a non-empty list of values",
                path,
                values,
            )
        if repeated := _repeats(values):
            value = repeated[0]
            raise fail(f"[{section}] {path}: value {value!r} is listed twice", path, value)
        axes[path] = tuple(values)
    return axes


def _check_zip(zipped: Mapping[str, tuple[Any, ...]], fail: Fail) -> None:
    lengths = {axis: len(values) for axis, values in zipped.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{axis} has {n}" for axis, n in lengths.items())
        raise fail(f"[zip] axes must have equal lengths: {listed}", next(iter(lengths)))
    if repeated := _repeats(zip(*zipped.values(), strict=True)):
        row = repeated[0]
        raise fail(f"[zip] the combination {row!r} is listed twice", None, row)


def _variants(table: Any, axes: set[str], fail: Fail) -> dict[str, dict[str, Any]]:
    if table is None:
        return {BASE_VARIANT: {}}
    if not isinstance(table, Mapping) or not table:
        raise fail(f"[variants] must hold one or more [variants.NAME] tables, got {table!r}")
    variants: dict[str, dict[str, Any]] = {}
    for name, overrides in table.items():
        if not _NAME_RE.match(name):
            raise fail(f"[variants.{name}]: names use letters, digits and _.+-", name)
        if not isinstance(overrides, Mapping):
            raise fail(f"[variants.{name}] = {overrides!r}: expected a table of overrides", name)
        flat = dict(_flatten(overrides))
        for path in flat:
            _check_path(path, f"variants.{name}", fail)
            if path in axes:
                raise fail(f"[variants.{name}] sets {path!r}, which is also an axis", path)
        variants[name] = flat
    return variants


def _scenario(value: Any, file: Path | None, fail: Fail) -> Path | dict[str, Any]:
    if isinstance(value, Mapping):
        plain(value, "scenario")  # refuses a table that contains itself, as the grid's
        return dict(value)
    if not isinstance(value, str):
        raise fail(
            f"scenario = {value!r}: expected a path (relative to the sweep file) or a table",
            "scenario",
            value,
        )
    path = Path(value)
    if not path.is_absolute() and file is not None:
        path = file.parent / path
    if not path.is_file():
        raise fail(f"scenario = {value!r}: no such file ({path})", "scenario", value)
    return path


#: The most seeds a campaign may count (``seeds = N``).
SEEDS_MAX = 1_000_000
#: Seeds are unsigned 64-bit integers.
SEED_MAX = 2**64 - 1


def _seeds(value: Any, fail: Fail) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= SEEDS_MAX:
            raise fail(
                f"seeds = {value}: expected a count from 1 to {SEEDS_MAX:,} or a list of seeds",
                "seeds",
                value,
            )
        return tuple(range(1, value + 1))
    if isinstance(value, list) and value:
        for seed in value:
            if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= SEED_MAX:
                raise fail(
                    f"seeds: {seed!r} is not a whole number from 0 to 2**64-1", "seeds", seed
                )
        if len(set(value)) != len(value):
            raise fail("seeds: a seed is listed twice", "seeds", value)
        return tuple(value)
    raise fail(f"seeds = {value!r}: expected a count ≥ 1 or a list of seeds", "seeds", value)
