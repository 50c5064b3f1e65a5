//! The DDA link layer's settings in a scenario (`link = { kind = "dda", window = 8,
//! retry_limit = 7 }`) and its configuration on a cell: an ACK timeout of a link ACK's
//! reply budget (with a TCP ACK in it) plus two maximum frames and a DIFS unless set. The
//! papers give none of these numbers; each default says where it comes from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::errors::ScenarioError;
use crate::units::Duration;
use crate::wireless::hop::Hop;
use crate::wireless::link::spec::{
    LinkLayerSettings, DEFAULT_LINK_RETRY_LIMIT, MAX_DATAGRAM_BYTES,
};
use crate::wireless::link::AnyLinkLayer;
use crate::wireless::mac::spec::phy_config;
use crate::wireless::mac::AnyMac;

use super::{DdaLink, DdaLinkConfig, DDA_ACK_BYTES};

/// The largest TCP ACK a DDA link ACK carries: IP and TCP headers and 40 bytes of options.
const MAX_PIGGYBACK_BYTES: u32 = 80;
/// DDA's window when the scenario gives none (TULIP's W).
const DEFAULT_DDA_WINDOW: u32 = 8;

/// The DDA link layer's settings. The papers give none of these numbers; each default says
/// where it comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DdaLinkSpec {
    /// Frames outstanding at most, 1..=1024. Default 8 (TULIP's W, the other windowed link
    /// layer here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// How long after the MAC is done with a data frame its link ACK may take before the
    /// frame is sent again. Default: the reply budget of a link ACK carrying a TCP ACK,
    /// plus two maximum frames (the peer may send one frame of its own first, and this end
    /// one more) and a DIFS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_timeout: Option<Duration>,
    /// Transmission attempts per frame, the first included. Default 7 (as stop-and-wait's
    /// `retry_limit`: dot11ShortRetryLimit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_limit: Option<u32>,
    /// Deliver frames in order, holding those behind a gap (not DDA's; for a base
    /// station's ARQ that must not reorder, e.g. under EBSN). Default false (the survey:
    /// "the protocol does not attempt to deliver the packets in-order").
    #[serde(default)]
    pub in_order: bool,
}

impl LinkLayerSettings for DdaLinkSpec {
    const KIND: &'static str = "dda";
    type Config = DdaLinkConfig;

    /// Window, attempts and timer in range.
    fn check(&self) -> Result<(), ScenarioError> {
        if let Some(w) = self.window.filter(|w| !(1..=1024).contains(w)) {
            return Err(ScenarioError::bad_value(
                "window",
                w.to_string(),
                "a window of 1..=1024 frames",
            ));
        }
        if self.retry_limit == Some(0) {
            return Err(ScenarioError::bad_value(
                "retry_limit",
                "0".into(),
                "at least 1 attempt",
            ));
        }
        if let Some(t) = self.ack_timeout.filter(|t| t.sim().is_zero()) {
            return Err(ScenarioError::bad_value(
                "ack_timeout",
                format!("\"{t}\""),
                "a time greater than zero",
            ));
        }
        Ok(())
    }

    fn config<P: Clone>(&self, hop: &Hop<'_>, mac: &AnyMac<P>) -> DdaLinkConfig {
        let phy = phy_config(hop);
        DdaLinkConfig {
            window: self.window.unwrap_or(DEFAULT_DDA_WINDOW),
            ack_timeout: self.ack_timeout.map(|t| t.sim()).unwrap_or_else(|| {
                mac.reply_budget(DDA_ACK_BYTES + MAX_PIGGYBACK_BYTES)
                    + phy.data_airtime(MAX_DATAGRAM_BYTES) * 2
                    + phy.difs()
            }),
            retry_limit: self.retry_limit.unwrap_or(DEFAULT_LINK_RETRY_LIMIT),
            in_order: self.in_order,
        }
    }

    fn layer(config: &DdaLinkConfig, _head: bool) -> Result<AnyLinkLayer, String> {
        Ok(AnyLinkLayer::Dda(Box::new(DdaLink::new(config.clone()))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dda_check_names_the_key_out_of_range() {
        assert!(DdaLinkSpec::default().check().is_ok());
        let cases = [
            (
                DdaLinkSpec {
                    window: Some(0),
                    ..Default::default()
                },
                "window",
            ),
            (
                DdaLinkSpec {
                    window: Some(1025),
                    ..Default::default()
                },
                "window",
            ),
            (
                DdaLinkSpec {
                    retry_limit: Some(0),
                    ..Default::default()
                },
                "retry_limit",
            ),
            (
                DdaLinkSpec {
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
