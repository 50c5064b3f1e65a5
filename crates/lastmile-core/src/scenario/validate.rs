//! Semantic checks of a deserialized scenario: what the types alone cannot say. The
//! topology resolves; flows join existing, distinct, connected nodes (`flows.rs` expands
//! and checks the entries); each flow's TCP settings pass `tcp::check`; links and error
//! models make sense; names are identifiers (they become file and directory names); the numbers that
//! multiply a time or count ports stay where the engine's arithmetic cannot overflow (the
//! units' own ranges are in `units.rs`). Each failure names the field path. Everything the
//! world builder (`sim::build`) would refuse at the start of a run is refused here first,
//! so `lastmile validate` and `lastmile run` agree.

use serde::Serialize;

use crate::error_model::ErrorModelSpec;
use crate::errors::ScenarioError;
use crate::tcp::check::check_tcp;
use crate::units::QueueLimit;
use crate::wireless::link::tulip::W_MAX;

use super::model::{AqmSpec, FlowSpec, LinkLayerKind, LinkSpec, MacKind, Scenario};

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
/// (`plan` runs them and keeps what it worked out.)
pub fn validate(s: &Scenario, origin: &str) -> Result<(), ScenarioError> {
    super::plan::plan(s)
        .map(drop)
        .map_err(|e| e.in_file(origin))
}

pub(super) fn check_link(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
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
pub(super) fn check_cell(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
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

pub(super) fn check_flow(path: &str, f: &FlowSpec) -> Result<(), ScenarioError> {
    check_tcp(&format!("{path}.tcp"), &f.tcp)?;
    f.app.check().map_err(|e| e.under(&format!("{path}.app")))
}
