//! The link layers as a scenario names them: the one list of link layers (`link_layers!`
//! below), which makes the hop's tagged table `LinkLayerSpec` (`link = { kind = "tulip",
//! window = 8 }`, or the short form `link = "tulip"` with every setting at its default), the
//! configuration each resolves to on its cell (`LinkLayerConfig`, some of it derived from
//! the head station's MAC: timers from its reply budget) and the dispatch that builds a
//! station's `AnyLinkLayer` per peer. Each link layer's settings live in its module's
//! `spec.rs` with their defaults, their checks and their configuration
//! (`LinkLayerSettings`).
//!
//! Adding a link layer: its module (state machine and `spec.rs` with `impl
//! LinkLayerSettings`), a variant of `AnyLinkLayer` and `LinkFrame`, and one line of
//! `link_layers!`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::errors::ScenarioError;
use crate::wireless::hop::Hop;
use crate::wireless::mac::AnyMac;

use super::airmail::AirmailSpec;
use super::dda::DdaLinkSpec;
use super::rlp::RlpSpec;
use super::stop_and_wait::StopAndWaitSpec;
use super::tulip::{TulipConfig, TulipSpec};
use super::{AnyLinkLayer, NoLink};

/// The longest IP datagram a peer may be sending when a reply is due (the ARQs' ACK
/// timeouts wait for it).
pub const MAX_DATAGRAM_BYTES: u32 = 1500;
/// Transmission attempts per frame when the scenario gives none (the papers give none; the
/// same as dot11ShortRetryLimit).
pub const DEFAULT_LINK_RETRY_LIMIT: u32 = 7;

/// What a link layer's settings are asked when a scenario runs it on a cell.
pub trait LinkLayerSettings {
    /// The link layer's name in scenario files (`kind = "tulip"`).
    const KIND: &'static str;
    /// The settings resolved on a cell, shared by its stations' instances.
    type Config: Clone + std::fmt::Debug;
    /// What the types alone cannot check; error paths are relative to the `link` table.
    fn check(&self) -> Result<(), ScenarioError> {
        Ok(())
    }
    /// The configuration on `hop` whose head station runs `mac`.
    fn config<P: Clone>(&self, hop: &Hop<'_>, mac: &AnyMac<P>) -> Self::Config;
    /// One instance, towards one peer; `head` says whether its station is the cell's head
    /// (AIRMAIL's base station).
    fn layer(config: &Self::Config, head: bool) -> Result<AnyLinkLayer, String>;
    /// Link frames per full-size datagram, answers included, relative to one frame each way
    /// (for the run-time estimate).
    fn frames_per_datagram(&self) -> f64 {
        1.0
    }
}

/// The one list of link layers: the scenario's tagged table, the configurations and the
/// dispatch, with every arm.
macro_rules! link_layers {
    ($($(#[$doc:meta])* $variant:ident($spec:ty)),* $(,)?) => {
        /// The link layer of a hop, as a tagged table: `link = { kind = "tulip", window = 8
        /// }`, or by name (`link = "tulip"`) with every setting at its default; the keys
        /// besides `kind` are that link layer's settings. Link layers run over a cell MAC.
        #[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum LinkLayerSpec {
            /// No link-layer recovery.
            #[default]
            None,
            $($(#[$doc])* $variant($spec),)*
        }

        /// A link layer's configuration on its cell, shared by the cell's instances.
        #[derive(Clone, Debug)]
        pub enum LinkLayerConfig {
            None,
            $($variant(<$spec as LinkLayerSettings>::Config),)*
        }

        impl LinkLayerSpec {
            /// Every link layer's name in scenario files, `"none"` first.
            pub const NAMES: &'static [&'static str] =
                &["none", $(<$spec as LinkLayerSettings>::KIND),*];

            /// The name in scenario files.
            pub fn name(&self) -> &'static str {
                match self {
                    LinkLayerSpec::None => "none",
                    $(LinkLayerSpec::$variant(_) => <$spec as LinkLayerSettings>::KIND,)*
                }
            }

            /// The settings' own checks (paths relative to the `link` table).
            pub fn check(&self) -> Result<(), ScenarioError> {
                match self {
                    LinkLayerSpec::None => Ok(()),
                    $(LinkLayerSpec::$variant(s) => s.check(),)*
                }
            }

            /// The configuration on `hop` whose head station runs `mac`.
            pub fn config<P: Clone>(&self, hop: &Hop<'_>, mac: &AnyMac<P>) -> LinkLayerConfig {
                match self {
                    LinkLayerSpec::None => LinkLayerConfig::None,
                    $(LinkLayerSpec::$variant(s) => LinkLayerConfig::$variant(s.config(hop, mac)),)*
                }
            }

            /// See `LinkLayerSettings::frames_per_datagram`.
            pub fn frames_per_datagram(&self) -> f64 {
                match self {
                    LinkLayerSpec::None => 1.0,
                    $(LinkLayerSpec::$variant(s) => s.frames_per_datagram(),)*
                }
            }
        }

        impl LinkLayerConfig {
            /// One instance towards one peer (`head`: the station is the cell's head).
            pub fn layer(&self, head: bool) -> Result<AnyLinkLayer, String> {
                match self {
                    LinkLayerConfig::None => Ok(AnyLinkLayer::None(NoLink::default())),
                    $(LinkLayerConfig::$variant(c) => <$spec as LinkLayerSettings>::layer(c, head),)*
                }
            }
        }
    };
}

link_layers! {
    /// Alternating-bit ARQ with a retry limit.
    StopAndWait(StopAndWaitSpec),
    /// TULIP (Parsa & Garcia-Luna-Aceves): W = 8 and MAC acceleration on unless set.
    Tulip(TulipSpec),
    /// GSM's non-transparent Radio Link Protocol (GSM 04.22 / TS 24.022): the datagram stream
    /// in fixed frames, selective-reject ARQ, T1 and N2; TCH/F9.6's settings unless set.
    Rlp(RlpSpec),
    /// AIRMAIL (Ayanoglu et al. 1995): asymmetric — the base station polls with the block
    /// that fills its window and sends periodic status bit-maps for the uplink, the mobile
    /// acknowledges on events with one bit-map — over the hop's `fec`.
    Airmail(AirmailSpec),
    /// The TCP-unaware link layer of Delayed Duplicate Acknowledgements (Vaidya et al.;
    /// Pentikousis §2.1.2.2): selective repeat with its own sequence numbers, a link ACK per
    /// frame, retransmission when the ACK of a later frame arrives or a timer expires, and
    /// no in-order delivery. Pair it with `agent = { kind = "dda" }` on the mobile for the
    /// delayed duplicate ACKs.
    Dda(DdaLinkSpec),
}

impl LinkLayerConfig {
    /// TULIP's configuration, which gives its frames' lengths.
    pub fn tulip(&self) -> Option<&TulipConfig> {
        match self {
            LinkLayerConfig::Tulip(c) => Some(c),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::LinkSpec;

    #[test]
    fn every_link_layer_round_trips_as_a_name_and_as_a_table() {
        for name in LinkLayerSpec::NAMES {
            let spec: LinkLayerSpec =
                serde_json::from_value(serde_json::json!({ "kind": name })).expect(name);
            assert_eq!(spec.name(), *name);
            assert_eq!(serde_json::to_value(&spec).unwrap()["kind"], *name);
            let hop: LinkSpec = toml::from_str(&format!(
                "rate = \"1Mbps\"\nmac = \"dcf\"\nlink = \"{name}\""
            ))
            .expect("short form");
            assert_eq!(
                hop.link, spec,
                "link = \"{name}\" is the table with defaults"
            );
            let back: LinkSpec = toml::from_str(&format!(
                "rate = \"1Mbps\"\nmac = \"dcf\"\nlink = {{ kind = \"{name}\" }}"
            ))
            .expect("table form");
            assert_eq!(back.link, spec);
            let written = serde_json::to_value(&back.link).unwrap();
            let again: LinkLayerSpec = serde_json::from_value(written).unwrap();
            assert_eq!(again, spec, "the written table loads again");
        }
    }
}
