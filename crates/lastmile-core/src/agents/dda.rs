//! Delayed duplicate ACKs (Vaidya, Mehta, Perkins & Montenegro, TAMU TR 99-003, 1999;
//! Pentikousis §2.1.2.2): the receiving side's half of DDA. The other half is the
//! TCP-unaware link layer at the base station (`link = "dda"`), which retransmits lost
//! frames and, delivering out of order, lets the TCP receiver see the frames behind a loss
//! first — each of which makes it send a duplicate ACK.
//!
//! * **Rule** (the survey; mechanism-notes §6 DDA-R1..R4): per connection, the first and
//!   second duplicate ACKs for a hole go at once; the third and later are held, and the
//!   first one held starts a timer of `d`. An ACK that acknowledges new data (the link layer
//!   filled the hole) drops the held duplicates ("the duplicate acknowledgments are not sent
//!   on to the TCP sender") and goes on itself; when `d` expires the held duplicates are
//!   released back to back ("probably, the TCP sender goes into Fast Retransmit"), and
//!   further duplicates for the same hole go at once. `d = 0` holds nothing.
//! * **Where.** Vaidya et al. put the delay in the mobile's TCP receiver, the base station
//!   running only link-level ARQ (mechanism-notes §6, \[P\]: the paper itself was not
//!   reachable, only its abstract — "a TCP-unaware technique that attempts to mimic the
//!   behavior of the Snoop protocol"); the survey reads it as the base station delaying
//!   them. Both work here: on the mobile (`node = "mh"`) the agent holds its own TCP's ACKs
//!   as they leave (`AgentInput::Local`), on the base station the ACKs coming from the
//!   mobile (`AgentInput::Packet` from the wireless side). The paper's placement is the
//!   recommended one: the base station stays TCP-unaware.
//! * A duplicate ACK is a pure ACK (no data, no SYN/FIN) repeating the last ACK number;
//!   window and SACK blocks are not compared. The optimum `d` is open ("a number of issues
//!   remain to be resolved, such as the optimal value for d", the survey): sweep it.
//!
//! Left out: anything at the base station beyond the link layer; the receiver's own
//! delayed-ACK timer is the TCP's (`tcp.ack`).

mod spec;
#[cfg(test)]
mod tests;

use super::common::{ConnState, Conns};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, LocalDir, Side, Verdict};
use crate::engine::{SimDuration, SimTime};
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{Control, Packet, SeqNumber};

pub use spec::DdaSpec;

/// Duplicate ACKs for one hole sent before the delay starts (the survey: "the third and
/// later" are delayed).
pub const DUPACKS_SENT_AT_ONCE: u32 = 2;

/// DDA's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DdaCounters {
    /// Duplicate ACKs held back.
    pub delayed: u64,
    /// Held duplicates dropped because the hole was filled in time.
    pub dropped: u64,
    /// Held duplicates released when `d` expired.
    pub released: u64,
    /// Expiries of `d` that released something.
    pub expiries: u64,
}

/// One connection's state.
#[derive(Clone, Debug, Default)]
struct DdaConn {
    last_ack: Option<SeqNumber>,
    /// Duplicates of `last_ack` so far.
    dupacks: u32,
    held: Vec<Packet>,
    release_at: Option<SimTime>,
    /// `d` expired for this hole: later duplicates go at once.
    released: bool,
}

impl ConnState for DdaConn {
    fn deadline(&self) -> Option<SimTime> {
        self.release_at
    }
    fn held_bytes(&self) -> u64 {
        0 // Held ACKs carry no payload.
    }
}

impl DdaConn {
    /// An ACK from the receiving TCP; the verdict says whether it goes on now.
    fn on_ack(
        &mut self,
        d: SimDuration,
        now: SimTime,
        packet: &Packet,
        counters: &mut DdaCounters,
    ) -> Verdict {
        let Some(seg) = packet.tcp() else {
            return Verdict::Forward;
        };
        let Some(ack) = seg.header.ack else {
            return Verdict::Forward;
        };
        match self.last_ack {
            Some(last) if ack == last && seg.is_pure_ack() => {
                self.on_dupack(d, now, packet, counters)
            }
            Some(last) if ack < last => Verdict::Forward,
            Some(last) if ack == last => Verdict::Forward,
            _ => {
                // New data acknowledged: the hole is filled.
                counters.dropped += self.held.len() as u64;
                self.held.clear();
                *self = DdaConn {
                    last_ack: Some(ack),
                    ..DdaConn::default()
                };
                Verdict::Forward
            }
        }
    }

    fn on_dupack(
        &mut self,
        d: SimDuration,
        now: SimTime,
        packet: &Packet,
        counters: &mut DdaCounters,
    ) -> Verdict {
        self.dupacks += 1;
        if self.dupacks <= DUPACKS_SENT_AT_ONCE || self.released || d.is_zero() {
            return Verdict::Forward;
        }
        self.held.push(*packet);
        counters.delayed += 1;
        self.release_at.get_or_insert(now + d);
        Verdict::Consume
    }

    /// `d` expired: every held duplicate goes, back to back.
    fn on_timer(&mut self, out: &mut AgentOutbox, counters: &mut DdaCounters) {
        self.release_at = None;
        self.released = true;
        if !self.held.is_empty() {
            counters.released += self.held.len() as u64;
            counters.expiries += 1;
            out.packets.append(&mut self.held);
        }
    }
}

/// The DDA agent: one `DdaConn` per connection whose ACKs it sees.
#[derive(Clone, Debug)]
pub struct DdaAgent {
    spec: DdaSpec,
    conns: Conns<ConnKey, DdaConn>,
    counters: DdaCounters,
}

impl DdaAgent {
    pub fn new(spec: DdaSpec) -> Self {
        DdaAgent {
            spec,
            conns: Conns::default(),
            counters: DdaCounters::default(),
        }
    }
    pub fn counters(&self) -> DdaCounters {
        self.counters
    }
    /// Duplicate ACKs of connection `key` held now.
    pub fn held(&self, key: &ConnKey) -> usize {
        self.conns.get(key).map_or(0, |c| c.held.len())
    }

    /// An ACK from the mobile's TCP (its own, on the mobile; in transit, on the base
    /// station).
    fn on_receiver_packet(&mut self, now: SimTime, packet: &Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = ConnKey::of(Side::Wireless, packet) else {
            return;
        };
        if seg.header.control == Control::Syn || !self.conns.contains(&key) {
            self.conns.insert(key, DdaConn::default());
        }
        let d = self.spec.d.sim();
        let counters = &mut self.counters;
        if let Some(v) = self
            .conns
            .update(&key, |c| c.on_ack(d, now, packet, counters))
        {
            out.verdict = v;
        }
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        for key in self.conns.due(now) {
            let counters = &mut self.counters;
            self.conns.update(&key, |c| c.on_timer(out, counters));
        }
    }
}

impl Agent for DdaAgent {
    fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Packet {
                side: Side::Wireless,
                packet,
            }
            | AgentInput::Local {
                dir: LocalDir::Sent,
                packet,
            } => self.on_receiver_packet(now, packet, out),
            AgentInput::Timer => self.on_timer(now, out),
            AgentInput::Packet { .. }
            | AgentInput::Local { .. }
            | AgentInput::Link { .. }
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.conns.earliest()
    }

    /// Held duplicates always have their release timer running.
    fn check(&self) -> Result<(), String> {
        for (key, c) in self.conns.iter() {
            if !c.held.is_empty() && c.release_at.is_none() {
                return Err(format!(
                    "dda {key:?}: {} duplicate ACKs held and no timer",
                    c.held.len()
                ));
            }
        }
        Ok(())
    }

    fn summary(&self, _end: SimTime) -> AgentSummary {
        let c = &self.counters;
        AgentSummary {
            kind: "dda".into(),
            suppressed_dupacks: c.dropped,
            timer_expiries: c.expiries,
            own: AgentOwnMetrics::Dda {
                dupacks_delayed: c.delayed,
            },
            ..AgentSummary::default()
        }
    }

    /// On the mobile, the agent sees its own TCP's ACKs as they leave.
    fn wants_local_packets(&self) -> bool {
        true
    }
}
