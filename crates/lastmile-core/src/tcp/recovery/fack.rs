//! Forward acknowledgment, M. Mathis and J. Mahdavi, "Forward Acknowledgement: Refining
//! TCP Congestion Control", SIGCOMM 1996 (the survey's §2.4.2), in stream offsets.
//!
//! * **State**: snd.fack, the forward-most byte the receiver holds (the highest SACKed
//!   byte + 1, or SND.UNA); retran_data, the retransmitted bytes not yet acknowledged or
//!   SACKed; and awnd = snd.nxt − snd.fack + retran_data, the data actually in the network
//!   (snd.nxt being the next new byte, SND.MAX here, since retransmissions are counted by
//!   retran_data).
//! * **Sending**: while SACK information or a recovery is in play the sender sends only
//!   while awnd < cwnd (one SMSS at a time: cwnd − awnd ≥ SMSS), so data SACKed above a
//!   hole lets new data out before any recovery, as the paper's sender does.
//! * **Trigger**: recovery starts when snd.fack − SND.UNA > DupThresh·SMSS (the paper's
//!   3 MSS: more than three segments are known to have arrived above the hole, which one
//!   ACK can report) or on the DupThresh-th RFC 5681 duplicate ACK, once SND.UNA has passed
//!   the `recover` of the last episode.
//! * **Recovery**: recover = SND.MAX; ssthresh from the congestion control (Reno's
//!   FlightSize/2, the paper's halving) and cwnd = ssthresh, one reduction per episode; the
//!   segment at SND.UNA is retransmitted at once; then, under awnd, every un-SACKed hole
//!   below snd.fack is retransmitted in sequence order, once per recovery, before new
//!   data. An ACK covering `recover` ends it; cwnd stays at ssthresh and does not grow
//!   during recovery.
//! * **Timeout**: recovery ends, retran_data = 0, the scoreboard is cleared (as ns-2's
//!   `Agent/TCP/Fack`), and the sender goes back to SND.UNA with cwnd = 1 SMSS.
//!
//! Left out: the paper's refinements "overdamping" and "rampdown" (off by default in
//! ns-2's FACK too), and the detection of a lost retransmission other than by the timer.

use super::sack::{hole_segment, new_data, SackAck};
use super::{NextSeg, Reaction, SackContext, Scoreboard, SegKind, SendContext};
use crate::ranges::RangeSet;
use crate::tcp::cc::CongestionControl;

/// FACK's state beyond what every recovery shares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FackState {
    pub in_recovery: bool,
    /// Holes below this were retransmitted in this recovery.
    high_rxt: u64,
    /// Retransmitted bytes neither acknowledged nor SACKed: retran_data is their total.
    retransmitted: RangeSet,
}

impl FackState {
    /// snd.fack: the forward-most byte held by the receiver (exclusive), at least SND.UNA.
    pub fn fack(board: &Scoreboard, snd_una: u64) -> u64 {
        board.highest_sacked().unwrap_or(snd_una).max(snd_una)
    }

    /// retran_data.
    pub fn retran_data(&self) -> u64 {
        self.retransmitted.total()
    }

    /// awnd = snd.nxt − snd.fack + retran_data.
    pub fn awnd(&self, board: &Scoreboard, snd_una: u64, snd_max: u64) -> u64 {
        snd_max.saturating_sub(Self::fack(board, snd_una)) + self.retran_data()
    }

    /// One ACK, after the scoreboard took its blocks.
    pub fn on_ack(&mut self, c: &mut SackContext, a: &SackAck) -> Reaction {
        let f = c.f;
        self.forget_delivered(c.board, f.snd_una);
        if a.rfc5681_dupack {
            c.dupacks.count += 1;
        } else {
            // A new ACK, or one at SND.UNA that is no duplicate: count afresh (4.4BSD).
            c.dupacks.count = 0;
        }
        if self.in_recovery {
            if f.snd_una >= c.dupacks.recover {
                self.in_recovery = false;
                c.dupacks.count = 0;
            }
            return Reaction {
                restart_rto: a.acked > 0,
                ..Reaction::default()
            };
        }
        let beyond = Self::fack(c.board, f.snd_una) - f.snd_una;
        let trigger = beyond > u64::from(c.dupacks.threshold) * f.mss
            || (a.rfc5681_dupack && c.dupacks.count == c.dupacks.threshold);
        if !trigger || f.snd_una < c.dupacks.recover {
            return Reaction {
                restart_rto: a.acked > 0,
                grow_window: a.acked > 0,
                ..Reaction::default()
            };
        }
        c.dupacks.recover = f.snd_max;
        let flight = c.dupacks.loss_window(f, c.w.cwnd, f.size());
        c.w.ssthresh = c.cc.ssthresh_on_loss(c.now, c.w, flight, f.mss);
        c.w.cwnd = c.w.ssthresh;
        self.in_recovery = true;
        self.high_rxt = f.snd_una;
        *c.hole = Some(f.snd_una);
        Reaction {
            restart_rto: true,
            fast_retransmit: true,
            ..Reaction::default()
        }
    }

    /// Retransmitted bytes now acknowledged or SACKed leave retran_data.
    fn forget_delivered(&mut self, board: &Scoreboard, snd_una: u64) {
        if self.retransmitted.is_empty() {
            return;
        }
        self.retransmitted.trim_below(snd_una);
        for (start, end) in board.ranges() {
            self.retransmitted.remove(start, end);
        }
    }

    /// True when sending is gated by awnd: in recovery, or with SACK information while the
    /// sender is sending new data.
    pub fn gates_sending(&self, board: &Scoreboard, snd_nxt: u64, snd_max: u64) -> bool {
        self.in_recovery || (!board.is_empty() && snd_nxt == snd_max)
    }

    /// The next segment under awnd: a hole below snd.fack (in recovery), else new data.
    pub fn next_seg(&self, board: &Scoreboard, c: &SendContext) -> Option<NextSeg> {
        if c.cwnd < self.awnd(board, c.snd_una, c.snd_max) + c.mss {
            return None;
        }
        if self.in_recovery {
            let s = board.next_hole(self.high_rxt.max(c.snd_una));
            if s < Self::fack(board, c.snd_una) {
                return Some(hole_segment(board, c, s, SegKind::Lost));
            }
        }
        new_data(c)
    }

    /// A segment was sent covering [offset, seq_end); retransmissions join retran_data.
    pub fn on_sent(&mut self, kind: SegKind, offset: u64, seq_end: u64) {
        if kind != SegKind::New && seq_end > offset {
            self.retransmitted.insert(offset, seq_end);
            self.high_rxt = self.high_rxt.max(seq_end);
        }
    }

    /// The retransmission timer expired.
    pub fn on_timeout(&mut self) {
        self.in_recovery = false;
        self.retransmitted = RangeSet::new();
    }
}
