//! TCP's settings as a scenario file writes them (`[flow.tcp]`, I-TCP's
//! `[base_station.itcp.tcp]`): the loss recovery (`recovery`), the congestion control
//! (`cc`), the classic `variant` shorthand that names both, the receiver's ACK policy and the
//! RFC 5681 / RFC 6298 / RFC 7323 knobs. Serde reads them (unknown keys refused), schemars
//! exports them, `TcpConfig::from_spec` turns them into an endpoint's configuration.
//!
//! `variant = "tahoe" | "reno" | "newreno" | "sack" | "fack"` is the name the seeds use for a
//! TCP: it sets `recovery` to the same name and `cc` to `reno` (every classic TCP grows its
//! window by RFC 5681's rule). `recovery` and `cc` may be given instead, or alongside it when they agree
//! with it; [`TcpSpec::check_names`] refuses a contradiction.
//!
//! `cc` names the congestion control and holds its constants: a tagged table (`cc = { kind =
//! "cubic", beta = 0.8 }`, [`CcSpec`], each constant's default from its document) or just
//! the name (`cc = "cubic"`, every default). `pacing` and `abc` are TCP-wide and go to
//! whichever controller runs ([`CcOptions`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::cc::{CcOptions, CcSpec};
use crate::short_form;
use crate::units::{ByteSize, Duration};

/// The classic TCP names: each sets `recovery` and `cc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TcpVariant {
    /// Tahoe loss recovery with the RFC 5681 window rule.
    Tahoe,
    /// Reno fast recovery (RFC 5681 §3.2) with the RFC 5681 window rule.
    Reno,
    /// NewReno (RFC 6582) with the RFC 5681 window rule.
    Newreno,
    /// SACK loss recovery (RFC 2018, RFC 6675) with the RFC 5681 window rule.
    Sack,
    /// FACK (Mathis & Mahdavi 1996) with the RFC 5681 window rule.
    Fack,
}

impl TcpVariant {
    /// The loss recovery this name stands for.
    pub fn recovery(self) -> RecoveryKind {
        match self {
            TcpVariant::Tahoe => RecoveryKind::Tahoe,
            TcpVariant::Reno => RecoveryKind::Reno,
            TcpVariant::Newreno => RecoveryKind::Newreno,
            TcpVariant::Sack => RecoveryKind::Sack,
            TcpVariant::Fack => RecoveryKind::Fack,
        }
    }
    /// The congestion control this name stands for: Reno's window rule.
    pub fn cc(self) -> CcSpec {
        CcSpec::default()
    }
}

/// The one list of loss recoveries: the enum (`recovery = "newreno"`), its names and
/// `name()`. A recovery has no settings of its own (TCP-wide keys such as `dupack_threshold`
/// and `prr` tune it), so the spec is a plain name.
macro_rules! recoveries {
    ($($(#[$attr:meta])* $variant:ident = $name:literal),* $(,)?) => {
        /// Loss recovery: when duplicate ACKs mean a loss, what to retransmit, when recovery
        /// ends.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
        pub enum RecoveryKind {
            $($(#[$attr])* #[serde(rename = $name)] $variant,)*
        }

        impl RecoveryKind {
            /// Every loss recovery.
            pub const ALL: &'static [RecoveryKind] = &[$(RecoveryKind::$variant),*];
            /// Every loss recovery's name in scenario files.
            pub const NAMES: &'static [&'static str] = &[$($name),*];

            /// The name as written in scenario files (and in the summary's `variant`).
            pub fn name(self) -> &'static str {
                match self {
                    $(RecoveryKind::$variant => $name,)*
                }
            }
        }
    };
}

recoveries! {
    /// Go back to slow start on the DupThresh-th duplicate ACK (4.3BSD Tahoe).
    Tahoe = "tahoe",
    /// Fast retransmit and fast recovery, RFC 5681 §3.2.
    Reno = "reno",
    /// Reno with partial-ACK handling, RFC 6582.
    #[default]
    Newreno = "newreno",
    /// SACK-based recovery, RFC 6675 (pipe, NextSeg, rescue retransmission) over the RFC 2018
    /// scoreboard; NewReno when the peer does not offer SACK.
    Sack = "sack",
    /// Forward acknowledgment, Mathis & Mahdavi (SIGCOMM 1996): awnd = snd.nxt − snd.fack +
    /// retran_data; NewReno when the peer does not offer SACK.
    Fack = "fack",
}

impl RecoveryKind {
    /// True for the recoveries that read SACK blocks (and so offer SACK-permitted).
    pub fn uses_sack(self) -> bool {
        matches!(self, RecoveryKind::Sack | RecoveryKind::Fack)
    }
}

/// How RTT samples become SRTT, RTTVAR and the RTO.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttEstimator {
    /// RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR), rounded up to whole ticks.
    #[default]
    Rfc6298,
    /// ns-2's `TcpAgent::rtt_update`: SRTT in eighths and RTTVAR in quarters of a tick, in
    /// integers (each update truncates), RTO = ⌊SRTT + 4·RTTVAR⌋ ticks with no G term.
    Ns2,
}

/// What ssthresh is computed from after a loss (Reno's window rule, `cc = "reno"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SsthreshRule {
    /// RFC 5681 (4): max(FlightSize/2, 2·SMSS) in bytes, at a fast retransmit and at a
    /// timeout (there of the pipe if smaller, as with SACK after a long recovery); a
    /// repeated timeout of the same segment keeps it (§3.1).
    #[default]
    Rfc5681,
    /// 4.4BSD's (`tcp_input.c`, `tcp_timer.c`), FreeBSD's (`cc_cong_signal`, CC_RTO) and
    /// ns-2's (`tcp.cc` `slowdown`): max(⌊min(cwnd, the peer's window)/2/SMSS⌋, 2)·SMSS at
    /// every fast retransmit and every timeout, a repeated one included (after the first,
    /// cwnd is one segment, so ssthresh falls to two).
    Bsd,
}

/// Which timestamp an ACK echoes (TSecr).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TsEcho {
    /// RFC 7323 §4.3: TS.Recent, taken from a segment at or before Last.ACK.sent and only
    /// if its TSval is not older than TS.Recent.
    #[default]
    Recent,
    /// The TSval of the segment that made the ACK, whatever its age: ns-2's TCPSink with
    /// `ts_echo_bugfix_ false` (its default until ns-2.1b9), the sink of the ns the WTCP
    /// seed ran ("each acknowledgment contains the timestamp of the segment that generated
    /// it", WTCP §3.1).
    Segment,
}

/// The receiver's acknowledgment policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AckPolicy {
    /// An ACK for every segment (ns-2's TCPSink, as the seeds ran it).
    #[default]
    Every,
    /// RFC 5681 §4.2 / RFC 1122: every 2nd full segment, else after `delack_timeout`;
    /// out-of-order and gap-filling segments at once.
    Delayed,
    /// Delayed ACKs After Slow Start (Allman, CCR 28(5) 1998, whose abstract puts it as
    /// "generate delayed ACKs only when the sender is not using the slow start algorithm"):
    /// an ACK for every segment the sender sent in slow start, the delayed-ACK rule for the
    /// others. A receiver cannot see cwnd; here each data segment tells it whether its sender
    /// was in slow start (a simulation-only flag, never on the wire), not a receiver-side
    /// heuristic.
    Daass,
}

impl AckPolicy {
    /// The name as written in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            AckPolicy::Every => "every",
            AckPolicy::Delayed => "delayed",
            AckPolicy::Daass => "daass",
        }
    }
}

/// The initial congestion window: a number of segments or a rule of its RFC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitialWindow {
    /// IW = n·SMSS.
    Segments(u32),
    /// RFC 3390: IW = min(4·SMSS, max(2·SMSS, 4380 bytes)).
    Rfc3390,
    /// RFC 6928: IW = min(10·SMSS, max(2·SMSS, 14600 bytes)).
    Rfc6928,
}

impl InitialWindow {
    /// The window in bytes for segments of `mss` bytes.
    pub fn bytes(self, mss: u64) -> u64 {
        match self {
            InitialWindow::Segments(n) => u64::from(n.max(1)) * mss,
            InitialWindow::Rfc3390 => (4 * mss).min((2 * mss).max(4380)),
            InitialWindow::Rfc6928 => (10 * mss).min((2 * mss).max(14_600)),
        }
    }
}

impl Default for InitialWindow {
    fn default() -> Self {
        InitialWindow::Segments(1)
    }
}

impl std::fmt::Display for InitialWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InitialWindow::Segments(n) => write!(f, "{n}"),
            InitialWindow::Rfc3390 => f.write_str("\"rfc3390\""),
            InitialWindow::Rfc6928 => f.write_str("\"rfc6928\""),
        }
    }
}

impl Serialize for InitialWindow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            InitialWindow::Segments(n) => s.serialize_u32(*n),
            InitialWindow::Rfc3390 => s.serialize_str("rfc3390"),
            InitialWindow::Rfc6928 => s.serialize_str("rfc6928"),
        }
    }
}

impl<'de> Deserialize<'de> for InitialWindow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = InitialWindow;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number of segments, \"rfc3390\" or \"rfc6928\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<InitialWindow, E> {
                u32::try_from(v)
                    .map(InitialWindow::Segments)
                    .map_err(|_| E::custom(format!("{v} segments is too many")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<InitialWindow, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom("a negative number of segments"))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<InitialWindow, E> {
                match v {
                    "rfc3390" => Ok(InitialWindow::Rfc3390),
                    "rfc6928" => Ok(InitialWindow::Rfc6928),
                    other => Err(E::invalid_value(serde::de::Unexpected::Str(other), &self)),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl JsonSchema for InitialWindow {
    fn schema_name() -> String {
        "InitialWindow".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        use schemars::schema::{InstanceType, SchemaObject, SingleOrVec};
        let mut s = SchemaObject {
            instance_type: Some(SingleOrVec::Vec(vec![
                InstanceType::Integer,
                InstanceType::String,
            ])),
            ..Default::default()
        };
        s.metadata().description = Some(
            "segments (an integer), or \"rfc3390\" (min(4·SMSS, max(2·SMSS, 4380 B))) or \
             \"rfc6928\" (min(10·SMSS, max(2·SMSS, 14600 B)))"
                .into(),
        );
        s.into()
    }
}

/// TCP settings. Defaults follow RFC 5681 and RFC 6298; the seeds' experiments set the
/// paper's own values (e.g. TULIP: 1400-byte segments, 500 ms timer granularity).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// The classic name: "tahoe", "reno" or "newreno" sets `recovery` to it and `cc` to
    /// "reno". Default: none (then `recovery` and `cc` apply, "newreno" and "reno").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<TcpVariant>,
    /// Loss recovery. Default: `variant`'s, else "newreno".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<RecoveryKind>,
    /// Congestion control: a name (`"cubic"`, every constant at its document's value) or a
    /// table with `kind` and the algorithm's constants (`{ kind = "cubic", beta = 0.8 }`).
    /// Default: `variant`'s, else "reno".
    #[serde(
        default,
        deserialize_with = "cc_by_name_or_table",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(schema_with = "cc_schema")]
    pub cc: Option<CcSpec>,
    /// Pace window-based congestion control as Linux does (net/ipv4/tcp_input.c,
    /// `tcp_update_pacing_rate`): segments leave at 200 % of cwnd/SRTT while cwnd <
    /// ssthresh/2 and 120 % after (the `tcp_pacing_ss_ratio` / `tcp_pacing_ca_ratio`
    /// defaults), from the first RTT sample on. Default false (the seeds' TCPs send in bursts).
    #[serde(default)]
    pub pacing: bool,
    /// Maximum segment size (payload bytes). Default "1460B" (a 1500-byte Ethernet MTU less
    /// 40 bytes of IP and TCP headers).
    #[serde(default = "default_mss")]
    pub mss: ByteSize,
    /// The receiver's window (buffer). Default "64KiB" (about the largest window TCP can
    /// advertise without window scaling, 65,535 bytes: RFC 7323 §2).
    #[serde(default = "default_rwnd")]
    pub rwnd: ByteSize,
    /// Initial congestion window: a number of segments, or "rfc3390" for RFC 3390's
    /// min(4·SMSS, max(2·SMSS, 4380 B)), or "rfc6928" for RFC 6928's min(10·SMSS,
    /// max(2·SMSS, 14600 B)); one segment whatever it says if the SYN or SYN-ACK was
    /// retransmitted (RFC 5681 §3.1). Default 1 (4.4BSD, as the seeds ran it).
    #[serde(default)]
    pub initial_window: InitialWindow,
    /// Initial slow-start threshold. Default: unlimited (RFC 5681 §3.1: "arbitrarily high").
    pub initial_ssthresh: Option<ByteSize>,
    /// Duplicate ACKs that trigger fast retransmit (DupThresh, also RFC 6675's `IsLost` and
    /// FACK's trigger of DupThresh·SMSS). Default 3 (RFC 5681 §3.2).
    #[serde(default = "default_dupack_threshold")]
    pub dupack_threshold: u32,
    /// Let duplicate ACKs for data sent before a retransmission timeout start a fast
    /// retransmit, as 4.3BSD Reno and 4.4BSD do (`tcp_input` counts duplicates whenever the
    /// retransmission timer runs; Cáceres & Iftode's fast retransmit after handoff relies on
    /// it). Default false: a timeout sets `recover` to the highest sequence sent, so they
    /// cannot (RFC 6582 §4, ns-2's `bug_fix_`).
    #[serde(default)]
    pub fast_retransmit_after_timeout: bool,
    /// Offer and use SACK (RFC 2018): SACK-permitted on the SYN, and SACK blocks on ACKs once
    /// both SYNs carried it. Default: true with `recovery = "sack"` or `"fack"`, else false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// Report duplicate segments in a first D-SACK block (RFC 2883) when SACK is in use.
    /// Default false.
    #[serde(default)]
    pub dsack: bool,
    /// Limited transmit (RFC 3042): a new segment on each of the first DupThresh − 1
    /// duplicate ACKs, cwnd unchanged (with `recovery = "sack"`, RFC 6675 step (3), governed
    /// by pipe). Default false (the seeds' TCPs predate it).
    #[serde(default)]
    pub limited_transmit: bool,
    /// Proportional rate reduction (RFC 6937, with the slow-start reduction bound) sets cwnd
    /// during `recovery = "sack"`. Default false (RFC 6675's cwnd = ssthresh).
    #[serde(default)]
    pub prr: bool,
    /// RACK-TLP (RFC 8985) with `recovery = "sack"`: a segment is lost once a segment sent
    /// after it has been delivered and RACK.rtt + reo_wnd have passed since it was sent, so
    /// that a lost retransmission is repaired within recovery, not by the retransmission
    /// timer; and a tail loss probe after 2·SRTT without ACKs. RFC 6675's DupThresh rule
    /// (`IsLost`) is then replaced by RACK's marks (RFC 8985 §6.2, as Linux does). Default
    /// false (RFC 6675 as written).
    #[serde(default)]
    pub rack: bool,
    /// Keep what the receiver SACKed across a retransmission timeout (Linux and ns-3 do;
    /// RFC 6675 §5.1 notes this view of RFC 2018 §8): going back N then skips SACKed data.
    /// Default false: RFC 2018 §8, the sender forgets its SACK information on a timeout.
    #[serde(default)]
    pub keep_sack_after_timeout: bool,
    /// Appropriate byte counting (RFC 3465): 0 = off (RFC 5681: slow start adds min(N, SMSS)
    /// per ACK, congestion avoidance SMSS·SMSS/cwnd per ACK); L ≥ 1: slow start adds
    /// min(N, L·SMSS) (L = 1 after a timeout, RFC 3465 §2.3) and congestion avoidance adds
    /// SMSS once a cwnd of bytes has been acknowledged (§2.1). Default 0. RFC 3465 says L
    /// SHOULD NOT exceed 2; a larger L is allowed for Allman's comparison (Pentikousis
    /// §2.4.4.1): 255, more segments than one ACK can cover, is his unlimited byte counting
    /// (UBC, cwnd grows by every byte acknowledged), 2 his limited byte counting (LBC).
    #[serde(default)]
    pub abc: u8,
    /// Explicit congestion notification (RFC 3168): negotiated on the SYNs; data segments
    /// carry ECT(0), the receiver echoes a CE mark with ECE until CWR, the sender reduces its
    /// window once per window of data. Default false.
    #[serde(default)]
    pub ecn: bool,
    /// The largest factor the retransmission timer backs off by (4.4BSD and ns-2 cap it at
    /// 64); the RTO stays capped by `max_rto` too. Default: none (doubling until `max_rto`,
    /// RFC 6298 (5.5)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_backoff: Option<u32>,
    /// Explicit Loss Notification at the sender (Pentikousis §2.4.4.4; ns-2 `tcp_eln`): a
    /// duplicate ACK marked ELN (by an `eln` agent on the path) retransmits the segment it
    /// asks for once, on the first such duplicate, without touching cwnd or ssthresh and
    /// without fast recovery. Default false.
    #[serde(default)]
    pub eln: bool,
    /// Explicit Bad State Notification at the sender (Bakshi et al., ICDCS 1997): an EBSN
    /// message (from an `ebsn` agent at the base station) restarts the retransmission timer
    /// with the current RTO, so the sender does not time out and back off while the base
    /// station retries over a bad channel. Default false.
    #[serde(default)]
    pub ebsn: bool,
    /// Granularity G of the retransmission timer clock: RTT samples are counted in ticks and
    /// timers fire on tick boundaries (500 ms = 4.4BSD's slow timer). Default "1ms" (a fine
    /// modern clock; the seeds' experiments set their own).
    #[serde(default = "default_granularity")]
    pub timer_granularity: Duration,
    /// How samples become the RTO: "rfc6298" (RFC 6298 §2) or "ns2" (ns-2's integer-tick
    /// arithmetic, which the seeds' simulations ran). Default "rfc6298".
    #[serde(default)]
    pub rtt_estimator: RttEstimator,
    /// What ssthresh is computed from after a loss, with `cc = "reno"`: "rfc5681"
    /// (max(FlightSize/2, 2·SMSS), kept on a repeated timeout) or "bsd" (4.4BSD, FreeBSD and
    /// ns-2: half of min(cwnd, the peer's window) in whole segments, at every loss and every
    /// timeout). Default "rfc5681".
    #[serde(default)]
    pub ssthresh_rule: SsthreshRule,
    /// RTO before the first RTT sample. Default "1s" (RFC 6298 §2.1).
    #[serde(default = "default_initial_rto")]
    pub initial_rto: Duration,
    /// Lower bound of the RTO. Default "1s" (RFC 6298 §2.4).
    #[serde(default = "default_min_rto")]
    pub min_rto: Duration,
    /// Upper bound of the RTO. Default "60s" (RFC 6298 §2.5).
    #[serde(default = "default_max_rto")]
    pub max_rto: Duration,
    /// Use the timestamps option (RFC 7323) and take an RTT sample from every ACK.
    /// Default false.
    #[serde(default)]
    pub timestamps: bool,
    /// With timestamps, which TSval an ACK echoes: "recent" (RFC 7323 §4.3's TS.Recent,
    /// which never goes back in time) or "segment" (the segment that made the ACK, as
    /// ns's TCPSink). Default "recent".
    #[serde(default)]
    pub ts_echo: TsEcho,
    /// Acknowledgment policy. Default "every".
    #[serde(default)]
    pub ack: AckPolicy,
    /// The delayed-ACK timer. Default "200ms" (RFC 1122 §4.2.3.2 allows up to 500 ms).
    #[serde(default = "default_delack_timeout")]
    pub delack_timeout: Duration,
    /// Initial sequence number. Default: drawn from the flow's random stream.
    pub isn: Option<u32>,
}

fn cc_by_name_or_table<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<CcSpec>, D::Error> {
    short_form::deserialize(d).map(Some)
}

fn cc_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    short_form::schema::<CcSpec>(
        gen,
        CcSpec::NAMES,
        "A congestion control by name, every constant at its default.",
    )
}

fn default_mss() -> ByteSize {
    ByteSize(1460)
}
fn default_rwnd() -> ByteSize {
    ByteSize(65_536)
}
fn default_dupack_threshold() -> u32 {
    3
}
fn default_granularity() -> Duration {
    Duration::from_millis(1)
}
fn default_initial_rto() -> Duration {
    Duration::from_secs(1)
}
fn default_min_rto() -> Duration {
    Duration::from_secs(1)
}
fn default_max_rto() -> Duration {
    Duration::from_secs(60)
}
fn default_delack_timeout() -> Duration {
    Duration::from_millis(200)
}

impl Default for TcpSpec {
    fn default() -> Self {
        TcpSpec {
            variant: None,
            recovery: None,
            cc: None,
            pacing: false,
            mss: default_mss(),
            rwnd: default_rwnd(),
            initial_window: InitialWindow::default(),
            initial_ssthresh: None,
            dupack_threshold: default_dupack_threshold(),
            fast_retransmit_after_timeout: false,
            sack: None,
            dsack: false,
            limited_transmit: false,
            prr: false,
            rack: false,
            keep_sack_after_timeout: false,
            abc: 0,
            ecn: false,
            max_backoff: None,
            eln: false,
            ebsn: false,
            timer_granularity: default_granularity(),
            rtt_estimator: RttEstimator::default(),
            ssthresh_rule: SsthreshRule::default(),
            initial_rto: default_initial_rto(),
            min_rto: default_min_rto(),
            max_rto: default_max_rto(),
            timestamps: false,
            ts_echo: TsEcho::default(),
            ack: AckPolicy::default(),
            delack_timeout: default_delack_timeout(),
            isn: None,
        }
    }
}

/// `variant` and `recovery` / `cc` name different algorithms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameConflict {
    /// The key that contradicts `variant`: "recovery" or "cc".
    pub field: &'static str,
    /// Its value as written, quoted.
    pub value: String,
    /// What would agree with `variant`, and the fix.
    pub expected: String,
}

impl TcpSpec {
    /// The same settings under a classic name (e.g. I-TCP's Tahoe default).
    pub fn with_variant(variant: TcpVariant) -> Self {
        TcpSpec {
            variant: Some(variant),
            ..TcpSpec::default()
        }
    }

    /// The loss recovery in force: `recovery`, else `variant`'s, else NewReno.
    pub fn recovery_kind(&self) -> RecoveryKind {
        self.recovery
            .or(self.variant.map(TcpVariant::recovery))
            .unwrap_or_default()
    }

    /// The congestion control in force, with its constants: `cc`, else `variant`'s, else
    /// Reno.
    pub fn cc_spec(&self) -> CcSpec {
        self.cc
            .or(self.variant.map(TcpVariant::cc))
            .unwrap_or_default()
    }

    /// What every congestion control is built with besides its own constants.
    pub fn cc_options(&self) -> CcOptions {
        CcOptions {
            pacing: self.pacing,
            abc: self.abc,
        }
    }

    /// For a key this table does not take that a file written for the per-algorithm tables
    /// (`cubic = { beta = 0.8 }`) still writes: the `cc` table that replaces it, with the
    /// values as written (`cc = { kind = "cubic", beta = 0.8 }`).
    pub fn moved_cc_table(key: &str, written: &serde_json::Value) -> Option<String> {
        if !CcSpec::NAMES.contains(&key) {
            return None;
        }
        let mut keys = vec![format!("kind = \"{key}\"")];
        if let serde_json::Value::Object(settings) = written {
            for (k, v) in settings {
                let v = toml::Value::try_from(v).ok()?;
                keys.push(format!("{k} = {v}"));
            }
        }
        Some(format!("cc = {{ {} }}", keys.join(", ")))
    }

    /// Whether SACK-permitted is offered: `sack`, else whether the recovery reads SACK.
    pub fn sack_enabled(&self) -> bool {
        self.sack.unwrap_or(self.recovery_kind().uses_sack())
    }

    /// Refuses `recovery` or `cc` contradicting `variant`.
    pub fn check_names(&self) -> Result<(), NameConflict> {
        let Some(v) = self.variant else {
            return Ok(());
        };
        let variant = v.recovery().name();
        let conflict = |field, value: &str, agreeing: &str| NameConflict {
            field,
            value: format!("\"{value}\""),
            expected: format!(
                "\"{agreeing}\" as `variant = \"{variant}\"` implies (give either `variant` \
                 or `recovery` and `cc`)"
            ),
        };
        if let Some(r) = self.recovery.filter(|&r| r != v.recovery()) {
            return Err(conflict("recovery", r.name(), v.recovery().name()));
        }
        if let Some(c) = self.cc.filter(|c| c.name() != v.cc().name()) {
            return Err(conflict("cc", c.name(), v.cc().name()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::{CubicConfig, VegasConfig};
    use serde_json::json;

    fn spec(variant: Option<TcpVariant>, recovery: Option<RecoveryKind>) -> TcpSpec {
        TcpSpec {
            variant,
            recovery,
            ..TcpSpec::default()
        }
    }

    /// `tcp = { cc = ... }` as a file writes it.
    fn with_cc(cc: serde_json::Value) -> Result<TcpSpec, serde_json::Error> {
        serde_json::from_value(json!({ "cc": cc }))
    }

    #[test]
    fn variant_sets_recovery_and_reno_window_rule() {
        let s = spec(Some(TcpVariant::Tahoe), None);
        assert_eq!(s.recovery_kind(), RecoveryKind::Tahoe);
        assert_eq!(s.cc_spec().name(), "reno");
        assert_eq!(s.check_names(), Ok(()));
    }

    #[test]
    fn defaults_are_newreno_recovery_and_reno_window_rule() {
        let s = TcpSpec::default();
        assert_eq!(s.recovery_kind(), RecoveryKind::Newreno);
        assert_eq!(s.cc_spec().name(), "reno");
    }

    #[test]
    fn recovery_agreeing_with_variant_is_accepted() {
        let s = spec(Some(TcpVariant::Reno), Some(RecoveryKind::Reno));
        assert_eq!(s.check_names(), Ok(()));
        assert_eq!(s.recovery_kind(), RecoveryKind::Reno);
    }

    #[test]
    fn every_cc_round_trips_as_a_name_and_as_a_table() {
        assert_eq!(CcSpec::NAMES.len(), CcSpec::all().len());
        for (name, default) in CcSpec::NAMES.iter().zip(CcSpec::all()) {
            let by_name = with_cc(json!(name)).unwrap().cc.unwrap();
            assert_eq!((by_name.name(), by_name), (*name, default));
            let table = serde_json::to_value(by_name).unwrap();
            assert_eq!(table["kind"], *name);
            assert_eq!(with_cc(table).unwrap().cc, Some(default), "{name}");
        }
    }

    #[test]
    fn every_recovery_name_parses_back_to_its_kind() {
        assert_eq!(RecoveryKind::NAMES.len(), RecoveryKind::ALL.len());
        for (name, kind) in RecoveryKind::NAMES.iter().zip(RecoveryKind::ALL) {
            let parsed: RecoveryKind = serde_json::from_value(json!(name)).unwrap();
            assert_eq!((parsed, kind.name()), (*kind, *name));
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(name));
        }
    }

    #[test]
    fn cc_constants_default_to_the_documents() {
        let cc = |name: &str| serde_json::to_value(with_cc(json!(name)).unwrap().cc).unwrap();
        // Brakmo & Peterson 1995 §3.2 ("Vegas-1,3") and §3.3 (γ, "one router buffer").
        let vegas = cc("vegas");
        assert_eq!(
            (&vegas["alpha"], &vegas["beta"], &vegas["gamma"]),
            (&json!(1.0), &json!(3.0), &json!(1.0))
        );
        // Fu & Liew 2003 §II: β = 3 segments, cut to 4/5 on a random loss.
        let veno = cc("veno");
        assert_eq!(
            (&veno["beta"], &veno["random_loss_factor"]),
            (&json!(3.0), &json!(0.8))
        );
        // RFC 9438 §5 (C), §4.6 (β_cubic), §4.7 (fast convergence, "SHOULD").
        let cubic = cc("cubic");
        assert_eq!(
            (&cubic["c"], &cubic["beta"], &cubic["fast_convergence"]),
            (&json!(0.4), &json!(0.7), &json!(true))
        );
        // FAST's step γ = 0.5 (Wei, Jin, Low & Hegde 2006).
        assert_eq!(cc("fast")["gamma"], 0.5);
        // Liu, Başar & Srikant 2006: α up to 10, β up to 1/2.
        let illinois = cc("illinois");
        assert_eq!(
            (&illinois["alpha_max"], &illinois["beta_max"]),
            (&json!(10.0), &json!(0.5))
        );
        // draft-cardwell-iccrg-bbr-congestion-control-00's BBRMinPipeCwnd, 4 segments.
        assert_eq!(cc("bbr")["min_pipe_cwnd"], 4);
        // ns-3's TcpWestwoodPlus EWMA gain, 0.9.
        assert_eq!(cc("westwood_plus")["filter_gain"], 0.9);
        // Santa Cruz's operating point n = 1.5 packets (Parsa & Garcia-Luna-Aceves 1999).
        assert_eq!(cc("santa_cruz")["operating_point"], 1.5);
        // Reno has no constants of its own.
        assert_eq!(cc("reno"), json!({ "kind": "reno" }));
    }

    #[test]
    fn the_constants_given_are_read_the_others_defaulted() {
        let s = with_cc(json!({ "kind": "cubic", "beta": 0.8 })).unwrap();
        let expected = CcSpec::Cubic(CubicConfig {
            beta: 0.8,
            ..CubicConfig::default()
        });
        assert_eq!(s.cc_spec(), expected);
        assert_eq!(s.cc_spec().check(), Ok(()));
    }

    #[test]
    fn a_constant_out_of_range_names_its_key() {
        let s = with_cc(json!({ "kind": "cubic", "beta": 1.5 })).unwrap();
        let e = crate::tcp::check::check_tcp("flow[0].tcp", &s).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.value.as_deref()),
            ("flow[0].tcp.cc.beta", Some("1.5"))
        );
        assert_eq!(e.expected, "a number above 0 and below 1");
        let vegas = CcSpec::Vegas(VegasConfig {
            alpha: 4.0,
            ..VegasConfig::default()
        });
        assert_eq!(vegas.check().unwrap_err().path, "beta");
    }

    #[test]
    fn a_table_for_an_unknown_kind_is_refused_with_the_kinds() {
        for cc in [json!({ "kind": "hybla", "beta": 0.5 }), json!("hybla")] {
            let e = with_cc(cc).unwrap_err().to_string();
            assert!(e.contains("unknown variant `hybla`"), "{e}");
            for name in CcSpec::NAMES {
                assert!(e.contains(&format!("`{name}`")), "{name} missing: {e}");
            }
        }
        // A constant of another algorithm is an unknown key of this one's table.
        let e = with_cc(json!({ "kind": "reno", "beta": 0.8 })).unwrap_err();
        assert!(e.to_string().contains("unknown field `beta`"), "{e}");
    }

    #[test]
    fn an_old_per_algorithm_table_gets_the_cc_table_that_replaces_it() {
        let fix = TcpSpec::moved_cc_table("cubic", &json!({ "beta": 0.8, "hystart": false }));
        assert_eq!(
            fix.as_deref(),
            Some(r#"cc = { kind = "cubic", beta = 0.8, hystart = false }"#)
        );
        assert_eq!(TcpSpec::moved_cc_table("rwind", &json!(1)), None);
    }

    #[test]
    fn cc_contradicting_variant_is_refused_whatever_its_form() {
        let mut s = with_cc(json!({ "kind": "cubic" })).unwrap();
        s.variant = Some(TcpVariant::Newreno);
        let e = s.check_names().unwrap_err();
        assert_eq!((e.field, e.value.as_str()), ("cc", "\"cubic\""));
        let mut s = with_cc(json!({ "kind": "reno" })).unwrap();
        s.variant = Some(TcpVariant::Newreno);
        assert_eq!(s.check_names(), Ok(()));
    }

    #[test]
    fn recovery_contradicting_variant_is_refused_with_the_fix() {
        let e = spec(Some(TcpVariant::Reno), Some(RecoveryKind::Tahoe))
            .check_names()
            .unwrap_err();
        assert_eq!(e.field, "recovery");
        assert_eq!(e.value, "\"tahoe\"");
        assert!(e.expected.starts_with("\"reno\" as `variant = \"reno\"`"));
    }
}
