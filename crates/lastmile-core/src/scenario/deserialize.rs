//! Document → `Scenario`, with every serde error turned into a field path, the bad value
//! and what was expected.
//!
//! `serde_path_to_error` tracks the path through structs and arrays. Internally tagged
//! enums (`errors = { model = ... }`, `app = { kind = ... }`) buffer their content, so an
//! error inside one stops at the enum's path; we then locate the culprit generically by
//! re-deserializing the document with one change at a time: the key whose removal makes
//! the error go away is the one at fault, and the tag is the key whose value, when made
//! unknown, yields "unknown variant". Within an array the culprit is the first entry that
//! fails, found by bisection over prefixes of the array, so that locating a bad entry at
//! the end of a long list costs O(n log n), not O(n²). Serde's messages are mapped into plain words
//! (`u32` → "a whole number ≥ 0", `map` → "a table"), and lists of allowed names come with
//! a "did you mean".

use serde_json::Value;

use super::model::{AgentChoice, BaseStations, Scenario};
use crate::errors::{did_you_mean, join, path_string, ScenarioError, Seg};

/// A raw failure: where serde stopped and what it said.
#[derive(Clone, Debug, PartialEq)]
struct Failure {
    path: Vec<Seg>,
    message: String,
}

/// A value no variant or unit parser accepts, used to probe for the allowed names.
const PROBE: &str = "\u{1}";

/// Deserializes `doc` into a `Scenario`, or explains the first problem.
pub(crate) fn deserialize(doc: &Value) -> Result<Scenario, ScenarioError> {
    let scenario = attempt(doc).map_err(|f| explain(doc, f))?;
    // Serde ignores `deny_unknown_fields` for the unit variants of a tagged enum
    // (`{ model = "none", ber = 1 }`): every key of those tables must survive a round
    // trip. Only the tagged tables (error models, applications) are serialized back, so
    // the check costs little next to parsing, whatever the topology's size.
    for (mut path, written) in tagged_tables(&scenario) {
        let Some(node) = get(doc, &path) else {
            continue;
        };
        if let Some(e) = unused_key(node, &written, &mut path) {
            return Err(e);
        }
    }
    Ok(scenario)
}

/// Every internally tagged table of `s` (`errors`, `reverse_errors`, `app`, an agent
/// written as a table) with its path, serialized back.
fn tagged_tables(s: &Scenario) -> Vec<(Vec<Seg>, Value)> {
    let key = |k: &str| Seg::Key(k.to_string());
    let mut out = Vec::new();
    let mut link = |at: Vec<Seg>, spec: &super::model::LinkSpec| {
        for (name, model) in [
            ("errors", &spec.errors),
            ("reverse_errors", &spec.reverse_errors),
        ] {
            if let Ok(v) = serde_json::to_value(model) {
                let mut path = at.clone();
                path.push(key(name));
                out.push((path, v));
            }
        }
    };
    let t = &s.topology;
    for (name, spec) in [("wired", &t.wired), ("wireless", &t.wireless)] {
        if let Some(spec) = spec {
            link(vec![key("topology"), key(name)], spec);
        }
    }
    for (i, spec) in t.links.iter().enumerate() {
        link(vec![key("topology"), key("links"), Seg::Index(i)], spec);
    }
    for (i, f) in s.flows.iter().enumerate() {
        if let Ok(v) = serde_json::to_value(&f.app) {
            out.push((vec![key("flow"), Seg::Index(i), key("app")], v));
        }
    }
    let agents: Vec<(Vec<Seg>, &AgentChoice)> = match &s.base_station {
        BaseStations::One(one) => vec![(vec![key("base_station"), key("agent")], &one.agent)],
        BaseStations::Many(list) => list
            .iter()
            .enumerate()
            .map(|(i, b)| {
                (
                    vec![key("base_station"), Seg::Index(i), key("agent")],
                    &b.agent,
                )
            })
            .collect(),
    };
    for (path, choice) in agents {
        if let (AgentChoice::Table(_), Ok(v)) = (choice, serde_json::to_value(choice)) {
            out.push((path, v));
        }
    }
    out
}

/// The first key of `doc` that the deserialized value, serialized again (`back`), lacks.
fn unused_key(doc: &Value, back: &Value, path: &mut Vec<Seg>) -> Option<ScenarioError> {
    match (doc, back) {
        (Value::Object(d), Value::Object(b)) => {
            for (key, value) in d {
                path.push(Seg::Key(key.clone()));
                let found = match b.get(key) {
                    Some(v) => unused_key(value, v, path),
                    None => {
                        let allowed: Vec<&str> = b.keys().map(String::as_str).collect();
                        Some(
                            ScenarioError::problem(
                                path_string(path),
                                format!(
                                    "unknown key, expected one of {}",
                                    join(allowed.iter().copied())
                                ),
                            )
                            .with_hint(did_you_mean(key, allowed.iter().copied())),
                        )
                    }
                };
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        (Value::Array(d), Value::Array(b)) => {
            d.iter().zip(b).enumerate().find_map(|(i, (dv, bv))| {
                path.push(Seg::Index(i));
                let found = unused_key(dv, bv, path);
                path.pop();
                found
            })
        }
        _ => None,
    }
}

fn attempt(doc: &Value) -> Result<Scenario, Failure> {
    serde_path_to_error::deserialize(doc).map_err(|e| {
        let path = e
            .path()
            .iter()
            .filter_map(|seg| match seg {
                serde_path_to_error::Segment::Seq { index } => Some(Seg::Index(*index)),
                serde_path_to_error::Segment::Map { key } => Some(Seg::Key(key.clone())),
                serde_path_to_error::Segment::Enum { variant } => Some(Seg::Key(variant.clone())),
                serde_path_to_error::Segment::Unknown => None,
            })
            .collect();
        Failure {
            path,
            message: e.into_inner().to_string(),
        }
    })
}

/// The same failure as `original`, after a change to the document?
fn still_fails(doc: &Value, original: &Failure) -> bool {
    matches!(attempt(doc), Err(f) if &f == original)
}

fn get<'a>(doc: &'a Value, path: &[Seg]) -> Option<&'a Value> {
    path.iter().try_fold(doc, |node, seg| match (seg, node) {
        (Seg::Key(k), Value::Object(m)) => m.get(k),
        (Seg::Index(i), Value::Array(a)) => a.get(*i),
        _ => None,
    })
}

fn get_mut<'a>(doc: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    path.iter().try_fold(doc, |node, seg| match (seg, node) {
        (Seg::Key(k), Value::Object(m)) => m.get_mut(k),
        (Seg::Index(i), Value::Array(a)) => a.get_mut(*i),
        _ => None,
    })
}

/// A copy of `doc` with the node at `path` replaced by `f(node)`.
fn with_node(doc: &Value, path: &[Seg], f: impl FnOnce(&mut Value)) -> Value {
    let mut copy = doc.clone();
    if let Some(node) = get_mut(&mut copy, path) {
        f(node);
    }
    copy
}

/// The names listed by serde after "expected": "one of `a`, `b`", "`a`", or none.
fn listed_names(after: &str) -> Vec<String> {
    after
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Text between the first pair of backticks.
fn first_quoted(message: &str) -> Option<&str> {
    message.split('`').nth(1)
}

fn explain(doc: &Value, failure: Failure) -> ScenarioError {
    let msg = failure.message.clone();
    let mut path = failure.path.clone();
    let node = get(doc, &path);
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        let field = first_quoted(rest).unwrap_or_default().to_string();
        let allowed = listed_names(rest.split_once(", ").map(|x| x.1).unwrap_or(""));
        if path.last() != Some(&Seg::Key(field.clone())) {
            path.push(Seg::Key(field.clone()));
        }
        let expected = if allowed.is_empty() {
            "unknown key; this table takes no other keys".to_string()
        } else {
            format!(
                "unknown key, expected one of {}",
                join(allowed.iter().map(String::as_str))
            )
        };
        return ScenarioError::problem(path_string(&path), expected)
            .with_hint(did_you_mean(&field, allowed.iter().map(String::as_str)));
    }
    if let Some(rest) = msg.strip_prefix("missing field ") {
        let field = first_quoted(rest).unwrap_or_default().to_string();
        // A missing tag: say which values it takes.
        let tag_values = node
            .filter(|n| n.is_object())
            .and_then(|_| probe_variants(doc, &path, Some(&field)));
        path.push(Seg::Key(field));
        let description = match tag_values {
            Some(names) => format!(
                "missing required key, expected one of {}",
                join(names.iter().map(String::as_str))
            ),
            None => "missing required key".to_string(),
        };
        return ScenarioError::problem(path_string(&path), description);
    }
    if let Some(rest) = msg.strip_prefix("unknown variant ") {
        let variant = first_quoted(rest).unwrap_or_default().to_string();
        let allowed = listed_names(rest.split_once(", expected ").map(|x| x.1).unwrap_or(""));
        if let Some(Value::Object(map)) = node {
            if let Some((tag, _)) = map
                .iter()
                .find(|(_, v)| v.as_str() == Some(variant.as_str()))
            {
                path.push(Seg::Key(tag.clone()));
            }
        }
        let hint = tcp_name_elsewhere(&path, &variant)
            .or_else(|| did_you_mean(&variant, allowed.iter().map(String::as_str)));
        return ScenarioError::bad_value(
            path_string(&path),
            format!("\"{variant}\""),
            format!("one of {}", join(allowed.iter().map(String::as_str))),
        )
        .with_hint(hint);
    }
    // A bad value somewhere under a buffered (tagged) table: find the key at fault.
    if !msg.starts_with("invalid type: map") && !msg.starts_with("invalid type: sequence") {
        path = locate_culprit(doc, path, &failure);
    }
    value_error(doc, &path, &msg)
}

/// A name given to the wrong one of TCP's `variant`, `recovery` and `cc` (`variant =
/// "cubic"`): where it belongs, as a hint.
fn tcp_name_elsewhere(path: &[Seg], name: &str) -> Option<String> {
    use crate::tcp::spec::{CcKind, RecoveryKind, TcpVariant};
    let [.., Seg::Key(table), Seg::Key(field)] = path else {
        return None;
    };
    if table != "tcp" {
        return None;
    }
    let value = Value::String(name.to_string());
    let is_cc = serde_json::from_value::<CcKind>(value.clone()).is_ok();
    let is_recovery = serde_json::from_value::<RecoveryKind>(value.clone()).is_ok()
        || serde_json::from_value::<TcpVariant>(value).is_ok();
    let at = path_string(&path[..path.len() - 1]);
    match field.as_str() {
        "variant" | "recovery" if is_cc => Some(format!(
            "\"{name}\" is a congestion control: set {at}.cc = \"{name}\""
        )),
        "cc" if is_recovery => Some(format!(
            "\"{name}\" is a loss recovery: set {at}.recovery = \"{name}\""
        )),
        _ => None,
    }
}

/// The first entry of the array at `path` that `failure` comes from: the shortest prefix
/// of the array that still fails alike ends with it (entries are read in order, so a
/// prefix holding the culprit fails as the whole array does, a shorter one does not).
fn first_failing_entry(doc: &Value, path: &[Seg], len: usize, failure: &Failure) -> Option<Seg> {
    let fails_with = |n: usize| {
        let prefix = with_node(doc, path, |node| {
            if let Value::Array(items) = node {
                items.truncate(n);
            }
        });
        still_fails(&prefix, failure)
    };
    // Invariant: a prefix of `hi` entries fails, one of `lo` does not.
    let (mut lo, mut hi) = (0, len);
    if fails_with(0) {
        return None;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fails_with(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(Seg::Index(hi - 1))
}

/// Descends from `path` into tables and arrays to the child whose removal makes `failure`
/// go away (tags excluded), as long as there is one.
fn locate_culprit(doc: &Value, mut path: Vec<Seg>, failure: &Failure) -> Vec<Seg> {
    loop {
        let children: Vec<Seg> = match get(doc, &path) {
            Some(Value::Object(map)) => map.keys().map(|k| Seg::Key(k.clone())).collect(),
            Some(Value::Array(items)) => {
                match first_failing_entry(doc, &path, items.len(), failure) {
                    Some(entry) => {
                        path.push(entry);
                        continue;
                    }
                    None => return path,
                }
            }
            _ => return path,
        };
        let culprit = children.into_iter().find(|child| {
            if is_tag(doc, &path, child) {
                return false;
            }
            let without = with_node(doc, &path, |node| match (node, child) {
                (Value::Object(m), Seg::Key(k)) => {
                    m.remove(k);
                }
                (Value::Array(a), Seg::Index(i)) => {
                    a.remove(*i);
                }
                _ => {}
            });
            !still_fails(&without, failure)
        });
        match culprit {
            Some(child) => path.push(child),
            None => return path,
        }
    }
}

/// True if `child` of the table at `path` is an enum tag: making its value unknown yields
/// "unknown variant".
fn is_tag(doc: &Value, path: &[Seg], child: &Seg) -> bool {
    let Seg::Key(key) = child else { return false };
    if !get(doc, path)
        .and_then(|n| n.get(key))
        .is_some_and(Value::is_string)
    {
        return false;
    }
    let probed = with_node(doc, path, |node| {
        node[key.as_str()] = Value::String(PROBE.into());
    });
    matches!(attempt(&probed), Err(f) if f.message.starts_with("unknown variant "))
}

/// The variant names accepted at `path`: for a tagged table (`tag` given) by setting the
/// tag to an unknown value, for a plain enum by replacing the value itself.
fn probe_variants(doc: &Value, path: &[Seg], tag: Option<&str>) -> Option<Vec<String>> {
    let probed = with_node(doc, path, |node| match tag {
        Some(tag) => *node = serde_json::json!({ tag: PROBE }),
        None => *node = Value::String(PROBE.into()),
    });
    match attempt(&probed) {
        Err(f) if f.message.starts_with("unknown variant ") => f
            .message
            .split_once(", expected ")
            .map(|(_, names)| listed_names(names)),
        _ => None,
    }
}

/// The tag name of the internally tagged enum at `path`, found by offering an empty table.
fn probe_tag(doc: &Value, path: &[Seg]) -> Option<String> {
    let probed = with_node(doc, path, |node| *node = Value::Object(Default::default()));
    match attempt(&probed) {
        Err(f) if f.message.starts_with("missing field ") => {
            first_quoted(&f.message).map(str::to_string)
        }
        _ => None,
    }
}

/// An error about the value at `path`, from serde's `invalid type/value` messages or the
/// unit parsers' `invalid value "<v>": expected <what>`.
fn value_error(doc: &Value, path: &[Seg], msg: &str) -> ScenarioError {
    let written = get(doc, path).map(render_value);
    let (value, expected) = if let Some(rest) = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))
    {
        match rest.split_once(", expected ") {
            Some((got, exp)) => (
                written.unwrap_or_else(|| render_unexpected(got)),
                plain_expected(doc, path, exp),
            ),
            None => (written.unwrap_or_default(), rest.to_string()),
        }
    } else if let Some(rest) = msg.strip_prefix("invalid value ") {
        // The unit types: `invalid value "10": expected a rate ...`.
        match rest.split_once(": expected ") {
            Some((got, exp)) => (got.to_string(), exp.to_string()),
            None => (written.unwrap_or_default(), rest.to_string()),
        }
    } else {
        return ScenarioError::problem(path_string(path), msg);
    };
    ScenarioError::bad_value(path_string(path), value, expected)
}

/// A document value as the user wrote it: strings quoted, tables and arrays named.
fn render_value(v: &Value) -> String {
    match v {
        Value::Object(_) => "a table".into(),
        Value::Array(_) => "an array".into(),
        Value::Null => "nothing".into(),
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    }
}

/// Serde's "unexpected" phrase (`integer \`42\``, `map`) as a value.
fn render_unexpected(got: &str) -> String {
    if let Some(v) = first_quoted(got) {
        return v.to_string();
    }
    match got {
        "map" => "a table".into(),
        "sequence" => "an array".into(),
        "null" | "unit value" => "nothing".into(),
        other => other.to_string(),
    }
}

/// Serde's "expected" phrase in plain words.
fn plain_expected(doc: &Value, path: &[Seg], exp: &str) -> String {
    match exp {
        "u64" | "usize" => "a whole number, 0 or more".into(),
        "u8" | "u16" | "u32" => {
            let max = match exp {
                "u8" => u8::MAX as u32,
                "u16" => u16::MAX as u32,
                _ => u32::MAX,
            };
            format!("a whole number from 0 to {max}")
        }
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a sequence" => "an array".into(),
        _ if exp.starts_with("struct ") => "a table".into(),
        _ if exp.starts_with("internally tagged enum ") => {
            let tag = probe_tag(doc, path);
            let names = tag
                .as_deref()
                .and_then(|t| probe_variants(doc, path, Some(t)));
            match (tag, names) {
                (Some(t), Some(n)) => format!(
                    "a table with `{t}` set to one of {}",
                    join(n.iter().map(String::as_str))
                ),
                _ => "a table".into(),
            }
        }
        _ if exp.starts_with("enum ") || exp == "string or map" => {
            match probe_variants(doc, path, None) {
                Some(n) => format!("one of {}", join(n.iter().map(String::as_str))),
                None => exp.to_string(),
            }
        }
        _ => exp.to_string(),
    }
}
