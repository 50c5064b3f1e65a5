//! Semantic checks of a deserialized scenario: what the types alone cannot say. The
//! topology resolves; flows join existing, distinct, connected nodes (`flows.rs` expands
//! and checks the entries); TCP settings respect RFC 6298's ordering of timers and fit in
//! an IPv4 datagram; links and error models make
//! sense; names are identifiers (they become file and directory names); the numbers that
//! multiply a time or count ports stay where the engine's arithmetic cannot overflow (the
//! units' own ranges are in `units.rs`). Each failure names the field path. Everything the
//! world builder (`sim::build`) would refuse at the start of a run is refused here first,
//! so `lastmile validate` and `lastmile run` agree.

use crate::error_model::ErrorModelSpec;
use crate::tcp::spec::{CcKind, SsthreshRule};
use crate::units::QueueLimit;

use super::error::ScenarioError;
use super::model::{
    AckPolicy, AqmSpec, FlowSpec, InitialWindow, LinkLayerSpec, LinkSpec, RecoveryKind,
    Scenario, TcpSpec,
};
use super::topology::{check_identifier, link_paths, resolve_topology};

/// The largest MSS: a 65535-byte IPv4 datagram less 20 bytes of IP and 20 of TCP header
/// (RFC 791, RFC 9293).
const MSS_MAX: u64 = 65_495;

/// The largest factor that multiplies a time estimate into a timeout (Snoop's and WTCP's
/// `timeout_factor`): with times at most `DURATION_MAX`, a timeout stays far below the end
/// of simulated time.
pub const TIMEOUT_FACTOR_MAX: u32 = 100;

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
    if let Some((key, watts)) = s.energy.invalid_power() {
        return Err(ScenarioError::bad_value(
            format!("energy.{key}"),
            watts.to_string(),
            "a power in watts, at least 0",
        ));
    }
    let paths = link_paths(s, topo.links.len());
    for (link, path) in topo.links.iter().zip(paths) {
        check_link(&path, &link.spec)?;
        if link.spec.link != LinkLayerSpec::None {
            return Err(ScenarioError::bad_value(
                format!("{path}.link"),
                format!("\"{}\"", link.spec.link.name()),
                "\"none\" on a point-to-point hop: link layers run over a cell MAC \
                 (mac = \"ideal\", \"dcf\" or \"fama\")",
            ));
        }
    }
    for cell in &topo.cells {
        check_link(&cell.path, &cell.spec)?;
        let mac = format!("{}.mac", cell.path);
        cell.spec.mac.check(&cell.spec).map_err(|e| e.under(&mac))?;
    }
    super::base_station::check_base_stations(s, &topo)?;
    super::mobility::resolve_mobiles(s, &topo)?;
    if s.flows.is_empty() {
        return Err(ScenarioError::bad_value(
            "flow",
            "an empty list".into(),
            "at least one `[[flow]]`",
        ));
    }
    // The entries' nodes, counts, names, groups and starts; then each entry's settings,
    // once for all its flows.
    super::flows::expand_flows(s, &topo)?;
    for (i, flow) in s.flows.iter().enumerate() {
        check_flow(&format!("flow[{i}]"), flow)?;
    }
    crate::transport::check::check_transports(s, &topo)
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
    if let Some(AqmSpec::Red(red)) = &spec.aqm {
        if let Err((field, value, expected)) = red.check() {
            return Err(ScenarioError::bad_value(
                format!("{path}.aqm.{field}"),
                value,
                expected,
            ));
        }
    }
    check_error_model(&format!("{path}.errors"), &spec.errors)?;
    check_error_model(&format!("{path}.reverse_errors"), &spec.reverse_errors)?;
    super::validate_link::check_fec(path, spec)?;
    let link = format!("{path}.link");
    spec.link.check().map_err(|e| e.under(&link))
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

fn check_flow(path: &str, f: &FlowSpec) -> Result<(), ScenarioError> {
    check_tcp(&format!("{path}.tcp"), &f.tcp)?;
    f.app.check().map_err(|e| e.under(&format!("{path}.app")))
}

/// TCP settings at `path` (a flow's `tcp`, or an agent's own TCP).
pub(crate) fn check_tcp(path: &str, t: &TcpSpec) -> Result<(), ScenarioError> {
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
    if t.ssthresh_rule == SsthreshRule::Bsd && t.cc_kind() != CcKind::Reno {
        return bad(
            "ssthresh_rule",
            q(&"bsd"),
            format!(
                "\"rfc5681\" with cc = \"{}\" (the BSD rule is Reno's window rule: set \
                 cc = \"reno\" or remove ssthresh_rule)",
                t.cc_kind().name()
            ),
        );
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
    if t.initial_window == InitialWindow::Segments(0) {
        return bad(
            "initial_window",
            "0".into(),
            "at least 1 segment, or \"rfc3390\" / \"rfc6928\"".into(),
        );
    }
    if t.max_backoff == Some(0) {
        return bad("max_backoff", "0".into(), "a factor of at least 1".into());
    }
    if t.prr && t.recovery_kind() != RecoveryKind::Sack {
        return bad(
            "prr",
            "true".into(),
            format!(
                "false with recovery = \"{}\" (PRR drives RFC 6675's recovery: set \
                 recovery = \"sack\")",
                t.recovery_kind().name()
            ),
        );
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
    if matches!(t.ack, AckPolicy::Delayed | AckPolicy::Daass) && t.delack_timeout.sim().is_zero() {
        return bad(
            "delack_timeout",
            q(&t.delack_timeout),
            format!("a time greater than zero with ack = \"{}\"", t.ack.name()),
        );
    }
    Ok(())
}
