//! The sender's paths for SACK, FACK, limited transmit and ECN, kept apart from the plain
//! send and ACK paths of `sender.rs` (which call in here only when one of them is on):
//! ACKs with SACK blocks go to the recovery whole (`on_ack_sack`), segments come from the
//! recovery's `next_seg` while it gates sending, going back N skips SACKed data, limited
//! transmit widens the window by one SMSS per early duplicate ACK (RFC 3042), and ECN-Echo
//! reduces the window once per window of data (RFC 3168 §6.1.2).

use super::*;

impl Sender {
    /// SACK and FACK: every ACK, new or not, goes to the recovery with its blocks.
    #[inline(never)]
    pub(super) fn on_ack_sack(
        &mut self,
        now: SimTime,
        a: &AckInput,
        same_window: bool,
        trace: &mut Vec<TcpTraceEvent>,
    ) -> bool {
        let prior_in_flight = self.snd_max - self.snd_una;
        let acked = a.ack - self.snd_una;
        let rfc5681_dupack = self.is_dupack(a, same_window);
        let mut b = SampleBuilder::default();
        let (mut latest_rtt, mut rtt) = (None, None);
        if acked > 0 {
            self.set_una(a.ack);
            latest_rtt = if self.rate_sampling {
                self.pop_delivered_sampling(now, a.ack, &mut b)
            } else {
                self.pop_delivered(now, a.ack).latest_rtt
            };
            rtt = self.timer_sample(now, a, trace);
        }
        let rate = if self.rate_sampling {
            // Before the recovery's scoreboard takes the blocks: what they newly SACK.
            self.deliver_sacked(now, a.sack, &mut b);
            self.delivery.sample(&b)
        } else {
            RateSample::default()
        };
        let flight = self.flight();
        let input = SackInput {
            acked,
            blocks: a.sack,
            rfc5681_dupack,
            srtt: self.rtx.srtt(),
        };
        let (r, sack) =
            self.recovery
                .on_sack_ack(now, &mut self.window, &mut self.cc, &flight, &input);
        let mut sample = self.ack_sample(now, acked, rtt, prior_in_flight, r, rate);
        sample.delivered_bytes = sack.delivered;
        sample.lost_bytes = sack.newly_lost;
        sample.pipe = Some(self.recovery.pipe_estimate(&flight, self.snd_nxt));
        sample.latest_rtt = latest_rtt;
        self.cc.on_ack(&mut self.window, &sample);
        // `apply` has restarted the timer if data is still outstanding.
        self.apply(now, r);
        if acked > 0 {
            if self.snd_una == self.snd_max {
                self.rtx.stop();
            }
            if self.rack {
                let flight = self.flight();
                let (srtt, rto) = (self.rtx.srtt(), self.rtx.deadline());
                self.recovery.rack_schedule_probe(now, &flight, srtt, rto);
            }
        }
        r.fast_retransmit
    }

    /// After a segment [offset, seq_end) left: RACK and the fine-grained timer record its
    /// send time; new data (re)starts TLP's probe timer (RFC 8985 §7.2).
    #[inline(never)]
    pub(super) fn after_send_hooks(
        &mut self,
        now: SimTime,
        offset: u64,
        seq_end: u64,
        retransmission: bool,
    ) {
        if let Some(f) = self.fine_grained.as_mut() {
            f.on_sent(now, offset, seq_end, retransmission);
        }
        if !self.rack {
            return;
        }
        self.recovery
            .rack_on_send(now, offset, seq_end, retransmission);
        if !retransmission && !self.probe_pending {
            let flight = self.flight();
            let (srtt, rto) = (self.rtx.srtt(), self.rtx.deadline());
            self.recovery.rack_schedule_probe(now, &flight, srtt, rto);
        }
    }

    /// When RACK-TLP's reordering or probe timer wants the sender.
    pub fn recovery_deadline(&self) -> Option<SimTime> {
        if !self.rack {
            return None;
        }
        self.recovery.rack_deadline()
    }

    /// RACK-TLP's timer reached `now`: segments judged lost may start recovery; a probe
    /// (RFC 8985 §7.3) is one new segment if the receive window allows one, else the last
    /// segment again; the retransmission timer then restarts.
    pub fn on_recovery_timer(&mut self, now: SimTime) {
        if !self.rack {
            return;
        }
        if self.snd_max == self.snd_una {
            self.recovery.rack_cancel_timers();
            return;
        }
        let flight = self.flight();
        let window_end = self.snd_una + self.snd_wnd;
        let new_data = self.written > self.snd_max && window_end > self.snd_max;
        let srtt = self.rtx.srtt();
        let probe = self.recovery.on_rack_timer(
            now,
            &mut self.window,
            &mut self.cc,
            &flight,
            srtt,
            new_data,
        );
        if let Some(p) = probe {
            self.probe_pending = p == Probe::NewData;
            self.rtx.arm(now);
        }
    }

    /// The delivery-rate estimator with SACK (draft-cheng-iccrg-delivery-rate-estimation
    /// §3.3): each segment a block reports for the first time is delivered now. Walks only
    /// the bytes the scoreboard does not hold yet, so a block repeated on later ACKs costs
    /// a lookup, not a walk over its segments.
    fn deliver_sacked(&mut self, now: SimTime, blocks: &[(u64, u64)], b: &mut SampleBuilder) {
        for &(start, end) in blocks {
            let end = end.min(self.snd_max);
            let mut from = start.max(self.snd_una);
            while from < end {
                let board = self.recovery.scoreboard();
                let hole = board.next_hole(from);
                if hole >= end {
                    break;
                }
                let stop = board.next_sacked_after(hole).unwrap_or(end).min(end);
                self.deliver_ranges_within(now, hole, stop, b);
                from = stop;
            }
        }
    }

    /// Every range of new data wholly inside [start, stop) not counted yet is delivered.
    fn deliver_ranges_within(
        &mut self,
        now: SimTime,
        start: u64,
        stop: u64,
        b: &mut SampleBuilder,
    ) {
        let mut i = self.first_sends.partition_point(|r| r.end <= start);
        while let Some(r) = self.first_sends.get(i).filter(|r| r.start < stop).copied() {
            if r.start >= start && r.end <= stop {
                if let Some(tx) = self.tx_states.get_mut(i).filter(|t| !t.sacked) {
                    tx.sacked = true;
                    let tx = *tx;
                    self.delivery.on_delivered(now, r.end - r.start, &tx, b);
                }
            }
            i += 1;
        }
    }

    /// RFC 3168 §6.1.2: ECN-Echo halves the window at most once per window of data, and not
    /// within the window of a loss recovery (one reduction for losses and marks together).
    pub(super) fn on_ecn_echo(&mut self, now: SimTime) {
        let fresh_window =
            self.snd_una > self.ecn_recover && self.snd_una > self.recovery.dupacks.recover;
        if !fresh_window || self.recovery.in_recovery() {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        self.cc
            .on_ecn_echo(now, &mut self.window, flight.max(self.mss), self.mss);
        self.ecn_recover = self.snd_max;
        self.cwr_pending = true;
        self.ecn_reductions += 1;
    }

    /// Tells recovery what it asked for (or limited transmit allowed) went out.
    #[inline(never)]
    pub(super) fn after_recovery_send(&mut self, c: &Choice, d: &DataSegment) {
        let seq_end = d.offset + u64::from(d.len) + u64::from(d.fin);
        match c.source {
            Source::Forced => {
                self.recovery.on_retransmitted(c.offset, seq_end);
                if self.rack && !self.recovery.in_recovery() {
                    self.recovery.rack_on_probe_sent(self.snd_max);
                }
            }
            Source::Recovery(kind) => self.recovery.on_seg_sent(kind, c.offset, seq_end),
            Source::Window { .. } => self.recovery.on_limited_transmit(u64::from(d.len)),
            Source::Probe => {
                self.probe_pending = false;
                self.recovery.rack_on_probe_sent(self.snd_max);
            }
        }
    }

    /// `choose` with SACK or limited transmit: the recovery's own choice while it gates
    /// sending, going back N over SACKed data, one SMSS more per early duplicate ACK.
    #[inline(never)]
    pub(super) fn choose_extended(&self) -> Option<Choice> {
        if self.probe_pending && self.snd_nxt == self.snd_max {
            // A TLP probe of new data goes whatever cwnd says (RFC 8985 §7.3).
            let mut c = self.window_segment(self.snd_max, u64::MAX, u64::MAX)?;
            c.source = Source::Probe;
            return Some(c);
        }
        if self.recovery.gates_sending(self.snd_nxt, self.snd_max) {
            return self.choose_by_recovery();
        }
        let mut offset = self.snd_nxt;
        let mut stop = u64::MAX;
        if offset < self.snd_max && !self.recovery.scoreboard().is_empty() {
            (offset, stop) = self.skip_sacked(offset);
        }
        let extra = self.recovery.limited_transmit_allowance(self.mss);
        if extra == 0 || offset != self.snd_max {
            return self.window_segment(offset, stop, self.window.cwnd);
        }
        let mut c = self.window_segment(offset, stop, self.window.cwnd + extra)?;
        c.source = Source::Window {
            limited: c.offset + c.len > self.snd_una + self.window.cwnd,
        };
        Some(c)
    }

    /// Going back N over data the receiver SACKed: the next un-SACKed offset at or after
    /// `from`, and where the SACKed data after it starts.
    #[inline(never)]
    fn skip_sacked(&self, from: u64) -> (u64, u64) {
        let board = self.recovery.scoreboard();
        let offset = board.next_hole(from);
        (offset, self.sacked_stop(offset))
    }

    /// Where the next SACKed range after the un-SACKed `offset` begins.
    pub(super) fn sacked_stop(&self, offset: u64) -> u64 {
        self.recovery
            .scoreboard()
            .next_sacked_after(offset)
            .unwrap_or(u64::MAX)
            .max(offset)
    }

    /// A SACK recovery chooses (RFC 6675 `NextSeg` under cwnd − pipe, FACK under awnd).
    #[inline(never)]
    fn choose_by_recovery(&self) -> Option<Choice> {
        let c = SendContext {
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            written: self.written,
            fin_queued: self.fin_queued,
            snd_wnd: self.snd_wnd,
            cwnd: self.window.cwnd,
            mss: self.mss,
        };
        let seg = self.recovery.next_seg(&c)?;
        Some(Choice {
            offset: seg.offset,
            len: seg.len,
            source: Source::Recovery(seg.kind),
        })
    }
}
