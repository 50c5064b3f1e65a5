//! The scenario structure, defined once: serde reads it from TOML/YAML/JSON (unknown fields
//! refused), schemars exports it as JSON Schema, and the builder turns it into a `Sim`.
//! Doc comments here become the schema's descriptions, so each says its unit, its default
//! and where the default comes from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use super::base_station::{AgentChoice, BaseStationSpec, BaseStations, OneBaseStation};
pub use super::mobility::{HandoffTcp, MobileSpec, NextCell, Residence};
pub use super::presets::NetworkPreset;
pub use crate::agents::AgentSpec;
pub use crate::apps::AppSpec;
use crate::error_model::{ErrorModelSpec, FecSpec};
pub use crate::net::red::{AqmSpec, RedSpec};
pub use crate::tcp::spec::{AckPolicy, InitialWindow, RecoveryKind, TcpSpec, TcpVariant};
pub use crate::tcp::CcSpec;
use crate::units::{ByteSize, Duration, QueueLimit, Rate};
pub use crate::wireless::energy::{EnergyProfileKind, EnergySpec};
pub use crate::wireless::link::spec::LinkLayerSpec;
pub use crate::wireless::link::{
    airmail::AirmailSpec, dda::DdaLinkSpec, rlp::RlpSpec, stop_and_wait::StopAndWaitSpec,
    tulip::TulipSpec,
};
pub use crate::wireless::mac::{
    CwRuleKind, DcfSpec, DuplexSpec, FamaSpec, IdealSpec, MacSpec, PhyPreset, PhySettings,
    PreambleKind,
};

/// A whole simulation: a topology, the base stations' agents and the flows.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A name for reports.
    pub name: String,
    /// The run seed; every random stream is derived from it. Default 1.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The run ends when every flow is done or at this time. Default "3600s".
    #[serde(default = "default_stop_time")]
    pub stop_time: Duration,
    /// The network: a preset (`chain`, `wlan`, `adhoc`, `cells`) or explicit nodes and links.
    pub topology: Topology,
    /// The base stations and their TCP-aware agents: `[[base_station]]` entries (`node`,
    /// `agent = { kind = "snoop", ... }`), or the `[base_station]` table for one (`agent =
    /// "snoop"` with its settings in `[base_station.snoop]`). Default: none (plain IP
    /// forwarding).
    #[serde(default)]
    pub base_station: BaseStations,
    /// The flows: one application over one TCP connection each.
    #[serde(rename = "flow")]
    pub flows: Vec<FlowSpec>,
    /// Mobile hosts that move between cells: `[[mobile]]` entries (`node`, the `cells` it
    /// visits, its residence time, handoff delay, routing-update delay, and what its TCP
    /// does about handoffs). Default: none (nothing moves).
    #[serde(default, rename = "mobile", skip_serializing_if = "Vec::is_empty")]
    pub mobiles: Vec<MobileSpec>,
    /// The radios' power per state for the summary's `energy` section (wireless links and
    /// cell members): `profile = "ns3"` (default) or `"ns2"`, and any of `transmit_w`,
    /// `receive_w`, `idle_w`, `sleep_w` in watts instead of the profile's.
    #[serde(default)]
    pub energy: EnergySpec,
}

fn default_seed() -> u64 {
    1
}
fn default_stop_time() -> Duration {
    Duration::from_secs(3600)
}

/// A preset topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// Fixed host `fh` —wired— base station `bs` —wireless— mobile host `mh` (TULIP Fig. 8,
    /// WTCP Fig. 3).
    Chain,
    /// Fixed host `fh` —`wired`— access point `ap`, and mobile hosts `mh1..mhN` (`mobiles`)
    /// in one wireless cell with the AP (LLE-TCP's infrastructure scenario).
    Wlan,
    /// Two wireless nodes `n1`, `n2` in one cell (LLE-TCP's single hop); only `wireless`.
    Adhoc,
    /// Fixed host `fh` —`wired`— gateway `gw` —`backhaul`— base stations `bs1..bsN`
    /// (`cells`), each with its own wireless hop `cell1..cellN` (`wireless`), and mobile
    /// hosts `mh1..mhM` (`mobiles`) that move between the cells (`[[mobile]]`; WTCP Fig. 8).
    /// With a point-to-point `wireless` hop, each base station has a link to each mobile
    /// (`cell<i>`, or `cell<i>-mh<j>` with several mobiles), up while the mobile is in the
    /// cell; with a cell MAC, `cell<i>` is a cell of `bs<i>` and the mobiles in it.
    Cells,
}

/// The network: either a `preset` with its `wired` and `wireless` links, or explicit
/// `nodes` and `links`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    /// A preset topology with its fixed node names. Default: none, for an explicit
    /// topology of `nodes` and `links`.
    pub preset: Option<Preset>,
    /// The wired link: fh → bs (chain), fh → ap (wlan). Default: none; required by `chain`
    /// and `wlan`.
    pub wired: Option<LinkSpec>,
    /// The chain's wireless hop (bs → mh), or the cell of `wlan` / `adhoc`. Default: none;
    /// required by every preset.
    pub wireless: Option<LinkSpec>,
    /// `wlan`: the number of mobile hosts in the cell; `cells`: the number of mobile hosts.
    /// Default 1.
    pub mobiles: Option<u32>,
    /// `cells`: the number of base stations (and cells), 1 to 64. Default 2.
    pub cells: Option<u32>,
    /// `cells`: the link from the gateway to each base station (`backhaul1..N`, gw → `bs<i>`).
    /// Default: none; required by `cells`.
    pub backhaul: Option<LinkSpec>,
    /// Node names, for an explicit topology.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Links, for an explicit topology; each needs `from` and `to`.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
}

/// A link: a full-duplex point-to-point channel with a queue at each end (drop-tail, or RED
/// with `aqm`) (`mac = "p2p"`), or a shared wireless cell (`mac = "ideal"`, `"dcf"`,
/// `"fama"` or `"duplex"`). Every link takes `name`, `from`, `to`, `rate`, `delay`, `queue`,
/// `aqm`, `overhead`, `errors`, `reverse_errors`, `wireless`, `fec`; the MAC's settings go
/// in its table (`mac = { kind = "dcf", rts_threshold = "0B", phy = "802.11b" }`: the 802.11
/// PHY keys `phy`, `basic_rate`, `preamble` with the cell MACs `ideal`, `dcf` and `fama`,
/// `rate` being the data rate), and a link layer's in its own (`link = { kind = "tulip",
/// window = 8 }`); a MAC or link layer named alone (`mac = "dcf"`) takes every default.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// A network preset that fills this hop's `rate`, `delay`, `queue`, `overhead`, `mac`,
    /// `link` and its settings, `fec`, `errors` and `reverse_errors` from the survey's
    /// Appendix and the sources each preset names (docs/wwan.md); any key written beside it
    /// wins, and a settings table given beside it keeps the preset's other settings.
    /// Default: none.
    pub preset: Option<NetworkPreset>,
    /// A name for metrics, traces and `--pcap`. Default: `"<from>-<to>"` ("wired" and
    /// "wireless" in the chain preset).
    pub name: Option<String>,
    /// The node at the data-bound end's source. Default: set by the preset; required in
    /// explicit topologies.
    pub from: Option<String>,
    /// The node at the other end. Default: set by the preset; required in explicit
    /// topologies.
    pub to: Option<String>,
    /// The line rate (on a cell: the rate of data frames). Default: none, required unless
    /// `preset` gives it.
    pub rate: Rate,
    /// One-way propagation delay. Default "0s".
    #[serde(default)]
    pub delay: Duration,
    /// The queue limit at each end (the buffer; RED drops on overflow too). Default
    /// "100pkt".
    #[serde(default = "default_queue")]
    pub queue: QueueLimit,
    /// Active queue management at each end, e.g. `{ kind = "red", min_th = 5, max_th = 15,
    /// max_p = 0.02, w_q = 0.002 }` (Floyd & Jacobson 1993, marking ECN-capable packets per
    /// RFC 3168). Default: none (drop-tail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aqm: Option<AqmSpec>,
    /// Bytes added to every frame below IP (e.g. "2B" for PPP). Default "0B".
    #[serde(default)]
    pub overhead: ByteSize,
    /// Frame errors from `from` to `to` (the data-bound direction in the chain). Default
    /// `{ model = "none" }`.
    #[serde(default)]
    pub errors: ErrorModelSpec,
    /// Frame errors from `to` to `from` (ACKs in the chain). Default `{ model = "none" }`.
    #[serde(default)]
    pub reverse_errors: ErrorModelSpec,
    /// The MAC (wireless hops), by name or as a table of its settings. Default "p2p".
    #[serde(default, deserialize_with = "crate::short_form::deserialize")]
    #[schemars(schema_with = "mac_schema")]
    pub mac: MacSpec,
    /// The link layer (wireless hops), by name or as a table of its settings. Default
    /// "none".
    #[serde(default, deserialize_with = "crate::short_form::deserialize")]
    #[schemars(schema_with = "link_schema")]
    pub link: LinkLayerSpec,
    /// Count this link's frames in the `wireless` metrics. Default: true for the chain's
    /// wireless hop, false otherwise.
    pub wireless: Option<bool>,
    /// Link FEC on this hop, in both directions: a block code of `n` symbols of
    /// `symbol_bits` bits carrying `k` data symbols and correcting `t` symbol errors, e.g.
    /// CDPD's `{ n = 63, k = 47, t = 7, symbol_bits = 6 }`. Frames take the airtime of their
    /// coded bits and are lost only when some block has more than `t` symbol errors. Default:
    /// none.
    pub fec: Option<FecSpec>,
}

fn mac_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    crate::short_form::schema::<MacSpec>(
        gen,
        MacSpec::NAMES,
        "A MAC by name, every setting at its default.",
    )
}

fn link_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    crate::short_form::schema::<LinkLayerSpec>(
        gen,
        LinkLayerSpec::NAMES,
        "A link layer by name, every setting at its default.",
    )
}

impl LinkSpec {
    /// TULIP's experiment hop (§5: 1 Mbps, τ = 1 µs) with `mac = <mac>` (TOML: a quoted
    /// name or a table) and any further keys in `rest`, for the MACs' and link layers'
    /// settings tests.
    #[cfg(test)]
    pub(crate) fn tulip_experiment_hop(mac: &str, rest: &str) -> LinkSpec {
        toml::from_str(&format!(
            "rate = \"1Mbps\"\ndelay = \"1us\"\nmac = {mac}\n{rest}"
        ))
        .expect("a valid link")
    }

    /// The hop's link FEC, if any.
    pub fn fec_code(&self) -> Option<crate::error_model::BlockCode> {
        self.fec.as_ref().map(|f| f.code())
    }

    /// The hop as its MAC and link layer are configured from.
    pub fn hop(&self) -> crate::wireless::hop::Hop<'_> {
        crate::wireless::hop::Hop {
            rate_bps: self.rate.bps(),
            delay: self.delay.sim(),
            overhead_bytes: self.overhead.bytes(),
            fec_code: self.fec_code(),
            decode_delay: self
                .fec
                .as_ref()
                .map_or(crate::engine::SimDuration::ZERO, |f| f.decode_delay.sim()),
            mac: &self.mac,
            link: &self.link,
        }
    }
}

fn is_zero(d: &Duration) -> bool {
    d.sim().is_zero()
}

fn default_queue() -> QueueLimit {
    QueueLimit::Packets(100)
}

/// One application over one TCP connection from `src` to `dst` — or, with `count` or
/// several nodes named in `src` / `dst`, several such flows alike (`scenario::flows` says
/// how an entry expands).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// A name for reports. Default `"<src>-<dst>-<index>"` (the flow's index in the run) for
    /// an entry of one flow, `"flow<entry>"` (the entry's index among the `[[flow]]`
    /// entries) for an entry of several. The flows of an entry of several are named
    /// `"<name>.1"` to `"<name>.N"`.
    pub name: Option<String>,
    /// The group the entry's flows report in (the summary's `groups`, each with its own
    /// aggregates and Jain's index); entries may share one. Default: the entry's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// How many flows the entry makes, alike but for their ports, random streams and
    /// `stagger`ed starts (1 to 16384). Default: one per node named in `src` / `dst`
    /// (the longer list), so 1 for a single source and destination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// The node the application sends from (e.g. "fh"); or several: a list of node names
    /// (`["mh1", "mh2"]`) or a pattern where `*` stands for any characters (`"mh*"`: every
    /// mobile of a `wlan` cell, in order). Flow k of the entry uses the (k mod n)-th node.
    pub src: Nodes,
    /// The node that receives (e.g. "mh"), or several, as for `src`.
    pub dst: Nodes,
    /// When the application opens the connection. Default "0s".
    #[serde(default)]
    pub start: Duration,
    /// The gap between the starts of the entry's flows: flow k (from 0) starts at `start`
    /// + k × `stagger`. Default "0s" (all at once).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stagger: Duration,
    /// A random delay added to each flow's start, uniform in [0, `start_jitter`), drawn
    /// from the flow's own stream (`flow/<index>/start`). Default "0s".
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_jitter: Duration,
    /// Background traffic (WTCP §5: long-lived connections sharing the path): the run
    /// does not wait for these flows — it ends when every other flow is done (or at
    /// `stop_time`; a run of background flows only ends when they are all done). When
    /// exactly one flow of a run is not background, the results store keeps its metrics
    /// unprefixed (`throughput_bps`, ...), as for a run of one flow. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
    /// When the throughput measurement window opens, from the beginning of the run like
    /// `start` (e.g. "2s" to leave out a warm-up). `throughput_bps` counts the bytes
    /// delivered from then until the flow completes or the run ends. Default: the flow's
    /// `start`; an earlier value means `start`.
    #[serde(default)]
    pub measure_from: Option<Duration>,
    /// TCP at both ends of the connection. Default: each key's default.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// What `dst` (the mobile) speaks: "tcp" (default), "wap" (WTP to a WAP gateway on the
    /// path) or "wtcp_sinha" (WTCP of Sinha et al. to its proxy on the path); `src` always
    /// speaks TCP, to the gateway. Default "tcp".
    #[serde(default)]
    pub transport: crate::transport::TransportKind,
    /// The application at `src`: a bulk transfer, a Poisson source or a saturating UDP
    /// source; or a request/response client at `dst` with its server at `src`.
    pub app: AppSpec,
}

/// The nodes at one end of a `[[flow]]` entry: one node by name, a pattern with `*`
/// (`"mh*"`), or a list of node names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Nodes {
    /// A node name, or a pattern where `*` stands for any characters.
    One(String),
    /// Node names, used in turn.
    List(Vec<String>),
}

impl Nodes {
    /// The single node `name`.
    pub fn one(name: impl Into<String>) -> Self {
        Nodes::One(name.into())
    }

    /// The node's name when this is one node (not a pattern, not a list).
    pub fn single(&self) -> Option<&str> {
        match self {
            Nodes::One(n) if !n.contains('*') => Some(n),
            _ => None,
        }
    }
}

impl std::fmt::Display for Nodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Nodes::One(n) => write!(f, "\"{n}\""),
            Nodes::List(list) => {
                let quoted: Vec<String> = list.iter().map(|n| format!("\"{n}\"")).collect();
                write!(f, "[{}]", quoted.join(", "))
            }
        }
    }
}

impl<'de> Deserialize<'de> for Nodes {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NodesVisitor;
        impl<'de> serde::de::Visitor<'de> for NodesVisitor {
            type Value = Nodes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a node name, a pattern such as \"mh*\", or a list of node names")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Nodes, E> {
                Ok(Nodes::One(name.to_string()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Nodes, A::Error> {
                Vec::<String>::deserialize(serde::de::value::SeqAccessDeserializer::new(seq))
                    .map(Nodes::List)
            }
        }
        deserializer.deserialize_any(NodesVisitor)
    }
}
