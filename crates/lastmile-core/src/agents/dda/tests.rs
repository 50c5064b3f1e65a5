//! The receiving side of DDA driven with scripted ACKs from the mobile's TCP
//! (Pentikousis §2.1.2.2; mechanism-notes §6, DDA-R1..R4).

use super::*;
use crate::agents::testkit::*;
use crate::units::Duration;

fn agent(d_ms: u64) -> DdaAgent {
    DdaAgent::new(DdaSpec {
        d: Duration::from_millis(d_ms),
    })
}

/// The mobile's TCP sends `p`: what the agent decides, and what it sends.
fn sent(a: &mut DdaAgent, now: SimTime, mut p: Packet) -> AgentOutbox {
    let mut out = AgentOutbox::default();
    a.handle(
        now,
        AgentInput::Local {
            dir: LocalDir::Sent,
            packet: &mut p,
        },
        &mut out,
    );
    out
}

fn fire(a: &mut DdaAgent) -> (SimTime, AgentOutbox) {
    let at = a.poll_timeout().expect("a timer is armed");
    let mut out = AgentOutbox::default();
    a.handle(at, AgentInput::Timer, &mut out);
    (at, out)
}

/// ACK numbers (as segment numbers) of the packets an outbox sends.
fn acks(out: &AgentOutbox) -> Vec<u32> {
    out.packets
        .iter()
        .map(|p| (p.tcp().expect("tcp").header.ack.expect("ack").0 - ISS) / MSS)
        .collect()
}

#[test]
fn dda_first_and_second_duplicates_go_at_once_and_the_third_is_held() {
    let mut a = agent(50);
    assert_eq!(sent(&mut a, ms(0), ack(1)).verdict, Verdict::Forward);
    // Segment 1 lost on the air; segments 2, 3, 4 arrive past it (the link layer does not
    // deliver in order), each bringing a duplicate ACK.
    assert_eq!(sent(&mut a, ms(1), ack(1)).verdict, Verdict::Forward);
    assert_eq!(sent(&mut a, ms(2), ack(1)).verdict, Verdict::Forward);
    assert_eq!(sent(&mut a, ms(3), ack(1)).verdict, Verdict::Consume);
    assert_eq!(sent(&mut a, ms(4), ack(1)).verdict, Verdict::Consume);
    assert_eq!(a.held(&KEY), 2);
    assert_eq!(a.poll_timeout(), Some(ms(53)), "d from the first one held");
    assert_eq!(a.check(), Ok(()));
}

#[test]
fn dda_delayed_duplicate_ack_released_exactly_at_d() {
    let mut a = agent(50);
    sent(&mut a, ms(0), ack(1));
    for t in 1..=5 {
        sent(&mut a, ms(t), ack(1));
    }
    // The 3rd duplicate (at 3 ms) started the timer: the held ones leave at 3 + 50 ms.
    let (at, out) = fire(&mut a);
    assert_eq!(at, ms(53));
    assert_eq!(
        acks(&out),
        vec![1, 1, 1],
        "the 3rd, 4th and 5th duplicates, back to back"
    );
    assert_eq!(a.counters().released, 3);
    assert_eq!(a.counters().expiries, 1);
    // After the release the sender is recovering: later duplicates go at once.
    assert_eq!(sent(&mut a, ms(60), ack(1)).verdict, Verdict::Forward);
    assert_eq!(a.poll_timeout(), None);
    assert_eq!(a.summary(ms(100)).timer_expiries, 1);
}

#[test]
fn dda_delayed_duplicate_ack_dropped_when_the_hole_is_filled() {
    let mut a = agent(50);
    sent(&mut a, ms(0), ack(1));
    for t in 1..=5 {
        sent(&mut a, ms(t), ack(1));
    }
    assert_eq!(a.held(&KEY), 3);
    // The link layer's retransmission of segment 1 arrives before d: the cumulative ACK
    // jumps past segments 2..5, and the held duplicates are never sent.
    let out = sent(&mut a, ms(20), ack(6));
    assert_eq!(out.verdict, Verdict::Forward);
    assert!(out.packets.is_empty());
    assert_eq!(a.held(&KEY), 0);
    assert_eq!(a.poll_timeout(), None, "the timer is gone with them");
    assert_eq!(a.counters().dropped, 3);
    assert_eq!(a.summary(ms(100)).suppressed_dupacks, 3);
    // A new hole starts counting afresh.
    for t in 21..=22 {
        assert_eq!(sent(&mut a, ms(t), ack(6)).verdict, Verdict::Forward);
    }
    assert_eq!(sent(&mut a, ms(23), ack(6)).verdict, Verdict::Consume);
}

#[test]
fn dda_holds_the_mobiles_duplicates_in_transit_at_the_base_station() {
    let mut a = agent(50);
    let on_bs =
        |a: &mut DdaAgent, t, p| show(&mut |n, i, o| a.handle(n, i, o), ms(t), Side::Wireless, p).0;
    on_bs(&mut a, 0, ack(1));
    on_bs(&mut a, 1, ack(1));
    on_bs(&mut a, 2, ack(1));
    assert_eq!(on_bs(&mut a, 3, ack(1)).verdict, Verdict::Consume);
    // Data from the fixed host is not the agent's business.
    assert_eq!(on_bs(&mut a, 4, data(5)).verdict, Verdict::Forward);
    assert_eq!(fire(&mut a).0, ms(53));
}

#[test]
fn dda_with_zero_d_holds_nothing() {
    let mut a = agent(0);
    sent(&mut a, ms(0), ack(1));
    for t in 1..=6 {
        assert_eq!(sent(&mut a, ms(t), ack(1)).verdict, Verdict::Forward);
    }
    assert_eq!(a.poll_timeout(), None);
}
