//! The congestion controls against the rules of their documents, driven through
//! `CongestionControl` with hand-made ACK samples (no connection involved).

use super::*;
use crate::tcp::delivery::RateSample;

const SMSS: u64 = 1000;

fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

/// An ACK of `acked` new bytes that recovery lets grow the window.
fn ack(acked: u64, in_flight: u64, srtt_ms: Option<u64>) -> AckSample {
    AckSample {
        now: at_ms(0),
        acked_bytes: acked,
        duplicate: acked == 0,
        may_grow: acked > 0,
        rtt: None,
        srtt: srtt_ms.map(SimDuration::from_millis),
        prior_in_flight: in_flight + acked,
        in_flight,
        snd_una: 0,
        snd_max: in_flight,
        mss: SMSS,
        delivered_bytes: acked,
        pipe: None,
        lost_bytes: 0,
        latest_rtt: None,
        rate: RateSample::default(),
    }
}

fn reno(pacing: bool) -> AnyCongestionControl {
    CcSpec::default().build(CcOptions {
        pacing,
        ..CcOptions::default()
    })
}

fn window(cwnd: u64, ssthresh: u64) -> CongestionWindow {
    CongestionWindow { cwnd, ssthresh }
}

#[test]
fn rfc5681_slow_start_adds_min_of_acked_and_smss() {
    let mut cc = reno(false);
    let mut w = window(2 * SMSS, u64::MAX);
    cc.on_ack(&mut w, &ack(500, 0, None));
    assert_eq!(w.cwnd, 2500, "cwnd += min(N, SMSS): N = 500");
    cc.on_ack(&mut w, &ack(3000, 0, None));
    assert_eq!(w.cwnd, 3500, "a stretch ACK still adds one SMSS");
}

#[test]
fn rfc5681_congestion_avoidance_adds_smss_squared_over_cwnd() {
    let mut cc = reno(false);
    let mut w = window(4 * SMSS, 4 * SMSS);
    cc.on_ack(&mut w, &ack(SMSS, 0, None));
    assert_eq!(w.cwnd, 4000 + 250);
}

#[test]
fn no_growth_on_a_duplicate_or_when_recovery_forbids_it() {
    let mut cc = reno(false);
    let mut w = window(4 * SMSS, u64::MAX);
    cc.on_ack(&mut w, &ack(0, 4000, None));
    let mut in_recovery = ack(SMSS, 3000, None);
    in_recovery.may_grow = false;
    cc.on_ack(&mut w, &in_recovery);
    assert_eq!(w.cwnd, 4 * SMSS);
}

#[test]
fn rfc5681_loss_sets_ssthresh_to_half_the_flight_at_least_two_smss() {
    let mut cc = reno(false);
    let w = window(20 * SMSS, u64::MAX);
    assert_eq!(cc.ssthresh_on_loss(at_ms(0), &w, 10 * SMSS, SMSS), 5 * SMSS);
    assert_eq!(cc.ssthresh_on_loss(at_ms(0), &w, 3 * SMSS, SMSS), 2 * SMSS);
}

#[test]
fn rfc5681_timeout_sets_the_loss_window_and_a_repeated_one_keeps_ssthresh() {
    let mut cc = reno(false);
    let mut w = window(20 * SMSS, u64::MAX);
    cc.on_rto(at_ms(0), &mut w, 16 * SMSS, SMSS, true);
    assert_eq!((w.cwnd, w.ssthresh), (SMSS, 8 * SMSS));
    // The retransmission times out too: FlightSize is now one segment, ssthresh stays.
    cc.on_rto(at_ms(1000), &mut w, SMSS, SMSS, false);
    assert_eq!((w.cwnd, w.ssthresh), (SMSS, 8 * SMSS));
}

#[test]
fn rfc3168_ecn_echo_halves_the_window_like_a_loss() {
    let mut cc = reno(false);
    let mut w = window(12 * SMSS, u64::MAX);
    cc.on_ecn_echo(at_ms(0), &mut w, 12 * SMSS, SMSS);
    assert_eq!((w.cwnd, w.ssthresh), (6 * SMSS, 6 * SMSS));
}

#[test]
fn linux_pacing_is_twice_cwnd_per_srtt_in_early_slow_start_then_six_fifths() {
    let mut cc = reno(true);
    // No RTT sample yet: no rate (Linux divides by SRTT only once it has one).
    let mut w = window(10 * SMSS, u64::MAX);
    cc.on_ack(&mut w, &ack(0, 10 * SMSS, None));
    assert_eq!(cc.pacing_rate(), None);
    // cwnd < ssthresh/2: 200 % of cwnd/SRTT = 2 x 10,000 B / 100 ms.
    cc.on_ack(&mut w, &ack(0, 10 * SMSS, Some(100)));
    assert_eq!(cc.pacing_rate(), Some(200_000));
    // cwnd >= ssthresh/2: 120 %; and the flight counts when it exceeds cwnd.
    let mut w = window(10 * SMSS, 16 * SMSS);
    cc.on_ack(&mut w, &ack(0, 15 * SMSS, Some(100)));
    assert_eq!(cc.pacing_rate(), Some(180_000));
    assert_eq!(
        cc.metrics(&w),
        CcMetrics {
            cwnd_bytes: 10 * SMSS,
            ssthresh_bytes: 16 * SMSS,
            pacing_rate_bytes_per_s: Some(180_000),
            ..CcMetrics::of_window(&w, None)
        }
    );
}

#[test]
fn reno_without_pacing_gives_no_rate_and_asks_no_rate_samples() {
    let mut cc = reno(false);
    let mut w = window(10 * SMSS, u64::MAX);
    cc.on_ack(&mut w, &ack(SMSS, 10 * SMSS, Some(100)));
    assert_eq!(cc.pacing_rate(), None);
    assert!(!cc.wants_rate_samples());
    assert_eq!(cc.name(), "reno");
}

/// `AnyCongestionControl::pacing_rate` matches only the algorithms that pace (it is asked
/// before every segment); every algorithm's own answer must come through it.
#[test]
fn every_algorithm_reports_its_pacing_rate() {
    use super::test_support::{at_ms, window, Path, SMSS};
    for kind in CcSpec::all() {
        for pacing in [false, true] {
            let options = CcOptions {
                pacing,
                ..CcOptions::default()
            };
            let mut cc = kind.build(options);
            let mut w = window(2, u64::MAX);
            let path = Path {
                rate_bytes_per_s: 100 * SMSS,
                prop: SimDuration::from_millis(20),
            };
            path.run(&mut cc, &mut w, at_ms(1000));
            let own = dispatch!(&cc, c => c.pacing_rate());
            assert_eq!(cc.pacing_rate(), own, "{}", kind.name());
        }
    }
    let mut bbr = CcSpec::Bbr(Default::default()).build(CcOptions::default());
    let mut w = window(2, u64::MAX);
    let path = Path {
        rate_bytes_per_s: 100 * SMSS,
        prop: SimDuration::from_millis(20),
    };
    path.run(&mut bbr, &mut w, at_ms(1000));
    assert!(bbr.pacing_rate().is_some(), "BBR paces");
}

/// RFC 5681 (4)–(5): ssthresh = max(FlightSize / 2, 2·SMSS) after a loss or a first timeout,
/// and a one-segment window after a timeout. Tested on the shared functions that Reno's
/// trait defaults, Vegas, Veno and Westwood+ all fall back on, not on a copy.
#[test]
fn rfc5681_the_shared_loss_response_floors_ssthresh_at_two_segments() {
    use super::test_support::window;
    assert_eq!(
        reno_ssthresh(3 * SMSS, SMSS),
        2 * SMSS,
        "1.5 segments: the floor"
    );
    assert_eq!(reno_ssthresh(0, SMSS), 2 * SMSS);
    assert_eq!(reno_ssthresh(10 * SMSS, SMSS), 5 * SMSS);
    let mut w = window(3, u64::MAX);
    reno_timeout(&mut w, 3 * SMSS, SMSS, true);
    assert_eq!((w.cwnd, w.ssthresh), (SMSS, 2 * SMSS));
    reno_timeout(&mut w, 40 * SMSS, SMSS, false);
    assert_eq!(
        w.ssthresh,
        2 * SMSS,
        "a repeated timeout keeps ssthresh (§3.1)"
    );
    // Through the trait's defaults, as every controller keeping Reno's response reaches them.
    let mut reno = CcSpec::Reno(Default::default()).build(CcOptions::default());
    let w = window(3, u64::MAX);
    assert_eq!(
        reno.ssthresh_on_loss(at_ms(0), &w, 3 * SMSS, SMSS),
        2 * SMSS
    );
}

/// Every controller that reads delays takes them from the per-ACK sample of the newest
/// segment acknowledged (`latest_rtt`: Linux's `rtt_us`, ns-3's `m_lastRtt`, the papers'
/// fine-grained clocks), never from the retransmission timer's sample, which counts whole
/// ticks of a coarse clock and, without timestamps, times one segment per round trip.
#[test]
fn delay_based_controllers_measure_the_fine_grained_sample_not_the_timers_ticks() {
    use super::test_support::{at_ms, ms, new_ack, window};
    let readers = [
        "vegas",
        "westwood_plus",
        "veno",
        "fast",
        "illinois",
        "bbr",
        "santa_cruz",
    ];
    let mut seen = Vec::new();
    for kind in CcSpec::all() {
        let mut cc = kind.build(CcOptions::default());
        let mut w = window(10, u64::MAX);
        let (mut una, mut max) = (0, 10 * SMSS);
        for i in 0..30 {
            una += SMSS;
            max += SMSS;
            // Each segment took 101 ms; the timer, counting 10 ms ticks from a boundary
            // before the send, says 110 ms, and it timed only every tenth segment.
            let timer = (i % 10 == 0).then(|| ms(110));
            let mut a = new_ack(at_ms(1000 + 10 * i), SMSS, timer, una, max);
            a.latest_rtt = Some(ms(101));
            cc.on_ack(&mut w, &a);
        }
        let Some(min_rtt) = cc.metrics(&w).min_rtt else {
            continue;
        };
        assert_eq!(min_rtt, ms(101), "{}", kind.name());
        seen.push(kind.name());
    }
    assert_eq!(seen, readers, "the controllers that report a minimum RTT");
}
