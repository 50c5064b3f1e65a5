"""docs/scenario-reference.md: generated from the JSON Schema, never stale, and complete —
every key with a type, a default (or "required") and an example, every tagged form spelled
out, no description that sends the reader into the Rust sources."""

from __future__ import annotations

import json
import re
from pathlib import Path

import lastmile
from conftest import lastmile_cli
from lastmile.scenario_reference import iter_keys, markdown, split_default

DOC = Path(__file__).resolve().parent.parent / "docs" / "scenario-reference.md"
REGENERATE = "lastmile schema --markdown > docs/scenario-reference.md"


def test_the_reference_is_not_stale() -> None:
    assert DOC.read_text(encoding="utf-8") == markdown(), f"stale: run `{REGENERATE}`"


def test_schema_markdown_prints_the_reference() -> None:
    proc = lastmile_cli("schema", "--markdown", check=True)
    assert proc.stdout == markdown()


def rows(doc: str) -> list[list[str]]:
    """The cells of every key row (tables whose first column is a `key`)."""
    out = []
    for line in doc.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            out.append(cells)
    return out


def test_every_key_has_a_type_a_default_and_an_example() -> None:
    doc = markdown()
    key_rows = [r for r in rows(doc) if len(r) == 5]
    assert len(key_rows) > 80
    for key, kind, default, _meaning, example in key_rows:
        name = key.strip("`")
        assert kind, key
        assert default and default != "—", f"{key}: no default (say 'Default ...' in its doc)"
        assert example.startswith(f"`{name} = "), (key, example)
    schema_keys = {name for name, _ in iter_keys(lastmile.schema())}
    documented = {r[0].strip("`") for r in key_rows}
    assert schema_keys - {"model", "kind"} <= documented


def test_no_description_points_into_the_rust_sources() -> None:
    for name, prop in iter_keys(lastmile.schema()):
        text = prop.get("description", "")
        assert ".rs" not in text and "crates/" not in text and "see `" not in text, name
    schema = json.loads(lastmile.schema())
    for name, definition in schema["definitions"].items():
        texts = [definition.get("description", "")]
        texts += [f.get("description", "") for f in definition.get("oneOf", [])]
        for text in texts:
            assert ".rs`" not in text and "crates/" not in text, (name, text)
            assert not re.search(r"see `[A-Z]\w+`", text), (name, text)


def test_every_tagged_form_is_spelled_out() -> None:
    doc = markdown()
    for title in (
        "### none",
        "### ber: independent bit errors",
        "### per: fixed packet error rate",
        "### gilbert_elliott, timed (WTCP Table I)",
        "### gilbert_elliott, per bit (TULIP Exp. 5b)",
        "### gilbert_elliott, per frame",
        "### burst: k frames every N bytes (TULIP Exp. 5a)",
        "### on_off: ON/OFF error phases (the survey §3.1)",
        "### drop_list: exactly these frames",
        '### kind = "bulk"',
        '### kind = "poisson"',
        '### kind = "udp_saturate"',
    ):
        assert title in doc, title
    # Each MAC, link layer and agent has its settings described.
    for section in ("## MacSpec", '### kind = "dcf"', '### kind = "fama"', "## LinkLayerSpec",
                    '### kind = "tulip"', '### kind = "rlp"', "## SnoopSpec",
                    "## WtcpSpec", "## ItcpSpec", "## LleSpec", "## TcpSpec"):  # fmt: skip
        assert section in doc, section
    assert "τ = 1 µs" in doc and "21 bytes at 1 Mbps" in doc  # FAMA's constants


def test_every_example_line_of_a_form_loads(tmp_path: Path) -> None:
    """The example of each error-model form works in a real scenario."""
    doc = markdown()
    lines = re.findall(r"^`errors = (\{.*\})`$", doc, flags=re.MULTILINE)
    assert len(lines) == 9
    base = lastmile.examples()["chain-per5-newreno"].path.read_text()
    for table in lines:
        path = tmp_path / "s.toml"
        path.write_text(base)
        scenario = lastmile.load(path, [f"topology.wireless.errors={table}"])
        assert scenario.to_dict()["topology"]["wireless"]["errors"]["model"] in table


def test_split_default_keeps_the_source() -> None:
    text, default = split_default("Duplicate ACKs. Default 3 (RFC 5681 §3.2). More.")
    assert (text, default) == ("Duplicate ACKs. More.", "3 (RFC 5681 §3.2)")
    text, default = split_default('A time. Default "1s" (RFC 6298 §2.1: "set the RTO to 1 s.").')
    assert default == '"1s" (RFC 6298 §2.1: "set the RTO to 1 s.")'
    assert split_default("No default here.") == ("No default here.", None)
