//! Semantic checks of a deserialized scenario: what the types alone cannot say. The
//! topology resolves; flows join existing, distinct, connected nodes (`flows.rs` expands
//! and checks the entries); each flow's TCP settings pass `tcp::check`; links and error
//! models make sense; names are identifiers (they become file and directory names); the numbers that
//! multiply a time or count ports stay where the engine's arithmetic cannot overflow (the
//! units' own ranges are in `units.rs`). Each failure names the field path. Everything the
//! world builder (`sim::build`) would refuse at the start of a run is refused here first,
//! so `lastmile validate` and `lastmile run` agree.

use crate::error_model::ErrorModelSpec;
use crate::errors::ScenarioError;
use crate::tcp::check::check_tcp;
use crate::units::QueueLimit;

use super::model::{AqmSpec, FlowSpec, LinkSpec, Scenario};

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

pub(super) fn check_flow(path: &str, f: &FlowSpec) -> Result<(), ScenarioError> {
    check_tcp(&format!("{path}.tcp"), &f.tcp)?;
    f.app.check().map_err(|e| e.under(&format!("{path}.app")))
}
