//! Loss recovery: when a run of duplicate ACKs means a loss, what to retransmit, and when
//! recovery ends. The congestion control (`cc/`) supplies ssthresh and the normal growth;
//! the variants here only set cwnd while they are recovering.
//!
//! [`LossRecovery`] holds what every variant shares (the duplicate-ACK count and `recover`,
//! the hole it has named for retransmission, the [`Scoreboard`] of what the receiver holds)
//! and the variant's own state in [`AnyRecovery`]. The sender asks it, before sending new
//! data, for the next segment to retransmit ([`LossRecovery::next_retransmission`], RFC 6675's
//! `NextSeg` for holes); the [`Reaction`] of each ACK says what else the sender must do
//! (restart the timer, go back N, let the window grow).
//!
//! * **Tahoe** (4.3BSD Tahoe, ns-2 `Agent/TCP`, protocol-notes §2.3): on the DupThresh-th
//!   duplicate ACK, ssthresh from the congestion control, cwnd = 1 SMSS, go back N from SND.UNA
//!   (the ACK clock then slow-starts through the window again).
//! * **Reno** (RFC 5681 §3.2): on the DupThresh-th duplicate ACK retransmit SND.UNA,
//!   cwnd = ssthresh + DupThresh·SMSS (step 3; DupThresh = 3 gives the RFC's 3·SMSS), one
//!   SMSS more per further duplicate (step 4, inflation), and the next ACK of new data,
//!   partial or not, sets cwnd = ssthresh and ends recovery (step 6, deflation). The
//!   deflating ACK does not also grow cwnd (RFC 5681; 4.4BSD and ns-2 do add one increase).
//! * **NewReno** (RFC 6582 §3.2): entry as Reno with `recover` = the highest sequence sent.
//!   A partial ACK retransmits the next hole, deflates cwnd by the bytes acked and adds
//!   back one SMSS if at least one SMSS was acked (step 5), and resets the retransmission
//!   timer only on the first partial ACK (the "Impatient" variant, RFC 6582 §4). A full ACK
//!   sets cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS), option (1) of step 3, since
//!   this sender has no burst limit that option (2) would need.
//!
//! * **SACK** (RFC 6675, `sack.rs`) and **FACK** (Mathis & Mahdavi 1996, `fack.rs`) read
//!   the scoreboard the SACK blocks fill (`on_sack_ack`) and choose what to send themselves
//!   (`next_seg`) under cwnd − pipe or awnd; both fall back to NewReno when the peer does
//!   not offer SACK (`without_sack`). PRR (RFC 6937, `prr.rs`) may drive SACK's cwnd, and
//!   RACK-TLP (RFC 8985, `rack.rs`) may replace SACK's DupThresh rule by time, with its
//!   reordering and probe timers (`rack_deadline`, `on_rack_timer`).
//! * A retransmission timeout forgets the scoreboard (RFC 2018 §8) unless
//!   `keep_sack_after_timeout` (Linux, ns-3); until SND.UNA reaches the `recover` it set,
//!   `pipe_estimate` counts only what was sent again since as in the network.
//!
//! Common to all: a fast retransmit is only allowed once the cumulative ACK covers more
//! than `recover` (RFC 6582 §3.2 step 1, ns-2's `bug_fix_` for Tahoe and Reno too; RFC
//! 6675 §5.1 for SACK and FACK), and a retransmission timeout sets `recover` = the highest
//! sequence sent (RFC 6582 §4, ns-2), so duplicate ACKs for data sent before the timeout
//! cannot start a fast retransmit (unless `fast_retransmit_after_timeout`: then a timeout
//! sets `recover` = SND.UNA and an ACK reaching it passes, so they can, as in 4.4BSD's
//! `tcp_input`). `recover` is stored as an exclusive stream offset (SND.MAX at entry). For
//! Tahoe, Reno and NewReno "covers more than recover" is strict, `ack > recover`: the
//! Careful variant that RFC 2582 §6 recommended and RFC 3782 / RFC 6582 kept, as ns-2
//! (`highest_ack_ > recover_`, `tcp-newreno.cc` `dupack_action`) has it.
//! An ACK equal to SND.MAX at the timeout is exactly what the go-back-N duplicates of data
//! the receiver already held produce, so it must not start a fast retransmit. Before any
//! recovery or timeout there is no guard (RFC 6582 initialises `recover` to the ISN; ns-2's
//! `bugfix_ss_` lets the loss of the first segment be fast-retransmitted). RFC 6675 §5.1
//! says "HighACK is greater than or equal to" RecoveryPoint, so SACK and FACK keep
//! `ack >= recover`.
//!
//! **Limited transmit** (RFC 3042, `limited_transmit`): for Tahoe, Reno and NewReno, each of
//! the first DupThresh − 1 duplicate ACKs lets one new segment beyond cwnd out (outstanding
//! data up to cwnd + count·SMSS, new data only, cwnd unchanged), and the FlightSize that
//! sets ssthresh at the fast retransmit leaves those segments out (RFC 5681 §3.2 step 2);
//! SACK does it through pipe (RFC 6675 step 3), FACK through awnd.
//!
//! **The loss window** (`ssthresh_rule`): what the congestion control halves for ssthresh
//! is RFC 5681 (4)'s FlightSize (less what limited transmit sent), set again only by the
//! first timeout of a segment (§3.1). At a timeout it is the smaller of FlightSize and the
//! pipe (RFC 5681 (4) asks for "no more than" FlightSize/2): while a retransmission lost
//! again holds SND.UNA, SACK recovery keeps sending new data as SACKs arrive, so FlightSize
//! grows by about a window per round trip until the timer fires, and halving it would
//! slow-start far beyond what the path carried (ns-3 hands `GetSsThresh` BytesInFlight,
//! its pipe; Linux halves cwnd). With `ssthresh_rule = "bsd"` it is 4.4BSD's,
//! FreeBSD's and ns-2's min(cwnd, the peer's window) in whole segments, on every fast
//! retransmit and every timeout (`bsd_loss_window`, `timeout_loss_window`).
//!
//! Left out: the RFC 6582 §4 ACK heuristics.

mod fack;
mod prr;
mod rack;
mod sack;
mod scoreboard;

pub use fack::FackState;
pub use prr::Prr;
pub use rack::{Probe, Rack, TlpOutcome};
pub use sack::{SackAck, SackState};
pub use scoreboard::Scoreboard;

use super::cc::{AnyCongestionControl, CongestionControl, CongestionWindow};
use super::spec::{RecoveryKind, SsthreshRule};
use crate::engine::{SimDuration, SimTime};

/// Options that change a recovery's rules.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoveryOptions {
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// RFC 6937 proportional rate reduction (SACK recovery).
    pub prr: bool,
    /// RFC 8985 RACK-TLP loss detection (SACK recovery).
    pub rack: bool,
    /// Keep the scoreboard across a retransmission timeout (Linux, ns-3) instead of
    /// forgetting it (RFC 2018 §8).
    pub keep_sack_after_timeout: bool,
    /// What the congestion control halves for ssthresh after a loss.
    pub ssthresh_rule: SsthreshRule,
}

/// What the sender knows when a SACK recovery chooses the next segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SendContext {
    pub snd_una: u64,
    pub snd_max: u64,
    /// The end of the data written (the FIN, once queued, sits at this offset).
    pub written: u64,
    pub fin_queued: bool,
    /// The peer's window, from SND.UNA.
    pub snd_wnd: u64,
    pub cwnd: u64,
    pub mss: u64,
}

/// Why a segment was chosen (RFC 6675 `NextSeg` rules; FACK uses `Lost` and `New`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SegKind {
    /// Rule (1): a hole judged lost (FACK: below snd.fack), or the fast retransmission.
    Lost,
    /// Rule (2): new data.
    New,
    /// Rule (3): a hole not yet judged lost.
    Unsure,
    /// Rule (4): the rescue retransmission.
    Rescue,
}

/// What a SACK recovery reads and changes on an ACK: the shared state of
/// [`LossRecovery`], the window and the congestion control, and the flight after the ACK.
pub struct SackContext<'a> {
    pub now: SimTime,
    pub dupacks: &'a mut DupAcks,
    /// The segment named for retransmission regardless of the window.
    pub hole: &'a mut Option<u64>,
    pub board: &'a Scoreboard,
    pub w: &'a mut CongestionWindow,
    pub cc: &'a mut AnyCongestionControl,
    pub f: &'a Flight,
    /// SRTT, once there is one (RACK's reo_wnd).
    pub srtt: Option<SimDuration>,
    /// A timeout's go-back-N is under way (RACK: "RTO recovery").
    pub after_timeout: bool,
}

/// An ACK as the SACK recoveries receive it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SackInput<'a> {
    /// Bytes newly acknowledged cumulatively.
    pub acked: u64,
    /// Its SACK blocks as stream offsets (a D-SACK block below SND.UNA is harmless).
    pub blocks: &'a [(u64, u64)],
    /// It is an RFC 5681 duplicate ACK.
    pub rfc5681_dupack: bool,
    /// SRTT after the ACK, once there is one.
    pub srtt: Option<SimDuration>,
}

/// A segment a SACK recovery wants sent: `len` data bytes from `offset` (0 with the FIN
/// alone).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NextSeg {
    pub offset: u64,
    pub len: u64,
    pub kind: SegKind,
}

/// The sender's sequence state when recovery is consulted, as stream offsets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Flight {
    pub snd_una: u64,
    /// Highest sequence sent, plus one.
    pub snd_max: u64,
    pub mss: u64,
    /// The peer's window, from SND.UNA.
    pub snd_wnd: u64,
}

impl Flight {
    /// RFC 5681 FlightSize: sent but not cumulatively acknowledged.
    pub fn size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
}

/// What the sender must do after recovery has looked at an ACK, beyond sending the hole
/// recovery named (`LossRecovery::next_retransmission`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Reaction {
    /// SND.NXT = SND.UNA: resend everything outstanding as the window allows.
    pub go_back_n: bool,
    /// (Re)start the retransmission timer from now.
    pub restart_rto: bool,
    /// Let the congestion control grow the window on this ACK.
    pub grow_window: bool,
    /// A fast retransmit happened (for statistics).
    pub fast_retransmit: bool,
}

/// Duplicate-ACK counting and the `recover` guard shared by every variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DupAcks {
    pub count: u32,
    pub threshold: u32,
    /// Exclusive end of the data outstanding when recovery last started.
    pub recover: u64,
    /// A timeout does not raise `recover` (4.4BSD): duplicates of data sent before it may
    /// start a fast retransmit.
    pub after_timeout: bool,
    /// Bytes sent by limited transmit since the last new ACK (left out of FlightSize when
    /// ssthresh is set, RFC 5681 §3.2 step 2).
    pub limited_sent: u64,
    /// What ssthresh is computed from (`loss_window`).
    pub ssthresh_rule: SsthreshRule,
}

impl DupAcks {
    fn new(threshold: u32) -> Self {
        DupAcks {
            count: 0,
            threshold: threshold.max(1),
            recover: 0,
            after_timeout: false,
            limited_sent: 0,
            ssthresh_rule: SsthreshRule::Rfc5681,
        }
    }
    /// The window a loss detected by duplicate ACKs halves (the `flight` the congestion
    /// control's `ssthresh_on_loss` reads): FlightSize without what limited transmit sent
    /// (RFC 5681 §3.2 step 2), or BSD's (`loss_window`).
    fn flight_for_ssthresh(&self, f: &Flight, cwnd: u64) -> u64 {
        self.loss_window(f, cwnd, f.size().saturating_sub(self.limited_sent))
    }
    /// `flight_size` under RFC 5681, BSD's loss window under `ssthresh_rule = "bsd"`.
    fn loss_window(&self, f: &Flight, cwnd: u64, flight_size: u64) -> u64 {
        match self.ssthresh_rule {
            SsthreshRule::Rfc5681 => flight_size,
            SsthreshRule::Bsd => bsd_loss_window(f, cwnd),
        }
    }
    /// Counts one duplicate; true when it is the DupThresh-th and the guard allows it.
    fn reaches_threshold(&mut self, f: &Flight) -> bool {
        self.count += 1;
        self.count == self.threshold && self.covers_more_than_recover(f.snd_una)
    }
    /// RFC 6582 §3.2 step 1, the Careful variant: the cumulative ACK covers more than
    /// `recover`; `recover` = 0 is no guard (nothing sent before a recovery or timeout).
    /// With `after_timeout` (4.4BSD, whose timeout sets it to SND.UNA) reaching it is enough.
    fn covers_more_than_recover(&self, ack: u64) -> bool {
        self.recover == 0 || ack > self.recover || (self.after_timeout && ack == self.recover)
    }
}

/// The closed set of loss-recovery variants, each with its own state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyRecovery {
    /// 4.3BSD Tahoe.
    Tahoe,
    /// RFC 5681 §3.2 fast retransmit / fast recovery.
    Reno { in_recovery: bool },
    /// RFC 6582 NewReno; `partial_acks` seen in this recovery (the timer is reset on the
    /// first only).
    NewReno {
        in_recovery: bool,
        partial_acks: u32,
    },
    /// RFC 6675 SACK-based recovery.
    Sack(SackState),
    /// FACK (Mathis & Mahdavi 1996).
    Fack(FackState),
}

/// Loss recovery: the variant's rules and what every variant shares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LossRecovery {
    pub dupacks: DupAcks,
    /// The offset recovery has named for retransmission ahead of new data.
    hole: Option<u64>,
    scoreboard: Scoreboard,
    pub variant: AnyRecovery,
    limited_transmit: bool,
    keep_sack_after_timeout: bool,
    /// A retransmission timeout's go-back-N is under way: SND.UNA has not reached the
    /// `recover` it set (what `pipe_estimate` then counts in the network).
    after_timeout: bool,
}

impl LossRecovery {
    pub fn new(kind: RecoveryKind, dupack_threshold: u32) -> Self {
        Self::with_options(kind, dupack_threshold, RecoveryOptions::default())
    }

    pub fn with_options(kind: RecoveryKind, dupack_threshold: u32, o: RecoveryOptions) -> Self {
        let variant = match kind {
            RecoveryKind::Tahoe => AnyRecovery::Tahoe,
            RecoveryKind::Reno => AnyRecovery::Reno { in_recovery: false },
            RecoveryKind::Newreno => AnyRecovery::NewReno {
                in_recovery: false,
                partial_acks: 0,
            },
            RecoveryKind::Sack => {
                AnyRecovery::Sack(SackState::new(o.prr, o.limited_transmit, o.rack))
            }
            RecoveryKind::Fack => AnyRecovery::Fack(FackState::default()),
        };
        let mut dupacks = DupAcks::new(dupack_threshold);
        dupacks.ssthresh_rule = o.ssthresh_rule;
        LossRecovery {
            dupacks,
            hole: None,
            scoreboard: Scoreboard::default(),
            variant,
            limited_transmit: o.limited_transmit,
            keep_sack_after_timeout: o.keep_sack_after_timeout,
            after_timeout: false,
        }
    }

    /// 4.4BSD's rule after a timeout (see the module notes).
    pub fn with_fast_retransmit_after_timeout(mut self, on: bool) -> Self {
        self.dupacks.after_timeout = on;
        self
    }

    /// The peer did not offer SACK: SACK and FACK recovery run as NewReno.
    pub fn without_sack(&mut self) {
        if self.reads_sack() {
            self.variant = AnyRecovery::NewReno {
                in_recovery: false,
                partial_acks: 0,
            };
        }
    }

    /// True for the variants that read SACK blocks (`on_sack_ack`).
    #[inline]
    pub fn reads_sack(&self) -> bool {
        matches!(self.variant, AnyRecovery::Sack(_) | AnyRecovery::Fack(_))
    }

    /// True while in fast recovery (Reno, NewReno) or loss recovery (SACK, FACK).
    pub fn in_recovery(&self) -> bool {
        match &self.variant {
            AnyRecovery::Tahoe => false,
            AnyRecovery::Reno { in_recovery } | AnyRecovery::NewReno { in_recovery, .. } => {
                *in_recovery
            }
            AnyRecovery::Sack(s) => s.in_recovery,
            AnyRecovery::Fack(f) => f.in_recovery,
        }
    }

    /// What the receiver holds beyond SND.UNA (empty without SACK).
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.scoreboard
    }

    /// The segment to retransmit before any new data, regardless of the window (RFC 5681
    /// §3.2 step 3, RFC 6582 step 5, RFC 6298 (5.4)): its first offset.
    /// Only data below `snd_max` (SND.MAX) can be retransmitted.
    #[inline]
    pub fn next_retransmission(&self, snd_max: u64) -> Option<u64> {
        self.hole.filter(|&o| o < snd_max)
    }

    /// Names the segment at `offset` for retransmission ahead of new data, outside any
    /// recovery (ELN, `sender/notices.rs`): nothing else changes.
    pub fn name_for_retransmission(&mut self, offset: u64) {
        self.hole = Some(offset);
    }

    /// The segment at `offset` named by `next_retransmission` was sent, covering sequence
    /// space up to `seq_end`.
    #[inline]
    pub fn on_retransmitted(&mut self, offset: u64, seq_end: u64) {
        if self.hole == Some(offset) {
            self.hole = None;
            if self.reads_sack() {
                self.on_seg_sent(SegKind::Lost, offset, seq_end);
            }
        }
    }

    /// Bytes beyond cwnd that limited transmit lets out now (RFC 3042): one SMSS per
    /// duplicate ACK so far, for the first DupThresh − 1 of them, outside recovery.
    #[inline]
    pub fn limited_transmit_allowance(&self, mss: u64) -> u64 {
        let count = self.dupacks.count;
        if !self.limited_transmit || count == 0 || count >= self.dupacks.threshold {
            return 0;
        }
        match self.variant {
            AnyRecovery::Tahoe | AnyRecovery::Reno { in_recovery: false } => u64::from(count) * mss,
            AnyRecovery::NewReno {
                in_recovery: false, ..
            } => u64::from(count) * mss,
            _ => 0,
        }
    }

    /// True when RFC 3042 limited transmit is on.
    pub fn uses_limited_transmit(&self) -> bool {
        self.limited_transmit
    }

    /// `bytes` of new data went out thanks to limited transmit.
    pub fn on_limited_transmit(&mut self, bytes: u64) {
        self.dupacks.limited_sent += bytes;
    }

    /// SACK and FACK: true when the sender must take its segments from `next_seg`.
    #[inline]
    pub fn gates_sending(&self, snd_nxt: u64, snd_max: u64) -> bool {
        match &self.variant {
            AnyRecovery::Sack(s) => snd_nxt == snd_max && s.gates_sending(&self.dupacks),
            AnyRecovery::Fack(f) => f.gates_sending(&self.scoreboard, snd_nxt, snd_max),
            _ => false,
        }
    }

    /// SACK and FACK: the next segment to send, if their window allows one.
    pub fn next_seg(&self, c: &SendContext) -> Option<NextSeg> {
        match &self.variant {
            AnyRecovery::Sack(s) => s.next_seg(&self.scoreboard, c),
            AnyRecovery::Fack(f) => f.next_seg(&self.scoreboard, c),
            _ => None,
        }
    }

    /// A segment from `next_seg` (or the fast retransmission) was sent, covering sequence
    /// space [offset, seq_end).
    pub fn on_seg_sent(&mut self, kind: SegKind, offset: u64, seq_end: u64) {
        let recover = self.dupacks.recover;
        let outside_recovery = !self.in_recovery();
        match &mut self.variant {
            AnyRecovery::Sack(s) => s.on_sent(kind, offset, seq_end, recover),
            AnyRecovery::Fack(f) => f.on_sent(kind, offset, seq_end),
            _ => {}
        }
        if kind == SegKind::New && outside_recovery {
            self.dupacks.limited_sent += seq_end - offset;
        }
    }

    /// SACK and FACK: one ACK, `f` as after it; with what it brought (delivered and newly
    /// lost bytes).
    pub fn on_sack_ack(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        cc: &mut AnyCongestionControl,
        f: &Flight,
        ack: &SackInput,
    ) -> (Reaction, SackAck) {
        let SackInput {
            acked,
            blocks,
            rfc5681_dupack,
            srtt,
        } = *ack;
        if self.hole.is_some_and(|o| o < f.snd_una) {
            self.hole = None;
        }
        self.after_timeout &= f.snd_una < self.dupacks.recover;
        let before = self.scoreboard.sacked_bytes();
        self.scoreboard.on_cumulative_ack(f.snd_una);
        let trimmed = before - self.scoreboard.sacked_bytes();
        let mut newly_sacked = 0;
        for &(start, end) in blocks {
            let end = end.min(f.snd_max);
            if end > f.snd_una && start < end {
                newly_sacked += self.scoreboard.on_sack(f.snd_una, start, end);
            }
        }
        let lost_before = self.scoreboard.lost_below().max(f.snd_una);
        self.scoreboard
            .update_lost_boundary(self.dupacks.threshold, f.mss);
        let a = SackAck {
            acked,
            newly_sacked,
            newly_lost: self
                .scoreboard
                .unsacked_in(lost_before, self.scoreboard.lost_below()),
            // RFC 6937 DeliveredData: SACKed bytes the cumulative ACK took over count once.
            delivered: acked - trimmed.min(acked) + newly_sacked,
            rfc5681_dupack,
        };
        let mut c = SackContext {
            now,
            dupacks: &mut self.dupacks,
            hole: &mut self.hole,
            board: &self.scoreboard,
            w,
            cc,
            f,
            srtt,
            after_timeout: self.after_timeout,
        };
        let reaction = match &mut self.variant {
            AnyRecovery::Sack(s) => {
                let r = s.on_ack(&mut c, &a);
                tlp_on_ack(s, &mut c, dsack_block(blocks, f.snd_una));
                r
            }
            AnyRecovery::Fack(k) => k.on_ack(&mut c, &a),
            _ => Reaction::default(),
        };
        (reaction, a)
    }

    /// RACK-TLP in use.
    #[inline]
    pub fn uses_rack(&self) -> bool {
        matches!(&self.variant, AnyRecovery::Sack(s) if s.rack.is_some())
    }

    fn rack_mut(&mut self) -> Option<&mut Rack> {
        match &mut self.variant {
            AnyRecovery::Sack(s) => s.rack.as_deref_mut(),
            _ => None,
        }
    }

    /// RACK-TLP's state, when in use.
    pub fn rack(&self) -> Option<&Rack> {
        match &self.variant {
            AnyRecovery::Sack(s) => s.rack.as_deref(),
            _ => None,
        }
    }

    /// RACK: [start, end) left at `now`.
    pub fn rack_on_send(&mut self, now: SimTime, start: u64, end: u64, retransmission: bool) {
        if let Some(r) = self.rack_mut() {
            r.on_sent(now, start, end, retransmission);
        }
    }

    /// TLP (RFC 8985 §7.2): after new data was sent or SND.UNA advanced, (re)start the probe
    /// timer, unless in recovery (fast or after a timeout) or nothing is outstanding.
    pub fn rack_schedule_probe(
        &mut self,
        now: SimTime,
        f: &Flight,
        srtt: Option<SimDuration>,
        rto_deadline: Option<SimTime>,
    ) {
        let quiet = !self.in_recovery() && !self.after_timeout && f.size() > 0;
        if let Some(r) = self.rack_mut() {
            if quiet {
                r.schedule_probe(now, f.size(), f.mss, srtt, rto_deadline);
            } else {
                r.cancel_probe();
            }
        }
    }

    /// When RACK's reordering or probe timer wants the sender.
    #[inline]
    pub fn rack_deadline(&self) -> Option<SimTime> {
        self.rack().and_then(Rack::deadline)
    }

    /// RACK's timers reached `now` (`f` as now): the reordering timer may judge segments
    /// lost and start recovery (RFC 8985 §6.2 step 5); the probe timer gives a probe
    /// (§7.3) if `new_data` may not go, the segment to send again is named for
    /// retransmission.
    pub fn on_rack_timer(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        cc: &mut AnyCongestionControl,
        f: &Flight,
        srtt: Option<SimDuration>,
        new_data: bool,
    ) -> Option<Probe> {
        let recovering = self.in_recovery() || self.after_timeout;
        let threshold = self.dupacks.threshold;
        let AnyRecovery::Sack(s) = &mut self.variant else {
            return None;
        };
        let r = s.rack.as_deref_mut()?;
        if r.reo_deadline().is_some_and(|t| t <= now) {
            r.detect_loss(now, srtt, recovering, threshold);
            if !recovering && r.has_lost(f.snd_una) && f.snd_una >= self.dupacks.recover {
                let mut c = SackContext {
                    now,
                    dupacks: &mut self.dupacks,
                    hole: &mut self.hole,
                    board: &self.scoreboard,
                    w,
                    cc,
                    f,
                    srtt,
                    after_timeout: false,
                };
                s.enter(&mut c, &SackAck::default());
                return None;
            }
        }
        let r = s.rack.as_deref_mut()?;
        if r.pto_deadline().is_none_or(|t| t > now) {
            return None;
        }
        let probe = r.on_pto(f.snd_max, new_data)?;
        if let Probe::Retransmit { start, .. } = probe {
            self.hole = Some(start);
        }
        Some(probe)
    }

    /// Nothing is outstanding: RACK's timers stop.
    pub fn rack_cancel_timers(&mut self) {
        if let Some(r) = self.rack_mut() {
            r.cancel_timers();
        }
    }

    /// The TLP probe went out; SND.MAX is now `snd_max`.
    pub fn rack_on_probe_sent(&mut self, snd_max: u64) {
        if let Some(r) = self.rack_mut() {
            r.on_probe_sent(snd_max);
        }
    }

    /// RACK on a retransmission timeout (RFC 8985 §6.3), before `on_timeout`.
    pub fn rack_on_timeout(&mut self, now: SimTime, snd_una: u64, srtt: Option<SimDuration>) {
        if let Some(r) = self.rack_mut() {
            r.on_timeout(now, snd_una, srtt);
        }
    }

    /// The bytes in the network as the scoreboard sees them, `f` as now: RFC 6675
    /// `SetPipe` for SACK (whether or not in recovery), FACK's awnd, FlightSize for the
    /// others.
    pub fn pipe_estimate(&self, f: &Flight, snd_nxt: u64) -> u64 {
        if self.after_timeout {
            // Going back N after a timeout: what was sent again since is in the network,
            // the rest presumed lost (as Linux's `tcp_enter_loss` marks it).
            return self
                .scoreboard
                .unsacked_in(f.snd_una, snd_nxt.max(f.snd_una));
        }
        match &self.variant {
            AnyRecovery::Sack(s) => s.pipe_of(&self.scoreboard, f),
            AnyRecovery::Fack(k) => k.awnd(&self.scoreboard, f.snd_una, f.snd_max),
            _ => f.size(),
        }
    }

    /// RFC 6675 pipe, for SACK recovery (0 for the others).
    pub fn pipe(&self) -> u64 {
        match &self.variant {
            AnyRecovery::Sack(s) => s.pipe,
            _ => 0,
        }
    }

    /// RFC 6937's counters during a SACK recovery with PRR.
    pub fn prr(&self) -> Option<Prr> {
        match &self.variant {
            AnyRecovery::Sack(s) => s.prr,
            _ => None,
        }
    }

    /// An RFC 5681 duplicate ACK arrived (`f` as before it).
    pub fn on_dupack(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        cc: &mut AnyCongestionControl,
        f: &Flight,
    ) -> Reaction {
        match &mut self.variant {
            AnyRecovery::Sack(_) | AnyRecovery::Fack(_) => Reaction::default(),
            AnyRecovery::Tahoe => tahoe_dupack(&mut self.dupacks, &mut self.hole, now, w, cc, f),
            AnyRecovery::Reno { in_recovery } => {
                let mut s = RenoState {
                    dupacks: &mut self.dupacks,
                    hole: &mut self.hole,
                    in_recovery,
                };
                s.on_dupack(now, w, cc, f)
            }
            AnyRecovery::NewReno {
                in_recovery,
                partial_acks,
            } => {
                let was = *in_recovery;
                let mut s = RenoState {
                    dupacks: &mut self.dupacks,
                    hole: &mut self.hole,
                    in_recovery,
                };
                let reaction = s.on_dupack(now, w, cc, f);
                if *in_recovery && !was {
                    *partial_acks = 0;
                }
                reaction
            }
        }
    }

    /// An ACK of `acked` new bytes arrived (`f` as after it).
    #[inline]
    pub fn on_new_ack(&mut self, w: &mut CongestionWindow, f: &Flight, acked: u64) -> Reaction {
        if self.hole.is_some_and(|o| o < f.snd_una) {
            self.hole = None;
        }
        self.scoreboard.on_cumulative_ack(f.snd_una);
        self.dupacks.limited_sent = 0;
        match &mut self.variant {
            AnyRecovery::Sack(_) | AnyRecovery::Fack(_) => normal_ack(),
            AnyRecovery::Tahoe => {
                self.dupacks.count = 0;
                normal_ack()
            }
            AnyRecovery::Reno { in_recovery } => reno_new_ack(&mut self.dupacks, in_recovery, w),
            AnyRecovery::NewReno {
                in_recovery,
                partial_acks,
            } => {
                let mut s = RenoState {
                    dupacks: &mut self.dupacks,
                    hole: &mut self.hole,
                    in_recovery,
                };
                s.newreno_new_ack(partial_acks, w, f, acked)
            }
        }
    }

    /// Lets duplicate ACKs at `snd_una` start a fast retransmit although a recovery's
    /// `recover` lies above it (Vegas repairs every loss of a window; its decrease rule
    /// keeps the window for those sent before the last cut): `recover` goes below SND.UNA.
    pub fn lift_recover_guard(&mut self, snd_una: u64) {
        self.dupacks.recover = self.dupacks.recover.min(snd_una.saturating_sub(1));
    }

    /// Start the fast retransmit now, as if the DupThresh-th duplicate ACK had come (Vegas's
    /// fine-grained timer, Brakmo & Peterson §3.1), unless a recovery runs; Tahoe, Reno
    /// and NewReno only. Reno's and NewReno's window is inflated by the duplicates that
    /// came (this one included), not by DupThresh: RFC 5681 §3.2 step 3's 3·SMSS stands
    /// for the three segments that have left the network (as ns-2's Vegas, cwnd_ =
    /// v_newcwnd_ + dupacks_).
    pub fn fast_retransmit_now(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        cc: &mut AnyCongestionControl,
        f: &Flight,
    ) -> Reaction {
        let threshold = u64::from(self.dupacks.threshold);
        let mut received = threshold;
        if !self.in_recovery() {
            received = (u64::from(self.dupacks.count) + 1).min(threshold);
            self.dupacks.count = self.dupacks.count.max(self.dupacks.threshold - 1);
        }
        let r = self.on_dupack(now, w, cc, f);
        let inflates = matches!(
            self.variant,
            AnyRecovery::Reno { .. } | AnyRecovery::NewReno { .. }
        );
        if r.fast_retransmit && inflates {
            w.cwnd -= (threshold - received) * f.mss;
        }
        r
    }

    /// An ACK at SND.UNA that is not a duplicate (window change, data): start counting anew.
    pub fn break_dupack_run(&mut self) {
        self.dupacks.count = 0;
    }

    /// What a retransmission timeout hands the congestion control: the window it halves for
    /// ssthresh, and whether it sets ssthresh although the segment timed out before (`first`
    /// false). RFC 5681 (4) and §3.1: FlightSize, or the pipe if smaller (module notes), on
    /// the first timeout only; BSD: its loss window, on every timeout.
    pub fn timeout_loss_window(&self, f: &Flight, cwnd: u64, first: bool) -> (u64, bool) {
        match self.dupacks.ssthresh_rule {
            SsthreshRule::Rfc5681 => {
                let in_network = self.pipe_estimate(f, f.snd_max);
                (f.size().min(in_network), first)
            }
            SsthreshRule::Bsd => (bsd_loss_window(f, cwnd), true),
        }
    }

    /// The retransmission timer expired: leave fast recovery, set `recover` to SND.MAX and
    /// name SND.UNA for retransmission; SACK and FACK forget the scoreboard (RFC 2018 §8).
    pub fn on_timeout(&mut self, f: &Flight) {
        self.dupacks.count = 0;
        self.dupacks.limited_sent = 0;
        self.dupacks.recover = if self.dupacks.after_timeout {
            f.snd_una
        } else {
            f.snd_max
        };
        self.hole = Some(f.snd_una);
        match &mut self.variant {
            AnyRecovery::Tahoe => {}
            AnyRecovery::Reno { in_recovery } | AnyRecovery::NewReno { in_recovery, .. } => {
                *in_recovery = false
            }
            AnyRecovery::Sack(s) => s.on_timeout(),
            AnyRecovery::Fack(k) => k.on_timeout(),
        }
        if self.reads_sack() && !self.keep_sack_after_timeout {
            self.scoreboard.clear();
        }
        self.after_timeout = true;
    }
}

/// The D-SACK block of an ACK (RFC 2883 §4: the first block, below the cumulative ACK or
/// inside the second block), if it carries one.
fn dsack_block(blocks: &[(u64, u64)], snd_una: u64) -> Option<(u64, u64)> {
    let first = *blocks.first()?;
    let inside_second = blocks
        .get(1)
        .is_some_and(|&(s, e)| s <= first.0 && first.1 <= e);
    (first.1 <= snd_una || inside_second).then_some(first)
}

/// BSD's loss window (4.4BSD `tcp_input.c` and `tcp_timer.c`, FreeBSD `cc_cong_signal`,
/// ns-2 `TcpAgent::slowdown`): min(cwnd, the peer's window) cut to an even number of whole
/// segments, so that the half Reno's rule takes of it, floored at two segments, is
/// max(⌊min(cwnd, snd_wnd)/2/SMSS⌋, 2)·SMSS.
fn bsd_loss_window(f: &Flight, cwnd: u64) -> u64 {
    let two_segments = 2 * f.mss.max(1);
    cwnd.min(f.snd_wnd) / two_segments * two_segments
}

/// TLP on an ACK (RFC 8985 §7.4): a retransmitted probe that SND.UNA passed without a D-SACK
/// of it repaired a loss, and the congestion control reduces as for a fast recovery
/// (ssthresh, cwnd = ssthresh).
fn tlp_on_ack(s: &mut SackState, c: &mut SackContext, dsack: Option<(u64, u64)>) {
    let Some(r) = s.rack.as_deref_mut() else {
        return;
    };
    if r.on_tlp_ack(c.f.snd_una, dsack) == TlpOutcome::LossRepaired && !s.in_recovery {
        c.w.ssthresh =
            c.cc.ssthresh_on_loss(c.now, c.w, c.f.size().max(c.f.mss), c.f.mss);
        c.w.cwnd = c.w.ssthresh;
    }
}

/// A new ACK outside recovery: grow the window, restart the timer (RFC 6298 (5.3)).
fn normal_ack() -> Reaction {
    Reaction {
        restart_rto: true,
        grow_window: true,
        ..Reaction::default()
    }
}

/// Tahoe on a duplicate ACK: at the DupThresh-th, slow start from SND.UNA again.
fn tahoe_dupack(
    dupacks: &mut DupAcks,
    hole: &mut Option<u64>,
    now: SimTime,
    w: &mut CongestionWindow,
    cc: &mut AnyCongestionControl,
    f: &Flight,
) -> Reaction {
    if !dupacks.reaches_threshold(f) {
        return Reaction::default();
    }
    let flight = dupacks.flight_for_ssthresh(f, w.cwnd);
    w.ssthresh = cc.ssthresh_on_loss(now, w, flight, f.mss);
    w.cwnd = f.mss;
    dupacks.recover = f.snd_max;
    *hole = Some(f.snd_una);
    Reaction {
        go_back_n: true,
        restart_rto: true,
        fast_retransmit: true,
        ..Reaction::default()
    }
}

/// Reno's and NewReno's shared state, borrowed for one ACK.
struct RenoState<'a> {
    dupacks: &'a mut DupAcks,
    hole: &'a mut Option<u64>,
    in_recovery: &'a mut bool,
}

impl RenoState<'_> {
    /// RFC 5681 §3.2 steps 2–4, shared by Reno and NewReno.
    fn on_dupack(
        &mut self,
        now: SimTime,
        w: &mut CongestionWindow,
        cc: &mut AnyCongestionControl,
        f: &Flight,
    ) -> Reaction {
        if *self.in_recovery {
            // Step 4: each further duplicate means a segment has left the network.
            w.cwnd += f.mss;
            return Reaction::default();
        }
        if !self.dupacks.reaches_threshold(f) {
            return Reaction::default();
        }
        // Steps 2 and 3.
        let flight = self.dupacks.flight_for_ssthresh(f, w.cwnd);
        w.ssthresh = cc.ssthresh_on_loss(now, w, flight, f.mss);
        w.cwnd = w.ssthresh + u64::from(self.dupacks.threshold) * f.mss;
        self.dupacks.recover = f.snd_max;
        *self.in_recovery = true;
        *self.hole = Some(f.snd_una);
        Reaction {
            restart_rto: true,
            fast_retransmit: true,
            ..Reaction::default()
        }
    }

    /// RFC 6582 §3.2 steps 3 and 5.
    fn newreno_new_ack(
        &mut self,
        partial_acks: &mut u32,
        w: &mut CongestionWindow,
        f: &Flight,
        acked: u64,
    ) -> Reaction {
        if !*self.in_recovery {
            self.dupacks.count = 0;
            return normal_ack();
        }
        if f.snd_una >= self.dupacks.recover {
            // Step 3, full acknowledgment, option (1).
            *self.in_recovery = false;
            self.dupacks.count = 0;
            w.cwnd = w.ssthresh.min(f.size().max(f.mss) + f.mss);
            return Reaction {
                restart_rto: true,
                ..Reaction::default()
            };
        }
        // Step 5, partial acknowledgment: stay in recovery and retransmit the next hole.
        w.cwnd = w.cwnd.saturating_sub(acked);
        if acked >= f.mss {
            w.cwnd += f.mss;
        }
        *partial_acks += 1;
        *self.hole = Some(f.snd_una);
        Reaction {
            restart_rto: *partial_acks == 1,
            ..Reaction::default()
        }
    }
}

/// RFC 5681 §3.2 step 6 for Reno: the next ACK of new data, partial or not, deflates cwnd
/// to ssthresh and ends recovery.
fn reno_new_ack(
    dupacks: &mut DupAcks,
    in_recovery: &mut bool,
    w: &mut CongestionWindow,
) -> Reaction {
    dupacks.count = 0;
    if !*in_recovery {
        return normal_ack();
    }
    *in_recovery = false;
    w.cwnd = w.ssthresh;
    Reaction {
        restart_rto: true,
        ..Reaction::default()
    }
}

#[cfg(test)]
mod tests;
