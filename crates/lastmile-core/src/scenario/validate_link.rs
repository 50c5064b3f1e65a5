//! Checks of a hop's link FEC (`fec`) and of the WWAN link layers' settings (`rlp`,
//! `airmail`), with
//! the field path, the value as written and what was expected (conventions rule 11). The
//! bounds keep every frame, window and timer finite and the runs' arithmetic far from
//! overflow; the papers' and standards' own values sit well inside them.

use super::model::{LinkLayerKind, LinkSpec, MacKind};
use super::validate::written_name;
use crate::errors::ScenarioError;
use crate::wireless::link::airmail::AIRMAIL_WINDOW_MAX;

/// The largest RLP frame (information and header), in bytes.
const RLP_FRAME_BYTES_MAX: u32 = 65_535;
/// The largest RLP window: W-CDMA RLC's sequence space is 4096 PDUs.
const RLP_WINDOW_MAX: u32 = 4_096;

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
    let holds = matches!(spec.mac, MacKind::P2p | MacKind::Duplex);
    if !fec.decode_delay.sim().is_zero() && !holds {
        return Err(ScenarioError::bad_value(
            format!("{path}.fec.decode_delay"),
            format!("\"{}\"", fec.decode_delay),
            format!(
                "\"0s\" with mac = {}: a decoding delay needs mac = \"p2p\" or \"duplex\" \
                 (an 802.11 MAC answers within SIFS)",
                written_name(&spec.mac)
            ),
        ));
    }
    Ok(())
}

/// `rlp`: only with `link = "rlp"`, frames, window and timers in range.
pub(crate) fn check_rlp(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
    let Some(r) = &spec.rlp else {
        return Ok(());
    };
    if spec.link != LinkLayerKind::Rlp {
        return Err(ScenarioError::bad_value(
            format!("{path}.rlp"),
            "an RLP table".into(),
            "no `rlp` settings unless link = \"rlp\"",
        ));
    }
    let bad = |field: &str, value: String, expected: String| {
        Err(ScenarioError::bad_value(
            format!("{path}.rlp.{field}"),
            value,
            expected,
        ))
    };
    let frame = u64::from(r.info_bytes) + u64::from(r.header_bytes);
    if r.info_bytes == 0 || frame > u64::from(RLP_FRAME_BYTES_MAX) {
        return bad(
            "info_bytes",
            r.info_bytes.to_string(),
            format!(
                "1 or more bytes, with header_bytes at most {RLP_FRAME_BYTES_MAX} in all \
                 (GSM's is 24)"
            ),
        );
    }
    if !(1..=RLP_WINDOW_MAX).contains(&r.window) {
        return bad(
            "window",
            r.window.to_string(),
            format!("1..={RLP_WINDOW_MAX} frames (GSM's is 61)"),
        );
    }
    if r.t1.sim().is_zero() {
        return bad(
            "t1",
            format!("\"{}\"", r.t1),
            "a time greater than zero (GSM's is \"480ms\")".into(),
        );
    }
    if r.n2 == 0 {
        return bad("n2", "0".into(), "at least 1 poll (GSM's is 6)".into());
    }
    Ok(())
}

/// `airmail`: only with `link = "airmail"`, blocks, window and timers in range.
pub(crate) fn check_airmail(path: &str, spec: &LinkSpec) -> Result<(), ScenarioError> {
    let Some(a) = &spec.airmail else {
        return Ok(());
    };
    if spec.link != LinkLayerKind::Airmail {
        return Err(ScenarioError::bad_value(
            format!("{path}.airmail"),
            "an AIRMAIL table".into(),
            "no `airmail` settings unless link = \"airmail\"",
        ));
    }
    let bad = |field: &str, value: String, expected: String| {
        Err(ScenarioError::bad_value(
            format!("{path}.airmail.{field}"),
            value,
            expected,
        ))
    };
    let info = a.info_bytes.unwrap_or(64);
    let frame = u64::from(info) + u64::from(a.header_bytes.unwrap_or(4));
    if info == 0 || frame > u64::from(RLP_FRAME_BYTES_MAX) {
        return bad(
            "info_bytes",
            info.to_string(),
            format!("1 or more bytes, with header_bytes at most {RLP_FRAME_BYTES_MAX} in all"),
        );
    }
    if let Some(w) = a.window.filter(|w| !(1..=AIRMAIL_WINDOW_MAX).contains(w)) {
        return bad(
            "window",
            w.to_string(),
            format!("1..={AIRMAIL_WINDOW_MAX} blocks (the bit-map's length)"),
        );
    }
    let times = [
        ("status_period", a.status_period),
        ("ack_timeout", a.ack_timeout),
        ("block_timeout", a.block_timeout),
    ];
    for (field, time) in times {
        if let Some(t) = time.filter(|t| t.sim().is_zero()) {
            return bad(field, format!("\"{t}\""), "a time greater than zero".into());
        }
    }
    Ok(())
}
