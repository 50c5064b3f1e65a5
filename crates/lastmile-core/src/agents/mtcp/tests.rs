//! M-TCP's supervisor host driven with scripted segments (Brown & Singh via the survey §2.2
//! and the mechanism notes §1: hold back the last byte, choke with a zero window, reopen).

use super::*;
use crate::agents::testkit::*;
use crate::agents::AgentOutbox;

fn sh() -> MtcpAgent {
    let mut a = MtcpAgent::new(MtcpSpec::default());
    let (out, _) = show(&mut |n, i, o| a.handle(n, i, o), ms(0), Side::Wired, syn());
    assert_eq!(out.verdict, Verdict::Forward);
    a
}

fn from_mh(a: &mut MtcpAgent, p: Packet) -> (AgentOutbox, Packet) {
    show(&mut |n, i, o| a.handle(n, i, o), ms(1), Side::Wireless, p)
}

fn from_fh(a: &mut MtcpAgent, p: Packet) -> (AgentOutbox, Packet) {
    show(&mut |n, i, o| a.handle(n, i, o), ms(1), Side::Wired, p)
}

fn notice(a: &mut MtcpAgent, n: MobilityNotice) -> AgentOutbox {
    let mut out = AgentOutbox::default();
    a.handle(ms(2), AgentInput::Mobility(n), &mut out);
    out
}

fn ack_and_window(p: &Packet) -> (u32, u32) {
    let h = p.tcp().expect("tcp").header;
    (h.ack.expect("ack").0, h.window)
}

#[test]
fn mtcp_holds_back_the_last_byte_of_every_ack_from_the_mobile() {
    let mut a = sh();
    for i in 0..4 {
        assert_eq!(from_fh(&mut a, data(i)).0.verdict, Verdict::Forward);
    }
    let (out, p) = from_mh(&mut a, ack(3));
    assert_eq!(out.verdict, Verdict::Forward);
    assert_eq!(ack_and_window(&p), (ISS + 3 * MSS - 1, 64_000));
    // A duplicate from the mobile stays a duplicate for the fixed host.
    let (_, p) = from_mh(&mut a, ack(3));
    assert_eq!(ack_and_window(&p).0, ISS + 3 * MSS - 1);
    assert_eq!(a.counters().acks_held_back, 2);
}

#[test]
fn mtcp_on_handoff_acks_the_held_byte_with_a_zero_window_and_answers_probes() {
    let mut a = sh();
    for i in 0..4 {
        from_fh(&mut a, data(i));
    }
    from_mh(&mut a, ack(2));
    let out = notice(&mut a, MobilityNotice::HandoffStarted { mobile: MH.0 });
    assert_eq!(out.packets.len(), 1);
    assert_eq!(
        ack_and_window(&out.packets[0]),
        (ISS + 2 * MSS, 0),
        "the held byte, window 0"
    );
    assert_eq!(out.packets[0].ip.src, MH.0, "in the mobile's name");
    assert!(a.is_choked(&KEY));
    // The fixed host's persist probe is answered, not forwarded.
    let (out, _) = from_fh(&mut a, data(2));
    assert_eq!(out.verdict, Verdict::Drop);
    assert_eq!(ack_and_window(&out.packets[0]), (ISS + 2 * MSS, 0));
    // Another mobile's handoff changes nothing here.
    let other = crate::packet::Ipv4Addr(0x0A00_0009);
    assert!(
        notice(&mut a, MobilityNotice::HandoffStarted { mobile: other })
            .packets
            .is_empty()
    );
    // Back in reach: one ACK for the same number reopens the mobile's window.
    let out = notice(&mut a, MobilityNotice::RouteUpdated { mobile: MH.0 });
    assert_eq!(out.packets.len(), 1);
    assert_eq!(ack_and_window(&out.packets[0]), (ISS + 2 * MSS, 64_000));
    assert!(!a.is_choked(&KEY));
    // Later ACKs hold back a byte again, but never go below what the fixed host was told.
    let (_, p) = from_mh(&mut a, ack(2));
    assert_eq!(ack_and_window(&p).0, ISS + 2 * MSS);
    let (_, p) = from_mh(&mut a, ack(4));
    assert_eq!(ack_and_window(&p).0, ISS + 4 * MSS - 1);
    assert_eq!((a.counters().chokes, a.counters().reopens), (1, 1));
}

#[test]
fn mtcp_lets_the_ack_of_the_fin_through_whole() {
    let mut a = sh();
    let mut fin = data(0);
    fin.tcp_mut().expect("tcp").header.control = Control::Fin;
    from_fh(&mut a, fin);
    let (_, p) = from_mh(&mut a, ack(1));
    assert_eq!(ack_and_window(&p).0, ISS + MSS - 1, "the data byte is held");
    let mut fin_ack = ack(1);
    fin_ack.tcp_mut().expect("tcp").header.ack = Some(SeqNumber(ISS + MSS + 1));
    let (_, p) = from_mh(&mut a, fin_ack);
    assert_eq!(ack_and_window(&p).0, ISS + MSS + 1);
}
