//! Illinois against Liu, Başar & Srikant: α = f1(da), β = f2(da) with d1 = dm/100,
//! d2 = dm/10, d3 = 8·dm/10, the θ rule and Reno below the window threshold.

use super::super::test_support::*;
use super::super::*;
use super::Illinois;

fn illinois() -> Illinois {
    Illinois::new(IllinoisConfig::default())
}

#[test]
fn paper_alpha_is_alpha_max_at_low_delay_and_alpha_min_at_the_largest_delay() {
    // dm = 100 ms.
    let mut c = illinois();
    assert_eq!(c.alpha_for(0.001, 0.1), 10.0, "da ≤ d1 = 1 ms");
    let mut c2 = illinois();
    assert!(
        (c2.alpha_for(0.1, 0.1) - 0.3).abs() < 1e-12,
        "f1(dm) = α_min"
    );
    // In between: κ1/(κ2 + da) with κ1 = (dm − d1)·α_min·α_max/(α_max − α_min) and
    // κ2 = (dm − d1)·α_min/(α_max − α_min) − d1.
    let (dm, d1, da) = (0.1, 0.001, 0.02);
    let k1 = (dm - d1) * 0.3 * 10.0 / (10.0 - 0.3);
    let k2 = (dm - d1) * 0.3 / (10.0 - 0.3) - d1;
    assert!((c.alpha_for(da, dm) - k1 / (k2 + da)).abs() < 1e-12);
}

#[test]
fn paper_beta_is_linear_between_d2_and_d3() {
    let c = illinois();
    assert_eq!(c.beta_for(0.010, 0.1), 0.125, "da ≤ d2");
    assert_eq!(c.beta_for(0.080, 0.1), 0.5, "da ≥ d3");
    assert!((c.beta_for(0.045, 0.1) - 0.3125).abs() < 1e-12, "halfway");
}

#[test]
fn paper_alpha_returns_to_alpha_max_only_after_theta_low_delay_rounds() {
    let mut c = illinois();
    let high = c.alpha_for(0.05, 0.1);
    c.alpha = high;
    for round in 1..5 {
        assert_eq!(c.alpha_for(0.0, 0.1), high, "round {round} of θ = 5");
    }
    assert_eq!(c.alpha_for(0.0, 0.1), 10.0);
}

/// Rounds of 40 ACKs at 40 segments in flight: RTTs of 100 ms (base) and 200 ms set dm =
/// 100 ms; then rounds at `rtt_ms` set da.
fn run(rtt_ms: u64, cwnd_segments: u64) -> (AnyCongestionControl, CongestionWindow, f64) {
    let mut cc = CcSpec::Illinois(Default::default()).build(CcOptions::default());
    let mut w = window(cwnd_segments, cwnd_segments * SMSS);
    let mut s = AckStream::default();
    let n = cwnd_segments;
    s.run(&mut cc, &mut w, n, 2500, 100, n * SMSS);
    s.run(&mut cc, &mut w, n, 2500, 200, n * SMSS);
    s.run(&mut cc, &mut w, 2 * n, 2500, rtt_ms, n * SMSS);
    // Growth per round trip: per-ACK growth times the window in segments.
    let before = w.cwnd;
    s.run(&mut cc, &mut w, n, 2500, rtt_ms, n * SMSS);
    let per_ack = (w.cwnd - before) as f64 / SMSS as f64 / n as f64;
    let growth = per_ack * (before + w.cwnd) as f64 / 2.0 / SMSS as f64;
    (cc, w, growth)
}

#[test]
fn paper_additive_increase_is_alpha_segments_per_round_trip() {
    // da = 45 ms: α = f1(45 ms), β = 0.3125.
    let (cc, w, growth) = run(145, 40);
    let m = cc.metrics(&w);
    let alpha = m.alpha.unwrap();
    assert!((m.beta.unwrap() - 0.3125).abs() < 1e-9);
    assert!(
        (growth - alpha).abs() < 0.05 * alpha,
        "{growth} segments in a round trip, α = {alpha}"
    );
}

#[test]
fn paper_loss_cuts_beta_of_the_window() {
    let (mut cc, w, _) = run(190, 40);
    // da = 90 ms ≥ d3 = 80 ms: β = 1/2.
    let cwnd = w.cwnd;
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(0), &w, cwnd, SMSS),
        (cwnd as f64 * 0.5) as u64
    );
    let (mut cc, w, _) = run(101, 40);
    // da = 1 ms ≤ d2: β = 1/8, the window keeps 7/8.
    let cwnd = w.cwnd;
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(0), &w, cwnd, SMSS),
        (cwnd as f64 * 0.875) as u64
    );
}

#[test]
fn small_windows_behave_as_reno() {
    let (cc, w, growth) = run(101, 8);
    assert!(w.cwnd < 15 * SMSS);
    let m = cc.metrics(&w);
    assert_eq!((m.alpha, m.beta), (Some(1.0), Some(0.5)));
    assert!((growth - 1.0).abs() < 0.05, "{growth}");
}
