//! Semantic checks of a deserialized scenario: what the types alone cannot say. The
//! topology resolves; flows join existing, distinct, connected nodes (`flows.rs` expands
//! and checks the entries); TCP settings respect RFC 6298's ordering of timers and fit in
//! an IPv4 datagram; links and error models make
//! sense; names are identifiers (they become file and directory names); the numbers that
//! multiply a time or count ports stay where the engine's arithmetic cannot overflow (the
//! units' own ranges are in `units.rs`). Each failure names the field path. Everything the
//! world builder (`sim::build`) would refuse at the start of a run is refused here first,
//! so `lastmile validate` and `lastmile run` agree.

use serde::Serialize;

use crate::error_model::ErrorModelSpec;
use crate::tcp::spec::{CcKind, SsthreshRule};
use crate::units::QueueLimit;
use crate::wireless::link::tulip::W_MAX;

use super::error::ScenarioError;
use super::model::{
    AckPolicy, AqmSpec, FlowSpec, InitialWindow, LinkLayerKind, LinkSpec, MacKind, RecoveryKind,
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
        check_link(&cell.path, &cell.spec)?;
        check_cell(&cell.path, &cell.spec)?;
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
    super::validate_link::check_rlp(path, spec)?;
    super::validate_link::check_airmail(path, spec)?;
    check_tulip(path, spec)?;
    check_dda_link(path, spec)
}

/// `dda = { window, ack_timeout, retry_limit }`: only with `link = "dda"`, in range.
fn check_dda_link(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
    let Some(d) = &spec.dda else {
        return Ok(());
    };
    if spec.link != LinkLayerKind::Dda {
        return Err(ScenarioError::bad_value(
            format!("{path}.dda"),
            "a DDA table".into(),
            "no `dda` settings unless link = \"dda\"",
        ));
    }
    if let Some(w) = d.window.filter(|w| !(1..=1024).contains(w)) {
        return Err(ScenarioError::bad_value(
            format!("{path}.dda.window"),
            w.to_string(),
            "a window of 1..=1024 frames",
        ));
    }
    if d.retry_limit == Some(0) {
        return Err(ScenarioError::bad_value(
            format!("{path}.dda.retry_limit"),
            "0".into(),
            "at least 1 attempt",
        ));
    }
    if let Some(t) = d.ack_timeout.filter(|t| t.sim().is_zero()) {
        return Err(ScenarioError::bad_value(
            format!("{path}.dda.ack_timeout"),
            format!("\"{t}\""),
            "a time greater than zero",
        ));
    }
    Ok(())
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
            let cfg = crate::wireless::cell_config::fama_constants(spec);
            cfg.validate()
                .err()
                .map(|e| (fama_field(e.field), e.expected, cfg.phy))
        }
        MacKind::P2p | MacKind::Ideal | MacKind::Duplex => None,
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
    if let Some(f) = &spec.fama {
        // Bounds that keep every FAMA-NCS time finite: an 802.11 frame's largest size, and a
        // window of at most 2^16 slots.
        if let Some(b) = f.cts_bytes.filter(|&b| b > 2346) {
            return Err(ScenarioError::bad_value(
                format!("{path}.fama.cts_bytes"),
                b.to_string(),
                "at most 2346 bytes (the largest 802.11 frame)",
            ));
        }
        if let Some(w) = f.cw_max.filter(|&w| w > 65_535) {
            return Err(ScenarioError::bad_value(
                format!("{path}.fama.cw_max"),
                w.to_string(),
                "at most 65535 slots",
            ));
        }
    }
    if spec.fama.is_some() && spec.mac != MacKind::Fama {
        return Err(ScenarioError::bad_value(
            format!("{path}.fama"),
            "a table".into(),
            "no `fama` table unless mac = \"fama\"",
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

/// Where a FAMA-NCS constant is set in a scenario: the `fama` table's key.
fn fama_field(field: &'static str) -> &'static str {
    match field {
        "cts_bytes" => "fama.cts_bytes",
        "cw_min/cw_max" => "fama.cw_min/cw_max",
        "cw_min" => "fama.cw_min",
        "phy.slot" => "fama.slot",
        other => other,
    }
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
