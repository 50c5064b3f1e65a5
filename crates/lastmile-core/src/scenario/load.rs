//! Reading a scenario: text → document (TOML, YAML or JSON) → `--set` overrides → network
//! presets expanded (`presets.rs`) → `Scenario` (with field-path errors) → semantic checks.

use std::path::Path;

use super::deserialize::deserialize;
use super::document;
use super::error::ScenarioError;
use super::model::Scenario;
use super::overrides::{self, Applied};
use super::validate::validate;

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
    let text = std::fs::read_to_string(path).map_err(|e| {
        ScenarioError::problem("", format!("cannot read the file: {e}")).in_file(&origin)
    })?;
    load_str(&text, format, &origin, overrides)
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
    validate(&scenario, origin).map_err(|e| attribute(e, origin, &applied))?;
    Ok(scenario)
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
