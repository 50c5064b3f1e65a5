//! WTCP-Sinha's rules, driven directly: the receiver's rate decisions from inter-packet
//! delays and its loss-cause prediction (survey §2.5.1), the sender's SACK-driven repair and
//! probes instead of a retransmission timer, and whole transfers over a small two-way pipe
//! (a bottleneck with a drop rule) to check delivery, start-up and blackouts end to end.

use std::collections::BTreeMap;

use super::*;
use crate::engine::{SimDuration, SimTime};
use crate::packet::Transport;
use crate::tcp::Delivery;
use crate::transport::TransportOutbox;

fn ms(t: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs_f64(t / 1e3)
}

fn cfg() -> WtcpSinhaConfig {
    WtcpSinhaConfig::new(500, 64_000)
}

fn data(seq: u32, ts: SimTime) -> WtcpData {
    WtcpData {
        seq,
        len: 500,
        fin: false,
        ack_request: false,
        pair: false,
        ts,
    }
}

/// Feeds the receiver packets `seqs`, the i-th sent at `i × send_gap` and arriving 500 ms
/// later plus `i × extra` of queueing; returns the decision of the ACK that follows.
fn period(r: &mut Receiver, seqs: &[u32], send_gap_ms: f64, extra_ms: f64) -> RateDecision {
    let mut delivered: Vec<Delivery> = Vec::new();
    for &seq in seqs {
        let i = f64::from(seq);
        let sent = ms(i * send_gap_ms);
        let arrived = ms(500.0 + i * (send_gap_ms + extra_ms));
        r.on_data(arrived, &data(seq, sent), sent, &mut delivered);
    }
    assert!(r.ack_due());
    r.make_ack().decision
}

#[test]
fn wtcp_sinha_receiver_asks_for_an_increase_when_arrivals_keep_pace() {
    let mut r = Receiver::new(cfg());
    // Sent every 100 ms, arriving every 100 ms: the path keeps pace with the sender.
    assert_eq!(
        period(&mut r, &[0, 1, 2, 3], 100.0, 0.0),
        RateDecision::Increase
    );
    assert_eq!(r.stats().asked_increase, 1);
}

#[test]
fn wtcp_sinha_receiver_asks_for_a_decrease_when_a_queue_builds() {
    let mut r = Receiver::new(cfg());
    period(&mut r, &[0, 1, 2, 3], 100.0, 0.0);
    // Now they arrive every 150 ms: ratio 1.5, above 1.2.
    assert_eq!(
        period(&mut r, &[4, 5, 6, 7], 100.0, 50.0),
        RateDecision::Decrease
    );
}

#[test]
fn wtcp_sinha_receiver_asks_for_a_rate_decrease_on_congestion_like_loss() {
    let mut r = Receiver::new(cfg());
    period(&mut r, &[0, 1, 2, 3], 100.0, 0.0);
    // Packet 5 is lost while arrivals fall behind the sending (a queue builds): congestion.
    assert_eq!(
        period(&mut r, &[4, 6, 7, 8], 100.0, 50.0),
        RateDecision::Decrease
    );
    assert_eq!(r.stats().congestion_losses, 1);
    assert_eq!(r.stats().predicted_wireless_losses, 0);
}

#[test]
fn wtcp_sinha_receiver_keeps_the_rate_on_a_predicted_wireless_loss() {
    let mut r = Receiver::new(cfg());
    period(&mut r, &[0, 1, 2, 3], 100.0, 0.0);
    // Packet 5 is lost while the arrivals keep pace: no queue, one loss — a wireless error.
    assert_eq!(
        period(&mut r, &[4, 6, 7, 8], 100.0, 0.0),
        RateDecision::Keep
    );
    assert_eq!(r.stats().predicted_wireless_losses, 1);
    assert_eq!(r.stats().congestion_losses, 0);
    assert!(
        r.uncongested_loss_mean() > 0.0,
        "the loss feeds the statistics"
    );
}

#[test]
fn wtcp_sinha_receiver_decreases_when_losses_exceed_the_uncongested_statistics() {
    let mut r = Receiver::new(cfg());
    period(&mut r, &[0, 1, 2, 3], 100.0, 0.0);
    // Three of seven lost in one period, no queue: more than losses seen while
    // uncongested explain (none yet, so one is allowed).
    assert_eq!(
        period(&mut r, &[4, 6, 8, 10], 100.0, 0.0),
        RateDecision::Decrease
    );
    assert_eq!(r.stats().congestion_losses, 3);
}

#[test]
fn wtcp_sinha_statistics_learnt_while_uncongested_allow_more_wireless_losses() {
    let mut r = Receiver::new(WtcpSinhaConfig {
        ack_every: 8,
        ..cfg()
    });
    // Periods of ten packets with one loss each, no queue: wireless errors, learnt.
    let mut next = 0u32;
    for _ in 0..40 {
        let seqs: Vec<u32> = (next..next + 10).filter(|&s| s != next + 5).collect();
        next += 10;
        let _ = period(&mut r, &seqs, 100.0, 0.0);
    }
    let learnt = r.uncongested_loss_mean();
    assert!((learnt - 0.1).abs() < 0.01, "{learnt}");
    // Two losses in a period of twenty is now within mean + 2 deviations: kept.
    let seqs: Vec<u32> = (next..next + 20)
        .filter(|&s| s != next + 4 && s != next + 12)
        .collect();
    assert_eq!(period(&mut r, &seqs, 100.0, 0.0), RateDecision::Keep);
}

#[test]
fn wtcp_sinha_ack_carries_cumulative_and_sack_blocks() {
    let mut r = Receiver::new(cfg());
    let mut d = Vec::new();
    for seq in [0, 1, 3, 4, 7] {
        r.on_data(ms(f64::from(seq)), &data(seq, ms(0.0)), ms(0.0), &mut d);
    }
    let ack = r.make_ack();
    assert_eq!(ack.cumulative, 2);
    assert_eq!(ack.blocks(), &[(3, 5), (7, 8)]);
    assert!(!ack.more_blocks);
    assert_eq!(
        d.iter().map(|x| x.len).sum::<u32>(),
        1000,
        "0 and 1 delivered in order"
    );
    assert_eq!(ack.window, 64_000 - 3 * 500);
}

/// A sender established at t = 0 with an RTT of 1 s, its packet-pair estimate taken.
fn established_sender() -> Sender {
    let mut s = Sender::new(cfg());
    s.start(SimTime::ZERO, SimDuration::from_secs(1), 64_000);
    s.write(5_000, SimTime::ZERO);
    s
}

fn ack(cumulative: u32, blocks: &[(u32, u32)], echo: SimTime, decision: RateDecision) -> WtcpAck {
    let mut sack = [(0, 0); wire::SACK_BLOCKS];
    sack[..blocks.len()].copy_from_slice(blocks);
    WtcpAck {
        cumulative,
        sack,
        sack_count: blocks.len() as u8,
        more_blocks: false,
        window: 64_000,
        decision,
        rate_hint_bps: 0,
        ts_echo: echo,
    }
}

fn send_all_due(s: &mut Sender, until: SimTime) -> Vec<(u32, SimTime)> {
    let mut sent = Vec::new();
    while let Some(t) = s.poll_timeout().filter(|&t| t <= until) {
        if let Some((d, _)) = s.next_packet(t) {
            sent.push((d.seq, t));
        } else {
            break;
        }
    }
    sent
}

#[test]
fn wtcp_sinha_hole_below_a_sacked_packet_is_resent_once_per_evidence() {
    let mut s = established_sender();
    let sent = send_all_due(&mut s, ms(3000.0));
    assert!(sent.len() >= 4, "{sent:?}");
    let ts = |seq: u32| sent.iter().find(|p| p.0 == seq).unwrap().1;
    // Packet 1 lost; the ACK for 3 shows 2..4 and echoes 3's send time.
    s.on_ack(ms(3100.0), &ack(1, &[(2, 4)], ts(3), RateDecision::Keep));
    let t = s.poll_timeout().unwrap();
    let (resent, _) = s.next_packet(t.max(ms(3100.0))).unwrap();
    assert_eq!(resent.seq, 1);
    assert_eq!(s.stats().retransmissions, 1);
    // The same evidence again (an ACK echoing 3) does not resend it a second time.
    s.on_ack(ms(3150.0), &ack(1, &[(2, 4)], ts(3), RateDecision::Keep));
    let next = s.next_packet(ms(10_000.0)).map(|(d, _)| d.seq);
    assert_ne!(next, Some(1));
    assert_eq!(s.stats().retransmissions, 1);
}

#[test]
fn wtcp_sinha_probes_on_a_blackout_instead_of_a_retransmission_timer() {
    let mut s = established_sender();
    let sent = send_all_due(&mut s, ms(2000.0));
    assert!(!sent.is_empty());
    // No ACK comes back (a blackout): past 2·SRTT the sender stops and probes.
    let mut probes = Vec::new();
    let mut now = ms(2000.0);
    while probes.len() < 5 {
        now = s
            .poll_timeout()
            .expect("a probe is always pending")
            .max(now);
        if let Some(ts) = s.on_timer(now) {
            probes.push(ts);
        } else {
            assert!(s.next_packet(now).is_none() || !s.is_probing());
        }
    }
    assert!(s.is_probing());
    assert_eq!(
        s.stats().retransmissions,
        0,
        "nothing is retransmitted on a timer"
    );
    assert_eq!(s.stats().blackouts, 1);
    let gaps: Vec<f64> = probes
        .windows(2)
        .map(|w| w[1].saturating_since(w[0]).as_secs_f64())
        .collect();
    assert!(
        gaps.windows(2).all(|g| g[1] >= g[0]),
        "backing off: {gaps:?}"
    );
    assert!(
        gaps.iter().all(|&g| g <= 4.0 + 1e-9),
        "at most probe_max: {gaps:?}"
    );
    assert!(s.next_packet(now).is_none(), "no data while probing");
    // The blackout ends: the ACK answering the last probe shows what arrived.
    let rate = s.rate_bps();
    let last = *probes.last().unwrap();
    s.on_ack(
        last + SimDuration::from_secs(1),
        &ack(2, &[], last, RateDecision::Keep),
    );
    assert!(!s.is_probing());
    assert_eq!(
        s.rate_bps(),
        rate,
        "a blackout is not congestion: the rate is kept"
    );
    let (d, _) = s.next_packet(last + SimDuration::from_secs(1)).unwrap();
    assert_eq!(d.seq, 2, "the packets lost in the blackout go first");
}

#[test]
fn wtcp_sinha_decrease_applied_at_most_once_per_rtt() {
    let mut s = established_sender();
    let r0 = s.rate_bps();
    s.on_ack(
        ms(100.0),
        &ack(0, &[], SimTime::ZERO, RateDecision::Decrease),
    );
    // (The floor is one packet per RTT; the start rate is that floor, so first raise it.)
    assert!(s.rate_bps() >= r0 * 0.5 - 1e-9);
    let mut t = 200.0;
    for _ in 0..20 {
        s.on_ack(ms(t), &ack(0, &[], SimTime::ZERO, RateDecision::Increase));
        t += 300.0;
    }
    let high = s.rate_bps();
    assert!(high > r0, "increases add one packet per RTT per RTT");
    s.on_ack(ms(t), &ack(0, &[], SimTime::ZERO, RateDecision::Decrease));
    let once = s.rate_bps();
    assert!((once - high * 0.5).abs() < 1e-6 * high);
    s.on_ack(
        ms(t + 100.0),
        &ack(0, &[], SimTime::ZERO, RateDecision::Decrease),
    );
    assert_eq!(
        s.rate_bps(),
        once,
        "a second decrease within an RTT is ignored"
    );
}

// ---- whole transfers over a pipe -----------------------------------------------------

/// A two-way pipe: the a → b direction is a bottleneck of `rate_bps` with a FIFO queue;
/// both directions add `delay`; `drop(i, segment)` drops the i-th a → b packet.
struct Pipe<F: FnMut(u64, &WtcpSegment, SimTime) -> bool> {
    rate_bps: f64,
    delay: SimDuration,
    drop: F,
}

struct Run {
    delivered: u64,
    in_order: bool,
    finished_at: Option<SimTime>,
    a: WtcpSinhaConnection,
}

fn transfer<F: FnMut(u64, &WtcpSegment, SimTime) -> bool>(
    bytes: u64,
    mut pipe: Pipe<F>,
    until: SimTime,
) -> Run {
    let mut a = WtcpSinhaConnection::new(cfg(), 1, 2);
    let mut b = WtcpSinhaConnection::new(cfg(), 2, 1);
    b.listen();
    let mut events: BTreeMap<(SimTime, u64), (bool, WtcpSegment, SimTime)> = BTreeMap::new();
    let mut n = 0u64;
    let mut forward_count = 0u64;
    let mut busy = SimTime::ZERO;
    let mut run = Run {
        delivered: 0,
        in_order: true,
        finished_at: None,
        a: a.clone(),
    };
    let mut out = TransportOutbox::default();
    a.connect(SimTime::ZERO, &mut out);
    a.app_write(SimTime::ZERO, bytes, &mut out);
    a.app_close(SimTime::ZERO, &mut out);
    let mut now = SimTime::ZERO;
    loop {
        // Route what was just sent.
        for packet in out.packets.drain(..) {
            let Transport::WtcpSinha(seg) = packet.transport else {
                unreachable!()
            };
            forward_count += 1;
            let bits = u64::from(seg.datagram_len() + 20) * 8;
            busy = busy.max(now) + SimDuration::transmission(bits, pipe.rate_bps as u64);
            if (pipe.drop)(forward_count, &seg, now) {
                continue;
            }
            n += 1;
            events.insert((busy + pipe.delay, n), (true, seg, packet.origin_time));
        }
        let mut back = TransportOutbox::default();
        // Next event: a packet, or a timer at either end.
        let next_packet = events.keys().next().map(|k| k.0);
        let next = [next_packet, a.poll_timeout(), b.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        let Some(t) = next else { break };
        if t > until {
            break;
        }
        now = t;
        if next_packet == Some(t) {
            let key = *events.keys().next().unwrap();
            let (to_b, seg, origin) = events.remove(&key).unwrap();
            if to_b {
                b.on_segment(now, &seg, origin, &mut back);
            } else {
                a.on_segment(now, &seg, origin, &mut out);
            }
        } else if a.poll_timeout() == Some(t) {
            a.on_timeout(now, &mut out);
        } else {
            b.on_timeout(now, &mut back);
        }
        for d in back.delivered.drain(..) {
            run.in_order &= d.offset == run.delivered;
            run.delivered += u64::from(d.len);
        }
        for p in back.packets.drain(..) {
            let Transport::WtcpSinha(seg) = p.transport else {
                unreachable!()
            };
            n += 1;
            events.insert((now + pipe.delay, n), (false, seg, p.origin_time));
        }
        if a.is_finished() && b.is_finished() && run.finished_at.is_none() {
            run.finished_at = Some(now);
            break;
        }
    }
    run.a = a;
    run
}

#[test]
fn wtcp_sinha_transfer_completes_in_order_at_about_the_bottleneck_rate() {
    // 12 kbit/s with 400 ms each way: a CDPD-like link.
    let pipe = Pipe {
        rate_bps: 12_000.0,
        delay: SimDuration::from_millis(400),
        drop: |_, _: &WtcpSegment, _| false,
    };
    let run = transfer(50_000, pipe, SimTime::ZERO + SimDuration::from_secs(200));
    assert!(run.in_order);
    assert_eq!(run.delivered, 50_000);
    let t = run.finished_at.expect("finished").as_secs_f64();
    // 50 KB of payload in 100 packets of 548 bytes: 36.5 s at 12 kbit/s, plus start-up.
    assert!(t > 36.5 && t < 36.5 * 1.3, "{t} s");
    let st = run.a.stats().sender;
    assert_eq!(st.retransmissions, 0);
    assert_eq!(st.blackouts, 0);
}

#[test]
fn wtcp_sinha_packet_pair_sets_the_rate_near_the_bottleneck() {
    let pipe = Pipe {
        rate_bps: 12_000.0,
        delay: SimDuration::from_millis(400),
        drop: |_, _: &WtcpSegment, _| false,
    };
    // Stop just after the first ACK returned.
    let run = transfer(50_000, pipe, SimTime::ZERO + SimDuration::from_millis(3200));
    let rate = run.a.sender().rate_bps();
    assert!((rate - 12_000.0).abs() < 1_500.0, "{rate}");
}

#[test]
fn wtcp_sinha_random_wireless_losses_are_repaired_without_cutting_the_rate_much() {
    // Every 17th data packet lost on a path that keeps pace: wireless errors.
    let pipe = Pipe {
        rate_bps: 12_000.0,
        delay: SimDuration::from_millis(400),
        drop: |i: u64, seg: &WtcpSegment, _| seg.payload_len() > 0 && i.is_multiple_of(17),
    };
    let run = transfer(50_000, pipe, SimTime::ZERO + SimDuration::from_secs(400));
    assert!(run.in_order);
    assert_eq!(run.delivered, 50_000);
    let t = run.finished_at.expect("finished").as_secs_f64();
    assert!(t < 36.5 * 1.5, "{t} s");
    let st = run.a.stats();
    assert!(st.sender.retransmissions >= 5);
    assert_eq!(
        st.sender.blackouts, 0,
        "SACK repairs every loss: no probe needed"
    );
}

#[test]
fn wtcp_sinha_blackout_ends_with_probes_and_the_transfer_completes() {
    // The forward direction is dead from 10 s to 25 s.
    let pipe = Pipe {
        rate_bps: 12_000.0,
        delay: SimDuration::from_millis(400),
        drop: |_, _: &WtcpSegment, now: SimTime| {
            let s = now.as_secs_f64();
            (10.0..25.0).contains(&s)
        },
    };
    let run = transfer(50_000, pipe, SimTime::ZERO + SimDuration::from_secs(400));
    assert!(run.in_order);
    assert_eq!(run.delivered, 50_000);
    let st = run.a.stats().sender;
    assert!(st.blackouts >= 1);
    assert!(st.probes_sent >= 2);
    let t = run.finished_at.expect("finished").as_secs_f64();
    // 15 s dead, then at most a probe interval (4 s) before resuming.
    assert!(t < 36.5 + 15.0 + 4.0 + 8.0, "{t} s");
}
