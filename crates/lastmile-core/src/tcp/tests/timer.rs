//! RFC 6298 estimator, Karn's rule, backoff, and the coarse BSD tick clock.

use super::*;

fn ticks(g_ms: u64, min_rto_ms: u64, max_rto_ms: u64) -> TcpConfig {
    let mut cfg = config(TcpVariant::Reno);
    cfg.timer_granularity = ms(g_ms);
    cfg.min_rto = ms(min_rto_ms);
    cfg.max_rto = ms(max_rto_ms);
    cfg
}

#[test]
fn rfc6298_first_sample_gives_srtt_r_rttvar_half_then_smooths() {
    let mut cfg = ticks(1, 100, 60_000);
    cfg.trace = true;
    // The SYN / SYN-ACK exchange takes 100 ms: the first measurement.
    let mut s = Scripted::established(cfg, ms(100));
    assert_eq!(s.conn.srtt(), Some(ms(100)));
    assert_eq!(s.conn.rttvar(), ms(50));
    assert_eq!(s.conn.rto(), ms(300), "RTO = SRTT + 4 * RTTVAR = 3R");
    assert!(s.out.trace.contains(&TcpTraceEvent::Rtt {
        sample: ms(100),
        srtt: ms(100),
        rttvar: ms(50),
        rto: ms(300)
    }));
    // A 200 ms sample: RTTVAR = 3/4 * 50 + 1/4 * |100 - 200|, SRTT = 7/8 * 100 + 1/8 * 200.
    s.write(1000);
    s.at(at_ms(300)).ack(1000);
    assert_eq!(s.conn.rttvar(), SimDuration::from_micros(62_500));
    assert_eq!(s.conn.srtt(), Some(SimDuration::from_micros(112_500)));
    assert_eq!(
        s.conn.rto(),
        ms(363),
        "112.5 + 250 ms, rounded up to the 1 ms clock"
    );
}

#[test]
fn bsd_ticks_count_boundaries_crossed_and_at_least_one() {
    // SYN at 0, SYN-ACK at 400 ms: no 500 ms boundary crossed, counted as one tick.
    let s = Scripted::established(ticks(500, 1000, 64_000), ms(400));
    assert_eq!(s.conn.srtt(), Some(ms(500)));
    // SYN-ACK at 1.2 s: boundaries at 0.5 s and 1 s.
    let mut s = Scripted::established(ticks(500, 1000, 64_000), ms(1200));
    assert_eq!(s.conn.srtt(), Some(ms(1000)));
    // Sent at 1.4 s, acked at 1.6 s: one boundary, 500 ms for a 200 ms round trip.
    s.at(at_ms(1400)).write(1000);
    s.at(at_ms(1600)).ack(1000);
    assert_eq!(s.conn.srtt(), Some(SimDuration::from_micros(937_500)));
}

#[test]
fn rfc6298_rto_doubles_on_500ms_tick_boundaries_up_to_max_rto() {
    let mut s = Scripted::established(ticks(500, 1000, 8000), ms(100));
    // One tick sample: SRTT 500 ms, RTTVAR 250 ms, RTO = 500 + max(G, 1000) = 1.5 s.
    assert_eq!(s.conn.rto(), ms(1500));
    s.at(at_ms(200)).write(1000);
    // Three ticks armed at 0.2 s: the third boundary after arming, 1.3 s later,
    // within ((n-1) G, n G] as a BSD countdown fires.
    let mut fired = vec![];
    for _ in 0..5 {
        assert_eq!(s.fire(), vec![(0, true)]);
        fired.push(s.now.as_nanos() / 1_000_000);
    }
    assert_eq!(fired, vec![1500, 4500, 10_500, 18_500, 26_500]);
    assert_eq!(s.conn.rto(), ms(8000), "3 s, 6 s, then max_rto");
    assert_eq!(s.conn.stats().timeouts, 5);
    assert_eq!(s.conn.stats().retransmits, 5);
}

#[test]
fn karn_takes_no_sample_from_a_retransmitted_segment_and_keeps_the_backoff() {
    let mut s = Scripted::established(config(TcpVariant::Reno), ms(100));
    assert_eq!(s.conn.srtt(), Some(ms(100)));
    s.write(1000);
    assert_eq!(s.fire(), vec![(0, true)]);
    assert_eq!(s.now, at_ms(1100));
    assert_eq!(s.conn.rto(), ms(2000), "backed off");
    // The ACK is ambiguous (original or retransmission?): no sample, backoff kept.
    s.at(at_ms(1150)).ack(1000);
    assert_eq!(s.conn.srtt(), Some(ms(100)));
    assert_eq!(s.conn.rto(), ms(2000));
    // New data is timed again; its sample ends the backoff.
    s.write(1000);
    s.at(at_ms(1250)).ack(2000);
    assert_eq!(s.conn.srtt(), Some(ms(100)));
    assert_eq!(s.conn.rto(), ms(1000), "min_rto, no backoff");
}

#[test]
fn rfc7323_timestamps_time_every_ack_including_retransmissions() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.timestamps = true;
    let mut s = Scripted::established(cfg, ms(100));
    assert_eq!(
        s.conn.srtt(),
        Some(ms(100)),
        "the SYN-ACK echoed the SYN's TSval"
    );
    s.write(1000);
    let seg = s.out.segments[0].segment;
    assert_eq!(seg.header.options.timestamp, Some((100, PEER_TSVAL)));
    // SYN 20 + 20 + 16 (MSS, timestamps), then the ACK and the data segment 20 + 20 + 12.
    assert_eq!(s.conn.stats().header_bytes_sent, 56 + 52 + 52);
    s.fire();
    let rexmit = s.out.segments[0].segment;
    assert_eq!(rexmit.header.options.timestamp, Some((1100, PEER_TSVAL)));
    // The ACK echoes the retransmission's TSval: a valid 50 ms sample.
    s.ts_echo = Some(1100);
    s.at(at_ms(1150)).ack(1000);
    assert_eq!(s.conn.rttvar(), ms(50));
    assert_eq!(s.conn.srtt(), Some(SimDuration::from_micros(93_750)));
    assert_eq!(s.conn.rto(), ms(1000), "backoff ended");
}

#[test]
fn rfc6298_syn_is_retransmitted_with_backoff_and_iw_drops_to_one_segment() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.initial_window = InitialWindow::Segments(4);
    let mut c = TcpConnection::new(cfg);
    let mut out = TcpOutbox::default();
    c.connect(SimTime::ZERO, &mut out);
    assert_eq!(c.poll_timeout(), Some(at_ms(1000)));
    out.clear();
    c.on_timeout(at_ms(1000), &mut out);
    assert_eq!(out.segments.len(), 1);
    let syn = out.segments[0];
    assert_eq!(syn.segment.header.control, Control::Syn);
    assert!(syn.is_retransmission);
    assert_eq!(c.poll_timeout(), Some(at_ms(3000)), "doubled");
    let synack = peer_segment(
        SeqNumber(PEER_ISN),
        Some(SeqNumber(ISN) + 1),
        Control::Syn,
        1_000_000,
        0,
    );
    out.clear();
    c.on_segment(at_ms(1100), &synack, at_ms(1100), &mut out);
    assert_eq!(c.state(), TcpState::Established);
    assert_eq!(c.srtt(), None, "Karn: the SYN was retransmitted");
    assert_eq!(
        c.congestion_window().cwnd,
        1000,
        "RFC 5681 §3.1: IW = 1 after a lost SYN"
    );
    assert_eq!(c.stats().timeouts, 1);
}
