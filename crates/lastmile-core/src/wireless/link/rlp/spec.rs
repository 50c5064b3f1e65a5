//! RLP's settings in a scenario (`link = { kind = "rlp", t1 = "480ms", n2 = 6 }`), with GSM
//! TCH/F9.6's defaults (GSM 04.22 frames of 240 bits; TS 24.022's defaults for the 12
//! kbit/s channel), and their checks: the bounds keep every frame, window and timer finite
//! and the runs' arithmetic far from overflow; the standards' own values sit well inside
//! them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::errors::ScenarioError;
use crate::units::Duration;
use crate::wireless::hop::Hop;
use crate::wireless::link::spec::{LinkLayerSettings, MAX_DATAGRAM_BYTES};
use crate::wireless::link::AnyLinkLayer;
use crate::wireless::mac::AnyMac;

use super::{Rlp, RlpConfig};

/// The largest RLP (or AIRMAIL) frame, information and header, in bytes.
pub(crate) const RLP_FRAME_BYTES_MAX: u32 = 65_535;
/// The largest RLP window: W-CDMA RLC's sequence space is 4096 PDUs.
const RLP_WINDOW_MAX: u32 = 4_096;

/// RLP's settings. Defaults are GSM TCH/F9.6's.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RlpSpec {
    /// User bytes per frame. Default 24 (25 bytes of information less L2R's status octet).
    #[serde(default = "default_rlp_info")]
    pub info_bytes: u32,
    /// The rest of every frame: header, status octet, FCS. Default 6 (2 + 1 + 3; a frame of
    /// 30 bytes = 240 bits every 20 ms on TCH/F9.6's 12 kbit/s).
    #[serde(default = "default_rlp_header")]
    pub header_bytes: u32,
    /// k: frames outstanding at most. Default 61 (sequence numbers modulo 62).
    #[serde(default = "default_rlp_window")]
    pub window: u32,
    /// T1, the acknowledgement timer, also each SREJ's timer. Default "480ms" (TS 24.022,
    /// full-rate 12 kbit/s channel).
    #[serde(default = "default_rlp_t1")]
    pub t1: Duration,
    /// N2: polls without an answer before the link is reset (its buffered data lost).
    /// Default 6 (TS 24.022).
    #[serde(default = "default_rlp_n2")]
    pub n2: u32,
}

fn default_rlp_info() -> u32 {
    24
}
fn default_rlp_header() -> u32 {
    6
}
fn default_rlp_window() -> u32 {
    61
}
fn default_rlp_t1() -> Duration {
    Duration::from_millis(480)
}
fn default_rlp_n2() -> u32 {
    6
}

impl Default for RlpSpec {
    fn default() -> Self {
        RlpSpec {
            info_bytes: default_rlp_info(),
            header_bytes: default_rlp_header(),
            window: default_rlp_window(),
            t1: default_rlp_t1(),
            n2: default_rlp_n2(),
        }
    }
}

impl LinkLayerSettings for RlpSpec {
    const KIND: &'static str = "rlp";
    type Config = RlpConfig;

    /// Frames, window and timers in range.
    fn check(&self) -> Result<(), ScenarioError> {
        let bad = |field: &str, value: String, expected: String| {
            Err(ScenarioError::bad_value(field, value, expected))
        };
        let frame = u64::from(self.info_bytes) + u64::from(self.header_bytes);
        if self.info_bytes == 0 || frame > u64::from(RLP_FRAME_BYTES_MAX) {
            return bad(
                "info_bytes",
                self.info_bytes.to_string(),
                format!(
                    "1 or more bytes, with header_bytes at most {RLP_FRAME_BYTES_MAX} in all \
                     (GSM's is 24)"
                ),
            );
        }
        if !(1..=RLP_WINDOW_MAX).contains(&self.window) {
            return bad(
                "window",
                self.window.to_string(),
                format!("1..={RLP_WINDOW_MAX} frames (GSM's is 61)"),
            );
        }
        if self.t1.sim().is_zero() {
            return bad(
                "t1",
                format!("\"{}\"", self.t1),
                "a time greater than zero (GSM's is \"480ms\")".into(),
            );
        }
        if self.n2 == 0 {
            return bad("n2", "0".into(), "at least 1 poll (GSM's is 6)".into());
        }
        Ok(())
    }

    /// The table as it stands (its defaults are TS 24.022's).
    fn config<P: Clone>(&self, _hop: &Hop<'_>, _mac: &AnyMac<P>) -> RlpConfig {
        RlpConfig {
            info_bytes: self.info_bytes,
            header_bytes: self.header_bytes,
            window: self.window,
            t1: self.t1.sim(),
            n2: self.n2,
        }
    }

    fn layer(config: &RlpConfig, _head: bool) -> Result<AnyLinkLayer, String> {
        Ok(AnyLinkLayer::Rlp(Box::new(Rlp::new(config.clone()))))
    }

    /// A full-size datagram in frames of `info_bytes`, each answered by a supervisory frame
    /// at worst.
    fn frames_per_datagram(&self) -> f64 {
        2.0 * (f64::from(MAX_DATAGRAM_BYTES) / f64::from(self.info_bytes.max(1))).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rlp_defaults_are_gsm_tch_f9_6s() {
        let r = RlpSpec::default();
        assert_eq!(
            (r.info_bytes, r.header_bytes, r.window, r.n2),
            (24, 6, 61, 6)
        );
        assert_eq!(r.t1, Duration::from_millis(480));
        assert!(r.check().is_ok());
    }

    #[test]
    fn rlp_check_names_the_key_out_of_range() {
        let r = RlpSpec::default();
        let cases = [
            (
                RlpSpec {
                    info_bytes: 0,
                    ..r.clone()
                },
                "info_bytes",
            ),
            (
                RlpSpec {
                    header_bytes: 65_535,
                    ..r.clone()
                },
                "info_bytes",
            ),
            (
                RlpSpec {
                    window: 0,
                    ..r.clone()
                },
                "window",
            ),
            (
                RlpSpec {
                    window: 4_097,
                    ..r.clone()
                },
                "window",
            ),
            (
                RlpSpec {
                    t1: Duration::from_millis(0),
                    ..r.clone()
                },
                "t1",
            ),
            (RlpSpec { n2: 0, ..r.clone() }, "n2"),
        ];
        for (spec, path) in cases {
            assert_eq!(spec.check().unwrap_err().path, path, "{spec:?}");
        }
    }
}
