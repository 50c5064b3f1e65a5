//! The world's side of mobility (docs/mobility.md): each `[[mobile]]`'s movement
//! (`mobility::Mover`, on the one timer path) applied to links, cells, routes, agents and
//! the mobile's TCP.
//!
//! * **Leave** a hop: a point-to-point link goes down — what its queues hold is discarded,
//!   a frame on the air is lost, and anything offered to it later is discarded; a cell's
//!   member leaves (`Cell::leave`). Every packet lost so is a **handoff loss** of the
//!   mobile. The agent of the base station left hears `MobilityNotice::Left` and may hand
//!   the mobile's connections over (`AgentOutbox::handover`), delivered to the agent of the
//!   base station the mobile joins, the transfer latency after it joins; until then that
//!   agent's node discards the mobile's packets (handoff losses too).
//! * **Join** a hop: the link comes up or the node joins the cell; the mobile sends
//!   through the new base station at once, and the base station reaches it. Its TCP may
//!   send duplicate ACKs (Cáceres & Iftode) or reopen a frozen window (Freeze-TCP).
//! * **Routing update** (WTCP §6): the gateway and the nodes from it to the new base
//!   station route the mobile's packets there; until then they go to the old base station,
//!   which discards them. Every agent hears `RouteUpdated` (M-TCP reopens), as it heard
//!   `HandoffStarted` when the handoff began (M-TCP chokes).
//! * **Warn** (Freeze-TCP): the mobile's receiving connections advertise a zero window.
//!
//! Routes are table entries rewritten in place (`RoutingTable::set_next_hop`): the mobile's
//! own entries towards the nodes its flows talk to, the new base station's entry towards
//! the mobile, and on the update those of the path from the gateway. The `handoff` trace
//! records each handoff: time_s, mobile (index in the summary's `mobiles`), from and to
//! (indices in that mobile's `cells`), outage_s.

use crate::agents::{AgentInput, Handover, MobilityNotice};
use crate::engine::{RngStream, SimDuration, SimTime, TimerId};
use crate::ids::{Direction, EndpointId, LinkId, NodeId};
use crate::metrics::{Column, MobileSummary, TraceTable};
use crate::mobility::{Dwell, Move, Mover, MoverConfig};
use crate::net::{CellId, Hop};
use crate::packet::{Ipv4Addr, Packet};
use crate::scenario::mobility::{AttachHop, ResolvedMobile};
use crate::scenario::{HandoffTcp, Residence};
use crate::transport::AnyEndpoint;

use super::world::{TimerOwner, World};
use super::SimError;

/// One of a mobile's hops.
#[derive(Clone, Debug)]
struct CellHook {
    name: String,
    base_station: NodeId,
    hop: HookHop,
}

#[derive(Copy, Clone, Debug)]
enum HookHop {
    /// The link, and its direction from the base station to the mobile.
    Link(LinkId, Direction),
    Cell(CellId),
}

/// A state handover on its way to a base station's agent.
#[derive(Debug)]
struct Transfer {
    at: SimTime,
    to: NodeId,
    latency: SimDuration,
    handover: Handover,
}

/// Counters of one mobile.
#[derive(Clone, Debug, Default)]
struct MobileStats {
    handoffs: u64,
    outage: SimDuration,
    handoff_drops: u64,
    handoff_data_drops: u64,
}

/// One mobile host.
#[derive(Debug)]
pub struct MobileHost {
    name: String,
    node: NodeId,
    addr: Ipv4Addr,
    gateway: NodeId,
    cells: Vec<CellHook>,
    mover: Mover,
    timer: TimerId,
    tcp: HandoffTcp,
    /// The nodes the mobile's flows talk to: its uplink's destinations.
    peers: Vec<NodeId>,
    /// Its receiving TCP endpoints (the mobile-side settings act on them).
    receivers: Vec<EndpointId>,
    /// The handoff under way: the cell it goes to and when it joins it.
    heading: Option<(usize, SimTime)>,
    transfers: Vec<Transfer>,
    stats: MobileStats,
}

/// The `handoff` trace.
#[derive(Debug, Default)]
struct HandoffColumns {
    time_s: Vec<f64>,
    mobile: Vec<u32>,
    from: Vec<u32>,
    to: Vec<u32>,
    outage_s: Vec<f64>,
}

/// The world's mobiles.
#[derive(Debug, Default)]
pub struct Mobility {
    pub mobiles: Vec<MobileHost>,
    /// Node → mobile index.
    by_node: Vec<Option<u32>>,
    /// Link → the mobile it attaches.
    by_link: Vec<Option<u32>>,
    trace: Option<HandoffColumns>,
    /// Transfers under way, over all mobiles (a fast test on the forwarding path).
    transfers_pending: usize,
}

impl Mobility {
    /// The mobile on `node`, if it is one.
    fn mobile_at(&self, node: NodeId) -> Option<usize> {
        self.by_node
            .get(node.index())
            .copied()
            .flatten()
            .map(|i| i as usize)
    }

    /// True if `node`'s agent is waiting for the state of a connection of `packet`'s
    /// mobile (the packet is then discarded).
    pub(super) fn in_transfer(&self, node: NodeId, packet: &Packet) -> Option<usize> {
        if self.transfers_pending == 0 {
            return None;
        }
        self.mobiles.iter().position(|m| {
            (packet.ip.dst == m.addr || packet.ip.src == m.addr)
                && m.transfers.iter().any(|t| t.to == node)
        })
    }

    /// The summaries, in order of `[[mobile]]` (then the preset's other mobiles).
    pub fn summaries(&self) -> Vec<MobileSummary> {
        self.mobiles
            .iter()
            .map(|m| MobileSummary {
                node: m.name.clone(),
                cells: m.cells.iter().map(|c| c.name.clone()).collect(),
                handoffs: m.stats.handoffs,
                outage_s: m.stats.outage.as_secs_f64(),
                handoff_drops: m.stats.handoff_drops,
                handoff_data_drops: m.stats.handoff_data_drops,
            })
            .collect()
    }

    /// The `handoff` trace, if it was asked for.
    pub fn take_trace_table(&mut self) -> Option<TraceTable> {
        let c = self.trace.take()?;
        Some(TraceTable::new(
            "handoff",
            &[
                ("time_s", Column::F64(c.time_s)),
                ("mobile", Column::U32(c.mobile)),
                ("from", Column::U32(c.from)),
                ("to", Column::U32(c.to)),
                ("outage_s", Column::F64(c.outage_s)),
            ],
        ))
    }
}

/// Places the scenario's mobiles in `world` (after its links, cells, agents and flows) and
/// puts each in its start cell.
pub(super) fn add_mobiles(
    world: &mut World,
    resolved: &[ResolvedMobile],
    seed: u64,
    trace: bool,
) -> Result<(), SimError> {
    world.mobility.trace = trace.then(HandoffColumns::default);
    world.mobility.by_node = vec![None; world.nodes.len()];
    world.mobility.by_link = vec![None; world.links.len()];
    for r in resolved {
        let index = world.mobility.mobiles.len() as u32;
        let host = host(world, r, index, seed)?;
        world.mobility.by_node[r.node] = Some(index);
        for c in &host.cells {
            if let HookHop::Link(l, _) = c.hop {
                world.mobility.by_link[l.index()] = Some(index);
            }
        }
        world.mobility.mobiles.push(host);
    }
    for i in 0..world.mobility.mobiles.len() {
        world.start_mobile(i)?;
    }
    Ok(())
}

/// A mobile as the world keeps it, its movement set up (not started).
fn host(
    world: &mut World,
    r: &ResolvedMobile,
    index: u32,
    seed: u64,
) -> Result<MobileHost, SimError> {
    let node = NodeId(r.node as u32);
    let cells: Vec<CellHook> = r
        .cells
        .iter()
        .map(|a| {
            let bs = NodeId(a.base_station as u32);
            let hop = match a.hop {
                AttachHop::Link(l) => {
                    let link = LinkId(l as u32);
                    let forward = world.links[l].dirs[0].from == bs;
                    HookHop::Link(
                        link,
                        if forward {
                            Direction::Forward
                        } else {
                            Direction::Reverse
                        },
                    )
                }
                AttachHop::Cell(c) => HookHop::Cell(CellId(c as u32)),
            };
            CellHook {
                name: a.name.clone(),
                base_station: bs,
                hop,
            }
        })
        .collect();
    let gateway = NodeId(r.gateway as u32);
    let flows_of = |f: &super::flow::Flow| {
        let (s, d) = (
            world.endpoints[f.source.index()].node,
            world.endpoints[f.sink.index()].node,
        );
        (s == node).then_some(d).or((d == node).then_some(s))
    };
    let mut peers: Vec<NodeId> = world.flows.iter().filter_map(flows_of).collect();
    peers.sort_unstable();
    peers.dedup();
    let receivers = (0..world.endpoints.len())
        .map(|i| EndpointId(i as u32))
        .filter(|e| {
            let ep = &world.endpoints[e.index()];
            ep.node == node && !ep.is_source
        })
        .collect();
    let route_update_delay = cells
        .iter()
        .map(|c| match r.spec.route_update_delay {
            Some(d) => d.sim(),
            None => world.path_delay(c.base_station, gateway),
        })
        .collect();
    let warning = match &r.spec.tcp {
        HandoffTcp::Freeze { warning, .. } => Some(match warning {
            Some(w) => w.sim(),
            None => world.base_rtt(node, &peers),
        }),
        _ => None,
    };
    let cfg = MoverConfig {
        cells: cells.len(),
        start: r.start,
        dwell: match &r.spec.residence {
            Residence::None => Dwell::Forever,
            Residence::Exponential { mean } => Dwell::Exponential(mean.sim()),
            Residence::Schedule { at } => {
                Dwell::Schedule(at.iter().map(|d| SimTime::ZERO + d.sim()).collect())
            }
        },
        next: r.spec.next,
        handoff_delay: r.spec.handoff_delay.sim(),
        route_update_delay,
        overlap: r.spec.overlap.sim(),
        warning,
    };
    let name = world.nodes[node.index()].name.clone();
    let rng = RngStream::derive(seed, &format!("mobility/{name}"));
    Ok(MobileHost {
        addr: world.nodes[node.index()].addr,
        name,
        node,
        gateway,
        cells,
        mover: Mover::new(cfg, rng),
        timer: world.timers.add(TimerOwner::Mobile(index)),
        tcp: r.spec.tcp.clone(),
        peers,
        receivers,
        heading: None,
        transfers: Vec::new(),
        stats: MobileStats::default(),
    })
}

impl World {
    /// The mobile starts in its start cell, out of every other (before the first event).
    fn start_mobile(&mut self, i: usize) -> Result<(), SimError> {
        let m = &mut self.mobility.mobiles[i];
        let mut moves = Vec::new();
        m.mover.start(SimTime::ZERO, &mut moves);
        let start = m.mover.current();
        for c in 0..m.cells.len() {
            if Some(c) != start {
                self.detach(i, c, SimTime::ZERO);
            }
        }
        self.apply_moves(SimTime::ZERO, i, moves)?;
        self.arm_mobile(SimTime::ZERO, i)
    }

    fn arm_mobile(&mut self, now: SimTime, i: usize) -> Result<(), SimError> {
        let m = &self.mobility.mobiles[i];
        let transfer = m.transfers.iter().map(|t| t.at).min();
        let deadline = [m.mover.poll_timeout(), transfer]
            .into_iter()
            .flatten()
            .min();
        self.arm(now, m.timer, deadline)
    }

    /// The mobile's timer: movement due, then transfers due.
    pub(super) fn on_mobile_timer(&mut self, now: SimTime, i: usize) -> Result<(), SimError> {
        let mut moves = Vec::new();
        self.mobility.mobiles[i].mover.handle(now, &mut moves);
        self.apply_moves(now, i, moves)?;
        self.deliver_transfers(now, i)?;
        self.arm_mobile(now, i)
    }

    fn apply_moves(&mut self, now: SimTime, i: usize, moves: Vec<Move>) -> Result<(), SimError> {
        for mv in moves {
            match mv {
                Move::Warn { .. } => self.mobile_tcp(now, i, false)?,
                Move::Handoff { from, to, outage } => self.on_handoff(now, i, from, to, outage)?,
                Move::Leave { cell } => self.on_leave(now, i, cell)?,
                Move::Join { cell } => self.on_join(now, i, cell)?,
                Move::RouteUpdate { cell } => self.on_route_update(now, i, cell)?,
            }
        }
        Ok(())
    }

    fn on_handoff(
        &mut self,
        now: SimTime,
        i: usize,
        from: usize,
        to: usize,
        outage: SimDuration,
    ) -> Result<(), SimError> {
        let m = &mut self.mobility.mobiles[i];
        m.stats.handoffs += 1;
        m.stats.outage += outage;
        m.heading = Some((to, now + outage));
        let mobile = m.addr;
        if let Some(t) = self.mobility.trace.as_mut() {
            t.time_s.push(now.as_secs_f64());
            t.mobile.push(i as u32);
            t.from.push(from as u32);
            t.to.push(to as u32);
            t.outage_s.push(outage.as_secs_f64());
        }
        self.notify_all(now, MobilityNotice::HandoffStarted { mobile })
    }

    fn on_leave(&mut self, now: SimTime, i: usize, cell: usize) -> Result<(), SimError> {
        self.detach(i, cell, now);
        let m = &mut self.mobility.mobiles[i];
        let (bs, mobile) = (m.cells[cell].base_station, m.addr);
        let (target, join_at) = m
            .heading
            .unwrap_or((m.mover.current().unwrap_or(cell), now));
        let to = m.cells[target].base_station;
        // State still on its way to the base station left follows the mobile on.
        for t in m.transfers.iter_mut().filter(|t| t.to == bs) {
            t.at = t.at.max(join_at) + t.latency;
            t.to = to;
        }
        let Some(agent) = self.agents.at(bs) else {
            return Ok(());
        };
        let notice = AgentInput::Mobility(MobilityNotice::Left { mobile });
        if let Some((handover, latency)) = self.agent_input(now, agent, notice)? {
            self.mobility.mobiles[i].transfers.push(Transfer {
                at: join_at.max(now) + latency,
                to,
                latency,
                handover,
            });
            self.mobility.transfers_pending += 1;
        }
        Ok(())
    }

    /// Cuts hop `cell` off the mobile: the link goes down (its queues discarded) or the
    /// node leaves the cell.
    fn detach(&mut self, i: usize, cell: usize, now: SimTime) {
        let (node, hop) = {
            let m = &self.mobility.mobiles[i];
            (m.node, m.cells[cell].hop)
        };
        match hop {
            HookHop::Link(l, _) => {
                let link = &mut self.links[l.index()];
                if !link.up {
                    return;
                }
                link.up = false;
                let mut dropped = Vec::new();
                for dir in &mut link.dirs {
                    dropped.extend(dir.clear_queue());
                }
                for slot in dropped {
                    let p = self.packets.remove(slot);
                    self.count_handoff_drop(i, &p);
                }
            }
            HookHop::Cell(c) => {
                let before = self.cells[c.index()].stats.to_absent_drops;
                self.cell_leave(c, node);
                let lost = self.cells[c.index()].stats.to_absent_drops - before;
                self.mobility.mobiles[i].stats.handoff_drops += lost;
            }
        }
        let _ = now;
    }

    fn on_join(&mut self, now: SimTime, i: usize, cell: usize) -> Result<(), SimError> {
        let (node, bs, hop, peers, started) = {
            let m = &mut self.mobility.mobiles[i];
            m.heading = None;
            let c = &m.cells[cell];
            (
                m.node,
                c.base_station,
                c.hop,
                m.peers.clone(),
                m.stats.handoffs > 0,
            )
        };
        let (down, up) = match hop {
            HookHop::Link(l, dir) => {
                self.links[l.index()].up = true;
                let back = match dir {
                    Direction::Forward => Direction::Reverse,
                    Direction::Reverse => Direction::Forward,
                };
                (Hop::Link { link: l, dir }, Hop::Link { link: l, dir: back })
            }
            HookHop::Cell(c) => {
                self.cell_join(c, node)?;
                (
                    Hop::Cell { cell: c, to: node },
                    Hop::Cell { cell: c, to: bs },
                )
            }
        };
        self.routes.set_next_hop(bs, node, Some(down));
        for d in peers {
            self.routes.set_next_hop(node, d, Some(up));
        }
        if started {
            self.mobile_tcp(now, i, true)?;
        }
        Ok(())
    }

    /// The gateway, and the nodes from it to the new base station, route to it.
    fn on_route_update(&mut self, now: SimTime, i: usize, cell: usize) -> Result<(), SimError> {
        let (node, gateway, bs, mobile) = {
            let m = &self.mobility.mobiles[i];
            (m.node, m.gateway, m.cells[cell].base_station, m.addr)
        };
        let mut v = gateway;
        for _ in 0..self.nodes.len() {
            if v == bs {
                break;
            }
            let Some(hop) = self.routes.next_hop(v, bs) else {
                break;
            };
            self.routes.set_next_hop(v, node, Some(hop));
            v = self.hop_target(v, hop);
        }
        self.notify_all(now, MobilityNotice::RouteUpdated { mobile })
    }

    /// The node at the other end of `hop` from `from`.
    fn hop_target(&self, from: NodeId, hop: Hop) -> NodeId {
        match hop {
            Hop::Link { link, dir } => {
                let to = self.links[link.index()].dirs[dir.index()].to;
                if to == from {
                    self.links[link.index()].dirs[dir.index()].from
                } else {
                    to
                }
            }
            Hop::Cell { to, .. } => to,
        }
    }

    /// The mobile-side setting: on a warning (`joined` false) Freeze-TCP freezes; when a
    /// handoff completes, duplicate ACKs or Freeze-TCP's copies of the last ACK.
    fn mobile_tcp(&mut self, now: SimTime, i: usize, joined: bool) -> Result<(), SimError> {
        let m = &self.mobility.mobiles[i];
        let (tcp, receivers) = (m.tcp.clone(), m.receivers.clone());
        for ep in receivers {
            match (&tcp, joined) {
                (HandoffTcp::FastRetransmit { dupacks }, true) => {
                    let n = *dupacks;
                    self.with_endpoint(now, ep, |c, now, out| {
                        if let AnyEndpoint::Tcp(c) = c {
                            c.send_acks(now, n, &mut out.tcp);
                        }
                    })?;
                }
                (HandoffTcp::Freeze { copies, .. }, true) => {
                    let n = *copies;
                    self.with_endpoint(now, ep, |c, now, out| {
                        if let AnyEndpoint::Tcp(c) = c {
                            c.unfreeze(now, n, &mut out.tcp);
                        }
                    })?;
                }
                (HandoffTcp::Freeze { .. }, false) => {
                    self.with_endpoint(now, ep, |c, now, out| {
                        if let AnyEndpoint::Tcp(c) = c {
                            c.freeze(now, &mut out.tcp);
                        }
                    })?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Hands due transfers to the agents of their base stations.
    fn deliver_transfers(&mut self, now: SimTime, i: usize) -> Result<(), SimError> {
        loop {
            let m = &mut self.mobility.mobiles[i];
            let Some(k) = m.transfers.iter().position(|t| t.at <= now) else {
                return Ok(());
            };
            let t = m.transfers.remove(k);
            self.mobility.transfers_pending -= 1;
            if let Some(agent) = self.agents.at(t.to) {
                self.agent_input(now, agent, AgentInput::Handover(t.handover))?;
            }
        }
    }

    /// Tells every agent.
    fn notify_all(&mut self, now: SimTime, notice: MobilityNotice) -> Result<(), SimError> {
        for a in 0..self.agents.hosts.len() {
            let agent = crate::ids::AgentId(a as u32);
            self.agent_input(now, agent, AgentInput::Mobility(notice))?;
        }
        Ok(())
    }

    /// A packet for or from mobile `i` lost to its handoff.
    pub(super) fn count_handoff_drop(&mut self, i: usize, p: &Packet) {
        let s = &mut self.mobility.mobiles[i].stats;
        s.handoff_drops += 1;
        if p.payload_len() > 0 {
            s.handoff_data_drops += 1;
        }
    }

    /// A packet that cannot go on because its hop no longer reaches its mobile (or the
    /// mobile its base station): counted against the mobile, or as unroutable.
    pub(super) fn on_unreachable(&mut self, from: NodeId, to: NodeId, p: &Packet) -> bool {
        let m = self
            .mobility
            .mobile_at(to)
            .or_else(|| self.mobility.mobile_at(from));
        match m {
            Some(i) => {
                self.count_handoff_drop(i, p);
                true
            }
            None => false,
        }
    }

    /// The mobile a down link `link` attaches.
    pub(super) fn link_mobile(&self, link: LinkId) -> Option<usize> {
        self.mobility
            .by_link
            .get(link.index())
            .copied()
            .flatten()
            .map(|i| i as usize)
    }

    /// The one-way propagation delay from `from` to `to` along the routes.
    fn path_delay(&self, from: NodeId, to: NodeId) -> SimDuration {
        self.path(from, to)
            .into_iter()
            .map(|(_, hop)| self.hop_delay(hop, None))
            .fold(SimDuration::ZERO, |a, b| a + b)
    }

    /// One RTT without queueing between `node` and the farthest of `peers`: propagation,
    /// one full segment's serialization on the way out and one ACK's on the way back.
    fn base_rtt(&self, node: NodeId, peers: &[NodeId]) -> SimDuration {
        const SEGMENT_BYTES: u32 = 1500;
        const ACK_BYTES: u32 = 40;
        peers
            .iter()
            .map(|&p| {
                let out: SimDuration = self
                    .path(p, node)
                    .into_iter()
                    .map(|(_, h)| self.hop_delay(h, Some(SEGMENT_BYTES)))
                    .fold(SimDuration::ZERO, |a, b| a + b);
                let back = self
                    .path(node, p)
                    .into_iter()
                    .map(|(_, h)| self.hop_delay(h, Some(ACK_BYTES)))
                    .fold(SimDuration::ZERO, |a, b| a + b);
                out + back
            })
            .max()
            .unwrap_or_default()
    }

    /// The hops from `from` to `to` along the current routes (at most one per node).
    fn path(&self, from: NodeId, to: NodeId) -> Vec<(NodeId, Hop)> {
        let mut hops = Vec::new();
        let mut v = from;
        while v != to && hops.len() < self.nodes.len() {
            let Some(hop) = self.routes.next_hop(v, to) else {
                break;
            };
            hops.push((v, hop));
            v = self.hop_target(v, hop);
        }
        hops
    }

    /// A hop's propagation delay, plus the serialization of `bytes` if given.
    fn hop_delay(&self, hop: Hop, bytes: Option<u32>) -> SimDuration {
        match hop {
            Hop::Link { link, dir } => {
                let c = &self.links[link.index()].dirs[dir.index()];
                c.delay + bytes.map_or(SimDuration::ZERO, |b| c.tx_time(b))
            }
            Hop::Cell { cell, .. } => self.cells[cell.index()].one_hop_time(bytes),
        }
    }
}
