//! The world's side of base-station agents: the hook in `World::on_arrive` hands every
//! transit packet at an agent's node to the agent, then applies its outbox — the verdict
//! on the packet, the packets it sends, its trace records — and re-arms its timer.
//!
//! **Which side a packet came from** is decided by where it is going: a packet whose next
//! hop from the base station crosses a wireless-marked link came from the wired side, any
//! other from the wireless side. On a base station with one wired and one wireless
//! interface this is the interface it arrived on, and it leaves the `Arrive` event as it is.
//!
//! Agents that ask for them (LLE-TCP) also get, on their node: the MAC's `TxSuccess` /
//! `TxFailure` for each data frame of their station with the datagram it carried
//! (`on_agent_link`, called by the cell), and — on an end host — the packets of the local
//! TCP (`on_agent_local`): those it sends, before they are routed into the link layer, and
//! those for it, before it sees them. A packet an agent sends to its own node's address is
//! delivered to the local TCP directly (LLE-TCP §3.1: in ad hoc the generated ACK is
//! "locally delivered to the TCP layer"), without being shown to the agent again.
//!
//! In debug builds every agent's liveness invariant (`AnyAgent::check`) is verified after
//! each input; a violation ends the run with `SimError::Invariant`, so tests that run whole
//! scenarios catch a state that would stall a flow where it arises.

use crate::agents::{
    AgentInput, AgentOutbox, AgentTraceColumns, AnyAgent, LocalDir, Side, Verdict,
};
use crate::engine::{SimTime, TimerAction, TimerFire, TimerSlot};
use crate::ids::NodeId;
use crate::metrics::{AgentSummary, TraceTable};
use crate::packet::{Packet, PacketId, DEFAULT_TTL};
use crate::wireless::signals::MacSignal;

use super::world::{Event, PacketSlot, World};
use super::SimError;

/// An agent placed on a node, with its timer.
#[derive(Debug)]
pub struct AgentHost {
    pub node: NodeId,
    pub agent: AnyAgent,
    pub timer: TimerSlot,
}

/// The world's agents, their reusable outbox and the `agent_rtt` trace.
#[derive(Debug, Default)]
pub struct AgentHooks {
    pub hosts: Vec<AgentHost>,
    pub trace: AgentTraceColumns,
    outbox: AgentOutbox,
}

impl AgentHooks {
    /// The index of the agent on `node`, if any.
    pub fn at(&self, node: NodeId) -> Option<usize> {
        self.hosts.iter().position(|h| h.node == node)
    }
    /// The agent's metrics: the first agent's, with the LLE-TCP counters of every host
    /// (the ARQ agent and its clients) summed.
    pub fn summary(&self, end: SimTime) -> Option<AgentSummary> {
        let mut first = self.hosts.first()?.agent.summary(end);
        for h in &self.hosts[1..] {
            if let (Some(total), Some(more)) = (first.lle.as_mut(), h.agent.summary(end).lle) {
                total.add(&more);
            }
        }
        Some(first)
    }
    /// The index of the agent on `node` that wants the local TCP's packets, if any.
    pub fn local_at(&self, node: NodeId) -> Option<usize> {
        self.at(node)
            .filter(|&i| self.hosts[i].agent.wants_local_packets())
    }
    pub fn take_trace_table(&mut self) -> Option<TraceTable> {
        std::mem::take(&mut self.trace).into_table()
    }
}

impl World {
    /// Shows a transit packet to the agent on `node` and applies its decision.
    pub(super) fn on_agent_packet(
        &mut self,
        now: SimTime,
        agent: usize,
        node: NodeId,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        let dst = self.packets.get(slot).ip.dst;
        let Some(side) = self.side_of(node, dst) else {
            return self.route_from(now, node, slot); // No route: counted as such.
        };
        let mut out = std::mem::take(&mut self.agents.outbox);
        out.clear();
        let packet = self.packets.get_mut(slot);
        self.agents.hosts[agent]
            .agent
            .handle(now, AgentInput::Packet { side, packet }, &mut out);
        let result = match out.verdict {
            Verdict::Forward => self.route_from(now, node, slot),
            Verdict::Drop | Verdict::Consume => {
                self.packets.remove(slot);
                Ok(())
            }
        };
        let result = result.and_then(|()| self.apply_agent_outbox(now, agent, &out));
        self.agents.outbox = out;
        result
    }

    /// Shows a packet of the local TCP on `node` to its agent; false if the agent dropped
    /// or consumed it (the caller then discards it).
    pub(super) fn on_agent_local(
        &mut self,
        now: SimTime,
        agent: usize,
        dir: LocalDir,
        packet: &mut Packet,
    ) -> Result<bool, SimError> {
        let mut out = std::mem::take(&mut self.agents.outbox);
        out.clear();
        self.agents.hosts[agent]
            .agent
            .handle(now, AgentInput::Local { dir, packet }, &mut out);
        let keep = out.verdict == Verdict::Forward;
        let result = self.apply_agent_outbox(now, agent, &out);
        self.agents.outbox = out;
        result.map(|()| keep)
    }

    /// A MAC signal for a data frame of the station on the agent's node.
    pub(super) fn on_agent_link(
        &mut self,
        now: SimTime,
        agent: usize,
        signal: MacSignal,
        packet: &Packet,
    ) -> Result<(), SimError> {
        // Snoop also sees its interface's transmissions, for its persist timer's idle test
        // (agents::snoop module notes).
        let host = &self.agents.hosts[agent].agent;
        if !(host.wants_link_signals() || matches!(host, AnyAgent::Snoop(_))) {
            return Ok(());
        }
        let mut out = std::mem::take(&mut self.agents.outbox);
        out.clear();
        self.agents.hosts[agent].agent.handle(
            now,
            AgentInput::Link {
                signal,
                packet: Some(packet),
            },
            &mut out,
        );
        let result = self.apply_agent_outbox(now, agent, &out);
        self.agents.outbox = out;
        result
    }

    pub(super) fn on_agent_timer(
        &mut self,
        now: SimTime,
        agent: usize,
        generation: u32,
    ) -> Result<(), SimError> {
        match self.agents.hosts[agent].timer.fire(now, generation) {
            TimerFire::Ignore => Ok(()),
            TimerFire::Rearm { at, generation } => self.schedule(
                at,
                Event::AgentTimer {
                    agent: agent as u32,
                    generation,
                },
            ),
            TimerFire::Expired => {
                let mut out = std::mem::take(&mut self.agents.outbox);
                out.clear();
                self.agents.hosts[agent]
                    .agent
                    .handle(now, AgentInput::Timer, &mut out);
                let result = self.apply_agent_outbox(now, agent, &out);
                self.agents.outbox = out;
                result
            }
        }
    }

    /// Wired side if the packet is heading onto a wireless hop — a wireless-marked link or a
    /// cell (module notes).
    fn side_of(&self, node: NodeId, dst: crate::packet::Ipv4Addr) -> Option<Side> {
        let index = dst.0.checked_sub(crate::packet::Ipv4Addr::for_node(0).0)? as usize;
        if index >= self.nodes.len() {
            return None;
        }
        let hop = self.routes.next_hop(node, NodeId(index as u32))?;
        let towards_wireless = match hop {
            crate::net::Hop::Link { link, .. } => self.links[link.index()].wireless,
            crate::net::Hop::Cell { .. } => true,
        };
        Some(if towards_wireless {
            Side::Wired
        } else {
            Side::Wireless
        })
    }

    fn apply_agent_outbox(
        &mut self,
        now: SimTime,
        agent: usize,
        out: &AgentOutbox,
    ) -> Result<(), SimError> {
        let node = self.agents.hosts[agent].node;
        for ev in &out.trace {
            self.agents.trace.push(now, ev);
        }
        for p in &out.packets {
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
            self.route_from(now, node, slot)?;
        }
        let host = &mut self.agents.hosts[agent];
        #[cfg(debug_assertions)]
        host.agent
            .check()
            .map_err(|e| SimError::Invariant(format!("at {:.6} s: {e}", now.as_secs_f64())))?;
        if let TimerAction::Schedule { at, generation } = host.timer.set(host.agent.poll_timeout())
        {
            self.schedule(
                at,
                Event::AgentTimer {
                    agent: agent as u32,
                    generation,
                },
            )?;
        }
        Ok(())
    }
}
