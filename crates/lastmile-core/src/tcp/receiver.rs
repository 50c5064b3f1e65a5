//! The receiving half: reassembly, the ACK policy and the advertised window.
//!
//! * **Reassembly** (RFC 9293 §3.10.7.4): data is accepted within
//!   [RCV.NXT, RCV.NXT + rwnd) and trimmed to it. In-order bytes go to the application at
//!   once (it consumes immediately); out-of-order bytes are held in a small sorted set of
//!   non-overlapping ranges, each with the origin time of the segment that brought it
//!   (adjacent ranges with the same origin coalesce), and are released in order, each
//!   byte exactly once, as soon as the hole before them fills. Bytes already received are
//!   dropped and re-acknowledged.
//! * **Advertised window**: rwnd minus the bytes held out of order, but the right edge
//!   RCV.NXT + window never moves left (RFC 9293 §3.8.6.2.2 / RFC 1122 §4.2.2.16: a
//!   receiver SHOULD NOT shrink the window). So while a hole is open the window stays
//!   what it was and duplicate ACKs carry the same window, as RFC 5681 §2's duplicate-ACK
//!   definition needs; once the hole fills, the held bytes are released and the full
//!   window returns.
//! * **ACK policy** `every`: an ACK for every segment that occupies sequence space (ns-2's
//!   TCPSink). `delayed` (RFC 5681 §4.2, RFC 1122 §4.2.3.2): an ACK for every second
//!   in-order segment (segments are counted, as ns-2's `DelAck` does, so data sent in
//!   writes smaller than SMSS is not held for the timer), otherwise after `delack_timeout`
//!   from the first unacknowledged segment (a one-shot timer as in ns-2, not BSD's
//!   free-running 200 ms clock); an immediate ACK for an out-of-order or duplicate
//!   segment, for a segment that fills all or part of a hole, and for a FIN. Any segment
//!   we send carries the ACK and clears the pending one.
//! * **Lazy consumption** (`set_backlog`, for a relay such as I-TCP's base station): bytes
//!   delivered but not yet consumed by the application count against the buffer, so the
//!   window advertised is what is free; with receiver SWS avoidance (RFC 1122 §4.2.3.3,
//!   Stevens' "at least one full segment") it is zero until a full segment fits. The right
//!   edge still never moves left.
//! * **Freeze** (`set_frozen`, Freeze-TCP's receiver): a zero window on purpose, for as long
//!   as the mobile expects to be out of reach.
//! * **FIN**: remembered where it sits in the stream and consumed once every byte before
//!   it has arrived.
//! * **SACK blocks** (RFC 2018 §4, once SACK-permitted was exchanged): every ACK sent while
//!   data is held out of order carries blocks. The first is the contiguous block holding the
//!   segment that triggered the ACK, unless that segment advanced the cumulative ACK; the
//!   rest repeat the most recently reported first blocks (grown to the contiguous block that
//!   now holds them) that are not subsets of a block already included, then any other held
//!   blocks from the highest down, as many as fit (`sack_blocks(max)`: 4, or 3 beside
//!   timestamps).
//! * **D-SACK** (RFC 2883 §4, with `dsack`): a segment that brings bytes already received
//!   is reported in a first block with the edges of the duplicate range, in the ACK for that
//!   segment only; if the duplicate lies in a block held above the cumulative ACK, that
//!   block is the second. It counts against the block limit.
//! * **DAASS** (`ack = "daass"`, Allman 1998): an ACK for every in-order segment the
//!   sender sent in slow start, the delayed-ACK rule for the others. The receiver cannot
//!   observe the sender's state, so the segment carries it (`TcpHeader::
//!   sender_in_slow_start`, simulation-only): an oracle, as a simulation study may use, not
//!   a heuristic. Which signal Allman's own simulations used could not be checked against
//!   the paper's text here.
//! * **ECN** (RFC 3168 §6.1.3): after a CE-marked data segment every ACK carries ECE until
//!   a segment carrying CWR arrives (a CWR segment that is itself marked keeps ECE on).
//!
//! Left out: window scaling, PAWS, urgent data, and data on a SYN.

use std::collections::VecDeque;

use super::spec::AckPolicy;

/// How many recently reported first blocks are remembered for RFC 2018's repetition.
const RECENT_BLOCKS: usize = 8;

/// The SACK blocks of one ACK, in stream offsets, in the order they are sent.
pub type SackList = ([(u64, u64); 4], usize);
use crate::engine::{SimDuration, SimTime};

use super::api::Delivery;

/// Out-of-order bytes held for reassembly.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Held {
    start: u64,
    end: u64,
    origin_time: SimTime,
}

/// A sorted set of non-overlapping held ranges.
#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    ranges: VecDeque<Held>,
    bytes: u64,
}

impl Reassembly {
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
    /// Bytes held out of order.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// The number of separate ranges held.
    pub fn ranges(&self) -> usize {
        self.ranges.len()
    }

    /// Holds the parts of [start, end) not already held.
    fn insert(&mut self, start: u64, end: u64, origin_time: SimTime) {
        let mut i = self.ranges.partition_point(|h| h.end <= start);
        let mut cursor = start;
        while cursor < end {
            match self.ranges.get(i) {
                Some(h) if h.start <= cursor => {
                    cursor = cursor.max(h.end);
                    i += 1;
                }
                next => {
                    let piece_end = next.map_or(end, |h| h.start.min(end));
                    self.bytes += piece_end - cursor;
                    i = self.put(i, cursor, piece_end, origin_time);
                    cursor = piece_end;
                }
            }
        }
    }

    /// Inserts a piece at index `i`, merging with its left neighbour when contiguous and of
    /// the same origin; returns the index just past it.
    fn put(&mut self, i: usize, start: u64, end: u64, origin_time: SimTime) -> usize {
        if i > 0 {
            let left = &mut self.ranges[i - 1];
            if left.end == start && left.origin_time == origin_time {
                left.end = end;
                return i;
            }
        }
        self.ranges.insert(
            i,
            Held {
                start,
                end,
                origin_time,
            },
        );
        i + 1
    }

    /// The contiguous run of held bytes that contains `offset` (several entries may touch).
    pub fn contiguous(&self, offset: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|h| h.end <= offset);
        let h = self.ranges.get(i).filter(|h| h.start <= offset)?;
        let (mut start, mut end) = (h.start, h.end);
        for left in self.ranges.range(..i).rev() {
            if left.end != start {
                break;
            }
            start = left.start;
        }
        for right in self.ranges.range(i + 1..) {
            if right.start != end {
                break;
            }
            end = right.end;
        }
        Some((start, end))
    }

    /// The first part of [start, end) already held, as a contiguous range.
    fn first_overlap(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        let i = self.ranges.partition_point(|h| h.end <= start);
        let h = self.ranges.get(i).filter(|h| h.start < end)?;
        let from = start.max(h.start);
        let (_, held_end) = self.contiguous(from)?;
        Some((from, held_end.min(end)))
    }

    /// The contiguous held runs, highest first.
    fn runs_descending(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut next = self.ranges.len();
        std::iter::from_fn(move || {
            let last = self.ranges.get(next.checked_sub(1)?)?;
            let (start, end) = self.contiguous(last.start)?;
            next = self.ranges.partition_point(|h| h.end <= start);
            Some((start, end))
        })
    }

    /// Removes and returns the first range if it starts at or before `offset`.
    fn pop_ready(&mut self, offset: u64) -> Option<Held> {
        if self.ranges.front()?.start > offset {
            return None;
        }
        let h = self.ranges.pop_front()?;
        self.bytes -= h.end - h.start;
        Some(h)
    }
}

/// The receiving half of a connection.
#[derive(Clone, Debug)]
pub struct Receiver {
    rwnd: u64,
    policy: AckPolicy,
    delack_timeout: SimDuration,
    /// Next expected stream offset.
    rcv_nxt: u64,
    held: Reassembly,
    fin_at: Option<u64>,
    fin_received: bool,
    /// The right edge of the largest window advertised so far.
    right_edge: u64,
    /// Segments received in order since the last ACK we sent.
    unacked_segments: u32,
    ack_now: bool,
    delack_at: Option<SimTime>,
    /// Delivered bytes the application has not consumed yet (lazy consumption only).
    backlog: u64,
    /// Set once the application consumes lazily: the segment size for SWS avoidance.
    lazy_mss: Option<u64>,
    /// The window in the last ACK built.
    last_advertised: u64,
    /// Advertising a zero window on purpose (Freeze-TCP), whatever the buffer holds.
    frozen: bool,
    /// SACK-permitted was exchanged: ACKs carry SACK blocks (RFC 2018).
    sack: bool,
    /// Report duplicates in D-SACK blocks (RFC 2883).
    dsack: bool,
    /// A point in each recently reported first block, most recent first (RFC 2018 §4).
    recent_blocks: VecDeque<u64>,
    /// The duplicate range of the most recent segment, for the next ACK only (RFC 2883).
    dsack_pending: Option<(u64, u64)>,
    /// The segment being processed was sent in slow start (DAASS).
    sender_in_slow_start: bool,
    /// Set ECE on ACKs: a CE mark arrived and no CWR since (RFC 3168 §6.1.3).
    ece: bool,
}

impl Receiver {
    pub fn new(rwnd: u64, policy: AckPolicy, delack_timeout: SimDuration) -> Self {
        Receiver {
            rwnd,
            policy,
            delack_timeout,
            rcv_nxt: 0,
            held: Reassembly::default(),
            fin_at: None,
            fin_received: false,
            right_edge: rwnd,
            unacked_segments: 0,
            ack_now: false,
            delack_at: None,
            backlog: 0,
            lazy_mss: None,
            last_advertised: rwnd,
            frozen: false,
            sack: false,
            dsack: false,
            recent_blocks: VecDeque::new(),
            dsack_pending: None,
            sender_in_slow_start: false,
            ece: false,
        }
    }

    /// SACK-permitted was exchanged on the SYNs; `dsack` adds RFC 2883 reports.
    pub fn enable_sack(&mut self, dsack: bool) {
        self.sack = true;
        self.dsack = dsack;
    }
    pub fn sack_enabled(&self) -> bool {
        self.sack
    }

    /// What the next segment says of its sender (DAASS reads it).
    pub fn note_sender_state(&mut self, in_slow_start: bool) {
        self.sender_in_slow_start = in_slow_start;
    }

    /// RFC 3168 §6.1.3: a segment with `cwr` ends the echo, one marked `ce` starts it.
    pub fn on_ecn(&mut self, ce: bool, cwr: bool) {
        if cwr {
            self.ece = false;
        }
        if ce {
            self.ece = true;
        }
    }
    /// Whether ACKs carry ECE now.
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// The SACK blocks for the ACK being built, at most `max` (RFC 2018 §4, RFC 2883 §4),
    /// in stream offsets; none without SACK or with nothing to report.
    pub fn sack_blocks(&mut self, max: usize) -> SackList {
        let mut out = ([(0, 0); 4], 0);
        if !self.sack || (self.held.is_empty() && self.dsack_pending.is_none()) {
            return out;
        }
        let max = max.min(4);
        let push = |b: (u64, u64), out: &mut SackList| {
            let (blocks, n) = out;
            let inside = blocks[..*n].iter().any(|&(s, e)| s <= b.0 && b.1 <= e);
            if *n < max && !inside {
                blocks[*n] = b;
                *n += 1;
            }
        };
        if let Some(d) = self.dsack_pending {
            // RFC 2883 rules 3 and 4: the duplicate's own edges, then its enclosing block.
            out.0[0] = d;
            out.1 = 1;
            if let Some(b) = self
                .held
                .contiguous(d.0)
                .filter(|&(s, e)| s <= d.0 && d.1 <= e)
            {
                out.0[1] = b;
                out.1 = 2;
            }
        }
        let rcv_nxt = self.rcv_nxt;
        self.recent_blocks.retain(|&o| o >= rcv_nxt);
        for &o in &self.recent_blocks {
            if out.1 == max {
                return out;
            }
            if let Some(b) = self.held.contiguous(o) {
                push(b, &mut out);
            }
        }
        for b in self.held.runs_descending() {
            if out.1 == max {
                break;
            }
            push(b, &mut out);
        }
        out
    }

    /// Remembers the block holding `offset` as the most recent first block.
    #[inline(never)]
    fn report_first(&mut self, offset: u64) {
        // One entry per block: older points inside the same block say nothing more.
        if let Some((start, end)) = self.held.contiguous(offset) {
            self.recent_blocks.retain(|&o| o < start || o >= end);
        }
        self.recent_blocks.push_front(offset);
        self.recent_blocks.truncate(RECENT_BLOCKS);
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn fin_received(&self) -> bool {
        self.fin_received
    }
    pub fn held(&self) -> &Reassembly {
        &self.held
    }
    /// The ACK number as an offset in sequence space past the ISN+1 (the FIN counts one).
    pub fn ack_offset(&self) -> u64 {
        self.rcv_nxt + u64::from(self.fin_received)
    }
    pub fn ack_due(&self) -> bool {
        self.ack_now
    }
    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.delack_at
    }
    /// Asks for an immediate ACK (handshake, delayed-ACK expiry, unacceptable segment).
    pub fn request_ack(&mut self) {
        self.ack_now = true;
    }

    /// The delayed-ACK timer reached `now`.
    pub fn on_delack_timer(&mut self, now: SimTime) {
        if self.delack_at.is_some_and(|t| t <= now) {
            self.delack_at = None;
            self.ack_now = true;
        }
    }

    /// A segment we sent carried the current ACK.
    pub fn on_ack_sent(&mut self) {
        self.dsack_pending = None;
        self.ack_now = false;
        self.unacked_segments = 0;
        self.delack_at = None;
    }

    /// The window to advertise now (see the module notes); records the right edge. Frozen,
    /// it is zero and the right edge stays where it was: data already sent within it is
    /// still accepted.
    pub fn advertise_window(&mut self) -> u32 {
        if self.frozen {
            self.last_advertised = 0;
            return 0;
        }
        let fresh = self.rcv_nxt + self.free_window();
        self.right_edge = self.right_edge.max(fresh);
        self.last_advertised = self.right_edge - self.rcv_nxt;
        self.last_advertised.min(u64::from(u32::MAX)) as u32
    }

    /// Freeze-TCP (Goff et al., INFOCOM 2000): while `frozen`, every ACK advertises a zero
    /// window; unfrozen, the real window returns.
    pub fn set_frozen(&mut self, frozen: bool) {
        self.frozen = frozen;
    }
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// The free buffer, zero below one segment when consuming lazily (SWS avoidance).
    fn free_window(&self) -> u64 {
        let free = self.rwnd.saturating_sub(self.held.bytes() + self.backlog);
        match self.lazy_mss {
            Some(mss) if free < mss => 0,
            _ => free,
        }
    }

    /// The application holds `bytes` of the delivered data unconsumed; segments of `mss`.
    /// Returns true when the window reopens from below one segment (a window update is due).
    pub fn set_backlog(&mut self, bytes: u64, mss: u64) -> bool {
        self.lazy_mss = Some(mss.max(1));
        self.backlog = bytes;
        self.last_advertised < mss && self.rcv_nxt + self.free_window() > self.right_edge
    }

    /// A segment whose data starts at stream offset `start` (negative: before the first
    /// byte, i.e. a repeated SYN) arrived; in-order bytes are pushed to `delivered`.
    /// Returns the number of bytes delivered.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        start: i64,
        len: u32,
        fin: bool,
        origin_time: SimTime,
        delivered: &mut Vec<Delivery>,
    ) -> u64 {
        let end = start + i64::from(len);
        if fin && end >= 0 && self.fin_at.is_none() {
            self.fin_at = Some(end as u64);
        }
        if len == 0 && !fin {
            return 0;
        }
        let before = self.rcv_nxt;
        let start = start.max(0) as u64;
        // Up to the buffer's free space, or the right edge already advertised.
        let limit = (self.rcv_nxt + self.rwnd.saturating_sub(self.backlog)).max(self.right_edge);
        let end = (end.max(0) as u64).min(limit);
        let first = start.max(self.rcv_nxt);
        if self.dsack {
            self.note_duplicate(start, end.max(start));
        }
        if first < end && first > self.rcv_nxt {
            self.held.insert(first, end, origin_time);
            if self.sack {
                self.report_first(first);
            }
            self.ack_now = true;
        } else if first < end {
            let had_hole = !self.held.is_empty();
            self.deliver(first, end, origin_time, delivered);
            self.release(delivered);
            self.on_in_order(now, had_hole);
        } else if len > 0 {
            // Nothing new: a duplicate (or beyond the buffer). RFC 9293 §3.10.7.4: re-ACK.
            self.ack_now = true;
        }
        self.consume_fin(fin);
        self.rcv_nxt - before
    }

    /// RFC 2883 rule 1: the duplicate part of the segment [start, end), if any, is reported
    /// in the next ACK.
    fn note_duplicate(&mut self, start: u64, end: u64) {
        let dup = if start < self.rcv_nxt {
            Some((start, end.min(self.rcv_nxt)))
        } else {
            self.held.first_overlap(start, end)
        };
        self.dsack_pending = dup.filter(|(s, e)| s < e);
    }

    /// True while a D-SACK block waits for the next ACK.
    pub fn dsack_reported(&self) -> bool {
        self.dsack_pending.is_some()
    }

    fn consume_fin(&mut self, fin_flag: bool) {
        if self.fin_at == Some(self.rcv_nxt) && !self.fin_received {
            self.fin_received = true;
            self.ack_now = true;
        } else if fin_flag {
            // A FIN out of order, or one already consumed: answer at once.
            self.ack_now = true;
        }
    }

    fn deliver(&mut self, from: u64, to: u64, origin_time: SimTime, out: &mut Vec<Delivery>) {
        debug_assert_eq!(from, self.rcv_nxt);
        if let Some(fin) = self.fin_at {
            // Nothing past the FIN is data.
            if from >= fin {
                return;
            }
        }
        let to = self.fin_at.map_or(to, |f| to.min(f));
        if self.lazy_mss.is_some() {
            // Not consumed until the application says so (`set_backlog`).
            self.backlog += to - from;
        }
        out.push(Delivery {
            offset: from,
            len: (to - from) as u32,
            origin_time,
        });
        self.rcv_nxt = to;
    }

    /// Releases held ranges that the new RCV.NXT has reached.
    fn release(&mut self, out: &mut Vec<Delivery>) {
        while let Some(h) = self.held.pop_ready(self.rcv_nxt) {
            if h.end > self.rcv_nxt {
                self.deliver(self.rcv_nxt, h.end, h.origin_time, out);
            }
        }
    }

    fn on_in_order(&mut self, now: SimTime, filled_hole: bool) {
        match self.policy {
            AckPolicy::Every => self.ack_now = true,
            AckPolicy::Daass if self.sender_in_slow_start => self.ack_now = true,
            AckPolicy::Delayed | AckPolicy::Daass if filled_hole => self.ack_now = true,
            AckPolicy::Delayed | AckPolicy::Daass => {
                self.unacked_segments += 1;
                if self.unacked_segments >= 2 {
                    self.ack_now = true;
                } else if self.delack_at.is_none() {
                    self.delack_at = Some(now + self.delack_timeout);
                }
            }
        }
    }
}

#[cfg(test)]
mod lazy_consumption_tests {
    use super::*;

    #[test]
    fn relay_buffer_window_is_free_space_zero_below_a_segment_and_reopens() {
        let mut r = Receiver::new(3000, AckPolicy::Every, SimDuration::from_millis(200));
        assert!(!r.set_backlog(0, 1000));
        let mut out = Vec::new();
        r.on_segment(SimTime::ZERO, 0, 1000, false, SimTime::ZERO, &mut out);
        assert_eq!(
            r.advertise_window(),
            2000,
            "delivered bytes are not consumed yet"
        );
        r.on_segment(SimTime::ZERO, 1000, 1500, false, SimTime::ZERO, &mut out);
        assert_eq!(r.advertise_window(), 500, "the right edge promised stays");
        r.on_segment(SimTime::ZERO, 2500, 500, false, SimTime::ZERO, &mut out);
        assert_eq!(r.advertise_window(), 0, "full");
        // Beyond the advertised edge nothing is accepted.
        assert_eq!(
            r.on_segment(SimTime::ZERO, 3000, 500, false, SimTime::ZERO, &mut out),
            0
        );
        assert!(
            !r.set_backlog(2500, 1000),
            "500 B free: less than a segment, still zero"
        );
        assert_eq!(r.advertise_window(), 0);
        // The application consumed 2500 B: 2500 B free, a window update is due.
        assert!(r.set_backlog(500, 1000));
        assert_eq!(r.advertise_window(), 2500);
        assert!(
            !r.set_backlog(400, 1000),
            "no update when the window was open"
        );
    }
}
