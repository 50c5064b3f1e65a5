//! FAMA-NCS, floor acquisition multiple access with non-persistent carrier sensing
//! (C. L. Fullmer and J. J. Garcia-Luna-Aceves, SIGCOMM '97; MONET 1999), for one station, as
//! a pure state machine with the common MAC interface (`mac/common.rs`), plus TULIP's MAC
//! acceleration (Parsa & Garcia-Luna-Aceves, TULIP §3.3, Figure 4). Every rule, with the
//! choices made where the papers are silent, is in `docs/models/fama.md` (protocol-notes
//! §5.3); in brief:
//! - **Non-persistent carrier sensing**: clear → RTS at once; busy (energy, a deferral, our
//!   own transmission or pending response) → a backoff of 1 + U[0, cw] slots, then sense
//!   again. A new deferral counts as sensing busy.
//! - **RTS/CTS with CTS dominance**: CTS ≥ RTS + 2τ + ξ ([`FamaConfig::validate`]), one SIFS
//!   after the RTS; the data one SIFS after the CTS; no CTS in time → double cw, back off,
//!   drop after `retry_limit` RTSs.
//! - **Deferral**: for the CTS after an overheard RTS or noise; for a maximum data frame
//!   (plus the reply window) after a CTS; to the end of a data frame plus its announced reply
//!   window once the data is heard.
//! - **No MAC ACK**: `TxSuccess` = the data frame went out, `TxFailure` = no floor within the
//!   retry limit. A backoff follows every exchange.
//! - **MAC acceleration** (§3.3): a data frame holds the floor for a reply window; a reply
//!   of at most `reply_in_floor_max_bytes` given at the `Deliver` instant
//!   ([`MacInput::ReplyInFloor`]) goes SIFS after the data with no RTS/CTS and no signals
//!   (Figure 4(a)); a larger one gets an immediate RTS (Figure 4(b)); without an open window
//!   it is an ordinary `Enqueue`. A data frame still backing off can be taken back
//!   ([`Fama::withdraw`]) so that TULIP sends it as that reply with its LACK on it.
//!
//! Every constant with its source (the 802.11 DSSS PHY TULIP §4 names, or the least the
//! FAMA-NCS rules allow: the papers give no numbers) is tabled in `docs/models/fama.md`,
//! "The constants", with TULIP's time per packet taken apart against Table 2.
//!
//! The MAC knows no link layer: the cell gives it the link layer's framing ([`LinkFraming`]).
//! Frame lengths on the air come from [`FamaConfig::frame_bytes`] (the CTS is 21 bytes).
//!
//! Left out: hidden terminals (the medium model has none), an early give-up of the receiver
//! that sent a CTS, multiple-packet trains, power control.

pub mod spec;
pub use spec::FamaSpec;

use std::collections::VecDeque;

use super::common::{FrameKind, MacFrame, MacInput, MacOutput, MacSignal};
use crate::engine::{RngStream, SimDuration, SimTime};
use crate::ids::NodeId;
use crate::wireless::phy::{PhyConfig, A_CW_MAX, A_CW_MIN, DOT11_SHORT_RETRY_LIMIT, RTS_BYTES};

/// τ: the maximum one-way propagation delay in the cell. 1 µs (≈ 300 m), 802.11's
/// aAirPropagationTime and TULIP's default τ; the papers' analysis keeps it symbolic.
pub const TAU: SimDuration = SimDuration::from_micros(1);
/// ξ: the transmit-to-receive turnaround of the radio in the CTS-dominance condition, 5 µs:
/// the 802.11 DSSS aRxTxTurnaroundTime, TULIP's default t_TR.
pub const XI_TURNAROUND: SimDuration = SimDuration::from_micros(5);
/// The largest IP datagram the deferral after a CTS covers: 1500 bytes, the wired side's
/// MTU (TULIP §5 sends 1400-byte packets).
pub const MAX_IP_DATAGRAM_BYTES: u32 = 1500;

/// What the link layer above puts on the air, by which FAMA-NCS sizes its floors. The cell
/// passes it in (`FamaSpec::config`); the MAC knows no link layer.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkFraming {
    /// Bytes the link layer adds to each datagram: the CTS deferral covers a maximum
    /// datagram plus these.
    pub header_bytes: u32,
    /// The largest reply the link layer sends inside the floor (MAC acceleration, TULIP
    /// §3.3); 0 = none, acceleration off.
    pub reply_in_floor_max_bytes: u32,
}

/// The station's configuration. `Default` is the 1 Mbps 802.11 DSSS PHY of TULIP's set-up
/// (§5), long PLCP framing for every frame, with no link layer above: bare datagrams and no
/// MAC acceleration until [`FamaConfig::with_link`] says otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct FamaConfig {
    /// PLCP framing, rates, SIFS (the response turnaround) and the backoff slot.
    pub phy: PhyConfig,
    /// τ, the maximum propagation delay ([`TAU`]).
    pub tau: SimDuration,
    /// ξ, the radio turnaround in the dominance condition and the CTS-timeout margin.
    pub turnaround: SimDuration,
    /// RTS length: the 802.11 RTS layout (frame control, duration = the announced floor
    /// length, RA, TA, FCS): 20 bytes.
    pub rts_bytes: u32,
    /// CTS length: the shortest whole number of bytes with CTS ≥ RTS + 2τ + ξ
    /// ([`FamaConfig::min_cts_bytes`]): 21 bytes (360 µs against the RTS's 352 µs) at 1 Mbps.
    pub cts_bytes: u32,
    /// Backoff window in slots: a backoff is 1 + U[0, cw] slots of `phy.slot` (20 µs, which
    /// covers carrier detection, turnaround and propagation). cw starts at `cw_min`, doubles
    /// (2·(cw+1) − 1) on every missing CTS up to `cw_max`, and returns to `cw_min` when an
    /// exchange ends: the 802.11 values 31 / 1023, as the papers give none.
    pub cw_min: u32,
    pub cw_max: u32,
    /// Failed RTSs before the frame is dropped (`TxFailure`): dot11ShortRetryLimit, 7.
    pub retry_limit: u32,
    /// The data MSDU the CTS deferral covers: [`MAX_IP_DATAGRAM_BYTES`] plus the link
    /// layer's header.
    pub max_data_msdu_bytes: u32,
    /// TULIP's MAC acceleration (§3.3).
    pub mac_acceleration: bool,
    /// The largest MSDU sent inside the floor (TULIP over FAMA: a 3-byte LACK plus a 40-byte
    /// TCP ACK, 43).
    pub reply_in_floor_max_bytes: u32,
}

impl Default for FamaConfig {
    fn default() -> Self {
        Self::with_phy(PhyConfig::default())
    }
}

/// A FAMA configuration field that does not make sense, with what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: expected {expected}")]
pub struct FamaConfigError {
    pub field: &'static str,
    pub expected: &'static str,
}

impl FamaConfig {
    /// Our defaults on the given PHY, with the shortest dominant CTS for its basic rate.
    pub fn with_phy(phy: PhyConfig) -> Self {
        let cts_bytes = Self::min_cts_bytes(&phy, RTS_BYTES, TAU, XI_TURNAROUND);
        FamaConfig {
            phy,
            tau: TAU,
            turnaround: XI_TURNAROUND,
            rts_bytes: RTS_BYTES,
            cts_bytes,
            cw_min: A_CW_MIN,
            cw_max: A_CW_MAX,
            retry_limit: DOT11_SHORT_RETRY_LIMIT,
            max_data_msdu_bytes: MAX_IP_DATAGRAM_BYTES,
            mac_acceleration: false,
            reply_in_floor_max_bytes: 0,
        }
    }

    /// Sized for the link layer above: its header on every data frame, and MAC acceleration
    /// with its in-floor reply when it has one.
    pub fn with_link(self, link: LinkFraming) -> Self {
        FamaConfig {
            max_data_msdu_bytes: MAX_IP_DATAGRAM_BYTES + link.header_bytes,
            mac_acceleration: link.reply_in_floor_max_bytes > 0,
            reply_in_floor_max_bytes: link.reply_in_floor_max_bytes,
            ..self
        }
    }

    /// The shortest CTS (bytes) lasting at least RTS + 2τ + ξ at the basic rate.
    pub fn min_cts_bytes(
        phy: &PhyConfig,
        rts_bytes: u32,
        tau: SimDuration,
        xi: SimDuration,
    ) -> u32 {
        let margin_ns = (tau * 2 + xi).as_nanos();
        // Bytes = ⌈margin · R / 8⌉.
        let bits = (u128::from(margin_ns) * u128::from(phy.basic_rate_bps)).div_ceil(1_000_000_000);
        rts_bytes + bits.div_ceil(8) as u32
    }

    /// Checks what a user may get wrong; the MAC itself assumes a valid configuration.
    pub fn validate(&self) -> Result<(), FamaConfigError> {
        let err =
            |field: &'static str, expected: &'static str| Err(FamaConfigError { field, expected });
        if !self.phy.is_valid() {
            return err("phy", "DSSS rates of 1, 2, 5.5 or 11 Mbps");
        }
        if self.phy.slot.is_zero() {
            return err("phy.slot", "a positive slot time");
        }
        if self.cts_airtime() < self.rts_airtime() + self.tau * 2 + self.turnaround {
            return err("cts_bytes", "CTS ≥ RTS + 2τ + ξ (CTS dominance)");
        }
        if !(self.cw_min + 1).is_power_of_two() || !(self.cw_max + 1).is_power_of_two() {
            return err("cw_min/cw_max", "2^k − 1 values (e.g. 31, 1023)");
        }
        if self.cw_min > self.cw_max {
            return err("cw_min", "cw_min <= cw_max");
        }
        if self.retry_limit == 0 {
            return err("retry_limit", "at least 1 attempt");
        }
        Ok(())
    }

    pub fn rts_airtime(&self) -> SimDuration {
        self.phy.airtime(self.rts_bytes, self.phy.basic_rate_bps)
    }
    pub fn cts_airtime(&self) -> SimDuration {
        self.phy.airtime(self.cts_bytes, self.phy.basic_rate_bps)
    }
    pub fn data_airtime(&self, msdu_bytes: u32) -> SimDuration {
        self.phy.data_airtime(msdu_bytes)
    }
    /// What the floor holds after a data frame for the in-floor reply: SIFS + 2τ + the largest
    /// reply (zero without MAC acceleration).
    pub fn reply_window(&self) -> SimDuration {
        if self.mac_acceleration {
            self.phy.sifs + self.tau * 2 + self.data_airtime(self.reply_in_floor_max_bytes)
        } else {
            SimDuration::ZERO
        }
    }
    /// Deferral after overhearing an RTS: long enough for the CTS.
    pub fn rts_deferral(&self) -> SimDuration {
        self.phy.sifs + self.cts_airtime() + self.tau * 2
    }
    /// Deferral after a CTS (or noise where a CTS was expected): a maximum-length data packet
    /// plus propagation, plus the reply window.
    pub fn cts_deferral(&self) -> SimDuration {
        self.phy.sifs
            + self.tau * 2
            + self.data_airtime(self.max_data_msdu_bytes)
            + self.reply_window()
    }
    /// How long after the end of its RTS the sender waits for the CTS: SIFS + 2τ + CTS + ξ.
    pub fn cts_timeout(&self) -> SimDuration {
        self.phy.sifs + self.tau * 2 + self.cts_airtime() + self.turnaround
    }
    /// Length on the air of a FAMA frame, header and FCS included (`MacFrame::bytes` knows the
    /// 802.11 control lengths only).
    pub fn frame_bytes<P>(&self, frame: &MacFrame<P>) -> u32 {
        match frame.kind {
            FrameKind::Rts => self.rts_bytes,
            FrameKind::Cts => self.cts_bytes,
            _ => frame.bytes(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FamaCounters {
    /// RTSs sent for our own frames (floor acquisition attempts).
    pub attempts: u64,
    /// Of those, RTSs sent at once after a received data frame (MAC acceleration, > 40 bytes).
    pub immediate_rts: u64,
    /// Failed attempts that were retried.
    pub retries: u64,
    /// Frames dropped at the retry limit.
    pub drops: u64,
    /// RTSs that got no CTS.
    pub cts_timeouts: u64,
    /// Times sensing found the channel busy (or deferred) and drew a backoff.
    pub busy_senses: u64,
    /// Frames received in error (noise).
    pub rx_errors: u64,
    /// RTS and CTS frames sent.
    pub control_frames_sent: u64,
    /// Data frames sent after acquiring the floor (each a `TxSuccess`).
    pub data_frames_sent: u64,
    /// Replies sent inside a floor (MAC acceleration).
    pub replies_in_floor: u64,
    pub delivered: u64,
}

/// Where a station is in its exchange.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FamaPhase {
    /// Nothing to send, or sensing / backing off for the head-of-line frame.
    Contend,
    /// RTS sent; the floor is ours if a CTS arrives by `deadline`.
    AwaitCts { deadline: SimTime },
    /// CTS received; the data goes SIFS later.
    SendData,
    /// Our data frame is on the air until `until`.
    DataOnAir { until: SimTime },
    /// MAC acceleration: holding the floor for `peer`'s reply until `until`.
    AwaitReply { until: SimTime, peer: NodeId },
}

/// A snapshot for tests and metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FamaState {
    pub phase: FamaPhase,
    /// When the station will next sense the channel for its head-of-line frame.
    pub next_sense: Option<SimTime>,
    /// Deferral (overheard RTS / CTS / noise / data) in force until this instant.
    pub defer_until: SimTime,
    pub cw: u32,
    pub retry_count: u32,
    pub medium_busy: bool,
    pub queue_len: usize,
}

#[derive(Clone, Debug)]
struct Outgoing<P> {
    dst: NodeId,
    msdu_bytes: u32,
    payload: P,
}

/// A pending backoff: sense again `slots` slots after `max(after, defer_until)`.
#[derive(Copy, Clone, Debug)]
struct Backoff {
    slots: u32,
    after: SimTime,
}

/// What a frame scheduled a turnaround after a reception is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Role {
    Cts,
    Data,
    Reply,
    ImmediateRts,
}

/// One station's FAMA-NCS MAC.
#[derive(Clone, Debug)]
pub struct Fama<P> {
    me: NodeId,
    cfg: FamaConfig,
    rng: RngStream,
    queue: VecDeque<Outgoing<P>>,
    phase: FamaPhase,
    phy_busy: bool,
    tx_end: SimTime,
    defer_until: SimTime,
    /// An overheard RTS's CTS is expected until this instant (noise then = a CTS).
    cts_expected_until: SimTime,
    backoff: Option<Backoff>,
    cw: u32,
    retries: u32,
    turnaround_tx: Option<(SimTime, MacFrame<P>, Role)>,
    /// The peer and instant of a delivered data frame that holds the floor for our reply.
    reply_window: Option<(NodeId, SimTime)>,
    next_seq: u16,
    counters: FamaCounters,
}

impl<P: Clone> Fama<P> {
    pub fn new(me: NodeId, cfg: FamaConfig, rng: RngStream) -> Self {
        let cw = cfg.cw_min;
        Fama {
            me,
            cfg,
            rng,
            queue: VecDeque::new(),
            phase: FamaPhase::Contend,
            phy_busy: false,
            tx_end: SimTime::ZERO,
            defer_until: SimTime::ZERO,
            cts_expected_until: SimTime::ZERO,
            backoff: None,
            cw,
            retries: 0,
            turnaround_tx: None,
            reply_window: None,
            next_seq: 0,
            counters: FamaCounters::default(),
        }
    }

    pub fn id(&self) -> NodeId {
        self.me
    }
    pub fn config(&self) -> &FamaConfig {
        &self.cfg
    }
    pub fn counters(&self) -> &FamaCounters {
        &self.counters
    }
    /// True when a data frame from `peer` delivered at `now` holds the floor for our reply:
    /// a [`MacInput::ReplyInFloor`] now goes inside it (or as an immediate RTS if large).
    pub fn is_reply_window_open(&self, now: SimTime, peer: NodeId) -> bool {
        self.reply_window == Some((peer, now))
            && self.turnaround_tx.is_none()
            && self.phase == FamaPhase::Contend
    }

    /// Takes back the first queued frame `matches` accepts that no exchange has started
    /// for: the link layer sends it again with its LACK on it as the reply to a data frame
    /// just received (TULIP §3.3, Figure 4(b)). A frame whose RTS is out, or due, stays.
    pub fn withdraw(&mut self, matches: impl Fn(&P) -> bool) -> Option<P> {
        let head_started = self.phase != FamaPhase::Contend || self.turnaround_tx.is_some();
        let i = self
            .queue
            .iter()
            .enumerate()
            .skip(usize::from(head_started))
            .find(|(_, o)| matches(&o.payload))
            .map(|(i, _)| i)?;
        self.queue.remove(i).map(|o| o.payload)
    }

    pub fn state(&self, now: SimTime) -> FamaState {
        FamaState {
            phase: self.phase,
            next_sense: self.sense_time(),
            defer_until: self.defer_until,
            cw: self.cw,
            retry_count: self.retries,
            medium_busy: self.phy_busy || now < self.tx_end,
            queue_len: self.queue.len(),
        }
    }

    /// The next instant at which `handle(.., Timeout, ..)` has something to do.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let mut next: Option<SimTime> = self.turnaround_tx.as_ref().map(|(at, _, _)| *at);
        let mut consider = |t: SimTime| next = Some(next.map_or(t, |n| n.min(t)));
        match self.phase {
            FamaPhase::AwaitCts { deadline: t }
            | FamaPhase::DataOnAir { until: t }
            | FamaPhase::AwaitReply { until: t, .. } => consider(t),
            FamaPhase::Contend | FamaPhase::SendData => {}
        }
        if !self.queue.is_empty() {
            if let Some(t) = self.sense_time() {
                consider(t);
            }
        }
        next
    }

    pub fn handle(&mut self, now: SimTime, input: MacInput<P>, out: &mut Vec<MacOutput<P>>) {
        match input {
            MacInput::Enqueue {
                dst,
                msdu_bytes,
                payload,
            } => self.on_enqueue(now, dst, msdu_bytes, payload),
            MacInput::ReplyInFloor {
                dst,
                msdu_bytes,
                payload,
            } => self.on_reply_in_floor(now, dst, msdu_bytes, payload),
            MacInput::MediumBusy => {
                // A sense falling due at this very instant has already committed (carrier
                // detection is not instantaneous), as in the DCF.
                self.fire_due(now, out);
                self.phy_busy = true;
            }
            MacInput::MediumIdle => self.phy_busy = false,
            MacInput::Received(frame) => self.on_received(now, frame, out),
            MacInput::RxError => self.on_noise(now),
            MacInput::Timeout => {}
        }
        self.fire_due(now, out);
    }

    // ---- sensing and backoff ----

    fn sense_time(&self) -> Option<SimTime> {
        let b = self.backoff?;
        Some(b.after.max(self.defer_until) + self.cfg.phy.slot * u64::from(b.slots))
    }

    /// Non-persistent carrier sense: nothing heard, nothing owed, no deferral.
    fn is_clear(&self, now: SimTime) -> bool {
        !self.phy_busy
            && now >= self.tx_end
            && now >= self.defer_until
            && self.turnaround_tx.is_none()
            && self.phase == FamaPhase::Contend
    }

    /// A backoff of 1 + U[0, cw] slots, counted from `now` (or the end of a deferral).
    fn draw_backoff(&mut self, now: SimTime) {
        let slots = 1 + self.rng.uniform_inclusive(u64::from(self.cw)) as u32;
        self.backoff = Some(Backoff { slots, after: now });
    }

    /// A deferral from something overheard. A pending backoff has in effect found the
    /// channel busy: it is drawn again, to count from the end of the deferral. (Keeping the
    /// old draw across floors would let the station that just sent, which draws afresh, win
    /// every floor against a large stale draw.)
    fn defer(&mut self, now: SimTime, until: SimTime) {
        if until <= self.defer_until {
            return;
        }
        self.defer_until = until;
        if self.backoff.is_some() {
            self.draw_backoff(now);
        }
    }

    // ---- inputs ----

    fn push(&mut self, dst: NodeId, msdu_bytes: u32, payload: P, front: bool) {
        let o = Outgoing {
            dst,
            msdu_bytes,
            payload,
        };
        if front {
            self.queue.push_front(o);
        } else {
            self.queue.push_back(o);
        }
    }

    fn on_enqueue(&mut self, now: SimTime, dst: NodeId, msdu_bytes: u32, payload: P) {
        self.push(dst, msdu_bytes, payload, false);
        if self.queue.len() > 1 || self.phase != FamaPhase::Contend || self.backoff.is_some() {
            return; // a pending backoff (or post-exchange backoff) stands
        }
        if self.is_clear(now) {
            self.backoff = Some(Backoff {
                slots: 0,
                after: now,
            });
        } else {
            self.counters.busy_senses += 1;
            self.draw_backoff(now);
        }
    }

    fn on_reply_in_floor(&mut self, now: SimTime, dst: NodeId, msdu_bytes: u32, payload: P) {
        let open = self.is_reply_window_open(now, dst);
        self.reply_window = None;
        if !open {
            return self.on_enqueue(now, dst, msdu_bytes, payload);
        }
        let at = now + self.cfg.phy.sifs;
        if msdu_bytes <= self.cfg.reply_in_floor_max_bytes {
            let frame = self.frame(FrameKind::Data, dst, SimDuration::ZERO, msdu_bytes);
            let frame = MacFrame {
                payload: Some(payload),
                ..frame
            };
            self.turnaround_tx = Some((at, frame, Role::Reply));
        } else {
            // TULIP §3.3 / Figure 4(b): "FAMA is instructed to immediately send an RTS".
            self.push(dst, msdu_bytes, payload, true);
            self.backoff = None;
            let rts = self.rts_for_head();
            self.turnaround_tx = Some((at, rts, Role::ImmediateRts));
        }
    }

    fn on_noise(&mut self, now: SimTime) {
        self.counters.rx_errors += 1;
        if now <= self.cts_expected_until {
            // Noise where a CTS was expected: as a CTS.
            self.defer(now, now + self.cfg.cts_deferral());
        } else {
            // Unknown noise may be a collided RTS: leave room for its CTS.
            self.defer(now, now + self.cfg.rts_deferral());
        }
    }

    fn on_received(&mut self, now: SimTime, frame: MacFrame<P>, out: &mut Vec<MacOutput<P>>) {
        if frame.kind == FrameKind::Rts {
            out.push(MacOutput::Signal(MacSignal::Wait {
                sender: frame.ta,
                duration: frame.duration,
            }));
        }
        let for_me = frame.ra == self.me;
        match (frame.kind, for_me) {
            (FrameKind::Rts, true) => self.on_rts(now, &frame),
            (FrameKind::Rts, false) => {
                self.defer(now, now + self.cfg.rts_deferral());
                self.cts_expected_until = now + self.cfg.rts_deferral();
            }
            (FrameKind::Cts, true) => self.on_cts(now, &frame),
            (FrameKind::Cts, false) => {
                self.cts_expected_until = SimTime::ZERO;
                self.defer(now, now + self.cfg.cts_deferral());
            }
            (FrameKind::Data, true) => self.on_data(now, frame, out),
            (FrameKind::Data, false) => {
                // The floor ends with this frame and the reply window it announces.
                self.defer_until = now + frame.duration;
            }
            (FrameKind::Ack, _) => {} // FAMA has no ACK
        }
    }

    fn on_rts(&mut self, now: SimTime, rts: &MacFrame<P>) {
        let answering_peer =
            matches!(self.phase, FamaPhase::AwaitReply { peer, .. } if peer == rts.ta);
        let free = self.phase == FamaPhase::Contend || answering_peer;
        if !free || now < self.defer_until || now < self.tx_end || self.turnaround_tx.is_some() {
            return;
        }
        if answering_peer {
            self.end_exchange(now); // the reply comes as its own exchange (Figure 4(b))
        }
        let cfg = &self.cfg;
        let duration = rts
            .duration
            .saturating_sub(cfg.phy.sifs)
            .saturating_sub(cfg.cts_airtime());
        let cts = self.frame(FrameKind::Cts, rts.ta, duration, 0);
        let at = now + self.cfg.phy.sifs;
        // We hold the floor for the data as an overhearer of our CTS would.
        self.defer(now, at + self.cfg.cts_airtime() + self.cfg.cts_deferral());
        self.turnaround_tx = Some((at, cts, Role::Cts));
    }

    fn on_cts(&mut self, now: SimTime, cts: &MacFrame<P>) {
        let expected = matches!(self.phase, FamaPhase::AwaitCts { .. })
            && self.queue.front().is_some_and(|h| h.dst == cts.ta);
        if !expected {
            return; // stale CTS
        }
        self.retries = 0;
        let head = self.queue.front().expect("checked above");
        let (dst, bytes, payload) = (head.dst, head.msdu_bytes, head.payload.clone());
        let data = MacFrame {
            payload: Some(payload),
            ..self.frame(FrameKind::Data, dst, self.cfg.reply_window(), bytes)
        };
        self.phase = FamaPhase::SendData;
        self.turnaround_tx = Some((now + self.cfg.phy.sifs, data, Role::Data));
    }

    fn on_data(&mut self, now: SimTime, frame: MacFrame<P>, out: &mut Vec<MacOutput<P>>) {
        // The data we made room for has arrived; our deferral for it is over.
        self.defer_until = self.defer_until.min(now);
        if self.cfg.mac_acceleration && !frame.duration.is_zero() {
            self.reply_window = Some((frame.ta, now));
        }
        if let Some(payload) = frame.payload {
            self.counters.delivered += 1;
            out.push(MacOutput::Deliver {
                from: frame.ta,
                msdu_bytes: frame.msdu_bytes,
                payload,
            });
        }
    }

    // ---- our own exchange ----

    fn frame(
        &mut self,
        kind: FrameKind,
        ra: NodeId,
        duration: SimDuration,
        msdu: u32,
    ) -> MacFrame<P> {
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        MacFrame {
            kind,
            ra,
            ta: self.me,
            duration,
            seq,
            retry: false,
            msdu_bytes: msdu,
            payload: None,
        }
    }

    /// The RTS for the head-of-line frame; its Duration announces the floor after it.
    fn rts_for_head(&mut self) -> MacFrame<P> {
        let head = self.queue.front().expect("an RTS needs a frame");
        let (dst, bytes) = (head.dst, head.msdu_bytes);
        let c = &self.cfg;
        let floor =
            c.phy.sifs * 2 + c.tau * 2 + c.cts_airtime() + c.data_airtime(bytes) + c.reply_window();
        self.frame(FrameKind::Rts, dst, floor, 0)
    }

    fn fire_due(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        if self
            .turnaround_tx
            .as_ref()
            .is_some_and(|(at, _, _)| *at <= now)
        {
            let (_, frame, role) = self.turnaround_tx.take().expect("checked above");
            self.send_turnaround(now, frame, role, out);
        }
        match self.phase {
            FamaPhase::AwaitCts { deadline } if deadline <= now => self.cts_missing(now, out),
            FamaPhase::DataOnAir { until } if until <= now => {
                out.push(MacOutput::Signal(MacSignal::TxSuccess));
                let peer = self.queue.pop_front().map_or(self.me, |h| h.dst);
                self.cw = self.cfg.cw_min;
                if self.cfg.mac_acceleration {
                    self.phase = FamaPhase::AwaitReply {
                        until: now + self.cfg.reply_window(),
                        peer,
                    };
                } else {
                    self.end_exchange(now);
                }
            }
            FamaPhase::AwaitReply { until, .. } if until <= now => self.end_exchange(now),
            _ => {}
        }
        if self.queue.is_empty() {
            if self.sense_time().is_some_and(|t| t <= now) {
                self.backoff = None; // post-exchange backoff over with nothing to send
            }
            return;
        }
        if self.sense_time().is_some_and(|t| t <= now) {
            if self.is_clear(now) {
                self.backoff = None;
                let rts = self.rts_for_head();
                self.send_rts(now, rts, out);
            } else {
                self.counters.busy_senses += 1;
                self.draw_backoff(now);
            }
        }
    }

    fn send_turnaround(
        &mut self,
        now: SimTime,
        frame: MacFrame<P>,
        role: Role,
        out: &mut Vec<MacOutput<P>>,
    ) {
        match role {
            Role::Cts => self.transmit(now, frame, out),
            Role::Reply => {
                self.counters.replies_in_floor += 1;
                self.transmit(now, frame, out);
            }
            Role::ImmediateRts => {
                self.counters.immediate_rts += 1;
                self.send_rts(now, frame, out);
            }
            Role::Data => {
                out.push(MacOutput::Signal(MacSignal::Trans));
                self.transmit(now, frame, out);
                self.phase = FamaPhase::DataOnAir { until: self.tx_end };
            }
        }
    }

    fn send_rts(&mut self, now: SimTime, rts: MacFrame<P>, out: &mut Vec<MacOutput<P>>) {
        self.counters.attempts += 1;
        self.transmit(now, rts, out);
        self.phase = FamaPhase::AwaitCts {
            deadline: self.tx_end + self.cfg.cts_timeout(),
        };
    }

    fn transmit(&mut self, now: SimTime, frame: MacFrame<P>, out: &mut Vec<MacOutput<P>>) {
        let airtime = match frame.kind {
            FrameKind::Data => {
                self.counters.data_frames_sent += u64::from(self.phase == FamaPhase::SendData);
                self.cfg.data_airtime(frame.msdu_bytes)
            }
            FrameKind::Rts => {
                self.counters.control_frames_sent += 1;
                self.cfg.rts_airtime()
            }
            FrameKind::Cts | FrameKind::Ack => {
                self.counters.control_frames_sent += 1;
                self.cfg.cts_airtime()
            }
        };
        self.tx_end = now + airtime;
        out.push(MacOutput::StartTx { frame, airtime });
    }

    /// No CTS: retry after a backoff from a doubled window, or drop at the retry limit.
    fn cts_missing(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        self.counters.cts_timeouts += 1;
        self.retries += 1;
        if self.retries >= self.cfg.retry_limit {
            self.counters.drops += 1;
            self.queue.pop_front();
            self.cw = self.cfg.cw_min;
            out.push(MacOutput::Signal(MacSignal::TxFailure));
            self.end_exchange(now);
        } else {
            self.counters.retries += 1;
            self.cw = (2 * (self.cw + 1) - 1).min(self.cfg.cw_max);
            self.phase = FamaPhase::Contend;
            self.draw_backoff(now);
        }
    }

    /// The floor is released (data sent, reply window over, or frame dropped): back off before
    /// sensing again, with or without a next frame.
    fn end_exchange(&mut self, now: SimTime) {
        self.retries = 0;
        self.phase = FamaPhase::Contend;
        self.draw_backoff(now);
    }
}

#[cfg(test)]
#[path = "fama_tests.rs"]
mod tests;
