//! Base-station agents: TCP-aware hooks on the base station's forwarding path
//! (architecture.md, principle 4). An agent sees every transit packet, from the wired side
//! (towards the mobile) and from the wireless side (from the mobile), and answers with a
//! `Verdict::{Forward, Drop, Consume}`; it may send packets of its own (local
//! retransmissions, relayed data, acknowledgements), ask for a timer, and emit trace
//! records. Agents are pure state machines: `handle(now, AgentInput, &mut AgentOutbox)` and
//! `poll_timeout()`; the world applies what they ask for and never the other way round.
//!
//! * `snoop` — Snoop (Balakrishnan et al.) as the TULIP paper ran it (TULIP §4).
//! * `wtcp` — WTCP (Ratnam & Matta §3–4): buffering, its own wireless window and timer,
//!   end-to-end acknowledgements, timestamp rewriting.
//! * `itcp` — I-TCP (Bakre & Badrinath): a split connection. It **breaks TCP's end-to-end
//!   semantics**: the fixed host's data is acknowledged when the base station has it.
//!
//! * `lle` — LLE-TCP (Kliazovich, Granelli & Gerla §3): TCP ACKs generated on the MAC's
//!   `TxSuccess` at the wireless sender, the receiver's suppressed by an ARQ client.
//!
//! Link-layer signals (`AgentInput::Link`, with the packet of the frame they concern) and
//! the packets of an end host's own TCP (`AgentInput::Local`) reach only agents that ask for
//! them (`wants_link_signals`, `wants_local_packets`): LLE-TCP, which sits on the wireless
//! sender's station even when that is an end host (ad hoc) and on the receiver.
//!
//! Per-connection state is keyed by the data direction's 4-tuple in a `BTreeMap`, so no
//! iteration order depends on hashing. Timers: each agent reports one deadline (the
//! earliest over its connections); the world keeps one `TimerSlot` per agent.

pub mod common;
pub mod config;
pub mod itcp;
pub mod lle;
pub mod snoop;
pub mod wtcp;

#[cfg(test)]
mod testkit;

use crate::engine::SimTime;
use crate::metrics::AgentSummary;
use crate::packet::{Ipv4Addr, Packet};
use crate::wireless::signals::MacSignal;

pub use common::{AgentTrace, AgentTraceColumns};
pub use config::{ItcpSpec, LleAfterGiveUp, LleSpec, SnoopSpec, WtcpSpec, WtcpTimestamps};
pub use itcp::ItcpAgent;
pub use lle::{LleAgent, LleKey, LleRole};
pub use snoop::SnoopAgent;
pub use wtcp::WtcpAgent;

/// Which side of the base station a packet came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// From the fixed network, heading for the mobile.
    Wired,
    /// From the mobile, heading for the fixed network.
    Wireless,
}

/// What the agent decides about the packet it was shown.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Verdict {
    /// Forward the packet (as the agent may have rewritten it).
    #[default]
    Forward,
    /// Discard it (e.g. a suppressed duplicate ACK).
    Drop,
    /// The agent took the packet over (buffered, or terminated its connection).
    Consume,
}

/// An input to an agent.
#[derive(Debug)]
pub enum AgentInput<'a> {
    /// A transit packet; the agent may rewrite it in place before a `Forward` verdict.
    Packet { side: Side, packet: &'a mut Packet },
    /// The deadline from `poll_timeout` was reached.
    Timer,
    /// A signal from the MAC of the agent's own station (for link-aware agents such as
    /// LLE-TCP). For `TxSuccess` / `TxFailure`, `packet` is the datagram the frame carried
    /// (`None` for link-level control frames); `Trans` and `Wait` carry none.
    Link {
        signal: MacSignal,
        packet: Option<&'a Packet>,
    },
    /// A packet of the TCP on the agent's own node (an end host): one it sends, before it
    /// enters the link layer, or one for it, before the TCP sees it. The verdict applies.
    Local {
        dir: LocalDir,
        packet: &'a mut Packet,
    },
}

/// Which way a packet of the agent's own node goes (`AgentInput::Local`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LocalDir {
    /// Sent by the local TCP.
    Sent,
    /// Addressed to the local TCP.
    Delivered,
}

/// The effects of one call into an agent.
#[derive(Debug, Default)]
pub struct AgentOutbox {
    /// The verdict on the packet of an `AgentInput::Packet` (ignored otherwise).
    pub verdict: Verdict,
    /// Packets the agent sends from the base station, routed by their destination. The
    /// world assigns their ids and fixes their IP length.
    pub packets: Vec<Packet>,
    pub trace: Vec<AgentTrace>,
}

impl AgentOutbox {
    pub fn clear(&mut self) {
        self.verdict = Verdict::Forward;
        self.packets.clear();
        self.trace.clear();
    }
}

/// A connection as seen at the base station: the data direction's 4-tuple (fixed host's
/// address and port, mobile's address and port).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnKey {
    pub fh: (Ipv4Addr, u16),
    pub mh: (Ipv4Addr, u16),
}

impl ConnKey {
    /// The key of the connection `packet` belongs to, given the side it came from.
    pub fn of(side: Side, packet: &Packet) -> Option<ConnKey> {
        let seg = packet.tcp()?;
        let (src, dst) = (
            (packet.ip.src, seg.header.src_port),
            (packet.ip.dst, seg.header.dst_port),
        );
        Some(match side {
            Side::Wired => ConnKey { fh: src, mh: dst },
            Side::Wireless => ConnKey { fh: dst, mh: src },
        })
    }
}

/// The agents, dispatched without allocation (conventions, rule 3).
#[derive(Clone, Debug)]
pub enum AnyAgent {
    Snoop(SnoopAgent),
    Wtcp(WtcpAgent),
    Itcp(Box<ItcpAgent>),
    Lle(LleAgent),
}

impl AnyAgent {
    pub fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match self {
            AnyAgent::Snoop(a) => a.handle(now, input, out),
            AnyAgent::Wtcp(a) => a.handle(now, input, out),
            AnyAgent::Itcp(a) => a.handle(now, input, out),
            AnyAgent::Lle(a) => a.handle(now, input, out),
        }
    }

    /// The earliest time at which the agent wants `AgentInput::Timer`.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyAgent::Snoop(a) => a.poll_timeout(),
            AnyAgent::Wtcp(a) => a.poll_timeout(),
            AnyAgent::Itcp(a) => a.poll_timeout(),
            AnyAgent::Lle(a) => a.poll_timeout(),
        }
    }

    /// The agent's liveness invariant: no state in which data the agent is responsible for
    /// is outstanding and nothing (no timer, no expected signal) will move it. The world
    /// checks it after every input in debug builds and stops the run with an
    /// `Invariant` error if it fails.
    pub fn check(&self) -> Result<(), String> {
        match self {
            AnyAgent::Snoop(a) => a.check(),
            AnyAgent::Wtcp(a) => a.check(),
            AnyAgent::Itcp(a) => a.check(),
            AnyAgent::Lle(a) => a.check(),
        }
    }

    /// True if the agent wants its station's MAC signals for data frames (LLE-TCP acts on
    /// them; Snoop watches its interface's transmissions).
    pub fn wants_link_signals(&self) -> bool {
        matches!(self, AnyAgent::Lle(_) | AnyAgent::Snoop(_))
    }

    /// True if the agent wants the packets of its own node's TCP (LLE-TCP only).
    pub fn wants_local_packets(&self) -> bool {
        matches!(self, AnyAgent::Lle(_))
    }

    /// The agent's metrics for the run summary; `end` closes time-weighted averages.
    pub fn summary(&self, end: SimTime) -> AgentSummary {
        match self {
            AnyAgent::Snoop(a) => a.summary(end),
            AnyAgent::Wtcp(a) => a.summary(end),
            AnyAgent::Itcp(a) => a.summary(end),
            AnyAgent::Lle(a) => a.summary(end),
        }
    }
}
