//! Text → document: TOML, YAML or JSON parsed into one `serde_json::Value`, so that
//! overrides and field-path errors work the same whatever the syntax. Syntax errors carry
//! the line and column.
//!
//! Bounds, checked before any parser sees the text, so that no input costs more than time
//! linear in its size: at most `INPUT_MAX_BYTES` of text, and brackets (`[`, `{`) nested at
//! most `NESTING_MAX` deep. A key given twice in one table is refused in every format (TOML
//! refuses it itself; JSON and YAML would keep the last value silently).

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Value};

use super::load::Format;
use crate::errors::ScenarioError;

/// The largest scenario text read: 16 MiB, twice an explicit topology of 10^5 nodes.
pub const INPUT_MAX_BYTES: usize = 16 << 20;

/// The deepest nesting of brackets (`[`, `{`) a scenario text may hold; a scenario needs
/// about six levels.
pub const NESTING_MAX: usize = 64;

const EMPTY: &str =
    "the file is empty; a scenario needs at least `name`, `topology` and one `[[flow]]`";

/// Parses `text` into a document; refuses a syntax error or an empty document.
pub(crate) fn parse(text: &str, format: Format) -> Result<Value, ScenarioError> {
    check_size(text.len())?;
    if text.trim().is_empty() {
        return Err(ScenarioError::problem("", EMPTY));
    }
    check_nesting(text)?;
    let doc = match format {
        Format::Toml => parse_toml(text)?,
        Format::Yaml => parse_yaml(text)?,
        Format::Json => parse_json(text)?,
    };
    let is_empty = match &doc {
        Value::Null => true,
        Value::Object(map) => map.is_empty(),
        _ => false,
    };
    if is_empty {
        return Err(ScenarioError::problem("", EMPTY));
    }
    let holds = match &doc {
        Value::Object(_) => return Ok(doc),
        Value::Array(_) => "a list".to_string(),
        Value::String(s) => format!("the string \"{}\"", crate::errors::clip(s, 40)),
        other => format!("the value {}", crate::errors::clip(&other.to_string(), 40)),
    };
    Err(ScenarioError::problem(
        "",
        format!(
            "the file holds {holds}, expected a table of keys: `name`, `topology` and \
             `[[flow]]` at least"
        ),
    ))
}

/// Refuses a text of more than `INPUT_MAX_BYTES` (`bytes` long, or at least that).
pub(crate) fn check_size(bytes: usize) -> Result<(), ScenarioError> {
    if bytes <= INPUT_MAX_BYTES {
        return Ok(());
    }
    Err(ScenarioError::problem(
        "",
        format!(
            "the scenario is larger than {} MiB, the most lastmile reads",
            INPUT_MAX_BYTES >> 20
        ),
    ))
}

/// Refuses brackets nested deeper than `NESTING_MAX`, naming where the limit is crossed.
/// Quoted strings and `#` comments are skipped (as TOML and YAML write them; JSON has
/// neither `#` nor `'` outside strings), so a bracket inside one does not count.
pub(crate) fn check_nesting(text: &str) -> Result<(), ScenarioError> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'#' => {
                i = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > NESTING_MAX {
                    let (line, column) = line_column(text, i);
                    return Err(ScenarioError::problem(
                        "",
                        format!(
                            "brackets nested more than {NESTING_MAX} deep at line {line}, \
                             column {column}"
                        ),
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

fn syntax_error(lang: &str, line: usize, column: usize, message: &str) -> ScenarioError {
    let message = message.split_whitespace().collect::<Vec<_>>().join(" ");
    ScenarioError::problem(
        "",
        format!("invalid {lang} at line {line}, column {column}: {message}"),
    )
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, before[line_start..].chars().count() + 1)
}

fn parse_toml(text: &str) -> Result<Value, ScenarioError> {
    // Offsets are preserved, so spans point into `text` as written.
    match fold_inline_tables(text).parse::<toml::Table>() {
        Ok(table) => Ok(toml_to_json(toml::Value::Table(table))),
        Err(e) => {
            let (line, column) = line_column(text, e.span().map(|s| s.start).unwrap_or(0));
            Err(syntax_error("TOML", line, column, e.message()))
        }
    }
}

/// TOML 1.1 lets an inline table span lines, hold comments and end with a comma; the `toml`
/// 0.8 parser reads TOML 1.0. Within `{ ... }` this blanks newlines, comments and a trailing
/// comma, byte for byte (a replaced character becomes as many spaces as it had bytes), so
/// positions in errors still point at the text as written. Strings are left untouched.
pub(crate) fn fold_inline_tables(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut stack: Vec<u8> = Vec::new();
    // How many of `stack`'s brackets are braces: inside an inline table when above zero.
    let mut braces = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let in_table = braces > 0;
        match bytes[i] {
            b'"' | b'\'' => i = skip_string(bytes, i),
            b'#' => {
                let end = bytes[i..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |n| i + n);
                if in_table {
                    out[i..end].fill(b' ');
                }
                i = end;
            }
            b'\n' | b'\r' if in_table => {
                out[i] = b' ';
                i += 1;
            }
            b'{' | b'[' => {
                stack.push(bytes[i]);
                braces += usize::from(bytes[i] == b'{');
                i += 1;
            }
            b'}' => {
                if stack.pop() == Some(b'{') {
                    braces -= 1;
                }
                // A trailing comma: the last non-blank byte written before this brace.
                if let Some(j) = out[..i].iter().rposition(|b| !b.is_ascii_whitespace()) {
                    if out[j] == b',' {
                        out[j] = b' ';
                    }
                }
                i += 1;
            }
            b']' => {
                if stack.pop() == Some(b'{') {
                    braces -= 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, and only whole characters (newlines, comment text up
    // to a newline, commas), so the result is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// The index just past the string starting at `start` (basic or literal, single- or
/// multi-line).
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let triple = bytes[start..].starts_with(&[quote; 3]);
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        if quote == b'"' && bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if triple {
            if bytes[i..].starts_with(&[quote; 3]) {
                // Up to two more quotes may belong to the string ("""a"""" is legal).
                let mut end = i + 3;
                while end < bytes.len() && bytes[end] == quote && end < i + 5 {
                    end += 1;
                }
                return end;
            }
        } else if bytes[i] == quote || bytes[i] == b'\n' {
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// Converts TOML to JSON values: datetimes become strings, non-finite floats become their
/// spelling (so the error shows what was written).
pub(crate) fn toml_to_json(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(f.to_string())),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => {
            Value::Object(t.into_iter().map(|(k, v)| (k, toml_to_json(v))).collect())
        }
    }
}

/// Removes serde's own " at line L column C" from a message we locate ourselves.
fn strip_location(message: &str, line: usize, column: usize) -> String {
    message.replacen(&format!(" at line {line} column {column}"), "", 1)
}

fn parse_yaml(text: &str) -> Result<Value, ScenarioError> {
    serde_yaml::from_str::<Strict>(text)
        .map(|s| s.0)
        .map_err(|e| match e.location() {
            Some(loc) => {
                let msg = strip_location(&e.to_string(), loc.line(), loc.column());
                syntax_error("YAML", loc.line(), loc.column(), &msg)
            }
            None => ScenarioError::problem("", format!("invalid YAML: {e}")),
        })
}

fn parse_json(text: &str) -> Result<Value, ScenarioError> {
    serde_json::from_str::<Strict>(text)
        .map(|s| s.0)
        .map_err(|e| {
            let msg = strip_location(&e.to_string(), e.line(), e.column());
            syntax_error("JSON", e.line(), e.column(), &msg)
        })
}

/// A document read with every table's keys distinct: a key given twice is an error
/// naming it (the parser adds where).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a scenario value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // A non-finite float keeps its spelling, as `toml_to_json` does.
        Ok(serde_json::Number::from_f64(v)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(v.to_string())))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<StrictKey>()? {
            let Strict(value) = map.next_value()?;
            match out.entry(key.0) {
                Entry::Vacant(slot) => {
                    slot.insert(value);
                }
                Entry::Occupied(slot) => {
                    return Err(de::Error::custom(format_args!(
                        "the key `{}` is given twice in one table",
                        crate::errors::clip(slot.key(), 40)
                    )));
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// A table key: a string, or (YAML) a number or bool written as a key, kept as its text.
struct StrictKey(String);

impl<'de> Deserialize<'de> for StrictKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Strict::deserialize(d)?.0 {
            Value::String(s) => Ok(StrictKey(s)),
            Value::Number(n) => Ok(StrictKey(n.to_string())),
            Value::Bool(b) => Ok(StrictKey(b.to_string())),
            Value::Null => Ok(StrictKey("null".into())),
            _ => Err(de::Error::custom("a table key must be text")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_toml_multiline_inline_tables_fold_in_place() {
        let text = "a = { x = 1,\n  # note {\n  y = \"#}\\n\",\n}\nb = [1,\n 2] # c\n";
        let folded = fold_inline_tables(text);
        assert_eq!(folded.len(), text.len());
        let v = parse(text, Format::Toml).unwrap();
        assert_eq!(v["a"]["y"], "#}\n");
        assert_eq!(v["b"][1], 2);
    }

    #[test]
    fn scenario_syntax_errors_give_line_and_column() {
        let e = parse("a = 1\nb = \"open\n", Format::Toml).unwrap_err();
        assert!(
            e.expected
                .starts_with("invalid TOML at line 2, column 10: invalid basic string"),
            "{e}"
        );
        let e = parse("a: 1\n b: [\n", Format::Yaml).unwrap_err();
        assert!(e.expected.starts_with("invalid YAML at line "), "{e}");
        let e = parse("{\"a\": 1,,}", Format::Json).unwrap_err();
        assert!(
            e.expected.starts_with("invalid JSON at line 1, column "),
            "{e}"
        );
        let e = parse("  \n", Format::Json).unwrap_err();
        assert!(e.expected.starts_with("the file is empty"), "{e}");
        let e = parse("\"\"", Format::Json).unwrap_err();
        assert!(
            e.expected.starts_with("the file holds the string \"\""),
            "{e}"
        );
        let e = parse("- a\n- b\n", Format::Yaml).unwrap_err();
        assert!(e.expected.starts_with("the file holds a list"), "{e}");
    }

    #[test]
    fn scenario_a_key_given_twice_is_refused_in_every_format() {
        let e = parse("{\"name\": \"a\", \"name\": \"b\"}", Format::Json).unwrap_err();
        assert!(e.expected.contains("`name` is given twice"), "{e}");
        assert!(
            e.expected.starts_with("invalid JSON at line 1, column "),
            "{e}"
        );
        let e = parse("name: a\nseed: 1\nname: b\n", Format::Yaml).unwrap_err();
        assert!(e.expected.contains("`name` is given twice"), "{e}");
        let e = parse("t:\n  x: 1\n  x: 2\n", Format::Yaml).unwrap_err();
        assert!(e.expected.contains("`x` is given twice"), "{e}");
        let e = parse("name = \"a\"\nname = \"b\"\n", Format::Toml).unwrap_err();
        assert!(e.expected.starts_with("invalid TOML at line 2"), "{e}");
        // The same key in two tables is no repetition.
        let v = parse("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}", Format::Json).unwrap();
        assert_eq!(v["b"]["x"], 2);
    }

    #[test]
    fn scenario_deep_brackets_and_huge_texts_are_refused_before_parsing() {
        let deep = format!("a = {}{}\n", "[".repeat(200_000), "]".repeat(200_000));
        let start = std::time::Instant::now();
        for format in [Format::Toml, Format::Yaml, Format::Json] {
            let text = match format {
                Format::Toml => deep.clone(),
                Format::Yaml => format!("a: {}", &deep[4..]),
                Format::Json => format!("{{\"a\": {}}}", &deep[4..deep.len() - 1]),
            };
            let e = parse(&text, format).unwrap_err();
            assert!(
                e.expected
                    .starts_with("brackets nested more than 64 deep at line 1, column "),
                "{e}"
            );
        }
        assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
        // Brackets inside strings and comments do not count.
        let text = format!(
            "a = \"{}\" # {}\nb = [[1]]\n",
            "[".repeat(100),
            "{".repeat(100)
        );
        assert_eq!(parse(&text, Format::Toml).unwrap()["b"][0][0], 1);
        let big = format!("name = \"{}\"\n", "x".repeat(INPUT_MAX_BYTES));
        let e = parse(&big, Format::Toml).unwrap_err();
        assert_eq!(
            e.expected,
            "the scenario is larger than 16 MiB, the most lastmile reads"
        );
    }
}
