//! `--set key.path=value` overrides, applied to the parsed document before it is
//! deserialized, so an overridden value is checked exactly like one written in the file.
//!
//! Paths use the file's own keys, dotted; a numeric segment indexes an array
//! (`flow.0.tcp.variant=newreno`). Missing tables on the way are created. The value is read
//! as a TOML value when it is one (number, bool, quoted string, `{...}` table, `[...]`
//! array), else taken as a plain string, so `newreno` and `10s` need no quotes. A value is
//! held to the same bounds as a file (`document::check_size`, `document::check_nesting`).
//!
//! TCP's `variant` is a shorthand for `recovery` and `cc` together. An override of one of
//! those on a table that writes `variant` replaces the part of the shorthand it names: the
//! shorthand is first written out as `recovery` and `cc`, so `--set flow.0.tcp.cc=cubic`
//! on `variant = "newreno"` runs NewReno's recovery with CUBIC. An override of `variant`
//! on a table that writes `recovery` or `cc` replaces both.

use serde_json::{Map, Value};

use super::document::{check_nesting, check_size, toml_to_json};
use crate::errors::{path_string, ScenarioError, Seg};

/// An override as applied: the path it resolved to and the text the user wrote.
#[derive(Clone, Debug)]
pub(crate) struct Applied {
    pub path: Vec<Seg>,
    pub text: String,
}

impl Applied {
    /// The file label for errors that this override caused.
    pub fn label(&self, origin: &str) -> String {
        format!("{origin} (--set {})", self.text)
    }

    /// True if an error at `path` (as displayed, `flow[0].tcp`) lies on or under this
    /// override's path, or on the way to it.
    pub fn covers(&self, path: &str) -> bool {
        let mine = path_string(&self.path);
        let prefix_of = |short: &str, long: &str| {
            long.strip_prefix(short)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        };
        !path.is_empty() && (prefix_of(&mine, path) || prefix_of(path, &mine))
    }
}

/// Applies `overrides` in order to `doc`.
pub(crate) fn apply(
    doc: &mut Value,
    overrides: &[String],
    origin: &str,
) -> Result<Vec<Applied>, ScenarioError> {
    let mut applied = Vec::with_capacity(overrides.len());
    for text in overrides {
        let label = format!("{origin} (--set {text})");
        let path = apply_one(doc, text).map_err(|e| e.in_file(&label))?;
        applied.push(Applied {
            path,
            text: text.clone(),
        });
    }
    Ok(applied)
}

fn apply_one(doc: &mut Value, text: &str) -> Result<Vec<Seg>, ScenarioError> {
    let (key, raw) = text.split_once('=').ok_or_else(|| {
        ScenarioError::bad_value("", quote(text), "an override of the form key.path=value")
    })?;
    let keys: Vec<&str> = key.trim().split('.').collect();
    if keys.iter().any(|k| k.trim().is_empty()) {
        return Err(ScenarioError::bad_value(
            "",
            quote(key),
            "a dotted key path such as flow.0.tcp.variant",
        ));
    }
    check_size(raw.len())?;
    check_nesting(raw)?;
    let value = parse_value(raw.trim());
    let mut path = Vec::with_capacity(keys.len());
    let mut node = doc;
    for (i, k) in keys.iter().map(|k| k.trim()).enumerate() {
        let is_last = i + 1 == keys.len();
        if is_last {
            let parent = path.last().cloned();
            if let (Some(Seg::Key(table)), Value::Object(map)) = (parent, &mut *node) {
                if table == "tcp" {
                    split_shorthand(map, k);
                }
            }
        }
        node = step(node, k, &mut path)?;
        if is_last {
            *node = value;
            break;
        }
    }
    Ok(path)
}

/// Before an override of `key` in a TCP table: `recovery` or `cc` over a `variant` writes
/// the variant out as the two (so the override replaces only its part); `variant` over
/// `recovery` or `cc` drops them (the variant names both). A variant the core does not
/// know is left for the checks to report.
fn split_shorthand(tcp: &mut Map<String, Value>, key: &str) {
    use crate::tcp::spec::TcpVariant;
    match key {
        "recovery" | "cc" => {
            let Some(written) = tcp.get("variant") else {
                return;
            };
            let Ok(variant) = serde_json::from_value::<TcpVariant>(written.clone()) else {
                return;
            };
            tcp.remove("variant");
            tcp.entry("recovery")
                .or_insert_with(|| Value::from(variant.recovery().name()));
            tcp.entry("cc")
                .or_insert_with(|| Value::from(variant.cc().name()));
        }
        "variant" => {
            tcp.remove("recovery");
            tcp.remove("cc");
        }
        _ => {}
    }
}

/// Moves from `node` to its child `key`, creating a missing table; records the step.
fn step<'a>(
    node: &'a mut Value,
    key: &str,
    path: &mut Vec<Seg>,
) -> Result<&'a mut Value, ScenarioError> {
    match node {
        Value::Array(items) => {
            let Ok(index) = key.parse::<usize>() else {
                return Err(ScenarioError::bad_value(
                    path_string(path),
                    quote(key),
                    format!(
                        "an array index (0 to {}): this key holds an array",
                        items.len().saturating_sub(1)
                    ),
                ));
            };
            let len = items.len();
            path.push(Seg::Index(index));
            items.get_mut(index).ok_or_else(|| {
                ScenarioError::bad_value(
                    path_string(path),
                    index.to_string(),
                    format!(
                        "an index below {len} (the array has {len} entr{})",
                        if len == 1 { "y" } else { "ies" }
                    ),
                )
            })
        }
        Value::Object(map) => {
            path.push(Seg::Key(key.to_string()));
            Ok(map
                .entry(key.to_string())
                .or_insert_with(|| Value::Object(Map::new())))
        }
        other => Err(ScenarioError::problem(
            path_string(path),
            format!(
                "holds {}, not a table, so it has no key `{key}`",
                describe(other)
            ),
        )),
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing".into(),
        Value::String(s) => quote(s),
        other => other.to_string(),
    }
}

fn quote(s: &str) -> String {
    format!("\"{s}\"")
}

/// A TOML value if `raw` is one, else `raw` as a plain string.
pub(crate) fn parse_value(raw: &str) -> Value {
    if raw.contains('\n') {
        return Value::String(raw.to_string());
    }
    match format!("v = {raw}").parse::<toml::Table>() {
        Ok(mut t) if t.len() == 1 => t.remove("v").map(toml_to_json).unwrap_or_default(),
        _ => Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scenario_override_values_parse_as_toml_or_plain_strings() {
        assert_eq!(parse_value("newreno"), json!("newreno"));
        assert_eq!(parse_value("10s"), json!("10s"));
        assert_eq!(parse_value("3.9e-6"), json!(3.9e-6));
        assert_eq!(parse_value("3"), json!(3));
        assert_eq!(parse_value("true"), json!(true));
        assert_eq!(parse_value("\"a b\""), json!("a b"));
        assert_eq!(
            parse_value("{ model = \"per\", per = 0.1 }"),
            json!({"model": "per", "per": 0.1})
        );
        assert_eq!(parse_value("[1, 2]"), json!([1, 2]));
    }

    #[test]
    fn scenario_override_creates_tables_and_indexes_arrays() {
        let mut doc = json!({"flow": [{"src": "fh"}]});
        let applied = apply(
            &mut doc,
            &["flow.0.tcp.variant=newreno".into(), "seed=3".into()],
            "t.toml",
        )
        .unwrap();
        assert_eq!(doc["flow"][0]["tcp"]["variant"], json!("newreno"));
        assert_eq!(doc["seed"], json!(3));
        assert_eq!(path_string(&applied[0].path), "flow[0].tcp.variant");

        let err = apply(&mut doc, &["flow.2.src=x".into()], "t.toml").unwrap_err();
        assert_eq!(err.path, "flow[2]");
        assert_eq!(err.file, "t.toml (--set flow.2.src=x)");
        assert!(err.expected.contains("below 1"), "{err}");

        let err = apply(&mut doc, &["seed.x=1".into()], "t.toml").unwrap_err();
        assert_eq!(err.path, "seed");
        let err = apply(&mut doc, &["novalue".into()], "t.toml").unwrap_err();
        assert!(err.expected.contains("key.path=value"), "{err}");
    }

    #[test]
    fn scenario_override_of_cc_or_recovery_replaces_its_part_of_the_variant() {
        let mut doc = json!({"flow": [{"tcp": {"variant": "newreno", "mss": "1000B"}}]});
        apply(&mut doc, &["flow.0.tcp.cc=cubic".into()], "t.toml").unwrap();
        assert_eq!(
            doc["flow"][0]["tcp"],
            json!({"recovery": "newreno", "cc": "cubic", "mss": "1000B"})
        );
        let mut doc = json!({"flow": [{"tcp": {"variant": "tahoe"}}]});
        apply(&mut doc, &["flow.0.tcp.recovery=sack".into()], "t.toml").unwrap();
        assert_eq!(
            doc["flow"][0]["tcp"],
            json!({"recovery": "sack", "cc": "reno"})
        );
        // A variant replaces both halves written out.
        let mut doc = json!({"flow": [{"tcp": {"recovery": "sack", "cc": "cubic"}}]});
        apply(&mut doc, &["flow.0.tcp.variant=reno".into()], "t.toml").unwrap();
        assert_eq!(doc["flow"][0]["tcp"], json!({"variant": "reno"}));
        // Only TCP tables: another table's `variant` is left alone.
        let mut doc = json!({"x": {"variant": "newreno"}});
        apply(&mut doc, &["x.cc=cubic".into()], "t.toml").unwrap();
        assert_eq!(doc["x"], json!({"variant": "newreno", "cc": "cubic"}));
    }

    #[test]
    fn scenario_override_values_are_bounded_like_files() {
        let mut doc = json!({});
        let deep = format!("x={}{}", "[".repeat(5000), "]".repeat(5000));
        let err = apply(&mut doc, &[deep], "t.toml").unwrap_err();
        assert!(
            err.expected.starts_with("brackets nested more than 64"),
            "{err}"
        );
    }
}
