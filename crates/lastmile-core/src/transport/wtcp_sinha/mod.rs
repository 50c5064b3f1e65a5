//! WTCP of Sinha, Venkitaraman, Sivakumar and Bharghavan ("WTCP: a reliable transport
//! protocol for wireless wide-area networks", MobiCom 1999), as the survey describes it
//! (§2.5.1) — named `wtcp_sinha` so it is never taken for the base-station WTCP of Ratnam
//! & Matta (`agents::wtcp`).
//!
//! What the sources say, and how each part is built:
//! * **Rate-based, rate control at the receiver, from inter-packet delay** (survey: "the
//!   receiver is responsible for setting the appropriate rate ... upon the arrival of each
//!   incoming segment ... determine whether to ask the sender to increase, decrease or keep
//!   the same sending rate ... conveyed to the sender through cumulative ACKs.
//!   Transmission control in WTCP is governed by the inter-packet delay as it is measured at
//!   the receiver"; abstract: "uses inter-packet delays as the primary metric"). The sender
//!   paces packets at its rate and stamps each with its send time; the receiver compares,
//!   over the packets since its last ACK, the spacing of their arrivals with the spacing of
//!   their sending: the ratio is 1 while the path keeps pace and grows as a queue builds.
//!   Below `increase_below` it asks for an increase, above `decrease_above` for a decrease,
//!   otherwise to keep the rate (`receiver.rs`).
//! * **Loss-cause prediction** (survey: "while the network is deemed to be uncongested, the
//!   receiver keeps statistics for non-congestion related segment losses ... continue
//!   transmitting with the same rate if the loss is estimated to be due to transmission
//!   errors, or to decrease the sending rate if congestion is deemed to be the cause"). A
//!   loss (a gap in the sequence) seen while the arrival spacing shows no queue build-up,
//!   and within what the statistics of losses seen in uncongested periods allow, is
//!   predicted a wireless loss and the rate kept; otherwise it is congestion and the rate
//!   decreased.
//! * **Cumulative ACKs with SACK information, probes instead of a retransmission timer**
//!   (survey: "The receiver-generated acknowledgements act as cumulative ACKs but also carry
//!   SACK information ... ACKs are always generated in response to incoming segments. If the
//!   sender does not have any more segments to send, and ... has not received a
//!   confirmation that all outstanding segments were received, then it will use probe
//!   segments to elicit receiver ACKs"). An ACK echoes the send time of the packet that
//!   triggered it; a packet neither acknowledged nor SACKed and sent before that time is
//!   lost and is sent again (once per such evidence). When no ACK has come for a while the
//!   sender stops sending and probes, with back-off, until an ACK returns; it then resumes
//!   at the rate it had (a blackout is not congestion). There is no retransmission timer.
//! * **Start-up from a packet pair**, and **split at a proxy** (survey: "used when a mobile
//!   host needs to connect through a proxy", `agents::wtcp_sinha`).
//!
//! The numbers are lastmile's: the sources read here (survey, abstract) give none, and the
//! paper itself could not be retrieved (design notes, mechanism §9 tags its details \[P\]).
//! Each default below says so. Left out: the ACK-frequency negotiation (the receiver
//! acknowledges every `ack_every` packets, and at once on a hole, a probe, a FIN or a
//! sender's request), the paper's exact thresholds and its jitter filters, and
//! piggy-backing ACKs on data.

pub mod connection;
pub mod receiver;
pub mod sender;
/// The packets are wire formats: `packet::wtcp_sinha`.
pub use crate::packet::wtcp_sinha as wire;

#[cfg(test)]
mod tests;

pub use connection::{WtcpSinhaConnection, WtcpSinhaState, WtcpSinhaStats};
pub use receiver::Receiver;
pub use sender::Sender;
pub use wire::{RateDecision, WtcpAck, WtcpBody, WtcpData, WtcpSegment};

use crate::engine::SimDuration;

/// WTCP-Sinha's settings (module notes: every number is lastmile's, D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WtcpSinhaConfig {
    /// Payload bytes per data packet (the flow's TCP MSS).
    pub mss: u32,
    /// The receive buffer advertised as the window.
    pub rwnd_bytes: u32,
    /// The receiver acknowledges every this many data packets (design notes §9, R3: D 4).
    pub ack_every: u32,
    /// Arrival spacing / send spacing below this: ask for an increase (D 1.05).
    pub increase_below: f64,
    /// Above this: a queue is building; ask for a decrease (D 1.2).
    pub decrease_above: f64,
    /// The sender's rate after a decrease, as a fraction of the rate before (D 0.5, TCP's).
    pub decrease_factor: f64,
    /// A loss is within the non-congestion statistics when the losses of the period are at
    /// most (mean + this × deviation) of the loss fraction seen in uncongested periods, and
    /// at least one (D 2).
    pub loss_deviations: f64,
    /// Gain of the statistics' moving averages (D 1/8, RFC 6298's α).
    pub stats_gain: f64,
    /// The SYN's (and SYN-ACK's) first retransmission timeout, doubled at each retry
    /// (D 3 s, RFC 1122's initial RTO; connection set-up is TCP's).
    pub syn_timeout: SimDuration,
    /// The shortest wait for an ACK before probing (D 100 ms).
    pub probe_min: SimDuration,
    /// The longest interval between probes (D 4 s).
    pub probe_max: SimDuration,
}

impl WtcpSinhaConfig {
    /// The defaults with packets of `mss` bytes and a window of `rwnd_bytes`.
    pub fn new(mss: u32, rwnd_bytes: u32) -> Self {
        WtcpSinhaConfig {
            mss: mss.max(1),
            rwnd_bytes,
            ack_every: 4,
            increase_below: 1.05,
            decrease_above: 1.2,
            decrease_factor: 0.5,
            loss_deviations: 2.0,
            stats_gain: 0.125,
            syn_timeout: SimDuration::from_secs(3),
            probe_min: SimDuration::from_millis(100),
            probe_max: SimDuration::from_secs(4),
        }
    }
}

/// Bytes of IP and UDP header and WTCP-Sinha data header around a packet's payload: its
/// size on the path, which the rate counts.
pub const DATA_OVERHEAD_BYTES: u32 = crate::packet::IPV4_HEADER_LEN + 8 + 20;
