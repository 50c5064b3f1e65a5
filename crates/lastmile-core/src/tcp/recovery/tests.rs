//! Loss recovery driven directly: which hole it names, and when it forgets it.

use super::*;
use crate::tcp::cc::{CcOptions, CcSpec};

const SMSS: u64 = 1000;

fn flight(snd_una: u64, snd_max: u64) -> Flight {
    Flight {
        snd_una,
        snd_max,
        mss: SMSS,
        snd_wnd: 1_000_000,
    }
}

fn reno_cc() -> AnyCongestionControl {
    CcSpec::Reno(Default::default()).build(CcOptions::default())
}

/// Ten segments outstanding, three duplicate ACKs for offset 0.
fn in_fast_recovery(kind: RecoveryKind) -> (LossRecovery, CongestionWindow) {
    let mut r = LossRecovery::new(kind, 3);
    let mut w = CongestionWindow {
        cwnd: 10 * SMSS,
        ssthresh: u64::MAX,
    };
    let mut cc = reno_cc();
    let f = flight(0, 10 * SMSS);
    let reactions: Vec<Reaction> = (0..3)
        .map(|_| r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f))
        .collect();
    assert!(reactions[2].fast_retransmit);
    (r, w)
}

#[test]
fn rfc5681_third_dupack_names_snd_una_and_sending_it_clears_the_name() {
    let (mut r, _) = in_fast_recovery(RecoveryKind::Reno);
    assert_eq!(r.next_retransmission(10 * SMSS), Some(0));
    r.on_retransmitted(0, SMSS);
    assert_eq!(r.next_retransmission(10 * SMSS), None);
    assert!(
        r.scoreboard().is_empty(),
        "no SACK: nothing is known beyond SND.UNA"
    );
}

#[test]
fn rfc6582_partial_ack_names_the_next_hole_and_a_full_ack_ends_recovery() {
    let (mut r, mut w) = in_fast_recovery(RecoveryKind::Newreno);
    r.on_retransmitted(0, SMSS);
    // A partial ACK up to segment 4: the hole at 4000 is named, recovery goes on.
    let reaction = r.on_new_ack(&mut w, &flight(4 * SMSS, 10 * SMSS), 4 * SMSS);
    assert!(
        reaction.restart_rto,
        "the first partial ACK resets the timer"
    );
    assert!(!reaction.grow_window);
    assert_eq!(r.next_retransmission(10 * SMSS), Some(4 * SMSS));
    assert!(r.in_recovery());
    // The ACK that covers `recover` (10,000) ends recovery and forgets the hole.
    let reaction = r.on_new_ack(&mut w, &flight(10 * SMSS, 10 * SMSS), 6 * SMSS);
    assert!(!r.in_recovery());
    assert!(
        !reaction.grow_window,
        "the full ACK does not grow the window"
    );
    assert_eq!(r.next_retransmission(10 * SMSS), None);
}

#[test]
fn rfc6298_timeout_names_snd_una_and_leaves_fast_recovery() {
    let (mut r, _) = in_fast_recovery(RecoveryKind::Reno);
    r.on_retransmitted(0, SMSS);
    r.on_timeout(&flight(2 * SMSS, 12 * SMSS));
    assert!(!r.in_recovery());
    assert_eq!(r.next_retransmission(12 * SMSS), Some(2 * SMSS));
    assert_eq!(r.dupacks.recover, 12 * SMSS);
}

#[test]
fn tahoe_third_dupack_goes_back_n_from_snd_una() {
    let mut r = LossRecovery::new(RecoveryKind::Tahoe, 3);
    let mut w = CongestionWindow {
        cwnd: 8 * SMSS,
        ssthresh: u64::MAX,
    };
    let mut cc = reno_cc();
    let f = flight(SMSS, 9 * SMSS);
    r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f);
    r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f);
    let reaction = r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f);
    assert!(reaction.go_back_n && reaction.fast_retransmit);
    assert_eq!((w.cwnd, w.ssthresh), (SMSS, 4 * SMSS));
    assert_eq!(r.next_retransmission(9 * SMSS), Some(SMSS));
}

/// Ten segments sent, a timeout, then three duplicate ACKs for SND.UNA (Cáceres & Iftode's
/// mobile announcing the end of a handoff): the fast retransmits they start.
fn dupacks_after_timeout(after_timeout: bool) -> Vec<bool> {
    let mut r =
        LossRecovery::new(RecoveryKind::Reno, 3).with_fast_retransmit_after_timeout(after_timeout);
    let mut w = CongestionWindow {
        cwnd: 10 * SMSS,
        ssthresh: u64::MAX,
    };
    let mut cc = reno_cc();
    let f = flight(0, 10 * SMSS);
    r.on_timeout(&f);
    r.on_retransmitted(0, SMSS);
    (0..3)
        .map(|_| {
            r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f)
                .fast_retransmit
        })
        .collect()
}

#[test]
fn rfc6582_duplicates_of_data_sent_before_a_timeout_start_no_fast_retransmit() {
    assert_eq!(dupacks_after_timeout(false), [false, false, false]);
}

#[test]
fn bsd_duplicates_after_a_timeout_start_a_fast_retransmit_at_the_third() {
    assert_eq!(dupacks_after_timeout(true), [false, false, true]);
}

/// Ten segments sent, a timeout, the retransmissions acknowledged up to SND.MAX at the
/// timeout (10 SMSS) while two new segments went out, then three duplicate ACKs: for an
/// ACK of exactly `ack_at_dupacks`, the fast retransmits they start.
fn dupacks_once_the_timed_out_window_is_acked(
    kind: RecoveryKind,
    ack_at_dupacks: u64,
) -> Vec<bool> {
    let mut r = LossRecovery::new(kind, 3);
    let mut w = CongestionWindow {
        cwnd: 10 * SMSS,
        ssthresh: u64::MAX,
    };
    let mut cc = reno_cc();
    r.on_timeout(&flight(0, 10 * SMSS));
    r.on_retransmitted(0, SMSS);
    r.on_new_ack(&mut w, &flight(ack_at_dupacks, 12 * SMSS), ack_at_dupacks);
    let f = flight(ack_at_dupacks, 12 * SMSS);
    (0..3)
        .map(|_| {
            r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f)
                .fast_retransmit
        })
        .collect()
}

#[test]
fn rfc6582_careful_an_ack_equal_to_recover_starts_no_fast_retransmit() {
    // The go-back-N copies of segments the receiver already held produce exactly these
    // duplicates: they must not halve ssthresh again (RFC 6582 §3.2 step 1, "covers more
    // than recover"; ns-2 `highest_ack_ > recover_`).
    for kind in [
        RecoveryKind::Tahoe,
        RecoveryKind::Reno,
        RecoveryKind::Newreno,
    ] {
        assert_eq!(
            dupacks_once_the_timed_out_window_is_acked(kind, 10 * SMSS),
            [false, false, false],
            "{kind:?}"
        );
    }
}

#[test]
fn rfc6582_careful_an_ack_beyond_recover_allows_the_fast_retransmit() {
    for kind in [
        RecoveryKind::Tahoe,
        RecoveryKind::Reno,
        RecoveryKind::Newreno,
    ] {
        assert_eq!(
            dupacks_once_the_timed_out_window_is_acked(kind, 11 * SMSS),
            [false, false, true],
            "{kind:?}"
        );
    }
}

#[test]
fn rfc6582_careful_a_loss_right_after_a_recovery_waits_for_the_timer() {
    // Fast recovery of segment 0 with 10 outstanding; the full ACK (10 SMSS) ends it; the
    // segment at 10 SMSS is lost too and three duplicates for it follow: they do not cover
    // more than recover, so no second fast retransmit (ns-2 NewReno alike).
    let (mut r, mut w) = in_fast_recovery(RecoveryKind::Newreno);
    r.on_retransmitted(0, SMSS);
    r.on_new_ack(&mut w, &flight(10 * SMSS, 14 * SMSS), 10 * SMSS);
    assert!(!r.in_recovery());
    let mut cc = reno_cc();
    let f = flight(10 * SMSS, 14 * SMSS);
    let fired: Vec<bool> = (0..3)
        .map(|_| {
            r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f)
                .fast_retransmit
        })
        .collect();
    assert_eq!(fired, [false, false, false]);
}

#[test]
fn the_first_segment_lost_is_fast_retransmitted() {
    // No recovery or timeout yet: no guard (ns-2's `bugfix_ss_`).
    let mut r = LossRecovery::new(RecoveryKind::Newreno, 3);
    let mut w = CongestionWindow {
        cwnd: 4 * SMSS,
        ssthresh: u64::MAX,
    };
    let mut cc = reno_cc();
    let f = flight(0, 4 * SMSS);
    let fired: Vec<bool> = (0..3)
        .map(|_| {
            r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f)
                .fast_retransmit
        })
        .collect();
    assert_eq!(fired, [false, false, true]);
}

/// A fast retransmit started early (Vegas's fine-grained timer on the first duplicate ACK,
/// Brakmo & Peterson §3.1) inflates cwnd by the duplicates that came, not by DupThresh:
/// RFC 5681 §3.2 step 3 adds 3·SMSS because three segments have left the network, and
/// here one has (ns-2.35's Vegas: cwnd_ = v_newcwnd_ + dupacks_, tcp-vegas.cc:390).
#[test]
fn rfc5681_an_early_fast_retransmit_inflates_by_the_duplicates_received() {
    for kind in [RecoveryKind::Reno, RecoveryKind::Newreno] {
        let mut r = LossRecovery::new(kind, 3);
        let mut w = CongestionWindow {
            cwnd: 10 * SMSS,
            ssthresh: u64::MAX,
        };
        let mut cc = reno_cc();
        let f = flight(0, 10 * SMSS);
        let reaction = r.fast_retransmit_now(SimTime::ZERO, &mut w, &mut cc, &f);
        assert!(reaction.fast_retransmit);
        assert_eq!(w.ssthresh, 5 * SMSS);
        assert_eq!(w.cwnd, 6 * SMSS, "{kind:?}: ssthresh + the one duplicate");
        // Each further duplicate is one more segment out of the network.
        r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f);
        assert_eq!(w.cwnd, 7 * SMSS);
        // On the second duplicate: ssthresh + 2.
        let mut r = LossRecovery::new(kind, 3);
        let mut w = CongestionWindow {
            cwnd: 10 * SMSS,
            ssthresh: u64::MAX,
        };
        assert!(
            !r.on_dupack(SimTime::ZERO, &mut w, &mut cc, &f)
                .fast_retransmit
        );
        r.fast_retransmit_now(SimTime::ZERO, &mut w, &mut cc, &f);
        assert_eq!(w.cwnd, 7 * SMSS, "{kind:?}");
    }
}
