//! Base-station agents: TCP-aware hooks on a node's forwarding path (conventions, rule 4).
//! An agent sees every transit packet, from the wired side (towards the mobile) and from
//! the wireless side (from the mobile), and answers with a `Verdict::{Forward, Drop,
//! Consume}`; it may send packets of its own (local retransmissions, relayed data,
//! acknowledgements), ask for a timer, and emit trace records. Agents are pure state
//! machines (`Agent`: `handle(now, AgentInput, &mut AgentOutbox)` and `poll_timeout()`);
//! the world applies what they ask for and never the other way round.
//!
//! * `snoop` — Snoop (Balakrishnan et al.) as the TULIP paper ran it (TULIP §4).
//! * `wtcp` — WTCP (Ratnam & Matta §3–4): buffering, its own wireless window and timer,
//!   end-to-end acknowledgements, timestamp rewriting.
//! * `itcp` — I-TCP (Bakre & Badrinath): a split connection. It **breaks TCP's end-to-end
//!   semantics**: the fixed host's data is acknowledged when the base station has it.
//! * `lle` — LLE-TCP (Kliazovich, Granelli & Gerla §3): TCP ACKs generated on the MAC's
//!   `TxSuccess` at the wireless sender, the receiver's suppressed by an ARQ client.
//! * `mtcp` — M-TCP (Brown & Singh 1997) at the supervisor host: end-to-end ACKs with the
//!   last byte held back, a zero window while the mobile is handed off.
//! * `wap` — a WAP gateway (survey §2.3): WTP class 2 transactions with the mobile, TCP
//!   with the origin server.
//! * `wtcp_sinha` — the proxy of WTCP of Sinha et al. (survey §2.5.1): TCP with the fixed
//!   host, WTCP-Sinha with the mobile.
//! * `ebsn` — Explicit Bad State Notification (Bakshi et al.) at the base station.
//! * `eln` — Explicit Loss Notification at the receiver (Pentikousis §2.4.4.4).
//! * `dda` — delayed duplicate ACKs (Vaidya et al.; Pentikousis §2.1.2.2): the receiving
//!   side holds the third and later duplicate ACKs for `d`.
//!
//! Shared by several: `common` (traces, handoff policy) and `split`, the TCP half a
//! split-connection gateway (I-TCP's shape; the WAP gateway, the WTCP-Sinha proxy) keeps
//! towards the fixed host.
//!
//! **Mobility** (`sim::mobility`, docs/mobility.md): agents hear `MobilityNotice`s; the
//! agent of a base station the mobile left drops its state for the mobile's connections or
//! hands it over (`AgentOutbox::handover`), and the new base station's agent receives it
//! (`AgentInput::Handover`) after the transfer latency.
//!
//! Each agent's module holds its state machine and, in `<agent>/spec.rs`, its settings
//! (`AgentSettings`: how it is built, its checks, where it may sit). The one list of agents
//! is the `agents!` invocation below: it makes the scenario's tagged table `AgentSpec`
//! (`agent = { kind = "snoop", ... }`) and the dispatch enum `AnyAgent`. What the world
//! offers beyond transit packets — its station's MAC signals (`AgentInput::Link`), the
//! packets of its own node's TCP (`AgentInput::Local`), a client on each receiver across
//! its cell — an agent asks for through its `Agent` and `AgentSettings` methods.
//!
//! Per-connection state is keyed by the connection's 4-tuple in a `BTreeMap`, so no
//! iteration order depends on hashing; per-connection handlers are methods of that state
//! taking a small shared context. Timers: each agent reports one deadline (the earliest
//! over its connections); the world keeps one timer per agent.

pub mod common;
pub mod dda;
pub mod ebsn;
pub mod eln;
pub mod itcp;
pub mod lle;
pub mod mtcp;
pub mod snoop;
pub mod split;
pub mod wap;
pub mod wtcp;
pub mod wtcp_sinha;

#[cfg(test)]
mod testkit;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, SimDuration, SimTime};
use crate::errors::ScenarioError;
use crate::metrics::AgentSummary;
use crate::packet::{Ipv4Addr, Packet, TcpSegment};
use crate::wireless::signals::MacSignal;

pub use common::{AgentTrace, AgentTraceColumns, OnHandoff};
pub use dda::{DdaAgent, DdaSpec};
pub use ebsn::{EbsnAgent, EbsnSpec};
pub use eln::{ElnAgent, ElnSpec};
pub use itcp::{ItcpAgent, ItcpSpec};
pub use lle::{LleAfterGiveUp, LleAgent, LleKey, LleRole, LleSpec};
pub use mtcp::{MtcpAgent, MtcpSpec};
pub use snoop::{SnoopAgent, SnoopSpec};
pub use wap::{WapAgent, WapSpec};
pub use wtcp::{WtcpAgent, WtcpSpec, WtcpTimestamps};
pub use wtcp_sinha::{WtcpSinhaAgent, WtcpSinhaProxySpec};

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
    /// A signal from the MAC of the agent's own station, for agents that ask for them
    /// (`Agent::wants_link_signals`). For `TxSuccess` / `TxFailure`, `packet` is the
    /// datagram the frame carried (`None` for link-level control frames); `Trans` and
    /// `Wait` carry none.
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
    /// What a mobile's movement tells the agent (`sim::mobility`).
    Mobility(MobilityNotice),
    /// The state of a mobile's connections, handed over by the agent of the base station
    /// the mobile left (`AgentOutbox::handover`).
    Handover(Handover),
}

/// What a mobile's movement tells an agent (docs/mobility.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MobilityNotice {
    /// A handoff of `mobile` began: it left its cell (every agent hears it; M-TCP's
    /// supervisor host chokes the mobile's senders).
    HandoffStarted { mobile: Ipv4Addr },
    /// `mobile` left the cell of this agent's base station: the agent drops its state for
    /// the mobile's connections or hands it over (`AgentOutbox::handover`).
    Left { mobile: Ipv4Addr },
    /// The gateway now routes `mobile`'s packets to its new base station (every agent hears
    /// it; M-TCP reopens the senders' window).
    RouteUpdated { mobile: Ipv4Addr },
}

/// The state of one mobile's connections as it moves from one base station's agent to
/// the next (Bakre & Badrinath's I-TCP handoff; a Snoop or WTCP cache handed over).
#[derive(Clone, Debug)]
pub enum Handover {
    Snoop(snoop::SnoopHandover),
    Wtcp(wtcp::WtcpHandover),
    Itcp(itcp::ItcpHandover),
}

/// Which way a packet of the agent's own node goes (`AgentInput::Local`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LocalDir {
    /// Sent by the local TCP.
    Sent,
    /// Addressed to the local TCP.
    Delivered,
    /// Addressed to the local TCP, but its frame arrived corrupted by the channel (a cell
    /// member's receiver, for agents that ask: `Agent::wants_corrupted_frames`); its headers
    /// are taken to be readable. It never reaches the TCP; the verdict is ignored.
    Corrupted,
}

/// The effects of one call into an agent.
#[derive(Debug, Default)]
pub struct AgentOutbox {
    /// The verdict on the packet of an `AgentInput::Packet` (ignored otherwise).
    pub verdict: Verdict,
    /// Packets the agent sends from its node, routed by their destination. The world
    /// assigns their ids and fixes their IP length.
    pub packets: Vec<Packet>,
    /// Packets the agent sends ahead of the data waiting in its node's interface queue (a
    /// local retransmission at high priority), in order, before `packets`: routed the same
    /// way, they start at once on an idle link or wait at the head of the queue, which
    /// drops its last packets if it is full (ns-2's `PriQueue`).
    pub ahead: Vec<Packet>,
    pub trace: Vec<AgentTrace>,
    /// After `MobilityNotice::Left`: the mobile's connections for its new base station's
    /// agent, and how long the transfer takes from the moment the mobile joins it.
    pub handover: Option<(Handover, SimDuration)>,
}

impl AgentOutbox {
    pub fn clear(&mut self) {
        self.verdict = Verdict::Forward;
        self.packets.clear();
        self.ahead.clear();
        self.trace.clear();
        self.handover = None;
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
    /// The key of the connection `packet` belongs to, given the side it came from, with
    /// its TCP segment; `None` for a packet that is not TCP.
    pub fn of(side: Side, packet: &Packet) -> Option<(ConnKey, TcpSegment)> {
        let seg = *packet.tcp()?;
        let (src, dst) = (
            (packet.ip.src, seg.header.src_port),
            (packet.ip.dst, seg.header.dst_port),
        );
        let key = match side {
            Side::Wired => ConnKey { fh: src, mh: dst },
            Side::Wireless => ConnKey { fh: dst, mh: src },
        };
        Some((key, seg))
    }
}

/// An agent's state machine (module notes).
pub trait Agent {
    fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox);
    /// The earliest time at which the agent wants `AgentInput::Timer`.
    fn poll_timeout(&self) -> Option<SimTime>;
    /// The agent's liveness invariant: no state in which data the agent is responsible for
    /// is outstanding and nothing (no timer, no expected signal) will move it. The world
    /// checks it after every input in debug builds and stops the run with an `Invariant`
    /// error if it fails.
    fn check(&self) -> Result<(), String>;
    /// The agent's metrics for the run summary; `end` closes time-weighted averages.
    fn summary(&self, end: SimTime) -> AgentSummary;
    /// The agent wants its station's MAC signals for data frames (`AgentInput::Link`).
    fn wants_link_signals(&self) -> bool {
        false
    }
    /// The agent follows its node's datagrams leaving: `AgentInput::Link` with `Trans` when
    /// one leaves the interface queue for the link (on a point-to-point link its
    /// transmission starts; in a cell it goes to the link layer and MAC, ahead of
    /// everything still queued) and, on a point-to-point link, `TxSuccess` when its last bit
    /// has left (a cell gives `TxSuccess` / `TxFailure` to every agent that
    /// `wants_link_signals`).
    fn wants_departures(&self) -> bool {
        false
    }
    /// The agent wants the packets of its own node's TCP (`AgentInput::Local`).
    fn wants_local_packets(&self) -> bool {
        false
    }
    /// The agent wants the datagrams for its own node whose frames arrived corrupted
    /// (`LocalDir::Corrupted`).
    fn wants_corrupted_frames(&self) -> bool {
        false
    }
}

/// What an agent's settings are asked when a scenario places the agent.
pub trait AgentSettings {
    type Agent: Agent;
    /// The agent's name in scenario files (`kind = "snoop"`).
    const KIND: &'static str;
    /// Added to the error for an unknown `node`: how to choose the agent's node.
    const NODE_HINT: Option<&'static str> = None;
    /// The agent, for the node `setup` describes.
    fn build(&self, setup: &AgentSetup<'_>) -> Self::Agent;
    /// What the types alone cannot check; error paths are relative to the settings table.
    fn check(&self) -> Result<(), ScenarioError> {
        Ok(())
    }
    /// Where the agent may sit; error paths are `node` or `agent`, or a settings key (then
    /// placed under the settings table, like `check`'s).
    fn check_site(&self, _site: &Site<'_>) -> Result<(), ScenarioError> {
        Ok(())
    }
    /// A companion placed on the receiving node of every flow that ends at another member
    /// of the agent's cell (LLE-TCP's ARQ client), if the agent has one.
    fn receiver_client(&self) -> Option<Self::Agent> {
        None
    }
    /// Whether the receiver named `receiver` gets the `receiver_client` (all do unless the
    /// settings name some).
    fn serves_receiver(&self, _receiver: &str) -> bool {
        true
    }
}

/// What an agent's construction may know of its place.
#[derive(Clone, Copy, Debug)]
pub struct AgentSetup<'a> {
    /// The run seed.
    pub seed: u64,
    /// The base station's position in the scenario (0 for the first or only one).
    pub index: usize,
    /// The node's name.
    pub node: &'a str,
    /// Every node's name, by index; node i has the address `Ipv4Addr::for_node(i)`.
    pub nodes: &'a [String],
}

impl AgentSetup<'_> {
    /// The agent's random stream `name`: `agent/<name>` for the first base station,
    /// `agent/<node>/<name>` for the others.
    pub fn stream(&self, name: &str) -> RngStream {
        match self.index {
            0 => RngStream::derive(self.seed, &format!("agent/{name}")),
            _ => RngStream::derive(self.seed, &format!("agent/{}/{name}", self.node)),
        }
    }
}

/// Where a scenario places an agent, for the agents' placement rules (`check_site`).
#[derive(Clone, Debug)]
pub struct Site<'a> {
    /// The node's name.
    pub node: &'a str,
    /// The wireless cell the node is a member of, if any.
    pub cell: Option<SiteCell<'a>>,
}

/// The cell of a `Site`.
#[derive(Clone, Debug)]
pub struct SiteCell<'a> {
    pub name: &'a str,
    /// The cell's MAC as written in the scenario, quoted (`"dcf"`).
    pub mac: String,
    /// The MAC acknowledges every frame, so that its `TxSuccess` means the frame arrived.
    pub mac_acknowledges: bool,
    /// The destinations of flows that end at another member of the cell, in flow order.
    pub receivers: Vec<&'a str>,
}

/// The one list of agents: the scenario's tagged table and the dispatch enum, with every
/// arm. Adding an agent is its module (state machine, `impl Agent`, settings with `impl
/// AgentSettings`) and one line here.
macro_rules! agents {
    ($($(#[$doc:meta])* $variant:ident($spec:ty)),* $(,)?) => {
        /// The agent of a base station, as a tagged table: `agent = { kind = "snoop",
        /// dupack_threshold = 3 }`; the keys besides `kind` are that agent's settings, each
        /// with its default.
        #[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
        #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
        pub enum AgentSpec {
            /// No agent: plain IP forwarding.
            #[default]
            None,
            $($(#[$doc])* $variant($spec),)*
        }

        /// The agents, dispatched without allocation (conventions, rule 3).
        #[derive(Clone, Debug)]
        pub enum AnyAgent {
            $($variant(Box<<$spec as AgentSettings>::Agent>),)*
        }

        impl AgentSpec {
            /// Every agent's name in scenario files, `"none"` first.
            pub const NAMES: &'static [&'static str] =
                &["none", $(<$spec as AgentSettings>::KIND),*];

            /// The name in scenario files.
            pub fn name(&self) -> &'static str {
                match self {
                    AgentSpec::None => "none",
                    $(AgentSpec::$variant(_) => <$spec as AgentSettings>::KIND,)*
                }
            }

            /// The agent (none for `None`).
            pub fn build(&self, setup: &AgentSetup<'_>) -> Option<AnyAgent> {
                match self {
                    AgentSpec::None => None,
                    $(AgentSpec::$variant(s) => Some(AnyAgent::$variant(Box::new(s.build(setup)))),)*
                }
            }

            /// The settings' own checks (paths relative to the settings table).
            pub fn check(&self) -> Result<(), ScenarioError> {
                match self {
                    AgentSpec::None => Ok(()),
                    $(AgentSpec::$variant(s) => s.check(),)*
                }
            }

            /// The agent's placement rule (paths `node` or `agent`).
            pub fn check_site(&self, site: &Site<'_>) -> Result<(), ScenarioError> {
                match self {
                    AgentSpec::None => Ok(()),
                    $(AgentSpec::$variant(s) => s.check_site(site),)*
                }
            }

            /// How to choose the agent's node, for an unknown `node`.
            pub fn node_hint(&self) -> Option<&'static str> {
                match self {
                    AgentSpec::None => None,
                    $(AgentSpec::$variant(_) => <$spec as AgentSettings>::NODE_HINT,)*
                }
            }

            /// The companion for each receiver across the agent's cell, if it has one.
            pub fn receiver_client(&self) -> Option<AnyAgent> {
                match self {
                    AgentSpec::None => None,
                    $(AgentSpec::$variant(s) => s.receiver_client().map(|a| AnyAgent::$variant(Box::new(a))),)*
                }
            }

            /// Whether receiver `receiver` gets the companion (`receiver_client`).
            pub fn serves_receiver(&self, receiver: &str) -> bool {
                match self {
                    AgentSpec::None => false,
                    $(AgentSpec::$variant(s) => s.serves_receiver(receiver),)*
                }
            }
        }

        impl AnyAgent {
            fn inner(&self) -> &dyn Agent {
                match self {
                    $(AnyAgent::$variant(a) => a.as_ref(),)*
                }
            }

            pub fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
                match self {
                    $(AnyAgent::$variant(a) => a.handle(now, input, out),)*
                }
            }
        }
    };
}

agents! {
    /// Snoop: caches segments, retransmits locally on duplicate ACKs and timeouts, and
    /// suppresses the duplicate ACKs it expects (TULIP §2, §4).
    Snoop(SnoopSpec),
    /// WTCP: buffers segments, sends them within its own wireless window, retransmits
    /// locally and rewrites timestamps to hide its residence time (WTCP §3–4).
    Wtcp(WtcpSpec),
    /// I-TCP: splits the connection at the base station (breaks end-to-end semantics).
    Itcp(ItcpSpec),
    /// LLE-TCP (Kliazovich et al. §3): the ARQ agent on the base station's node, which
    /// must be a member of a wireless cell and the wireless sender — the base station /
    /// access point, or in `adhoc` the sending node (`node = "n1"`). An ARQ client goes
    /// automatically on the receiving node (`dst`) of every flow that ends across the cell
    /// from it, or of those named in `mobiles` (the agent then serves only theirs).
    Lle(LleSpec),
    /// M-TCP (Brown & Singh, CCR 1997) at the supervisor host (the gateway): ACKs relayed
    /// from the mobile with the last byte held back; on a handoff the held byte is
    /// acknowledged with a zero window (the sender persists), and the window reopens when
    /// the gateway's route to the mobile is updated.
    Mtcp(MtcpSpec),
    /// A WAP gateway (survey §2.3): WTP class 2 transactions over UDP with the mobile, TCP
    /// with the origin server; its flows have `transport = "wap"`.
    Wap(WapSpec),
    /// The WTCP-Sinha proxy (Sinha et al., MobiCom 1999; survey §2.5.1): TCP with the fixed
    /// host, WTCP-Sinha with the mobile; its flows have `transport = "wtcp_sinha"`. Not the
    /// base-station WTCP of Ratnam & Matta (`wtcp`).
    WtcpSinha(WtcpSinhaProxySpec),
    /// Delayed duplicate ACKs (Vaidya et al.; Pentikousis §2.1.2.2): holds the third and
    /// later duplicate ACKs of a hole for `d` while the link layer (`link = "dda"`)
    /// retransmits; on the mobile (`node = "mh"`, the paper's placement) or the base
    /// station.
    Dda(DdaSpec),
    /// Explicit Loss Notification (Pentikousis §2.4.4.4) at the receiver: on the mobile
    /// (`node = "mh"`, a cell member), it marks the ACKs that ask for a segment its radio
    /// received corrupted; the sender answers with `tcp.eln = true`.
    Eln(ElnSpec),
    /// Explicit Bad State Notification (Bakshi et al., ICDCS 1997) at the base station:
    /// each failed attempt to deliver a segment over the air (`mac = "dcf"`'s TxFailure, or
    /// `link = "dda"`'s ARQ) sends the source a message that restarts its retransmission
    /// timer (`tcp.ebsn = true`).
    Ebsn(EbsnSpec),
}

impl AnyAgent {
    /// The earliest time at which the agent wants `AgentInput::Timer`.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.inner().poll_timeout()
    }
    /// The agent's liveness invariant (`Agent::check`).
    pub fn check(&self) -> Result<(), String> {
        self.inner().check()
    }
    /// The agent's metrics for the run summary.
    pub fn summary(&self, end: SimTime) -> AgentSummary {
        self.inner().summary(end)
    }
    /// See `Agent::wants_link_signals`.
    pub fn wants_link_signals(&self) -> bool {
        self.inner().wants_link_signals()
    }
    /// See `Agent::wants_departures`.
    pub fn wants_departures(&self) -> bool {
        self.inner().wants_departures()
    }
    /// See `Agent::wants_local_packets`.
    pub fn wants_local_packets(&self) -> bool {
        self.inner().wants_local_packets()
    }
    /// See `Agent::wants_corrupted_frames`.
    pub fn wants_corrupted_frames(&self) -> bool {
        self.inner().wants_corrupted_frames()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_kind_is_its_serde_name() {
        for name in AgentSpec::NAMES {
            let spec: AgentSpec =
                serde_json::from_value(serde_json::json!({ "kind": name })).expect(name);
            assert_eq!(spec.name(), *name);
            assert_eq!(serde_json::to_value(&spec).unwrap()["kind"], *name);
        }
    }
}
