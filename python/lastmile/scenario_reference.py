"""The scenario reference (``docs/scenario-reference.md``), generated from the JSON Schema
that the Rust definition exports (`lastmile.schema()`), so it cannot drift from what the
loader reads: ``lastmile schema --markdown > docs/scenario-reference.md`` (``make docs``).

One section per table of the format (a table used at several places, like a link or TCP's
settings, is described once and lists where it goes), each key with its type and unit, its
default and the paper or RFC the default comes from (the "Default ..." sentence of the
key's description), what it means, and a line of TOML to copy. A tagged table (an error
model, an application) gets one section per form, with the form's own example.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["markdown", "split_default"]

#: The file's top-level keys in reading order (the schema lists them alphabetically).
_ROOT_ORDER = ("name", "seed", "stop_time", "topology", "base_station", "flow")

#: The unit types of the format: (name in the reference, what it holds).
_UNIT_TYPES = {
    "Duration": "time",
    "Rate": "rate",
    "ByteSize": "size",
    "QueueLimit": "queue limit",
    "Probability": "probability",
}

_HEADER = """# Scenario reference

Every key of a lastmile scenario file, generated from the JSON Schema (`lastmile schema`) by
`lastmile schema --markdown > docs/scenario-reference.md` (`make docs`); a test fails when
this file is stale, so do not edit it by hand. Scenario files are TOML, YAML or JSON; the
examples are TOML. Start from a built-in example: `lastmile examples --show tulip-basic >
my.toml`. Any key can be changed from the command line with `--set key.path=value` (one per
`--set`; a numeric segment indexes a list: `flow.0.tcp.variant=tahoe`); a whole table is
replaced by writing it inline: `--set 'topology.wireless.errors={model="per", per=0.1}'`.
"""


def _ref(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _unwrap(node: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema of a value, without the `allOf` / `anyOf [X, null]` wrappers; and
    whether null (absent) is allowed."""
    nullable = False
    while True:
        if "allOf" in node and len(node["allOf"]) == 1:
            node = node["allOf"][0]
            continue
        any_of = node.get("anyOf")
        if isinstance(any_of, list) and len(any_of) == 2 and {"type": "null"} in any_of:
            node = next(n for n in any_of if n != {"type": "null"})
            nullable = True
            continue
        return node, nullable


def split_default(description: str) -> tuple[str, str | None]:
    """(the description without its "Default ..." sentence, that sentence's text after
    "Default"), e.g. ``Default 3 (RFC 5681 §3.2).`` → ``3 (RFC 5681 §3.2)``."""
    match = re.search(r"(?:^|(?<=[.)] ))Defaults?:? ", description)
    if match is None:
        return description.strip(), None
    depth, quoted, end = 0, False, len(description)
    for i in range(match.end(), len(description)):
        ch = description[i]
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "([":
            depth += 1
        elif not quoted and ch in ")]":
            depth -= 1
        elif ch == "." and depth == 0 and not quoted and description[i + 1 : i + 2] in (" ", ""):
            end = i
            break
    text = description[match.end() : end].strip()
    rest = " ".join((description[: match.start()] + description[end + 1 :]).split())
    return rest, text


def _toml(value: Any) -> str:
    """`value` as a TOML literal (inline tables for objects, nulls left out)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        # The tag of a tagged table reads first.
        keys = sorted(value, key=lambda k: k not in ("model", "kind"))
        items = [f"{k} = {_toml(value[k])}" for k in keys if value[k] is not None]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    return "?"


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9 _-]", "", title.lower()).replace(" ", "-")


@dataclass
class _Section:
    name: str
    title: str
    description: str
    body: list[str] = field(default_factory=list)


class _Reference:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, dict[str, Any]] = schema.get("definitions", {})
        self.root = schema
        self.sections: dict[str, _Section] = {}
        self.order: list[str] = []
        #: Section → [(the section holding it, its key there)]; "" is the file itself.
        self.edges: dict[str, list[tuple[str, str]]] = {}

    # -- types -------------------------------------------------------------------------

    def enum_values(self, node: dict[str, Any]) -> list[tuple[str, str]] | None:
        """[(value, description)] of a string enum (plain or one `oneOf` entry per value)."""
        if "enum" in node:
            return [(str(v), "") for v in node["enum"]]
        forms = node.get("oneOf")
        if isinstance(forms, list) and forms and all("enum" in f for f in forms):
            return [(str(v), f.get("description", "")) for f in forms for v in f["enum"]]
        return None

    def tagged(self, node: dict[str, Any]) -> str | None:
        """The tag key of a table that comes in forms (`model`, `kind`), if it is one."""
        forms = node.get("oneOf")
        if not isinstance(forms, list) or not forms:
            return None
        for tag in ("model", "kind"):
            if all(tag in f.get("properties", {}) for f in forms):
                return tag
        return None

    def type_of(self, node: dict[str, Any], place: tuple[str, str]) -> tuple[str, str]:
        """(the type cell, a TOML example value) of a value's schema at `place`: (the
        section holding it, its key there)."""
        name = _ref(node)
        target = self.defs.get(name, node) if name else node
        if name in _UNIT_TYPES:
            example = re.search(r'e\.g\. "([^"]+)"', target.get("description", ""))
            sample = example.group(1) if example else "0.1"
            label = f"[{_UNIT_TYPES[name]}](#units)"
            return label, (json.dumps(sample) if name != "Probability" else "0.01")
        values = self.enum_values(target)
        if values is not None:
            title = f"{name or 'value'}"
            self.add_enum(title, target, values, place)
            listed = ", ".join(f"`{v}`" for v, _ in values)
            return f"one of {listed} ([{title}](#{_anchor(title)}))", json.dumps(values[0][0])
        alternatives = target.get("anyOf")
        if isinstance(alternatives, list) and alternatives:
            return self.any_of(alternatives, place)
        tag = self.tagged(target)
        if tag is not None and name is not None:
            self.add_tagged(name, target, tag, place)
            first = target["oneOf"][1 if len(target["oneOf"]) > 1 else 0]
            example = (first.get("examples") or [self.example_of(first)])[0]
            return f"table ([{name}](#{_anchor(name)}))", _toml(example)
        if "properties" in target and name is not None:
            self.add_object(name, target, place)
            return f"table ([{name}](#{_anchor(name)}))", "{ ... }"
        kind = target.get("type")
        kind = next(k for k in kind if k != "null") if isinstance(kind, list) else kind
        if kind == "array":
            item, sample = self.type_of(target.get("items", {}), (place[0], place[1] + "[]"))
            return f"list of {item}", f"[{sample}]"
        if kind == "integer":
            low = target.get("minimum")
            return ("integer ≥ 0" if low == 0 else "integer"), "1"
        if kind == "number":
            return "number", "1.0"
        if kind == "boolean":
            return "boolean", "true"
        return "string", '"text"'

    def any_of(self, alternatives: list[dict[str, Any]], place: tuple[str, str]) -> tuple[str, str]:
        """A value written in one of several forms (`agent = "snoop"` or a table): each
        form's type, joined by "or"; an unnamed list of names is listed in place."""
        cells, samples = [], []
        for alternative in alternatives:
            node, _ = _unwrap(alternative)
            values = None if _ref(node) else self.enum_values(node)
            if values is not None:
                cells.append("one of " + ", ".join(f"`{v}`" for v, _ in values))
                samples.append(json.dumps(values[0][0]))
            else:
                cell, sample = self.type_of(node, place)
                cells.append(cell)
                samples.append(sample)
        return " or ".join(cells), samples[0]

    def example_of(self, form: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in form.get("required", []):
            prop, _ = _unwrap(form["properties"][key])
            enum = prop.get("enum")
            out[key] = enum[0] if enum else json.loads(self.type_of(prop, ("?", key))[1])
        return out

    # -- sections ----------------------------------------------------------------------

    def section(
        self, name: str, title: str, description: str, place: tuple[str, str]
    ) -> _Section | None:
        """The section `name`, noting `place`; None if it was already filled in."""
        edges = self.edges.setdefault(name, [])
        if place[0] != "?" and place not in edges:
            edges.append(place)
        if name in self.sections:
            return None
        self.sections[name] = _Section(name, title, description)
        self.order.append(name)
        return self.sections[name]

    def paths(self, name: str) -> list[str]:
        """Every dotted path at which section `name` occurs in a file."""
        if name == "":
            return [""]
        out = []
        for owner, key in self.edges.get(name, []):
            out += [f"{p}.{key}" if p else key for p in self.paths(owner)]
        return list(dict.fromkeys(out))

    def rows(self, node: dict[str, Any], owner: str) -> list[str]:
        rows = ["| key | type | default | meaning | example |", "|---|---|---|---|---|"]
        required = set(node.get("required", []))
        properties = node.get("properties", {})
        order = [k for k in _ROOT_ORDER if k in properties] if owner == "" else []
        for key in [*order, *(k for k in properties if k not in order)]:
            raw = properties[key]
            prop, _nullable = _unwrap(raw)
            type_cell, sample = self.type_of(prop, (owner, key))
            text, default_text = split_default(raw.get("description", ""))
            if default_text is None and "default" in raw:
                given = raw["default"]
                many = isinstance(given, dict) and len([v for v in given.values() if v]) > 2
                default_text = "each key's default" if many else f"`{_toml(given)}`"
            if key in required:
                default_text = "required"
            literal = re.match(r'^("[^"]*"|-?\d[\d.e+-]*|true|false)(?:\s|$)', default_text or "")
            if literal and "<" not in literal.group(1):
                sample = literal.group(1)
            elif "default" in raw and not isinstance(raw["default"], dict | list):
                sample = _toml(raw["default"])
            rows.append(
                f"| `{key}` | {_cell(type_cell)} | {_cell(default_text or '—')} | "
                f"{_cell(text)} | `{_cell(f'{key} = {sample}')}` |"
            )
        return rows

    def add_object(self, name: str, node: dict[str, Any], place: tuple[str, str]) -> None:
        section = self.section(name, name, node.get("description", ""), place)
        if section is not None:
            section.body = self.rows(node, name)

    def add_enum(
        self,
        name: str,
        node: dict[str, Any],
        values: list[tuple[str, str]],
        place: tuple[str, str],
    ) -> None:
        section = self.section(name, name, node.get("description", ""), place)
        if section is not None:
            section.body = ["| value | meaning |", "|---|---|"]
            section.body += [f"| `{v}` | {_cell(d)} |" for v, d in values]

    def add_tagged(self, name: str, node: dict[str, Any], tag: str, place: tuple[str, str]) -> None:
        section = self.section(name, name, node.get("description", ""), place)
        if section is None:
            return
        for form in node["oneOf"]:
            value = form["properties"][tag]["enum"][0]
            title = form.get("title") or f'{tag} = "{value}"'
            example = (form.get("examples") or [self.example_of(form)])[0]
            section.body += [
                "",
                f"### {title}",
                "",
                _cell(form.get("description", "")),
                "",
                f"`{_cell(f'{place[1]} = {_toml(example)}')}`",
                "",
            ]
            fields = {k: v for k, v in form.get("properties", {}).items() if k != tag}
            if fields:
                section.body += self.rows({**form, "properties": fields}, name)

    # -- the page ----------------------------------------------------------------------

    def units(self) -> list[str]:
        lines = [
            "## Units",
            "",
            "Quantities are strings with a unit; probabilities are plain numbers.",
            "",
            "| type | units | example | pattern |",
            "|---|---|---|---|",
        ]
        for name, label in _UNIT_TYPES.items():
            node = self.defs.get(name, {})
            pattern = node.get("pattern", "")
            units = re.search(r"\(([^()]*)\)\$$", pattern)
            example = re.search(r'e\.g\. "([^"]+)"', node.get("description", ""))
            sample = example.group(1) if example else ""
            unit_list = units.group(1).replace("|", ", ") if units else "—"
            if name == "Probability":
                unit_list, sample, pattern = "none: a number from 0 to 1", "0.05", ""
            lines.append(
                f"| {label} | {_cell(unit_list)} | `{sample}` | "
                f"{'`' + _cell(pattern) + '`' if pattern else '—'} |"
            )
        lines += [
            "",
            "Sizes are SI (`KB` = 1000 bytes; `KiB` = 1024); rates are bits per second "
            "(`kbps` = 1000 bps).",
            "",
        ]
        return lines

    def render(self) -> str:
        root = _Section("", "The scenario file", self.root.get("description", ""))
        root.body = self.rows(self.root, "")
        lines = [_HEADER, *self.units(), "## The scenario file", ""]
        lines += [_cell(root.description), "", *root.body, ""]
        for name in self.order:
            s = self.sections[name]
            lines += [f"## {s.title}", ""]
            places = self.paths(name)
            if places:
                where = ", ".join(f"`{p}`" for p in places)
                lines += [f"Where: {where}.", ""]
            if s.description:
                lines += [_cell(s.description), ""]
            lines += [*s.body, ""]
        return "\n".join(lines).rstrip() + "\n"


def markdown(schema_json: str | None = None) -> str:
    """The scenario reference as Markdown, from `schema_json` (default: the core's)."""
    if schema_json is None:
        from lastmile import _core

        schema_json = _core.schema()
    return _Reference(json.loads(schema_json)).render()


def iter_keys(schema_json: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (property name, raw property schema) in the schema, forms included."""
    schema = json.loads(schema_json)
    nodes = [schema, *schema.get("definitions", {}).values()]
    while nodes:
        node = nodes.pop()
        nodes.extend(node.get("oneOf", []))
        yield from node.get("properties", {}).items()
