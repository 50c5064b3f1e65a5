//! The cell's IP → link layer → MAC path (module notes of `sim::cell`): the interface
//! queue pumped into link layers, link-layer outputs to the MAC or up to IP, the MAC's
//! outputs and signals, and the two timers of a station.

use crate::engine::SimTime;
use crate::ids::{NodeId, StationId};
use crate::net::{Admission, CellId};
use crate::packet::{Ecn, Packet};
use crate::wireless::link::tulip::TulipFrame;
use crate::wireless::link::{LinkFrame, LinkInput, LinkOutput};
use crate::wireless::mac::{MacInput, MacOutput, MacSignal, ReplyDisposition};

use super::super::world::{Event, PacketSlot, TimerOwner, World};
use super::super::SimError;
use super::frames::{FrameRef, FrameSlab};
use super::{station, PeerLink, Station};

impl World {
    /// `from` sends the packet in `slot` to `to`, a member of the same cell.
    pub(in crate::sim) fn cell_send(
        &mut self,
        now: SimTime,
        cell: CellId,
        from: NodeId,
        to: NodeId,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let Some(m) = c.station_of(from) else {
            // A mobile out of its old cell, or a node that was never in it.
            let packet = self.packets.remove(slot);
            if !self.on_unreachable(from, to, &packet) {
                self.no_route_drops += 1;
            }
            return Ok(());
        };
        if c.station_of(to).is_none() {
            c.stats.to_absent_drops += 1; // It left the cell.
            let packet = self.packets.remove(slot);
            self.on_unreachable(from, to, &packet);
            return Ok(());
        }
        // The packet waits in the arena; the interface queue holds its slot.
        let st = &mut c.stations[m.index()];
        let packet = self.packets.get_mut(slot);
        match st.ifq.admit(now, packet.ip.ecn.is_ecn_capable()) {
            Admission::Admit => {}
            Admission::AdmitMarked => packet.ip.ecn = Ecn::Ce,
            Admission::Drop => {
                st.stats.queue_drops += 1;
                self.packets.release(slot);
                return Ok(());
            }
        }
        if st.ifq.push((slot, to), packet.size_bytes()).is_err() {
            st.stats.queue_drops += 1;
            self.packets.release(slot);
            return Ok(());
        }
        self.pump(now, cell, m)
    }

    /// `cell_send` for a packet that goes ahead of the data in `from`'s interface queue
    /// (`AgentOutbox::ahead`); the queue's tail makes room for it if it is full.
    pub(in crate::sim) fn cell_send_ahead(
        &mut self,
        now: SimTime,
        cell: CellId,
        from: NodeId,
        to: NodeId,
        slot: PacketSlot,
    ) -> Result<(), SimError> {
        let c = &self.cells[cell.index()];
        let (Some(m), Some(_)) = (c.station_of(from), c.station_of(to)) else {
            return self.cell_send(now, cell, from, to, slot); // Counted as it counts them.
        };
        let size = self.packets.get(slot).size_bytes();
        let st = &mut self.cells[cell.index()].stations[m.index()];
        let evicted = st.ifq.push_front((slot, to), size);
        st.stats.queue_drops += evicted.len() as u64;
        for (dropped, _) in evicted {
            self.packets.release(dropped);
        }
        self.pump(now, cell, m)
    }

    /// Pulls packets from station `m`'s interface queue into its link layers while the link
    /// layer of the head packet's next hop accepts them.
    #[inline]
    fn pump(&mut self, now: SimTime, cell: CellId, m: StationId) -> Result<(), SimError> {
        let st = station(self, cell, m);
        if st.pumping || st.ifq.is_empty() {
            return Ok(());
        }
        self.pump_queue(now, cell, m)
    }

    /// `pump` with packets waiting and no pump already under way at this station.
    #[inline(never)]
    fn pump_queue(&mut self, now: SimTime, cell: CellId, m: StationId) -> Result<(), SimError> {
        station(self, cell, m).pumping = true;
        let result = self.pump_loop(now, cell, m);
        station(self, cell, m).pumping = false;
        result
    }

    fn pump_loop(&mut self, now: SimTime, cell: CellId, m: StationId) -> Result<(), SimError> {
        loop {
            let Some(&(next, peer)) = station(self, cell, m).ifq.front() else {
                return Ok(());
            };
            let li = self.link_index(cell, m, peer)?;
            let st = &mut self.cells[cell.index()].stations[m.index()];
            if !st.links[li].layer.can_accept(self.packets.get(next)) {
                return Ok(());
            }
            st.ifq.pop(now).expect("front was there");
            let node = st.node;
            let packet = self.packets.remove(next);
            self.link_call(now, cell, m, li, LinkInput::FromNetwork(packet))?;
            self.on_datagram_left(now, &packet)?;
            if let Some(agent) = self.agents.departures_at(node) {
                self.on_agent_departed(now, agent, MacSignal::Trans, &packet)?;
            }
        }
    }

    /// The index of `m`'s link layer towards `peer`, made on first use.
    #[inline]
    fn link_index(&mut self, cell: CellId, m: StationId, peer: NodeId) -> Result<usize, SimError> {
        match station(self, cell, m).last_link {
            Some((p, i)) if p == peer => Ok(i),
            _ => self.find_link(cell, m, peer),
        }
    }

    /// `link_index` for a peer other than the last one asked for.
    #[inline(never)]
    fn find_link(&mut self, cell: CellId, m: StationId, peer: NodeId) -> Result<usize, SimError> {
        let st = station(self, cell, m);
        if let Some(&i) = st.peers.get(&peer) {
            st.last_link = Some((peer, i));
            return Ok(i);
        }
        let c = &self.cells[cell.index()];
        let layer = c.new_link_layer(c.is_head(m))?;
        let link = station(self, cell, m).links.len();
        let timer = self.timers.add(TimerOwner::Link {
            cell,
            station: m,
            link: link as u32,
        });
        let st = station(self, cell, m);
        st.links.push(PeerLink { peer, layer, timer });
        st.peers.insert(peer, link);
        st.last_link = Some((peer, link));
        Ok(link)
    }

    /// Calls a link layer and applies its outputs, then re-arms its timer.
    fn link_call(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        li: usize,
        input: LinkInput,
    ) -> Result<(), SimError> {
        // The cell's output stack, as for the MACs (`apply_mac_outputs`).
        let c = &mut self.cells[cell.index()];
        let start = c.link_outputs.len();
        c.stations[m.index()].links[li]
            .layer
            .handle(now, input, &mut c.link_outputs);
        let end = self.cells[cell.index()].link_outputs.len();
        for i in start..end {
            let o = self.cells[cell.index()].link_outputs[i].clone();
            match o {
                LinkOutput::ToMac(frame) => self.mac_enqueue(now, cell, m, li, frame)?,
                LinkOutput::ToNetwork(packet) => self.cell_pass_up(now, cell, m, li, packet)?,
                LinkOutput::AttemptFailed(packet) => {
                    let node = station(self, cell, m).node;
                    if let Some(agent) = self.agents.at(node) {
                        self.on_agent_link(now, agent, MacSignal::TxFailure, &packet)?;
                    }
                }
            }
        }
        self.cells[cell.index()].link_outputs.truncate(start);
        let link = &station(self, cell, m).links[li];
        let (timer, deadline) = (link.timer, link.layer.poll_timeout());
        self.arm(now, timer, deadline)?;
        self.pump(now, cell, m)
    }

    fn cell_pass_up(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        li: usize,
        packet: Packet,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let peer = c.stations[m.index()].links[li].peer;
        if c.station_of(peer).is_some_and(|h| c.is_head(h)) && !c.is_head(m) {
            c.accounting.on_passed_up(&packet);
        }
        let node = c.stations[m.index()].node;
        let slot = self.packets.insert(packet);
        self.schedule(now, Event::Arrive { node, slot })
    }

    fn mac_enqueue(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        li: usize,
        frame: LinkFrame,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let frame = c.stations[m.index()].take_back_resent(li, frame, &mut c.frames);
        let msdu_bytes = frame.size_bytes(c.link_config.tulip());
        let is_reply = matches!(&frame, LinkFrame::Tulip(f) if f.carries_lack())
            && c.replying == Some((m, li));
        if is_reply {
            c.replying = None;
            return self.mac_reply_in_floor(now, cell, m, li, msdu_bytes, frame);
        }
        let to_link = !frame.is_control();
        let payload = c.frames.insert(frame, 1); // The MAC's, until it signals.
        let st = &mut c.stations[m.index()];
        st.at_mac.push_back((li, to_link, payload));
        let dst = st.links[li].peer;
        self.mac_call(
            now,
            cell,
            m,
            MacInput::Enqueue {
                dst,
                msdu_bytes,
                payload,
            },
        )
    }

    /// MAC acceleration: the LACK for the data frame just delivered (alone, or on a data
    /// frame of ours) is the MAC's in-floor reply. The FIFO mirror learns where the MAC put
    /// it (nowhere when sent in the floor); a data frame's signals go to its link layer.
    fn mac_reply_in_floor(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        li: usize,
        msdu_bytes: u32,
        frame: LinkFrame,
    ) -> Result<(), SimError> {
        let to_link = !frame.is_control();
        let c = &mut self.cells[cell.index()];
        let start = c.mac_outputs.len();
        let payload = c.frames.insert(frame, 1);
        let entry = (li, to_link, payload);
        let st = &mut c.stations[m.index()];
        let dst = st.links[li].peer;
        match st
            .mac
            .reply_in_floor(now, dst, msdu_bytes, payload, &mut c.mac_outputs)
        {
            // Sent without signals: only its transmission holds it.
            ReplyDisposition::InFloor => c.frames.disown(payload),
            ReplyDisposition::HeadOfQueue => st.at_mac.push_front(entry),
            ReplyDisposition::Queued => st.at_mac.push_back(entry),
        }
        self.apply_mac_outputs(now, cell, m, start)
    }

    /// Calls a station's MAC and applies its outputs, then re-arms its timer.
    pub(super) fn mac_call(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        input: MacInput<FrameRef>,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let start = c.mac_outputs.len();
        c.stations[m.index()]
            .mac
            .handle(now, input, &mut c.mac_outputs);
        self.apply_mac_outputs(now, cell, m, start)
    }

    /// Applies the outputs a MAC call left in the cell's output stack from `start` on, in
    /// order (the calls they cause stack theirs above and take them off again), then takes
    /// them off and re-arms the MAC's timer.
    fn apply_mac_outputs(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        start: usize,
    ) -> Result<(), SimError> {
        let end = self.cells[cell.index()].mac_outputs.len();
        for i in start..end {
            let o = self.cells[cell.index()].mac_outputs[i].clone();
            match o {
                MacOutput::StartTx { frame, airtime } => {
                    self.start_tx(now, cell, m, frame, airtime)?
                }
                MacOutput::Signal(signal) => self.mac_signal(now, cell, m, signal)?,
                MacOutput::Deliver { from, payload, .. } => {
                    let c = &mut self.cells[cell.index()];
                    // The air holds it until this arrival's end has been handled.
                    let payload = c.frames.get(payload).clone();
                    if c.station_of(from).is_some_and(|h| c.is_head(h)) && !c.is_head(m) {
                        if let Some(p) = payload.data_packet() {
                            c.accounting.on_received(p);
                        }
                    }
                    let replies = c.mac_accelerated && payload.data_packet().is_some();
                    let li = self.link_index(cell, m, from)?;
                    self.cells[cell.index()].replying = replies.then_some((m, li));
                    let result =
                        self.link_call(now, cell, m, li, LinkInput::FrameReceived(payload));
                    self.cells[cell.index()].replying = None;
                    result?;
                }
            }
        }
        self.cells[cell.index()].mac_outputs.truncate(start);
        let st = station(self, cell, m);
        let (timer, deadline) = (st.mac_timer, st.mac.poll_timeout());
        self.arm(now, timer, deadline)
    }

    fn mac_signal(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        signal: MacSignal,
    ) -> Result<(), SimError> {
        let st = station(self, cell, m);
        match signal {
            MacSignal::Trans => match st.at_mac.front() {
                Some(&(li, true, _)) => {
                    self.link_call(now, cell, m, li, LinkInput::MacSignal(signal))
                }
                _ => Ok(()),
            },
            MacSignal::TxSuccess | MacSignal::TxFailure => {
                let node = st.node;
                let Some((li, to_link, frame)) = st.at_mac.pop_front() else {
                    return Ok(());
                };
                // The datagram a data frame carries, for an agent on this station.
                let frames = &mut self.cells[cell.index()].frames;
                let carried = match to_link {
                    true => frames.get(frame).data_packet().copied(),
                    false => None,
                };
                frames.release(frame); // The MAC is done with it.
                if to_link {
                    self.link_call(now, cell, m, li, LinkInput::MacSignal(signal))?;
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

    /// A station's MAC timer expired (a former member's is retired and never gets here).
    pub(in crate::sim) fn on_cell_mac_timer(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
    ) -> Result<(), SimError> {
        self.mac_call(now, cell, m, MacInput::Timeout)
    }

    /// A link layer's timer expired.
    pub(in crate::sim) fn on_cell_link_timer(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        li: usize,
    ) -> Result<(), SimError> {
        self.link_call(now, cell, m, li, LinkInput::Timeout)
    }
}

impl Station {
    /// TULIP hands a data frame still waiting at the MAC again, with its LACK on it (TULIP
    /// §3.3, Figure 4(b)): the MAC gives the first copy back and the FIFO mirror forgets
    /// it. If the MAC has already started its exchange, the LACK goes alone instead.
    fn take_back_resent(
        &mut self,
        li: usize,
        frame: LinkFrame,
        frames: &mut FrameSlab,
    ) -> LinkFrame {
        let LinkFrame::Tulip(TulipFrame::Data {
            seq,
            packet,
            lack: Some(lack),
        }) = frame
        else {
            return frame;
        };
        let waiting = self.at_mac.iter().position(|&(l, to_link, f)| {
            l == li
                && to_link
                && frames
                    .get(f)
                    .data_packet()
                    .is_some_and(|p| p.id == packet.id)
        });
        let Some(i) = waiting else {
            return frame;
        };
        let same = |&f: &FrameRef| {
            matches!(frames.get(f), LinkFrame::Tulip(TulipFrame::Data { seq: s, packet: p, .. })
                if *s == seq && p.id == packet.id)
        };
        match self.mac.withdraw(same) {
            Some(taken) => {
                self.at_mac.remove(i);
                frames.release(taken);
                frame
            }
            None => LinkFrame::Tulip(TulipFrame::Lack {
                lack,
                piggyback: None,
            }),
        }
    }
}
