//! CUBIC against RFC 9438: the window function after a loss, K, the Reno-friendly region,
//! fast convergence and the timeout's K = 0.

use super::super::test_support::*;
use super::super::*;
use super::Cubic;
use crate::engine::{SimDuration, SimTime};

fn cubic(fast_convergence: bool) -> AnyCongestionControl {
    let settings = CubicConfig {
        fast_convergence,
        ..CubicConfig::default()
    };
    CcSpec::Cubic(settings).build(CcOptions::default())
}

fn inner(cc: &AnyCongestionControl) -> &Cubic {
    let AnyCongestionControl::Cubic(c) = cc else {
        unreachable!()
    };
    c
}

/// A loss at `cwnd` segments with as much in flight, then recovery's end: cwnd = ssthresh.
fn loss(cc: &mut AnyCongestionControl, w: &mut CongestionWindow, t: SimTime) {
    w.ssthresh = cc.ssthresh_on_loss(t, w, w.cwnd, SMSS);
    w.cwnd = w.ssthresh;
}

/// Congestion avoidance from `from` for `secs`: one-segment ACKs, a window's worth per RTT
/// of `rtt_ms` (also the SRTT); (seconds since `from`, cwnd in segments) after each ACK.
fn avoid(
    cc: &mut AnyCongestionControl,
    w: &mut CongestionWindow,
    from: SimTime,
    secs: f64,
    rtt_ms: u64,
) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    let mut t = from;
    let end = from + SimDuration::from_secs_f64(secs);
    while t < end {
        let gap = SimDuration::from_nanos(rtt_ms * 1_000_000 * SMSS / w.cwnd);
        t += gap;
        cc.on_ack(w, &new_ack(t, SMSS, Some(ms(rtt_ms)), 0, w.cwnd));
        let seconds = t.saturating_since(from).as_secs_f64();
        out.push((seconds, w.cwnd as f64 / SMSS as f64));
    }
    out
}

fn at(trace: &[(f64, f64)], t: f64) -> f64 {
    trace
        .iter()
        .rev()
        .find(|(s, _)| *s <= t)
        .map(|p| p.1)
        .unwrap()
}

#[test]
fn rfc9438_loss_at_100_gives_ssthresh_70_and_k_4_217_seconds() {
    let mut cc = cubic(true);
    let mut w = window(100, 100 * SMSS);
    loss(&mut cc, &mut w, at_ms(0));
    assert_eq!(w.ssthresh, 70 * SMSS, "β_cubic = 0.7 of the flight");
    avoid(&mut cc, &mut w, at_ms(0), 0.001, 100);
    let k = inner(&cc).k_s().unwrap();
    assert!(
        (k - 75f64.cbrt()).abs() < 1e-9,
        "K = ∛((100 − 70)/0.4) = {k}"
    );
    assert!((inner(&cc).w_cubic(k).unwrap() - 100.0).abs() < 1e-9);
}

/// §4.2: with a 100 ms RTT (outside the Reno-friendly region), cwnd after the loss follows
/// W(t) = C(t − K)³ + W_max: each ACK moves it towards W(t + RTT), so it lies between W(t)
/// and W(t + RTT), within a segment for rounding.
#[test]
fn rfc9438_window_follows_the_cubic_function_after_a_loss() {
    let mut cc = cubic(true);
    let mut w = window(100, 100 * SMSS);
    loss(&mut cc, &mut w, at_ms(0));
    let trace = avoid(&mut cc, &mut w, at_ms(0), 8.0, 100);
    let c = inner(&cc);
    // Until 5.6 s; then W_est (0.53 segments per RTT up to cwnd_prior = 100 at 5.7 s, one per
    // RTT after) overtakes W_cubic and the Reno-friendly region takes over.
    for t in [1.0, 2.0, 3.0, 4.217, 5.0, 5.5] {
        let cwnd = at(&trace, t);
        let (lo, hi) = (c.w_cubic(t).unwrap(), c.w_cubic(t + 0.1).unwrap());
        assert!(
            cwnd >= lo - 1.0 && cwnd <= hi.max(lo) + 1.0,
            "t = {t} s: cwnd {cwnd:.2}, W(t) {lo:.2}, W(t + RTT) {hi:.2}"
        );
    }
    // The plateau around W_max = 100 at t = K, and the convex probing after it.
    assert!((at(&trace, 4.217) - 100.0).abs() < 1.0);
    assert!(at(&trace, 8.0) > 120.0);
}

/// §4.3: with a 10 ms RTT the Reno-friendly estimate W_est, growing α_cubic = 0.53 segments
/// per RTT and 1 once past cwnd_prior, exceeds W_cubic and sets cwnd.
#[test]
fn rfc9438_reno_friendly_region_dominates_at_small_rtt() {
    let mut cc = cubic(true);
    let mut w = window(100, 100 * SMSS);
    loss(&mut cc, &mut w, at_ms(0));
    let trace = avoid(&mut cc, &mut w, at_ms(0), 2.0, 10);
    let c = inner(&cc);
    // 0.3 s = 30 round trips: W_est ≈ 70 + 0.53·30 = 86 while W_cubic(0.3) ≈ 75.9.
    let alpha = CubicConfig::default().alpha();
    assert!((alpha - 0.5294).abs() < 1e-4);
    let cwnd = at(&trace, 0.3);
    assert!(c.w_cubic(0.3).unwrap() < 77.0);
    assert!(
        (cwnd - (70.0 + alpha * 30.0)).abs() < 1.5,
        "cwnd {cwnd:.2} at 0.3 s"
    );
    // W_est passes cwnd_prior = 100 after 30/0.53 = 57 round trips (0.57 s); then it grows
    // a segment per round trip: 100 + (2 − 0.57)/0.01 = 243 at 2 s.
    let end = at(&trace, 2.0);
    assert!((end - 243.0).abs() < 5.0, "cwnd {end:.1} at 2 s");
}

#[test]
fn rfc9438_fast_convergence_lowers_w_max_when_the_window_shrinks() {
    let mut cc = cubic(true);
    let mut w = window(100, 100 * SMSS);
    loss(&mut cc, &mut w, at_ms(0));
    w.cwnd = 80 * SMSS;
    loss(&mut cc, &mut w, at_ms(1000));
    // W_max = 80·(1 + 0.7)/2 = 68; ssthresh = 0.7·80 = 56.
    assert_eq!(w.ssthresh, 56 * SMSS);
    let m = cc.metrics(&w).w_max_segments.unwrap();
    assert!((m - 68.0).abs() < 1e-9);
    // Without fast convergence W_max is the window before the cut.
    let mut cc = cubic(false);
    let mut w = window(100, 100 * SMSS);
    loss(&mut cc, &mut w, at_ms(0));
    w.cwnd = 80 * SMSS;
    loss(&mut cc, &mut w, at_ms(1000));
    assert_eq!(cc.metrics(&w).w_max_segments, Some(80.0));
}

#[test]
fn rfc9438_after_a_timeout_k_is_zero_and_w_max_the_epochs_window() {
    let mut cc = cubic(true);
    let mut w = window(100, u64::MAX);
    cc.on_rto(at_ms(0), &mut w, 100 * SMSS, SMSS, true);
    assert_eq!((w.cwnd, w.ssthresh), (SMSS, 70 * SMSS));
    // Slow start back to ssthresh, then the first congestion-avoidance ACK starts the stage.
    w.cwnd = 70 * SMSS;
    avoid(&mut cc, &mut w, at_ms(5000), 0.001, 100);
    let c = inner(&cc);
    assert_eq!(c.k_s(), Some(0.0));
    assert!((c.w_cubic(0.0).unwrap() - 70.0).abs() < 1e-9);
    // W(t) = 0.4·t³ + 70: convex from the start.
    assert!((c.w_cubic(2.0).unwrap() - 73.2).abs() < 1e-9);
}

#[test]
fn slow_start_without_hystart_is_renos_and_a_duplicate_grows_nothing() {
    let settings = CubicConfig {
        hystart: false,
        ..CubicConfig::default()
    };
    let mut cc = CcSpec::Cubic(settings).build(CcOptions::default());
    let mut w = window(10, u64::MAX);
    cc.on_ack(&mut w, &new_ack(at_ms(1), 1500, None, 0, 0));
    assert_eq!(w.cwnd, 11 * SMSS);
    let mut d = new_ack(at_ms(2), 0, None, 0, 0);
    d.duplicate = true;
    d.may_grow = false;
    cc.on_ack(&mut w, &d);
    assert_eq!(w.cwnd, 11 * SMSS);
}

/// RFC 9406 by default (RFC 9438 §4.10): the initial slow start adds min(N, 8·SMSS) per
/// ACK and runs HyStart++; a loss ends it, and the slow start after a timeout is Reno's.
#[test]
fn hystart_runs_in_the_initial_slow_start_only() {
    let mut cc = cubic(true);
    let mut w = window(10, u64::MAX);
    cc.on_ack(&mut w, &new_ack(at_ms(1), 1500, None, 1500, 10_000));
    assert_eq!(w.cwnd, 10 * SMSS + 1500, "min(N, L·SMSS)");
    assert!(inner(&cc).hystart().is_some());
    cc.on_rto(at_ms(2), &mut w, 10 * SMSS, SMSS, true);
    assert!(inner(&cc).hystart().is_none(), "a timeout ends it");
    cc.on_ack(&mut w, &new_ack(at_ms(3), 1500, None, 3000, 10_000));
    assert_eq!(w.cwnd, 2 * SMSS, "Reno's slow start after the timeout");
}
