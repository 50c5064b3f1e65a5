//! The wireless cell in the engine: a shared half-duplex `Medium`, one MAC per member
//! station, one link layer per (station, peer) pair and a drop-tail interface queue per
//! station between IP and the link layers.
//!
//! The cell drives the pure protocol machines only through their `handle` / `poll_timeout`
//! interfaces and applies their outputs:
//! - IP → `cell_send`: the packet joins the station's interface queue (drop-tail, the
//!   wireless spec's `queue`); the queue's head is pulled into the link layer of its next
//!   hop whenever that layer `can_accept` (TULIP takes packets as its window allows).
//! - link layer → MAC: `ToMac` frames become `Enqueue`; the cell mirrors the MAC's FIFO so
//!   that `Trans` / `TxSuccess` / `TxFailure` reach the link layer whose frame they concern
//!   (never for link-level control frames: LACKs, link ACKs); `Wait` goes to every link layer
//!   of the station.
//! - MAC → medium: `StartTx` starts a transmission; every other member gets an arrival start
//!   (carrier sense: `MediumBusy` on the idle → busy edge) and an arrival end (the medium
//!   decides `Intact` / `Collided` / `Errored` / `Missed`; the MAC gets `Received` or
//!   `RxError`, then `MediumIdle` on the busy → idle edge, as RX-END precedes CCA idle).
//! - MAC `Deliver` → the receiving link layer → `ToNetwork` → an `Arrive` event at the node,
//!   so forwarding and agents see wireless packets exactly like wired ones.
//! - MAC acceleration (TULIP §3.3, only TULIP with `mac_acceleration` over FAMA-NCS): the
//!   LACK TULIP makes for a delivered data frame goes to the MAC as its in-floor reply
//!   (`AnyMac::reply_in_floor`), not as an `Enqueue`; a ≤ 43-byte reply (LACK + piggybacked
//!   TCP ACK) is sent SIFS after the data with no RTS/CTS and no signals; a data frame of
//!   TULIP's carrying the LACK (Figure 3) gets an immediate RTS, its earlier copy still
//!   backing off in the MAC taken back (`Station::take_back_resent`). `link = "none"` and
//!   stop-and-wait never reply in the floor (Snoop and "no LL" cannot, §5).
//! - Frame lengths on the air (airtime is the MAC's; error-model bits here) come from
//!   `AnyMac::frame_bytes`, FAMA's CTS being 21 bytes.
//!
//! Members are addressed by stable `StationId`s (their index in `stations`, never reused)
//! and their link layers by their index in the station's `links` (one per peer node, for
//! the cell's lifetime): a node can `leave` the cell and `join` it again (as a new station)
//! while events for its former membership are pending — those find it gone and do nothing.
//! Every MAC and link layer has a timer in `World::timers`. Carrier-sense updates touch only
//! the members of the cell that hears the frame. The MAC is built and the link layers
//! configured from the hop's `mac` and `link` tables (`MacSpec::build`,
//! `LinkLayerSpec::config`). `link.rs` drives IP → link layer → MAC, `air.rs`
//! the medium; the MACs carry each frame as a `FrameRef` to the one copy `frames.rs` keeps
//! while a MAC or the air holds it.

mod air;
mod frames;
mod link;

use std::collections::VecDeque;

use crate::engine::{FxHashMap, RngStream, SimDuration, SimTime, TimerId};
use crate::error_model::BlockCode;
use crate::ids::{NodeId, StationId};
use crate::net::{CellId, Queue};
use crate::scenario::LinkSpec;
use crate::wireless::link::spec::LinkLayerConfig;
use crate::wireless::link::{AnyLinkLayer, LinkOutput};
use crate::wireless::mac::fama::spec::is_mac_accelerated;
use crate::wireless::mac::spec::phy_config;
use crate::wireless::mac::{AnyMac, MacFrame, MacOutput, StationSetup};
use crate::wireless::medium::{Arrival, Medium, TxId};

use self::frames::{FrameRef, FrameSlab};
use super::observe::DataAccounting;
use super::world::{PacketArena, PacketSlot, TimerOwner, World};
use super::SimError;

/// A link layer's peer on this station and its timer.
#[derive(Debug)]
pub struct PeerLink {
    pub peer: NodeId,
    pub layer: AnyLinkLayer,
    timer: TimerId,
}

/// Counters of one station.
#[derive(Clone, Debug, Default)]
pub struct StationStats {
    pub frames_sent: u64,
    /// Frames addressed to this station destroyed by an overlap.
    pub rx_collided: u64,
    /// Frames addressed to this station lost to its error model.
    pub rx_errored: u64,
    pub queue_drops: u64,
}

/// One member station (or a former one: `present` false).
#[derive(Debug)]
pub struct Station {
    pub node: NodeId,
    /// Still a member of the cell.
    pub present: bool,
    /// Its MAC, carrying the cell's frames by reference (`frames.rs`).
    pub mac: AnyMac<FrameRef>,
    mac_timer: TimerId,
    /// Link layers, one per peer node, in order of first use; `peers` finds them.
    pub links: Vec<PeerLink>,
    peers: FxHashMap<NodeId, usize>,
    /// The link last looked up in `peers` (peer, index): most lookups ask for it again.
    last_link: Option<(NodeId, usize)>,
    /// The interface queue: packets waiting in the world's arena, with their next hop.
    ifq: Queue<(PacketSlot, NodeId)>,
    /// Mirrors the MAC's FIFO: (link index, whether its signals go to the link layer, the
    /// frame, which the MAC holds until it signals its fate).
    at_mac: VecDeque<(usize, bool, FrameRef)>,
    reported_busy: bool,
    pumping: bool,
    pub stats: StationStats,
}

#[derive(Debug)]
struct InFlight {
    frame: MacFrame<FrameRef>,
    sender: StationId,
    left: usize,
}

/// The frames on the air, by transmission: the medium numbers its transmissions 0, 1, 2,
/// …, so entry `i` is transmission `first + i` (`None` once it has arrived everywhere, or
/// for one that reaches no one); ended entries leave from the front.
#[derive(Debug, Default)]
struct InFlightTable {
    first: u32,
    frames: VecDeque<Option<InFlight>>,
}

impl InFlightTable {
    /// Records `tx`, a later transmission than every one recorded before.
    fn insert(&mut self, tx: TxId, frame: Option<InFlight>) {
        let at = tx.0.wrapping_sub(self.first) as usize;
        debug_assert!(at >= self.frames.len(), "transmissions come in order");
        if self.frames.is_empty() {
            self.first = tx.0;
        } else {
            self.frames.resize_with(at, || None);
        }
        if frame.is_some() || !self.frames.is_empty() {
            self.frames.push_back(frame);
        }
    }

    fn get_mut(&mut self, tx: TxId) -> Option<&mut InFlight> {
        let at = tx.0.wrapping_sub(self.first) as usize;
        self.frames.get_mut(at)?.as_mut()
    }

    /// Takes `tx` out; the front's ended entries leave with it.
    fn remove(&mut self, tx: TxId) -> Option<InFlight> {
        let at = tx.0.wrapping_sub(self.first) as usize;
        let frame = self.frames.get_mut(at)?.take();
        while let Some(None) = self.frames.front() {
            self.frames.pop_front();
            self.first = self.first.wrapping_add(1);
        }
        frame
    }
}

/// Counters of the whole cell.
#[derive(Clone, Debug, Default)]
pub struct CellStats {
    /// Time with at least one transmission on the air (sender side).
    pub busy: SimDuration,
    pub transmissions: u64,
    /// Pure TCP ACK frames put on the air (every attempt).
    pub tcp_ack_frames: u64,
    /// Bits put on the air (FEC's parity included), all stations.
    pub air_bits: u64,
    /// Packets for a node that is no longer a member, discarded: those it had waiting in
    /// the interface queues when it left, and those sent to it since.
    pub to_absent_drops: u64,
}

/// A cell and its stations.
#[derive(Debug)]
pub struct Cell {
    pub name: String,
    id: CellId,
    spec: LinkSpec,
    seed: u64,
    /// The MAC's and the link layer's names in scenario files.
    pub mac_name: &'static str,
    pub link_name: &'static str,
    pub medium: Medium,
    /// Indexed by `StationId`; former members stay, marked absent.
    pub stations: Vec<Station>,
    /// The present members.
    members: FxHashMap<NodeId, StationId>,
    /// The link layer's configuration, derived from the head's MAC once it exists.
    link_config: LinkLayerConfig,
    /// The hop's link FEC (frames on the air are its coded bits).
    pub code: Option<BlockCode>,
    in_flight: InFlightTable,
    /// The frames the MACs and the air hold, which they name by `FrameRef`.
    frames: FrameSlab,
    /// TULIP with MAC acceleration over FAMA-NCS.
    mac_accelerated: bool,
    /// While a link layer handles a data frame its MAC just delivered (MAC acceleration):
    /// (station, link) whose first LACK is the in-floor reply.
    replying: Option<(StationId, usize)>,
    busy_until: SimTime,
    /// The MACs' and the link layers' outputs as stacks: a call leaves its outputs on
    /// top, and they are applied and taken off before it returns (the calls they cause
    /// nest above them).
    mac_outputs: Vec<MacOutput<FrameRef>>,
    link_outputs: Vec<LinkOutput>,
    /// The medium's arrivals of the transmission being started (kept for its capacity).
    arrivals: Vec<Arrival>,
    pub stats: CellStats,
    /// Data sent by the head (base station / AP / n1) to the others: the data-bound direction.
    pub accounting: DataAccounting,
}

impl Cell {
    /// Builds the cell `id` of `spec` over `members` (the head first), their timers taken
    /// from `timers`.
    pub fn new(
        id: CellId,
        name: &str,
        spec: &LinkSpec,
        members: &[NodeId],
        flow_count: usize,
        seed: u64,
        timers: &mut crate::engine::TimerTable<TimerOwner>,
    ) -> Result<Cell, SimError> {
        let mut cell = Cell {
            name: name.to_string(),
            id,
            spec: spec.clone(),
            seed,
            mac_name: spec.mac.name(),
            link_name: spec.link.name(),
            medium: match spec.mac.is_full_duplex() {
                true => Medium::full_duplex(spec.delay.sim()),
                false => Medium::new(spec.delay.sim()),
            },
            stations: Vec::with_capacity(members.len()),
            members: FxHashMap::default(),
            link_config: LinkLayerConfig::None,
            code: spec.fec_code(),
            in_flight: InFlightTable::default(),
            frames: FrameSlab::default(),
            mac_accelerated: is_mac_accelerated(&spec.hop()),
            replying: None,
            busy_until: SimTime::ZERO,
            mac_outputs: Vec::new(),
            link_outputs: Vec::new(),
            arrivals: Vec::new(),
            stats: CellStats::default(),
            accounting: DataAccounting::new(flow_count),
        };
        cell.medium.set_code(cell.code);
        for &node in members {
            cell.add_station(SimTime::ZERO, node, members.len(), timers);
        }
        if let Some(head) = cell.stations.first() {
            cell.link_config = spec.link.config(&spec.hop(), &head.mac);
        }
        Ok(cell)
    }

    /// A new station for `node`: on the medium with its error model (reverse errors for the
    /// head, the hop's errors for the others), its MAC, its interface queue.
    fn add_station(
        &mut self,
        now: SimTime,
        node: NodeId,
        initial_size: usize,
        timers: &mut crate::engine::TimerTable<TimerOwner>,
    ) -> StationId {
        let id = StationId(self.stations.len() as u32);
        let (spec, name, seed) = (&self.spec, &self.name, self.seed);
        // Initial members' streams are named by node; a later joiner's also by station, so
        // that a node joining again does not replay its earlier draws.
        let stream = |what: &str| match id.index() < initial_size {
            true => format!("cell/{name}/{}/{what}", node.0),
            false => format!("cell/{name}/{}/{}/{what}", node.0, id.0),
        };
        let phy = phy_config(&spec.hop());
        let errors = if id.index() == 0 {
            &spec.reverse_errors
        } else {
            &spec.errors
        };
        self.medium.join(now, node);
        let rng = RngStream::derive(seed, &stream("errors"));
        self.medium
            .set_error_model(node, errors.build(phy.data_rate_bps, rng));
        let station = StationSetup {
            node,
            rank: id.0,
            cell_size: initial_size.max(id.index() + 1) as u32,
        };
        let mac = spec
            .mac
            .build(
                &spec.hop(),
                station,
                RngStream::derive(seed, &stream("mac")),
            )
            .expect("a cell's hop has a cell MAC");
        let mac_timer = timers.add(TimerOwner::Mac {
            cell: self.id,
            station: id,
        });
        self.stations.push(Station {
            node,
            present: true,
            mac,
            mac_timer,
            links: Vec::new(),
            peers: FxHashMap::default(),
            last_link: None,
            ifq: Queue::new(
                spec.queue,
                spec.aqm.as_ref(),
                phy_config(&spec.hop()).data_rate_bps,
                RngStream::derive(seed, &stream("aqm")),
            ),
            at_mac: VecDeque::new(),
            reported_busy: false,
            pumping: false,
            stats: StationStats::default(),
        });
        self.members.insert(node, id);
        id
    }

    /// `node` joins the cell (a no-op if it is a member) as a new station. Link layers of
    /// the other members towards it start afresh, as a link to a newly arrived peer does.
    pub fn join(
        &mut self,
        now: SimTime,
        node: NodeId,
        timers: &mut crate::engine::TimerTable<TimerOwner>,
    ) -> Result<StationId, SimError> {
        if let Some(&id) = self.members.get(&node) {
            return Ok(id);
        }
        for m in 0..self.stations.len() {
            if let Some(&li) = self.stations[m].peers.get(&node) {
                let layer = self.new_link_layer(m == 0)?;
                let link = &mut self.stations[m].links[li];
                link.layer = layer;
                timers.set(link.timer, None);
            }
        }
        Ok(self.add_station(now, node, 0, timers))
    }

    /// `node` leaves the cell: it is off the medium at once (what was arriving at it is
    /// lost), its queue, MAC and link layers are dropped with it, and its timers retired.
    /// Events still pending for it find it gone and do nothing. The packets the others had
    /// queued for it are discarded (so they block no one), and so is anything sent to it
    /// later; frames already with a MAC or a link layer run their course.
    pub fn leave(
        &mut self,
        now: SimTime,
        node: NodeId,
        timers: &mut crate::engine::TimerTable<TimerOwner>,
        packets: &mut PacketArena,
    ) {
        let Some(id) = self.members.remove(&node) else {
            return;
        };
        self.medium.leave(now, node);
        for st in self.stations.iter_mut().filter(|st| st.present) {
            self.stats.to_absent_drops += st.ifq.retain(|&(slot, to)| {
                let keep = to != node;
                if !keep {
                    packets.release(slot);
                }
                keep
            }) as u64;
        }
        let st = &mut self.stations[id.index()];
        st.present = false;
        st.stats.queue_drops += st.ifq.len() as u64;
        st.ifq.retain(|&(slot, _)| {
            packets.release(slot);
            false
        });
        for (_, _, frame) in st.at_mac.drain(..) {
            self.frames.release(frame); // Its MAC runs no more.
        }
        timers.retire(st.mac_timer);
        for link in st.links.drain(..) {
            timers.retire(link.timer);
        }
        st.peers.clear();
        st.last_link = None;
    }

    /// The frames the slab holds, and the distinct frames its holders name: the MACs'
    /// (as `at_mac` mirrors them) and the air's. They are equal but for MAC acceleration's
    /// in-floor replies not yet sent, which only the MAC names.
    #[cfg(test)]
    pub(in crate::sim) fn frames_held(&self) -> (usize, usize) {
        let at_macs = self
            .stations
            .iter()
            .flat_map(|s| s.at_mac.iter().map(|e| e.2));
        let on_air = self.in_flight.frames.iter().flatten();
        let mut named: Vec<FrameRef> = at_macs
            .chain(on_air.filter_map(|f| f.frame.payload))
            .collect();
        named.sort_unstable();
        named.dedup();
        (self.frames.live(), named.len())
    }

    /// The present member that is `node`.
    fn station_of(&self, node: NodeId) -> Option<StationId> {
        self.members.get(&node).copied()
    }

    /// A link layer for a station; `head` says whether it is the cell's head (AIRMAIL's base
    /// station).
    fn new_link_layer(&self, head: bool) -> Result<AnyLinkLayer, SimError> {
        self.link_config.layer(head).map_err(SimError::Invalid)
    }

    /// One hop across the cell without contention: the propagation delay, plus a frame of
    /// `bytes` at the data rate (for a path's RTT without queueing).
    pub fn one_hop_time(&self, bytes: Option<u32>) -> SimDuration {
        let rate = self.spec.rate.bps();
        self.spec.delay.sim()
            + bytes.map_or(SimDuration::ZERO, |b| {
                SimDuration::transmission(8 * u64::from(b), rate)
            })
    }

    /// The head-to-others direction counts in `accounting`.
    fn is_head(&self, m: StationId) -> bool {
        m.0 == 0
    }
}

impl World {
    /// `node` leaves cell `cell` (see `Cell::leave`).
    pub fn cell_leave(&mut self, cell: CellId, node: NodeId) {
        let now = self.queue.now();
        self.cells[cell.index()].leave(now, node, &mut self.timers, &mut self.packets);
    }

    /// `node` joins cell `cell` (see `Cell::join`).
    pub fn cell_join(&mut self, cell: CellId, node: NodeId) -> Result<StationId, SimError> {
        let now = self.queue.now();
        self.cells[cell.index()].join(now, node, &mut self.timers)
    }
}

/// The station `m` of `world`'s cell `cell`.
fn station(world: &mut World, cell: CellId, m: StationId) -> &mut Station {
    &mut world.cells[cell.index()].stations[m.index()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wireless::mac::FrameKind;

    fn on_air(sender: u32, left: usize) -> InFlight {
        InFlight {
            frame: MacFrame {
                kind: FrameKind::Ack,
                ra: NodeId(0),
                ta: NodeId(1),
                duration: SimDuration::ZERO,
                seq: 0,
                retry: false,
                msdu_bytes: 0,
                payload: None,
            },
            sender: StationId(sender),
            left,
        }
    }

    #[test]
    fn in_flight_frames_are_found_by_transmission_until_removed_in_any_order() {
        let mut t = InFlightTable::default();
        t.insert(TxId(5), Some(on_air(0, 1)));
        t.insert(TxId(6), None); // reached no one
        t.insert(TxId(8), Some(on_air(2, 1)));
        assert!(t.get_mut(TxId(4)).is_none());
        assert!(t.get_mut(TxId(6)).is_none());
        assert!(t.get_mut(TxId(7)).is_none());
        assert_eq!(t.get_mut(TxId(8)).map(|f| f.sender), Some(StationId(2)));
        assert_eq!(t.remove(TxId(8)).map(|f| f.sender), Some(StationId(2)));
        assert!(t.get_mut(TxId(8)).is_none());
        assert_eq!(t.frames.len(), 4, "the front is still on the air");
        t.get_mut(TxId(5)).expect("on the air").left -= 1;
        assert_eq!(t.remove(TxId(5)).map(|f| f.left), Some(0));
        assert!(t.frames.is_empty(), "ended entries leave from the front");
        t.insert(TxId(9), None);
        assert!(t.frames.is_empty());
    }

    #[test]
    fn in_flight_numbers_wrap_around() {
        let mut t = InFlightTable::default();
        t.insert(TxId(u32::MAX), Some(on_air(0, 1)));
        t.insert(TxId(0), Some(on_air(1, 1)));
        assert_eq!(t.get_mut(TxId(0)).map(|f| f.sender), Some(StationId(1)));
        assert!(t.remove(TxId(u32::MAX)).is_some());
        assert_eq!(t.first, 0);
        assert!(t.remove(TxId(0)).is_some());
        assert!(t.frames.is_empty());
    }
}
