//! ELN at the receiver driven with scripted corrupted frames and ACKs (Pentikousis
//! §2.4.4.4).

use super::*;
use crate::agents::testkit::*;

fn local(a: &mut ElnAgent, dir: LocalDir, mut p: Packet) -> Packet {
    let mut out = AgentOutbox::default();
    a.handle(
        ms(0),
        AgentInput::Local {
            dir,
            packet: &mut p,
        },
        &mut out,
    );
    assert_eq!(out.verdict, crate::agents::Verdict::Forward);
    assert!(out.packets.is_empty());
    p
}

fn marked(p: &Packet) -> bool {
    p.tcp().expect("tcp").header.options.notice == ExplicitNotice::LossNotification
}

#[test]
fn eln_marks_the_acks_asking_for_a_segment_corrupted_on_the_air() {
    let mut a = ElnAgent::new(ElnSpec::default());
    assert!(!marked(&local(&mut a, LocalDir::Sent, ack(1))));
    // Segment 1's frame arrives corrupted, headers readable; 2 and 3 arrive intact.
    local(&mut a, LocalDir::Corrupted, data(1));
    assert!(
        marked(&local(&mut a, LocalDir::Sent, ack(1))),
        "dupack for 1"
    );
    assert!(
        marked(&local(&mut a, LocalDir::Sent, ack(1))),
        "and the next"
    );
    // The retransmission arrives: the ACK moves on, unmarked, and 1 is forgotten.
    assert!(!marked(&local(&mut a, LocalDir::Sent, ack(4))));
    assert!(!marked(&local(&mut a, LocalDir::Sent, ack(4))));
    assert_eq!(
        a.counters(),
        ElnCounters {
            corrupted: 1,
            marked: 2
        }
    );
}

#[test]
fn eln_leaves_the_acks_of_a_loss_it_did_not_see_unmarked() {
    let mut a = ElnAgent::new(ElnSpec::default());
    local(&mut a, LocalDir::Sent, ack(1));
    // Segment 1 was dropped in a queue (never reached the radio); segment 3 was corrupted.
    local(&mut a, LocalDir::Corrupted, data(3));
    assert!(
        !marked(&local(&mut a, LocalDir::Sent, ack(1))),
        "congestion: unmarked"
    );
    // The retransmission of 1 arrives: the new ACK asks for 3, which the radio saw
    // corrupted, so it is marked like the duplicates that follow (the sender acts on
    // marked duplicates only).
    assert!(marked(&local(&mut a, LocalDir::Sent, ack(3))));
    assert!(marked(&local(&mut a, LocalDir::Sent, ack(3))));
}

#[test]
fn eln_delivered_data_and_transit_packets_change_nothing() {
    let mut a = ElnAgent::new(ElnSpec::default());
    let d = local(&mut a, LocalDir::Delivered, data(1));
    assert_eq!(d, data(1));
    let (out, p) = show(
        &mut |n, i, o| a.handle(n, i, o),
        ms(0),
        Side::Wireless,
        ack(1),
    );
    assert!(!marked(&p) && out.packets.is_empty());
    assert_eq!(a.poll_timeout(), None);
    assert_eq!(a.counters(), ElnCounters::default());
}
