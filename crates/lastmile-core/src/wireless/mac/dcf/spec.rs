//! The DCF's settings in a scenario (`mac = { kind = "dcf", ... }`): the 802.11 PHY keys,
//! RTS/CTS, the retry limits and the contention-window rule, with the standard's MIB values
//! as defaults (IEEE 802.11-1999 Annex D). Over TULIP the retry limits default to 1: TULIP
//! does the ARQ, and a MAC retry of a frame whose MAC ACK was lost would be a redundant
//! transmission.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::RngStream;
use crate::errors::ScenarioError;
use crate::units::ByteSize;
use crate::wireless::hop::Hop;
use crate::wireless::link::spec::LinkLayerSpec;
use crate::wireless::mac::spec::{MacSettings, PhySettings, StationSetup};
use crate::wireless::mac::AnyMac;
use crate::wireless::phy::DOT11_RTS_THRESHOLD;

use super::{CwRule, Dcf, DcfConfig};

/// The DCF's settings.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DcfSpec {
    #[serde(flatten)]
    pub phy: PhySettings,
    /// MAC frames longer than this use RTS/CTS. Default "2347B" (never; dot11RTSThreshold,
    /// IEEE 802.11-1999 Annex D).
    #[serde(default = "default_rts_threshold")]
    pub rts_threshold: ByteSize,
    /// dot11ShortRetryLimit. Default 7 (IEEE 802.11-1999 Annex D; 1 with `link = "tulip"`:
    /// TULIP does the ARQ).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_limit_short: Option<u32>,
    /// dot11LongRetryLimit. Default 4 (IEEE 802.11-1999 Annex D; 1 with `link = "tulip"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_limit_long: Option<u32>,
    /// How the contention window follows failures: "dcf" or "qsrc" (ns-3.44's rule, for
    /// comparisons with it). Default "dcf" (IEEE 802.11-2016 §10.3.3).
    #[serde(default)]
    pub cw_rule: CwRuleKind,
}

fn default_rts_threshold() -> ByteSize {
    ByteSize(u64::from(DOT11_RTS_THRESHOLD))
}

impl Default for DcfSpec {
    fn default() -> Self {
        DcfSpec {
            phy: PhySettings::default(),
            rts_threshold: default_rts_threshold(),
            retry_limit_short: None,
            retry_limit_long: None,
            cw_rule: CwRuleKind::default(),
        }
    }
}

/// How the DCF's contention window follows failures, successes and drops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CwRuleKind {
    /// IEEE 802.11-2016 §10.3.3: doubled at every failure up to CWmax, back to CWmin after a
    /// success and when a retry count reaches its limit (the frame is dropped).
    #[default]
    Dcf,
    /// IEEE 802.11-2020 §10.23.2.2's station retry count (QSRC), as ns-3.44 runs a non-QoS
    /// DCF: CW = 2^QSRC·(CWmin + 1) − 1, back to CWmin after a success or at the failure
    /// after QSRC reached the short retry limit, so the frame after a drop backs off over
    /// CWmax.
    Qsrc,
}

impl DcfSpec {
    /// The DCF's configuration on `hop` (retry limits 1 over TULIP unless given).
    pub fn config(&self, hop: &Hop<'_>) -> DcfConfig {
        let mut cfg = DcfConfig::with_phy(self.phy.config(hop));
        let tulip = matches!(hop.link, LinkLayerSpec::Tulip(_));
        let default_limit = |standard: u32| if tulip { 1 } else { standard };
        cfg.short_retry_limit = self
            .retry_limit_short
            .unwrap_or(default_limit(cfg.short_retry_limit));
        cfg.long_retry_limit = self
            .retry_limit_long
            .unwrap_or(default_limit(cfg.long_retry_limit));
        cfg.rts_threshold_bytes = self.rts_threshold.bytes().min(u64::from(u32::MAX)) as u32;
        cfg.cw_rule = match self.cw_rule {
            CwRuleKind::Dcf => CwRule::Dcf,
            CwRuleKind::Qsrc => CwRule::Qsrc,
        };
        cfg
    }
}

impl MacSettings for DcfSpec {
    const KIND: &'static str = "dcf";
    const ACKNOWLEDGES: bool = true;
    const EVENTS_PER_FRAME: f64 = 1.6;

    fn phy(&self) -> Option<&PhySettings> {
        Some(&self.phy)
    }

    /// The 802.11 DSSS rates and retry limits the DCF can run with.
    fn check(&self, hop: &Hop<'_>) -> Result<(), ScenarioError> {
        let cfg = self.config(hop);
        match cfg.validate() {
            Ok(()) => Ok(()),
            Err(e) => Err(phy_error(e.field, e.expected, &cfg.phy)),
        }
    }

    fn build<P: Clone>(&self, hop: &Hop<'_>, station: StationSetup, rng: RngStream) -> AnyMac<P> {
        AnyMac::Dcf(Dcf::new(station.node, self.config(hop), rng))
    }
}

/// A cell MAC's configuration error at `field` of its table, with the PHY's rates as the
/// value when the rates are at fault.
pub(crate) fn phy_error(
    field: &str,
    expected: &str,
    phy: &crate::wireless::phy::PhyConfig,
) -> ScenarioError {
    let value = match field {
        "phy" => format!(
            "rate \"{}bps\", basic_rate \"{}bps\"",
            phy.data_rate_bps, phy.basic_rate_bps
        ),
        _ => "the given value".into(),
    };
    ScenarioError::bad_value(field, value, expected)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::LinkSpec;

    fn hop(mac: &str, link: &str) -> LinkSpec {
        LinkSpec::tulip_experiment_hop(mac, link)
    }

    fn dcf(spec: &LinkSpec) -> DcfConfig {
        match &spec.mac {
            crate::wireless::mac::spec::MacSpec::Dcf(d) => d.config(&spec.hop()),
            other => panic!("not a DCF: {other:?}"),
        }
    }

    #[test]
    fn dcf_under_tulip_leaves_the_arq_to_tulip() {
        let c = dcf(&hop("\"dcf\"", r#"link = "tulip""#));
        assert_eq!((c.short_retry_limit, c.long_retry_limit), (1, 1));
        let c = dcf(&hop(r#"{ kind = "dcf", retry_limit_short = 3 }"#, ""));
        assert_eq!((c.short_retry_limit, c.long_retry_limit), (3, 4));
    }

    #[test]
    fn dcf_defaults_are_the_standards_mib() {
        let c = dcf(&hop("\"dcf\"", ""));
        assert_eq!((c.short_retry_limit, c.long_retry_limit), (7, 4));
        assert_eq!(c.rts_threshold_bytes, 2347);
        let c = dcf(&hop(r#"{ kind = "dcf", rts_threshold = "0B" }"#, ""));
        assert_eq!(c.rts_threshold_bytes, 0);
    }

    #[test]
    fn dcf_cw_rule_is_the_standards_unless_qsrc_is_asked_for() {
        assert_eq!(dcf(&hop("\"dcf\"", "")).cw_rule, CwRule::Dcf);
        let c = dcf(&hop(r#"{ kind = "dcf", cw_rule = "qsrc" }"#, ""));
        assert_eq!(c.cw_rule, CwRule::Qsrc);
    }

    #[test]
    fn dcf_check_names_the_phy_when_the_rate_is_not_dsss() {
        let mut spec = hop("\"dcf\"", "");
        assert!(spec.mac.check(&spec.hop()).is_ok());
        spec.rate = crate::units::Rate(3_000_000);
        let e = spec.mac.check(&spec.hop()).unwrap_err();
        assert_eq!(e.path, "phy", "{e}");
        assert!(e.expected.contains("DSSS"), "{e}");
    }
}
