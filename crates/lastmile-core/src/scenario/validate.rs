//! Semantic checks of a deserialized scenario: what the types alone cannot say. The
//! topology resolves; flows join existing, distinct, connected nodes; TCP settings respect
//! RFC 6298's ordering of timers and fit in an IPv4 datagram; links and error models make
//! sense; names are identifiers (they become file and directory names); the numbers that
//! multiply a time or count ports stay where the engine's arithmetic cannot overflow (the
//! units' own ranges are in `units.rs`). Each failure names the field path. Everything the
//! world builder (`sim::build`) would refuse at the start of a run is refused here first,
//! so `lastmile validate` and `lastmile run` agree.

use std::collections::HashMap;

use serde::Serialize;

use crate::error_model::ErrorModelSpec;
use crate::units::{QueueLimit, DURATION_MAX};
use crate::wireless::link::tulip::W_MAX;
use crate::wireless::mac::fama::FamaConfig;

use super::error::ScenarioError;
use super::model::{
    AckPolicy, AgentKind, AppSpec, BaseStation, FlowSpec, LinkLayerKind, LinkSpec, MacKind,
    Scenario, TcpSpec,
};
use super::topology::{
    check_identifier, link_path, resolve_topology, unknown_node, ResolvedTopology,
};

/// The largest MSS: a 65535-byte IPv4 datagram less 20 bytes of IP and 20 of TCP header
/// (RFC 791, RFC 9293).
const MSS_MAX: u64 = 65_495;

/// The most flows: each source takes its own port from the dynamic range 49152–65535
/// (RFC 6335 §6), so 16,384 of them.
pub const FLOWS_MAX: usize = 16_384;

/// The largest factor that multiplies a time estimate into a timeout (Snoop's and WTCP's
/// `timeout_factor`): with times at most `DURATION_MAX`, a timeout stays far below the end
/// of simulated time.
pub const TIMEOUT_FACTOR_MAX: u32 = 100;

/// The name serde gives `v` in a scenario file (`"stop_and_wait"`, not `StopAndWait`).
pub(crate) fn written_name<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(name)) => format!("\"{name}\""),
        Ok(other) => other.to_string(),
        Err(_) => "the given value".into(),
    }
}

/// Checks what the types alone cannot: the topology resolves, flows connect existing,
/// reachable nodes, and TCP, application and link settings make sense.
pub fn validate(s: &Scenario, origin: &str) -> Result<(), ScenarioError> {
    check(s).map_err(|e| e.in_file(origin))
}

fn check(s: &Scenario) -> Result<(), ScenarioError> {
    check_identifier("name", &s.name, "scenario name")?;
    let topo = resolve_topology(s)?;
    if s.stop_time.sim().is_zero() {
        return Err(ScenarioError::bad_value(
            "stop_time",
            format!("\"{}\"", s.stop_time),
            "a time greater than zero",
        ));
    }
    for (i, link) in topo.links.iter().enumerate() {
        let path = link_path(s, i);
        check_link(&path, &link.spec)?;
        if link.spec.link != LinkLayerKind::None {
            return Err(ScenarioError::bad_value(
                format!("{path}.link"),
                written_name(&link.spec.link),
                "\"none\" on a point-to-point hop: link layers run over a cell MAC \
                 (mac = \"ideal\", \"dcf\" or \"fama\")",
            ));
        }
    }
    for cell in &topo.cells {
        check_link("topology.wireless", &cell.spec)?;
        check_cell("topology.wireless", &cell.spec)?;
    }
    check_base_station(s, &topo)?;
    if s.flows.is_empty() {
        return Err(ScenarioError::bad_value(
            "flow",
            "an empty list".into(),
            "at least one `[[flow]]`",
        ));
    }
    if s.flows.len() > FLOWS_MAX {
        return Err(ScenarioError::bad_value(
            "flow",
            format!("{} flows", s.flows.len()),
            format!(
                "at most {FLOWS_MAX} flows (each source takes a port of the dynamic range \
                 49152-65535)"
            ),
        ));
    }
    let components = topo.components();
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (i, flow) in s.flows.iter().enumerate() {
        check_flow(&format!("flow[{i}]"), flow, &topo, &components)?;
        if let Some(name) = &flow.name {
            check_identifier(&format!("flow[{i}].name"), name, "flow name")?;
            if let Some(first) = names.insert(name, i) {
                return Err(ScenarioError::bad_value(
                    format!("flow[{i}].name"),
                    format!("\"{name}\""),
                    format!("a unique flow name (flow[{first}] is also \"{name}\")"),
                ));
            }
        }
    }
    Ok(())
}

fn check_link(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
    if spec.rate.bps() == 0 {
        return Err(ScenarioError::bad_value(
            format!("{path}.rate"),
            format!("\"{}bps\"", spec.rate.bps()),
            "a positive rate (e.g. \"10Mbps\")",
        ));
    }
    if matches!(spec.queue, QueueLimit::Packets(0) | QueueLimit::Bytes(0)) {
        return Err(ScenarioError::bad_value(
            format!("{path}.queue"),
            format!("\"{}\"", spec.queue),
            "room for at least one packet (e.g. \"100pkt\")",
        ));
    }
    check_error_model(&format!("{path}.errors"), &spec.errors)?;
    check_error_model(&format!("{path}.reverse_errors"), &spec.reverse_errors)?;
    check_tulip(path, spec)
}

/// A cell's PHY and MAC settings: the 802.11 DSSS rates, sensible retry limits, TULIP's
/// settings.
fn check_cell(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
    // The ideal MAC takes any rate; the DCF and FAMA-NCS need 802.11 DSSS rates.
    let mac_check = match spec.mac {
        MacKind::Dcf => {
            let cfg = crate::wireless::cell_config::dcf_config(spec);
            cfg.validate().err().map(|e| (e.field, e.expected, cfg.phy))
        }
        MacKind::Fama => {
            let cfg = FamaConfig::with_phy(crate::wireless::cell_config::phy_config(spec));
            cfg.validate().err().map(|e| (e.field, e.expected, cfg.phy))
        }
        MacKind::P2p | MacKind::Ideal => None,
    };
    if let Some((field, expected, phy)) = mac_check {
        let value = match field {
            "phy" => format!(
                "rate \"{}bps\", basic_rate \"{}bps\"",
                phy.data_rate_bps, phy.basic_rate_bps
            ),
            _ => "the given value".into(),
        };
        return Err(ScenarioError::bad_value(
            format!("{path}.{field}"),
            value,
            expected,
        ));
    }
    if spec.link_retry_limit == Some(0) {
        return Err(ScenarioError::bad_value(
            format!("{path}.link_retry_limit"),
            "0".into(),
            "at least 1 attempt",
        ));
    }
    Ok(())
}

/// `tulip = { window, mac_acceleration }`: only with `link = "tulip"`, W in TULIP's range.
fn check_tulip(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
    let Some(t) = &spec.tulip else {
        return Ok(());
    };
    if spec.link != LinkLayerKind::Tulip {
        return Err(ScenarioError::bad_value(
            format!("{path}.tulip"),
            "a TULIP table".into(),
            "no `tulip` settings unless link = \"tulip\"",
        ));
    }
    if !(2..=W_MAX).contains(&t.window) {
        return Err(ScenarioError::bad_value(
            format!("{path}.tulip.window"),
            t.window.to_string(),
            format!("a window of 2..={W_MAX} frames (the paper's is 8)"),
        ));
    }
    Ok(())
}

/// Maps the error model's own check onto the field path, with the value as written.
fn check_error_model(path: &str, spec: &ErrorModelSpec) -> Result<(), ScenarioError> {
    let Err(e) = spec.validate() else {
        return Ok(());
    };
    if e.field.is_empty() {
        return Err(ScenarioError::problem(
            path,
            format!("expected {}", e.expected),
        ));
    }
    let path = format!("{path}.{}", e.field);
    let written = serde_json::to_value(spec)
        .ok()
        .and_then(|v| v.get(&e.field).cloned())
        .filter(|v| !v.is_null());
    Err(match written {
        Some(serde_json::Value::String(s)) => {
            ScenarioError::bad_value(path, format!("\"{s}\""), e.expected)
        }
        Some(v) => ScenarioError::bad_value(path, v.to_string(), e.expected),
        None => ScenarioError::problem(path, format!("missing, expected {}", e.expected)),
    })
}

fn check_base_station(s: &Scenario, topo: &ResolvedTopology) -> Result<(), ScenarioError> {
    let bs = &s.base_station;
    check_agent_settings(bs)?;
    // An agent needs a node to sit on; a named node must exist even without one.
    if bs.agent == AgentKind::None && bs.node.is_none() {
        return Ok(());
    }
    let name = bs.node.as_deref().unwrap_or("bs");
    let Some(node) = topo.node_index(name) else {
        let mut e = unknown_node("base_station.node".into(), name, &topo.nodes);
        if bs.node.is_none() {
            e.value = Some(format!("\"{name}\" (the default)"));
        }
        if bs.agent == AgentKind::Lle {
            e.expected = format!(
                "{}; for agent = \"lle\" name the wireless sender (the access point, or the \
                 sending node in adhoc, e.g. node = \"n1\")",
                e.expected
            );
        }
        return Err(e);
    };
    if bs.agent == AgentKind::Lle {
        check_lle_placement(s, topo, name, node)?;
    }
    Ok(())
}

/// LLE-TCP needs the MAC's TxSuccess / TxFailure: its node must be a cell member, and some
/// flow must end at another member of that cell (where the ARQ client goes).
fn check_lle_placement(
    s: &Scenario,
    topo: &ResolvedTopology,
    name: &str,
    node: usize,
) -> Result<(), ScenarioError> {
    let Some(cell) = topo.cells.iter().find(|c| c.members.contains(&node)) else {
        return Err(ScenarioError::bad_value(
            "base_station.node",
            format!("\"{name}\""),
            "a member of a wireless cell (a wireless hop with mac = \"ideal\", \"dcf\" or \
             \"fama\"): LLE-TCP acts on the MAC's TxSuccess / TxFailure",
        ));
    };
    if cell.spec.mac != MacKind::Dcf {
        return Err(ScenarioError::bad_value(
            "base_station.agent",
            "\"lle\"".into(),
            format!(
                "a cell whose MAC acknowledges its frames (mac = \"dcf\"); cell \"{}\" runs \
                 mac = {}, whose TxSuccess only says the frame went out, so a generated \
                 ACK could acknowledge data the receiver never got (LLE-TCP §3.1 needs ARQ at \
                 the link layer)",
                cell.name,
                written_name(&cell.spec.mac)
            ),
        ));
    }
    let served = s.flows.iter().any(|f| {
        topo.node_index(&f.dst)
            .is_some_and(|d| d != node && cell.members.contains(&d))
    });
    if !served {
        return Err(ScenarioError::problem(
            "base_station.node",
            format!(
                "agent = \"lle\" on \"{name}\" but no flow ends at another member of its \
                 cell \"{}\"; LLE-TCP serves flows whose data crosses the cell from \
                 \"{name}\" to their dst (where the ARQ client goes)",
                cell.name
            ),
        ));
    }
    Ok(())
}

/// Only the selected agent's table may be given, and its values must make sense.
fn check_agent_settings(bs: &BaseStation) -> Result<(), ScenarioError> {
    let given = [
        (AgentKind::Snoop, bs.snoop.is_some()),
        (AgentKind::Wtcp, bs.wtcp.is_some()),
        (AgentKind::Itcp, bs.itcp.is_some()),
        (AgentKind::Lle, bs.lle.is_some()),
    ];
    for (kind, present) in given {
        if present && bs.agent != kind {
            return Err(ScenarioError::problem(
                format!("base_station.{}", kind.name()),
                format!(
                    "settings for agent \"{}\" but base_station.agent = \"{}\"; remove the \
                     table or set agent = \"{}\"",
                    kind.name(),
                    bs.agent.name(),
                    kind.name()
                ),
            ));
        }
    }
    if let Some(sn) = &bs.snoop {
        let p = "base_station.snoop";
        if sn.dupack_threshold == 0 {
            return Err(ScenarioError::bad_value(
                format!("{p}.dupack_threshold"),
                "0".into(),
                "at least 1 duplicate ACK",
            ));
        }
        if !(1..=TIMEOUT_FACTOR_MAX).contains(&sn.timeout_factor) {
            return Err(ScenarioError::bad_value(
                format!("{p}.timeout_factor"),
                sn.timeout_factor.to_string(),
                format!("a whole number from 1 to {TIMEOUT_FACTOR_MAX}"),
            ));
        }
        if sn.persist.sim().is_zero() {
            return Err(ScenarioError::bad_value(
                format!("{p}.persist"),
                format!("\"{}\"", sn.persist),
                "a time greater than zero",
            ));
        }
        if sn.cache_packets == 0 {
            return Err(ScenarioError::bad_value(
                format!("{p}.cache_packets"),
                "0".into(),
                "at least 1 segment",
            ));
        }
    }
    if let Some(w) = &bs.wtcp {
        let p = "base_station.wtcp";
        if w.window == 0 {
            return Err(ScenarioError::bad_value(
                format!("{p}.window"),
                "0".into(),
                "at least 1 segment",
            ));
        }
        for (field, d) in [("clock", w.clock), ("source_clock", w.source_clock)] {
            if d.sim().is_zero() {
                return Err(ScenarioError::bad_value(
                    format!("{p}.{field}"),
                    format!("\"{d}\""),
                    "a time greater than zero",
                ));
            }
        }
        if !(1.0..=f64::from(TIMEOUT_FACTOR_MAX)).contains(&w.timeout_factor) {
            return Err(ScenarioError::bad_value(
                format!("{p}.timeout_factor"),
                w.timeout_factor.to_string(),
                format!("a number from 1 to {TIMEOUT_FACTOR_MAX}"),
            ));
        }
    }
    if let Some(i) = &bs.itcp {
        check_tcp("base_station.itcp.tcp", &i.tcp)?;
        if i.buffer < i.tcp.mss {
            return Err(ScenarioError::bad_value(
                "base_station.itcp.buffer",
                format!("\"{}\"", i.buffer),
                format!("room for at least one segment (mss = {})", i.tcp.mss),
            ));
        }
    }
    Ok(())
}

fn check_flow(
    path: &str,
    f: &FlowSpec,
    topo: &ResolvedTopology,
    components: &[usize],
) -> Result<(), ScenarioError> {
    let src = topo
        .node_index(&f.src)
        .ok_or_else(|| unknown_node(format!("{path}.src"), &f.src, &topo.nodes))?;
    let dst = topo
        .node_index(&f.dst)
        .ok_or_else(|| unknown_node(format!("{path}.dst"), &f.dst, &topo.nodes))?;
    if src == dst {
        return Err(ScenarioError::bad_value(
            format!("{path}.dst"),
            format!("\"{}\"", f.dst),
            format!("a node other than the source (\"{}\")", f.src),
        ));
    }
    if components[src] != components[dst] {
        return Err(ScenarioError::bad_value(
            format!("{path}.dst"),
            format!("\"{}\"", f.dst),
            format!(
                "a node reachable from \"{}\" over the links (no path joins them)",
                f.src
            ),
        ));
    }
    check_tcp(&format!("{path}.tcp"), &f.tcp)?;
    check_app(&format!("{path}.app"), &f.app)
}

fn check_tcp(path: &str, t: &TcpSpec) -> Result<(), ScenarioError> {
    let bad = |field: &str, value: String, expected: String| {
        Err(ScenarioError::bad_value(
            format!("{path}.{field}"),
            value,
            expected,
        ))
    };
    let q = |v: &dyn std::fmt::Display| format!("\"{v}\"");
    if let Err(c) = t.check_names() {
        return bad(c.field, c.value, c.expected);
    }
    if let Err(c) = t.check_cc_settings() {
        return bad(&c.field, c.value, c.expected);
    }
    if t.mss.bytes() == 0 || t.mss.bytes() > MSS_MAX {
        return bad(
            "mss",
            q(&t.mss),
            format!("a segment size from 1B to {MSS_MAX}B"),
        );
    }
    if t.rwnd < t.mss {
        return bad(
            "rwnd",
            q(&t.rwnd),
            format!("at least one segment (mss = {})", t.mss),
        );
    }
    if t.initial_window == 0 {
        return bad("initial_window", "0".into(), "at least 1 segment".into());
    }
    if t.initial_ssthresh.is_some_and(|s| s.bytes() == 0) {
        return bad(
            "initial_ssthresh",
            "\"0B\"".into(),
            "a size greater than zero".into(),
        );
    }
    if t.dupack_threshold == 0 {
        return bad(
            "dupack_threshold",
            "0".into(),
            "at least 1 duplicate ACK".into(),
        );
    }
    if t.timer_granularity.sim().is_zero() {
        return bad(
            "timer_granularity",
            q(&t.timer_granularity),
            "a time greater than zero".into(),
        );
    }
    if t.initial_rto.sim().is_zero() {
        return bad(
            "initial_rto",
            q(&t.initial_rto),
            "a time greater than zero".into(),
        );
    }
    if t.min_rto > t.max_rto {
        return bad(
            "min_rto",
            q(&t.min_rto),
            format!("at most max_rto ({})", t.max_rto),
        );
    }
    if t.ack == AckPolicy::Delayed && t.delack_timeout.sim().is_zero() {
        return bad(
            "delack_timeout",
            q(&t.delack_timeout),
            "a time greater than zero with ack = \"delayed\"".into(),
        );
    }
    Ok(())
}

fn check_app(path: &str, app: &AppSpec) -> Result<(), ScenarioError> {
    if let AppSpec::UdpSaturate {
        packet_size,
        duration,
    } = app
    {
        if packet_size.bytes() == 0 || packet_size.bytes() > 65_507 {
            return Err(ScenarioError::bad_value(
                format!("{path}.packet_size"),
                format!("\"{}B\"", packet_size.bytes()),
                "1B to 65507B (a UDP payload in an IPv4 datagram)",
            ));
        }
        if duration.sim().is_zero() {
            return Err(ScenarioError::bad_value(
                format!("{path}.duration"),
                format!("\"{duration}\""),
                "a time greater than zero",
            ));
        }
        return Ok(());
    }
    if app.total_bytes() == 0 {
        return Err(ScenarioError::bad_value(
            format!("{path}.bytes"),
            "\"0B\"".into(),
            "a size greater than zero",
        ));
    }
    if let AppSpec::Poisson {
        rate, packet_size, ..
    } = app
    {
        if packet_size.bytes() == 0 {
            return Err(ScenarioError::bad_value(
                format!("{path}.packet_size"),
                "\"0B\"".into(),
                "at least 1B",
            ));
        }
        if rate.bps() == 0 {
            return Err(ScenarioError::bad_value(
                format!("{path}.rate"),
                format!("\"{}bps\"", rate.bps()),
                "a positive rate (e.g. \"1Mbps\")",
            ));
        }
        // The mean gap between writes feeds an exponential draw added to the clock.
        let gap = crate::engine::SimDuration::transmission(packet_size.bytes() * 8, rate.bps());
        if gap > DURATION_MAX {
            return Err(ScenarioError::bad_value(
                format!("{path}.rate"),
                format!("\"{rate}\""),
                format!(
                    "a rate at which one write of packet_size ({packet_size}) takes at most \
                     {DURATION_MAX} on average"
                ),
            ));
        }
    }
    Ok(())
}
