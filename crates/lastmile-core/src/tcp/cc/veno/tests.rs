//! Veno against Fu & Liew §II: the backlog N, the loss classification at β = 3 and the
//! halved growth in the congestive state.

use super::super::test_support::*;
use super::super::*;

fn veno() -> AnyCongestionControl {
    CcSpec::Veno(Default::default()).build(CcOptions::default())
}

/// Congestion avoidance at 30 segments, base RTT 100 ms, then a round with `rtt_ms`.
fn after_round(rtt_ms: u64) -> (AnyCongestionControl, CongestionWindow) {
    let mut cc = veno();
    let mut w = window(30, 30 * SMSS);
    let mut r = RoundTrips::default();
    r.close(&mut cc, &mut w, 100);
    w.cwnd = 30 * SMSS;
    r.close(&mut cc, &mut w, rtt_ms);
    w.cwnd = 30 * SMSS;
    (cc, w)
}

#[test]
fn paper_small_backlog_loss_is_random_and_cuts_to_four_fifths() {
    // N = 30 · (110 − 100)/110 = 2.7 < β = 3.
    let (mut cc, w) = after_round(110);
    let n = cc.metrics(&w).queue_segments.unwrap();
    assert!((n - 30.0 * 10.0 / 110.0).abs() < 1e-9);
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(0), &w, 30 * SMSS, SMSS),
        24 * SMSS
    );
}

#[test]
fn paper_large_backlog_loss_is_congestive_and_halves() {
    // N = 30 · 20/120 = 5 ≥ β.
    let (mut cc, w) = after_round(120);
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(0), &w, 30 * SMSS, SMSS),
        15 * SMSS
    );
}

#[test]
fn paper_congestive_state_grows_one_segment_every_other_round_trip() {
    // The same 16 round trips of 30 ACKs (after one at the base RTT) for Reno, for Veno with
    // a small backlog and for Veno with a large one.
    let grow = |kind: CcSpec, rtt_ms: u64| {
        let mut cc = kind.build(CcOptions::default());
        let mut w = window(30, 30 * SMSS);
        let mut s = AckStream::default();
        s.run(&mut cc, &mut w, 31, 3000, 100, 30 * SMSS);
        let start = w.cwnd;
        s.run(&mut cc, &mut w, 16 * 30, 3000, rtt_ms, 30 * SMSS);
        (w.cwnd - start) as f64 / SMSS as f64
    };
    let veno = CcSpec::Veno(VenoConfig::default());
    let reno = grow(CcSpec::default(), 101);
    let random = grow(veno, 101);
    let congestive = grow(veno, 150);
    assert_eq!(random, reno, "N < β: Reno's growth");
    let ratio = congestive / reno;
    assert!(
        (0.45..=0.55).contains(&ratio),
        "{congestive} vs {reno} segments"
    );
}

#[test]
fn timeout_is_renos() {
    let (mut cc, mut w) = after_round(110);
    cc.on_rto(at_ms(0), &mut w, 30 * SMSS, SMSS, true);
    assert_eq!((w.cwnd, w.ssthresh), (SMSS, 15 * SMSS));
}
