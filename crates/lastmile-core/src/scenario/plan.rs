//! The scenario worked out once: its topology resolved, the routes the world will use, the
//! base stations' agents on their nodes (with the receivers that get an agent's client),
//! the mobiles against the topology, the `[[flow]]` entries expanded into flows, and the
//! gateway each non-TCP flow's transport ends at. Making a `Plan` runs every check of a
//! scenario (`validate` is `plan` with the result dropped); the world is built from the
//! plan (`sim::build`) and never works any of it out again, so what was checked is what
//! runs.

use crate::agents::AgentSpec;
use crate::errors::ScenarioError;
use crate::net::RoutingTable;
use crate::transport::TransportKind;

use super::flows::{expand_flows, ExpandedFlows};
use super::mobility::{resolve_mobiles, ResolvedMobile};
use super::model::{LinkLayerSpec, Scenario};
use super::topology::{check_identifier, link_paths, resolve_topology, ResolvedTopology};
use super::validate::{check_flow, check_link};

/// A base station's agent where it sits.
#[derive(Clone, Debug)]
pub struct AgentSite {
    /// The base station's position in the scenario (its agent's random streams are named
    /// by it: `AgentSetup::stream`).
    pub index: usize,
    /// The node's index in the topology.
    pub node: usize,
    pub spec: AgentSpec,
    /// The receiving nodes across the agent's cell that get its client
    /// (`AgentSettings::receiver_client`, LLE-TCP's ARQ client), in flow order; none for
    /// an agent without one, and none on a node that already has an agent.
    pub clients: Vec<usize>,
}

/// A checked scenario, worked out (module notes).
#[derive(Debug)]
pub struct Plan<'a> {
    pub scenario: &'a Scenario,
    pub topology: ResolvedTopology,
    /// The routes over `topology`, as the world forwards.
    pub routes: RoutingTable,
    /// Every base station with an agent, in scenario order.
    pub agents: Vec<AgentSite>,
    pub mobiles: Vec<ResolvedMobile>,
    pub flows: ExpandedFlows<'a>,
    /// For each flow of `flows`, the gateway agent its transport's connection ends at
    /// (`None` for TCP, which runs end to end).
    pub gateways: Vec<Option<AgentSpec>>,
}

/// Works `s` out, checking everything its types cannot say; errors name the field path
/// (not yet the file: `validate` adds it).
pub fn plan(s: &Scenario) -> Result<Plan<'_>, ScenarioError> {
    check_identifier("name", &s.name, "scenario name")?;
    let topology = resolve_topology(s)?;
    if s.stop_time.sim().is_zero() {
        return Err(ScenarioError::bad_value(
            "stop_time",
            format!("\"{}\"", s.stop_time),
            "a time greater than zero",
        ));
    }
    if let Some((key, watts)) = s.energy.invalid_power() {
        return Err(ScenarioError::bad_value(
            format!("energy.{key}"),
            watts.to_string(),
            "a power in watts, at least 0",
        ));
    }
    let paths = link_paths(s, topology.links.len());
    for (link, path) in topology.links.iter().zip(paths) {
        check_link(&path, &link.spec)?;
        if link.spec.link != LinkLayerSpec::None {
            return Err(ScenarioError::bad_value(
                format!("{path}.link"),
                format!("\"{}\"", link.spec.link.name()),
                "\"none\" on a point-to-point hop: link layers run over a cell MAC (any \
                 mac but \"p2p\")",
            ));
        }
    }
    for cell in &topology.cells {
        check_link(&cell.path, &cell.spec)?;
        let mac = format!("{}.mac", cell.path);
        cell.spec
            .mac
            .check(&cell.spec.hop())
            .map_err(|e| e.under(&mac))?;
    }
    let agents = super::base_station::check_base_stations(s, &topology)?;
    let mobiles = resolve_mobiles(s, &topology)?;
    if s.flows.is_empty() {
        return Err(ScenarioError::bad_value(
            "flow",
            "an empty list".into(),
            "at least one `[[flow]]`",
        ));
    }
    // The entries' nodes, counts, names, groups and starts; then each entry's settings,
    // once for all its flows.
    let flows = expand_flows(s, &topology)?;
    for (i, flow) in s.flows.iter().enumerate() {
        check_flow(&format!("flow[{i}]"), flow)?;
    }
    let routes = super::transports::routes(&topology);
    let gateways = super::transports::check_transports(s, &topology, &routes, &flows)?;
    debug_assert_eq!(gateways.len(), flows.flows.len());
    debug_assert!(flows
        .flows
        .iter()
        .zip(&gateways)
        .all(|(f, g)| g.is_none() || f.spec.transport != TransportKind::Tcp));
    Ok(Plan {
        scenario: s,
        topology,
        routes,
        agents,
        mobiles,
        flows,
        gateways,
    })
}
