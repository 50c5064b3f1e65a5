//! The sender against scripted ACKs: RFC 5681 growth, Reno fast recovery, RFC 6582 NewReno,
//! Tahoe, the retransmission timeout and the zero-window probe.

use super::*;

fn with_iw(variant: TcpVariant, iw: u32) -> Scripted {
    let mut cfg = config(variant);
    cfg.initial_window = InitialWindow::Segments(iw);
    Scripted::established(cfg, ms(100))
}

/// IW = 10 and one ACK: segments 1..=11 outstanding, FlightSize 11000, cwnd 11000.
fn eleven_outstanding(variant: TcpVariant) -> Scripted {
    let mut s = with_iw(variant, 10);
    assert_eq!(s.write(1_000_000), new_segs(0, 10));
    assert_eq!(s.ack(1000), new_segs(10, 12));
    assert_eq!(s.cwnd(), 11_000);
    s
}

#[test]
fn rfc5681_slow_start_adds_at_most_one_smss_per_ack() {
    let mut s = with_iw(TcpVariant::Reno, 1);
    assert_eq!(s.cwnd(), 1000, "IW = 1 segment");
    assert_eq!(s.ssthresh(), u64::MAX, "initial ssthresh arbitrarily high");
    assert_eq!(s.write(100_000), new_segs(0, 1));
    assert_eq!(s.ack(1000), new_segs(1, 3));
    assert_eq!(s.cwnd(), 2000);
    assert_eq!(s.ack(2000), new_segs(3, 5));
    assert_eq!(s.ack(3000), new_segs(5, 7));
    assert_eq!(s.cwnd(), 4000);
    // A stretch ACK for three segments still adds one SMSS: cwnd += min(N, SMSS).
    assert_eq!(s.ack(6000), new_segs(7, 11));
    assert_eq!(s.cwnd(), 5000);
    // An ACK for half a segment adds half a segment.
    assert_eq!(s.ack(6500), new_segs(11, 12));
    assert_eq!(s.cwnd(), 5500);
}

#[test]
fn rfc5681_congestion_avoidance_adds_smss_squared_over_cwnd() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.initial_ssthresh_bytes = Some(3000);
    let mut s = Scripted::established(cfg, ms(100));
    assert_eq!(s.write(1_000_000), new_segs(0, 1));
    assert_eq!(s.ack(1000), new_segs(1, 3));
    assert_eq!(s.ack(2000), new_segs(3, 5));
    assert_eq!(s.cwnd(), 3000, "slow start up to ssthresh");
    // cwnd >= ssthresh: cwnd += SMSS*SMSS/cwnd (RFC 5681 (3)).
    assert_eq!(s.ack(3000), new_segs(5, 6));
    assert_eq!(s.cwnd(), 3000 + 333);
    assert_eq!(s.ack(4000), new_segs(6, 7));
    assert_eq!(s.cwnd(), 3333 + 300);
    // 908 bytes of window: not a full segment, so nothing is sent (no silly windows).
    assert_eq!(s.ack(5000), new_segs(7, 8));
    assert_eq!(s.cwnd(), 3633 + 275);
    assert_eq!(s.ack(6000), new_segs(8, 10));
    assert_eq!(s.cwnd(), 3908 + 255);
}

#[test]
fn rfc5681_reno_inflates_on_each_dupack_and_deflates_on_the_new_ack() {
    let mut s = eleven_outstanding(TcpVariant::Reno);
    // Segment 1 is lost; segments 2..=11 each bring a duplicate ACK.
    let replies = s.dupacks(1000, 3);
    assert_eq!(replies[0], vec![]);
    assert_eq!(replies[1], vec![]);
    // Steps 2-3: ssthresh = FlightSize/2, retransmit, cwnd = ssthresh + 3*SMSS.
    assert_eq!(replies[2], vec![(1, true)]);
    assert_eq!(s.ssthresh(), 5500);
    assert_eq!(s.cwnd(), 8500);
    assert!(s.conn.in_fast_recovery());
    assert_eq!(s.conn.stats().fast_retransmits, 1);
    // Step 4: +SMSS per further duplicate; new data once cwnd exceeds the flight.
    let replies = s.dupacks(1000, 5);
    assert_eq!(
        replies,
        vec![vec![], vec![], vec![], vec![(12, false)], vec![(13, false)]]
    );
    assert_eq!(s.cwnd(), 13_500);
    // Step 6: the ACK of new data deflates cwnd to ssthresh and ends recovery.
    assert_eq!(s.ack(12_000), new_segs(14, 17));
    assert_eq!(s.cwnd(), 5500);
    assert!(!s.conn.in_fast_recovery());
    // Then congestion avoidance.
    s.ack(13_000);
    assert_eq!(s.cwnd(), 5500 + 1_000_000 / 5500);
    assert_eq!(s.conn.stats().retransmits, 1);
}

#[test]
fn rfc5681_an_ack_that_changes_the_window_is_not_a_duplicate() {
    let mut s = eleven_outstanding(TcpVariant::Reno);
    s.dupacks(1000, 2);
    s.peer_window = 500_000;
    assert_eq!(
        s.ack(1000),
        vec![],
        "window update, not the third duplicate"
    );
    assert_eq!(s.conn.stats().fast_retransmits, 0);
    assert_eq!(
        s.dupacks(1000, 2),
        vec![vec![], vec![]],
        "the count starts again"
    );
    assert_eq!(
        s.ack(1000),
        vec![(1, true)],
        "three duplicates with the new window"
    );
}

#[test]
fn rfc6582_newreno_partial_acks_retransmit_each_hole_and_full_ack_leaves() {
    let mut s = eleven_outstanding(TcpVariant::Newreno);
    // Segments 1, 4 and 7 are lost: eight duplicate ACKs.
    let replies = s.dupacks(1000, 8);
    assert_eq!(replies[2], vec![(1, true)]);
    assert_eq!((s.ssthresh(), s.cwnd()), (5500, 13_500));
    assert_eq!(replies[6..], [vec![(12, false)], vec![(13, false)]]);
    // First partial ACK: retransmit the next hole, cwnd -= acked, += SMSS; timer reset.
    s.at(s.now + ms(10));
    assert_eq!(s.ack(4000), vec![(4, true), (14, false)]);
    assert_eq!(s.cwnd(), 13_500 - 3000 + 1000);
    assert!(s.conn.in_fast_recovery());
    let deadline = s.conn.poll_timeout();
    assert_eq!(deadline, Some(s.now + SimDuration::from_secs(1)));
    // Second partial ACK: the same, but the timer is not reset again ("Impatient").
    s.at(s.now + ms(100));
    assert_eq!(s.ack(7000), vec![(7, true), (15, false)]);
    assert_eq!(s.cwnd(), 11_500 - 3000 + 1000);
    assert_eq!(s.conn.poll_timeout(), deadline);
    // Full ACK (covers recover = 12000): cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
    assert_eq!(s.ack(14_000), vec![(16, false)]);
    assert!(!s.conn.in_fast_recovery());
    assert_eq!(s.cwnd(), 2000 + 1000, "FlightSize 2000 after the full ACK");
    assert_eq!(s.conn.stats().fast_retransmits, 1);
    assert_eq!(s.conn.stats().retransmits, 3);
}

#[test]
fn reno_leaves_recovery_on_a_partial_ack_and_waits_for_the_timer() {
    let mut s = eleven_outstanding(TcpVariant::Reno);
    s.dupacks(1000, 8);
    // Partial ACK: Reno deflates and leaves; the second hole is not retransmitted.
    assert_eq!(s.ack(4000), vec![]);
    assert!(!s.conn.in_fast_recovery());
    assert_eq!(s.cwnd(), 5500);
    // Duplicates for the second hole are below `recover`: no second fast retransmit.
    s.dupacks(4000, 3);
    assert_eq!(s.conn.stats().fast_retransmits, 1);
    assert_eq!(s.fire(), vec![(4, true)]);
    assert_eq!(s.conn.stats().timeouts, 1);
}

#[test]
fn tahoe_third_dupack_returns_to_slow_start_and_goes_back_n() {
    let mut s = eleven_outstanding(TcpVariant::Tahoe);
    // Segments 1 and 2 are lost.
    let replies = s.dupacks(1000, 3);
    assert_eq!(replies[2], vec![(1, true)]);
    assert_eq!((s.ssthresh(), s.cwnd()), (5500, 1000));
    assert!(!s.conn.in_fast_recovery(), "Tahoe has no fast recovery");
    // Later duplicates change nothing.
    assert_eq!(s.dupacks(1000, 6), vec![vec![]; 6]);
    assert_eq!(s.cwnd(), 1000);
    // Segment 1 arrives: slow start, going back N from SND.UNA.
    assert_eq!(s.ack(2000), vec![(2, true), (3, true)]);
    assert_eq!(s.cwnd(), 2000);
    // No new fast retransmit until SND.UNA passes `recover` (12000).
    s.dupacks(2000, 3);
    assert_eq!(s.conn.stats().fast_retransmits, 1);
    // The receiver had 3..=11: the ACK jumps past what went back, new data follows.
    assert_eq!(s.ack(12_000), new_segs(12, 15));
    assert_eq!(s.cwnd(), 3000);
}

#[test]
fn rfc5681_timeout_sets_one_smss_and_goes_back_n_and_stale_dupacks_do_nothing() {
    let mut s = with_iw(TcpVariant::Newreno, 4);
    assert_eq!(s.write(100_000), new_segs(0, 4));
    // RTO = max(3 * 100 ms, min_rto 1 s), armed at the first send.
    assert_eq!(s.conn.poll_timeout(), Some(at_ms(1100)));
    assert_eq!(s.fire(), vec![(0, true)]);
    assert_eq!(s.conn.stats().timeouts, 1);
    assert_eq!((s.ssthresh(), s.cwnd()), (2000, 1000));
    // RFC 5681 §3.1: a second timeout of the same segment keeps ssthresh.
    assert_eq!(s.fire(), vec![(0, true)]);
    assert_eq!((s.ssthresh(), s.cwnd()), (2000, 1000));
    assert_eq!(s.ack(1000), vec![(1, true), (2, true)]);
    assert_eq!(s.ack(3000), vec![(3, true), (4, false)]);
    assert_eq!(s.cwnd(), 2500);
    // Duplicates for data sent before the timeout (below recover = 4000) are ignored.
    s.dupacks(3000, 3);
    assert_eq!(s.conn.stats().fast_retransmits, 0);
    assert!(!s.conn.in_fast_recovery());
}

#[test]
fn a_retransmission_carries_the_origin_time_of_the_first_transmission() {
    let mut s = with_iw(TcpVariant::Reno, 4);
    s.at(at_ms(200));
    s.write(4000);
    assert!(s.out.segments.iter().all(|o| o.origin_time == at_ms(200)));
    s.fire();
    let rexmit = s.out.segments[0];
    assert!(rexmit.is_retransmission);
    assert_eq!(rexmit.origin_time, at_ms(200));
    assert!(s.now > at_ms(1000));
}

#[test]
fn rfc9293_zero_window_is_probed_by_the_persist_timer() {
    let mut s = with_iw(TcpVariant::Reno, 10);
    assert_eq!(s.write(3000), new_segs(0, 3));
    s.peer_window = 0;
    assert_eq!(s.ack(3000), vec![]);
    assert_eq!(s.write(5000), vec![], "nothing fits a zero window");
    let first = s.conn.poll_timeout().expect("persist timer");
    s.fire();
    let probe = s.out.segments[0];
    assert_eq!(
        (probe.segment.payload_len, probe.is_retransmission),
        (1, false)
    );
    // The window stays shut: the probe is repeated at a doubled interval.
    s.dupacks(3000, 3);
    assert_eq!(
        s.conn.stats().fast_retransmits,
        0,
        "probe answers are not dupacks"
    );
    let second = s.conn.poll_timeout().expect("persist timer");
    s.fire();
    assert!(s.out.segments[0].is_retransmission);
    assert!(second - first < s.conn.poll_timeout().unwrap() - second);
    // The window opens: data flows again.
    s.peer_window = 100_000;
    let sent = s.ack(3000);
    assert_eq!(
        sent.first(),
        Some(&(3, true)),
        "the probed byte goes again in a full segment"
    );
    assert_eq!(sent.len(), 5);
}

#[test]
fn trace_records_sends_acks_window_and_cc_changes_and_rtt_samples() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.trace = true;
    let mut s = Scripted::established(cfg, ms(100));
    let rto = SimDuration::from_secs(1);
    assert_eq!(
        s.out.trace,
        vec![
            TcpTraceEvent::Rtt {
                sample: ms(100),
                srtt: ms(100),
                rttvar: ms(50),
                rto
            },
            TcpTraceEvent::Window {
                cwnd: 1000,
                ssthresh: u64::MAX
            },
            reno_state(1000),
        ]
    );
    s.write(2000);
    let send = |offset| TcpTraceEvent::Send {
        offset,
        len: 1000,
        retransmission: false,
    };
    assert_eq!(s.out.trace, vec![send(0)]);
    s.at(at_ms(150)).ack(1000);
    let srtt = SimDuration::from_micros(93_750);
    assert_eq!(
        s.out.trace,
        vec![
            TcpTraceEvent::Ack { offset: 1000 },
            TcpTraceEvent::Rtt {
                sample: ms(50),
                srtt,
                rttvar: ms(50),
                rto
            },
            send(1000),
            TcpTraceEvent::Window {
                cwnd: 2000,
                ssthresh: u64::MAX
            },
            reno_state(2000),
        ]
    );
}

/// The `cc` trace record of Reno in slow start with `cwnd` bytes.
fn reno_state(cwnd: u64) -> TcpTraceEvent {
    use crate::tcp::cc::{CcMetrics, CongestionWindow};
    let w = CongestionWindow {
        cwnd,
        ssthresh: u64::MAX,
    };
    TcpTraceEvent::Cc(CcMetrics::of_window(&w, None))
}

#[test]
fn rfc9293_a_window_below_one_smss_is_used_when_nothing_is_in_flight() {
    let mut s = with_iw(TcpVariant::Reno, 10);
    assert_eq!(s.write(1_000_000), new_segs(0, 10));
    s.peer_window = 500;
    assert_eq!(s.ack(10_000), vec![(10, false)]);
    assert_eq!(s.out.segments[0].segment.payload_len, 500);
    // With those 500 bytes in flight, nothing more until they are acknowledged.
    assert_eq!(s.ack(10_000), vec![]);
}

/// Linux-style pacing (`tcp.pacing`): once an ACK has given the rate (200 % of cwnd/SRTT in
/// early slow start), a segment leaves one wire-size gap after the previous one, and the
/// connection's deadline is that release time.
#[test]
fn pacing_releases_segments_one_gap_apart_at_twice_cwnd_per_srtt() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.initial_window = InitialWindow::Segments(10);
    cfg.cc_options.pacing = true;
    let mut s = Scripted::established(cfg, ms(100));
    // No rate before the first ACK: the initial window goes out at once.
    assert_eq!(s.write(1_000_000), new_segs(0, 10));
    // At 200 ms the ACK of segment 0 (RTT 100 ms) makes cwnd 11,000 B: the rate is
    // 2 x 11,000 B / 100 ms = 220,000 B/s. Segment 10 goes at once, segment 11 (1040 B on
    // the wire) 1040 / 220,000 s later.
    s.at(at_ms(200));
    assert_eq!(s.ack(1000), new_segs(10, 11));
    let gap = SimDuration::transmission(8 * 1040, 8 * 220_000);
    assert_eq!(gap.as_nanos(), 4_727_273);
    assert_eq!(s.conn.poll_timeout(), Some(at_ms(200) + gap));
    assert_eq!(s.fire(), new_segs(11, 12));
    // The window is full now: no segment is held, the next deadline is the RTO.
    assert_eq!(
        s.conn.poll_timeout(),
        Some(at_ms(1200)),
        "the RTO restarted at 200 ms"
    );
    assert_eq!(s.conn.cc_metrics().pacing_rate_bytes_per_s, Some(220_000));
}

#[test]
fn without_pacing_the_same_ack_releases_both_segments_at_once() {
    let mut s = with_iw(TcpVariant::Reno, 10);
    assert_eq!(s.write(1_000_000), new_segs(0, 10));
    s.at(at_ms(200));
    assert_eq!(s.ack(1000), new_segs(10, 12));
    assert_eq!(s.conn.cc_metrics().pacing_rate_bytes_per_s, None);
}
