//! RACK-TLP (RFC 8985, "The RACK-TLP Loss Detection Algorithm for TCP", 2021) for SACK
//! recovery (`rack = true`), in stream offsets. RACK replaces RFC 6675's DupThresh rule
//! (`IsLost`) by time: a segment is lost once a segment sent after it has been delivered
//! and RACK.rtt + reo_wnd have passed since it was (last) sent, which also finds a lost
//! retransmission; TLP sends a probe when ACKs stop, so a tail loss is repaired by fast
//! recovery rather than the retransmission timer.
//!
//! * **Per segment** (§6.1): the latest transmission time, whether it was retransmitted,
//!   SACKed, lost (and whether its retransmission since is in flight: Linux's LOST and
//!   RETRANS flags). A segment is one transmission of new data; a retransmission covers
//!   the segments it overlaps.
//! * **On each ACK** (§6.2): for every segment newly delivered (cumulatively or SACKed),
//!   RACK.rtt = now − its send time unless it was retransmitted and that is below
//!   RACK.min_RTT (the ACK is probably for the original), and RACK.xmit_ts/end_seq follow
//!   the most recently sent of them (`RACK_sent_after`); a segment not retransmitted
//!   delivered below RACK.fack means reordering (step 3). Then every segment sent before
//!   RACK's is lost if now ≥ its send time + RACK.rtt + reo_wnd, else the reordering timer
//!   is armed for the earliest such time (step 5, `RACK_detect_loss_and_arm_timer`).
//! * **reo_wnd** (§6.2 step 4): 0 in recovery, or with DupThresh segments SACKed, while no
//!   reordering has been seen; else min(RACK.min_RTT / 4, SRTT). Left out: its growth with
//!   D-SACK rounds (reo_wnd_incr stays 1).
//! * **On a timeout** (§6.3): the segment at SND.UNA and every segment whose time is up are
//!   lost.
//! * **TLP** (§7): after new data is sent, or an ACK advances SND.UNA, outside recovery and
//!   with nothing SACKed, a probe timeout PTO = 2·SRTT (+ 200 ms, WCDelAckT, for a flight
//!   of one segment; 1 s without SRTT), never beyond the retransmission timer. When it
//!   fires: one new segment if there is one and the receive window allows it, else the
//!   highest segment sent again; TLP.end_seq = SND.MAX, at most one probe per episode, and
//!   the retransmission timer restarts. When SND.UNA passes TLP.end_seq: a probe of new
//!   data ends the episode; a retransmitted probe did repair a loss unless a D-SACK reports
//!   it duplicate, and then the congestion control reduces as for a fast recovery (§7.4).
//!
//! The recovery (`sack.rs`) enters on the first segment RACK marks lost, retransmits lost
//! segments first (RFC 6675 `NextSeg` rule 1, with RACK's marks: below HighRxt too), counts
//! pipe as Linux's `tcp_packets_in_flight` (un-SACKed, not lost, plus retransmissions in
//! flight) and sends no rescue retransmission (TLP's job).

use std::collections::VecDeque;

use crate::engine::{SimDuration, SimTime};

use super::Scoreboard;

/// RFC 8985 §7.2 WCDelAckT: the worst-case delayed-ACK timer.
const WC_DEL_ACK_T: SimDuration = SimDuration::from_millis(200);
/// The PTO without an RTT sample.
const PTO_WITHOUT_SRTT: SimDuration = SimDuration::from_secs(1);

/// One transmission of new data and what became of it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct RackSeg {
    start: u64,
    end: u64,
    /// Its latest transmission.
    xmit_ts: SimTime,
    retransmitted: bool,
    sacked: bool,
    /// Judged lost (by RACK, or a timeout).
    lost: bool,
    /// Retransmitted since it was judged lost, and not judged lost again.
    rtx_in_flight: bool,
}

impl RackSeg {
    /// Still to be judged: sent and neither delivered nor already judged lost.
    fn is_pending(&self) -> bool {
        !self.sacked && (!self.lost || self.rtx_in_flight)
    }
}

/// What an ACK told the TLP episode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TlpOutcome {
    /// Nothing to do.
    None,
    /// A retransmitted probe repaired a loss: reduce the window as for a fast recovery.
    LossRepaired,
}

/// RACK-TLP's state for one connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    segs: VecDeque<RackSeg>,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered.
    latest: Option<(SimTime, u64)>,
    /// RACK.rtt.
    rtt: Option<SimDuration>,
    /// RACK.min_RTT.
    min_rtt: Option<SimDuration>,
    /// RACK.fack: the highest end of a segment delivered without retransmission.
    fack: u64,
    reordering_seen: bool,
    /// The reordering timer.
    reo_deadline: Option<SimTime>,
    /// The probe timer.
    pto_deadline: Option<SimTime>,
    /// TLP.end_seq and TLP.is_retrans of the episode's probe.
    tlp_end: Option<u64>,
    tlp_is_retrans: bool,
    /// Probes sent.
    pub probes: u64,
}

/// A TLP probe to send: new data at SND.MAX, or the last segment again.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Probe {
    NewData,
    /// Retransmit [start, end).
    Retransmit {
        start: u64,
        end: u64,
    },
}

impl Rack {
    /// A segment [start, end) left at `now`; `retransmission` when it was sent before.
    pub fn on_sent(&mut self, now: SimTime, start: u64, end: u64, retransmission: bool) {
        if !retransmission {
            if self.segs.back().is_none_or(|s| s.end <= start) && end > start {
                self.segs.push_back(RackSeg {
                    start,
                    end,
                    xmit_ts: now,
                    retransmitted: false,
                    sacked: false,
                    lost: false,
                    rtx_in_flight: false,
                });
            }
            return;
        }
        let i = self.segs.partition_point(|s| s.end <= start);
        for s in self.segs.range_mut(i..).take_while(|s| s.start < end) {
            s.xmit_ts = now;
            s.retransmitted = true;
            s.rtx_in_flight = s.lost;
        }
    }

    /// Data is outstanding and a new transmission or ACK (re)starts the probe timer
    /// (§7.2): `flight` bytes outstanding, `mss`, `srtt`, the retransmission timer's
    /// deadline.
    pub fn schedule_probe(
        &mut self,
        now: SimTime,
        flight: u64,
        mss: u64,
        srtt: Option<SimDuration>,
        rto_deadline: Option<SimTime>,
    ) {
        if self.tlp_end.is_some() || self.segs.iter().any(|s| s.sacked) {
            self.pto_deadline = None;
            return;
        }
        let mut pto = srtt.map_or(PTO_WITHOUT_SRTT, |s| s.saturating_mul(2));
        if srtt.is_some() && flight <= mss {
            pto = SimDuration::from_nanos(pto.as_nanos() + WC_DEL_ACK_T.as_nanos());
        }
        let mut at = now + pto;
        if let Some(rto) = rto_deadline {
            at = at.min(rto);
        }
        self.pto_deadline = Some(at);
    }

    /// No probe now (recovery began, a timeout, nothing outstanding).
    pub fn cancel_probe(&mut self) {
        self.pto_deadline = None;
    }

    /// Neither timer runs (nothing outstanding).
    pub fn cancel_timers(&mut self) {
        self.pto_deadline = None;
        self.reo_deadline = None;
    }

    /// The earlier of the reordering timer and the probe timer.
    pub fn deadline(&self) -> Option<SimTime> {
        match (self.reo_deadline, self.pto_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn reo_deadline(&self) -> Option<SimTime> {
        self.reo_deadline
    }

    pub fn pto_deadline(&self) -> Option<SimTime> {
        self.pto_deadline
    }

    /// The probe timer fired: what to send (§7.3), or nothing if this episode already
    /// probed. `new_data` says whether new data may go.
    pub fn on_pto(&mut self, snd_max: u64, new_data: bool) -> Option<Probe> {
        self.pto_deadline = None;
        if self.tlp_end.is_some() {
            return None;
        }
        let probe = if new_data {
            Probe::NewData
        } else {
            let last = self.segs.iter().rev().find(|s| !s.sacked)?;
            Probe::Retransmit {
                start: last.start,
                end: last.end,
            }
        };
        self.tlp_is_retrans = matches!(probe, Probe::Retransmit { .. });
        self.tlp_end = Some(snd_max);
        self.probes += 1;
        Some(probe)
    }

    /// The probe went out; TLP.end_seq = SND.MAX after it.
    pub fn on_probe_sent(&mut self, snd_max: u64) {
        if self.tlp_end.is_some() {
            self.tlp_end = Some(snd_max);
        }
    }

    /// §6.2 for one ACK, after the scoreboard took its blocks: true if a segment was newly
    /// judged lost. `in_recovery` covers fast and timeout recovery.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(
        &mut self,
        now: SimTime,
        snd_una: u64,
        board: &Scoreboard,
        srtt: Option<SimDuration>,
        in_recovery: bool,
        dupthresh: u32,
    ) -> bool {
        self.update_delivered(now, snd_una, board);
        self.detect_loss(now, srtt, in_recovery, dupthresh)
    }

    /// Steps 1–3: the segments this ACK delivered update RACK.rtt, RACK.xmit_ts/end_seq,
    /// RACK.min_RTT and RACK.fack; delivered segments leave or are marked SACKed.
    fn update_delivered(&mut self, now: SimTime, snd_una: u64, board: &Scoreboard) {
        let mut newly = Vec::new();
        while let Some(s) = self.segs.front().filter(|s| s.end <= snd_una).copied() {
            if !s.sacked {
                newly.push(s);
            }
            self.segs.pop_front();
        }
        if !board.is_empty() {
            for s in self.segs.iter_mut().filter(|s| !s.sacked) {
                if board.is_sacked(s.start, s.end) {
                    s.sacked = true;
                    newly.push(*s);
                }
            }
        }
        newly.sort_by_key(|s| (s.xmit_ts, s.end));
        for s in newly {
            let rtt = now.saturating_since(s.xmit_ts);
            if s.retransmitted && self.min_rtt.is_some_and(|m| rtt < m) {
                continue;
            }
            if !s.retransmitted {
                self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
                if s.end > self.fack {
                    self.fack = s.end;
                } else if s.end < self.fack {
                    self.reordering_seen = true;
                }
            }
            self.rtt = Some(rtt);
            if self
                .latest
                .is_none_or(|l| sent_after((s.xmit_ts, s.end), l))
            {
                self.latest = Some((s.xmit_ts, s.end));
            }
        }
    }

    /// §6.2 step 4, `RACK_reo_wnd`.
    fn reo_wnd(&self, srtt: Option<SimDuration>, in_recovery: bool, dupthresh: u32) -> SimDuration {
        if !self.reordering_seen {
            let sacked = self.segs.iter().filter(|s| s.sacked).count();
            if in_recovery || sacked >= dupthresh as usize {
                return SimDuration::ZERO;
            }
        }
        let quarter = SimDuration::from_nanos(self.min_rtt.map_or(0, |m| m.as_nanos() / 4));
        srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// §6.2 step 5, `RACK_detect_loss_and_arm_timer`: true if a segment was newly lost.
    pub fn detect_loss(
        &mut self,
        now: SimTime,
        srtt: Option<SimDuration>,
        in_recovery: bool,
        dupthresh: u32,
    ) -> bool {
        self.reo_deadline = None;
        let (Some(latest), Some(rtt)) = (self.latest, self.rtt) else {
            return false;
        };
        let reo_wnd = self.reo_wnd(srtt, in_recovery, dupthresh);
        let mut lost_any = false;
        let mut timer: Option<SimTime> = None;
        for s in self.segs.iter_mut().filter(|s| s.is_pending()) {
            if !sent_after(latest, (s.xmit_ts, s.end)) {
                continue;
            }
            let due = s.xmit_ts + rtt + reo_wnd;
            if due <= now {
                s.lost = true;
                s.rtx_in_flight = false;
                lost_any = true;
            } else {
                timer = Some(timer.map_or(due, |t| t.min(due)));
            }
        }
        self.reo_deadline = timer;
        lost_any
    }

    /// The retransmission timer expired (§6.3): the segment at SND.UNA and every segment
    /// whose time is up are lost; no probe or reordering timer runs.
    pub fn on_timeout(&mut self, now: SimTime, snd_una: u64, srtt: Option<SimDuration>) {
        let reo_wnd = self.reo_wnd(srtt, true, 0);
        let rtt = self.rtt;
        for s in self.segs.iter_mut().filter(|s| !s.sacked) {
            let due = rtt.map(|r| s.xmit_ts + r + reo_wnd);
            if s.start <= snd_una || due.is_some_and(|d| d <= now) {
                s.lost = true;
                s.rtx_in_flight = false;
            }
        }
        self.reo_deadline = None;
        self.pto_deadline = None;
        self.tlp_end = None;
    }

    /// §7.4 on an ACK that moved SND.UNA to `snd_una`; `dsack` the D-SACK block it carried.
    pub fn on_tlp_ack(&mut self, snd_una: u64, dsack: Option<(u64, u64)>) -> TlpOutcome {
        let Some(end) = self.tlp_end else {
            return TlpOutcome::None;
        };
        if snd_una < end {
            return TlpOutcome::None;
        }
        self.tlp_end = None;
        let duplicate = dsack.is_some_and(|(s, e)| s < end && e >= end);
        if self.tlp_is_retrans && !duplicate {
            TlpOutcome::LossRepaired
        } else {
            TlpOutcome::None
        }
    }

    /// Un-SACKed, not-lost data plus retransmissions in flight (Linux's
    /// `tcp_packets_in_flight`, RFC 6675's `SetPipe` with RACK's marks).
    pub fn pipe(&self, snd_una: u64) -> u64 {
        self.segs
            .iter()
            .filter(|s| !s.sacked && s.end > snd_una)
            .map(|s| {
                let len = s.end - s.start.max(snd_una);
                len * (u64::from(!s.lost) + u64::from(s.rtx_in_flight))
            })
            .sum()
    }

    /// The lowest segment judged lost and not retransmitted since: `NextSeg` rule (1).
    pub fn first_lost(&self, snd_una: u64) -> Option<(u64, u64)> {
        self.segs
            .iter()
            .find(|s| !s.sacked && s.lost && !s.rtx_in_flight && s.end > snd_una)
            .map(|s| (s.start.max(snd_una), s.end))
    }

    /// True if any segment waits for its retransmission.
    pub fn has_lost(&self, snd_una: u64) -> bool {
        self.first_lost(snd_una).is_some()
    }
}

/// `RACK_sent_after(t1, seq1, t2, seq2)`: (t1, seq1) was sent after (t2, seq2).
fn sent_after(a: (SimTime, u64), b: (SimTime, u64)) -> bool {
    a.0 > b.0 || (a.0 == b.0 && a.1 > b.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEG: u64 = 1000;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// Ten segments sent 1 ms apart from 0 ms.
    fn ten() -> Rack {
        let mut r = Rack::default();
        for k in 0..10 {
            r.on_sent(at_ms(k), k * SEG, (k + 1) * SEG, false);
        }
        r
    }

    fn sacked(ranges: &[(u64, u64)]) -> Scoreboard {
        let mut b = Scoreboard::default();
        for &(s, e) in ranges {
            b.on_sack(0, s * SEG, e * SEG);
        }
        b
    }

    /// RFC 8985 §6.2: with three segments SACKed above it (DupThresh) and no reordering
    /// seen, reo_wnd is 0: segment 0, sent before the delivered ones, is lost at once.
    #[test]
    fn rfc8985_a_hole_below_dupthresh_sacked_segments_is_lost_at_once() {
        let mut r = ten();
        let b = sacked(&[(1, 4)]);
        assert!(r.on_ack(
            at_ms(103),
            0,
            &b,
            Some(SimDuration::from_millis(100)),
            false,
            3
        ));
        assert_eq!(r.first_lost(0), Some((0, SEG)));
    }

    /// With one segment SACKed, reo_wnd = min_RTT/4 = 25 ms: the hole is lost once
    /// RACK.rtt + 25 ms have passed since it was sent; the reordering timer says when.
    #[test]
    fn rfc8985_reordering_window_defers_the_verdict_to_the_timer() {
        let mut r = ten();
        let b = sacked(&[(1, 2)]);
        assert!(!r.on_ack(
            at_ms(101),
            0,
            &b,
            Some(SimDuration::from_millis(100)),
            false,
            3
        ));
        // Segment 0 sent at 0 ms: due at 0 + 100 (RACK.rtt) + 25 = 125 ms.
        assert_eq!(r.reo_deadline(), Some(at_ms(125)));
        assert!(r.detect_loss(at_ms(125), Some(SimDuration::from_millis(100)), false, 3));
        assert_eq!(r.first_lost(0), Some((0, SEG)));
    }

    /// The point of RACK: a retransmission lost again is found when a segment sent after
    /// it is delivered and its RTT has passed, without the retransmission timer.
    #[test]
    fn rfc8985_a_lost_retransmission_is_detected_by_later_deliveries() {
        let mut r = ten();
        let srtt = Some(SimDuration::from_millis(100));
        let b = sacked(&[(1, 4)]);
        assert!(r.on_ack(at_ms(103), 0, &b, srtt, false, 3));
        // Segment 0 retransmitted at 103 ms and lost again; new segments 10.. sent after.
        r.on_sent(at_ms(103), 0, SEG, true);
        assert_eq!(r.first_lost(0), None, "in flight again");
        for k in 10..14 {
            r.on_sent(at_ms(100 + k), k * SEG, (k + 1) * SEG, false);
        }
        // Segments 10..14 (sent at 110–113 ms) SACKed at 210–213 ms: RACK.rtt = 100 ms,
        // and segment 0's retransmission (103 ms) is due at 203 ms.
        let b = sacked(&[(1, 10), (10, 14)]);
        assert!(r.on_ack(at_ms(213), 0, &b, srtt, true, 3));
        assert_eq!(r.first_lost(0), Some((0, SEG)));
        assert_eq!(r.pipe(0), 0, "the lost retransmission left the pipe");
    }

    /// A retransmission whose ACK comes sooner than min_RTT acknowledges the original: it
    /// gives no RACK.rtt (§6.2 step 2).
    #[test]
    fn rfc8985_an_ack_faster_than_min_rtt_after_a_retransmission_is_for_the_original() {
        let mut r = ten();
        let srtt = Some(SimDuration::from_millis(100));
        r.on_ack(at_ms(101), SEG, &Scoreboard::default(), srtt, false, 3);
        assert_eq!(r.rtt, Some(SimDuration::from_millis(101)));
        r.on_sent(at_ms(150), SEG, 2 * SEG, true);
        r.on_ack(at_ms(160), 2 * SEG, &Scoreboard::default(), srtt, false, 3);
        assert_eq!(
            r.rtt,
            Some(SimDuration::from_millis(101)),
            "10 ms < min_RTT"
        );
    }

    /// TLP (§7.2): PTO = 2·SRTT, plus WCDelAckT for a single segment, never past the RTO.
    #[test]
    fn rfc8985_pto_is_two_srtt_capped_by_the_rto() {
        let mut r = ten();
        let srtt = Some(SimDuration::from_millis(100));
        r.schedule_probe(at_ms(0), 10 * SEG, SEG, srtt, Some(at_ms(1000)));
        assert_eq!(r.pto_deadline(), Some(at_ms(200)));
        r.schedule_probe(at_ms(0), SEG, SEG, srtt, Some(at_ms(1000)));
        assert_eq!(r.pto_deadline(), Some(at_ms(400)));
        r.schedule_probe(at_ms(0), 10 * SEG, SEG, srtt, Some(at_ms(150)));
        assert_eq!(r.pto_deadline(), Some(at_ms(150)));
    }

    /// §7.3–7.4: without new data the probe resends the last segment; if SND.UNA passes it
    /// with no D-SACK, the probe repaired a loss; one probe per episode.
    #[test]
    fn rfc8985_a_retransmitted_probe_that_is_not_a_duplicate_repaired_a_loss() {
        let mut r = ten();
        assert_eq!(
            r.on_pto(10 * SEG, false),
            Some(Probe::Retransmit {
                start: 9 * SEG,
                end: 10 * SEG
            })
        );
        assert_eq!(r.on_pto(10 * SEG, false), None, "one probe per episode");
        assert_eq!(r.on_tlp_ack(9 * SEG, None), TlpOutcome::None);
        assert_eq!(r.on_tlp_ack(10 * SEG, None), TlpOutcome::LossRepaired);
        r.on_pto(10 * SEG, false);
        assert_eq!(
            r.on_tlp_ack(10 * SEG, Some((9 * SEG, 10 * SEG))),
            TlpOutcome::None,
            "a D-SACK of the probe: the original had arrived"
        );
    }
}
