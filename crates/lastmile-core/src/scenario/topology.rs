//! Expanding a scenario's topology into nodes and links the builder can wire.

use super::error::ScenarioError;
use super::model::{LinkSpec, Scenario};

/// The network as the builder sees it: node names (index = node number) and links.
#[derive(Clone, Debug)]
pub struct ResolvedTopology {
    pub nodes: Vec<String>,
    pub links: Vec<ResolvedLink>,
}

/// A link between two nodes (indices into `ResolvedTopology::nodes`).
#[derive(Clone, Debug)]
pub struct ResolvedLink {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub spec: LinkSpec,
    pub wireless: bool,
}

/// Expands the preset (or checks the explicit nodes and links).
pub fn resolve_topology(s: &Scenario) -> Result<ResolvedTopology, ScenarioError> {
    let t = &s.topology;
    let mut nodes = Vec::new();
    let mut links = Vec::new();
    if let (Some(wired), Some(wireless)) = (&t.wired, &t.wireless) {
        nodes = vec!["fh".to_string(), "bs".to_string(), "mh".to_string()];
        links.push(ResolvedLink {
            name: "wired".into(),
            from: 0,
            to: 1,
            spec: wired.clone(),
            wireless: wired.wireless.unwrap_or(false),
        });
        links.push(ResolvedLink {
            name: "wireless".into(),
            from: 1,
            to: 2,
            spec: wireless.clone(),
            wireless: wireless.wireless.unwrap_or(true),
        });
    }
    Ok(ResolvedTopology { nodes, links })
}
