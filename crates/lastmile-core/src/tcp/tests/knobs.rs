//! The survey's knobs (Pentikousis §2.4.4): appropriate byte counting (RFC 3465), the
//! initial window (RFC 3390, RFC 6928), the duplicate-ACK threshold, DAASS (Allman 1998)
//! and ECN (RFC 3168) at the sender; the timer's backoff cap and trace; a stream longer
//! than 2^32 bytes; BSD's ssthresh after a loss beside RFC 5681's.

use super::*;

const SEG: u64 = MSS as u64;

fn secs(n: u64) -> SimDuration {
    SimDuration::from_secs(n)
}

fn peer(mut cfg: TcpConfig) -> TcpConfig {
    cfg.isn = 777_777;
    cfg
}

/// A back-to-back transfer of `bytes` with `edit` applied to both ends; the pair when done.
fn transfer(bytes: u64, edit: impl Fn(&mut TcpConfig)) -> Pair {
    let mut a = config(TcpVariant::Newreno);
    edit(&mut a);
    let b = peer(a.clone());
    let mut p = Pair::new(a, b);
    p.transfer(bytes, secs(600));
    Pair::assert_in_order_once(&p.delivered_to_b, bytes);
    p
}

/// RFC 3465 §2.2 and the survey: with an ACK for every second segment, RFC 5681's slow
/// start grows cwnd by 1.5 per round trip, byte counting with L = 2 by 2.
#[test]
fn rfc3465_byte_counting_doubles_slow_start_under_delayed_acks() {
    let round = |abc: u8| {
        let mut cfg = config(TcpVariant::Reno);
        cfg.initial_window = InitialWindow::Segments(4);
        cfg.cc_options.abc = abc;
        let mut s = Scripted::established(cfg, ms(100));
        s.write(1_000_000);
        s.ack(2 * SEG);
        s.ack(4 * SEG);
        s.cwnd() / SEG
    };
    assert_eq!(round(0), 6, "RFC 5681: one SMSS per ACK");
    assert_eq!(round(1), 6, "L = 1 is RFC 5681's slow start");
    assert_eq!(round(2), 8, "L = 2: each ACK of two segments adds two");
}

/// Allman's unlimited byte counting (the survey §2.4.4.1: "`cwnd` is increased by as many
/// bytes as are acknowledged"): a stretch ACK for four segments adds four, where LBC (L = 2)
/// adds two.
#[test]
fn unlimited_byte_counting_grows_slow_start_by_every_byte_acknowledged() {
    let after_stretch_ack = |abc: u8| {
        let mut cfg = config(TcpVariant::Reno);
        cfg.initial_window = InitialWindow::Segments(4);
        cfg.cc_options.abc = abc;
        let mut s = Scripted::established(cfg, ms(100));
        s.write(1_000_000);
        s.ack(4 * SEG);
        s.cwnd() / SEG
    };
    assert_eq!(
        after_stretch_ack(255),
        8,
        "UBC: four segments acknowledged, four added"
    );
    assert_eq!(after_stretch_ack(2), 6, "LBC: at most two");
    assert_eq!(after_stretch_ack(0), 5, "RFC 5681: one per ACK");
}

/// RFC 3465 §2.1: in congestion avoidance one SMSS per cwnd of bytes acknowledged, however
/// many ACKs carry them; RFC 5681's per-ACK rule gives half as much to half as many ACKs.
#[test]
fn rfc3465_congestion_avoidance_counts_bytes_not_acks() {
    let grow = |abc: u8| {
        let mut cfg = config(TcpVariant::Reno);
        cfg.initial_window = InitialWindow::Segments(10);
        cfg.initial_ssthresh_bytes = Some(10_000);
        cfg.cc_options.abc = abc;
        let mut s = Scripted::established(cfg, ms(100));
        s.write(1_000_000);
        for k in 1..=5 {
            s.ack(2 * k * SEG);
        }
        s.cwnd()
    };
    assert_eq!(
        grow(0),
        10_000 + 100 + 99 + 98 + 97 + 96,
        "five ACKs of SMSS²/cwnd"
    );
    assert_eq!(grow(1), 11_000, "one SMSS after a window of bytes");
}

/// RFC 3465 §2.3: after a timeout slow start uses L = 1 even when L = 2 is configured.
#[test]
fn rfc3465_slow_start_after_a_timeout_counts_one_smss_per_ack() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.initial_window = InitialWindow::Segments(4);
    cfg.cc_options.abc = 2;
    let mut s = Scripted::established(cfg, ms(100));
    s.write(1_000_000);
    assert_eq!(s.fire(), vec![(0, true)]);
    assert_eq!(s.cwnd(), SEG);
    s.ack(2 * SEG);
    assert_eq!(s.cwnd(), 2 * SEG, "L = 1 after the RTO");
}

/// RFC 3390 and RFC 6928 as formulas (tcp-family-notes §11's table).
#[test]
fn rfc3390_and_rfc6928_initial_windows() {
    assert_eq!(InitialWindow::Rfc3390.bytes(1460), 4380);
    assert_eq!(InitialWindow::Rfc3390.bytes(536), 2144);
    assert_eq!(InitialWindow::Rfc3390.bytes(1000), 4000);
    assert_eq!(InitialWindow::Rfc6928.bytes(1460), 14_600);
    assert_eq!(InitialWindow::Rfc6928.bytes(536), 5360);
    assert_eq!(InitialWindow::Segments(10).bytes(1000), 10_000);
}

/// The survey (§2.4.4.2, Allman et al.): a larger initial window finishes a short transfer
/// in fewer round trips. 10 segments: IW 1 needs 4 rounds (1, 2, 4, 3), IW 4 needs 2.
#[test]
fn a_larger_initial_window_finishes_a_short_transfer_in_fewer_round_trips() {
    let done = |iw: InitialWindow| {
        let p = transfer(10 * SEG, |c| c.initial_window = iw);
        let first = p
            .log
            .iter()
            .find(|(_, s, o)| *s == Side::A && o.segment.payload_len > 0);
        (p.now, first.map(|(t, _, _)| *t).unwrap())
    };
    let rtt = ms(40);
    let (one, start) = done(InitialWindow::Segments(1));
    let (four, _) = done(InitialWindow::Segments(4));
    let (rfc3390, _) = done(InitialWindow::Rfc3390);
    assert_eq!(four, rfc3390, "RFC 3390 with MSS 1000 is 4 segments");
    let rounds = |t: SimTime| (t - start).as_nanos() / rtt.as_nanos();
    assert_eq!(rounds(one) - rounds(four), 2, "{one:?} vs {four:?}");
}

/// The survey (§2.4.4.1, dupack threshold): with a window of three segments a loss brings
/// only two duplicate ACKs; DupThresh 2 recovers by fast retransmit where 3 times out.
#[test]
fn dupthresh_two_recovers_a_small_window_where_three_times_out() {
    let run = |threshold: u32| {
        let mut a = config(TcpVariant::Newreno);
        a.dupack_threshold = threshold;
        let mut b = peer(a.clone());
        b.rwnd_bytes = 3 * MSS;
        let mut p = Pair::new(a, b);
        let first_byte = SeqNumber(ISN) + 1;
        p.drop = Box::new(move |side, seg, times| {
            side == Side::A
                && seg.segment.payload_len > 0
                && (seg.segment.header.seq - first_byte) / MSS == 10
                && times == 0
        });
        p.transfer(30 * SEG, secs(600));
        Pair::assert_in_order_once(&p.delivered_to_b, 30 * SEG);
        p.a.stats().clone()
    };
    let three = run(3);
    assert_eq!(
        (three.fast_retransmits, three.timeouts),
        (0, 1),
        "{three:?}"
    );
    let two = run(2);
    assert_eq!((two.fast_retransmits, two.timeouts), (1, 0), "{two:?}");
}

/// The survey (§2.4.4.1, Allman): DAASS is ACK-every-segment while the sender is in slow
/// start ("exactly the same results for short flows") and delayed ACKs after.
#[test]
fn daass_matches_ack_every_segment_in_slow_start_and_delays_after() {
    let acks = |p: &Pair| p.b.stats().acks_sent;
    let every = transfer(20 * SEG, |c| c.ack_policy = AckPolicy::Every);
    let daass = transfer(20 * SEG, |c| c.ack_policy = AckPolicy::Daass);
    let delayed = transfer(20 * SEG, |c| c.ack_policy = AckPolicy::Delayed);
    assert_eq!(daass.now, every.now, "a short flow never leaves slow start");
    assert_eq!(acks(&daass), acks(&every));
    assert!(delayed.now > every.now, "delayed ACKs slow slow start");
    // With ssthresh at 4 segments, congestion avoidance comes early: fewer ACKs than
    // every segment, more than delayed ACKs throughout.
    let limit = |policy| {
        transfer(60 * SEG, move |c| {
            c.ack_policy = policy;
            c.initial_ssthresh_bytes = Some(4 * MSS);
        })
    };
    let (e, d, x) = (
        limit(AckPolicy::Every),
        limit(AckPolicy::Daass),
        limit(AckPolicy::Delayed),
    );
    assert!(
        acks(&x) < acks(&d) && acks(&d) < acks(&e),
        "{} {} {}",
        acks(&x),
        acks(&d),
        acks(&e)
    );
}

/// RFC 3168 §6.1.1–§6.1.2 at the sender: ECN set up on the SYNs, new data ECT and
/// retransmissions not, one reduction for two ECE in one window, CWR on the next new
/// segment only.
#[test]
fn rfc3168_sender_reduces_once_per_window_and_sets_cwr_once() {
    let mut cfg = config(TcpVariant::Newreno);
    cfg.ecn = true;
    cfg.initial_window = InitialWindow::Segments(10);
    let mut s = Scripted::established(cfg, ms(100));
    assert!(s.conn.ecn_in_use());
    s.write(1_000_000);
    assert!(s.out.segments.iter().all(|o| o.ect), "new data is ECT(0)");
    assert_eq!(s.ack(SEG), new_segs(10, 12));
    assert_eq!(s.cwnd(), 11 * SEG);
    // ECE: ssthresh = FlightSize/2 and cwnd = ssthresh (Reno's response), once.
    assert_eq!(s.ack_ece(2 * SEG), vec![]);
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    assert_eq!((cwnd, ssthresh), (5 * SEG, 5 * SEG));
    s.ack_ece(3 * SEG);
    s.ack_ece(4 * SEG);
    assert_eq!(s.conn.stats().ecn_reductions, 1, "one reduction per window");
    assert_eq!(s.ssthresh(), ssthresh);
    // Up to SND.MAX at the reduction (12 segments) the window has not turned over.
    let mut cwr = Vec::new();
    for k in 5..=13 {
        s.ack(k * SEG);
        cwr.extend(s.out.segments.iter().map(|o| o.segment.header.cwr));
    }
    assert_eq!(cwr.iter().filter(|&&c| c).count(), 1, "CWR once: {cwr:?}");
    assert!(cwr[0], "on the first new segment after the reduction");
    // Past it, a new ECE reduces again.
    s.ack_ece(14 * SEG);
    assert_eq!(s.conn.stats().ecn_reductions, 2);
    // A retransmission is not ECT (RFC 3168 §6.1.5).
    assert_eq!(s.fire().first(), Some(&(14, true)));
    assert!(!s.out.segments[0].ect);
}

/// 4.4BSD caps the backoff factor at 64 (`max_backoff`); RFC 6298 only at `max_rto`. Each
/// backoff is traced with the RTO now in force.
#[test]
fn max_backoff_caps_the_timer_and_each_backoff_is_traced() {
    let rtos = |cap: Option<u32>| {
        let mut cfg = config(TcpVariant::Reno);
        cfg.max_backoff = cap;
        cfg.trace = true;
        let mut s = Scripted::established(cfg, ms(100));
        s.write(1000);
        let mut traced = Vec::new();
        for _ in 0..7 {
            s.fire();
            for ev in &s.out.trace {
                if let TcpTraceEvent::RtoBackoff { rto, srtt, .. } = ev {
                    assert_eq!(*srtt, Some(ms(100)));
                    traced.push(*rto);
                }
            }
        }
        (traced, s.conn.rto())
    };
    let (traced, rto) = rtos(Some(4));
    assert_eq!(rto, SimDuration::from_secs(4), "1 s × 4");
    assert_eq!(
        traced,
        [2, 4, 4, 4, 4, 4, 4].map(SimDuration::from_secs).to_vec()
    );
    let (traced, rto) = rtos(None);
    assert_eq!(rto, SimDuration::from_secs(60), "capped by max_rto only");
    assert_eq!(traced[5], SimDuration::from_secs(60));
}

/// A stream past 2^32 bytes (its 32-bit sequence numbers wrap): a loss after the wrap is
/// repaired exactly like the same loss before it, by one fast retransmit one round trip
/// after the segment was sent.
#[test]
fn a_loss_past_four_gibibytes_is_repaired_like_one_before() {
    const BIG: u32 = 60_000;
    let mut a = config(TcpVariant::Newreno);
    a.mss = BIG;
    a.rwnd_bytes = 30 * BIG;
    a.isn = u32::MAX - 5 * BIG;
    a.initial_window = InitialWindow::Segments(30);
    let mut b = peer(a.clone());
    b.mss = BIG;
    let mut p = Pair::new(a, b);
    p.rate_bps = 100_000_000_000;
    p.delay = ms(1);
    let bytes = (1u64 << 32) + 500 * u64::from(BIG);
    let lost = [20_000u64, 72_000];
    assert!(lost[0] * u64::from(BIG) < 1 << 32 && lost[1] * u64::from(BIG) > 1 << 32);
    let mut count = 0u64;
    p.drop = Box::new(move |side, seg, _| {
        if side != Side::A || seg.segment.payload_len == 0 || seg.is_retransmission {
            return false;
        }
        count += 1;
        lost.contains(&(count - 1))
    });
    p.transfer(bytes, secs(3600));
    assert!(p.a.is_finished() && p.b.is_finished());
    assert_eq!(p.b.stats().bytes_delivered, bytes);
    let stats = p.a.stats();
    assert_eq!(
        (stats.fast_retransmits, stats.timeouts, stats.retransmits),
        (2, 0, 2)
    );
    let repair = |k: u64| {
        let seq = SeqNumber(u32::MAX - 5 * BIG) + 1 + (k * u64::from(BIG)) as u32;
        let times: Vec<SimTime> = p
            .log
            .iter()
            .filter(|(_, s, o)| *s == Side::A && o.segment.header.seq == seq)
            .filter(|(_, _, o)| o.segment.payload_len > 0)
            .map(|(t, _, _)| *t)
            .collect();
        // The sequence number recurs every 2^32 bytes: take the send and the retransmission
        // closest to it.
        let i = times
            .windows(2)
            .position(|w| w[1] - w[0] < secs(1))
            .expect("a retransmission");
        times[i + 1] - times[i]
    };
    assert_eq!(repair(lost[0]), repair(lost[1]));
}

/// Seven segments outstanding under a peer window of seven with cwnd at ten (IW 10), three
/// duplicate ACKs: RFC 5681 (4) halves FlightSize (3.5 segments), BSD halves min(cwnd,
/// window) in whole segments (⌊7/2⌋ = 3), as 4.4BSD's `tcp_input`, FreeBSD and ns-2 do.
#[test]
fn bsd_ssthresh_halves_min_of_cwnd_and_the_peer_window_in_whole_segments() {
    for (rule, ssthresh) in [
        (SsthreshRule::Rfc5681, 3 * SEG + SEG / 2),
        (SsthreshRule::Bsd, 3 * SEG),
    ] {
        let mut cfg = config(TcpVariant::Reno);
        cfg.initial_window = InitialWindow::Segments(10);
        cfg.ssthresh_rule = rule;
        let mut s = Scripted::established(cfg, ms(100));
        s.peer_window = (7 * SEG) as u32;
        s.ack(0);
        assert_eq!(
            s.write(20 * SEG),
            new_segs(0, 7),
            "{rule:?}: the window limits"
        );
        assert_eq!(s.cwnd(), 10 * SEG);
        let sent = s.dupacks(0, 3);
        assert_eq!(sent[2], vec![(0, true)], "{rule:?}: the fast retransmit");
        assert_eq!(s.ssthresh(), ssthresh, "{rule:?}");
    }
}

/// Two timeouts of the same segment: RFC 5681 §3.1 keeps the ssthresh of the first (half
/// of ten segments in flight); BSD sets it again from the one-segment cwnd the first left,
/// so it falls to its floor of two segments (4.4BSD `tcp_timer.c`, FreeBSD's CC_RTO, ns-2's
/// `slowdown` on every timeout).
#[test]
fn bsd_ssthresh_is_set_again_on_a_repeated_timeout() {
    for (rule, after_second) in [
        (SsthreshRule::Rfc5681, 5 * SEG),
        (SsthreshRule::Bsd, 2 * SEG),
    ] {
        let mut cfg = config(TcpVariant::Reno);
        cfg.initial_window = InitialWindow::Segments(10);
        cfg.ssthresh_rule = rule;
        let mut s = Scripted::established(cfg, ms(100));
        assert_eq!(s.write(10 * SEG), new_segs(0, 10));
        assert_eq!(s.fire(), vec![(0, true)]);
        assert_eq!((s.cwnd(), s.ssthresh()), (SEG, 5 * SEG), "{rule:?}: first");
        assert_eq!(s.fire(), vec![(0, true)]);
        assert_eq!(s.conn.stats().timeouts, 2);
        assert_eq!(s.ssthresh(), after_second, "{rule:?}: second");
    }
}
