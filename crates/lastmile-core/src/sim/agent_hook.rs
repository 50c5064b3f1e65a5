//! The world's side of base-station agents: the hook in `World::on_arrive` hands every
//! transit packet at an agent's node to the agent, then applies its outbox — the verdict
//! on the packet, the packets it sends, its trace records — and re-arms its timer. Every
//! call into an agent goes through `World::call_agent`, once; agents are found by node in
//! constant time (`AgentHooks::at`).
//!
//! **Which side a packet came from** is decided by where it is going: a packet whose next
//! hop from the base station crosses a wireless-marked link came from the wired side, any
//! other from the wireless side. On a base station with one wired and one wireless
//! interface this is the interface it arrived on, and it leaves the `Arrive` event as it is.
//!
//! Agents that ask for them (`Agent::wants_link_signals`: LLE-TCP, Snoop) also get, on their
//! node, the MAC's `TxSuccess` / `TxFailure` for each data frame of their station with the
//! datagram it carried (`on_agent_link`, called by the cell); those that ask for them
//! (`Agent::wants_local_packets`: LLE-TCP) get, on an end host, the packets of the local
//! TCP (`on_agent_local`): those it sends, before they are routed into the link layer, and
//! those for it, before it sees them; and those that ask for them
//! (`Agent::wants_corrupted_frames`: ELN) get the datagrams for the local TCP whose frames
//! a cell delivered corrupted (`on_corrupted_frame`). A packet an agent sends to its own node's address is
//! delivered to the local TCP directly (LLE-TCP §3.1: in ad hoc the generated ACK is
//! "locally delivered to the TCP layer"), without being shown to the agent again.
//!
//! In debug builds every agent's liveness invariant (`Agent::check`) is verified after
//! each input; a violation ends the run with `SimError::Invariant`, so tests that run whole
//! scenarios catch a state that would stall a flow where it arises.

use crate::agents::{
    AgentInput, AgentOutbox, AgentTraceColumns, AnyAgent, Handover, LocalDir, Side, Verdict,
};
use crate::engine::{SimDuration, SimTime, TimerId};
use crate::ids::{AgentId, Direction, LinkId, NodeId};
use crate::metrics::{AgentOwnMetrics, AgentSummary, TraceTable};
use crate::packet::{Packet, PacketId, DEFAULT_TTL};
use crate::wireless::signals::MacSignal;

use super::world::{PacketSlot, World};
use super::SimError;

/// An agent placed on a node, with its timer.
#[derive(Debug)]
pub struct AgentHost {
    pub node: NodeId,
    pub agent: AnyAgent,
    pub timer: TimerId,
}

/// The world's agents (indexed by `AgentId`), which node holds which, their reusable
/// outbox and the `agent_rtt` trace.
#[derive(Debug, Default)]
pub struct AgentHooks {
    pub hosts: Vec<AgentHost>,
    /// The agent on each node (indexed by `NodeId`; shorter when the last nodes hold none).
    by_node: Vec<Option<AgentId>>,
    pub trace: AgentTraceColumns,
    outbox: AgentOutbox,
    /// The handover the last call produced (`World::agent_input` takes it).
    handover: Option<(Handover, SimDuration)>,
    /// Some agent follows departures (`Agent::wants_departures`): the links' hot path
    /// looks no further when none does.
    follows_departures: bool,
}

/// What an agent is shown: a transit packet still in the arena, or an input that carries
/// its own packet.
enum Shown<'a> {
    Transit { side: Side, slot: PacketSlot },
    Input(AgentInput<'a>),
}

impl AgentHooks {
    /// Places `agent` on `node` with timer `timer` (taken from the world's timer table).
    pub fn place(&mut self, node: NodeId, agent: AnyAgent, timer: TimerId) -> AgentId {
        let id = AgentId(self.hosts.len() as u32);
        self.hosts.push(AgentHost { node, agent, timer });
        if self.by_node.len() <= node.index() {
            self.by_node.resize(node.index() + 1, None);
        }
        self.by_node[node.index()] = Some(id);
        self.follows_departures |= self.hosts[id.index()].agent.wants_departures();
        id
    }
    /// The agent on `node`, if any.
    #[inline]
    pub fn at(&self, node: NodeId) -> Option<AgentId> {
        self.by_node.get(node.index()).copied().flatten()
    }
    /// The agent's metrics: the first agent's, with the LLE-TCP counters of every host
    /// (the ARQ agent and its clients) summed.
    pub fn summary(&self, end: SimTime) -> Option<AgentSummary> {
        let mut first = self.hosts.first()?.agent.summary(end);
        for h in &self.hosts[1..] {
            if let (AgentOwnMetrics::Lle(total), AgentOwnMetrics::Lle(more)) =
                (&mut first.own, h.agent.summary(end).own)
            {
                total.add(&more);
            }
        }
        Some(first)
    }
    /// Some agent follows departures (`Agent::wants_departures`).
    #[inline(always)]
    pub fn follows_departures(&self) -> bool {
        self.follows_departures
    }
    /// The agent on `node` that follows the departures of its point-to-point links' frames
    /// (`Agent::wants_departures`), if any.
    #[inline]
    pub fn departures_at(&self, node: NodeId) -> Option<AgentId> {
        if !self.follows_departures {
            return None;
        }
        self.at(node)
            .filter(|&i| self.hosts[i.index()].agent.wants_departures())
    }
    /// The agent on `node` that wants the local TCP's packets, if any.
    pub fn local_at(&self, node: NodeId) -> Option<AgentId> {
        self.at(node)
            .filter(|&i| self.hosts[i.index()].agent.wants_local_packets())
    }
    pub fn take_trace_table(&mut self) -> Option<TraceTable> {
        std::mem::take(&mut self.trace).into_table()
    }
}

impl World {
    /// The one way into an agent: take the reusable outbox, hand the agent its input, let
    /// `then` act on the verdict (the caller's part: forward or discard the packet shown),
    /// apply the outbox (its packets, trace records, the invariant check, its timer) and
    /// put the outbox back. Returns the verdict.
    fn call_agent(
        &mut self,
        now: SimTime,
        agent: AgentId,
        shown: Shown<'_>,
        then: impl FnOnce(&mut World, Verdict) -> Result<(), SimError>,
    ) -> Result<Verdict, SimError> {
        let mut out = std::mem::take(&mut self.agents.outbox);
        out.clear();
        let host = &mut self.agents.hosts[agent.index()].agent;
        match shown {
            Shown::Transit { side, slot } => {
                let packet = self.packets.get_mut(slot);
                host.handle(now, AgentInput::Packet { side, packet }, &mut out);
            }
            Shown::Input(input) => host.handle(now, input, &mut out),
        }
        let verdict = out.verdict;
        self.agents.handover = out.handover.take();
        let result = then(self, verdict).and_then(|()| self.apply_agent_outbox(now, agent, &out));
        self.agents.outbox = out;
        result.map(|()| verdict)
    }

    /// Hands `input` (a mobility notice, a handover) to `agent` and applies what it asks
    /// for; returns the handover it made, if any (`sim::mobility`).
    pub(super) fn agent_input(
        &mut self,
        now: SimTime,
        agent: AgentId,
        input: AgentInput<'_>,
    ) -> Result<Option<(Handover, SimDuration)>, SimError> {
        self.call_agent(now, agent, Shown::Input(input), |_, _| Ok(()))?;
        Ok(self.agents.handover.take())
    }

    /// Shows a transit packet to the agent on `node` and applies its decision.
    pub(super) fn on_agent_packet(
        &mut self,
        now: SimTime,
        agent: AgentId,
        node: NodeId,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        if let Some(i) = self.mobility.in_transfer(node, self.packets.get(slot)) {
            // The agent here waits for the state of this mobile's connections.
            let p = self.packets.remove(slot);
            self.count_handoff_drop(i, &p);
            return Ok(());
        }
        let dst = self.packets.get(slot).ip.dst;
        let Some(side) = self.side_of(node, dst) else {
            return self.route_from(now, node, slot); // No route: counted as such.
        };
        let shown = Shown::Transit { side, slot };
        self.call_agent(now, agent, shown, |world, verdict| match verdict {
            Verdict::Forward => world.route_from(now, node, slot),
            Verdict::Drop | Verdict::Consume => {
                world.packets.remove(slot);
                Ok(())
            }
        })?;
        Ok(())
    }

    /// Shows a packet of the local TCP on `node` to its agent; false if the agent dropped
    /// or consumed it (the caller then discards it).
    pub(super) fn on_agent_local(
        &mut self,
        now: SimTime,
        agent: AgentId,
        dir: LocalDir,
        packet: &mut Packet,
    ) -> Result<bool, SimError> {
        let shown = Shown::Input(AgentInput::Local { dir, packet });
        let verdict = self.call_agent(now, agent, shown, |_, _| Ok(()))?;
        Ok(verdict == Verdict::Forward)
    }

    /// A data frame for `node` arrived corrupted: its datagram, if addressed to the node's
    /// own TCP, goes to the node's agent if it asks for such (`LocalDir::Corrupted`).
    pub(super) fn on_corrupted_frame(
        &mut self,
        now: SimTime,
        node: NodeId,
        packet: &Packet,
    ) -> Result<(), SimError> {
        let Some(agent) = self.agents.at(node) else {
            return Ok(());
        };
        let host = &self.agents.hosts[agent.index()];
        if !host.agent.wants_corrupted_frames() || packet.ip.dst != self.nodes[node.index()].addr {
            return Ok(());
        }
        let mut packet = *packet;
        let dir = LocalDir::Corrupted;
        let shown = Shown::Input(AgentInput::Local {
            dir,
            packet: &mut packet,
        });
        self.call_agent(now, agent, shown, |_, _| Ok(()))?;
        Ok(())
    }

    /// A MAC signal for a data frame of the station on the agent's node.
    pub(super) fn on_agent_link(
        &mut self,
        now: SimTime,
        agent: AgentId,
        signal: MacSignal,
        packet: &Packet,
    ) -> Result<(), SimError> {
        if !self.agents.hosts[agent.index()].agent.wants_link_signals() {
            return Ok(());
        }
        let packet = Some(packet);
        let shown = Shown::Input(AgentInput::Link { signal, packet });
        self.call_agent(now, agent, shown, |_, _| Ok(()))?;
        Ok(())
    }

    /// A frame in `slot` starts (`Trans`) on `link`'s direction `dir`: its sending node's
    /// agent hears of it if it follows departures (callers check `follows_departures`
    /// first, keeping the links' hot path free of the call).
    #[inline(never)]
    pub(super) fn on_departure(
        &mut self,
        now: SimTime,
        link: LinkId,
        dir: Direction,
        slot: PacketSlot,
        signal: MacSignal,
    ) -> Result<(), SimError> {
        let from = self.links[link.index()].dirs[dir.index()].from;
        match self.agents.departures_at(from) {
            Some(agent) => {
                let packet = *self.packets.get(slot);
                self.on_agent_departed(now, agent, signal, &packet)
            }
            None => Ok(()),
        }
    }

    /// A point-to-point frame of `agent`'s node started (`Trans`) or finished
    /// (`TxSuccess`): shown as the link signal a cell gives (module notes).
    pub(super) fn on_agent_departed(
        &mut self,
        now: SimTime,
        agent: AgentId,
        signal: MacSignal,
        packet: &Packet,
    ) -> Result<(), SimError> {
        let shown = Shown::Input(AgentInput::Link {
            signal,
            packet: Some(packet),
        });
        self.call_agent(now, agent, shown, |_, _| Ok(()))?;
        Ok(())
    }

    /// The agent's timer expired.
    pub(super) fn on_agent_timer(&mut self, now: SimTime, agent: AgentId) -> Result<(), SimError> {
        self.call_agent(now, agent, Shown::Input(AgentInput::Timer), |_, _| Ok(()))?;
        Ok(())
    }

    /// Wired side if the packet's route from here crosses a wireless hop — a
    /// wireless-marked link or a cell (module notes); on a gateway above the base stations
    /// (WTCP §6) that hop is a few hops on.
    fn side_of(&self, node: NodeId, dst: crate::packet::Ipv4Addr) -> Option<Side> {
        let index = dst.0.checked_sub(crate::packet::Ipv4Addr::for_node(0).0)? as usize;
        if index >= self.nodes.len() {
            return None;
        }
        let dst = NodeId(index as u32);
        let mut hop = self.routes.next_hop(node, dst)?;
        let mut v = node;
        for _ in 0..self.nodes.len() {
            let (wireless, next) = match hop {
                crate::net::Hop::Link { link, dir } => {
                    let l = &self.links[link.index()];
                    (l.wireless, l.dirs[dir.index()].to)
                }
                crate::net::Hop::Cell { to, .. } => (true, to),
            };
            if wireless {
                return Some(Side::Wired);
            }
            if next == dst || next == v {
                break;
            }
            v = next;
            let Some(h) = self.routes.next_hop(v, dst) else {
                break;
            };
            hop = h;
        }
        Some(Side::Wireless)
    }

    fn apply_agent_outbox(
        &mut self,
        now: SimTime,
        agent: AgentId,
        out: &AgentOutbox,
    ) -> Result<(), SimError> {
        let node = self.agents.hosts[agent.index()].node;
        for ev in &out.trace {
            self.agents.trace.push(now, ev);
        }
        for (p, ahead) in out
            .ahead
            .iter()
            .map(|p| (p, true))
            .chain(out.packets.iter().map(|p| (p, false)))
        {
            let mut packet = *p;
            packet.id = PacketId(self.next_packet_id);
            packet.ip.ident = self.next_packet_id as u16;
            packet.ip.ttl = DEFAULT_TTL;
            packet.fix_length();
            self.next_packet_id += 1;
            if packet.ip.dst == self.nodes[node.index()].addr {
                self.deliver_local(now, node, packet)?;
                continue;
            }
            let slot = self.packets.insert(packet);
            if ahead {
                self.route_ahead_from(now, node, slot)?;
            } else {
                self.route_from(now, node, slot)?;
            }
        }
        let host = &self.agents.hosts[agent.index()];
        #[cfg(debug_assertions)]
        host.agent
            .check()
            .map_err(|e| SimError::Invariant(format!("at {:.6} s: {e}", now.as_secs_f64())))?;
        self.arm(now, host.timer, host.agent.poll_timeout())
    }
}
