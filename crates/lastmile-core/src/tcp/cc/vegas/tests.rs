//! Vegas against Brakmo & Peterson §3.2–3.3, driven with hand-made round trips and over a
//! one-bottleneck path.

use super::super::test_support::*;
use super::super::*;

fn vegas() -> AnyCongestionControl {
    CcSpec::Vegas(Default::default()).build(CcOptions::default())
}

/// Congestion avoidance at 20 segments with a base RTT of 100 ms (the first round's).
fn in_avoidance() -> (AnyCongestionControl, CongestionWindow, RoundTrips) {
    let mut cc = vegas();
    let mut w = window(20, 20 * SMSS);
    let mut r = RoundTrips::default();
    r.close(&mut cc, &mut w, 100);
    // Diff = 0 < α: one segment more.
    assert_eq!(w.cwnd, 21 * SMSS);
    (cc, w, r)
}

#[test]
fn paper_diff_below_alpha_adds_one_segment_per_round_trip() {
    let (mut cc, mut w, mut r) = in_avoidance();
    // Diff = 21 · (101 − 100)/101 = 0.21 < α = 1.
    r.close(&mut cc, &mut w, 101);
    assert_eq!(w.cwnd, 22 * SMSS);
    let q = cc.metrics(&w).queue_segments.unwrap();
    assert!((q - 21.0 / 101.0).abs() < 1e-9, "Diff {q}");
}

#[test]
fn paper_diff_between_alpha_and_beta_holds_the_window() {
    let (mut cc, mut w, mut r) = in_avoidance();
    // Diff = 21 · 15/115 = 2.74: between α = 1 and β = 3.
    r.close(&mut cc, &mut w, 115);
    assert_eq!(w.cwnd, 21 * SMSS);
}

#[test]
fn paper_diff_above_beta_removes_one_segment_per_round_trip() {
    let (mut cc, mut w, mut r) = in_avoidance();
    // Diff = 21 · 30/130 = 4.85 > β = 3.
    r.close(&mut cc, &mut w, 130);
    assert_eq!(w.cwnd, 20 * SMSS);
    r.close(&mut cc, &mut w, 130);
    assert_eq!(w.cwnd, 19 * SMSS, "one segment per round trip, not per ACK");
}

#[test]
fn acks_within_a_round_change_nothing_in_avoidance() {
    let (mut cc, mut w, r) = in_avoidance();
    // More ACKs of the same round (SND.UNA below the round's end), with a high RTT.
    for k in 1..10 {
        let a = new_ack(
            at_ms(r.t_ms + k),
            SMSS,
            Some(ms(200)),
            r.una + k * SMSS,
            r.max,
        );
        cc.on_ack(&mut w, &a);
    }
    assert_eq!(w.cwnd, 21 * SMSS);
}

/// Brakmo & Peterson §3.1-3.2: Vegas measures RTTs with a fine-grained clock, from each
/// segment's send time, not with the retransmission timer's sample (one timed segment per
/// round, in whole ticks of a coarse clock, 4.4BSD's 500 ms or ns-2's `tcpTick_`).
#[test]
fn paper_vegas_rtt_is_the_fine_grained_sample_not_the_timers_ticks() {
    let (mut cc, mut w, mut r) = in_avoidance();
    r.una = r.max + SMSS;
    r.max = r.una + w.cwnd;
    r.t_ms += 101;
    // The segment took 101 ms; the timer, counting 10 ms ticks from a tick boundary before
    // the send, says 130 ms.
    let mut a = new_ack(at_ms(r.t_ms), SMSS, Some(ms(130)), r.una, r.max);
    a.latest_rtt = Some(ms(101));
    cc.on_ack(&mut w, &a);
    // Diff = 21 · (101 − 100)/101 = 0.21 < α: one segment more (130 ms would give 4.85 > β).
    assert_eq!(w.cwnd, 22 * SMSS);
    let q = cc.metrics(&w).queue_segments.unwrap();
    assert!((q - 21.0 / 101.0).abs() < 1e-9, "Diff {q}");
}

#[test]
fn settings_alpha_and_beta_move_the_band() {
    let settings = VegasConfig {
        alpha: 2.0,
        beta: 4.0,
        ..VegasConfig::default()
    };
    let mut cc = CcSpec::Vegas(settings).build(CcOptions::default());
    let mut w = window(20, 20 * SMSS);
    let mut r = RoundTrips::default();
    r.close(&mut cc, &mut w, 100);
    // Diff = 21 · 8/108 = 1.56: below α = 2 now, so Vegas-2,4 grows where Vegas-1,3 holds.
    r.close(&mut cc, &mut w, 108);
    assert_eq!(w.cwnd, 22 * SMSS);
}

/// §3.3 and §3.2 together, over a 1000-segment/s bottleneck with 100 ms of propagation
/// delay: slow start holds the window every other round trip and stops once more than γ
/// segments queue; after that Vegas keeps between α = 1 and β = 3 segments waiting at the
/// bottleneck (measured at the bottleneck, not by Vegas).
#[test]
fn paper_vegas_keeps_between_alpha_and_beta_segments_queued() {
    let path = Path {
        rate_bytes_per_s: 1000 * SMSS,
        prop: ms(100),
    };
    let mut cc = vegas();
    let mut w = window(2, u64::MAX);
    let log = path.run(&mut cc, &mut w, at_ms(30_000));
    // Slow start doubled the window every other round trip (2, 2, 4, 4, 8, ...): at 0.45 s
    // (four round trips and a half) it is below the 32 of plain slow start's 2, 4, 8, 16, 32.
    let at = |t: u64| {
        log.cwnd
            .iter()
            .rev()
            .find(|(s, _)| *s <= at_ms(t))
            .unwrap()
            .1
    };
    assert!(at(450) < 16 * SMSS, "cwnd {} at 0.45 s", at(450));
    assert!(!w.in_slow_start(), "Vegas left slow start");
    let q = log.mean_queue_after(at_ms(10_000));
    assert!((1.0..=3.0).contains(&q), "mean queue {q:.2} segments");
    // The bottleneck stays busy: about 1000 segments per second delivered.
    let rate = log.delivered_bytes as f64 / SMSS as f64 / 30.0;
    assert!(rate > 950.0, "{rate:.0} segments/s");
}

/// Brakmo & Peterson §3.1 with ns-2's sizes: a loss cuts the window to three quarters, a
/// repeated loss of a retransmitted segment to half, and a loss of a segment sent before the
/// last cut not at all.
#[test]
fn paper_cuts_only_for_segments_sent_after_the_last_cut() {
    let mut cc = CcSpec::Vegas(Default::default()).build(CcOptions::default());
    let w = window(40, u64::MAX);
    cc.note_lost_segment(at_ms(100), 1);
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(200), &w, 40 * SMSS, SMSS),
        30 * SMSS
    );
    // Another segment of the same window (sent at 150 ms, before the cut at 200 ms).
    let w = window(30, 30 * SMSS);
    cc.note_lost_segment(at_ms(150), 1);
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(260), &w, 30 * SMSS, SMSS),
        30 * SMSS
    );
    // The retransmission (sent at 200 ms, not before the cut) lost again: half.
    cc.note_lost_segment(at_ms(200), 2);
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(400), &w, 30 * SMSS, SMSS),
        15 * SMSS
    );
    // Without the fine-grained rules, Reno's FlightSize/2.
    let settings = VegasConfig {
        fine_grained_retransmission: false,
        ..VegasConfig::default()
    };
    let mut reno_like = CcSpec::Vegas(settings).build(CcOptions::default());
    reno_like.note_lost_segment(at_ms(100), 1);
    assert_eq!(
        reno_like.ssthresh_on_loss(at_ms(200), &w, 30 * SMSS, SMSS),
        15 * SMSS
    );
}

/// §3.2's thresholds are strict: the window grows while Diff < α and shrinks once Diff > β;
/// at exactly α or exactly β it holds. (Base RTT 100 ms; a 200 ms round makes Diff half
/// the window in segments, exactly.)
#[test]
fn paper_diff_at_exactly_alpha_or_beta_holds_the_window() {
    for (segments, threshold) in [(1, "alpha"), (5, "beta")] {
        let mut cc = vegas();
        let mut w = window(segments, segments * SMSS);
        let mut r = RoundTrips::default();
        r.close(&mut cc, &mut w, 100);
        assert_eq!(w.cwnd, (segments + 1) * SMSS, "Diff 0 < α: one more");
        // Diff = (segments + 1) · (200 − 100) / 200: 1 = α, or 3 = β.
        r.close(&mut cc, &mut w, 200);
        assert_eq!(
            w.cwnd,
            (segments + 1) * SMSS,
            "Diff exactly {threshold}: held"
        );
    }
}

/// §3.3: slow start ends when Diff exceeds γ at the end of a round the window held still;
/// at exactly γ it goes on (γ = 1 segment; a 2-segment window, a 200 ms round against the
/// 100 ms base: Diff = 1).
#[test]
fn paper_slow_start_goes_on_at_exactly_gamma_and_ends_above_it() {
    for (rtt_ms, leaves) in [(200, false), (300, true)] {
        let mut cc = vegas();
        let mut w = window(2, 1_000 * SMSS);
        let mut r = RoundTrips::default();
        // The first round sets the base RTT; the next one holds the window.
        r.close(&mut cc, &mut w, 100);
        assert_eq!(w.cwnd, 2 * SMSS, "the round after a growing one holds");
        r.close(&mut cc, &mut w, rtt_ms);
        assert_eq!(!w.in_slow_start(), leaves, "RTT {rtt_ms} ms: {w:?}");
        if !leaves {
            assert_eq!(w.cwnd, 3 * SMSS, "growing again");
        }
    }
}
