//! The IEEE 802.11 Distributed Coordination Function (IEEE Std 802.11-1999 clause 9.2, with
//! the ACKTimeout of 802.11-2007 9.2.8) for one station, as a pure state machine:
//! `handle(now, input, out)` and `poll_timeout()`.
//!
//! What it follows:
//! - Carrier sense = physical (the medium's busy/idle indications and our own transmission)
//!   **and** virtual (the NAV, 9.2.5.4): the NAV is raised to the Duration field of every
//!   intact frame addressed to another station.
//! - Deferral (9.2.5.1): the medium must be idle for DIFS, or EIFS after a frame received in
//!   error (9.2.3.4), before the backoff counts. A correct reception returns to DIFS.
//! - Backoff (9.2.5.2): drawn uniformly in [0, CW] slots (`RngStream::uniform_inclusive`),
//!   decremented once per idle slot after the DIFS/EIFS, frozen while the medium is busy and
//!   resumed after the next DIFS/EIFS idle; transmit when it reaches 0.
//! - Immediate access (9.2.5.1): a frame arriving with no backoff pending on a medium that
//!   has been idle ≥ DIFS goes at once; idle < DIFS waits out the DIFS; busy draws a backoff.
//! - Post-backoff: a backoff is drawn after every completed exchange (success or drop), with
//!   or without a next frame (9.2.5.2).
//! - A busy indication arriving at the very instant our backoff expires does not stop the
//!   transmission: CCA needs aCCATime (< aSlotTime) to report busy, so two stations whose
//!   counters expire in the same slot collide (the slotted assumption of Bianchi 2000 §II).
//! - Responses (CTS, ACK, and DATA after CTS) go SIFS after the frame that triggers them,
//!   regardless of the medium (9.2.8); a CTS only if our NAV is 0 (9.2.5.6).
//! - ACK/CTS timeout: SIFS + slot + PHY-RX-START delay after the end of our frame; if a
//!   reception has started by then (the medium is busy) we wait for its end, and the exchange
//!   fails unless that frame is the awaited response (9.2.8).
//! - Retries (9.2.4, 9.2.5.3): the short retry count (SSRC) counts RTS failures and the
//!   ACK failures of frames ≤ RTSThreshold, the long one (SLRC) ACK failures of longer frames;
//!   a failure sets CW = min(2·(CW+1) − 1, CWmax); reaching the limit drops the frame; a CTS
//!   resets the SSRC; success or drop resets the count and sets CW = CWmin (802.11-2016
//!   §10.3.3: "when SLRC reaches dot11LongRetryLimit, or when SSRC reaches
//!   dot11ShortRetryLimit").
//! - `CwRule::Qsrc` instead keeps CW as IEEE 802.11-2020 §10.23.2.2 keeps an EDCA
//!   function's, which is how ns-3.44 runs a non-QoS DCF too (`Txop::UpdateFailedCw`): a
//!   station retry count QSRC, incremented at each failure while below
//!   dot11ShortRetryLimit, gives CW = min(CWmax, 2^QSRC·(CWmin+1) − 1); a failure with QSRC
//!   at the limit sets QSRC = 0 and CW = CWmin; a success resets both. A drop does not, so
//!   the next frame's first backoff is drawn over CWmax. The retry limits still count per
//!   frame as above.
//! - Duration fields (7.2, 9.2.5.4): RTS 3·SIFS + CTS + DATA + ACK; CTS the RTS value − SIFS −
//!   CTS; DATA SIFS + ACK; ACK 0.
//! - Duplicate detection (9.2.9): a data frame with the retry bit and the last sequence number
//!   seen from its sender is ACKed but not delivered.
//!
//! Signals to the link layer are TULIP's / LLE-TCP's: `Trans` when we win the channel for a
//! data exchange, `Wait { sender, duration }` when an RTS is heard (for us or not),
//! `TxSuccess`, `TxFailure` (the frame was dropped at its retry limit).
//!
//! Left out: fragmentation, the NAV reset after an RTS that is not followed by data (9.2.5.4),
//! multirate response-rate rules (control frames use the configured basic rate), power
//! save, PCF, broadcast data, and the ns-2 deviations listed in protocol-notes §5.2.

pub mod spec;
pub use spec::{CwRuleKind, DcfSpec};

use std::collections::{BTreeMap, VecDeque};

use crate::engine::{RngStream, SimDuration, SimTime};
use crate::ids::NodeId;
use crate::wireless::phy::{
    PhyConfig, A_CW_MAX, A_CW_MIN, DOT11_LONG_RETRY_LIMIT, DOT11_RTS_THRESHOLD,
    DOT11_SHORT_RETRY_LIMIT,
};

use super::common::{FrameKind, MacCounters, MacFrame, MacInput, MacOutput, MacSignal};

/// The MAC's configuration: the PHY plus the contention and retry parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct DcfConfig {
    pub phy: PhyConfig,
    pub cw_min: u32,
    pub cw_max: u32,
    pub short_retry_limit: u32,
    pub long_retry_limit: u32,
    /// Data frames (MAC bytes) longer than this use RTS/CTS; 0 = always, 2347 = never.
    pub rts_threshold_bytes: u32,
    /// How CW follows failures, successes and drops.
    pub cw_rule: CwRule,
}

/// How the contention window follows failures, successes and drops.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CwRule {
    /// IEEE 802.11-2016 §10.3.3 (the DCF): doubled at each failure up to CWmax, CWmin after a
    /// success and when a retry count reaches its limit (a drop).
    #[default]
    Dcf,
    /// IEEE 802.11-2020 §10.23.2.2's station retry count QSRC, as ns-3.44 applies it to the
    /// DCF: a drop leaves CW at CWmax until the next success or failure.
    Qsrc,
}

impl Default for DcfConfig {
    fn default() -> Self {
        Self::with_phy(PhyConfig::default())
    }
}

impl DcfConfig {
    /// The standard's MIB defaults on the given PHY (RTS off).
    pub fn with_phy(phy: PhyConfig) -> Self {
        DcfConfig {
            phy,
            cw_min: A_CW_MIN,
            cw_max: A_CW_MAX,
            short_retry_limit: DOT11_SHORT_RETRY_LIMIT,
            long_retry_limit: DOT11_LONG_RETRY_LIMIT,
            rts_threshold_bytes: DOT11_RTS_THRESHOLD,
            cw_rule: CwRule::Dcf,
        }
    }
    /// Checks what a user may get wrong; the DCF itself assumes a valid configuration.
    pub fn validate(&self) -> Result<(), DcfConfigError> {
        let err =
            |field: &'static str, expected: &'static str| Err(DcfConfigError { field, expected });
        if !self.phy.is_valid() {
            return err("phy", "DSSS rates of 1, 2, 5.5 or 11 Mbps");
        }
        if self.phy.slot.is_zero() {
            return err("phy.slot", "a positive slot time");
        }
        if !(self.cw_min + 1).is_power_of_two() || !(self.cw_max + 1).is_power_of_two() {
            return err("cw_min/cw_max", "2^k − 1 values (e.g. 31, 1023)");
        }
        if self.cw_min > self.cw_max {
            return err("cw_min", "cw_min <= cw_max");
        }
        if self.short_retry_limit == 0 || self.long_retry_limit == 0 {
            return err("retry_limit", "at least 1 attempt");
        }
        Ok(())
    }

    fn uses_rts(&self, msdu_bytes: u32) -> bool {
        PhyConfig::data_frame_bytes(msdu_bytes) > self.rts_threshold_bytes
    }
}

/// A DCF configuration field that does not make sense, with what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: expected {expected}")]
pub struct DcfConfigError {
    pub field: &'static str,
    pub expected: &'static str,
}

/// Where a station is in its exchange.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DcfPhase {
    /// Nothing to send, or deferring / backing off for the head-of-line frame.
    Contend,
    AwaitCts {
        deadline: SimTime,
    },
    /// CTS received; DATA goes SIFS later.
    SendData,
    AwaitAck {
        deadline: SimTime,
    },
}

/// A snapshot for tests and metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DcfState {
    pub phase: DcfPhase,
    /// Backoff slots still to count at `now` (None: no backoff pending).
    pub backoff_slots: Option<u32>,
    pub cw: u32,
    pub short_retry_count: u32,
    pub long_retry_count: u32,
    pub nav_until: SimTime,
    pub medium_busy: bool,
    pub queue_len: usize,
}

#[derive(Clone, Debug)]
struct Outgoing<P> {
    dst: NodeId,
    msdu_bytes: u32,
    payload: P,
    seq: u16,
    sent_before: bool,
}

/// One station's DCF.
#[derive(Clone, Debug)]
pub struct Dcf<P> {
    me: NodeId,
    cfg: DcfConfig,
    rng: RngStream,
    queue: VecDeque<Outgoing<P>>,
    phase: DcfPhase,
    /// The response deadline passed while a reception was under way.
    overdue: bool,
    phy_busy: bool,
    phy_idle_since: SimTime,
    tx_end: SimTime,
    nav_until: SimTime,
    use_eifs: bool,
    backoff: Option<u32>,
    /// The pending "backoff" is the DIFS wait of an immediate access, not a drawn one.
    immediate: bool,
    count_not_before: SimTime,
    cw: u32,
    ssrc: u32,
    slrc: u32,
    /// `CwRule::Qsrc`'s station retry count.
    qsrc: u32,
    sifs_tx: Option<(SimTime, MacFrame<P>)>,
    next_seq: u16,
    last_seq_from: BTreeMap<NodeId, u16>,
    counters: MacCounters,
}

const SEQ_MODULUS: u16 = 4096; // 12-bit sequence number (7.1.3.4.1)

impl<P: Clone> Dcf<P> {
    pub fn new(me: NodeId, cfg: DcfConfig, rng: RngStream) -> Self {
        let cw = cfg.cw_min;
        Dcf {
            me,
            cfg,
            rng,
            queue: VecDeque::new(),
            phase: DcfPhase::Contend,
            overdue: false,
            phy_busy: false,
            phy_idle_since: SimTime::ZERO,
            tx_end: SimTime::ZERO,
            nav_until: SimTime::ZERO,
            use_eifs: false,
            backoff: None,
            immediate: false,
            count_not_before: SimTime::ZERO,
            cw,
            ssrc: 0,
            slrc: 0,
            qsrc: 0,
            sifs_tx: None,
            next_seq: 0,
            last_seq_from: BTreeMap::new(),
            counters: MacCounters::default(),
        }
    }

    pub fn id(&self) -> NodeId {
        self.me
    }
    pub fn config(&self) -> &DcfConfig {
        &self.cfg
    }
    pub fn counters(&self) -> &MacCounters {
        &self.counters
    }

    pub fn state(&self, now: SimTime) -> DcfState {
        DcfState {
            phase: self.phase,
            backoff_slots: self.backoff.map(|k| k - self.slots_counted(now).min(k)),
            cw: self.cw,
            short_retry_count: self.ssrc,
            long_retry_count: self.slrc,
            nav_until: self.nav_until,
            medium_busy: self.is_busy(now),
            queue_len: self.queue.len(),
        }
    }

    /// The next instant at which `handle(.., Timeout, ..)` has something to do.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let mut next: Option<SimTime> = self.sifs_tx.as_ref().map(|(at, _)| *at);
        let mut consider = |t: SimTime| next = Some(next.map_or(t, |n| n.min(t)));
        match self.phase {
            DcfPhase::AwaitCts { deadline } | DcfPhase::AwaitAck { deadline } if !self.overdue => {
                consider(deadline)
            }
            _ => {}
        }
        if let Some(t) = self.access_time() {
            consider(t);
        }
        next
    }

    pub fn handle(&mut self, now: SimTime, input: MacInput<P>, out: &mut Vec<MacOutput<P>>) {
        match input {
            MacInput::Enqueue {
                dst,
                msdu_bytes,
                payload,
            }
            | MacInput::ReplyInFloor {
                dst,
                msdu_bytes,
                payload,
            } => self.on_enqueue(now, dst, msdu_bytes, payload),
            MacInput::MediumBusy => self.on_medium_busy(now, out),
            MacInput::MediumIdle => self.on_medium_idle(now, out),
            MacInput::Received(frame) => self.on_received(now, frame, out),
            MacInput::RxError => self.on_rx_error(now, out),
            MacInput::Timeout => {}
        }
        self.fire_due(now, out);
    }

    // ---- carrier sense and backoff bookkeeping ----

    fn is_busy(&self, now: SimTime) -> bool {
        self.phy_busy || now < self.tx_end || now < self.nav_until
    }
    fn idle_since(&self) -> SimTime {
        self.phy_idle_since.max(self.tx_end).max(self.nav_until)
    }
    fn ifs(&self) -> SimDuration {
        if self.use_eifs {
            self.cfg.phy.eifs()
        } else {
            self.cfg.phy.difs()
        }
    }
    /// When the slot countdown of the current idle period starts.
    fn count_start(&self) -> SimTime {
        (self.idle_since() + self.ifs()).max(self.count_not_before)
    }
    /// Idle slots elapsed at `now` in the current idle period.
    fn slots_counted(&self, now: SimTime) -> u32 {
        if self.is_busy(now) {
            return 0;
        }
        let start = self.count_start();
        if now <= start {
            return 0;
        }
        let slots = (now - start).as_nanos() / self.cfg.phy.slot.as_nanos();
        slots.min(u64::from(u32::MAX)) as u32
    }
    /// When the head-of-line frame may go if the medium stays idle.
    fn access_time(&self) -> Option<SimTime> {
        if self.phase != DcfPhase::Contend || self.queue.is_empty() || self.phy_busy {
            return None;
        }
        let k = self.backoff?;
        Some(self.count_start() + self.cfg.phy.slot * u64::from(k))
    }

    /// The medium turns busy at `now` (called only on an idle → busy transition).
    fn freeze(&mut self, now: SimTime) {
        let Some(k) = self.backoff else { return };
        if self.immediate {
            if now < self.count_start() {
                // Busy before the DIFS of an immediate access ran out: back off (9.2.5.1).
                self.draw_backoff(now);
            }
            return;
        }
        let left = k - self.slots_counted(now).min(k);
        self.backoff = if left == 0 && self.queue.is_empty() {
            None // post-backoff complete
        } else {
            Some(left)
        };
    }

    fn draw_backoff(&mut self, now: SimTime) {
        self.backoff = Some(self.rng.uniform_inclusive(u64::from(self.cw)) as u32);
        self.immediate = false;
        self.count_not_before = now;
    }

    // ---- inputs ----

    fn on_enqueue(&mut self, now: SimTime, dst: NodeId, msdu_bytes: u32, payload: P) {
        let seq = self.next_seq;
        self.next_seq = (self.next_seq + 1) % SEQ_MODULUS;
        self.queue.push_back(Outgoing {
            dst,
            msdu_bytes,
            payload,
            seq,
            sent_before: false,
        });
        if self.queue.len() > 1 || self.phase != DcfPhase::Contend || self.backoff.is_some() {
            return; // a pending backoff (or post-backoff) keeps counting
        }
        if self.is_busy(now) {
            self.draw_backoff(now);
        } else {
            // Idle: go after DIFS/EIFS of idle, which may already have passed.
            self.backoff = Some(0);
            self.immediate = true;
            self.count_not_before = SimTime::ZERO;
        }
    }

    fn on_medium_busy(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        // A counter expiring at this very instant has already committed to transmit.
        self.fire_due(now, out);
        if !self.is_busy(now) {
            self.freeze(now);
        }
        self.phy_busy = true;
    }

    fn on_medium_idle(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        self.phy_busy = false;
        self.phy_idle_since = now;
        if self.overdue {
            self.response_missing(now, out);
        }
    }

    fn on_rx_error(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        self.use_eifs = true;
        self.counters.rx_errors += 1;
        if self.overdue {
            self.response_missing(now, out);
        }
    }

    fn raise_nav(&mut self, now: SimTime, until: SimTime) {
        if until > self.nav_until {
            if !self.is_busy(now) {
                self.freeze(now);
            }
            self.nav_until = until;
        }
    }

    fn on_received(&mut self, now: SimTime, frame: MacFrame<P>, out: &mut Vec<MacOutput<P>>) {
        self.use_eifs = false;
        if frame.kind == FrameKind::Rts {
            out.push(MacOutput::Signal(MacSignal::Wait {
                sender: frame.ta,
                duration: frame.duration,
            }));
        }
        if frame.ra != self.me {
            self.raise_nav(now, now + frame.duration);
            if self.overdue {
                self.response_missing(now, out);
            }
            return;
        }
        let awaited = matches!(
            (frame.kind, self.phase),
            (FrameKind::Cts, DcfPhase::AwaitCts { .. })
                | (FrameKind::Ack, DcfPhase::AwaitAck { .. })
        );
        if !awaited {
            if self.overdue {
                // 9.2.8: the frame received after the timeout is not the response.
                self.response_missing(now, out);
            }
            if matches!(frame.kind, FrameKind::Cts | FrameKind::Ack) {
                return; // stale or unexpected response
            }
        }
        match frame.kind {
            FrameKind::Rts => self.on_rts(now, &frame),
            FrameKind::Cts => self.on_cts(now),
            FrameKind::Ack => self.on_ack(now, out),
            FrameKind::Data => self.on_data(now, frame, out),
        }
    }

    fn on_rts(&mut self, now: SimTime, rts: &MacFrame<P>) {
        if now < self.nav_until || self.sifs_tx.is_some() {
            return; // 9.2.5.6: no CTS while the NAV says the medium is reserved
        }
        let phy = &self.cfg.phy;
        let cts = MacFrame {
            kind: FrameKind::Cts,
            ra: rts.ta,
            ta: self.me,
            duration: rts
                .duration
                .saturating_sub(phy.sifs)
                .saturating_sub(phy.cts_airtime()),
            seq: 0,
            retry: false,
            msdu_bytes: 0,
            payload: None,
        };
        self.sifs_tx = Some((now + phy.sifs, cts));
    }

    fn on_cts(&mut self, now: SimTime) {
        self.overdue = false;
        self.ssrc = 0; // 9.2.4: a CTS resets the SSRC
        let data = self.data_frame();
        self.phase = DcfPhase::SendData;
        self.sifs_tx = Some((now + self.cfg.phy.sifs, data));
    }

    fn on_ack(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        self.overdue = false;
        let long = self.head_uses_rts();
        if long {
            self.slrc = 0;
        } else {
            self.ssrc = 0;
        }
        self.counters.successes += 1;
        self.qsrc = 0;
        self.finish_head(now, self.cfg.cw_min, MacSignal::TxSuccess, out);
    }

    fn on_data(&mut self, now: SimTime, frame: MacFrame<P>, out: &mut Vec<MacOutput<P>>) {
        let ack = MacFrame {
            kind: FrameKind::Ack,
            ra: frame.ta,
            ta: self.me,
            duration: SimDuration::ZERO,
            seq: 0,
            retry: false,
            msdu_bytes: 0,
            payload: None,
        };
        // 9.2.8: the ACK goes SIFS after the data, whatever the medium or the NAV. (A SIFS
        // transmission of our own already pending wins; the sender will retry.)
        if self.sifs_tx.is_none() {
            self.sifs_tx = Some((now + self.cfg.phy.sifs, ack));
        }
        let duplicate = frame.retry && self.last_seq_from.get(&frame.ta) == Some(&frame.seq);
        self.last_seq_from.insert(frame.ta, frame.seq);
        if duplicate {
            self.counters.duplicates += 1;
        } else if let Some(payload) = frame.payload {
            self.counters.delivered += 1;
            out.push(MacOutput::Deliver {
                from: frame.ta,
                msdu_bytes: frame.msdu_bytes,
                payload,
            });
        }
    }

    // ---- the sender's exchange ----

    fn head_uses_rts(&self) -> bool {
        self.queue
            .front()
            .is_some_and(|h| self.cfg.uses_rts(h.msdu_bytes))
    }

    fn data_frame(&self) -> MacFrame<P> {
        let head = self.queue.front().expect("an exchange needs a frame");
        let phy = &self.cfg.phy;
        MacFrame {
            kind: FrameKind::Data,
            ra: head.dst,
            ta: self.me,
            duration: phy.sifs + phy.ack_airtime(),
            seq: head.seq,
            retry: head.sent_before,
            msdu_bytes: head.msdu_bytes,
            payload: Some(head.payload.clone()),
        }
    }

    fn fire_due(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        if let Some((at, _)) = &self.sifs_tx {
            if *at <= now {
                let (_, frame) = self.sifs_tx.take().expect("checked above");
                let is_data = frame.kind == FrameKind::Data;
                self.transmit(now, frame, out);
                if is_data {
                    self.phase = DcfPhase::AwaitAck {
                        deadline: self.tx_end + self.cfg.phy.ack_timeout(),
                    };
                }
            }
        }
        match self.phase {
            DcfPhase::AwaitCts { deadline } | DcfPhase::AwaitAck { deadline }
                if deadline <= now && !self.overdue =>
            {
                if self.phy_busy {
                    self.overdue = true; // a reception has started: wait for its end
                } else {
                    self.response_missing(now, out);
                }
            }
            _ => {}
        }
        if self.access_time().is_some_and(|t| t <= now) {
            self.start_exchange(now, out);
        }
    }

    fn transmit(&mut self, now: SimTime, frame: MacFrame<P>, out: &mut Vec<MacOutput<P>>) {
        if !self.is_busy(now) {
            self.freeze(now);
        }
        let phy = &self.cfg.phy;
        let rate = if frame.kind == FrameKind::Data {
            phy.data_rate_bps
        } else {
            phy.basic_rate_bps
        };
        let airtime = phy.airtime(frame.bytes(), rate);
        self.tx_end = now + airtime;
        if frame.kind == FrameKind::Data {
            self.counters.data_frames_sent += 1;
            if let Some(h) = self.queue.front_mut() {
                h.sent_before = true;
            }
        } else {
            self.counters.control_frames_sent += 1;
        }
        out.push(MacOutput::StartTx { frame, airtime });
    }

    fn start_exchange(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        self.backoff = None;
        self.immediate = false;
        self.counters.attempts += 1;
        out.push(MacOutput::Signal(MacSignal::Trans));
        let timeout = self.cfg.phy.ack_timeout();
        if self.head_uses_rts() {
            let head = self.queue.front().expect("access needs a frame");
            let phy = &self.cfg.phy;
            let rts = MacFrame {
                kind: FrameKind::Rts,
                ra: head.dst,
                ta: self.me,
                duration: phy.sifs * 3
                    + phy.cts_airtime()
                    + phy.data_airtime(head.msdu_bytes)
                    + phy.ack_airtime(),
                seq: 0,
                retry: false,
                msdu_bytes: 0,
                payload: None,
            };
            self.transmit(now, rts, out);
            self.phase = DcfPhase::AwaitCts {
                deadline: self.tx_end + timeout,
            };
        } else {
            let data = self.data_frame();
            self.transmit(now, data, out);
            self.phase = DcfPhase::AwaitAck {
                deadline: self.tx_end + timeout,
            };
        }
    }

    /// No CTS / ACK: count the failure, then retry with a doubled CW or drop.
    fn response_missing(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        self.overdue = false;
        let (count, limit) = match self.phase {
            DcfPhase::AwaitCts { .. } => {
                self.counters.cts_timeouts += 1;
                (&mut self.ssrc, self.cfg.short_retry_limit)
            }
            DcfPhase::AwaitAck { .. } => {
                self.counters.ack_timeouts += 1;
                if self.head_uses_rts() {
                    (&mut self.slrc, self.cfg.long_retry_limit)
                } else {
                    (&mut self.ssrc, self.cfg.short_retry_limit)
                }
            }
            _ => return,
        };
        *count += 1;
        let dropped = *count >= limit;
        if dropped {
            *count = 0;
        }
        let cw = match self.cfg.cw_rule {
            CwRule::Dcf if dropped => self.cfg.cw_min,
            CwRule::Dcf => (2 * (self.cw + 1) - 1).min(self.cfg.cw_max),
            CwRule::Qsrc => self.qsrc_failure(),
        };
        if dropped {
            self.counters.drops += 1;
            self.finish_head(now, cw, MacSignal::TxFailure, out);
        } else {
            self.counters.retries += 1;
            self.cw = cw;
            self.phase = DcfPhase::Contend;
            self.draw_backoff(now);
        }
    }

    /// 802.11-2020 §10.23.2.2 at a failure: QSRC and the CW it gives.
    fn qsrc_failure(&mut self) -> u32 {
        if self.qsrc < self.cfg.short_retry_limit {
            self.qsrc += 1;
            let doubled = u64::from(self.cfg.cw_min + 1) << self.qsrc.min(32);
            (doubled - 1).min(u64::from(self.cfg.cw_max)) as u32
        } else {
            self.qsrc = 0;
            self.cfg.cw_min
        }
    }

    /// The head-of-line frame is done (acknowledged or dropped): CW = `cw`, post-backoff.
    fn finish_head(
        &mut self,
        now: SimTime,
        cw: u32,
        signal: MacSignal,
        out: &mut Vec<MacOutput<P>>,
    ) {
        self.queue.pop_front();
        self.cw = cw;
        self.phase = DcfPhase::Contend;
        self.draw_backoff(now);
        out.push(MacOutput::Signal(signal));
    }
}
