//! The world's side of base-station agents: the hook in `World::on_arrive` hands every
//! transit packet at an agent's node to the agent, then applies its outbox — the verdict
//! on the packet, the packets it sends, its trace records — and re-arms its timer.
//!
//! **Which side a packet came from** is decided by where it is going: a packet whose next
//! hop from the base station crosses a wireless-marked link came from the wired side, any
//! other from the wireless side. On a base station with one wired and one wireless
//! interface this is the interface it arrived on, and it leaves the `Arrive` event as it is.

use crate::agents::{AgentInput, AgentOutbox, AgentTraceColumns, AnyAgent, Side, Verdict};
use crate::engine::{SimTime, TimerAction, TimerFire, TimerSlot};
use crate::ids::NodeId;
use crate::metrics::{AgentSummary, TraceTable};
use crate::packet::{PacketId, DEFAULT_TTL};

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
    /// The first agent's metrics.
    pub fn summary(&self, end: SimTime) -> Option<AgentSummary> {
        self.hosts.first().map(|h| h.agent.summary(end))
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
            let slot = self.packets.insert(packet);
            self.route_from(now, node, slot)?;
        }
        let host = &mut self.agents.hosts[agent];
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
