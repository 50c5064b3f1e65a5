//! The WAP gateway driven directly: the origin server's SYN is accepted in the mobile's
//! name, each Invoke becomes a request on the TCP connection, the object's bytes become the
//! WTP Result once all are in; a TCP flow's packets from the mobile pass untouched.

use super::*;
use crate::agents::testkit::*;
use crate::packet::{Ipv4Addr, SeqNumber, TcpSegment, WtpPdu};
use crate::transport::wtp::{TransactionClass, WtpPduKind};
use crate::units::ByteSize;

fn gateway() -> WapAgent {
    let spec = WapSpec {
        buffer: ByteSize(64_000),
        ..WapSpec::default()
    };
    WapAgent::new(spec, RngStream::derive(1, "test"))
}

fn show_to(a: &mut WapAgent, now: SimTime, side: Side, p: Packet) -> AgentOutbox {
    show(&mut |n, i, o| a.handle(n, i, o), now, side, p).0
}

fn fh_segment(i: u32, len: u32, ack: SeqNumber) -> Packet {
    let mut p = data(i);
    let seg = p.tcp_mut().unwrap();
    seg.payload_len = len;
    seg.header.ack = Some(ack);
    p.fix_length();
    p
}

fn tcp_to(out: &AgentOutbox, dst: Ipv4Addr) -> Vec<TcpSegment> {
    out.packets
        .iter()
        .filter(|p| p.ip.dst == dst)
        .filter_map(|p| p.tcp().copied())
        .collect()
}

fn wtp_to_mobile(out: &AgentOutbox) -> Vec<WtpPdu> {
    out.packets
        .iter()
        .filter(|p| p.ip.dst == MH.0 && p.ip.src == FH.0)
        .filter_map(|p| match p.transport {
            Transport::Wtp(pdu) => Some(pdu),
            _ => None,
        })
        .collect()
}

/// The mobile's Invoke (TID `tid`) for an object of `reply` bytes.
fn invoke(tid: u16, request: u32, reply: u32) -> Packet {
    let pdu = WtpPdu {
        src_port: MH.1,
        dst_port: FH.1,
        tid,
        from_responder: false,
        rid: false,
        kind: WtpPduKind::Invoke {
            class: TransactionClass::Class2,
            user_ack: false,
            request_bytes: request,
            reply_bytes: reply,
        },
    };
    crate::transport::build_packet(
        MH.0,
        FH.0,
        crate::transport::OutPacket::new(Transport::Wtp(pdu), SimTime::ZERO, true),
        FlowId(0),
    )
}

#[test]
fn wap_gateway_fetches_each_invoked_object_over_tcp_and_returns_it_as_the_result() {
    let mut g = gateway();
    // The origin server's SYN is accepted in the mobile's name.
    let out = show_to(&mut g, ms(0), Side::Wired, syn());
    assert_eq!(out.verdict, Verdict::Consume);
    let synack = tcp_to(&out, FH.0);
    assert_eq!(synack[0].header.control, Control::Syn);
    let ack = synack[0].header.seq + 1;
    show_to(&mut g, ms(1), Side::Wired, fh_segment(0, 0, ack));
    // The mobile invokes: the request (250 bytes) goes to the server.
    let out = show_to(&mut g, ms(500), Side::Wireless, invoke(0, 250, 300));
    assert_eq!(out.verdict, Verdict::Consume);
    let request = tcp_to(&out, FH.0);
    assert_eq!(request.iter().map(|s| s.payload_len).sum::<u32>(), 250);
    assert!(
        wtp_to_mobile(&out).is_empty(),
        "no result before the object"
    );
    assert_eq!(g.pending_requests(&KEY), Some(1));
    // The object comes back in three segments of 100: the Result follows the last.
    let ack = ack + 250;
    let out = show_to(&mut g, ms(520), Side::Wired, fh_segment(0, 100, ack));
    assert!(wtp_to_mobile(&out).is_empty());
    show_to(&mut g, ms(521), Side::Wired, fh_segment(1, 100, ack));
    let out = show_to(&mut g, ms(522), Side::Wired, fh_segment(2, 100, ack));
    let result = wtp_to_mobile(&out);
    assert_eq!(result.len(), 1);
    assert_eq!(result[0].tid, 0);
    assert!(result[0].from_responder);
    assert!(matches!(
        result[0].kind,
        WtpPduKind::Result {
            psn: 0,
            ttr: true,
            bytes: 300,
            ..
        }
    ));
    assert_eq!(g.pending_requests(&KEY), Some(0));
    // Until the mobile acknowledges, R (7 s) will resend it.
    assert_eq!(g.poll_timeout().map(|t| t >= ms(7000)), Some(true));
    let mut out = AgentOutbox::default();
    g.handle(ms(7522), AgentInput::Timer, &mut out);
    assert_eq!(wtp_to_mobile(&out).len(), 1);
    assert_eq!(g.summary(ms(8000)).local_retransmissions, 1);
}

#[test]
fn wap_gateway_forwards_tcp_packets_of_connections_it_does_not_hold() {
    let mut g = gateway();
    let out = show_to(&mut g, ms(0), Side::Wireless, ack(3));
    assert_eq!(out.verdict, Verdict::Forward);
    let out = show_to(&mut g, ms(0), Side::Wired, data(0));
    assert_eq!(out.verdict, Verdict::Forward, "not a SYN: not ours");
}
