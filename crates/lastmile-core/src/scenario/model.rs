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
pub use crate::wireless::link::dda::DdaLinkSpec;

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
    /// `cells`: the link from the gateway to each base station (`backhaul1..N`, gw → bs<i>).
    /// Default: none; required by `cells`.
    pub backhaul: Option<LinkSpec>,
    /// Node names, for an explicit topology.
    #[serde(default)]
    pub nodes: Vec<String>,
    /// Links, for an explicit topology; each needs `from` and `to`.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
}

/// The medium access control of a hop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MacKind {
    /// A full-duplex point-to-point channel: serialization and propagation only.
    #[default]
    P2p,
    /// A shared half-duplex cell with 802.11 framing and airtime but no contention and no
    /// MAC ACK.
    Ideal,
    /// A shared half-duplex cell with the IEEE 802.11 DCF (clause 9.2).
    Dcf,
    /// A shared half-duplex cell with FAMA-NCS (Fullmer & Garcia-Luna-Aceves): non-persistent
    /// carrier sensing, RTS/CTS with a dominant CTS, no MAC ACK; with `link = "tulip"` and
    /// `tulip.mac_acceleration`, TULIP's LACK goes inside the floor (TULIP §3.3). The PHY
    /// keys (`phy`, `rate`, `basic_rate`, `preamble`) apply; its constants: τ = 1 µs (802.11
    /// aAirPropagationTime), ξ = 5 µs (802.11 DSSS aRxTxTurnaroundTime), RTS 20 bytes, CTS
    /// the shortest length with CTS ≥ RTS + 2τ + ξ (21 bytes at 1 Mbps), backoff 1 + U[0, cw]
    /// slots of 20 µs with cw from 31 doubling to 1023 (the 802.11 values; the papers give
    /// none), 7 failed RTSs before a frame is dropped (dot11ShortRetryLimit). The `fama`
    /// table changes the slot, the backoff windows and the CTS length.
    Fama,
    /// A full-duplex radio channel per station (FDD, as GSM, GPRS, UMTS, IS-95 and CDPD's
    /// forward channel): no contention, no collisions, no carrier sense, no MAC ACK. A
    /// frame is the link layer's plus `overhead` bytes at `rate` (coded bits with `fec`),
    /// handed up `fec.decode_delay` after its last bit arrives.
    Duplex,
}

impl MacKind {
    /// True for the MACs that make the hop a shared half-duplex cell.
    pub fn is_cell(self) -> bool {
        !matches!(self, MacKind::P2p)
    }
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

/// The link layer of a hop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LinkLayerKind {
    /// No link-layer recovery.
    #[default]
    None,
    /// Alternating-bit ARQ with a retry limit (`link_retry_limit`).
    StopAndWait,
    /// TULIP (Parsa & Garcia-Luna-Aceves); settings in `tulip` (window 8, MAC acceleration
    /// on).
    Tulip,
    /// GSM's non-transparent Radio Link Protocol (GSM 04.22 / TS 24.022): the datagram stream
    /// in fixed frames, selective-reject ARQ, T1 and N2; settings in `rlp` (TCH/F9.6's).
    Rlp,
    /// AIRMAIL (Ayanoglu et al. 1995): asymmetric — the base station polls with the block
    /// that fills its window and sends periodic status bit-maps for the uplink, the mobile
    /// acknowledges on events with one bit-map — over the hop's `fec`; settings in `airmail`.
    Airmail,
    /// The TCP-unaware link layer of Delayed Duplicate Acknowledgements (Vaidya et al.;
    /// Pentikousis §2.1.2.2): selective repeat with its own sequence numbers, a link ACK per
    /// frame, retransmission when the ACK of a later frame arrives or a timer expires, and
    /// no in-order delivery; settings in `dda`. Pair it with `agent = { kind = "dda" }` on
    /// the mobile for the delayed duplicate ACKs.
    Dda,
}

/// AIRMAIL's settings (`link = "airmail"`). The paper's numbers were not available: each
/// default is ours (docs/wwan.md).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AirmailSpec {
    /// User bytes per block. Default 64.
    pub info_bytes: Option<u32>,
    /// Block header bytes. Default 4.
    pub header_bytes: Option<u32>,
    /// W: blocks outstanding at most, 1..=128. Default 32.
    pub window: Option<u32>,
    /// The base station's status period for uplink data. Default: the airtime of one window
    /// of blocks.
    pub status_period: Option<Duration>,
    /// How long the base waits for the mobile's status after a poll. Default: two status
    /// periods plus a round trip.
    pub ack_timeout: Option<Duration>,
    /// How long a mobile's block may go unacknowledged before it is sent again. Default: as
    /// `ack_timeout`.
    pub block_timeout: Option<Duration>,
}

/// RLP's settings (`link = "rlp"`). Defaults are GSM TCH/F9.6's (GSM 04.22 frames of 240
/// bits; TS 24.022's defaults for the 12 kbit/s channel).
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

/// TULIP's settings (`link = "tulip"`). Defaults are the paper's set-up (§5).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TulipSpec {
    /// W, the sliding window in frames (2..=128). Default 8 (TULIP §5).
    #[serde(default = "default_tulip_window")]
    pub window: u16,
    /// MAC acceleration (TULIP §3.3): a LACK carries a queued packet of ≤ 40 bytes (a TCP
    /// ACK); over `mac = "fama"` the LACK is sent inside the data frame's floor, with no
    /// RTS/CTS. Default true (the paper's TULIP runs over FAMA-NCS with it).
    #[serde(default = "default_true")]
    pub mac_acceleration: bool,
    /// τ of equation (1): the maximum propagation delay. Default: the hop's `delay`.
    pub tau: Option<Duration>,
    /// t_TR of equation (1): radio turnaround. Default "5us" (802.11 DSSS
    /// aRxTxTurnaroundTime; the paper gives no number).
    pub t_tr: Option<Duration>,
    /// t_c of equation (1): time to get capture, framing and preamble. Default: the PHY's
    /// PLCP preamble and header (192 µs long, 96 µs short).
    pub t_c: Option<Duration>,
    /// t_p of equation (1): processing at sender and receiver. Default "10us" (one SIFS).
    pub t_p: Option<Duration>,
    /// t_ACK of equation (1): the LACK's time on the air. Default: derived from the MAC (the
    /// in-floor reply over FAMA with MAC acceleration, a full exchange otherwise).
    pub t_ack: Option<Duration>,
    /// Lower bound of the Δt2 hold-down after a WAIT (Figure 2). Default "0s": the MAC's
    /// announced duration.
    pub delta_t2_min: Option<Duration>,
}

fn default_tulip_window() -> u16 {
    8
}

fn default_true() -> bool {
    true
}

impl Default for TulipSpec {
    fn default() -> Self {
        TulipSpec {
            window: default_tulip_window(),
            mac_acceleration: true,
            tau: None,
            t_tr: None,
            t_c: None,
            t_p: None,
            t_ack: None,
            delta_t2_min: None,
        }
    }
}

/// A link: a full-duplex point-to-point channel with a queue at each end (drop-tail, or RED
/// with `aqm`) (`mac = "p2p"`), or a shared wireless cell (`mac = "ideal"`, `"dcf"` or
/// `"fama"`). Which keys apply: every link takes `name`, `from`, `to`, `rate`, `delay`,
/// `queue`, `aqm`,
/// `overhead`, `errors`, `reverse_errors`, `wireless`; a cell adds the PHY keys `phy`,
/// `basic_rate`, `preamble` (`rate` is then the data rate); `mac = "dcf"` adds
/// `rts_threshold`, `retry_limit_short`, `retry_limit_long`, `cw_rule`; `mac = "fama"` the
/// `fama`
/// table (its constants are listed under `fama`). Link layers: `link = "stop_and_wait"`
/// takes `link_retry_limit`, `link = "tulip"` the `tulip` table, `link = "dda"` the `dda`
/// table.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// A network preset that fills this hop's `rate`, `delay`, `queue`, `overhead`, `mac`,
    /// `link` and its settings, `fec`, `errors` and `reverse_errors` from the survey's
    /// Appendix and the sources each preset names (docs/wwan.md); any key written beside it
    /// wins, and a settings table given beside it keeps the preset's other settings.
    /// Default: none.
    pub preset: Option<NetworkPreset>,
    /// A name for metrics, traces and `--pcap`. Default: "<from>-<to>" ("wired" and
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
    /// The MAC (wireless hops). Default "p2p".
    #[serde(default)]
    pub mac: MacKind,
    /// The link layer (wireless hops). Default "none".
    #[serde(default)]
    pub link: LinkLayerKind,
    /// Count this link's frames in the `wireless` metrics. Default: true for the chain's
    /// wireless hop, false otherwise.
    pub wireless: Option<bool>,
    /// Cells: the 802.11 PHY preset; `rate` is the data rate. Default "802.11".
    pub phy: Option<PhyPreset>,
    /// Cells: the rate of control frames (RTS, CTS, ACK). Default: the preset's, "1Mbps"
    /// (IEEE 802.11-1999 §15: the DSSS basic rate).
    pub basic_rate: Option<Rate>,
    /// Cells: "long" (192 µs) or "short" (96 µs) PLCP preamble and header. Default: the
    /// preset's, "long" (IEEE 802.11-1999 §15.2).
    pub preamble: Option<PreambleKind>,
    /// `mac = "dcf"`: MAC frames longer than this use RTS/CTS. Default "2347B" (never;
    /// dot11RTSThreshold, IEEE 802.11-1999 Annex D).
    pub rts_threshold: Option<ByteSize>,
    /// `mac = "dcf"`: dot11ShortRetryLimit. Default 7 (IEEE 802.11-1999 Annex D; 1 with
    /// `link = "tulip"`: TULIP does the ARQ).
    pub retry_limit_short: Option<u32>,
    /// `mac = "dcf"`: dot11LongRetryLimit. Default 4 (IEEE 802.11-1999 Annex D; 1 with
    /// `link = "tulip"`).
    pub retry_limit_long: Option<u32>,
    /// `mac = "dcf"`: how the contention window follows failures: "dcf" or "qsrc" (ns-3.44's
    /// rule, for comparisons with it). Default "dcf" (IEEE 802.11-2016 §10.3.3).
    pub cw_rule: Option<CwRuleKind>,
    /// `link = "stop_and_wait"`: transmission attempts per frame. Default 7 (the papers give
    /// none; the same as dot11ShortRetryLimit).
    pub link_retry_limit: Option<u32>,
    /// `link = "tulip"`: TULIP's settings, e.g. `{ window = 8, mac_acceleration = true }`.
    /// Default: the paper's (TULIP §5: W = 8, MAC acceleration on).
    pub tulip: Option<TulipSpec>,
    /// `link = "dda"`: its settings, e.g. `{ window = 8, retry_limit = 7 }`. Default: each
    /// setting's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dda: Option<DdaLinkSpec>,
    /// `mac = "fama"`: the FAMA-NCS constants neither TULIP nor the FAMA-NCS papers'
    /// abstracts fix, for sensitivity runs, e.g. `{ slot = "354us", cw_min = 7 }`. Default:
    /// none (each constant as listed under `mac = "fama"`).
    pub fama: Option<FamaSpec>,
    /// `link = "rlp"`: RLP's settings, e.g. `{ t1 = "480ms", n2 = 6 }`. Default: GSM
    /// TCH/F9.6's.
    pub rlp: Option<RlpSpec>,
    /// `link = "airmail"`: AIRMAIL's settings, e.g. `{ window = 32 }`. Default: ours, see
    /// each key.
    pub airmail: Option<AirmailSpec>,
    /// Link FEC on this hop, in both directions: a block code of `n` symbols of
    /// `symbol_bits` bits carrying `k` data symbols and correcting `t` symbol errors, e.g.
    /// CDPD's `{ n = 63, k = 47, t = 7, symbol_bits = 6 }`. Frames take the airtime of their
    /// coded bits and are lost only when some block has more than `t` symbol errors. Default:
    /// none.
    pub fec: Option<FecSpec>,
}

/// FAMA-NCS's settings (`mac = "fama"`), for sensitivity runs: each key left out keeps the
/// constant listed under `mac = "fama"`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FamaSpec {
    /// The backoff slot: a backoff is 1 + U[0, cw] slots. Default "20us" (the 802.11 DSSS
    /// slot).
    pub slot: Option<Duration>,
    /// The initial backoff window in slots, 2^k - 1. Default 31 (802.11 aCWmin).
    pub cw_min: Option<u32>,
    /// The largest backoff window in slots, 2^k - 1, at most 65535. Default 1023 (802.11
    /// aCWmax).
    pub cw_max: Option<u32>,
    /// The CTS length in bytes; it must last at least the RTS plus 2τ + ξ (CTS dominance),
    /// and be at most 2346 bytes. Default: the shortest that does (21 bytes at 1 Mbps).
    pub cts_bytes: Option<u32>,
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
    /// A name for reports. Default "<src>-<dst>-<index>" (the flow's index in the run) for
    /// an entry of one flow, "flow<entry>" (the entry's index among the `[[flow]]`
    /// entries) for an entry of several. The flows of an entry of several are named
    /// "<name>.1" to "<name>.N".
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
