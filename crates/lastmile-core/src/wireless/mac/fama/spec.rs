//! FAMA-NCS's settings in a scenario (`mac = { kind = "fama", ... }`): the 802.11 PHY keys
//! and, for sensitivity runs, the constants neither TULIP nor the FAMA-NCS papers' abstracts
//! fix (slot, backoff windows, CTS length); each key left out keeps the constant listed
//! under `mac = "fama"`. The MAC does not know its link layer: its floors are sized here for
//! TULIP's framing (`LinkFraming`), with MAC acceleration only for TULIP with
//! `mac_acceleration` (TULIP §3.3, §5).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::RngStream;
use crate::errors::ScenarioError;
use crate::units::Duration;
use crate::wireless::hop::Hop;
use crate::wireless::link::spec::LinkLayerSpec;
use crate::wireless::link::tulip::{
    TulipConfig, MAC_ACCEL_PIGGYBACK_MAX_BYTES, TULIP_HEADER_BYTES,
};
use crate::wireless::mac::dcf::spec::phy_error;
use crate::wireless::mac::spec::{MacSettings, MacSpec, PhySettings, StationSetup};
use crate::wireless::mac::AnyMac;

use super::{Fama, FamaConfig, LinkFraming};

/// FAMA-NCS's settings, for sensitivity runs: each key left out keeps its constant.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FamaSpec {
    #[serde(flatten)]
    pub phy: PhySettings,
    /// The backoff slot: a backoff is 1 + U[0, cw] slots. Default "20us" (the 802.11 DSSS
    /// slot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Duration>,
    /// The initial backoff window in slots, 2^k - 1. Default 31 (802.11 aCWmin).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_min: Option<u32>,
    /// The largest backoff window in slots, 2^k - 1, at most 65535. Default 1023 (802.11
    /// aCWmax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cw_max: Option<u32>,
    /// The CTS length in bytes; it must last at least the RTS plus 2τ + ξ (CTS dominance),
    /// and be at most 2346 bytes. Default: the shortest that does (21 bytes at 1 Mbps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cts_bytes: Option<u32>,
}

/// True when `hop` runs TULIP with MAC acceleration over FAMA-NCS (TULIP §3.3, §5): the only
/// case in which a link layer replies inside the floor.
pub fn is_mac_accelerated(hop: &Hop<'_>) -> bool {
    matches!(
        (hop.mac, hop.link),
        (MacSpec::Fama(_), LinkLayerSpec::Tulip(t)) if t.mac_acceleration
    )
}

impl FamaSpec {
    /// FAMA-NCS's constants on the cell's PHY, with this table's slot, backoff windows and
    /// CTS length: what the scenario check validates (at the nominal τ).
    pub fn constants(&self, hop: &Hop<'_>) -> FamaConfig {
        let mut cfg = FamaConfig::with_phy(self.phy.config(hop));
        cfg.phy.slot = self.slot.map_or(cfg.phy.slot, |d| d.sim());
        cfg.cw_min = self.cw_min.unwrap_or(cfg.cw_min);
        cfg.cw_max = self.cw_max.unwrap_or(cfg.cw_max);
        cfg.cts_bytes = self.cts_bytes.unwrap_or(cfg.cts_bytes);
        cfg
    }

    /// The FAMA-NCS of a cell on `hop`: its constants, the propagation delay as τ, and
    /// floors for TULIP's framing: a 2-byte header on every data frame, and under MAC
    /// acceleration an in-floor reply of the configured window's LACK plus a 40-byte
    /// piggyback. The CTS deferral covers TULIP's header whichever link layer runs (with
    /// `link = "none"` that is 16 µs more than needed at 1 Mbps; kept as the results were
    /// recorded).
    pub fn config(&self, hop: &Hop<'_>) -> FamaConfig {
        let reply_in_floor_max_bytes = match hop.link {
            LinkLayerSpec::Tulip(t) if is_mac_accelerated(hop) => {
                TulipConfig::lack_bytes_for_window(t.window) + MAC_ACCEL_PIGGYBACK_MAX_BYTES
            }
            _ => 0,
        };
        let mut cfg = self.constants(hop).with_link(LinkFraming {
            header_bytes: TULIP_HEADER_BYTES,
            reply_in_floor_max_bytes,
        });
        cfg.tau = cfg.tau.max(hop.delay);
        cfg
    }
}

impl MacSettings for FamaSpec {
    const KIND: &'static str = "fama";
    const EVENTS_PER_FRAME: f64 = 1.6;

    fn phy(&self) -> Option<&PhySettings> {
        Some(&self.phy)
    }

    /// The 802.11 DSSS rates, CTS dominance, backoff windows of 2^k − 1 slots, and bounds
    /// that keep every FAMA-NCS time finite: an 802.11 frame's largest size, and a window of
    /// at most 2^16 slots.
    fn check(&self, hop: &Hop<'_>) -> Result<(), ScenarioError> {
        let cfg = self.constants(hop);
        if let Err(e) = cfg.validate() {
            let field = match e.field {
                "phy.slot" => "slot",
                other => other,
            };
            return Err(phy_error(field, e.expected, &cfg.phy));
        }
        if let Some(b) = self.cts_bytes.filter(|&b| b > 2346) {
            return Err(ScenarioError::bad_value(
                "cts_bytes",
                b.to_string(),
                "at most 2346 bytes (the largest 802.11 frame)",
            ));
        }
        if let Some(w) = self.cw_max.filter(|&w| w > 65_535) {
            return Err(ScenarioError::bad_value(
                "cw_max",
                w.to_string(),
                "at most 65535 slots",
            ));
        }
        Ok(())
    }

    fn build<P: Clone>(&self, hop: &Hop<'_>, station: StationSetup, rng: RngStream) -> AnyMac<P> {
        AnyMac::Fama(Fama::new(station.node, self.config(hop), rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::LinkSpec;

    fn hop(mac: &str, link: &str) -> LinkSpec {
        LinkSpec::tulip_experiment_hop(mac, link)
    }

    fn fama(spec: &LinkSpec) -> FamaConfig {
        match &spec.mac {
            MacSpec::Fama(f) => f.config(&spec.hop()),
            other => panic!("not FAMA-NCS: {other:?}"),
        }
    }

    #[test]
    fn fama_opens_a_43_byte_reply_window_only_under_tulips_mac_acceleration() {
        let accel = fama(&hop("\"fama\"", r#"link = "tulip""#));
        assert!(accel.mac_acceleration);
        assert_eq!(accel.reply_in_floor_max_bytes, 43);
        assert_eq!(accel.max_data_msdu_bytes, 1502);
        let off = fama(&hop(
            "\"fama\"",
            r#"link = { kind = "tulip", mac_acceleration = false }"#,
        ));
        assert!(!off.mac_acceleration);
        assert!(!fama(&hop("\"fama\"", r#"link = "stop_and_wait""#)).mac_acceleration);
    }

    #[test]
    fn fama_defaults_are_the_80211_constants_and_its_settings_replace_them() {
        let c = fama(&hop("\"fama\"", ""));
        assert_eq!((c.cw_min, c.cw_max, c.cts_bytes), (31, 1023, 21));
        assert_eq!(c.phy.slot, crate::engine::SimDuration::from_micros(20));
        let c = fama(&hop(
            r#"{ kind = "fama", slot = "354us", cw_min = 7, cw_max = 255, cts_bytes = 40 }"#,
            "",
        ));
        assert_eq!((c.cw_min, c.cw_max, c.cts_bytes), (7, 255, 40));
        assert_eq!(c.phy.slot, crate::engine::SimDuration::from_micros(354));
    }

    #[test]
    fn fama_check_names_the_key_of_its_table() {
        for (table, path) in [
            (r#"{ kind = "fama", cts_bytes = 20 }"#, "cts_bytes"),
            (r#"{ kind = "fama", cw_min = 8 }"#, "cw_min/cw_max"),
            (r#"{ kind = "fama", cts_bytes = 4294967295 }"#, "cts_bytes"),
            (r#"{ kind = "fama", cw_max = 1048575 }"#, "cw_max"),
            (r#"{ kind = "fama", slot = "0s" }"#, "slot"),
        ] {
            let spec = hop(table, "");
            let e = spec.mac.check(&spec.hop()).unwrap_err();
            assert_eq!(e.path, path, "{table}: {e}");
        }
        let spec = hop("\"fama\"", "");
        assert!(spec.mac.check(&spec.hop()).is_ok());
    }
}
