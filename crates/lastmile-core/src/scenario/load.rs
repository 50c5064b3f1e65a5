//! Reading a scenario: text → document (TOML, YAML or JSON) → `--set` overrides → network
//! presets expanded (`presets.rs`) → `Scenario` (with field-path errors) → semantic checks.
//!
//! A scenario path must name a regular file (not a directory, a FIFO or a device such as
//! `/dev/zero`), and no more than `document::INPUT_MAX_BYTES` of it is ever read.

use std::io::Read;
use std::path::Path;

use super::deserialize::deserialize;
use super::document;
use super::model::Scenario;
use super::overrides::{self, Applied};
use super::validate::validate;
use crate::errors::{ScenarioError, Seg};

/// A scenario file's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Toml,
    Yaml,
    Json,
}

impl Format {
    /// The format named by a file's extension (`.toml`, `.yaml`/`.yml`, `.json`).
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "toml" => Some(Format::Toml),
            "yaml" | "yml" => Some(Format::Yaml),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// Reads, overrides, deserializes and checks the scenario at `path`; messages name the
/// path as given.
pub fn load_path(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let origin = path.display().to_string();
    let format = Format::from_path(path).ok_or_else(|| {
        ScenarioError::problem(
            "",
            "unknown file type, expected a .toml, .yaml, .yml or .json file",
        )
        .in_file(&origin)
    })?;
    let text = read_bounded(path).map_err(|e| e.in_file(&origin))?;
    load_str(&text, format, &origin, overrides)
}

/// The text of the regular file at `path`, refused when larger than the input limit
/// without reading more than one byte past it.
fn read_bounded(path: &Path) -> Result<String, ScenarioError> {
    let cannot = |e: std::io::Error| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::InvalidData => "the file is not UTF-8 text".to_string(),
            _ => e.to_string(),
        };
        ScenarioError::problem("", format!("cannot read the file: {why}"))
    };
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if meta.is_dir() {
        return Err(ScenarioError::problem(
            "",
            "is a directory, expected a scenario file",
        ));
    }
    if !meta.is_file() {
        return Err(ScenarioError::problem(
            "",
            "is not a regular file (a FIFO, socket or device), expected a scenario file",
        ));
    }
    document::check_size(usize::try_from(meta.len()).unwrap_or(usize::MAX))?;
    let file = std::fs::File::open(path).map_err(cannot)?;
    let mut text = String::new();
    file.take(document::INPUT_MAX_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(cannot)?;
    document::check_size(text.len())?;
    Ok(text)
}

/// Reads, overrides, deserializes and checks a scenario given as text; `origin` names it
/// in messages (usually the file name).
pub fn load_str(
    text: &str,
    format: Format,
    origin: &str,
    overrides: &[String],
) -> Result<Scenario, ScenarioError> {
    let mut doc = document::parse(text, format).map_err(|e| e.in_file(origin))?;
    let applied = overrides::apply(&mut doc, overrides, origin)?;
    super::presets::expand(&mut doc);
    let scenario = deserialize(&doc).map_err(|e| attribute(e, origin, &applied))?;
    validate(&scenario, origin).map_err(|e| attribute(as_written(e, &doc), origin, &applied))?;
    Ok(scenario)
}

/// The checks see parsed values (`"-0 MB"` is a size of 0 bytes, shown `0B`); an error
/// quotes the value as the file or the `--set` wrote it, when it names a field holding one.
fn as_written(mut e: ScenarioError, doc: &serde_json::Value) -> ScenarioError {
    if e.value.is_none() {
        return e;
    }
    let Some(segs) = parse_path(&e.path) else {
        return e;
    };
    let node = segs.iter().try_fold(doc, |node, seg| match (seg, node) {
        (Seg::Key(k), serde_json::Value::Object(m)) => m.get(k),
        (Seg::Index(i), serde_json::Value::Array(a)) => a.get(*i),
        _ => None,
    });
    match node {
        Some(serde_json::Value::String(s)) => e.value = Some(format!("\"{s}\"")),
        Some(serde_json::Value::Number(n)) => e.value = Some(n.to_string()),
        _ => {}
    }
    e
}

/// A field path as `path_string` writes it (`flow[0].tcp."rw:nd"`) read back into steps;
/// None if it is not one.
fn parse_path(path: &str) -> Option<Vec<Seg>> {
    let mut segs = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            rest = r;
        } else if let Some(r) = rest.strip_prefix('[') {
            let (index, after) = r.split_once(']')?;
            segs.push(Seg::Index(index.parse().ok()?));
            rest = after;
        } else if rest.starts_with('"') {
            // A quoted key, as `{:?}` writes a string.
            let mut key = String::new();
            let mut chars = rest[1..].char_indices();
            let end = loop {
                match chars.next()? {
                    (i, '"') => break i + 2,
                    (_, '\\') => key.push(chars.next()?.1),
                    (_, c) => key.push(c),
                }
            };
            segs.push(Seg::Key(key));
            rest = &rest[end..];
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            segs.push(Seg::Key(rest[..end].to_string()));
            rest = &rest[end..];
        }
    }
    Some(segs)
}

/// Names the `--set` that put the bad value there, if one did (the last one wins, as it
/// does when applying), else the file.
fn attribute(e: ScenarioError, origin: &str, applied: &[Applied]) -> ScenarioError {
    match applied.iter().rev().find(|a| a.covers(&e.path)) {
        Some(a) => {
            let label = a.label(origin);
            e.in_file(&label)
        }
        None => e.in_file(origin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_check_errors_quote_the_value_as_written() {
        let text = "name = \"t\"\n[topology]\npreset = \"chain\"\nwired = { rate = \"1Mbps\" }\nwireless = { rate = \"1Mbps\" }\n[[flow]]\nsrc = \"fh\"\n\
                    dst = \"mh\"\ntcp = { rwnd = \"-0 MB\" }\napp = { kind = \"bulk\", bytes = \"1MB\" }\n";
        let e = load_str(text, Format::Toml, "t.toml", &[]).unwrap_err();
        assert_eq!(e.path, "flow[0].tcp.rwnd");
        assert_eq!(e.value.as_deref(), Some("\"-0 MB\""), "{e}");
        let e = load_str(
            text,
            Format::Toml,
            "t.toml",
            &["flow.0.tcp.rwnd=-0kB".into()],
        )
        .unwrap_err();
        assert_eq!(e.value.as_deref(), Some("\"-0kB\""), "{e}");
        assert_eq!(
            parse_path("flow[0].tcp.\"rw:\\\"nd\"[2]"),
            Some(vec![
                Seg::Key("flow".into()),
                Seg::Index(0),
                Seg::Key("tcp".into()),
                Seg::Key("rw:\"nd".into()),
                Seg::Index(2),
            ])
        );
    }

    #[test]
    fn scenario_paths_that_are_no_regular_file_are_refused_without_reading() {
        let dir = std::env::temp_dir().join(format!("lastmile-load-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("d.toml")).unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/dev/zero", dir.join("z.toml")).unwrap();
            let e = load_path(&dir.join("z.toml"), &[]).unwrap_err();
            assert!(e.expected.starts_with("is not a regular file"), "{e}");
        }
        let e = load_path(&dir.join("d.toml"), &[]).unwrap_err();
        assert_eq!(e.expected, "is a directory, expected a scenario file");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
