//! Frames that end without an event: a point-to-point link direction whose queue is empty
//! when a frame starts needs no event at the frame's end unless a packet queues behind it.
//!
//! What the end does (`World::on_tx_done`) is done when the frame starts, with the result a
//! run that queued the end as an event gets, event for event but for that one:
//!
//! - **the loss draw**: each error model owns its random stream and sees its channel's
//!   frames in order with their start and end times (`Channel::judge`), whenever it draws;
//! - **the arrival** one propagation delay after the end joins the direction's propagation
//!   FIFO at a provisional place, the one reserved for the end, and is watched until the
//!   end's place is passed (`engine::provisional`): an event scheduled for the arrival's
//!   very nanosecond in between moves it behind, where the end's event would have put it;
//! - **the counters** (`frames_lost`) are counted once the end's place is passed: when the
//!   next packet is offered to the direction, when the run ends (`settle_passed`), or
//!   at the end's event if one was queued;
//! - **the transmitter** stays busy until the end's place is passed: a packet offered
//!   before it queues, and then the end is queued as an event at the place it reserved,
//!   to start the next frame as before.
//!
//! Directions where the end does more stay on the event (`QuietEnds::allowed`): a link
//! that can go down under a mobile's handoff (the end checks `up`), the accounted
//! direction of the summary's wireless link (its data accounting reads the packet), a
//! traced wireless link (the trace's row is written at the end, in time order with the
//! others), a run with pcap capture, a node whose agent follows departures
//! (`Agent::wants_departures`: `TxSuccess` when the last bit has left), a link without
//! propagation delay (its arrival and end would share a place), and an emulation with
//! real hosts (its packets enter between events, `sim::external`).

use crate::engine::{EventQueue, SimDuration, SimTime};
use crate::ids::{Direction, LinkId};

use super::world::{Event, PacketSlot, World};
use super::SimError;

/// A frame on the wire whose end has no event queued.
#[derive(Copy, Clone, Debug)]
pub struct FrameEnd {
    /// The end's place in the order: its time and the sequence number reserved for it when
    /// the frame started.
    tx_end: SimTime,
    seq: u64,
    lost: bool,
    /// A packet queued behind the frame: its end is an event after all.
    queued: bool,
}

impl FrameEnd {
    #[inline(always)]
    fn place(&self) -> u128 {
        EventQueue::<Event>::place(self.tx_end, self.seq)
    }
}

/// Per direction of a link, whether its frames may end without an event, and the frame on
/// the wire that does.
#[derive(Debug, Default)]
pub struct QuietEnds {
    allowed: [bool; 2],
    pending: [Option<FrameEnd>; 2],
}

/// The watch owner number of a link direction.
fn owner(link: LinkId, dir: Direction) -> u32 {
    link.0 * 2 + dir.index() as u32
}

impl World {
    /// Says which link directions may end frames without an event (module notes); called
    /// when the run starts, once captures and agents are in place.
    pub(super) fn allow_quiet_ends(&mut self) {
        for i in 0..self.links.len() {
            for d in [Direction::Forward, Direction::Reverse] {
                let l = &self.links[i];
                let channel = &l.dirs[d.index()];
                let allowed = self.external.is_none()
                    && self.captures.is_none()
                    && channel.delay > SimDuration::ZERO
                    && self.link_mobile(LinkId(i as u32)).is_none()
                    && !(l.accounted && d.index() == 0)
                    && !(l.wireless && self.traces.wireless_tx)
                    && self.agents.departures_at(channel.from).is_none();
                self.links[i].quiet.allowed[d.index()] = allowed;
            }
        }
    }

    /// Whether the frame just started on `link`'s direction `dir` may end without an event:
    /// its direction allows it and nothing waits behind it.
    #[inline(always)]
    pub(super) fn may_end_quietly(&self, link: LinkId, dir: Direction) -> bool {
        let l = &self.links[link.index()];
        l.quiet.allowed[dir.index()] && l.dirs[dir.index()].queue_len() == 0
    }

    /// Starts the frame in `slot`, whose last bit leaves at `tx_end`, without an event at
    /// its end (`may_end_quietly` said it may), or with the event when its arrival cannot
    /// be watched.
    #[inline(never)]
    pub(super) fn start_quiet(
        &mut self,
        link: LinkId,
        dir: Direction,
        slot: PacketSlot,
        tx_end: SimTime,
    ) -> Result<(), SimError> {
        let d = dir.index();
        let arrival = tx_end + self.links[link.index()].dirs[d].delay;
        // The end's place, which the event would have taken, whether or not it is queued.
        let seq = self.queue.reserve_seq(tx_end);
        let place = EventQueue::<Event>::place(tx_end, seq);
        if !self.queue.try_watch(arrival, seq, place, owner(link, dir)) {
            return Ok(self
                .queue
                .schedule_reserved(tx_end, seq, Event::TxDone { link, dir })?);
        }
        let l = &mut self.links[link.index()];
        let lost =
            l.dirs[d].can_lose() && l.dirs[d].judge(tx_end, self.packets.get(slot).payload_len());
        l.quiet.pending[d] = Some(FrameEnd {
            tx_end,
            seq,
            lost,
            queued: false,
        });
        if lost {
            self.queue.unwatch(arrival, place);
            self.packets.release(slot);
            return Ok(());
        }
        self.propagate(link, dir, arrival, seq, slot)
    }

    /// Before a packet is offered to `link`'s direction `dir`: the frame on its wire ended
    /// without an event, if the run is past its end.
    #[inline(always)]
    pub(super) fn settle_if_passed(&mut self, link: LinkId, dir: Direction) {
        let pending = &mut self.links[link.index()].quiet.pending[dir.index()];
        if let Some(end) = *pending {
            if self.queue.passed(end.place()) {
                *pending = None;
                self.end_quiet(link, dir, end);
            }
        }
    }

    /// A packet was queued on `link`'s direction `dir`: if the frame on the wire was to end
    /// without an event, its end is queued now, at the place it reserved.
    #[inline(always)]
    pub(super) fn queue_quiet_end(&mut self, link: LinkId, dir: Direction) -> Result<(), SimError> {
        let pending = &mut self.links[link.index()].quiet.pending[dir.index()];
        match pending {
            Some(end) if !end.queued => {
                end.queued = true;
                let (at, seq) = (end.tx_end, end.seq);
                Ok(self
                    .queue
                    .schedule_reserved(at, seq, Event::TxDone { link, dir })?)
            }
            _ => Ok(()),
        }
    }

    /// The end's event of a frame started without one popped: the frame has ended, true;
    /// false if the frame on the wire had its event from the start.
    #[inline]
    pub(super) fn take_quiet_end(&mut self, link: LinkId, dir: Direction) -> bool {
        match self.links[link.index()].quiet.pending[dir.index()].take() {
            Some(end) => {
                self.end_quiet(link, dir, end);
                true
            }
            None => false,
        }
    }

    /// The frame's end is passed: the transmitter is free, the loss counted (the arrival's
    /// watch, if any, is dead now and left to be taken over).
    #[inline(always)]
    fn end_quiet(&mut self, link: LinkId, dir: Direction, end: FrameEnd) {
        self.links[link.index()].dirs[dir.index()].clear_wire(end.lost);
    }

    /// The run stopped with the event at place `boundary` the next it would process: ends
    /// before it are passed and counted (the summary reads the counters).
    pub(super) fn settle_passed(&mut self, boundary: u128) {
        for i in 0..self.links.len() {
            let link = LinkId(i as u32);
            for dir in [Direction::Forward, Direction::Reverse] {
                let pending = &mut self.links[i].quiet.pending[dir.index()];
                if let Some(end) = *pending {
                    if end.place() < boundary {
                        *pending = None;
                        self.end_quiet(link, dir, end);
                    }
                }
            }
        }
    }

    /// Moves the arrivals whose provisional places an event of the one just processed
    /// flagged (module notes); each is the last of its direction's FIFO, and in the queue
    /// if it is also the first.
    #[cold]
    #[inline(never)]
    pub(super) fn move_watched_arrivals(&mut self) {
        for m in self.queue.take_moves() {
            let (link, d) = ((m.owner / 2) as usize, (m.owner % 2) as usize);
            let fifo = &mut self.links[link].propagating[d];
            let last = fifo
                .back_mut()
                .expect("a watched arrival is in its direction's FIFO");
            debug_assert_eq!((last.at, last.seq), (m.at, m.old_seq));
            last.seq = m.new_seq;
            if fifo.len() == 1 {
                let moved = self.queue.move_entry(m.at, m.old_seq, m.new_seq);
                debug_assert!(moved, "the first arrival of a FIFO is queued");
            }
        }
    }
}

#[cfg(test)]
mod tests;
