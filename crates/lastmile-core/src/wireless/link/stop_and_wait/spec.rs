//! Stop-and-wait's settings in a scenario (`link = { kind = "stop_and_wait", retry_limit =
//! 7 }`) and its configuration on a cell: the ACK timeout is the MAC's reply budget plus one
//! maximum frame the peer may have to finish first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::errors::ScenarioError;
use crate::wireless::hop::Hop;
use crate::wireless::link::spec::{
    LinkLayerSettings, DEFAULT_LINK_RETRY_LIMIT, MAX_DATAGRAM_BYTES,
};
use crate::wireless::link::{AnyLinkLayer, SawAcks};
use crate::wireless::mac::spec::phy_config;
use crate::wireless::mac::AnyMac;

use super::{StopAndWait, StopAndWaitConfig, SAW_HEADER_BYTES};

/// Stop-and-wait's settings.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StopAndWaitSpec {
    /// Transmission attempts per frame. Default 7 (the papers give none; the same as
    /// dot11ShortRetryLimit).
    #[serde(default = "default_retry_limit")]
    pub retry_limit: u32,
}

fn default_retry_limit() -> u32 {
    DEFAULT_LINK_RETRY_LIMIT
}

impl Default for StopAndWaitSpec {
    fn default() -> Self {
        StopAndWaitSpec {
            retry_limit: default_retry_limit(),
        }
    }
}

impl LinkLayerSettings for StopAndWaitSpec {
    const KIND: &'static str = "stop_and_wait";
    type Config = StopAndWaitConfig;

    fn check(&self) -> Result<(), ScenarioError> {
        if self.retry_limit == 0 {
            return Err(ScenarioError::bad_value(
                "retry_limit",
                "0".into(),
                "at least 1 attempt",
            ));
        }
        Ok(())
    }

    fn config<P: Clone>(&self, hop: &Hop<'_>, mac: &AnyMac<P>) -> StopAndWaitConfig {
        let phy = phy_config(hop);
        let longest_frame = match mac {
            AnyMac::Duplex(d) => d.config().airtime(MAX_DATAGRAM_BYTES),
            _ => phy.data_airtime(MAX_DATAGRAM_BYTES) + phy.difs(),
        };
        StopAndWaitConfig {
            ack_timeout: mac.reply_budget(SAW_HEADER_BYTES) + longest_frame,
            retry_limit: self.retry_limit,
        }
    }

    fn layer(config: &StopAndWaitConfig, _head: bool) -> Result<AnyLinkLayer, String> {
        Ok(AnyLinkLayer::StopAndWait(
            Box::new(StopAndWait::new(config.clone())),
            SawAcks::default(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStream;
    use crate::ids::NodeId;
    use crate::scenario::LinkSpec;
    use crate::wireless::mac::StationSetup;

    #[test]
    fn stop_and_wait_waits_for_the_reply_and_one_maximum_frame() {
        let spec: LinkSpec = toml::from_str(
            "rate = \"1Mbps\"\ndelay = \"1us\"\nmac = \"dcf\"\nlink = \"stop_and_wait\"",
        )
        .unwrap();
        let station = StationSetup {
            node: NodeId(0),
            rank: 0,
            cell_size: 2,
        };
        let dcf = spec
            .mac
            .build::<()>(&spec.hop(), station, RngStream::derive(1, "t"))
            .unwrap();
        let phy = phy_config(&spec.hop());
        let c = StopAndWaitSpec::default().config(&spec.hop(), &dcf);
        assert_eq!(
            c.ack_timeout,
            dcf.reply_budget(SAW_HEADER_BYTES) + phy.data_airtime(1500) + phy.difs()
        );
        assert_eq!(c.retry_limit, 7);
    }

    #[test]
    fn stop_and_wait_needs_one_attempt_at_least() {
        let e = StopAndWaitSpec { retry_limit: 0 }.check().unwrap_err();
        assert_eq!(e.path, "retry_limit");
        assert!(StopAndWaitSpec::default().check().is_ok());
    }
}
