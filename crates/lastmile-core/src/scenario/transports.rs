//! The scenario rules that tie a flow's `transport` to a gateway on its path: a flow whose
//! mobile speaks WAP or WTCP-Sinha needs the matching gateway on a base station between
//! its source and its destination, on the wired side of the wireless hop towards the
//! destination; a flow through such a gateway must speak its protocol (the gateway splits
//! every connection a server opens across it, as I-TCP does); WAP carries only the
//! request/response application, each request in one WTP PDU and each object within the
//! 256 segments an 8-bit PSN numbers.
//!
//! The path is the one the world routes (`RoutingTable::shortest_paths` over the resolved
//! topology), so what is checked here is what the run will do.

use crate::agents::AgentSpec;
use crate::apps::AppSpec;
use crate::errors::ScenarioError;
use crate::ids::NodeId;
use crate::net::{Hop, RoutingTable};
use crate::transport::wtp::MAX_SEGMENTS;
use crate::transport::TransportKind;

use super::{ExpandedFlows, FlowSpec, ResolvedTopology, Scenario};

/// A gateway on a flow's path.
#[derive(Clone, Debug)]
pub struct PathGateway {
    pub node: String,
    pub agent: AgentSpec,
    /// The hop from the gateway towards the flow's destination is wireless.
    pub towards_wireless: bool,
}

/// The routes of `topo`, as the world computes them.
pub fn routes(topo: &ResolvedTopology) -> RoutingTable {
    let pairs: Vec<(NodeId, NodeId)> = topo
        .links
        .iter()
        .map(|l| (NodeId(l.from as u32), NodeId(l.to as u32)))
        .collect();
    let cells: Vec<Vec<NodeId>> = topo
        .cells
        .iter()
        .map(|c| c.members.iter().map(|&i| NodeId(i as u32)).collect())
        .collect();
    RoutingTable::shortest_paths(topo.nodes.len(), &pairs, &cells)
}

/// The nodes strictly between `src` and `dst` on the routed path, each with whether its
/// next hop towards `dst` is wireless.
fn intermediate(
    topo: &ResolvedTopology,
    routes: &RoutingTable,
    src: usize,
    dst: usize,
) -> Vec<(usize, bool)> {
    let mut path = Vec::new();
    let mut at = src;
    for _ in 0..topo.nodes.len() {
        let Some(hop) = routes.next_hop(NodeId(at as u32), NodeId(dst as u32)) else {
            break;
        };
        let (next, wireless) = match hop {
            Hop::Link { link, dir } => {
                let l = &topo.links[link.index()];
                let next = if dir.index() == 0 { l.to } else { l.from };
                (next, l.wireless)
            }
            Hop::Cell { to, .. } => (to.index(), true),
        };
        if at != src {
            path.push((at, wireless));
        }
        if next == dst {
            break;
        }
        at = next;
    }
    path
}

/// The first gateway (WAP or WTCP-Sinha proxy) on the path from node `src` to node `dst`
/// (indices of the resolved topology).
pub fn gateway_between(
    s: &Scenario,
    topo: &ResolvedTopology,
    routes: &RoutingTable,
    src: usize,
    dst: usize,
) -> Option<PathGateway> {
    let stations = s.base_stations();
    for (node, towards_wireless) in intermediate(topo, routes, src, dst) {
        let name = &topo.nodes[node];
        let Some(bs) = stations.iter().find(|b| b.node_name() == name) else {
            continue;
        };
        if matches!(bs.agent.spec(), AgentSpec::Wap(_) | AgentSpec::WtcpSinha(_)) {
            return Some(PathGateway {
                node: name.clone(),
                agent: bs.agent.spec().clone(),
                towards_wireless,
            });
        }
    }
    None
}

/// Every flow's transport against the gateways on its path (module notes); for each flow
/// of `flows`, the gateway agent its transport ends at (`None` for TCP).
pub fn check_transports(
    s: &Scenario,
    topo: &ResolvedTopology,
    routes: &RoutingTable,
    flows: &ExpandedFlows<'_>,
) -> Result<Vec<Option<AgentSpec>>, ScenarioError> {
    let mut gateways = vec![None; flows.flows.len()];
    let needs_routes = s.flows.iter().any(|f| f.transport != TransportKind::Tcp)
        || s.base_stations()
            .iter()
            .any(|b| matches!(b.agent.spec(), AgentSpec::Wap(_) | AgentSpec::WtcpSinha(_)));
    if !needs_routes {
        return Ok(gateways);
    }
    // Each flow of an entry (`count`, node lists and patterns) against its own path.
    for (flow, ends_at) in flows.flows.iter().zip(&mut gateways) {
        let i = flow.entry;
        let path = format!("flow[{i}].transport");
        let gateway = gateway_between(s, topo, routes, flow.src, flow.dst);
        let ends = (topo.nodes[flow.src].as_str(), topo.nodes[flow.dst].as_str());
        check_flow(&path, i, flow.spec, ends, gateway.as_ref())?;
        if flow.spec.transport != TransportKind::Tcp {
            *ends_at = gateway.map(|g| g.agent);
        }
    }
    Ok(gateways)
}

fn check_flow(
    path: &str,
    i: usize,
    f: &FlowSpec,
    (src, dst): (&str, &str),
    gateway: Option<&PathGateway>,
) -> Result<(), ScenarioError> {
    let written = format!("\"{}\"", f.transport.name());
    match (f.transport.gateway(), gateway) {
        (None, None) => Ok(()),
        (None, Some(g)) => Err(ScenarioError::bad_value(
            path,
            written,
            format!(
                "\"{}\": the flow crosses the {} gateway on \"{}\", which speaks only its \
                 own protocol to the mobile",
                g.agent.name(),
                g.agent.name(),
                g.node
            ),
        )),
        (Some(kind), None) => Err(ScenarioError::bad_value(
            path,
            written,
            format!(
                "\"tcp\", or a base station with agent = {{ kind = \"{kind}\" }} on the path \
                 from \"{src}\" to \"{dst}\""
            ),
        )),
        (Some(kind), Some(g)) if kind != g.agent.name() => Err(ScenarioError::bad_value(
            path,
            written,
            format!(
                "\"{}\", the protocol of the gateway on \"{}\"",
                g.agent.name(),
                g.node
            ),
        )),
        (Some(_), Some(g)) if !g.towards_wireless => Err(ScenarioError::bad_value(
            format!("flow[{i}].dst"),
            format!("\"{dst}\""),
            format!(
                "a mobile across the wireless hop from the gateway on \"{}\" (the flow's \
                 source must be the fixed host behind it)",
                g.node
            ),
        )),
        (Some(_), Some(g)) => check_wap_app(i, f, g),
    }
}

/// WAP carries request/response only, requests in one PDU, objects within 256 segments.
fn check_wap_app(i: usize, f: &FlowSpec, g: &PathGateway) -> Result<(), ScenarioError> {
    let AgentSpec::Wap(wap) = &g.agent else {
        return Ok(());
    };
    let AppSpec::RequestResponse(rr) = &f.app else {
        return Err(ScenarioError::bad_value(
            format!("flow[{i}].app.kind"),
            format!("\"{}\"", app_kind(&f.app)),
            "\"request_response\": WAP carries transactions (a request and its object)",
        ));
    };
    let segment = wap.wtp.segment.bytes().max(1);
    if rr.request.bytes() > segment {
        return Err(ScenarioError::bad_value(
            format!("flow[{i}].app.request"),
            format!("\"{}\"", rr.request),
            format!(
                "at most the gateway's WTP segment ({}): requests travel in one Invoke \
                 (segmented Invokes are not modelled)",
                wap.wtp.segment
            ),
        ));
    }
    let most = segment * u64::from(MAX_SEGMENTS);
    if rr.object.bytes() > most {
        return Err(ScenarioError::bad_value(
            format!("flow[{i}].app.object"),
            format!("\"{}\"", rr.object),
            format!(
                "at most {most}B: {MAX_SEGMENTS} WTP segments of {} (the PSN is 8 bits)",
                wap.wtp.segment
            ),
        ));
    }
    Ok(())
}

fn app_kind(app: &AppSpec) -> &'static str {
    match app {
        AppSpec::Bulk { .. } => "bulk",
        AppSpec::Poisson { .. } => "poisson",
        AppSpec::UdpSaturate { .. } => "udp_saturate",
        AppSpec::RequestResponse(_) => "request_response",
    }
}
