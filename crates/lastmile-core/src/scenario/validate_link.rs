//! Checks of a hop's link FEC (`fec`), with the field path, the value as written and what
//! was expected (conventions rule 11). The MACs' and link layers' own settings are checked
//! by their `spec.rs` (`MacSpec::check`, `LinkLayerSpec::check`).

use super::model::LinkSpec;
use crate::errors::ScenarioError;

/// `fec`: a code that exists, and a decoding delay only where a MAC can hold frames for it.
pub(crate) fn check_fec(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
    let Some(fec) = &spec.fec else {
        return Ok(());
    };
    if let Err(e) = fec.validate() {
        let written = serde_json::to_value(fec)
            .ok()
            .and_then(|v| v.get(&e.field).cloned())
            .map_or_else(|| "the given value".into(), |v| v.to_string());
        return Err(ScenarioError::bad_value(
            format!("{path}.fec.{}", e.field),
            written,
            e.expected,
        ));
    }
    if !fec.decode_delay.sim().is_zero() && !spec.mac.holds_frames() {
        return Err(ScenarioError::bad_value(
            format!("{path}.fec.decode_delay"),
            format!("\"{}\"", fec.decode_delay),
            format!(
                "\"0s\" with mac = \"{}\": a decoding delay needs mac = \"p2p\" or \"duplex\" \
                 (an 802.11 MAC answers within SIFS)",
                spec.mac.name()
            ),
        ));
    }
    Ok(())
}
