//! The types the engine and a `TcpConnection` exchange: the endpoint's configuration (from
//! the scenario's `TcpSpec`), the segments, deliveries and trace records it emits, its
//! RFC 9293 states and its counters.

use super::cc::{CcMetrics, CcOptions, CcSpec};
use super::spec::{
    AckPolicy, InitialWindow, RecoveryKind, RttEstimator, SsthreshRule, TcpSpec, TsEcho,
};
use crate::engine::{SimDuration, SimTime};
use crate::packet::{Ipv4Addr, TcpSegment};

/// Everything a connection endpoint needs to know at creation.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    pub local_addr: Ipv4Addr,
    pub local_port: u16,
    pub remote_addr: Ipv4Addr,
    pub remote_port: u16,
    /// Loss recovery (Tahoe, Reno, NewReno, SACK, FACK).
    pub recovery: RecoveryKind,
    /// Congestion control with its constants, and the TCP-wide knobs it reads.
    pub cc: CcSpec,
    pub cc_options: CcOptions,
    /// Maximum segment size: payload bytes per segment.
    pub mss: u32,
    /// This endpoint's receive buffer, advertised as its window.
    pub rwnd_bytes: u32,
    /// Initial congestion window.
    pub initial_window: InitialWindow,
    /// Initial ssthresh in bytes; `None` = unlimited.
    pub initial_ssthresh_bytes: Option<u32>,
    pub dupack_threshold: u32,
    /// Duplicate ACKs may start a fast retransmit after a timeout (4.4BSD).
    pub fast_retransmit_after_timeout: bool,
    /// Offer SACK-permitted (RFC 2018) and, once negotiated, send SACK blocks.
    pub sack: bool,
    /// Report duplicates in a D-SACK block (RFC 2883).
    pub dsack: bool,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// RFC 6937 proportional rate reduction in SACK recovery.
    pub prr: bool,
    /// RFC 8985 RACK-TLP loss detection in SACK recovery.
    pub rack: bool,
    /// Keep the SACK scoreboard across a retransmission timeout (Linux, ns-3).
    pub keep_sack_after_timeout: bool,
    /// Offer ECN (RFC 3168).
    pub ecn: bool,
    /// Cap on the retransmission timer's backoff factor (`None`: only `max_rto`).
    pub max_backoff: Option<u32>,
    /// Answer ELN-marked duplicate ACKs by retransmitting without reducing the window.
    pub eln: bool,
    /// Answer EBSN messages by restarting the retransmission timer.
    pub ebsn: bool,
    pub timer_granularity: SimDuration,
    /// RFC 6298's estimator or ns-2's integer one.
    pub rtt_estimator: RttEstimator,
    /// RFC 5681's ssthresh after a loss, or BSD's.
    pub ssthresh_rule: SsthreshRule,
    pub initial_rto: SimDuration,
    pub min_rto: SimDuration,
    pub max_rto: SimDuration,
    pub timestamps: bool,
    /// Which TSval our ACKs echo.
    pub ts_echo: TsEcho,
    pub ack_policy: AckPolicy,
    pub delack_timeout: SimDuration,
    /// Initial send sequence number.
    pub isn: u32,
    /// Record trace events in the outbox.
    pub trace: bool,
}

impl TcpConfig {
    /// The configuration a scenario's TCP settings give an endpoint at `local` talking to
    /// `remote`, starting its sequence space at `isn`.
    pub fn from_spec(
        t: &TcpSpec,
        local: (Ipv4Addr, u16),
        remote: (Ipv4Addr, u16),
        isn: u32,
        trace: bool,
    ) -> Self {
        let clamp = |b: u64| b.min(u64::from(u32::MAX)) as u32;
        TcpConfig {
            local_addr: local.0,
            local_port: local.1,
            remote_addr: remote.0,
            remote_port: remote.1,
            recovery: t.recovery_kind(),
            cc: t.cc_spec(),
            cc_options: t.cc_options(),
            mss: clamp(t.mss.bytes()),
            rwnd_bytes: clamp(t.rwnd.bytes()),
            initial_window: t.initial_window,
            initial_ssthresh_bytes: t.initial_ssthresh.map(|b| clamp(b.bytes())),
            dupack_threshold: t.dupack_threshold,
            fast_retransmit_after_timeout: t.fast_retransmit_after_timeout,
            sack: t.sack_enabled(),
            dsack: t.dsack,
            limited_transmit: t.limited_transmit,
            prr: t.prr,
            rack: t.rack,
            keep_sack_after_timeout: t.keep_sack_after_timeout,
            ecn: t.ecn,
            max_backoff: t.max_backoff,
            eln: t.eln,
            ebsn: t.ebsn,
            timer_granularity: t.timer_granularity.sim(),
            rtt_estimator: t.rtt_estimator,
            ssthresh_rule: t.ssthresh_rule,
            initial_rto: t.initial_rto.sim(),
            min_rto: t.min_rto.sim(),
            max_rto: t.max_rto.sim(),
            timestamps: t.timestamps,
            ts_echo: t.ts_echo,
            ack_policy: t.ack,
            delack_timeout: t.delack_timeout.sim(),
            isn,
            trace,
        }
    }
}

/// A segment the connection wants sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OutSegment {
    pub segment: TcpSegment,
    /// When the first byte of this segment's data was first sent (equal to `now` for new
    /// data, earlier for a retransmission; `now` for segments without data).
    pub origin_time: SimTime,
    /// True when this segment carries data (or SYN/FIN) sent before.
    pub is_retransmission: bool,
    /// Send it with ECT(0) in the IP header (RFC 3168 §6.1.2: new data of an ECN-capable
    /// connection only).
    pub ect: bool,
}

/// In-order data handed to the receiving application.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Offset of the first byte in the peer's byte stream (0 = the first data byte).
    pub offset: u64,
    pub len: u32,
    /// The origin time the segment carried (for per-packet delay).
    pub origin_time: SimTime,
}

/// A trace record (only produced when `TcpConfig::trace` is set).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TcpTraceEvent {
    /// A data segment sent: stream offset of its first byte, length, retransmission?
    Send {
        offset: u64,
        len: u32,
        retransmission: bool,
    },
    /// An ACK received: the cumulative ACK as a stream offset.
    Ack { offset: u64 },
    /// The congestion window or ssthresh changed (bytes; ssthresh u64::MAX = unlimited).
    Window { cwnd: u64, ssthresh: u64 },
    /// The congestion control's state changed (`CongestionControl::metrics`).
    Cc(CcMetrics),
    /// An RTT sample was taken (or the RTO changed): sample, srtt, rttvar, rto.
    Rtt {
        sample: SimDuration,
        srtt: SimDuration,
        rttvar: SimDuration,
        rto: SimDuration,
    },
    /// The retransmission timer expired and backed off (RFC 6298 (5.5)): the estimator as
    /// it stands (`srtt` absent before the first sample) and the RTO now in force.
    RtoBackoff {
        srtt: Option<SimDuration>,
        rttvar: SimDuration,
        rto: SimDuration,
    },
}

/// The effects of one call into a connection.
#[derive(Debug, Default)]
pub struct TcpOutbox {
    pub segments: Vec<OutSegment>,
    pub delivered: Vec<Delivery>,
    pub trace: Vec<TcpTraceEvent>,
}

impl TcpOutbox {
    pub fn clear(&mut self) {
        self.segments.clear();
        self.delivered.clear();
        self.trace.clear();
    }
}

/// RFC 9293 connection states.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TcpState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

/// Counters kept by one endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpStats {
    /// Retransmission timer expiries.
    pub timeouts: u64,
    /// Probes of a zero window sent on the persist timer (RFC 9293 §3.8.6.1), whose
    /// interval doubles like the RTO's.
    pub persist_probes: u64,
    /// Entries into fast retransmit / fast recovery.
    pub fast_retransmits: u64,
    /// Data segments (and SYN/FIN) sent again.
    pub retransmits: u64,
    /// Data segments sent, retransmissions included.
    pub data_segments_sent: u64,
    /// Payload bytes sent, retransmissions included.
    pub payload_bytes_sent: u64,
    /// Header bytes (IP + TCP) of every segment sent.
    pub header_bytes_sent: u64,
    /// Pure ACKs sent.
    pub acks_sent: u64,
    /// Bytes delivered in order to the application.
    pub bytes_delivered: u64,
    /// Window reductions in answer to ECN-Echo (RFC 3168 §6.1.2).
    pub ecn_reductions: u64,
    /// Data segments that arrived with CE set (RFC 3168 §6.1.3).
    pub ce_received: u64,
    /// D-SACK blocks sent (RFC 2883).
    pub dsacks_sent: u64,
    /// Retransmissions asked for by ELN-marked duplicate ACKs, window unchanged (`eln`).
    pub eln_retransmits: u64,
    /// EBSN messages that restarted the retransmission timer (`ebsn`).
    pub bad_state_notices: u64,
}
