//! The agents' settings as scenario tables (`[base_station.snoop]`, `[base_station.wtcp]`,
//! `[base_station.itcp]`, `[base_station.lle]`). Doc comments become the JSON Schema's descriptions; each
//! default says which paper it comes from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::{TcpSpec, TcpVariant};
use crate::units::{ByteSize, Duration};

/// Snoop, configured by default as the TULIP paper ran it (TULIP §4).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SnoopSpec {
    /// Duplicate ACKs that trigger a local retransmission. Default 2 (TULIP §4: "after the
    /// receipt of 2 duplicate acknowledgments"; ns-2 and Click retransmit on the 2nd too).
    #[serde(default = "default_snoop_dupacks")]
    pub dupack_threshold: u32,
    /// Floor of the local retransmission timer. Default "40ms" (TULIP §4).
    #[serde(default = "default_snoop_min_timeout")]
    pub min_timeout: Duration,
    /// The retransmission timer is `timeout_factor`·rtt. Default 2 (TULIP §4: "2 * rtt").
    #[serde(default = "default_snoop_factor")]
    pub timeout_factor: u32,
    /// Period of the persist timer that senses idle periods. Default "200ms" (TULIP §4).
    #[serde(default = "default_snoop_persist")]
    pub persist: Duration,
    /// "Snoop w/fix" (TULIP §5.2): take no rtt sample from a retransmitted segment. Default
    /// false: the original code's rtt-inflation bug stays reproducible.
    #[serde(default)]
    pub fix: bool,
    /// The rtt estimate before the first sample. Default "100ms" (ns-2 `srtt_`).
    #[serde(default = "default_snoop_initial_rtt")]
    pub initial_rtt: Duration,
    /// Segments cached per connection; beyond this new segments are forwarded uncached.
    /// Default 100 (ns-2 `SNOOP_MAXWIND`).
    #[serde(default = "default_snoop_cache")]
    pub cache_packets: u32,
    /// Local retransmissions of one segment before Snoop leaves it to the sender.
    /// Default 10 (ns-2 `SNOOP_MAX_RXMIT`).
    #[serde(default = "default_snoop_max_rxmit")]
    pub max_local_retransmits: u32,
}

fn default_snoop_dupacks() -> u32 {
    2
}
fn default_snoop_min_timeout() -> Duration {
    Duration::from_millis(40)
}
fn default_snoop_factor() -> u32 {
    2
}
fn default_snoop_persist() -> Duration {
    Duration::from_millis(200)
}
fn default_snoop_initial_rtt() -> Duration {
    Duration::from_millis(100)
}
fn default_snoop_cache() -> u32 {
    100
}
fn default_snoop_max_rxmit() -> u32 {
    10
}

impl Default for SnoopSpec {
    fn default() -> Self {
        SnoopSpec {
            dupack_threshold: default_snoop_dupacks(),
            min_timeout: default_snoop_min_timeout(),
            timeout_factor: default_snoop_factor(),
            persist: default_snoop_persist(),
            fix: false,
            initial_rtt: default_snoop_initial_rtt(),
            cache_packets: default_snoop_cache(),
            max_local_retransmits: default_snoop_max_rxmit(),
        }
    }
}

/// How WTCP hides its residence time from the source's RTT estimate (WTCP §3.1, §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WtcpTimestamps {
    /// Forward the source's timestamp unchanged: the residence time shows in its RTT.
    None,
    /// Add the segment's exact residence time, in ticks of the source's clock
    /// (`source_clock`), to its timestamp: WTCP's "first method".
    #[default]
    Exact,
    /// Stamp the segment with the most recent timestamp received from the source, and remove
    /// the option if the base station retransmitted since that segment arrived: the
    /// "second method".
    Recent,
}

/// WTCP (Ratnam & Matta, §3–4), with the paper's simulation settings as defaults.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WtcpSpec {
    /// The wireless transmission window, in segments. Default 3 (WTCP §4).
    #[serde(default = "default_wtcp_window")]
    pub window: u32,
    /// The base station's clock granularity: RTT samples count its ticks and timeouts fire
    /// on them. Default "10ms" (WTCP §3, §4).
    #[serde(default = "default_wtcp_clock")]
    pub clock: Duration,
    /// Timestamp handling. Default "exact" (WTCP §4, first method).
    #[serde(default)]
    pub timestamps: WtcpTimestamps,
    /// The local timeout is `timeout_factor` × the last RTT sample, with no back-off
    /// ("linear"). Default 1.5 (WTCP §4).
    #[serde(default = "default_wtcp_factor")]
    pub timeout_factor: f64,
    /// The base-station buffer per connection; segments beyond it are dropped. Default
    /// "20KB" (WTCP Table I).
    #[serde(default = "default_wtcp_buffer")]
    pub buffer: ByteSize,
    /// The source's timestamp clock granularity, known to the base station for
    /// `timestamps = "exact"`. Default "100ms" (WTCP §4: the fixed host's clock).
    #[serde(default = "default_wtcp_source_clock")]
    pub source_clock: Duration,
    /// The wireless RTT assumed before the first sample. Default "100ms" (not in the
    /// paper; ns-2's Snoop `srtt_`).
    #[serde(default = "default_wtcp_initial_rtt")]
    pub initial_rtt: Duration,
}

fn default_wtcp_window() -> u32 {
    3
}
fn default_wtcp_clock() -> Duration {
    Duration::from_millis(10)
}
fn default_wtcp_factor() -> f64 {
    1.5
}
fn default_wtcp_buffer() -> ByteSize {
    ByteSize(20_000)
}
fn default_wtcp_source_clock() -> Duration {
    Duration::from_millis(100)
}
fn default_wtcp_initial_rtt() -> Duration {
    Duration::from_millis(100)
}

impl Default for WtcpSpec {
    fn default() -> Self {
        WtcpSpec {
            window: default_wtcp_window(),
            clock: default_wtcp_clock(),
            timestamps: WtcpTimestamps::default(),
            timeout_factor: default_wtcp_factor(),
            buffer: default_wtcp_buffer(),
            source_clock: default_wtcp_source_clock(),
            initial_rtt: default_wtcp_initial_rtt(),
        }
    }
}

/// I-TCP (Bakre & Badrinath), as WTCP §4 simulated it: the base station terminates the
/// fixed host's connection and relays over its own TCP connection to the mobile. This
/// **breaks end-to-end semantics**: the fixed host's data is acknowledged once the base
/// station has buffered it, before the mobile has it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ItcpSpec {
    /// The relay buffer per connection: the window advertised to the fixed host is what is
    /// free of it (zero when full, reopened only when a full segment fits). Default "20KB"
    /// (WTCP Table I).
    #[serde(default = "default_itcp_buffer")]
    pub buffer: ByteSize,
    /// The base station's TCP towards the mobile (and of its half facing the fixed host).
    /// Default: Tahoe with a 10 ms clock (WTCP §4: "the clock resolution of the base station
    /// is changed to 10 ms"), other settings as for flows. Fields left out of a given table
    /// take the flow defaults.
    #[serde(default = "default_itcp_tcp")]
    pub tcp: TcpSpec,
}

fn default_itcp_buffer() -> ByteSize {
    ByteSize(20_000)
}
fn default_itcp_tcp() -> TcpSpec {
    TcpSpec {
        timer_granularity: Duration::from_millis(10),
        ..TcpSpec::with_variant(TcpVariant::Tahoe)
    }
}

impl Default for ItcpSpec {
    fn default() -> Self {
        ItcpSpec {
            buffer: default_itcp_buffer(),
            tcp: default_itcp_tcp(),
        }
    }
}

/// What LLE-TCP's ARQ agent does after the MAC gives up on a segment (`TxFailure`), when it
/// cannot know whether the receiver got it (only the MAC ACKs may have been lost).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LleAfterGiveUp {
    /// Never acknowledge beyond what the receiver is known to hold, and hand the segment
    /// back to the MAC (a bounded number of times) so that its `TxSuccess` settles the
    /// doubt: no phantom hole for TCP to time out on, no lost data acknowledged. Not in the
    /// paper.
    #[default]
    Resync,
    /// §3.1 literally: the ACK released on `TxSuccess` "acknowledges the packet just
    /// transmitted" (ack = its end), which covers an earlier segment the MAC gave up on
    /// whether or not the receiver got it.
    Paper,
}

/// LLE-TCP (Kliazovich, Granelli & Gerla §3): the ARQ agent on `base_station.node` and an
/// ARQ client on each flow's receiver across the wireless hop.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LleSpec {
    /// Advertise in every generated ACK at most the free part of `buffer` (§3.3), so that
    /// the sender cannot overflow the base station. Default false (§4.3 and §4.4 run
    /// without it).
    #[serde(default)]
    pub advertise_buffer: bool,
    /// The base station's buffer per connection behind `advertise_buffer`: segments that
    /// have reached it and not yet left over the air count against it. Default "1050KB"
    /// (§4.4: an access-point FIFO of 700 packets of 1500 B).
    #[serde(default = "default_lle_buffer")]
    pub buffer: ByteSize,
    /// What the agent does after a MAC give-up: "resync" (never acknowledge beyond what the
    /// receiver is known to hold) or "paper" (§3.1 literally). Default "resync".
    #[serde(default)]
    pub after_give_up: LleAfterGiveUp,
}

fn default_lle_buffer() -> ByteSize {
    ByteSize(700 * 1500)
}

impl Default for LleSpec {
    fn default() -> Self {
        LleSpec {
            advertise_buffer: false,
            buffer: default_lle_buffer(),
            after_give_up: LleAfterGiveUp::default(),
        }
    }
}
