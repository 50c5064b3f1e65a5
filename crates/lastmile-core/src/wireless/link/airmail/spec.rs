//! AIRMAIL's settings in a scenario (`link = { kind = "airmail", window = 32 }`) and its
//! configuration on a cell. The paper's numbers were not available: each default is ours
//! (docs/wwan.md): 64-byte blocks with a 4-byte header, W = 32, a status period of one
//! window's airtime on this MAC, timeouts of two periods and a reply.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimDuration;
use crate::errors::ScenarioError;
use crate::units::Duration;
use crate::wireless::hop::Hop;
use crate::wireless::link::rlp::spec::RLP_FRAME_BYTES_MAX;
use crate::wireless::link::spec::LinkLayerSettings;
use crate::wireless::link::AnyLinkLayer;
use crate::wireless::mac::spec::phy_config;
use crate::wireless::mac::AnyMac;

use super::{Airmail, AirmailConfig, Role, AIRMAIL_WINDOW_MAX};

/// AIRMAIL's settings. The paper's numbers were not available: each default is ours
/// (docs/wwan.md).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AirmailSpec {
    /// User bytes per block. Default 64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info_bytes: Option<u32>,
    /// Block header bytes. Default 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_bytes: Option<u32>,
    /// W: blocks outstanding at most, 1..=128. Default 32.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// The base station's status period for uplink data. Default: the airtime of one window
    /// of blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_period: Option<Duration>,
    /// How long the base waits for the mobile's status after a poll. Default: two status
    /// periods plus a round trip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_timeout: Option<Duration>,
    /// How long a mobile's block may go unacknowledged before it is sent again. Default: as
    /// `ack_timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_timeout: Option<Duration>,
}

impl LinkLayerSettings for AirmailSpec {
    const KIND: &'static str = "airmail";
    type Config = AirmailConfig;

    /// Blocks, window and timers in range.
    fn check(&self) -> Result<(), ScenarioError> {
        let bad = |field: &str, value: String, expected: String| {
            Err(ScenarioError::bad_value(field, value, expected))
        };
        let info = self.info_bytes.unwrap_or(64);
        let frame = u64::from(info) + u64::from(self.header_bytes.unwrap_or(4));
        if info == 0 || frame > u64::from(RLP_FRAME_BYTES_MAX) {
            return bad(
                "info_bytes",
                info.to_string(),
                format!("1 or more bytes, with header_bytes at most {RLP_FRAME_BYTES_MAX} in all"),
            );
        }
        if let Some(w) = self
            .window
            .filter(|w| !(1..=AIRMAIL_WINDOW_MAX).contains(w))
        {
            return bad(
                "window",
                w.to_string(),
                format!("1..={AIRMAIL_WINDOW_MAX} blocks (the bit-map's length)"),
            );
        }
        let times = [
            ("status_period", self.status_period),
            ("ack_timeout", self.ack_timeout),
            ("block_timeout", self.block_timeout),
        ];
        for (field, time) in times {
            if let Some(t) = time.filter(|t| t.sim().is_zero()) {
                return bad(field, format!("\"{t}\""), "a time greater than zero".into());
            }
        }
        Ok(())
    }

    /// The table's values, and for those it leaves out our defaults, the status period and
    /// timeouts from this MAC's airtime and reply budget.
    fn config<P: Clone>(&self, hop: &Hop<'_>, mac: &AnyMac<P>) -> AirmailConfig {
        let mut cfg = AirmailConfig {
            info_bytes: self.info_bytes.unwrap_or(64),
            header_bytes: self.header_bytes.unwrap_or(4),
            window: self.window.unwrap_or(32).clamp(1, AIRMAIL_WINDOW_MAX),
            status_period: SimDuration::ZERO,
            ack_timeout: SimDuration::ZERO,
            block_timeout: SimDuration::ZERO,
        };
        let block = cfg.info_bytes + cfg.header_bytes;
        let block_airtime = match mac {
            AnyMac::Duplex(d) => d.config().airtime(block),
            _ => phy_config(hop).data_airtime(block),
        };
        cfg.status_period = self
            .status_period
            .map_or(block_airtime * u64::from(cfg.window), |d| d.sim());
        let reply = mac.reply_budget(block + cfg.status_bytes());
        cfg.ack_timeout = self
            .ack_timeout
            .map_or(cfg.status_period * 2 + reply, |d| d.sim());
        cfg.block_timeout = self.block_timeout.map_or(cfg.ack_timeout, |d| d.sim());
        cfg
    }

    fn layer(config: &AirmailConfig, head: bool) -> Result<AnyLinkLayer, String> {
        let role = if head { Role::Base } else { Role::Mobile };
        Ok(AnyLinkLayer::Airmail(Box::new(Airmail::new(
            config.clone(),
            role,
        ))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn airmail_check_names_the_key_out_of_range() {
        assert!(AirmailSpec::default().check().is_ok());
        let cases = [
            (
                AirmailSpec {
                    info_bytes: Some(0),
                    ..Default::default()
                },
                "info_bytes",
            ),
            (
                AirmailSpec {
                    window: Some(129),
                    ..Default::default()
                },
                "window",
            ),
            (
                AirmailSpec {
                    ack_timeout: Some(Duration::from_millis(0)),
                    ..Default::default()
                },
                "ack_timeout",
            ),
        ];
        for (spec, path) in cases {
            assert_eq!(spec.check().unwrap_err().path, path, "{spec:?}");
        }
    }
}
