//! Two endpoints back to back: the state diagram, a transfer across the sequence-number
//! wrap, and lossy transfers in which every variant still delivers every byte once.

use super::*;
use TcpState::*;

/// Every loss recovery, by its classic name.
const ALL_VARIANTS: [TcpVariant; 5] = [
    TcpVariant::Tahoe,
    TcpVariant::Reno,
    TcpVariant::Newreno,
    TcpVariant::Sack,
    TcpVariant::Fack,
];

fn secs(n: u64) -> SimDuration {
    SimDuration::from_secs(n)
}

fn peer_config(variant: TcpVariant) -> TcpConfig {
    let mut cfg = config(variant);
    cfg.isn = 777_777;
    cfg
}

#[test]
fn rfc9293_handshake_and_teardown_walk_the_state_diagram() {
    let mut p = Pair::new(
        config(TcpVariant::Newreno),
        peer_config(TcpVariant::Newreno),
    );
    p.connect();
    p.run_until(
        |p| p.a.state() == Established && p.b.state() == Established,
        secs(5),
    );
    // The passive side has data to send; the active side closes at once.
    p.write(Side::B, 50_000);
    p.close(Side::A);
    p.run(secs(60));
    assert_eq!(
        p.states_a,
        [Closed, SynSent, Established, FinWait1, FinWait2, TimeWait]
    );
    assert_eq!(
        p.states_b,
        [Listen, SynReceived, Established, CloseWait, LastAck, Closed]
    );
    assert!(p.a.is_finished() && p.b.is_finished());
    Pair::assert_in_order_once(&p.delivered_to_a, 50_000);
    assert!(p.delivered_to_b.is_empty());
    assert_eq!(p.a.stats().bytes_delivered, 50_000);
    assert_eq!(p.a.poll_timeout(), None, "TIME-WAIT holds no timer");
}

#[test]
fn a_close_queued_during_the_handshake_sends_fin_after_the_data() {
    let mut p = Pair::new(config(TcpVariant::Reno), peer_config(TcpVariant::Reno));
    p.transfer(30_000, secs(60));
    assert_eq!(p.states_a, [Closed, SynSent, FinWait1, TimeWait]);
    assert_eq!(
        p.states_b,
        [Listen, SynReceived, Established, LastAck, Closed]
    );
    Pair::assert_in_order_once(&p.delivered_to_b, 30_000);
    // The FIN rode on the last data segment.
    let fins: Vec<_> = p
        .log
        .iter()
        .filter(|(_, side, s)| *side == Side::A && s.segment.header.control == Control::Fin)
        .collect();
    assert_eq!(fins.len(), 1);
    assert_eq!(fins[0].2.segment.payload_len, MSS);
    let stats = p.a.stats();
    assert_eq!(stats.data_segments_sent, 30);
    assert_eq!(stats.payload_bytes_sent, 30_000);
    assert_eq!(stats.retransmits, 0);
}

#[test]
fn a_whole_transfer_across_the_sequence_number_wrap() {
    let mut a = config(TcpVariant::Newreno);
    a.isn = u32::MAX - 1000;
    a.rwnd_bytes = 64_000;
    let mut b = peer_config(TcpVariant::Newreno);
    b.isn = u32::MAX;
    b.rwnd_bytes = 64_000;
    let mut p = Pair::new(a, b);
    p.transfer(1_000_000, secs(60));
    assert!(p.a.is_finished() && p.b.is_finished());
    Pair::assert_in_order_once(&p.delivered_to_b, 1_000_000);
    assert_eq!(p.b.stats().bytes_delivered, 1_000_000);
    let seqs: Vec<u32> = p
        .log
        .iter()
        .filter(|(_, side, s)| *side == Side::A && s.segment.payload_len > 0)
        .map(|(_, _, s)| s.segment.header.seq.0)
        .collect();
    assert!(
        seqs[0] > u32::MAX - 1000 && *seqs.last().unwrap() < 1_000_000,
        "wrapped"
    );
}

/// Drops A's first SYN, B's first SYN-ACK, the first copies of data segments 5, 6, 20,
/// 40..=43, 120 and of the last segment (which carries the FIN), two copies of segment 30
/// (so a retransmission is lost too), and every 13th pure ACK from B.
fn lossy_transfer(variant: TcpVariant, ack_policy: AckPolicy, timestamps: bool) -> Pair {
    const SEGMENTS: u64 = 200;
    let setup = |mut cfg: TcpConfig| {
        cfg.ack_policy = ack_policy;
        cfg.timestamps = timestamps;
        cfg.rwnd_bytes = 64_000;
        cfg.initial_window = InitialWindow::Segments(2);
        cfg
    };
    let mut p = Pair::new(setup(config(variant)), setup(peer_config(variant)));
    let first_byte = SeqNumber(ISN) + 1;
    let mut pure_acks = 0u32;
    p.drop = Box::new(move |side, seg, times| {
        let h = seg.segment.header;
        match side {
            _ if h.control == Control::Syn => times == 0,
            Side::A if seg.segment.seq_len() > 0 => match (h.seq - first_byte) / MSS {
                5 | 6 | 20 | 40..=43 | 120 | 199 => times == 0,
                30 => times <= 1,
                _ => false,
            },
            Side::B if seg.segment.is_pure_ack() => {
                pure_acks += 1;
                pure_acks.is_multiple_of(13)
            }
            _ => false,
        }
    });
    p.transfer(SEGMENTS * u64::from(MSS), secs(600));
    let label = format!("{variant:?} {ack_policy:?} timestamps={timestamps}");
    assert!(
        p.a.is_finished() && p.b.is_finished(),
        "{label}: not finished"
    );
    Pair::assert_in_order_once(&p.delivered_to_b, SEGMENTS * u64::from(MSS));
    assert!(p.a.stats().retransmits >= 10, "{label}: {:?}", p.a.stats());
    assert_eq!(p.b.stats().bytes_delivered, SEGMENTS * u64::from(MSS));
    p
}

#[test]
fn lossy_transfers_deliver_everything_once_in_order_for_every_variant() {
    for variant in ALL_VARIANTS {
        for policy in [AckPolicy::Every, AckPolicy::Delayed] {
            for timestamps in [false, true] {
                lossy_transfer(variant, policy, timestamps);
            }
        }
    }
}

#[test]
fn newreno_repairs_a_burst_without_a_timeout_where_reno_needs_one() {
    let burst = |variant| {
        let mut cfg = config(variant);
        cfg.rwnd_bytes = 64_000;
        cfg.initial_window = InitialWindow::Segments(10);
        let mut p = Pair::new(cfg.clone(), peer_config(variant));
        let first_byte = SeqNumber(ISN) + 1;
        p.drop = Box::new(move |side, seg, times| {
            let h = seg.segment.header;
            side == Side::A
                && seg.segment.payload_len > 0
                && matches!((h.seq - first_byte) / MSS, 30 | 33 | 36)
                && times == 0
        });
        p.transfer(100_000, secs(600));
        Pair::assert_in_order_once(&p.delivered_to_b, 100_000);
        p.a.stats().clone()
    };
    let newreno = burst(TcpVariant::Newreno);
    assert_eq!((newreno.fast_retransmits, newreno.timeouts), (1, 0));
    assert_eq!(newreno.retransmits, 3);
    let reno = burst(TcpVariant::Reno);
    assert_eq!(reno.fast_retransmits, 1);
    assert!(reno.timeouts >= 1, "{reno:?}");
}

#[test]
fn delivery_origin_times_are_first_transmission_times() {
    let mut p = Pair::new(
        config(TcpVariant::Newreno),
        peer_config(TcpVariant::Newreno),
    );
    let first_byte = SeqNumber(ISN) + 1;
    p.drop = Box::new(move |side, seg, times| {
        side == Side::A
            && seg.segment.payload_len > 0
            && (seg.segment.header.seq - first_byte) / MSS == 8
            && times == 0
    });
    p.transfer(40_000, secs(60));
    let first_sent = p
        .log
        .iter()
        .find(|(_, side, s)| {
            *side == Side::A
                && s.segment.payload_len > 0
                && s.segment.header.seq == first_byte + 8 * MSS
        })
        .map(|(t, _, _)| *t)
        .unwrap();
    let d = p.delivered_to_b.iter().find(|d| d.offset == 8000).unwrap();
    assert_eq!(d.origin_time, first_sent);
}

/// `cargo test --release -p lastmile-core ten_megabytes -- --ignored --nocapture`
#[test]
#[ignore = "timing; run in release"]
fn ten_megabytes_back_to_back_timing() {
    let setup = |mut cfg: TcpConfig| {
        cfg.mss = 1400;
        cfg.rwnd_bytes = 65_536;
        cfg
    };
    let mut p = Pair::new(
        setup(config(TcpVariant::Reno)),
        setup(peer_config(TcpVariant::Reno)),
    );
    p.rate_bps = 2_000_000;
    let mut dropped = 0u32;
    p.drop = Box::new(move |side, seg, _| {
        dropped += 1;
        side == Side::A && seg.segment.payload_len > 0 && dropped.is_multiple_of(97)
    });
    let wall = std::time::Instant::now();
    p.transfer(10_000_000, SimDuration::from_secs(3600));
    let elapsed = wall.elapsed();
    Pair::assert_in_order_once(&p.delivered_to_b, 10_000_000);
    println!(
        "10 MB: {} segments, {:?} simulated, {:?} wall, {:?}",
        p.log.len(),
        p.now,
        elapsed,
        p.a.stats()
    );
}

/// A deterministic xorshift stream for loss patterns.
fn coin(seed: u64) -> impl FnMut(u64) -> bool {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move |per_mille| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % 1000 < per_mille
    }
}

#[test]
fn random_losses_both_ways_never_break_exactly_once_in_order_delivery() {
    const BYTES: u64 = 60_000;
    for variant in ALL_VARIANTS {
        for (policy, timestamps, tick_ms) in [
            (AckPolicy::Every, false, 1),
            (AckPolicy::Delayed, true, 1),
            (AckPolicy::Delayed, false, 500),
            (AckPolicy::Every, true, 500),
        ] {
            for seed in 1..=6 {
                let setup = |mut cfg: TcpConfig| {
                    cfg.ack_policy = policy;
                    cfg.timestamps = timestamps;
                    cfg.timer_granularity = ms(tick_ms);
                    cfg.rwnd_bytes = 16_000;
                    cfg.initial_window = InitialWindow::Segments(2);
                    cfg
                };
                let mut p = Pair::new(setup(config(variant)), setup(peer_config(variant)));
                let mut lose = coin(seed);
                p.drop = Box::new(move |_, _, _| lose(50));
                p.transfer(BYTES, secs(3600));
                let label =
                    format!("{variant:?} {policy:?} ts={timestamps} G={tick_ms}ms seed {seed}");
                assert!(
                    p.a.is_finished() && p.b.is_finished(),
                    "{label}: {:?} {:?}",
                    p.a.state(),
                    p.b.state()
                );
                Pair::assert_in_order_once(&p.delivered_to_b, BYTES);
            }
        }
    }
}
