//! Text → document: TOML, YAML or JSON parsed into one `serde_json::Value`, so that
//! overrides and field-path errors work the same whatever the syntax. Syntax errors carry
//! the line and column.

use serde_json::Value;

use super::error::ScenarioError;
use super::load::Format;

const EMPTY: &str =
    "the file is empty; a scenario needs at least `name`, `topology` and one `[[flow]]`";

/// Parses `text` into a document; refuses a syntax error or an empty document.
pub(crate) fn parse(text: &str, format: Format) -> Result<Value, ScenarioError> {
    if text.trim().is_empty() {
        return Err(ScenarioError::problem("", EMPTY));
    }
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
        Value::String(s) => format!("the string \"{}\"", super::error::clip(s, 40)),
        other => format!("the value {}", super::error::clip(&other.to_string(), 40)),
    };
    Err(ScenarioError::problem(
        "",
        format!(
            "the file holds {holds}, expected a table of keys: `name`, `topology` and \
             `[[flow]]` at least"
        ),
    ))
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
    let mut i = 0;
    while i < bytes.len() {
        let in_table = stack.contains(&b'{');
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
                i += 1;
            }
            b'}' => {
                stack.pop();
                // A trailing comma: the last non-blank byte written before this brace.
                if let Some(j) = out[..i].iter().rposition(|b| !b.is_ascii_whitespace()) {
                    if out[j] == b',' {
                        out[j] = b' ';
                    }
                }
                i += 1;
            }
            b']' => {
                stack.pop();
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
    serde_yaml::from_str::<Value>(text).map_err(|e| match e.location() {
        Some(loc) => {
            let msg = strip_location(&e.to_string(), loc.line(), loc.column());
            syntax_error("YAML", loc.line(), loc.column(), &msg)
        }
        None => ScenarioError::problem("", format!("invalid YAML: {e}")),
    })
}

fn parse_json(text: &str) -> Result<Value, ScenarioError> {
    serde_json::from_str::<Value>(text).map_err(|e| {
        let msg = strip_location(&e.to_string(), e.line(), e.column());
        syntax_error("JSON", e.line(), e.column(), &msg)
    })
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
}
