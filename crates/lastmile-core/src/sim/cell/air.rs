//! The cell's medium side (module notes of `sim::cell`): a MAC's transmission put on the
//! medium with an arrival start and end at every other member, and those arrivals' ends
//! turned into the receiver's MAC inputs, counters, captures and traces.

use crate::engine::{SimDuration, SimTime};
use crate::ids::StationId;
use crate::net::CellId;
use crate::wireless::link::LinkFrame;
use crate::wireless::mac::{FrameKind, MacFrame, MacInput};
use crate::wireless::medium::{FrameMeta, RxOutcome, TxId};

use super::super::world::{Event, World};
use super::super::SimError;
use super::frames::FrameRef;
use super::{station, InFlight};

impl World {
    pub(super) fn start_tx(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        frame: MacFrame<FrameRef>,
        airtime: SimDuration,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let end = now + airtime;
        c.stats.busy += end.saturating_since(now.max(c.busy_until));
        c.busy_until = c.busy_until.max(end);
        c.stats.transmissions += 1;
        c.stations[m.index()].stats.frames_sent += 1;
        let data = match (&frame.kind, frame.payload) {
            (FrameKind::Data, Some(f)) => c.frames.get(f).data_packet().copied(),
            _ => None,
        };
        let frame_bytes = c.stations[m.index()].mac.frame_bytes(&frame);
        let air_bits = 8 * u64::from(frame_bytes);
        c.stats.air_bits += c.code.map_or(air_bits, |code| code.coded_bits(air_bits));
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
        let node = c.stations[m.index()].node;
        let mut arrivals = std::mem::take(&mut c.arrivals);
        let tx = c
            .medium
            .start_tx_into(now, node, airtime, meta, &mut arrivals);
        if self.captures.is_some() {
            self.capture_cell_frame(cell, tx, now, &frame, !arrivals.is_empty())?;
        }
        let c = &mut self.cells[cell.index()];
        // A frame that reaches no one is never looked up (nor held: an in-floor reply,
        // which only its transmission holds, leaves at once).
        let reached = !arrivals.is_empty();
        if let Some(f) = frame.payload {
            c.frames.hold(f);
            if !reached {
                c.frames.release(f);
            }
        }
        c.in_flight.insert(
            tx,
            reached.then_some(InFlight {
                frame,
                sender: m,
                left: arrivals.len(),
            }),
        );
        for a in arrivals.drain(..) {
            let station = c.station_of(a.receiver).expect("a member");
            self.queue
                .schedule(a.start, Event::CellRxStart { cell, station })?;
            self.queue
                .schedule(a.end, Event::CellRxEnd { cell, station, tx })?;
        }
        self.cells[cell.index()].arrivals = arrivals;
        Ok(())
    }

    /// The capture's record of a frame put on the air (only with a capture open).
    #[cold]
    #[inline(never)]
    fn capture_cell_frame(
        &mut self,
        cell: CellId,
        tx: TxId,
        now: SimTime,
        frame: &MacFrame<FrameRef>,
        heard: bool,
    ) -> Result<(), SimError> {
        let frames = &self.cells[cell.index()].frames;
        let frame = frame.map_payload(|&f| frames.get(f).clone());
        if let Some(captures) = self.captures.as_mut() {
            captures.cell_started(cell.index(), tx, now, &frame, heard)?;
        }
        Ok(())
    }

    /// A transmission starts arriving at `m`: the idle → busy edge of carrier sense.
    pub(in crate::sim) fn on_cell_rx_start(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let st = &mut c.stations[m.index()];
        if st.present && !st.reported_busy && c.medium.is_busy(st.node, now) {
            st.reported_busy = true;
            self.mac_call(now, cell, m, MacInput::MediumBusy)?;
        }
        Ok(())
    }

    /// Transmission `tx` has finished arriving at `m`: the medium decides its fate there.
    pub(in crate::sim) fn on_cell_rx_end(
        &mut self,
        now: SimTime,
        cell: CellId,
        m: StationId,
        tx: TxId,
    ) -> Result<(), SimError> {
        let c = &mut self.cells[cell.index()];
        let (node, present) = (c.stations[m.index()].node, c.stations[m.index()].present);
        let outcome = c.medium.finish_rx(tx, node);
        let (frame, sender, last) = match c.in_flight.get_mut(tx) {
            Some(f) => {
                f.left -= 1;
                let sender = f.sender;
                if f.left == 0 {
                    let f = c.in_flight.remove(tx).expect("present");
                    (f.frame, sender, true)
                } else {
                    (f.frame.clone(), sender, false)
                }
            }
            None => return Ok(()),
        };
        // The air holds the frame until its last arrival has been handled (a delivery
        // reads it); `air_done` lets it go then.
        let air_done = if last { frame.payload } else { None };
        let addressed = present && frame.ra == node;
        if let Some(captures) = self.captures.as_mut() {
            if addressed {
                captures.cell_received(cell.index(), tx, node, &outcome)?;
            }
            if last {
                captures.cell_done(cell.index(), tx)?;
            }
        }
        if !present {
            self.release_air_frame(cell, air_done);
            return Ok(()); // It left the cell while the frame was on its way.
        }
        let c = &mut self.cells[cell.index()];
        let lost = !matches!(outcome, RxOutcome::Intact);
        let payload = frame.payload.map(|f| c.frames.get(f));
        if addressed && lost && c.is_head(sender) && frame.kind == FrameKind::Data {
            let data = payload.and_then(LinkFrame::data_packet);
            if data.is_some_and(|p| p.payload_len() > 0 && p.tcp().is_some()) {
                c.accounting.data_frames_lost += 1;
            }
        }
        if addressed && self.traces.wireless_tx {
            if let Some(p) = payload.and_then(LinkFrame::carried_packet) {
                // Cells are numbered after the links in the trace's `link` column.
                let hop = (self.links.len() + cell.index()) as u32;
                self.traces.on_wireless_tx(now, hop, p, lost);
            }
        }
        if addressed && outcome == RxOutcome::Errored {
            // The channel corrupted it (not a collision): an ELN receiver reads its header.
            if let Some(&p) = payload.and_then(LinkFrame::data_packet) {
                if p.payload_len() > 0 {
                    self.on_corrupted_frame(now, node, &p)?;
                }
            }
        }
        if addressed {
            let stats = &mut station(self, cell, m).stats;
            match outcome {
                // Overlaps, including the half-duplex case of an addressee that was itself
                // transmitting (with two stations the only kind of collision there is).
                RxOutcome::Collided | RxOutcome::Missed => stats.rx_collided += 1,
                RxOutcome::Errored => stats.rx_errored += 1,
                RxOutcome::Intact => {}
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
        let st = &mut c.stations[m.index()];
        if st.reported_busy && !c.medium.is_busy(node, now) {
            st.reported_busy = false;
            self.mac_call(now, cell, m, MacInput::MediumIdle)?;
        }
        self.release_air_frame(cell, air_done);
        Ok(())
    }

    /// The air's hold on a frame whose last arrival has been handled.
    fn release_air_frame(&mut self, cell: CellId, frame: Option<FrameRef>) {
        if let Some(f) = frame {
            self.cells[cell.index()].frames.release(f);
        }
    }
}
