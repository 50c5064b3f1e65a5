//! SACK-based loss recovery, RFC 6675 ("A Conservative Loss Recovery Algorithm Based on
//! Selective Acknowledgment (SACK) for TCP"), in stream offsets. HighACK is SND.UNA − 1,
//! HighData SND.MAX − 1; HighRxt and RescueRxt are kept as exclusive ends (`high_rxt`,
//! `rescue_rxt`), RecoveryPoint as `DupAcks::recover` (SND.MAX at entry).
//!
//! * **Duplicate ACK** (§2): an ACK whose SACK blocks report bytes between HighACK and
//!   HighData not SACKed before, even if it also advances the cumulative ACK (then DupAcks
//!   is reset first and counts this one, §5).
//! * **Entry** (§5 steps 1–4): not in recovery and HighACK ≥ RecoveryPoint of the last
//!   episode (§5.1), on such a duplicate with DupAcks ≥ DupThresh or `IsLost(HighACK + 1)`:
//!   RecoveryPoint = HighData, ssthresh from the congestion control and cwnd = ssthresh
//!   (4.2, FlightSize without what limited transmit sent), the segment at HighACK + 1
//!   retransmitted at once with HighRxt and RescueRxt set to its end (4.3), `SetPipe` (4.4).
//!   Otherwise, with `limited_transmit`, step (3): HighRxt = HighACK, `SetPipe`, and new
//!   data while cwnd − pipe ≥ 1 SMSS.
//! * **In recovery** (§5 A–C): an ACK covering RecoveryPoint ends it (the scoreboard above
//!   the new HighACK is kept); any other runs `SetPipe`, and the sender transmits
//!   `NextSeg()` while cwnd − pipe ≥ 1 SMSS, adding what it sends to pipe (C.4), moving
//!   HighRxt past retransmissions (C.2) but not past the rescue.
//! * **`SetPipe`** (§4): each un-SACKed byte in [HighACK, HighData] counts once if not
//!   `IsLost` and once more if at or below HighRxt, computed from the scoreboard's `IsLost`
//!   boundary in a few range sums.
//! * **`NextSeg`** (§4): (1) the first un-SACKed byte above HighRxt, below the highest
//!   SACKed byte, that `IsLost`; (2) else new data the receive window allows; (3) else the
//!   first un-SACKed byte above HighRxt below the highest SACKed byte (the RFC's MAY:
//!   taken); (4) else, once per recovery while HighACK > RescueRxt, a rescue segment of up
//!   to SMSS ending at the highest outstanding un-SACKed byte, RescueRxt = RecoveryPoint,
//!   HighRxt unchanged. A segment never runs into SACKed bytes.
//! * **PRR** (`prr.rs`, RFC 6937), when enabled, sets cwnd on every ACK of the recovery and
//!   cwnd = ssthresh at its end; without it cwnd stays at ssthresh throughout (4.2).
//! * **Timeout** (§5.1): RecoveryPoint = HighData (the shared `on_timeout`), recovery ends,
//!   and the scoreboard is cleared (RFC 2018 §8; the survey's §2.4.1: "all SACKed segments
//!   are now considered un-SACKed") unless `keep_sack_after_timeout` (§5.1 notes that view
//!   of RFC 2018; Linux and ns-3 keep it).
//!
//! * **RACK-TLP** (`rack.rs`, RFC 8985, with `rack`): RACK's marks replace `IsLost`:
//!   recovery begins when RACK judges a segment lost, rule (1) sends the lowest segment
//!   judged lost and not retransmitted since (below HighRxt too: a lost retransmission),
//!   pipe counts un-SACKed data not lost plus retransmissions in flight, and rules (3) and
//!   (4) are not used (Linux neither; TLP probes the tail instead).
//!
//! Left out: the optional timer re-arm on every retransmission of §6 (the timer is the
//! RFC 6298 one), and any use of D-SACK (RFC 6675 makes none).

use super::prr::Prr;
use super::rack::Rack;
use super::{DupAcks, Flight, NextSeg, Reaction, SackContext, Scoreboard, SegKind, SendContext};
use crate::tcp::cc::{CongestionControl, CongestionWindow};

/// RFC 6675's state beyond what every recovery shares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackState {
    pub in_recovery: bool,
    /// HighRxt + 1: the end of the highest retransmission of this recovery.
    pub high_rxt: u64,
    /// RescueRxt + 1, once defined.
    pub rescue_rxt: Option<u64>,
    /// The estimate of bytes in the network (`SetPipe`, plus what was sent since).
    pub pipe: u64,
    /// RFC 6937, when enabled.
    pub prr: Option<Prr>,
    prr_enabled: bool,
    limited_transmit: bool,
    /// RFC 8985 loss detection, when on.
    pub rack: Option<Box<Rack>>,
}

/// What one ACK brought, as the SACK recoveries read it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SackAck {
    /// Bytes newly acknowledged cumulatively.
    pub acked: u64,
    /// Bytes the SACK blocks reported for the first time.
    pub newly_sacked: u64,
    /// RFC 6937 DeliveredData: Δ SND.UNA + Δ SACKed bytes.
    pub delivered: u64,
    /// Un-SACKed bytes this ACK's SACK blocks made `IsLost` for the first time.
    pub newly_lost: u64,
    /// An RFC 5681 duplicate ACK (FACK counts these).
    pub rfc5681_dupack: bool,
}

impl SackState {
    pub fn new(prr: bool, limited_transmit: bool, rack: bool) -> Self {
        SackState {
            prr_enabled: prr,
            limited_transmit,
            rack: rack.then(Box::default),
            ..SackState::default()
        }
    }

    /// §5 for one ACK, after the scoreboard took its blocks (`Update()`).
    pub fn on_ack(&mut self, c: &mut SackContext, a: &SackAck) -> Reaction {
        if a.acked > 0 {
            c.dupacks.count = 0;
            c.dupacks.limited_sent = 0;
        }
        let rack_lost = match self.rack.as_mut() {
            Some(r) => {
                let recovering = self.in_recovery || c.after_timeout;
                r.on_ack(
                    c.now,
                    c.f.snd_una,
                    c.board,
                    c.srtt,
                    recovering,
                    c.dupacks.threshold,
                );
                r.has_lost(c.f.snd_una)
            }
            None => false,
        };
        if self.in_recovery {
            return self.in_recovery_ack(c.dupacks, c.board, c.w, c.f, a);
        }
        let normal = Reaction {
            restart_rto: a.acked > 0,
            grow_window: a.acked > 0,
            ..Reaction::default()
        };
        if c.f.snd_una < c.dupacks.recover {
            return normal;
        }
        if self.rack.is_some() {
            if a.newly_sacked > 0 {
                c.dupacks.count += 1;
            }
            if !rack_lost {
                return self.before_recovery(c, normal);
            }
            self.enter(c, a);
            return Reaction {
                restart_rto: true,
                fast_retransmit: true,
                ..Reaction::default()
            };
        }
        if a.newly_sacked == 0 {
            return normal;
        }
        c.dupacks.count += 1;
        let lost = c.board.is_lost(c.f.snd_una, c.dupacks.threshold, c.f.mss);
        if c.dupacks.count >= c.dupacks.threshold || lost {
            self.enter(c, a);
            return Reaction {
                restart_rto: true,
                fast_retransmit: true,
                ..Reaction::default()
            };
        }
        self.before_recovery(c, normal)
    }

    /// A duplicate ACK that does not start recovery: limited transmit's step (3).
    fn before_recovery(&mut self, c: &mut SackContext, normal: Reaction) -> Reaction {
        if self.limited_transmit && c.dupacks.count > 0 {
            // Step (3): HighRxt = HighACK, SetPipe; the sender then sends new data only.
            self.high_rxt = c.f.snd_una;
            self.set_pipe(c.board, c.f);
        }
        normal
    }

    /// Steps (4.1)–(4.4); the sender makes the retransmission of (4.3), `hole` (with RACK:
    /// the lowest segment judged lost).
    pub(super) fn enter(&mut self, c: &mut SackContext, a: &SackAck) {
        let f = c.f;
        c.dupacks.recover = f.snd_max;
        let flight = c.dupacks.flight_for_ssthresh(f, c.w.cwnd);
        c.w.ssthresh = c.cc.ssthresh_on_loss(c.now, c.w, flight, f.mss);
        c.w.cwnd = c.w.ssthresh;
        self.in_recovery = true;
        self.high_rxt = f.snd_una;
        self.rescue_rxt = None;
        *c.hole = match self.rack.as_mut() {
            Some(r) => {
                r.cancel_probe();
                r.first_lost(f.snd_una).map(|(start, _)| start)
            }
            None => Some(f.snd_una),
        };
        self.set_pipe(c.board, f);
        if self.prr_enabled {
            // RFC 6937: RecoverFS = snd.nxt − snd.una, then this ACK's share.
            let mut prr = Prr::start(f.size());
            c.w.cwnd = prr.on_ack(a.delivered, self.pipe, c.w.ssthresh, f.mss);
            self.prr = Some(prr);
        }
    }

    /// Steps (A) and (B).
    fn in_recovery_ack(
        &mut self,
        dupacks: &mut DupAcks,
        board: &Scoreboard,
        w: &mut CongestionWindow,
        f: &Flight,
        a: &SackAck,
    ) -> Reaction {
        let reaction = Reaction {
            restart_rto: a.acked > 0,
            ..Reaction::default()
        };
        if f.snd_una >= dupacks.recover {
            self.in_recovery = false;
            dupacks.count = 0;
            if self.prr.take().is_some() {
                // RFC 6937: on exiting recovery, cwnd = ssthresh.
                w.cwnd = w.ssthresh;
            }
            return reaction;
        }
        self.set_pipe(board, f);
        if let Some(prr) = self.prr.as_mut() {
            w.cwnd = prr.on_ack(a.delivered, self.pipe, w.ssthresh, f.mss);
        }
        reaction
    }

    /// RFC 6675 `SetPipe()`: un-SACKed bytes in [SND.UNA, SND.MAX) that are not lost, plus
    /// those already retransmitted (below HighRxt + 1).
    pub fn set_pipe(&mut self, board: &Scoreboard, f: &Flight) {
        self.pipe = self.pipe_of(board, f);
    }

    /// What `SetPipe()` would give now (with RACK, from its marks).
    pub fn pipe_of(&self, board: &Scoreboard, f: &Flight) -> u64 {
        if let Some(r) = &self.rack {
            return r.pipe(f.snd_una);
        }
        let not_lost_from = board.lost_below().clamp(f.snd_una, f.snd_max);
        let retransmitted_to = self.high_rxt.clamp(f.snd_una, f.snd_max);
        board.unsacked_in(not_lost_from, f.snd_max) + board.unsacked_in(f.snd_una, retransmitted_to)
    }

    /// True when the sender must use `next_seg` under cwnd − pipe: in recovery, and in
    /// step (3) between the first duplicate ACK and recovery.
    pub fn gates_sending(&self, dupacks: &DupAcks) -> bool {
        self.in_recovery || (self.limited_transmit && dupacks.count > 0)
    }

    /// RFC 6675 `NextSeg()` (only new data outside recovery, step 3.3), if cwnd − pipe
    /// allows one SMSS.
    pub fn next_seg(&self, board: &Scoreboard, c: &SendContext) -> Option<NextSeg> {
        if c.cwnd < self.pipe + c.mss {
            return None;
        }
        if !self.in_recovery {
            return new_data(c);
        }
        if let Some(r) = &self.rack {
            // Rule (1) with RACK's marks, then new data; no rules (3) and (4).
            if let Some((start, _)) = r.first_lost(c.snd_una) {
                let start = board.next_hole(start);
                return Some(hole_segment(board, c, start, SegKind::Lost));
            }
            return new_data(c);
        }
        let highest = board.highest_sacked().unwrap_or(c.snd_una);
        let s2 = board.next_hole(self.high_rxt.max(c.snd_una));
        if s2 < highest && s2 < board.lost_below() {
            return Some(hole_segment(board, c, s2, SegKind::Lost));
        }
        if let Some(seg) = new_data(c) {
            return Some(seg);
        }
        if s2 < highest {
            return Some(hole_segment(board, c, s2, SegKind::Unsure));
        }
        self.rescue(board, c)
    }

    /// Rule (4): once per recovery, the segment holding the highest un-SACKed byte.
    fn rescue(&self, board: &Scoreboard, c: &SendContext) -> Option<NextSeg> {
        if self.rescue_rxt.is_some_and(|r| c.snd_una <= r) {
            return None;
        }
        let (hole_start, hole_end) = last_hole(board, c.snd_una, c.snd_max)?;
        // Once sent, the FIN is the octet at `written`: the segment carrying it ends there.
        let end = hole_end.min(c.written);
        let start = end.saturating_sub(c.mss).max(hole_start).min(end);
        Some(NextSeg {
            offset: start,
            len: end - start,
            kind: SegKind::Rescue,
        })
    }

    /// A segment chosen by `next_seg` (or the retransmission of (4.3), `kind` Lost) was sent,
    /// covering [offset, seq_end) of sequence space.
    pub fn on_sent(&mut self, kind: SegKind, offset: u64, seq_end: u64, recover: u64) {
        let bytes = (seq_end - offset).max(1);
        self.pipe += bytes;
        if let Some(prr) = self.prr.as_mut() {
            prr.on_sent(bytes);
        }
        match kind {
            SegKind::Lost | SegKind::Unsure => {
                // (C.2); at entry (4.3) RescueRxt starts here too.
                self.high_rxt = self.high_rxt.max(seq_end);
                self.rescue_rxt.get_or_insert(seq_end);
            }
            SegKind::Rescue => self.rescue_rxt = Some(recover),
            SegKind::New => {}
        }
    }

    /// The retransmission timer expired (§5.1).
    pub fn on_timeout(&mut self) {
        self.in_recovery = false;
        self.prr = None;
        self.pipe = 0;
    }
}

/// Rule (2): up to one SMSS of new data the receive window allows (or the FIN alone).
pub(super) fn new_data(c: &SendContext) -> Option<NextSeg> {
    let offset = c.snd_max;
    let window_end = c.snd_una + c.snd_wnd;
    let len = c
        .mss
        .min(c.written.saturating_sub(offset))
        .min(window_end.saturating_sub(offset));
    let fin_alone = c.fin_queued && offset == c.written;
    (len > 0 || fin_alone).then_some(NextSeg {
        offset,
        len,
        kind: SegKind::New,
    })
}

/// Up to one SMSS from the un-SACKed `start`, stopping before SACKed bytes and at the end
/// of the data (a zero length there is the FIN alone).
pub(super) fn hole_segment(
    board: &Scoreboard,
    c: &SendContext,
    start: u64,
    kind: SegKind,
) -> NextSeg {
    let stop = board.next_sacked_after(start).unwrap_or(u64::MAX);
    let len = c.mss.min(stop - start).min(c.written.saturating_sub(start));
    NextSeg {
        offset: start,
        len,
        kind,
    }
}

/// The highest stretch of un-SACKed bytes in [snd_una, snd_max), if any.
fn last_hole(board: &Scoreboard, snd_una: u64, snd_max: u64) -> Option<(u64, u64)> {
    let mut last = None;
    let mut from = snd_una;
    while from < snd_max {
        let hole = board.next_hole(from);
        if hole >= snd_max {
            break;
        }
        let end = board
            .next_sacked_after(hole)
            .unwrap_or(snd_max)
            .min(snd_max);
        last = Some((hole, end));
        from = end;
    }
    last
}
