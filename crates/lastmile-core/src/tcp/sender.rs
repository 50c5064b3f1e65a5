//! The sending half: the send buffer as stream offsets, what to send next under
//! min(cwnd, SND.WND), ACK processing, the retransmission timer and the persist timer.
//!
//! * **Offsets.** Everything is a `u64` stream offset: 0 is the first data byte (ISN + 1),
//!   the FIN occupies offset `written` once the application has closed. Sequence numbers
//!   exist only at the wire (`connection.rs`), so wraparound is handled in one place.
//!   SND.UNA ≤ SND.NXT ≤ SND.MAX, where SND.MAX is the highest sequence ever sent plus one;
//!   go-back-N moves SND.NXT back to SND.UNA (protocol-notes §2.3).
//! * **What to send** (RFC 5681 §3.1, RFC 9293 §3.8.6.2.1): the window is
//!   min(cwnd, SND.WND) measured from SND.UNA; no Nagle. A segment of up to SMSS goes out if
//!   it is full-sized, or carries all the data written so far, or fills at least half the
//!   largest window the peer has offered (the SWS-avoidance sender rule), or nothing is in
//!   flight (in place of the rule's override timer, so a small window cannot stall the
//!   sender); otherwise the sender waits for more window. A retransmission requested by
//!   recovery or the timer (SND.UNA) goes first and ignores the window (RFC 5681 §3.2
//!   step 3, RFC 6298 (5.4)).
//!   The FIN rides on the segment that carries the last byte, or goes alone, and does not
//!   need window space (as 4.4BSD's `tcp_output`).
//! * **Origin times.** The first-send time of every range of new data is kept in a
//!   `VecDeque` ordered by offset and popped as ACKs arrive; a retransmission carries the
//!   first-send time of its first byte (binary search), so per-packet delay counts from the
//!   original transmission.
//! * **Duplicate ACKs** (RFC 5681 §2): no data, no SYN/FIN, ACK = SND.UNA, the same
//!   window as the previous ACK, data outstanding, and (4.4BSD) not while probing a zero
//!   window.
//! * **Timeouts** (RFC 5681 (4)–(5), RFC 6298 (5.4)–(5.6)): the congestion control sets
//!   ssthresh (kept on a second timeout of the same segment, RFC 5681 §3.1) and cwnd =
//!   1 SMSS; recovery leaves fast recovery, sets `recover` and names SND.UNA for
//!   retransmission; go back N; back off.
//! * **Congestion control and recovery** (`cc/`, `recovery/`): every ACK goes to recovery
//!   first (duplicate or new), then to the congestion control with an `AckSample` (bytes
//!   acked, RTT sample, flight, delivery-rate sample of `delivery.rs`); recovery names the
//!   segment to retransmit before new data.
//! * **SACK** (once negotiated, with `recovery = "sack"` or `"fack"`): the ACK's blocks
//!   (stream offsets) go with it to `LossRecovery::on_sack_ack`, and while that recovery
//!   gates sending (RFC 6675's cwnd − pipe, FACK's awnd) the segments come from its
//!   `next_seg` instead of SND.NXT. Going back N after a timeout skips what the receiver
//!   has SACKed since. Limited transmit (RFC 3042) for the others lets the recovery widen
//!   the window by one SMSS per early duplicate ACK. With RACK-TLP (RFC 8985) every
//!   transmission is recorded for RACK, and its reordering and probe timers are the
//!   sender's `recovery_deadline`; a probe of new data goes beyond cwnd.
//! * **ECN** (RFC 3168 §6.1.2, once negotiated): new data carries ECT(0) (retransmissions
//!   and window probes do not); an ACK with ECE reduces the window through the congestion
//!   control's `on_ecn_echo` at most once per window of data (not again until SND.UNA has
//!   passed SND.MAX of the last reduction, and not within a loss recovery's window), and
//!   the next new segment carries CWR.
//! * **Pacing** (`pacing.rs`): when the congestion control gives a pacing rate, each
//!   segment waits for its release time and `pacing_deadline` reports it; without a rate
//!   the pacer is never consulted.
//! * **Zero window** (RFC 9293 §3.8.6.1): with SND.WND = 0, nothing outstanding and data
//!   waiting, a persist timer (the RTO, doubling per probe, capped at `max_rto`) sends a
//!   one-byte probe at SND.UNA beyond the window, as 4.4BSD's forced output: SND.MAX covers
//!   it, SND.NXT stays, and the retransmission timer is not started for it.
//!
//! Left out: RFC 7661, burst limits, RFC 5681 §4.1 restart after idle, and ECN's
//! one-segment rule when cwnd is already 1 SMSS. Writes after `close` are ignored.

use std::collections::VecDeque;

use crate::engine::{SimDuration, SimTime};

use super::api::TcpTraceEvent;
use super::cc::{AckSample, AnyCongestionControl, CongestionControl, CongestionWindow};
use super::delivery::{DeliveryState, RateSample, SampleBuilder, TxState};
use super::pacing::Pacer;
use super::recovery::{Flight, LossRecovery, Probe, Reaction, SackInput, SegKind, SendContext};
use super::rtt::{RetransmitTimer, RttSample};

mod extended;
mod notices;
mod vegas;

pub use notices::ElnState;
pub use vegas::FineGrained;

/// Persist-timer doublings beyond this are capped by `max_rto` anyway.
const MAX_PERSIST_SHIFT: u32 = 16;

/// IPv4 and TCP headers without options (RFC 791, RFC 9293): what a paced segment adds to
/// its payload on the wire.
const BASE_HEADER_BYTES: u64 = 40;
/// The timestamps option with its padding (RFC 7323 Appendix A).
const TIMESTAMP_OPTION_BYTES: u64 = 12;

/// A segment the sender wants on the wire, in stream offsets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DataSegment {
    /// Offset of the first data byte (of the FIN when `len` is 0).
    pub offset: u64,
    pub len: u32,
    pub fin: bool,
    /// First-send time of the first data byte (`now` for new data or a FIN alone).
    pub origin_time: SimTime,
    pub retransmission: bool,
    /// ECT(0) in the IP header (ECN negotiated, new data).
    pub ect: bool,
    /// CWR set (the first new data after an ECN reduction).
    pub cwr: bool,
    /// Sent while cwnd < ssthresh (what a DAASS receiver reads).
    pub slow_start: bool,
}

/// Where the segment chosen to send comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Source {
    /// SND.NXT under min(cwnd, SND.WND); `limited` when limited transmit widened it.
    Window { limited: bool },
    /// The retransmission recovery or the timer named, regardless of the window.
    Forced,
    /// A SACK recovery's `next_seg`.
    Recovery(SegKind),
    /// A TLP probe of new data (RFC 8985 §7.3), beyond cwnd.
    Probe,
}

/// A segment about to be sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Choice {
    offset: u64,
    len: u64,
    source: Source,
}

/// What the handshake settled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Negotiated {
    /// The effective SMSS.
    pub mss: u64,
    pub initial_window: u64,
    pub peer_window: u64,
    pub timestamps: bool,
    /// Both SYNs carried SACK-permitted.
    pub sack: bool,
    /// ECN setup completed (RFC 3168 §6.1.1).
    pub ecn: bool,
}

/// When a range of new data was first sent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct FirstSend {
    start: u64,
    end: u64,
    at: SimTime,
    /// Sent again since (Karn's rule: its ACK gives no RTT sample).
    retransmitted: bool,
}

/// What the cumulative part of an ACK delivered: the delivery-rate sample and the RTT of
/// its newest segment (`AckSample::latest_rtt`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Delivered {
    rate: RateSample,
    latest_rtt: Option<SimDuration>,
}

/// What an ACK carried, as the sender sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AckInput<'a> {
    /// The cumulative ACK as a stream offset, already checked to lie in [SND.UNA, SND.MAX].
    pub ack: u64,
    /// The peer's advertised window in bytes.
    pub window: u64,
    /// RFC 9293 §3.10.7.4: the segment is newer than the last window update (SND.WL1/WL2).
    pub window_update: bool,
    /// Payload, SYN or FIN present: not a duplicate ACK.
    pub occupies_sequence: bool,
    /// TSecr, when timestamps are in use.
    pub ts_ecr: Option<u32>,
    /// The SACK blocks as stream offsets (those that fall outside the sequence space sent
    /// left out), in the order received.
    pub sack: &'a [(u64, u64)],
    /// ECN-Echo set.
    pub ece: bool,
    /// Marked by Explicit Loss Notification (`sender/notices.rs`).
    pub eln: bool,
}

/// The sending half of a connection.
#[derive(Clone, Debug)]
pub struct Sender {
    pub mss: u64,
    /// Bytes the application has written: the end of the data.
    written: u64,
    fin_queued: bool,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    snd_wnd: u64,
    max_snd_wnd: u64,
    last_ack_window: Option<u64>,
    window: CongestionWindow,
    cc: AnyCongestionControl,
    recovery: LossRecovery,
    /// The delivery-rate estimator, run only when the congestion control reads its samples.
    delivery: DeliveryState,
    rate_sampling: bool,
    pacer: Pacer,
    first_sends: VecDeque<FirstSend>,
    /// With rate sampling: the delivery state at the latest transmission of each range of
    /// `first_sends`, index for index.
    tx_states: VecDeque<TxState>,
    pub rtx: RetransmitTimer,
    /// SND.UNA has already been retransmitted by the timer (RFC 5681 §3.1: hold ssthresh).
    una_timed_out: bool,
    persist_at: Option<SimTime>,
    persist_shift: u32,
    use_timestamps: bool,
    /// SACK recovery, FACK or limited transmit in use: `choose` takes its longer path.
    extended: bool,
    /// RACK-TLP in use (`sender/extended.rs`).
    rack: bool,
    /// Vegas's fine-grained retransmission (`sender/vegas.rs`), when on.
    fine_grained: Option<Box<FineGrained>>,
    /// RACK or the fine-grained timer records every transmission.
    send_hooks: bool,
    /// A TLP probe of new data is due.
    probe_pending: bool,
    /// ECN negotiated: new data is ECT, ECE is answered.
    ecn: bool,
    /// SND.MAX at the last ECN reduction: no other until SND.UNA passes it.
    ecn_recover: u64,
    /// The next new segment carries CWR.
    cwr_pending: bool,
    /// Window reductions in answer to ECE.
    pub ecn_reductions: u64,
    /// Push trace events (`TcpConfig::trace`).
    pub tracing: bool,
    /// ELN answers (`sender/notices.rs`), when on.
    eln: Option<ElnState>,
}

impl Sender {
    pub fn new(
        mss: u64,
        ssthresh: u64,
        cc: AnyCongestionControl,
        recovery: LossRecovery,
        rtx: RetransmitTimer,
    ) -> Self {
        Sender {
            mss,
            written: 0,
            fin_queued: false,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            snd_wnd: 0,
            max_snd_wnd: 0,
            last_ack_window: None,
            window: CongestionWindow {
                cwnd: mss,
                ssthresh,
            },
            rate_sampling: cc.wants_rate_samples(),
            cc,
            recovery,
            delivery: DeliveryState::default(),
            pacer: Pacer::default(),
            first_sends: VecDeque::new(),
            tx_states: VecDeque::new(),
            rtx,
            una_timed_out: false,
            persist_at: None,
            persist_shift: 0,
            use_timestamps: false,
            extended: false,
            rack: false,
            fine_grained: None,
            send_hooks: false,
            probe_pending: false,
            ecn: false,
            ecn_recover: 0,
            cwr_pending: false,
            ecn_reductions: 0,
            tracing: false,
            eln: None,
        }
    }

    /// The handshake is over: effective SMSS, the initial window, the peer's window and the
    /// options both ends agreed on.
    pub fn on_established(&mut self, n: &Negotiated) {
        self.mss = n.mss;
        self.window.cwnd = n.initial_window;
        self.snd_wnd = n.peer_window;
        self.max_snd_wnd = n.peer_window;
        self.last_ack_window = Some(n.peer_window);
        self.use_timestamps = n.timestamps;
        self.ecn = n.ecn;
        if !n.sack {
            self.recovery.without_sack();
        }
        self.extended = self.recovery.reads_sack() || self.recovery.uses_limited_transmit();
        self.rack = self.recovery.uses_rack();
        self.fine_grained = (self.cc.fine_grained_retransmission() && !self.recovery.reads_sack())
            .then(Box::default);
        self.send_hooks = self.rack || self.fine_grained.is_some();
    }

    pub fn write(&mut self, bytes: u64) {
        if !self.fin_queued {
            self.written += bytes;
        }
    }
    pub fn close(&mut self) {
        self.fin_queued = true;
    }

    pub fn window(&self) -> CongestionWindow {
        self.window
    }
    pub fn congestion_control(&self) -> &AnyCongestionControl {
        &self.cc
    }
    pub fn recovery(&self) -> &LossRecovery {
        &self.recovery
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn snd_wnd(&self) -> u64 {
        self.snd_wnd
    }
    pub fn written(&self) -> u64 {
        self.written
    }
    pub fn persist_deadline(&self) -> Option<SimTime> {
        self.persist_at
    }
    /// When a segment held back by pacing may leave.
    pub fn pacing_deadline(&self) -> Option<SimTime> {
        self.pacer.deadline()
    }
    /// The pacing deadline was reached (the caller then asks for segments again).
    pub fn on_pacing_deadline(&mut self, now: SimTime) {
        self.pacer.on_deadline(now);
    }
    /// The delivery-rate estimator's state (all zero unless the congestion control reads
    /// rate samples).
    pub fn delivery(&self) -> &DeliveryState {
        &self.delivery
    }
    pub fn fin_acked(&self) -> bool {
        self.fin_queued && self.snd_una > self.written
    }
    fn flight(&self) -> Flight {
        Flight {
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            mss: self.mss,
            snd_wnd: self.snd_wnd,
        }
    }

    /// Processes the ACK part of a segment; true if it started a fast retransmit.
    pub fn on_ack(&mut self, now: SimTime, a: &AckInput, trace: &mut Vec<TcpTraceEvent>) -> bool {
        let same_window = self.last_ack_window == Some(a.window);
        self.last_ack_window = Some(a.window);
        if a.window_update {
            self.snd_wnd = a.window;
            self.max_snd_wnd = self.max_snd_wnd.max(a.window);
        }
        let fast_retransmit = if self.is_eln_dupack(a, same_window) {
            self.on_eln_dupack();
            false
        } else if self.recovery.reads_sack() {
            self.on_ack_sack(now, a, same_window, trace)
        } else {
            self.on_ack_classic(now, a, same_window, trace)
        };
        if a.ece && self.ecn {
            self.on_ecn_echo(now);
        }
        fast_retransmit
    }

    /// RFC 5681 duplicate ACK (§2): no data, no SYN/FIN, ACK = SND.UNA, the same window as
    /// the previous ACK, data outstanding, and (4.4BSD) not while probing a zero window.
    fn is_dupack(&self, a: &AckInput, same_window: bool) -> bool {
        a.ack == self.snd_una
            && !a.occupies_sequence
            && same_window
            && self.snd_max > self.snd_una
            && self.persist_at.is_none()
    }

    /// Tahoe, Reno, NewReno: the ACK is new or an RFC 5681 duplicate.
    #[inline]
    fn on_ack_classic(
        &mut self,
        now: SimTime,
        a: &AckInput,
        same_window: bool,
        trace: &mut Vec<TcpTraceEvent>,
    ) -> bool {
        if a.ack > self.snd_una {
            self.on_new_ack(now, a, trace);
            if self.fine_grained.is_some() {
                self.fine_grained_after_new_ack(now);
            }
            return false;
        }
        if !self.is_dupack(a, same_window) {
            if a.ack == self.snd_una {
                // 4.4BSD `tcp_input`: anything else at SND.UNA breaks the run of duplicates.
                self.recovery.break_dupack_run();
            }
            return false;
        }
        let flight = self.flight();
        let r = if self.fine_grained.is_some() {
            self.fine_grained_dupack(now, &flight)
        } else {
            self.recovery
                .on_dupack(now, &mut self.window, &mut self.cc, &flight)
        };
        let rate = if self.rate_sampling {
            self.delivery.sample(&SampleBuilder::default())
        } else {
            RateSample::default()
        };
        let sample = self.ack_sample(now, 0, None, flight.size(), r, rate);
        self.cc.on_ack(&mut self.window, &sample);
        self.apply(now, r);
        r.fast_retransmit
    }

    /// SND.UNA advances to `a.ack`: the delivered ranges and the RTT sample it gives.
    #[inline(always)]
    fn advance_una(
        &mut self,
        now: SimTime,
        a: &AckInput,
        trace: &mut Vec<TcpTraceEvent>,
    ) -> (Delivered, Option<RttSample>) {
        self.set_una(a.ack);
        let delivered = self.pop_delivered(now, a.ack);
        let rtt = self.timer_sample(now, a, trace);
        (delivered, rtt)
    }

    /// SND.UNA advances to `ack`.
    #[inline(always)]
    fn set_una(&mut self, ack: u64) {
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.una_timed_out = false;
    }

    /// The retransmission timer's RTT sample from an ACK that advanced SND.UNA.
    #[inline(always)]
    fn timer_sample(
        &mut self,
        now: SimTime,
        a: &AckInput,
        trace: &mut Vec<TcpTraceEvent>,
    ) -> Option<RttSample> {
        // With timestamps negotiated, RTTM takes samples from TSecr only (RFC 7323 §4.1);
        // an ACK that arrives without the option (RFC 7323 §3.2 says it SHOULD be dropped;
        // we process it) gives no sample. 4.4BSD falls back to its timed segment instead,
        // which lets a base station's stripped timestamps (WTCP §3.1) leak residence time.
        let rtt = match (self.use_timestamps, a.ts_ecr) {
            (true, Some(ecr)) => self.rtx.sample_from_echo(now, ecr),
            (true, None) => None,
            (false, _) => self.rtx.sample_on_ack(now, a.ack),
        };
        if let Some(s) = rtt {
            self.on_sample(s, trace);
        }
        rtt
    }

    fn on_new_ack(&mut self, now: SimTime, a: &AckInput, trace: &mut Vec<TcpTraceEvent>) {
        let prior_in_flight = self.snd_max - self.snd_una;
        let acked = a.ack - self.snd_una;
        let (delivered, rtt) = self.advance_una(now, a, trace);
        let flight = self.flight();
        let r = self.recovery.on_new_ack(&mut self.window, &flight, acked);
        let mut sample = self.ack_sample(now, acked, rtt, prior_in_flight, r, delivered.rate);
        sample.latest_rtt = delivered.latest_rtt;
        self.cc.on_ack(&mut self.window, &sample);
        // `apply` has restarted the timer if data is still outstanding.
        self.apply(now, r);
        if self.snd_una == self.snd_max {
            self.rtx.stop();
        }
    }

    /// Forgets the ranges `ack` covers, feeding them to the delivery-rate estimator when it
    /// runs; that ACK's rate sample and the RTT of the newest range it covers.
    #[inline(always)]
    fn pop_delivered(&mut self, now: SimTime, ack: u64) -> Delivered {
        if !self.rate_sampling {
            let mut newest = None;
            let mut karn = false;
            while let Some(r) = self.first_sends.front().filter(|r| r.end <= ack) {
                newest = Some(r.at);
                karn |= r.retransmitted;
                self.first_sends.pop_front();
            }
            return Delivered {
                rate: RateSample::default(),
                latest_rtt: newest.filter(|_| !karn).map(|at| now.saturating_since(at)),
            };
        }
        let mut b = SampleBuilder::default();
        let latest_rtt = self.pop_delivered_sampling(now, ack, &mut b);
        Delivered {
            rate: self.delivery.sample(&b),
            latest_rtt,
        }
    }

    /// `pop_delivered` with the delivery-rate estimator: each range not already counted when
    /// it was SACKed goes into `b`.
    #[inline(never)]
    fn pop_delivered_sampling(
        &mut self,
        now: SimTime,
        ack: u64,
        b: &mut SampleBuilder,
    ) -> Option<SimDuration> {
        let mut newest = None;
        let mut karn = false;
        while let Some(r) = self.first_sends.front().filter(|r| r.end <= ack).copied() {
            let tx = self.tx_states.pop_front().unwrap_or_default();
            if !tx.sacked {
                self.delivery.on_delivered(now, r.end - r.start, &tx, b);
            }
            newest = Some(r.at);
            karn |= r.retransmitted;
            self.first_sends.pop_front();
        }
        newest.filter(|_| !karn).map(|at| now.saturating_since(at))
    }

    /// A range of new data is sent for the first time.
    fn push_first_send(&mut self, start: u64, end: u64, now: SimTime, tx: Option<TxState>) {
        self.first_sends.push_back(FirstSend {
            start,
            end,
            at: now,
            retransmitted: false,
        });
        if let Some(tx) = tx {
            self.tx_states.push_back(tx);
        }
    }

    fn ack_sample(
        &self,
        now: SimTime,
        acked: u64,
        rtt: Option<RttSample>,
        prior_in_flight: u64,
        r: Reaction,
        rate: RateSample,
    ) -> AckSample {
        AckSample {
            now,
            acked_bytes: acked,
            duplicate: acked == 0,
            may_grow: r.grow_window,
            rtt: rtt.map(|s| s.sample),
            srtt: self.rtx.srtt(),
            prior_in_flight,
            in_flight: self.snd_max - self.snd_una,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            mss: self.mss,
            delivered_bytes: acked,
            pipe: None,
            lost_bytes: if r.fast_retransmit { self.mss } else { 0 },
            latest_rtt: None,
            rate,
        }
    }

    /// Traces an RTT sample.
    pub fn on_sample(&mut self, s: RttSample, trace: &mut Vec<TcpTraceEvent>) {
        if self.tracing {
            trace.push(s.trace());
        }
    }

    fn apply(&mut self, now: SimTime, r: Reaction) {
        if r.go_back_n {
            self.snd_nxt = self.snd_una;
            self.rtx.cancel_timing();
        }
        if r.restart_rto && self.snd_max > self.snd_una {
            self.rtx.arm(now);
        }
    }

    /// The retransmission timer expired with data outstanding (RFC 6298 (5.4)–(5.6),
    /// RFC 5681 (4)–(5)); false if nothing was outstanding. The backoff is traced.
    pub fn on_rto(&mut self, now: SimTime, trace: &mut Vec<TcpTraceEvent>) -> bool {
        if self.snd_max == self.snd_una {
            self.rtx.stop();
            return false;
        }
        let flight = self.flight();
        let (loss_window, set_ssthresh) =
            self.recovery
                .timeout_loss_window(&flight, self.window.cwnd, !self.una_timed_out);
        self.cc
            .on_rto(now, &mut self.window, loss_window, self.mss, set_ssthresh);
        self.una_timed_out = true;
        if self.rack {
            self.recovery
                .rack_on_timeout(now, self.snd_una, self.rtx.srtt());
            self.probe_pending = false;
        }
        if let Some(f) = self.fine_grained.as_deref_mut() {
            f.on_timeout(self.snd_max);
        }
        self.recovery.on_timeout(&flight);
        self.snd_nxt = self.snd_una;
        self.rtx.cancel_timing();
        self.rtx.back_off();
        if self.tracing {
            trace.push(self.rtx.backoff_trace());
        }
        self.rtx.arm(now);
        true
    }

    /// The next segment to send now, if any; advances SND.NXT / SND.MAX. When the
    /// congestion control gives a pacing rate, the segment also waits for its release time.
    #[inline]
    pub fn next_segment(&mut self, now: SimTime) -> Option<DataSegment> {
        match self.cc.pacing_rate() {
            None => self.next_unpaced(now),
            Some(rate) => self.next_paced(now, rate),
        }
    }

    /// Pacing (`pacing.rs`): a segment waits for its release time.
    #[inline(never)]
    fn next_paced(&mut self, now: SimTime, rate_bytes_per_s: u64) -> Option<DataSegment> {
        if !self.pacer.may_send(now, self.choose().is_some()) {
            return None;
        }
        let d = self.next_unpaced(now)?;
        let header = BASE_HEADER_BYTES + TIMESTAMP_OPTION_BYTES * u64::from(self.use_timestamps);
        self.pacer
            .on_sent(now, u64::from(d.len) + header, rate_bytes_per_s);
        Some(d)
    }

    #[inline(always)]
    fn next_unpaced(&mut self, now: SimTime) -> Option<DataSegment> {
        let Some(c) = self.choose() else {
            if self.rate_sampling {
                self.note_idle();
            }
            return None;
        };
        let forced = !matches!(c.source, Source::Window { .. });
        let d = self.transmit(now, c.offset, c.len, forced);
        if c.source != (Source::Window { limited: false }) {
            self.after_recovery_send(&c, &d);
        }
        Some(d)
    }

    /// What would be sent now, without sending it.
    #[inline(always)]
    fn choose(&self) -> Option<Choice> {
        if let Some(offset) = self.recovery.next_retransmission(self.snd_max) {
            let mut len = self.mss.min(self.written.saturating_sub(offset));
            if self.extended && !self.recovery.scoreboard().is_empty() {
                len = len.min(self.sacked_stop(offset) - offset);
            }
            return Some(Choice {
                offset,
                len,
                source: Source::Forced,
            });
        }
        if self.extended {
            return self.choose_extended();
        }
        self.window_segment(self.snd_nxt, u64::MAX, self.window.cwnd)
    }

    /// A segment from `offset` (stopping before `stop`) under min(`cwnd`, SND.WND), if the
    /// sender-side SWS rule lets it go.
    #[inline(always)]
    fn window_segment(&self, offset: u64, stop: u64, cwnd: u64) -> Option<Choice> {
        let avail = self.written.saturating_sub(offset);
        let limit = self.snd_una + cwnd.min(self.snd_wnd);
        let room = limit.saturating_sub(offset);
        let len = self.mss.min(avail).min(room).min(stop - offset);
        let fin_alone = self.fin_queued && offset == self.written;
        if len == 0 && !fin_alone {
            return None;
        }
        // RFC 9293 §3.8.6.2.1: a full segment, all the data, half the largest window seen,
        // or (in place of its override timeout) anything at all when nothing is in flight.
        let worth_sending = len == self.mss
            || len == avail
            || 2 * len >= self.max_snd_wnd.max(1)
            || offset == self.snd_una;
        worth_sending.then_some(Choice {
            offset,
            len,
            source: Source::Window { limited: false },
        })
    }

    /// Nothing to send: if for want of data with room in the window, the delivery-rate
    /// samples that follow are application-limited.
    fn note_idle(&mut self) {
        let avail = self.written.saturating_sub(self.snd_nxt);
        let in_flight = self.snd_max - self.snd_una;
        if avail < self.mss && in_flight < self.window.cwnd {
            self.delivery.mark_app_limited(in_flight);
        }
    }

    /// Builds the segment at `offset` with `len` data bytes (+ FIN if it reaches the end).
    fn transmit(&mut self, now: SimTime, offset: u64, len: u64, forced: bool) -> DataSegment {
        let end = offset + len;
        let fin = self.fin_queued && end == self.written;
        let seq_end = end + u64::from(fin);
        let retransmission = offset < self.snd_max;
        let tx = self
            .rate_sampling
            .then(|| self.delivery.on_send(now, self.snd_max - self.snd_una));
        let origin_time = if retransmission && len > 0 {
            self.retransmitted(offset, tx).unwrap_or(now)
        } else {
            now
        };
        if retransmission {
            // Karn's rule (RFC 6298 §3).
            self.rtx.cancel_timing();
        } else if len > 0 {
            self.rtx.start_timing(offset, now);
        }
        if end > self.snd_max && len > 0 {
            self.push_first_send(offset.max(self.snd_max), end, now, tx);
        }
        if !forced || offset == self.snd_nxt {
            self.snd_nxt = self.snd_nxt.max(seq_end);
        }
        self.snd_max = self.snd_max.max(seq_end);
        self.rtx.arm_if_idle(now);
        if self.send_hooks {
            self.after_send_hooks(now, offset, seq_end, retransmission);
        }
        let ect = self.ecn && !retransmission;
        let cwr = ect && std::mem::take(&mut self.cwr_pending);
        DataSegment {
            offset,
            len: len as u32,
            fin,
            origin_time,
            retransmission,
            ect,
            cwr,
            slow_start: self.window.in_slow_start(),
        }
    }

    /// The range holding `offset` is sent again (with delivery state `tx` when sampling):
    /// its first-send time, if the range is still unacknowledged.
    fn retransmitted(&mut self, offset: u64, tx: Option<TxState>) -> Option<SimTime> {
        let i = self.first_sends.partition_point(|r| r.end <= offset);
        let r = self.first_sends.get_mut(i).filter(|r| r.start <= offset)?;
        r.retransmitted = true;
        if let (Some(tx), Some(state)) = (tx, self.tx_states.get_mut(i)) {
            // Data SACKed before stays counted as delivered.
            *state = TxState {
                sacked: state.sacked,
                ..tx
            };
        }
        Some(r.at)
    }

    /// Arms or clears the persist timer after output (RFC 9293 §3.8.6.1). A window that
    /// shrank to zero after we sent into it (a receiver freezing the sender: Freeze-TCP,
    /// M-TCP's supervisor host) is probed in the standard way (RFC 9293 §3.8.6.2.1, MUST-35)
    /// as 4.4BSD's `tcp_output` does it: the retransmission timer is cancelled, SND.NXT
    /// pulled back to SND.UNA, and the persist timer set, so the sender neither times out
    /// nor cuts its window while the receiver keeps it closed.
    pub fn update_persist(&mut self, now: SimTime) {
        if self.snd_wnd == 0 && self.written > self.snd_una && self.rtx.is_armed() {
            self.rtx.stop();
            self.snd_nxt = self.snd_una;
        }
        let stalled = self.snd_wnd == 0 && !self.rtx.is_armed() && self.written > self.snd_una;
        if !stalled {
            self.persist_at = None;
            self.persist_shift = 0;
        } else if self.persist_at.is_none() {
            self.persist_at = Some(self.rtx.persist_deadline(now, self.persist_shift));
        }
    }

    /// The persist timer expired: a one-byte probe at SND.UNA, beyond the window.
    pub fn on_persist(&mut self, now: SimTime) -> Option<DataSegment> {
        self.persist_at = None;
        if self.snd_wnd > 0 || self.written <= self.snd_una {
            return None;
        }
        let offset = self.snd_una;
        let retransmission = offset < self.snd_max;
        let tx = self
            .rate_sampling
            .then(|| self.delivery.on_send(now, self.snd_max - self.snd_una));
        let origin_time = if retransmission {
            self.retransmitted(offset, tx).unwrap_or(now)
        } else {
            self.push_first_send(offset, offset + 1, now, tx);
            now
        };
        self.snd_max = self.snd_max.max(offset + 1);
        self.rtx.cancel_timing();
        self.persist_shift = (self.persist_shift + 1).min(MAX_PERSIST_SHIFT);
        self.persist_at = Some(self.rtx.persist_deadline(now, self.persist_shift));
        Some(DataSegment {
            offset,
            len: 1,
            fin: false,
            origin_time,
            retransmission,
            ect: false,
            cwr: false,
            slow_start: self.window.in_slow_start(),
        })
    }
}
