//! Scenario files: the structure (`model`), and turning a file into a checked `Scenario`.
//!
//! `load_path` / `load_str` read TOML, YAML or JSON into one document, apply `--set`
//! overrides on it (same dotted paths as the file), deserialize it into `Scenario` with
//! field-path tracking, and run the semantic checks of `validate`. Every failure is a
//! `ScenarioError` naming the file, the field path, the bad value and what was expected.
//! `json_schema` exports the same structure for editors; `resolve_topology` expands it into
//! nodes and links for the builder, `expand_flows` the `[[flow]]` entries into flows;
//! `resolved` writes out what a run ran (every key, defaults filled in) as a document.

mod base_station;
mod deserialize;
mod document;
mod flows;
mod load;
pub mod mobility;
pub mod model;
mod overrides;
mod plan;
pub(crate) mod presets;
mod resolved;
mod schema;
mod topology;
pub(crate) mod transports;
pub(crate) mod validate;
mod validate_link;

#[cfg(test)]
mod tests;

pub use crate::errors::{clip, join_names, ScenarioError, QUOTE_MAX};
pub use flows::{expand_flows, matches_pattern, ExpandedFlows, FlowGroup, FlowInstance, FLOWS_MAX};
pub use load::{load_path, load_str, Format};
pub use model::*;
pub use plan::{plan, AgentSite, Plan};
pub use resolved::resolved;
pub use schema::json_schema;
pub use topology::{resolve_topology, ResolvedCell, ResolvedLink, ResolvedTopology};
pub use validate::validate;
