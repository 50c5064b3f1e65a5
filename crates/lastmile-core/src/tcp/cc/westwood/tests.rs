//! Westwood+ against Mascolo et al. §3 and Grieco & Mascolo's per-RTT sampling.

use super::super::test_support::*;
use super::super::*;

fn westwood() -> AnyCongestionControl {
    CcSpec::WestwoodPlus(Default::default()).build(CcOptions::default())
}

fn bwe(cc: &AnyCongestionControl, w: &CongestionWindow) -> u64 {
    cc.metrics(w).bandwidth_bytes_per_s.expect("an estimate")
}

/// 1000 segments per second acknowledged (one ACK per millisecond), RTT 100 ms, 100
/// segments in flight: a round trip is 100 ACKs. The first ACK starts the first round;
/// `rounds` rounds are closed.
fn steady(cc: &mut AnyCongestionControl, w: &mut CongestionWindow, s: &mut AckStream, rounds: u64) {
    s.run(cc, w, rounds * 100 + 1, 1000, 100, 100 * SMSS);
}

#[test]
fn paper_ssthresh_after_duplicate_acks_is_bwe_times_rtt_min() {
    let mut cc = westwood();
    let mut w = window(120, 120 * SMSS);
    let mut s = AckStream::default();
    steady(&mut cc, &mut w, &mut s, 5);
    // b_k = 100 segments per 100 ms round = 1,000,000 B/s.
    assert_eq!(bwe(&cc, &w), 1_000_000);
    assert_eq!(cc.metrics(&w).min_rtt, Some(ms(100)));
    // BWE × RTTmin = 1,000,000 B/s × 0.1 s = 100 segments (the notes' test 1).
    let ssthresh = cc.ssthresh_on_loss(at_ms(1000), &w, 120 * SMSS, SMSS);
    assert_eq!(ssthresh, 100 * SMSS);
}

#[test]
fn paper_a_loss_never_raises_the_window() {
    let mut cc = westwood();
    let mut w = window(60, 60 * SMSS);
    let mut s = AckStream::default();
    steady(&mut cc, &mut w, &mut s, 3);
    // BWE × RTTmin = 100 segments > cwnd: "if cwnd > ssthresh then cwnd = ssthresh" leaves
    // cwnd, so ssthresh is capped at it.
    let cwnd = w.cwnd;
    assert_eq!(cc.ssthresh_on_loss(at_ms(1000), &w, cwnd, SMSS), cwnd);
}

/// MobiCom 2001 §3.1: with BWE · RTTmin above the window, ssthresh is the estimate while
/// cwnd stays: after recovery the window slow-starts up to it.
#[test]
fn paper_a_window_below_the_estimate_slow_starts_to_it_after_recovery() {
    let mut cc = westwood();
    let mut w = window(60, 60 * SMSS);
    let mut s = AckStream::default();
    steady(&mut cc, &mut w, &mut s, 3);
    w.ssthresh = cc.ssthresh_on_loss(at_ms(1000), &w, w.cwnd, SMSS);
    w.cwnd = w.ssthresh;
    let mut ack = new_ack(at_ms(1100), SMSS, None, 1_000_000, 1_100_000);
    cc.on_ack(&mut w, &ack);
    assert_eq!(w.ssthresh, 100 * SMSS, "BWE × RTTmin");
    assert!(w.in_slow_start());
    ack.now = at_ms(1101);
    let before = w.cwnd;
    cc.on_ack(&mut w, &ack);
    assert_eq!(w.cwnd, before + SMSS, "slow start");
}

#[test]
fn paper_timeout_sets_one_segment_and_ssthresh_bwe_times_rtt_min() {
    let mut cc = westwood();
    let mut w = window(120, 120 * SMSS);
    let mut s = AckStream::default();
    steady(&mut cc, &mut w, &mut s, 3);
    cc.on_rto(at_ms(1000), &mut w, 120 * SMSS, SMSS, true);
    assert_eq!((w.cwnd, w.ssthresh), (SMSS, 100 * SMSS));
}

#[test]
fn plus_filters_one_sample_per_round_with_the_gain() {
    let mut cc = westwood();
    let mut w = window(120, 120 * SMSS);
    let mut s = AckStream::default();
    steady(&mut cc, &mut w, &mut s, 3);
    // The bottleneck halves: 500 segments per second, rounds of 200 ms; each round closed
    // moves BWE by (1 − g) of the way.
    let mut expected = 1_000_000.0;
    for _ in 0..4 {
        s.run(&mut cc, &mut w, 100, 2000, 200, 100 * SMSS);
        expected = 0.9 * expected + 0.1 * 500_000.0;
        let got = bwe(&cc, &w) as f64;
        assert!((got - expected).abs() < 2.0, "BWE {got} vs {expected}");
    }
}

#[test]
fn no_estimate_yet_gives_renos_ssthresh() {
    let mut cc = westwood();
    let w = window(20, u64::MAX);
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(0), &w, 20 * SMSS, SMSS),
        10 * SMSS
    );
}

#[test]
fn duplicate_acks_count_as_delivered_once() {
    let mut cc = westwood();
    let mut w = window(120, 120 * SMSS);
    let mut s = AckStream::default();
    steady(&mut cc, &mut w, &mut s, 3);
    // In the next round: 50 ACKs, then 3 duplicates, then one ACK covering 4 segments (the
    // three the duplicates reported and one more), then 46 ACKs: 100 segments in 100 ms.
    s.run(&mut cc, &mut w, 50, 1000, 100, 100 * SMSS);
    for _ in 0..3 {
        s.t_us += 1000;
        let now = SimTime::ZERO + SimDuration::from_micros(s.t_us);
        let mut d = new_ack(now, 0, None, s.una, s.una + 100 * SMSS);
        d.duplicate = true;
        d.may_grow = false;
        cc.on_ack(&mut w, &d);
    }
    s.t_us += 1000;
    s.una += 4 * SMSS;
    let now = SimTime::ZERO + SimDuration::from_micros(s.t_us);
    cc.on_ack(
        &mut w,
        &new_ack(now, 4 * SMSS, None, s.una, s.una + 100 * SMSS),
    );
    s.run(&mut cc, &mut w, 46, 1000, 100, 100 * SMSS);
    assert_eq!(bwe(&cc, &w), 1_000_000, "no double counting");
}
