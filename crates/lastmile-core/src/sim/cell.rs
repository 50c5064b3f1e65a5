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
//!   TCP ACK) is sent SIFS after the data with no RTS/CTS and no signals. `link = "none"` and
//!   stop-and-wait never reply in the floor (Snoop and "no LL" cannot, §5).
//! - Frame lengths on the air (airtime is the MAC's; error-model bits here) come from
//!   `AnyMac::frame_bytes`, FAMA's CTS being 21 bytes.
//!
//! One `TimerSlot` per MAC and per link layer; events carry (cell, member, link, generation).
//! Carrier-sense updates touch only the members of the cell that hears the frame. The
//! MAC's and link layers' configurations come from `wireless/cell_config.rs`.

use std::collections::{BTreeMap, VecDeque};

use crate::engine::{RngStream, SimDuration, SimTime, TimerAction, TimerFire, TimerSlot};
use crate::ids::{FlowId, NodeId};
use crate::net::{Admission, CellId, Queue};
use crate::packet::{
    Ecn, Ipv4Header, Packet, PacketId, Service, Transport, UdpDatagram, DEFAULT_TTL,
};
use crate::scenario::{LinkLayerKind, LinkSpec, MacKind};
use crate::wireless::cell_config::{
    dcf_config, fama_config, is_mac_accelerated, phy_config, stop_and_wait_config, tulip_config,
};
use crate::wireless::link::stop_and_wait::{StopAndWait, StopAndWaitConfig};
use crate::wireless::link::tulip::{TulipConfig, TulipLink};
use crate::wireless::link::{AnyLinkLayer, LinkFrame, LinkInput, LinkOutput, NoLink, SawAcks};
use crate::wireless::mac::{
    AnyMac, Dcf, Fama, FrameKind, IdealConfig, IdealMac, MacFrame, MacInput, MacOutput, MacSignal,
    ReplyDisposition,
};
use crate::wireless::medium::{FrameMeta, Medium, RxOutcome, TxId};

use super::flow::AppState;
use super::observe::DataAccounting;
use super::world::{Event, World};
use super::{SimError, SINK_PORT};

/// IP protocol number of UDP (RFC 768).
const PROTO_UDP: u8 = 17;

/// A link layer's peer on this station and its timer.
#[derive(Debug)]
pub struct PeerLink {
    pub peer: NodeId,
    pub layer: AnyLinkLayer,
    timer: TimerSlot,
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

/// One member station.
#[derive(Debug)]
pub struct Station {
    pub node: NodeId,
    pub mac: AnyMac<LinkFrame>,
    mac_timer: TimerSlot,
    pub links: Vec<PeerLink>,
    ifq: Queue<(Packet, NodeId)>,
    /// Mirrors the MAC's FIFO: (link index, whether its signals go to the link layer, the
    /// datagram a data frame carries — for the signals to an agent on this station).
    at_mac: VecDeque<(u16, bool, Option<Packet>)>,
    reported_busy: bool,
    pumping: bool,
    pub stats: StationStats,
}

#[derive(Debug)]
struct InFlight {
    frame: MacFrame<LinkFrame>,
    sender: usize,
    left: usize,
}

/// Counters of the whole cell.
#[derive(Clone, Debug, Default)]
pub struct CellStats {
    /// Time with at least one transmission on the air (sender side).
    pub busy: SimDuration,
    pub transmissions: u64,
    /// Pure TCP ACK frames put on the air (every attempt).
    pub tcp_ack_frames: u64,
}

/// A cell and its stations.
#[derive(Debug)]
pub struct Cell {
    pub name: String,
    pub mac_kind: MacKind,
    pub link_kind: LinkLayerKind,
    pub medium: Medium,
    pub stations: Vec<Station>,
    tulip: Option<TulipConfig>,
    saw: StopAndWaitConfig,
    in_flight: BTreeMap<TxId, InFlight>,
    /// TULIP with MAC acceleration over FAMA-NCS.
    mac_accelerated: bool,
    /// While a link layer handles a data frame its MAC just delivered (MAC acceleration):
    /// (station, link) whose first LACK is the in-floor reply.
    replying: Option<(usize, usize)>,
    busy_until: SimTime,
    pub stats: CellStats,
    /// Data sent by the head (base station / AP / n1) to the others: the data-bound direction.
    pub accounting: DataAccounting,
}

impl Cell {
    /// Builds the cell of `spec` over `members` (the head first).
    pub fn new(
        name: &str,
        spec: &LinkSpec,
        members: &[NodeId],
        flow_count: usize,
        seed: u64,
    ) -> Result<Cell, SimError> {
        let phy = phy_config(spec);
        let propagation = spec.delay.sim();
        let mut medium = Medium::new(propagation);
        let mut stations = Vec::with_capacity(members.len());
        for (rank, &node) in members.iter().enumerate() {
            medium.join(node);
            let errors = if rank == 0 {
                &spec.reverse_errors
            } else {
                &spec.errors
            };
            let rng = RngStream::derive(seed, &format!("cell/{name}/{}/errors", node.0));
            medium.set_error_model(node, errors.build(phy.data_rate_bps, rng));
            let mac_rng = || RngStream::derive(seed, &format!("cell/{name}/{}/mac", node.0));
            let mac = match spec.mac {
                MacKind::Dcf => AnyMac::Dcf(Dcf::new(node, dcf_config(spec), mac_rng())),
                MacKind::Fama => AnyMac::Fama(Fama::new(node, fama_config(spec), mac_rng())),
                _ => AnyMac::Ideal(IdealMac::new(
                    node,
                    IdealConfig {
                        phy: phy.clone(),
                        rank: rank as u32,
                        cell_size: members.len() as u32,
                        propagation,
                    },
                )),
            };
            stations.push(Station {
                node,
                mac,
                mac_timer: TimerSlot::default(),
                links: Vec::new(),
                ifq: Queue::new(
                    spec.queue,
                    spec.aqm.as_ref(),
                    phy.data_rate_bps,
                    RngStream::derive(seed, &format!("cell/{name}/{}/aqm", node.0)),
                ),
                at_mac: VecDeque::new(),
                reported_busy: false,
                pumping: false,
                stats: StationStats::default(),
            });
        }
        let mac = &stations[0].mac;
        let tulip = tulip_config(spec, mac);
        let saw = stop_and_wait_config(spec, mac);
        let mac_accelerated = is_mac_accelerated(spec);
        Ok(Cell {
            name: name.to_string(),
            mac_kind: spec.mac,
            link_kind: spec.link,
            medium,
            stations,
            tulip,
            saw,
            in_flight: BTreeMap::new(),
            mac_accelerated,
            replying: None,
            busy_until: SimTime::ZERO,
            stats: CellStats::default(),
            accounting: DataAccounting::new(flow_count),
        })
    }

    fn station_of(&self, node: NodeId) -> Option<usize> {
        self.stations.iter().position(|s| s.node == node)
    }

    fn new_link_layer(&self) -> Result<AnyLinkLayer, SimError> {
        Ok(match self.link_kind {
            LinkLayerKind::None => AnyLinkLayer::None(NoLink::default()),
            LinkLayerKind::StopAndWait => AnyLinkLayer::StopAndWait(
                Box::new(StopAndWait::new(self.saw.clone())),
                SawAcks::default(),
            ),
            LinkLayerKind::Tulip => {
                let cfg = self.tulip.clone().expect("built with the cell");
                AnyLinkLayer::Tulip(Box::new(
                    TulipLink::new(cfg).map_err(|e| SimError::Invalid(e.to_string()))?,
                ))
            }
        })
    }

    /// The index of `m`'s link layer towards `peer`, made on first use.
    fn link_index(&mut self, m: usize, peer: NodeId) -> Result<usize, SimError> {
        if let Some(i) = self.stations[m].links.iter().position(|l| l.peer == peer) {
            return Ok(i);
        }
        let layer = self.new_link_layer()?;
        let links = &mut self.stations[m].links;
        links.push(PeerLink {
            peer,
            layer,
            timer: TimerSlot::default(),
        });
        Ok(links.len() - 1)
    }

    /// The head-to-others direction counts in `accounting`.
    fn is_head(&self, m: usize) -> bool {
        m == 0
    }
}

/// The cell's part of the world: sending into a cell, and the cell's events.
impl World {
    /// `from` sends the packet in `slot` to `to`, a member of the same cell.
    pub(super) fn cell_send(
        &mut self,
        now: SimTime,
        cell: CellId,
        from: NodeId,
        to: NodeId,
        slot: super::world::PacketSlot,
    ) -> Result<(), SimError> {
        let packet = self.packets.remove(slot);
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.station_of(from) else {
            self.no_route_drops += 1;
            return Ok(());
        };
        let st = &mut c.stations[m];
        let mut packet = packet;
        match st.ifq.admit(now, packet.ip.ecn.is_ecn_capable()) {
            Admission::Admit => {}
            Admission::AdmitMarked => packet.ip.ecn = Ecn::Ce,
            Admission::Drop => {
                st.stats.queue_drops += 1;
                return Ok(());
            }
        }
        if st.ifq.push((packet, to), packet.size_bytes()).is_err() {
            st.stats.queue_drops += 1;
            return Ok(());
        }
        self.pump(now, cell, m)
    }

    /// Pulls packets from station `m`'s interface queue into its link layers while the link
    /// layer of the head packet's next hop accepts them.
    fn pump(&mut self, now: SimTime, cell: CellId, m: usize) -> Result<(), SimError> {
        if self.cells[cell.index()].stations[m].pumping {
            return Ok(());
        }
        self.cells[cell.index()].stations[m].pumping = true;
        let result = self.pump_loop(now, cell, m);
        self.cells[cell.index()].stations[m].pumping = false;
        result
    }

    fn pump_loop(&mut self, now: SimTime, cell: CellId, m: usize) -> Result<(), SimError> {
        loop {
            let c = &mut self.cells[cell.index()];
            let Some(&(_, peer)) = c.stations[m].ifq.front() else {
                return Ok(());
            };
            let li = c.link_index(m, peer)?;
            if !c.stations[m].links[li].layer.can_accept() {
                return Ok(());
            }
            let (packet, _) = c.stations[m].ifq.pop(now).expect("front was there");
            self.link_call(now, cell, m, li, LinkInput::FromNetwork(packet))?;
            self.refill_saturating(now, packet.flow)?;
        }
    }

    /// Calls a link layer and applies its outputs, then re-arms its timer.
    fn link_call(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        li: usize,
        input: LinkInput,
    ) -> Result<(), SimError> {
        let mut out = Vec::new();
        self.cells[cell.index()].stations[m].links[li]
            .layer
            .handle(now, input, &mut out);
        for o in out {
            match o {
                LinkOutput::ToMac(frame) => self.mac_enqueue(now, cell, m, li, frame)?,
                LinkOutput::ToNetwork(packet) => self.cell_pass_up(now, cell, m, li, packet)?,
            }
        }
        let link = &mut self.cells[cell.index()].stations[m].links[li];
        let deadline = link.layer.poll_timeout();
        if let TimerAction::Schedule { at, generation } = link.timer.set(deadline) {
            self.schedule(
                at.max(now),
                Event::CellLinkTimer {
                    cell,
                    station: m as u16,
                    link: li as u16,
                    generation,
                },
            )?;
        }
        self.pump(now, cell, m)
    }

    fn cell_pass_up(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        li: usize,
        packet: Packet,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let peer = c.stations[m].links[li].peer;
        if c.station_of(peer).is_some_and(|h| c.is_head(h)) && !c.is_head(m) {
            c.accounting.on_passed_up(&packet);
        }
        let node = c.stations[m].node;
        let slot = self.packets.insert(packet);
        self.schedule(now, Event::Arrive { node, slot })
    }

    fn mac_enqueue(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        li: usize,
        frame: LinkFrame,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let msdu_bytes = frame.size_bytes(c.tulip.as_ref());
        let is_reply =
            matches!(&frame, LinkFrame::Tulip(f) if f.is_lack()) && c.replying == Some((m, li));
        if is_reply {
            c.replying = None;
            return self.mac_reply_in_floor(now, cell, m, li, msdu_bytes, frame);
        }
        let st = &mut c.stations[m];
        let carried = if frame.is_control() {
            None
        } else {
            frame.data_packet().copied()
        };
        st.at_mac
            .push_back((li as u16, !frame.is_control(), carried));
        let dst = st.links[li].peer;
        self.mac_call(
            now,
            cell,
            m,
            MacInput::Enqueue {
                dst,
                msdu_bytes,
                payload: frame,
            },
        )
    }

    /// MAC acceleration: the LACK for the data frame just delivered is the MAC's in-floor
    /// reply. The FIFO mirror learns where the MAC put it (nowhere when sent in the floor).
    fn mac_reply_in_floor(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        li: usize,
        msdu_bytes: u32,
        frame: LinkFrame,
    ) -> Result<(), SimError> {
        let st = &mut self.cells[cell.index()].stations[m];
        let dst = st.links[li].peer;
        let mut out = Vec::new();
        match st.mac.reply_in_floor(now, dst, msdu_bytes, frame, &mut out) {
            ReplyDisposition::InFloor => {}
            ReplyDisposition::HeadOfQueue => st.at_mac.push_front((li as u16, false, None)),
            ReplyDisposition::Queued => st.at_mac.push_back((li as u16, false, None)),
        }
        self.apply_mac_outputs(now, cell, m, out)
    }

    /// Calls a station's MAC and applies its outputs, then re-arms its timer.
    fn mac_call(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        input: MacInput<LinkFrame>,
    ) -> Result<(), SimError> {
        let mut out = Vec::new();
        self.cells[cell.index()].stations[m]
            .mac
            .handle(now, input, &mut out);
        self.apply_mac_outputs(now, cell, m, out)
    }

    fn apply_mac_outputs(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        out: Vec<MacOutput<LinkFrame>>,
    ) -> Result<(), SimError> {
        for o in out {
            match o {
                MacOutput::StartTx { frame, airtime } => {
                    self.start_tx(now, cell, m, frame, airtime)?
                }
                MacOutput::Signal(signal) => self.mac_signal(now, cell, m, signal)?,
                MacOutput::Deliver { from, payload, .. } => {
                    let c = &mut self.cells[cell.index()];
                    if c.station_of(from).is_some_and(|h| c.is_head(h)) && !c.is_head(m) {
                        if let Some(p) = payload.data_packet() {
                            c.accounting.on_received(p);
                        }
                    }
                    let li = c.link_index(m, from)?;
                    let replies = c.mac_accelerated && payload.data_packet().is_some();
                    c.replying = replies.then_some((m, li));
                    let result =
                        self.link_call(now, cell, m, li, LinkInput::FrameReceived(payload));
                    self.cells[cell.index()].replying = None;
                    result?;
                }
            }
        }
        let st = &mut self.cells[cell.index()].stations[m];
        let deadline = st.mac.poll_timeout();
        if let TimerAction::Schedule { at, generation } = st.mac_timer.set(deadline) {
            self.schedule(
                at.max(now),
                Event::CellMacTimer {
                    cell,
                    station: m as u16,
                    generation,
                },
            )?;
        }
        Ok(())
    }

    fn mac_signal(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        signal: MacSignal,
    ) -> Result<(), SimError> {
        let st = &mut self.cells[cell.index()].stations[m];
        match signal {
            MacSignal::Trans => match st.at_mac.front() {
                Some(&(li, true, _)) => {
                    self.link_call(now, cell, m, usize::from(li), LinkInput::MacSignal(signal))
                }
                _ => Ok(()),
            },
            MacSignal::TxSuccess | MacSignal::TxFailure => {
                let node = st.node;
                let Some((li, to_link, carried)) = st.at_mac.pop_front() else {
                    return Ok(());
                };
                if to_link {
                    self.link_call(now, cell, m, usize::from(li), LinkInput::MacSignal(signal))?;
                }
                match (carried, self.agents.at(node)) {
                    (Some(packet), Some(agent)) => self.on_agent_link(now, agent, signal, &packet),
                    _ => Ok(()),
                }
            }
            MacSignal::Wait { .. } => {
                for li in 0..st.links.len() {
                    self.link_call(now, cell, m, li, LinkInput::MacSignal(signal))?;
                }
                Ok(())
            }
        }
    }

    fn start_tx(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        frame: MacFrame<LinkFrame>,
        airtime: SimDuration,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let end = now + airtime;
        c.stats.busy += end.saturating_since(now.max(c.busy_until));
        c.busy_until = c.busy_until.max(end);
        c.stats.transmissions += 1;
        c.stations[m].stats.frames_sent += 1;
        let data = match (&frame.kind, &frame.payload) {
            (FrameKind::Data, Some(p)) => p.data_packet().copied(),
            _ => None,
        };
        let frame_bytes = c.stations[m].mac.frame_bytes(&frame);
        if data.is_some_and(|p| p.tcp().is_some_and(|t| t.is_pure_ack())) {
            c.stats.tcp_ack_frames += 1;
        }
        if c.is_head(m) {
            if let Some(p) = &data {
                c.accounting.on_air(p, u64::from(frame_bytes));
            }
        }
        let meta = FrameMeta {
            bits: 8 * u64::from(frame_bytes),
            payload_bytes: data.map_or(0, |p| p.payload_len()),
        };
        let c = &mut self.cells[cell.index()];
        let node = c.stations[m].node;
        let (tx, arrivals) = c.medium.start_tx(now, node, airtime, meta);
        if let Some(captures) = self.captures.as_mut() {
            captures.cell_started(cell.index(), tx, now, &frame, !arrivals.is_empty())?;
        }
        c.in_flight.insert(
            tx,
            InFlight {
                frame,
                sender: m,
                left: arrivals.len(),
            },
        );
        for a in arrivals {
            let station = c.station_of(a.receiver).expect("a member") as u16;
            self.queue
                .schedule(a.start, Event::CellRxStart { cell, station })?;
            self.queue
                .schedule(a.end, Event::CellRxEnd { cell, station, tx })?;
        }
        Ok(())
    }

    pub(super) fn on_cell_rx_start(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
    ) -> Result<(), SimError> {
        let st = &mut self.cells[cell.index()].stations[m];
        let node = st.node;
        if !st.reported_busy && self.cells[cell.index()].medium.is_busy(node, now) {
            self.cells[cell.index()].stations[m].reported_busy = true;
            self.mac_call(now, cell, m, MacInput::MediumBusy)?;
        }
        Ok(())
    }

    pub(super) fn on_cell_rx_end(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        tx: TxId,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let node = c.stations[m].node;
        let outcome = c.medium.finish_rx(tx, node);
        let (frame, sender, last) = match c.in_flight.get_mut(&tx) {
            Some(f) => {
                f.left -= 1;
                let sender = f.sender;
                if f.left == 0 {
                    (
                        c.in_flight.remove(&tx).expect("present").frame,
                        sender,
                        true,
                    )
                } else {
                    (f.frame.clone(), sender, false)
                }
            }
            None => return Ok(()),
        };
        if let Some(captures) = self.captures.as_mut() {
            if frame.ra == node {
                captures.cell_received(cell.index(), tx, node, &outcome)?;
            }
            if last {
                captures.cell_done(cell.index(), tx)?;
            }
        }
        let c = &mut self.cells[cell.index()];
        let lost = !matches!(outcome, RxOutcome::Intact);
        if frame.ra == node && lost && c.is_head(sender) && frame.kind == FrameKind::Data {
            let data = frame.payload.as_ref().and_then(LinkFrame::data_packet);
            if data.is_some_and(|p| p.payload_len() > 0 && p.tcp().is_some()) {
                c.accounting.data_frames_lost += 1;
            }
        }
        if frame.ra == node && self.traces.wireless_tx {
            if let Some(p) = frame.payload.as_ref().and_then(LinkFrame::carried_packet) {
                // Cells are numbered after the links in the trace's `link` column.
                let hop = (self.links.len() + cell.index()) as u32;
                self.traces.on_wireless_tx(now, hop, p, lost);
            }
        }
        let c = &mut self.cells[cell.index()];
        if frame.ra == node {
            match outcome {
                // Overlaps, including the half-duplex case of an addressee that was itself
                // transmitting (with two stations the only kind of collision there is).
                RxOutcome::Collided | RxOutcome::Missed => c.stations[m].stats.rx_collided += 1,
                RxOutcome::Errored => c.stations[m].stats.rx_errored += 1,
                _ => {}
            }
        }
        match outcome {
            RxOutcome::Intact => self.mac_call(now, cell, m, MacInput::Received(frame))?,
            RxOutcome::Collided | RxOutcome::Errored => {
                self.mac_call(now, cell, m, MacInput::RxError)?
            }
            RxOutcome::Missed => {}
        }
        let c = &mut self.cells[cell.index()];
        if c.stations[m].reported_busy && !c.medium.is_busy(node, now) {
            c.stations[m].reported_busy = false;
            self.mac_call(now, cell, m, MacInput::MediumIdle)?;
        }
        Ok(())
    }

    pub(super) fn on_cell_mac_timer(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        generation: u32,
    ) -> Result<(), SimError> {
        let st = &mut self.cells[cell.index()].stations[m];
        match st.mac_timer.fire(now, generation) {
            TimerFire::Ignore => Ok(()),
            TimerFire::Rearm { at, generation } => self.schedule(
                at,
                Event::CellMacTimer {
                    cell,
                    station: m as u16,
                    generation,
                },
            ),
            TimerFire::Expired => self.mac_call(now, cell, m, MacInput::Timeout),
        }
    }

    pub(super) fn on_cell_link_timer(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: usize,
        li: usize,
        generation: u32,
    ) -> Result<(), SimError> {
        let link = &mut self.cells[cell.index()].stations[m].links[li];
        match link.timer.fire(now, generation) {
            TimerFire::Ignore => Ok(()),
            TimerFire::Rearm { at, generation } => self.schedule(
                at,
                Event::CellLinkTimer {
                    cell,
                    station: m as u16,
                    link: li as u16,
                    generation,
                },
            ),
            TimerFire::Expired => self.link_call(now, cell, m, li, LinkInput::Timeout),
        }
    }

    // ----- the saturating UDP application ------------------------------------------------

    /// Starts a saturating UDP flow: two datagrams, so one always waits behind the one in
    /// service; the stop event comes after `duration`.
    pub(super) fn udp_start(
        &mut self,
        now: SimTime,
        flow: FlowId,
        duration: SimDuration,
    ) -> Result<(), SimError> {
        self.flows[flow.index()].udp_stop = Some(now + duration);
        self.udp_write(now, flow)?;
        self.udp_write(now, flow)?;
        self.schedule(now + duration, Event::AppWrite { flow })
    }

    /// The stop event of a saturating UDP flow.
    pub(super) fn udp_stop(&mut self, flow: FlowId) {
        let f = &mut self.flows[flow.index()];
        if !f.done {
            f.done = true;
            f.total_bytes = f.written;
            self.note_flow_done();
        }
    }

    /// A datagram of a saturating flow left its station's interface queue: write the next.
    fn refill_saturating(&mut self, now: SimTime, flow: FlowId) -> Result<(), SimError> {
        let Some(f) = self.flows.get(flow.index()) else {
            return Ok(());
        };
        let active = matches!(f.app, AppState::UdpSaturate { .. })
            && f.udp_stop.is_some_and(|stop| now < stop);
        if active {
            self.udp_write(now, flow)?;
        }
        Ok(())
    }

    fn udp_write(&mut self, now: SimTime, flow: FlowId) -> Result<(), SimError> {
        let f = &mut self.flows[flow.index()];
        let AppState::UdpSaturate { packet_size, .. } = f.app else {
            return Ok(());
        };
        f.on_data_sent(now);
        f.written += u64::from(packet_size);
        let (src, dst) = (self.endpoints[f.source.index()].node, f.source);
        let remote = self.endpoints[dst.index()].remote;
        let mut packet = Packet {
            id: PacketId(self.take_packet_id()),
            origin_time: now,
            ip: Ipv4Header {
                src: self.nodes[src.index()].addr,
                dst: remote,
                protocol: PROTO_UDP,
                ttl: DEFAULT_TTL,
                total_len: 0,
                ident: 0,
                ecn: Ecn::NotEct,
            },
            transport: Transport::Udp(UdpDatagram {
                src_port: 49152 + flow.0 as u16,
                dst_port: SINK_PORT,
                payload_len: packet_size,
            }),
            flow,
            service: Service::Unreliable,
        };
        packet.fix_length();
        let slot = self.packets.insert(packet);
        self.route_from(now, src, slot)
    }

    /// A datagram reached its destination: the sink counts it.
    pub(super) fn on_udp_datagram(&mut self, now: SimTime, packet: &Packet) {
        if let Some(f) = self.flows.get_mut(packet.flow.index()) {
            f.delivered += u64::from(packet.payload_len());
            f.last_delivery = Some(now);
        }
    }
}
