//! The world and its event loop: packets move from endpoints through routing onto link
//! channels, across them (or into the channel's error model) and up into the next node,
//! which delivers them to a TCP endpoint or forwards them. Protocols are driven only
//! through their public state-machine interface; the world applies their outboxes.

use std::collections::VecDeque;

use crate::engine::prefetch::prefetch_element;
use crate::engine::FxHashMap;

use crate::engine::{EventQueue, Lane, SimTime, TimerAction, TimerFire, TimerId, TimerTable};
use crate::ids::{AgentId, Direction, EndpointId, FlowId, LinkId, NodeId, StationId};
use crate::net::{CellId, Channel, Hop, Offer, RoutingTable};
use crate::packet::{
    Ecn, Ipv4Addr, Ipv4Header, Packet, PacketId, Service, Transport, DEFAULT_TTL, PROTO_TCP,
};
use crate::tcp::TcpOutbox;
use crate::transport::{AnyEndpoint, EndpointOutbox, OutPacket};
use crate::wireless::medium::TxId;

use super::agent_hook::AgentHooks;
use super::capture::Captures;
use super::cell::Cell;
use super::flow::Flow;
use super::mobility::Mobility;
use super::observe::{DataAccounting, Traces};
use super::{Control, Progress, RunObserver, SimError, PROGRESS_EVERY};
use crate::agents::LocalDir;
use crate::wireless::signals::MacSignal;

/// An index into the packet arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PacketSlot(u32);

/// Packets in flight live here; events refer to them by slot, so events stay small.
#[derive(Debug, Default)]
pub struct PacketArena {
    packets: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketArena {
    pub fn insert(&mut self, p: Packet) -> PacketSlot {
        match self.free.pop() {
            Some(i) => {
                self.packets[i as usize] = p;
                PacketSlot(i)
            }
            None => {
                self.packets.push(p);
                PacketSlot(self.packets.len() as u32 - 1)
            }
        }
    }
    /// `insert` of the packet `build` makes, written in its slot (inlined, the packet is
    /// built where it is stored rather than copied there).
    #[inline(always)]
    pub fn insert_with(&mut self, build: impl FnOnce() -> Packet) -> PacketSlot {
        match self.free.pop() {
            Some(i) => {
                self.packets[i as usize] = build();
                PacketSlot(i)
            }
            None => {
                self.packets.push(build());
                PacketSlot(self.packets.len() as u32 - 1)
            }
        }
    }
    pub fn get(&self, s: PacketSlot) -> &Packet {
        &self.packets[s.0 as usize]
    }
    pub fn get_mut(&mut self, s: PacketSlot) -> &mut Packet {
        &mut self.packets[s.0 as usize]
    }
    pub fn remove(&mut self, s: PacketSlot) -> Packet {
        self.free.push(s.0);
        self.packets[s.0 as usize]
    }
    /// Asks the CPU to bring `s`'s packet into its caches: the packet propagating next on
    /// a link is read when it arrives, and the one queued next when it starts, a few events
    /// later (`engine::prefetch`).
    #[inline(always)]
    pub fn prefetch(&self, s: PacketSlot) {
        prefetch_element::<_, 2>(&self.packets, s.0 as usize);
    }
    /// Frees `s` without handing its packet back (it was read in place).
    pub fn release(&mut self, s: PacketSlot) {
        self.free.push(s.0);
    }
}

/// The endpoint of `flow` on `to`, where one of its packets arrives next: the one its
/// delivery will read, if `to` is where it is going. Read from `flow_ends` (a few bytes per
/// flow) while the packet is in the cache, so that the arrival before it can ask for the
/// endpoint ahead (`World::on_propagated`); `NO_ENDPOINT` if the packet has none on `to`.
#[inline(always)]
fn arrival_endpoint(
    flow_ends: &[[(NodeId, EndpointId); 2]],
    flow: FlowId,
    to: NodeId,
) -> EndpointId {
    match flow_ends.get(flow.index()) {
        Some(&[(source_node, source), _]) if source_node == to => source,
        Some(&[_, (sink_node, sink)]) if sink_node == to => sink,
        _ => NO_ENDPOINT,
    }
}

/// Asks ahead (`World::prefetch_endpoints`) for what the arrival of a packet for endpoint
/// `e` will read cold: the endpoint, and the record of its flow, which the delivery's
/// accounting writes (`Flow::on_delivery`, every segment delivered in order) and the
/// source's reads. A flow's endpoints are numbered two by two in the flows' order
/// (`build`), so the flow is `e / 2` (a hint: a wrong guess would only cost a line). Out
/// of line, so that runs that never ask keep the arrival's code small.
#[cold]
#[inline(never)]
fn prefetch_arrival(endpoints: &[Endpoint], flows: &[Flow], e: EndpointId) {
    prefetch_element::<_, ENDPOINT_PREFETCH_LINES>(endpoints, e.index());
    prefetch_element::<_, FLOW_PREFETCH_LINES>(flows, e.index() / 2);
}

/// `Propagating::endpoint` of a packet no endpoint is asked for ahead for (an id no run
/// reaches: endpoints are numbered from 0, two per flow).
const NO_ENDPOINT: EndpointId = EndpointId(u32::MAX);

/// The IP packet carrying segment `s` of `flow` from `src` to `remote`, packet id `id`,
/// with its length yet to be fixed (`Packet::fix_length`; in the arena, so that the packet
/// is never copied from a temporary).
#[inline(always)]
fn tcp_packet(
    id: u64,
    src: Ipv4Addr,
    remote: Ipv4Addr,
    flow: FlowId,
    s: &crate::tcp::OutSegment,
) -> Packet {
    Packet {
        id: PacketId(id),
        origin_time: s.origin_time,
        ip: Ipv4Header {
            src,
            dst: remote,
            protocol: PROTO_TCP,
            ttl: DEFAULT_TTL,
            total_len: 0,
            ident: id as u16,
            ecn: if s.ect { Ecn::Ect0 } else { Ecn::NotEct },
        },
        transport: Transport::Tcp(s.segment),
        flow,
        service: if s.segment.payload_len > 0 {
            Service::Reliable
        } else {
            Service::Unreliable
        },
    }
}

/// The events of the world: small (16 bytes), copyable, no boxed closures.
#[derive(Copy, Clone, Debug)]
pub enum Event {
    /// The frame on a channel finished serializing.
    TxDone { link: LinkId, dir: Direction },
    /// A packet reached a node.
    Arrive { node: NodeId, slot: PacketSlot },
    /// The first packet propagating on a link direction reached its far end
    /// (`Link::propagating`; the next is queued in the place it took when it was sent).
    Propagated { link: LinkId, dir: Direction },
    /// A timer of `World::timers` (generation-checked): every endpoint's, application's,
    /// agent's, MAC's and link layer's.
    Timer { timer: TimerId, generation: u32 },
    /// A transmission starts arriving at a cell station (carrier sense).
    CellRxStart { cell: CellId, station: StationId },
    /// A transmission has finished arriving at a cell station.
    CellRxEnd {
        cell: CellId,
        station: StationId,
        tx: TxId,
    },
}

/// Whom a timer of `World::timers` wakes. Ids are stable: an owner that goes away is
/// retired in the table, and its pending events find nothing to wake.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimerOwner {
    Endpoint(EndpointId),
    /// A flow's application (its first wake-up is the flow's start).
    App(FlowId),
    Agent(AgentId),
    /// A cell station's MAC.
    Mac {
        cell: CellId,
        station: StationId,
    },
    /// A cell station's link layer towards one peer (`link` indexes the station's links).
    Link {
        cell: CellId,
        station: StationId,
        link: u32,
    },
    /// A mobile's movement and its state transfers (`sim::mobility`).
    Mobile(u32),
}

impl TimerOwner {
    /// The queue's heap its events wait in: connections' and applications' timers — one
    /// or two per flow, mostly moved on before they fire — apart from the hot events
    /// (`engine::queue` module notes).
    pub fn lane(self) -> Lane {
        match self {
            TimerOwner::Endpoint(_) | TimerOwner::App(_) => Lane::Timers,
            TimerOwner::Agent(_)
            | TimerOwner::Mac { .. }
            | TimerOwner::Link { .. }
            | TimerOwner::Mobile(_) => Lane::Main,
        }
    }
}

/// A host or router.
#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub addr: Ipv4Addr,
    /// (local port, remote address, remote port) → endpoint.
    pub demux: FxHashMap<(u16, Ipv4Addr, u16), EndpointId>,
}

/// A full-duplex link: two channels and the data accounting of the first (`from` → `to`).
#[derive(Debug)]
pub struct Link {
    pub name: String,
    pub wireless: bool,
    pub dirs: [Channel<PacketSlot>; 2],
    /// The `from` → `to` direction's data accounting, kept only when `accounted` (the link
    /// the summary's `wireless` reports).
    pub accounting: DataAccounting,
    pub accounted: bool,
    /// Per direction, the packets propagating, in order: only the first has an event
    /// pending (`EventQueue` module notes), so a long fat pipe costs the queue one entry,
    /// not one per packet in flight.
    pub propagating: [VecDeque<Propagating>; 2],
    /// The radios at its two ends, for a wireless link (`sim::energy`).
    pub radios: Option<super::energy::LinkRadios>,
    /// False while the mobile it attaches is out of its reach (`sim::mobility`): what is
    /// offered to it is lost to the handoff.
    pub up: bool,
    /// Frames that end without an event (`sim::quiet_end`).
    pub quiet: super::quiet_end::QuietEnds,
}

/// How many cache lines of an endpoint (about 1.5 KB, of which a segment's handling
/// reads a scattered part) its next packet's arrival asks for ahead
/// (`World::on_propagated`).
const ENDPOINT_PREFETCH_LINES: usize = 25;

/// How many cache lines of a flow's record (`Flow`, 280 bytes: all of it) are asked for
/// with its endpoint (`prefetch_arrival`).
const FLOW_PREFETCH_LINES: usize = 5;

/// The endpoints' total size from which a run asks for them ahead
/// (`World::prefetch_endpoints`): about a core's L2 cache.
pub(super) const ENDPOINT_PREFETCH_BYTES: usize = 1 << 20;

/// A packet on its way along a link direction (`Link::propagating`).
#[derive(Copy, Clone, Debug)]
pub struct Propagating {
    /// When it reaches the far end, and its place in the event order at that time.
    pub at: SimTime,
    pub seq: u64,
    pub slot: PacketSlot,
    /// The endpoint it is for at the far end (`arrival_endpoint`), asked for ahead with the
    /// packet; `NO_ENDPOINT` if it has none there or the run does not ask.
    pub endpoint: EndpointId,
}

/// One side of a flow's connection (TCP, or the mobile's WTP or WTCP-Sinha), placed on a
/// node.
#[derive(Debug)]
pub struct Endpoint {
    pub conn: AnyEndpoint,
    pub node: NodeId,
    pub remote: Ipv4Addr,
    /// Its key in its node's demultiplexing map (`Node::demux`): (local port, remote
    /// address, remote port). Each key is unique on its node and the map is fixed once
    /// built.
    pub demux_key: (u16, Ipv4Addr, u16),
    pub flow: FlowId,
    pub is_source: bool,
    /// The endpoint has sent a data segment.
    pub sent_data: bool,
    pub timer: TimerId,
}

/// Why a run ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    Completed,
    StopTime,
    /// The observer asked to stop (Ctrl-C): the summary covers the run so far.
    Interrupted,
    /// The run used up its `Budget`: the summary covers the run so far.
    Budget,
}

/// The most a run may cost before it is stopped as `StopReason::Budget`: events (exact),
/// and wall-clock time (checked every `PROGRESS_EVERY` events, like the observer).
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    pub max_events: Option<u64>,
    pub deadline: Option<std::time::Instant>,
}

/// The whole simulated world.
pub struct World {
    pub queue: EventQueue<Event>,
    /// Every timer, with its owner: one event kind and one code path (`arm`, `on_timer`).
    pub timers: TimerTable<TimerOwner>,
    pub packets: PacketArena,
    pub nodes: Vec<Node>,
    pub links: Vec<Link>,
    /// Wireless cells (shared half-duplex channels).
    pub cells: Vec<Cell>,
    pub routes: RoutingTable,
    pub endpoints: Vec<Endpoint>,
    /// Per flow, its two endpoints and their nodes (source first): a few bytes per flow,
    /// read per packet sent (`arrival_endpoint`) where the endpoints are not.
    pub flow_ends: Vec<[(NodeId, EndpointId); 2]>,
    /// The endpoints are too many to stay in the caches between a flow's packets
    /// (`ENDPOINT_PREFETCH_BYTES`): each packet's arrival asks for the next one's endpoint
    /// ahead. With few, the endpoints stay cached and asking would only cost.
    pub prefetch_endpoints: bool,
    pub flows: Vec<Flow>,
    /// The flows' groups, in order of first appearance (`scenario::expand_flows`).
    pub groups: Vec<crate::scenario::FlowGroup>,
    pub traces: Traces,
    pub stop_time: SimTime,
    pub no_route_drops: u64,
    pub ttl_drops: u64,
    /// The endpoints' outbox, reused call after call; boxed so that lending it out for a
    /// call moves a pointer, not the outbox (`take_outbox`).
    outbox: Option<Box<EndpointOutbox>>,
    pub(super) app_outbox: crate::apps::AppOutbox,
    pub(super) next_packet_id: u64,
    /// Flows done among those the run waits for (`Flow::ends_run`), and their number.
    pub(super) flows_done: usize,
    pub(super) flows_to_finish: usize,
    /// Opt-in pcap capture of chosen links.
    pub captures: Option<Captures>,
    /// Base-station agents on the forwarding path (see `agent_hook.rs`).
    pub agents: AgentHooks,
    /// Mobile hosts and their handoffs (see `mobility.rs`).
    pub mobility: Mobility,
    /// The power profile the summary's `energy` section uses.
    pub energy: super::energy::EnergySettings,
    /// When to give up (none by default).
    pub budget: Budget,
    /// Ports to real hosts (`sim::external`); `None` in a simulation.
    pub(super) external: Option<Box<super::external::External>>,
}

impl World {
    pub(super) fn new(stop_time: SimTime, traces: Traces) -> Self {
        World {
            queue: EventQueue::new(),
            timers: TimerTable::default(),
            packets: PacketArena::default(),
            nodes: Vec::new(),
            links: Vec::new(),
            cells: Vec::new(),
            routes: RoutingTable::default(),
            endpoints: Vec::new(),
            flow_ends: Vec::new(),
            prefetch_endpoints: false,
            flows: Vec::new(),
            groups: Vec::new(),
            traces,
            stop_time,
            no_route_drops: 0,
            ttl_drops: 0,
            outbox: Some(Box::default()),
            app_outbox: Default::default(),
            next_packet_id: 0,
            flows_done: 0,
            flows_to_finish: 0,
            captures: None,
            agents: AgentHooks::default(),
            mobility: Mobility::default(),
            energy: Default::default(),
            budget: Budget::default(),
            external: None,
        }
    }

    /// Runs until every flow but background traffic is done or the next event lies beyond
    /// `stop_time`, telling `observer` where the run stands every `PROGRESS_EVERY` events;
    /// it may stop the run.
    pub fn run(&mut self, observer: &mut dyn RunObserver) -> Result<StopReason, SimError> {
        if self.flows.is_empty() {
            return Ok(StopReason::Completed);
        }
        self.allow_quiet_ends();
        let reason = self.run_events(observer)?;
        // Frames' ends without an event that the run went past are counted.
        let boundary = match reason {
            StopReason::StopTime => EventQueue::<Event>::place(self.stop_time, u64::MAX),
            _ => self.queue.current(),
        };
        self.settle_passed(boundary);
        Ok(reason)
    }

    /// `run`'s loop of `run_until` calls, the observer between them.
    fn run_events(&mut self, observer: &mut dyn RunObserver) -> Result<StopReason, SimError> {
        let max_events = self.budget.max_events.unwrap_or(u64::MAX);
        loop {
            let limit = (self.queue.events_processed() + PROGRESS_EVERY).min(max_events);
            if let Some(reason) = self.run_until(limit)? {
                return Ok(reason);
            }
            let out_of_time = self
                .budget
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d);
            if self.queue.events_processed() >= max_events || out_of_time {
                return Ok(StopReason::Budget);
            }
            let progress = Progress {
                events: self.queue.events_processed(),
                sim_time: self.queue.now(),
                stop_time: self.stop_time,
            };
            if observer.on_progress(&progress) == Control::Stop {
                return Ok(StopReason::Interrupted);
            }
        }
    }

    /// The event loop proper, until the run ends (`Some`) or `limit` events have been
    /// processed in all (`None`). One comparison per event is all the observer costs.
    pub(super) fn run_until(&mut self, limit: u64) -> Result<Option<StopReason>, SimError> {
        while let Some((now, event)) = self.queue.pop_until(self.stop_time) {
            self.dispatch(now, event)?;
            if self.flows_done == self.flows_to_finish {
                return Ok(Some(StopReason::Completed));
            }
            if self.queue.events_processed() == limit {
                return Ok(None);
            }
        }
        Ok(Some(StopReason::StopTime))
    }

    pub(super) fn dispatch(&mut self, now: SimTime, event: Event) -> Result<(), SimError> {
        match event {
            Event::TxDone { link, dir } => self.on_tx_done(now, link, dir),
            Event::Arrive { node, slot } => self.on_arrive(now, node, slot, NO_ENDPOINT),
            Event::Propagated { link, dir } => self.on_propagated(now, link, dir),
            Event::Timer { timer, generation } => self.on_timer(now, timer, generation),
            Event::CellRxStart { cell, station } => self.on_cell_rx_start(now, cell, station),
            Event::CellRxEnd { cell, station, tx } => self.on_cell_rx_end(now, cell, station, tx),
        }?;
        // An arrival queued early whose place an event at its time took (`sim::quiet_end`).
        if self.queue.has_moves() {
            self.move_watched_arrivals();
        }
        Ok(())
    }

    pub(super) fn schedule(&mut self, at: SimTime, event: Event) -> Result<(), SimError> {
        Ok(self.queue.schedule(at, event)?)
    }

    // ----- timers: the one path ----------------------------------------------------------

    /// Sets timer `id` to `deadline` (its owner's `poll_timeout()`), scheduling an event
    /// only when the deadline moved earlier than the one pending (`engine::timer`).
    #[inline]
    pub(super) fn arm(
        &mut self,
        now: SimTime,
        id: TimerId,
        deadline: Option<SimTime>,
    ) -> Result<(), SimError> {
        self.arm_in(Lane::Main, now, id, deadline)
    }

    /// `arm` for a timer whose events wait in `lane` (`TimerOwner::lane`).
    #[inline]
    pub(super) fn arm_in(
        &mut self,
        lane: Lane,
        now: SimTime,
        id: TimerId,
        deadline: Option<SimTime>,
    ) -> Result<(), SimError> {
        match self.timers.set(id, deadline) {
            TimerAction::Schedule { at, generation } => Ok(self.queue.schedule_in(
                lane,
                at.max(now),
                Event::Timer {
                    timer: id,
                    generation,
                },
            )?),
            TimerAction::None => Ok(()),
        }
    }

    /// A timer event popped: ignore it (stale or cancelled), re-arm it (the deadline moved
    /// later), or hand the expiry to its owner.
    fn on_timer(&mut self, now: SimTime, id: TimerId, generation: u32) -> Result<(), SimError> {
        match self.timers.fire(id, now, generation) {
            (TimerFire::Ignore, _) | (TimerFire::Expired, None) => Ok(()),
            (TimerFire::Rearm { at, generation }, owner) => Ok(self.queue.schedule_in(
                owner.map_or(Lane::Main, TimerOwner::lane),
                at,
                Event::Timer {
                    timer: id,
                    generation,
                },
            )?),
            (TimerFire::Expired, Some(owner)) => self.on_timer_expired(now, owner),
        }
    }

    fn on_timer_expired(&mut self, now: SimTime, owner: TimerOwner) -> Result<(), SimError> {
        match owner {
            TimerOwner::Endpoint(ep) => {
                self.with_endpoint(now, ep, |conn, now, out| conn.on_timeout(now, out))
            }
            TimerOwner::App(flow) => self.app_call(now, flow, crate::apps::AppInput::Timer),
            TimerOwner::Agent(agent) => self.on_agent_timer(now, agent),
            TimerOwner::Mac { cell, station } => self.on_cell_mac_timer(now, cell, station),
            TimerOwner::Link {
                cell,
                station,
                link,
            } => self.on_cell_link_timer(now, cell, station, link as usize),
            TimerOwner::Mobile(i) => self.on_mobile_timer(now, i as usize),
        }
    }

    // ----- links -------------------------------------------------------------------------

    fn node_of(&self, addr: Ipv4Addr) -> Option<NodeId> {
        let index = addr.0.checked_sub(Ipv4Addr::for_node(0).0)? as usize;
        (index < self.nodes.len()).then_some(NodeId(index as u32))
    }

    /// Sends the packet in `slot` from `node` towards its destination.
    pub(super) fn route_from(
        &mut self,
        now: SimTime,
        node: NodeId,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        let dst = self.packets.get(slot).ip.dst;
        let hop = self
            .node_of(dst)
            .and_then(|d| self.routes.next_hop(node, d));
        match hop {
            Some(hop) => self.transmit(now, node, hop, slot),
            None => {
                self.no_route_drops += 1;
                self.packets.remove(slot);
                Ok(())
            }
        }
    }

    /// Hands the packet in `slot` from `node` to its next hop: a link's channel, or a cell.
    fn transmit(
        &mut self,
        now: SimTime,
        node: NodeId,
        hop: Hop,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        let (link, dir) = match hop {
            Hop::Link { link, dir } => (link, dir),
            Hop::Cell { cell, to } => return self.cell_send(now, cell, node, to, slot),
        };
        if !self.links[link.index()].up {
            let p = self.packets.remove(slot);
            if let Some(i) = self.link_mobile(link) {
                self.count_handoff_drop(i, &p);
            }
            return Ok(());
        }
        self.settle_if_passed(link, dir);
        let packet = self.packets.get(slot);
        let (size, ect) = (packet.size_bytes(), packet.ip.ecn.is_ecn_capable());
        let channel = &mut self.links[link.index()].dirs[dir.index()];
        match channel.offer(now, slot, size, ect) {
            Offer::Started { tx_end, ce } => {
                if ce {
                    self.packets.get_mut(slot).ip.ecn = Ecn::Ce;
                }
                self.frame_started(now, link, dir, slot, tx_end)
            }
            Offer::Queued { ce } => {
                if ce {
                    self.packets.get_mut(slot).ip.ecn = Ecn::Ce;
                }
                self.queue_quiet_end(link, dir)
            }
            Offer::Dropped(p) => {
                self.packets.remove(p);
                Ok(())
            }
        }
    }

    /// Like `route_from`, but the packet goes ahead of the data queued at `node`'s
    /// interface (`AgentOutbox::ahead`); dropped without a route or on a link that is down.
    pub(super) fn route_ahead_from(
        &mut self,
        now: SimTime,
        node: NodeId,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        let dst = self.packets.get(slot).ip.dst;
        let hop = self
            .node_of(dst)
            .and_then(|d| self.routes.next_hop(node, d));
        let (link, dir) = match hop {
            Some(Hop::Link { link, dir }) if self.links[link.index()].up => (link, dir),
            Some(Hop::Cell { cell, to }) => return self.cell_send_ahead(now, cell, node, to, slot),
            // No route, or a link that is down: counted as `route_from` counts them.
            Some(Hop::Link { .. }) | None => return self.route_from(now, node, slot),
        };
        self.settle_if_passed(link, dir);
        let size = self.packets.get(slot).size_bytes();
        let channel = &mut self.links[link.index()].dirs[dir.index()];
        let (offer, evicted) = channel.offer_ahead(now, slot, size);
        for p in evicted {
            self.packets.remove(p);
        }
        match offer {
            Offer::Started { tx_end, .. } => self.frame_started(now, link, dir, slot, tx_end),
            Offer::Queued { .. } => self.queue_quiet_end(link, dir),
            Offer::Dropped(_) => Ok(()),
        }
    }

    /// The frame in `slot` went on `link`'s direction `dir`, its last bit leaving at
    /// `tx_end`; its end is an event unless it needs none (`sim::quiet_end`).
    #[inline(always)]
    fn frame_started(
        &mut self,
        now: SimTime,
        link: LinkId,
        dir: Direction,
        slot: PacketSlot,
        tx_end: SimTime,
    ) -> Result<(), SimError> {
        self.links[link.index()].on_radio_tx(dir, now, tx_end);
        if self.captures.is_some() {
            self.capture_frame(link, dir, now, slot)?;
        }
        if self.may_end_quietly(link, dir) {
            self.start_quiet(link, dir, slot, tx_end)?;
        } else {
            self.schedule(tx_end, Event::TxDone { link, dir })?;
        }
        if self.agents.follows_departures() {
            self.on_departure(now, link, dir, slot, MacSignal::Trans)?;
        }
        Ok(())
    }

    /// The capture's record of the frame starting (only called with a capture open: a run
    /// without one pays a test per frame, not a call).
    #[cold]
    #[inline(never)]
    fn capture_frame(
        &mut self,
        link: LinkId,
        dir: Direction,
        now: SimTime,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        if let Some(captures) = self.captures.as_mut() {
            captures.link_started(link, dir, now, self.packets.get(slot))?;
        }
        Ok(())
    }

    fn on_tx_done(&mut self, now: SimTime, link: LinkId, dir: Direction) -> Result<(), SimError> {
        if self.take_quiet_end(link, dir) {
            // Judged and on its way since it started: a packet queued behind it.
            return self.start_next(now, link, dir);
        }
        let l = &mut self.links[link.index()];
        let channel = &mut l.dirs[dir.index()];
        let slot = channel
            .on_wire()
            .expect("TxDone without a frame on the wire");
        let packet = self.packets.get(slot);
        let (_, lost) = channel.finish(now, packet.payload_len());
        if !l.up {
            // The mobile went out of reach while the frame was on the air.
            let p = self.packets.remove(slot);
            if let Some(i) = self.link_mobile(link) {
                self.count_handoff_drop(i, &p);
            }
            return Ok(());
        }
        let frame_bytes = u64::from(packet.size_bytes() + channel.overhead_bytes);
        let (to, delay) = (channel.to, channel.delay);
        let departed = self
            .agents
            .departures_at(channel.from)
            .map(|a| (a, *packet));
        if l.accounted && dir.index() == 0 {
            l.accounting.on_transmitted(packet, frame_bytes, lost);
        }
        if let Some(captures) = self.captures.as_mut() {
            let from = l.dirs[1 - dir.index()].to;
            captures.link_finished(link, dir, from, to, lost)?;
        }
        if l.wireless && self.traces.wireless_tx {
            self.traces.on_wireless_tx(now, link.0, packet, lost);
        }
        if lost {
            self.packets.remove(slot);
        } else {
            let at = now + delay;
            let seq = self.queue.reserve_seq(at);
            self.propagate(link, dir, at, seq, slot)?;
        }
        self.start_next(now, link, dir)?;
        match departed {
            Some((agent, packet)) => {
                self.on_agent_departed(now, agent, MacSignal::TxSuccess, &packet)
            }
            None => Ok(()),
        }
    }

    /// The transmitter of `link`'s direction `dir` is free: the next queued frame starts.
    #[inline]
    fn start_next(&mut self, now: SimTime, link: LinkId, dir: Direction) -> Result<(), SimError> {
        let d = &mut self.links[link.index()].dirs[dir.index()];
        if let Some(tx_end) = d.start_next(now) {
            let started = d.on_wire().expect("just started");
            // The packet behind it starts when it ends: a few events from now with
            // thousands of flows queued, long since written (`PacketArena::prefetch`).
            if let Some(&(behind, _)) = d.queue().front() {
                self.packets.prefetch(behind);
            }
            self.frame_started(now, link, dir, started, tx_end)?;
        }
        Ok(())
    }

    /// The first packet propagating on `link`'s direction `dir` arrives; the next one's
    /// event goes into the queue in its reserved place.
    fn on_propagated(
        &mut self,
        now: SimTime,
        link: LinkId,
        dir: Direction,
    ) -> Result<(), SimError> {
        let l = &mut self.links[link.index()];
        let fifo = &mut l.propagating[dir.index()];
        let arrived = fifo.pop_front().expect("Propagated without a packet");
        if let Some(&next) = fifo.front() {
            self.queue
                .schedule_reserved(next.at, next.seq, Event::Propagated { link, dir })?;
            self.packets.prefetch(next.slot);
            if next.endpoint != NO_ENDPOINT {
                prefetch_arrival(&self.endpoints, &self.flows, next.endpoint);
            }
        }
        let to = l.dirs[dir.index()].to;
        self.on_arrive(now, to, arrived.slot, arrived.endpoint)
    }

    /// Puts the packet in `slot` on its way along `link`'s direction `dir`, to arrive at
    /// `at` in the place `seq` reserved; it is the direction's next event if it is first.
    #[inline(always)]
    pub(super) fn propagate(
        &mut self,
        link: LinkId,
        dir: Direction,
        at: SimTime,
        seq: u64,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        let l = &mut self.links[link.index()];
        let d = dir.index();
        let endpoint = match self.prefetch_endpoints {
            true => arrival_endpoint(&self.flow_ends, self.packets.get(slot).flow, l.dirs[d].to),
            false => NO_ENDPOINT,
        };
        let fifo = &mut l.propagating[d];
        fifo.push_back(Propagating {
            at,
            seq,
            slot,
            endpoint,
        });
        if fifo.len() == 1 {
            self.queue
                .schedule_reserved(at, seq, Event::Propagated { link, dir })?;
        }
        Ok(())
    }

    /// A packet reaches `node`; `named` is the endpoint it was named ahead for
    /// (`Propagating::endpoint`, `NO_ENDPOINT` if none), which spares the delivery its
    /// demultiplexing when the packet's ports and source are that endpoint's.
    fn on_arrive(
        &mut self,
        now: SimTime,
        node: NodeId,
        slot: PacketSlot,
        named: EndpointId,
    ) -> Result<(), SimError> {
        if self.packets.get(slot).ip.dst != self.nodes[node.index()].addr {
            let p = self.packets.get_mut(slot);
            p.ip.ttl = p.ip.ttl.saturating_sub(1);
            if p.ip.ttl == 0 {
                self.ttl_drops += 1;
                self.packets.remove(slot);
                return Ok(());
            }
            if let Some(agent) = self.agents.at(node) {
                return self.on_agent_packet(now, agent, node, slot);
            }
            return self.route_from(now, node, slot);
        }
        if let Some(agent) = self.agents.local_at(node) {
            let mut packet = self.packets.remove(slot);
            if !self.on_agent_local(now, agent, LocalDir::Delivered, &mut packet)? {
                return Ok(());
            }
            return self.deliver_local(now, node, packet);
        }
        self.deliver_in_place(now, node, slot, named)
    }

    /// `deliver_local` for the packet in `slot`, read where it lies: a TCP segment goes to
    /// its endpoint without being copied out of the arena (a packet is ~140 bytes, and one
    /// arrives for nearly every other event).
    fn deliver_in_place(
        &mut self,
        now: SimTime,
        node: NodeId,
        slot: PacketSlot,
        named: EndpointId,
    ) -> Result<(), SimError> {
        // A port to a real host (or a UDP sink) takes the packet by value.
        let packet = self.packets.get(slot);
        if self.external.is_some() || matches!(packet.transport, Transport::Udp(_)) {
            let packet = self.packets.remove(slot);
            return self.deliver_local(now, node, packet);
        }
        let (src_port, dst_port) = packet.transport.ports();
        let key = (dst_port, packet.ip.src, src_port);
        // An endpoint on `node` whose key is the packet's is the one the node's map gives:
        // keys are unique on a node and the map never changes (`Endpoint::demux_key`). The
        // one named ahead is read from the endpoint, asked for ahead, where the map's
        // probe would read cold memory with thousands of flows.
        let endpoint = match self.endpoints.get(named.index()) {
            Some(e) if e.demux_key == key && e.node == node => named,
            _ => match self.nodes[node.index()].demux.get(&key) {
                Some(&endpoint) => endpoint,
                None => {
                    self.packets.release(slot);
                    return Ok(()); // No listener, as in `deliver_local`.
                }
            },
        };
        let mut out = self.take_outbox();
        self.endpoints[endpoint.index()]
            .conn
            .on_packet(now, self.packets.get(slot), &mut out);
        self.packets.release(slot);
        self.end_endpoint_call(now, endpoint, out)
    }

    /// Hands a packet addressed to `node` to its endpoint (or UDP sink).
    pub(super) fn deliver_local(
        &mut self,
        now: SimTime,
        node: NodeId,
        packet: Packet,
    ) -> Result<(), SimError> {
        if let Some(external) = self.external.as_deref_mut() {
            if let Some(port) = external.port_at(node) {
                external.depart(now, port, &packet);
                return Ok(());
            }
        }
        let n = &self.nodes[node.index()];
        if let Transport::Udp(_) = packet.transport {
            self.on_udp_datagram(now, &packet);
            return Ok(());
        }
        let (src_port, dst_port) = packet.transport.ports();
        let key = (dst_port, packet.ip.src, src_port);
        let Some(&endpoint) = n.demux.get(&key) else {
            return Ok(()); // No listener: a real host would answer RST; nothing here needs it.
        };
        self.with_endpoint(now, endpoint, |conn, now, out| {
            conn.on_packet(now, &packet, out)
        })
    }

    // ----- endpoints ---------------------------------------------------------------------

    /// Calls into an endpoint's state machine, then applies what it asked for; tells an
    /// application that wants them of the bytes delivered (`AppInput::Delivered`).
    pub(super) fn with_endpoint(
        &mut self,
        now: SimTime,
        ep: EndpointId,
        call: impl FnOnce(&mut AnyEndpoint, SimTime, &mut EndpointOutbox),
    ) -> Result<(), SimError> {
        let mut out = self.take_outbox();
        call(&mut self.endpoints[ep.index()].conn, now, &mut out);
        self.end_endpoint_call(now, ep, out)
    }

    /// The world's outbox, cleared, for one endpoint call (`end_endpoint_call` puts it back);
    /// a call made while another is being applied (an agent delivering on the spot) gets a
    /// new one.
    #[inline]
    fn take_outbox(&mut self) -> Box<EndpointOutbox> {
        let mut out = self.outbox.take().unwrap_or_default();
        out.clear();
        out
    }

    /// Applies what endpoint `ep` asked for in `out`, re-arms its timer, tells its
    /// application of deliveries, and keeps `out` for the next call.
    fn end_endpoint_call(
        &mut self,
        now: SimTime,
        ep: EndpointId,
        out: Box<EndpointOutbox>,
    ) -> Result<(), SimError> {
        let mut result = self.apply_outbox(now, ep, &out.tcp);
        if result.is_ok() && !out.other.packets.is_empty() {
            result = self.send_transport_packets(now, ep, &out.other.packets);
        }
        if result.is_ok() && !out.other.delivered.is_empty() {
            result = self.on_other_deliveries(now, ep, &out.other.delivered);
        }
        let flow = self.endpoints[ep.index()].flow;
        let any = !out.tcp.delivered.is_empty() || !out.other.delivered.is_empty();
        let delivered: u64 = if any && self.flows[flow.index()].app.wants_deliveries() {
            let tcp = out
                .tcp
                .delivered
                .iter()
                .map(|d| u64::from(d.len))
                .sum::<u64>();
            tcp + out
                .other
                .delivered
                .iter()
                .map(|d| u64::from(d.len))
                .sum::<u64>()
        } else {
            0
        };
        self.outbox = Some(out);
        result?;
        let endpoint = &self.endpoints[ep.index()];
        self.arm_in(
            Lane::Timers,
            now,
            endpoint.timer,
            endpoint.conn.poll_timeout(),
        )?;
        self.check_flow_done(ep);
        if delivered > 0 {
            let at = if self.endpoints[ep.index()].is_source {
                crate::apps::AppEnd::Source
            } else {
                crate::apps::AppEnd::Sink
            };
            let input = crate::apps::AppInput::Delivered {
                at,
                bytes: delivered,
            };
            self.app_call(now, flow, input)?;
        }
        Ok(())
    }

    /// The bytes a WTP or WTCP-Sinha endpoint delivered: the sink's count for the flow.
    fn on_other_deliveries(
        &mut self,
        now: SimTime,
        ep: EndpointId,
        delivered: &[crate::tcp::Delivery],
    ) -> Result<(), SimError> {
        let e = &self.endpoints[ep.index()];
        if e.is_source {
            return Ok(());
        }
        let flow = e.flow;
        for d in delivered {
            self.flows[flow.index()].on_delivery(now, d)?;
        }
        Ok(())
    }

    /// Routes the packets a WTP or WTCP-Sinha endpoint sent.
    fn send_transport_packets(
        &mut self,
        now: SimTime,
        ep: EndpointId,
        packets: &[OutPacket],
    ) -> Result<(), SimError> {
        let (node, remote, flow) = {
            let e = &self.endpoints[ep.index()];
            (e.node, e.remote, e.flow)
        };
        let src = self.nodes[node.index()].addr;
        for p in packets {
            let mut packet = crate::transport::build_packet(src, remote, *p, flow);
            packet.id = PacketId(self.next_packet_id);
            packet.ip.ident = self.next_packet_id as u16;
            self.next_packet_id += 1;
            let slot = self.packets.insert(packet);
            self.route_from(now, node, slot)?;
        }
        Ok(())
    }

    fn apply_outbox(
        &mut self,
        now: SimTime,
        ep: EndpointId,
        out: &TcpOutbox,
    ) -> Result<(), SimError> {
        let (node, remote, flow, is_source) = {
            let e = &self.endpoints[ep.index()];
            (e.node, e.remote, e.flow, e.is_source)
        };
        if self.traces.wants_tcp() && is_source {
            for ev in &out.trace {
                self.traces.on_tcp(now, flow, ev);
            }
        }
        for d in &out.delivered {
            if !is_source {
                self.flows[flow.index()].on_delivery(now, d)?;
            }
        }
        for s in &out.segments {
            // The flow's first data segment (`sent_data` spares the flow's record after it).
            if is_source && s.segment.payload_len > 0 && !self.endpoints[ep.index()].sent_data {
                self.endpoints[ep.index()].sent_data = true;
                self.flows[flow.index()].on_data_sent(now);
            }
            let id = self.next_packet_id;
            self.next_packet_id += 1;
            let src = self.nodes[node.index()].addr;
            let slot = if let Some(agent) = self.agents.local_at(node) {
                let mut packet = tcp_packet(id, src, remote, flow, s);
                packet.fix_length();
                if !self.on_agent_local(now, agent, LocalDir::Sent, &mut packet)? {
                    continue;
                }
                self.packets.insert(packet)
            } else {
                // Written straight into the arena: no copy of the packet on the way.
                let slot = self
                    .packets
                    .insert_with(|| tcp_packet(id, src, remote, flow, s));
                self.packets.get_mut(slot).fix_length();
                slot
            };
            self.route_from(now, node, slot)?;
        }
        Ok(())
    }

    /// The flow of endpoint `ep`, just called, is done once every byte is delivered and
    /// both ends are finished. Only the call that finishes an end can make it so: the
    /// endpoint's own state (hot) is looked at first, the flow's and the other end's only
    /// then, so that an ordinary segment touches no more per-flow state than it used.
    fn check_flow_done(&mut self, ep: EndpointId) {
        let endpoint = &self.endpoints[ep.index()];
        if !endpoint.conn.is_finished() {
            return;
        }
        let flow = endpoint.flow;
        let f = &self.flows[flow.index()];
        if f.done || !f.all_delivered() {
            return;
        }
        let finished = |e: EndpointId| self.endpoints[e.index()].conn.is_finished();
        if finished(f.source) && finished(f.sink) {
            self.flows_done += usize::from(f.ends_run);
            self.flows[flow.index()].done = true;
        }
    }
}
