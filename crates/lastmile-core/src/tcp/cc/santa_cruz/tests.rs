//! Santa Cruz against Parsa & Garcia-Luna-Aceves: the queue estimate from summed relative
//! delays, the end of slow start when the queue builds, and the operating point.

use super::super::test_support::*;
use super::super::*;
use super::SantaCruz;
use crate::tcp::delivery::RateSample;

fn santa_cruz(n: f64) -> AnyCongestionControl {
    let settings = SantaCruzConfig { operating_point: n };
    CcSpec::SantaCruz(settings).build(CcOptions::default())
}

/// An ACK with an RTT sample and a delivery-rate sample of `rate` bytes/s.
fn ack_with(t_ms: u64, rtt_ms: u64, rate: u64, una: u64, max: u64) -> AckSample {
    let mut a = new_ack(at_ms(t_ms), SMSS, Some(ms(rtt_ms)), una, max);
    a.rate = RateSample {
        delivered: rate / 10,
        interval: ms(100),
        prior_delivered: 0,
        total_delivered: una,
        is_app_limited: false,
    };
    a
}

#[test]
fn paper_summed_relative_delay_over_the_service_time_is_the_queue() {
    let mut c = SantaCruz::new(SantaCruzConfig::default());
    let mut w = window(10, u64::MAX);
    // A 1000-segment/s bottleneck serves a segment in 1 ms; the delay grows from 100 ms at
    // the session's start to 112 ms: twelve segments have queued since.
    c.on_ack(&mut w, &ack_with(100, 100, 1_000_000, SMSS, 10 * SMSS));
    assert_eq!(c.queued_packets(SMSS), Some(0.0));
    c.on_ack(&mut w, &ack_with(110, 105, 1_000_000, 2 * SMSS, 11 * SMSS));
    c.on_ack(&mut w, &ack_with(120, 112, 1_000_000, 3 * SMSS, 12 * SMSS));
    let n = c.queued_packets(SMSS).unwrap();
    assert!((n - 12.0).abs() < 1e-9, "{n}");
    // A constant delay is no queue growth: D = 0.
    c.on_ack(&mut w, &ack_with(130, 100, 1_000_000, 4 * SMSS, 13 * SMSS));
    assert_eq!(c.queued_packets(SMSS), Some(0.0));
}

#[test]
fn paper_slow_start_ends_when_the_queue_builds_not_at_a_loss() {
    let mut cc = santa_cruz(1.5);
    let mut w = window(4, u64::MAX);
    let mut r = RoundTrips::default();
    for rtt in [100, 100] {
        r.close(&mut cc, &mut w, rtt);
        // No rate sample yet in these hand-made rounds: no estimate, slow start goes on.
        assert!(w.in_slow_start());
    }
    // Over a lossless path with a 51-segment pipe, slow start stops by itself at the first
    // ACK whose delay shows n = 1.5 segments queued (here the queue of slow start's own
    // bursts), before the window exceeds the pipe and the operating point.
    let path = Path {
        rate_bytes_per_s: 1000 * SMSS,
        prop: ms(50),
    };
    let mut cc = santa_cruz(1.5);
    let mut w = window(1, u64::MAX);
    let mut sim = PathSim::default();
    let mut states = Vec::new();
    path.run_observed(&mut sim, &mut cc, &mut w, at_ms(2000), &mut states);
    let exit = states
        .iter()
        .position(|(_, m)| m.ssthresh_bytes != u64::MAX)
        .expect("slow start ended without a loss");
    let m = states[exit].1;
    assert!(m.queue_segments.unwrap() >= 1.5);
    assert!(
        m.cwnd_bytes <= (51 + 2) * SMSS,
        "cwnd {} at the exit",
        m.cwnd_bytes
    );
    assert!(m.cwnd_bytes >= 4 * SMSS);
}

/// The operating point: over a 1000-segment/s bottleneck Santa Cruz keeps about n segments
/// queued, for n = 1.5 and n = 4.
#[test]
fn paper_santa_cruz_holds_its_operating_point_of_queued_packets() {
    for n in [1.5, 4.0] {
        let path = Path {
            rate_bytes_per_s: 1000 * SMSS,
            prop: ms(50),
        };
        let mut cc = santa_cruz(n);
        let mut w = window(1, u64::MAX);
        let log = path.run(&mut cc, &mut w, at_ms(60_000));
        let q = log.mean_queue_after(at_ms(30_000));
        assert!((q - n).abs() <= 1.0, "n = {n}: mean queue {q:.2}");
        let rate = log.delivered_bytes as f64 / SMSS as f64 / 60.0;
        assert!(rate > 950.0, "{rate:.0} segments/s");
    }
}
