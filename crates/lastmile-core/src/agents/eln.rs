//! Explicit Loss Notification at the receiver (Pentikousis §2.4.4.4; Balakrishnan et al.,
//! "A comparison of mechanisms for improving TCP performance over wireless links", SIGCOMM
//! '96 / ToN 1997; Balakrishnan & Katz, Globecom 1998). The sender's half is `tcp.eln`
//! (`tcp/sender/notices.rs`).
//!
//! * **How the receiver knows.** The mobile's radio receives a data frame whose payload the
//!   channel corrupted but whose headers it can still read — the agent asks the cell for
//!   such frames (`LocalDir::Corrupted`) — and records the TCP segment's sequence range as
//!   lost on the wireless hop. We take every frame the error model corrupts to have
//!   readable headers (a header checksum, as Gupta & Kuri propose, would tell); collisions
//!   are not corruption and are not recorded. The base-station variant of ns-2's Snoop
//!   (`snoop_wired_ack`: the mobile as sender, a hole the base station never saw) is the
//!   same rule seen from the other side, and is left out.
//! * **Marking.** Every ACK the mobile's TCP sends whose acknowledgment number points into
//!   a recorded range — the duplicate ACKs that ask for the corrupted segment — carries the
//!   ELN notice (a reserved header bit in the papers; `ExplicitNotice::LossNotification`
//!   here). A range is forgotten once an ACK passes it. The sender then retransmits without
//!   reducing its window.
//! * Congestion losses (queues) are never recorded, so their duplicate ACKs stay unmarked
//!   and the sender reacts to them as usual. The survey's caveat stands: "such a scheme is
//!   very difficult to implement" — this is the scheme with the difficulty assumed away.
//!
//! Left out: the ELN-marked ACKs of the comparison paper for a base station that cannot see
//! the corruption, the mobile-as-sender direction.

mod spec;
#[cfg(test)]
mod tests;

use super::common::{ConnState, Conns};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, LocalDir, Side};
use crate::engine::SimTime;
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{ExplicitNotice, Packet, SeqNumber};

pub use spec::ElnSpec;

/// Sequence ranges remembered per connection at most (the oldest go first).
const MAX_RANGES: usize = 64;

/// ELN's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ElnCounters {
    /// Corrupted data segments recorded.
    pub corrupted: u64,
    /// ACKs marked.
    pub marked: u64,
}

#[derive(Clone, Debug, Default)]
struct ElnConn {
    /// [start, end) of segments lost to corruption, not yet acknowledged past.
    lost: Vec<(SeqNumber, SeqNumber)>,
}

impl ConnState for ElnConn {
    fn deadline(&self) -> Option<SimTime> {
        None
    }
    fn held_bytes(&self) -> u64 {
        0
    }
}

/// The ELN agent, on a mobile.
#[derive(Clone, Debug)]
pub struct ElnAgent {
    conns: Conns<ConnKey, ElnConn>,
    counters: ElnCounters,
}

impl ElnAgent {
    pub fn new(_spec: ElnSpec) -> Self {
        ElnAgent {
            conns: Conns::default(),
            counters: ElnCounters::default(),
        }
    }
    pub fn counters(&self) -> ElnCounters {
        self.counters
    }

    /// A data segment for the local TCP arrived corrupted: remember its range.
    fn on_corrupted(&mut self, packet: &Packet) {
        let Some((key, seg)) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        if seg.payload_len == 0 {
            return;
        }
        if !self.conns.contains(&key) {
            self.conns.insert(key, ElnConn::default());
        }
        let range = (seg.header.seq, seg.header.seq + seg.payload_len);
        self.counters.corrupted += 1;
        self.conns.update(&key, |c| {
            if !c.lost.contains(&range) {
                if c.lost.len() == MAX_RANGES {
                    c.lost.remove(0);
                }
                c.lost.push(range);
            }
        });
    }

    /// The local TCP sends an ACK: mark it if it asks for a corrupted segment.
    fn on_sent(&mut self, packet: &mut Packet) {
        let Some((key, seg)) = ConnKey::of(Side::Wireless, packet) else {
            return;
        };
        let Some(ack) = seg.header.ack else {
            return;
        };
        let marked = self
            .conns
            .update(&key, |c| {
                c.lost.retain(|&(_, end)| end > ack);
                c.lost.iter().any(|&(start, end)| start <= ack && ack < end)
            })
            .unwrap_or(false);
        if marked {
            if let Some(t) = packet.tcp_mut() {
                t.header.options.notice = ExplicitNotice::LossNotification;
                self.counters.marked += 1;
            }
        }
    }
}

impl Agent for ElnAgent {
    fn handle(&mut self, _now: SimTime, input: AgentInput<'_>, _out: &mut AgentOutbox) {
        match input {
            AgentInput::Local {
                dir: LocalDir::Corrupted,
                packet,
            } => self.on_corrupted(packet),
            AgentInput::Local {
                dir: LocalDir::Sent,
                packet,
            } => self.on_sent(packet),
            AgentInput::Local { .. }
            | AgentInput::Packet { .. }
            | AgentInput::Link { .. }
            | AgentInput::Timer
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
    }

    /// ELN has no timers.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    /// Nothing is held: nothing can stall.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    fn summary(&self, _end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "eln".into(),
            own: AgentOwnMetrics::Notices {
                notices_sent: self.counters.marked,
            },
            ..AgentSummary::default()
        }
    }

    fn wants_local_packets(&self) -> bool {
        true
    }
    fn wants_corrupted_frames(&self) -> bool {
        true
    }
}
