//! Loss recovery: when a run of duplicate ACKs means a loss, what to retransmit, and when
//! recovery ends. The window rule (`window.rs`) supplies ssthresh and the normal growth;
//! the variants here only set cwnd while they are recovering.
//!
//! * **Tahoe** (4.3BSD Tahoe, ns-2 `Agent/TCP`, protocol-notes §2.3): on the DupThresh-th
//!   duplicate ACK, ssthresh from the window rule, cwnd = 1 SMSS, go back N from SND.UNA
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
//! Common to all three: a fast retransmit is only allowed once the cumulative ACK has
//! passed `recover` (RFC 6582 §3.2 step 2, ns-2's `bug_fix_` for Tahoe and Reno too), and
//! a retransmission timeout sets `recover` = the highest sequence sent (RFC 6582 §4,
//! ns-2), so duplicate ACKs for data sent before the timeout cannot start a fast
//! retransmit. `recover` is stored as an exclusive stream offset (SND.MAX at entry), so
//! "the ACK covers more than recover" reads `ack >= recover`.
//!
//! Left out: limited transmit (RFC 3042), the RFC 6582 §4 ACK heuristics, SACK.

use super::window::{AnyWindowRule, CongestionWindow};
use crate::scenario::TcpVariant;

/// The sender's sequence state when recovery is consulted, as stream offsets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Flight {
    pub snd_una: u64,
    /// Highest sequence sent, plus one.
    pub snd_max: u64,
    pub mss: u64,
}

impl Flight {
    /// RFC 5681 FlightSize: sent but not cumulatively acknowledged.
    pub fn size(&self) -> u64 {
        self.snd_max - self.snd_una
    }
}

/// What the sender must do after recovery has looked at an ACK.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Reaction {
    /// Send the segment at SND.UNA now, regardless of the window.
    pub retransmit_una: bool,
    /// SND.NXT = SND.UNA: resend everything outstanding as the window allows.
    pub go_back_n: bool,
    /// (Re)start the retransmission timer from now.
    pub restart_rto: bool,
    /// Let the window rule apply its normal increase for this ACK.
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
}

impl DupAcks {
    fn new(threshold: u32) -> Self {
        DupAcks {
            count: 0,
            threshold: threshold.max(1),
            recover: 0,
        }
    }
    /// Counts one duplicate; true when it is the DupThresh-th and the guard allows it.
    fn reaches_threshold(&mut self, f: &Flight) -> bool {
        self.count += 1;
        self.count == self.threshold && f.snd_una >= self.recover
    }
}

/// 4.3BSD Tahoe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tahoe {
    pub dupacks: DupAcks,
}

/// RFC 5681 §3.2 fast retransmit / fast recovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reno {
    pub dupacks: DupAcks,
    pub in_recovery: bool,
}

/// RFC 6582 NewReno.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewReno {
    pub dupacks: DupAcks,
    pub in_recovery: bool,
    /// Partial ACKs seen in this recovery (the timer is reset on the first only).
    pub partial_acks: u32,
}

/// The closed set of loss-recovery variants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnyRecovery {
    Tahoe(Tahoe),
    Reno(Reno),
    NewReno(NewReno),
}

impl AnyRecovery {
    pub fn new(variant: TcpVariant, dupack_threshold: u32) -> Self {
        let dupacks = DupAcks::new(dupack_threshold);
        match variant {
            TcpVariant::Tahoe => AnyRecovery::Tahoe(Tahoe { dupacks }),
            TcpVariant::Reno => AnyRecovery::Reno(Reno {
                dupacks,
                in_recovery: false,
            }),
            TcpVariant::Newreno => AnyRecovery::NewReno(NewReno {
                dupacks,
                in_recovery: false,
                partial_acks: 0,
            }),
        }
    }

    /// True while in Reno / NewReno fast recovery.
    pub fn in_recovery(&self) -> bool {
        match self {
            AnyRecovery::Tahoe(_) => false,
            AnyRecovery::Reno(r) => r.in_recovery,
            AnyRecovery::NewReno(r) => r.in_recovery,
        }
    }

    pub fn dupacks(&self) -> &DupAcks {
        match self {
            AnyRecovery::Tahoe(r) => &r.dupacks,
            AnyRecovery::Reno(r) => &r.dupacks,
            AnyRecovery::NewReno(r) => &r.dupacks,
        }
    }

    fn dupacks_mut(&mut self) -> &mut DupAcks {
        match self {
            AnyRecovery::Tahoe(r) => &mut r.dupacks,
            AnyRecovery::Reno(r) => &mut r.dupacks,
            AnyRecovery::NewReno(r) => &mut r.dupacks,
        }
    }

    /// An RFC 5681 duplicate ACK arrived (`f` as before it).
    pub fn on_dupack(
        &mut self,
        w: &mut CongestionWindow,
        rule: &mut AnyWindowRule,
        f: &Flight,
    ) -> Reaction {
        match self {
            AnyRecovery::Tahoe(r) => r.on_dupack(w, rule, f),
            AnyRecovery::Reno(r) => reno_dupack(&mut r.dupacks, &mut r.in_recovery, w, rule, f),
            AnyRecovery::NewReno(r) => {
                let was = r.in_recovery;
                let reaction = reno_dupack(&mut r.dupacks, &mut r.in_recovery, w, rule, f);
                if r.in_recovery && !was {
                    r.partial_acks = 0;
                }
                reaction
            }
        }
    }

    /// An ACK of `acked` new bytes arrived (`f` as after it).
    pub fn on_new_ack(&mut self, w: &mut CongestionWindow, f: &Flight, acked: u64) -> Reaction {
        match self {
            AnyRecovery::Tahoe(r) => {
                r.dupacks.count = 0;
                normal_ack()
            }
            AnyRecovery::Reno(r) => r.on_new_ack(w),
            AnyRecovery::NewReno(r) => r.on_new_ack(w, f, acked),
        }
    }

    /// An ACK at SND.UNA that is not a duplicate (window change, data): start counting anew.
    pub fn break_dupack_run(&mut self) {
        self.dupacks_mut().count = 0;
    }

    /// The retransmission timer expired with `snd_max` the highest sequence sent, plus one.
    pub fn on_timeout(&mut self, snd_max: u64) {
        let d = self.dupacks_mut();
        d.count = 0;
        d.recover = snd_max;
        match self {
            AnyRecovery::Tahoe(_) => {}
            AnyRecovery::Reno(r) => r.in_recovery = false,
            AnyRecovery::NewReno(r) => r.in_recovery = false,
        }
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

impl Tahoe {
    fn on_dupack(
        &mut self,
        w: &mut CongestionWindow,
        rule: &mut AnyWindowRule,
        f: &Flight,
    ) -> Reaction {
        if !self.dupacks.reaches_threshold(f) {
            return Reaction::default();
        }
        w.ssthresh = rule.ssthresh_on_loss(w, f.size(), f.mss);
        w.cwnd = f.mss;
        self.dupacks.recover = f.snd_max;
        Reaction {
            retransmit_una: true,
            go_back_n: true,
            restart_rto: true,
            fast_retransmit: true,
            ..Reaction::default()
        }
    }
}

/// RFC 5681 §3.2 steps 2–4, shared by Reno and NewReno.
fn reno_dupack(
    dupacks: &mut DupAcks,
    in_recovery: &mut bool,
    w: &mut CongestionWindow,
    rule: &mut AnyWindowRule,
    f: &Flight,
) -> Reaction {
    if *in_recovery {
        // Step 4: each further duplicate means a segment has left the network.
        w.cwnd += f.mss;
        return Reaction::default();
    }
    if !dupacks.reaches_threshold(f) {
        return Reaction::default();
    }
    // Steps 2 and 3.
    w.ssthresh = rule.ssthresh_on_loss(w, f.size(), f.mss);
    w.cwnd = w.ssthresh + u64::from(dupacks.threshold) * f.mss;
    dupacks.recover = f.snd_max;
    *in_recovery = true;
    Reaction {
        retransmit_una: true,
        restart_rto: true,
        fast_retransmit: true,
        ..Reaction::default()
    }
}

impl Reno {
    fn on_new_ack(&mut self, w: &mut CongestionWindow) -> Reaction {
        self.dupacks.count = 0;
        if !self.in_recovery {
            return normal_ack();
        }
        // Step 6: deflate and leave, whether or not the ACK covers all of the window.
        self.in_recovery = false;
        w.cwnd = w.ssthresh;
        Reaction {
            restart_rto: true,
            ..Reaction::default()
        }
    }
}

impl NewReno {
    fn on_new_ack(&mut self, w: &mut CongestionWindow, f: &Flight, acked: u64) -> Reaction {
        if !self.in_recovery {
            self.dupacks.count = 0;
            return normal_ack();
        }
        if f.snd_una >= self.dupacks.recover {
            // RFC 6582 §3.2 step 3, full acknowledgment, option (1).
            self.in_recovery = false;
            self.dupacks.count = 0;
            w.cwnd = w.ssthresh.min(f.size().max(f.mss) + f.mss);
            return Reaction {
                restart_rto: true,
                ..Reaction::default()
            };
        }
        // Step 5, partial acknowledgment: stay in recovery.
        w.cwnd = w.cwnd.saturating_sub(acked);
        if acked >= f.mss {
            w.cwnd += f.mss;
        }
        self.partial_acks += 1;
        Reaction {
            retransmit_una: true,
            restart_rto: self.partial_acks == 1,
            ..Reaction::default()
        }
    }
}
