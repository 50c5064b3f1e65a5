//! Scenario files: the structure (`model`), and turning a file into a checked `Scenario`.
//!
//! `load_path` / `load_str` read TOML, YAML or JSON into a document, apply `--set`
//! overrides on it, deserialize it into `Scenario` with field-path tracking, and run the
//! semantic checks of `validate`. Every failure is a `ScenarioError` naming the file, the
//! field path, the bad value and what was expected.

mod error;
mod load;
pub mod model;
mod schema;
mod topology;
mod validate;

pub use error::ScenarioError;
pub use load::{load_path, load_str, Format};
pub use model::*;
pub use schema::json_schema;
pub use topology::{resolve_topology, ResolvedLink, ResolvedTopology};
pub use validate::validate;
