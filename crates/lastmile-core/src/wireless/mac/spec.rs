//! The MACs as a scenario names them: the one list of MACs (`macs!` below), which makes the
//! hop's tagged table `MacSpec` (`mac = { kind = "dcf", rts_threshold = "0B" }`, or the
//! short form `mac = "dcf"` with every setting at its default) and the dispatch that builds
//! each station's `AnyMac`. Each MAC's settings live in its module's `spec.rs` with their
//! defaults, their checks and how the MAC is built (`MacSettings`); the 802.11 PHY keys
//! (`phy`, `basic_rate`, `preamble`) belong to the MACs that frame for that PHY
//! (`PhySettings`, flattened into their tables).
//!
//! Adding a MAC: its module (state machine and `spec.rs` with `impl MacSettings`), a variant
//! of `AnyMac`, and one line of `macs!`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::RngStream;
use crate::errors::ScenarioError;
use crate::ids::NodeId;
use crate::units::Rate;
use crate::wireless::hop::Hop;
use crate::wireless::phy::{PhyConfig, Preamble};

use super::dcf::DcfSpec;
use super::duplex::DuplexSpec;
use super::fama::FamaSpec;
use super::ideal::IdealSpec;
use super::AnyMac;

/// Where a station's MAC sits in its cell, for MACs whose behaviour depends on it.
#[derive(Clone, Copy, Debug)]
pub struct StationSetup {
    pub node: NodeId,
    /// The station's index in the cell (its priority rank for the ideal MAC).
    pub rank: u32,
    /// Stations in the cell when it was built (or more, for a later joiner).
    pub cell_size: u32,
}

/// What a MAC's settings are asked when a scenario uses the MAC on a hop.
pub trait MacSettings {
    /// The MAC's name in scenario files (`kind = "dcf"`).
    const KIND: &'static str;
    /// Every frame is acknowledged, so that a `TxSuccess` means the frame arrived.
    const ACKNOWLEDGES: bool = false;
    /// Each station has a channel of its own in each direction (no shared medium).
    const FULL_DUPLEX: bool = false;
    /// The MAC may hold a frame after its last bit for decoding (`fec.decode_delay`); the
    /// 802.11 MACs answer within SIFS.
    const HOLDS_FRAMES: bool = false;
    /// Engine events per data frame, relative to a MAC without control frames (RTS, CTS,
    /// ACK), for the run-time estimate.
    const EVENTS_PER_FRAME: f64 = 1.0;
    /// The 802.11 PHY keys, for the MACs that frame for that PHY.
    fn phy(&self) -> Option<&PhySettings> {
        None
    }
    /// What the types alone cannot check, for this MAC on `hop`; error paths are relative
    /// to the `mac` table.
    fn check(&self, _hop: &Hop<'_>) -> Result<(), ScenarioError> {
        Ok(())
    }
    /// The MAC of one station of a cell on `hop`.
    fn build<P: Clone>(&self, hop: &Hop<'_>, station: StationSetup, rng: RngStream) -> AnyMac<P>;
}

/// An IEEE 802.11 DSSS PHY preset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum PhyPreset {
    /// 802.11 (1999) DSSS: 1 Mbps basic rate, long preamble.
    #[default]
    #[serde(rename = "802.11")]
    Dot11,
    /// 802.11b as LLE-TCP Table 3: 11 Mbps data, 1 Mbps basic rate, long preamble.
    #[serde(rename = "802.11b")]
    Dot11b,
}

/// The PLCP preamble.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PreambleKind {
    /// 192 µs.
    Long,
    /// 96 µs (802.11b).
    Short,
}

/// The 802.11 PHY of a cell MAC (`ideal`, `dcf`, `fama`); the hop's `rate` is the data
/// rate.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub struct PhySettings {
    /// The 802.11 PHY preset; the hop's `rate` is the data rate. Default "802.11".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phy: Option<PhyPreset>,
    /// The rate of control frames (RTS, CTS, ACK). Default: the preset's, "1Mbps" (IEEE
    /// 802.11-1999 §15: the DSSS basic rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_rate: Option<Rate>,
    /// "long" (192 µs) or "short" (96 µs) PLCP preamble and header. Default: the preset's,
    /// "long" (IEEE 802.11-1999 §15.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble: Option<PreambleKind>,
}

impl PhySettings {
    /// The PHY these settings give on `hop`: the preset, the hop's `rate` as the data rate,
    /// then `basic_rate` and `preamble`, and the hop's FEC.
    pub fn config(&self, hop: &Hop<'_>) -> PhyConfig {
        let mut phy = match self.phy.unwrap_or_default() {
            PhyPreset::Dot11 => PhyConfig::preset("802.11"),
            PhyPreset::Dot11b => PhyConfig::preset("802.11b"),
        }
        .expect("known preset");
        phy.data_rate_bps = hop.rate_bps;
        if let Some(r) = self.basic_rate {
            phy.basic_rate_bps = r.bps();
        }
        if let Some(p) = self.preamble {
            phy.preamble = match p {
                PreambleKind::Long => Preamble::Long,
                PreambleKind::Short => Preamble::Short,
            };
        }
        phy.code = hop.fec_code;
        phy
    }
}

/// The PHY of a cell on `hop`: its MAC's PHY settings, or the 802.11 defaults for a MAC
/// without them (the hop's rate, airtimes for the link layers' timers).
pub fn phy_config(hop: &Hop<'_>) -> PhyConfig {
    match hop.mac.phy() {
        Some(p) => p.config(hop),
        None => PhySettings::default().config(hop),
    }
}

/// The one list of MACs: the scenario's tagged table and its dispatch, with every arm.
macro_rules! macs {
    ($($(#[$doc:meta])* $variant:ident($spec:ty)),* $(,)?) => {
        /// The MAC of a hop, as a tagged table: `mac = { kind = "dcf", rts_threshold = "0B"
        /// }`, or by name (`mac = "dcf"`) with every setting at its default; the keys
        /// besides `kind` are that MAC's settings.
        #[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum MacSpec {
            /// A full-duplex point-to-point channel: serialization and propagation only.
            #[default]
            P2p,
            $($(#[$doc])* $variant($spec),)*
        }

        impl MacSpec {
            /// Every MAC's name in scenario files, `"p2p"` first.
            pub const NAMES: &'static [&'static str] =
                &["p2p", $(<$spec as MacSettings>::KIND),*];

            /// The name in scenario files.
            pub fn name(&self) -> &'static str {
                match self {
                    MacSpec::P2p => "p2p",
                    $(MacSpec::$variant(_) => <$spec as MacSettings>::KIND,)*
                }
            }

            /// True for the MACs that make the hop a cell.
            pub fn is_cell(&self) -> bool {
                !matches!(self, MacSpec::P2p)
            }

            /// See `MacSettings::ACKNOWLEDGES`.
            pub fn acknowledges(&self) -> bool {
                match self {
                    MacSpec::P2p => false,
                    $(MacSpec::$variant(_) => <$spec as MacSettings>::ACKNOWLEDGES,)*
                }
            }

            /// See `MacSettings::FULL_DUPLEX` (a point-to-point link is full duplex).
            pub fn is_full_duplex(&self) -> bool {
                match self {
                    MacSpec::P2p => true,
                    $(MacSpec::$variant(_) => <$spec as MacSettings>::FULL_DUPLEX,)*
                }
            }

            /// See `MacSettings::HOLDS_FRAMES` (a point-to-point link may).
            pub fn holds_frames(&self) -> bool {
                match self {
                    MacSpec::P2p => true,
                    $(MacSpec::$variant(_) => <$spec as MacSettings>::HOLDS_FRAMES,)*
                }
            }

            /// See `MacSettings::EVENTS_PER_FRAME`.
            pub fn events_per_frame(&self) -> f64 {
                match self {
                    MacSpec::P2p => 1.0,
                    $(MacSpec::$variant(_) => <$spec as MacSettings>::EVENTS_PER_FRAME,)*
                }
            }

            /// The 802.11 PHY keys of a MAC that has them.
            pub fn phy(&self) -> Option<&PhySettings> {
                match self {
                    MacSpec::P2p => None,
                    $(MacSpec::$variant(s) => s.phy(),)*
                }
            }

            /// The settings' checks on `hop` (paths relative to the `mac` table).
            pub fn check(&self, hop: &Hop<'_>) -> Result<(), ScenarioError> {
                match self {
                    MacSpec::P2p => Ok(()),
                    $(MacSpec::$variant(s) => s.check(hop),)*
                }
            }

            /// The MAC of one station of a cell on `hop`; `None` for a point-to-point hop.
            pub fn build<P: Clone>(
                &self,
                hop: &Hop<'_>,
                station: StationSetup,
                rng: RngStream,
            ) -> Option<AnyMac<P>> {
                match self {
                    MacSpec::P2p => None,
                    $(MacSpec::$variant(s) => Some(s.build(hop, station, rng)),)*
                }
            }
        }
    };
}

macs! {
    /// A shared half-duplex cell with 802.11 framing and airtime but no contention and no
    /// MAC ACK.
    Ideal(IdealSpec),
    /// A shared half-duplex cell with the IEEE 802.11 DCF (clause 9.2).
    Dcf(DcfSpec),
    /// A shared half-duplex cell with FAMA-NCS (Fullmer & Garcia-Luna-Aceves): non-persistent
    /// carrier sensing, RTS/CTS with a dominant CTS, no MAC ACK; with `link = { kind =
    /// "tulip" }` and its `mac_acceleration`, TULIP's LACK goes inside the floor (TULIP
    /// §3.3). Its constants: τ = 1 µs (802.11 aAirPropagationTime), ξ = 5 µs (802.11 DSSS
    /// aRxTxTurnaroundTime), RTS 20 bytes, CTS the shortest length with CTS ≥ RTS + 2τ + ξ
    /// (21 bytes at 1 Mbps), backoff 1 + U[0, cw] slots of 20 µs with cw from 31 doubling to
    /// 1023 (the 802.11 values; the papers give none), 7 failed RTSs before a frame is
    /// dropped (dot11ShortRetryLimit). Its settings change the slot, the backoff windows and
    /// the CTS length, for sensitivity runs.
    Fama(FamaSpec),
    /// A full-duplex radio channel per station (FDD, as GSM, GPRS, UMTS, IS-95 and CDPD's
    /// forward channel): no contention, no collisions, no carrier sense, no MAC ACK. A
    /// frame is the link layer's plus `overhead` bytes at `rate` (coded bits with `fec`),
    /// handed up `fec.decode_delay` after its last bit arrives.
    Duplex(DuplexSpec),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::LinkSpec;

    #[test]
    fn every_mac_round_trips_as_a_name_and_as_a_table() {
        for name in MacSpec::NAMES {
            let spec: MacSpec =
                serde_json::from_value(serde_json::json!({ "kind": name })).expect(name);
            assert_eq!(spec.name(), *name);
            assert_eq!(serde_json::to_value(&spec).unwrap()["kind"], *name);
            let hop: LinkSpec =
                toml::from_str(&format!("rate = \"1Mbps\"\nmac = \"{name}\"")).expect("short form");
            assert_eq!(hop.mac, spec, "mac = \"{name}\" is the table with defaults");
            let back: LinkSpec =
                toml::from_str(&format!("rate = \"1Mbps\"\nmac = {{ kind = \"{name}\" }}"))
                    .expect("table form");
            assert_eq!(back.mac, spec);
        }
    }
}
