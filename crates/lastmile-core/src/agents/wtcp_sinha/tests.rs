//! The WTCP-Sinha proxy driven directly: the fixed host's SYN is accepted in the mobile's
//! name and a WTCP-Sinha connection opened to the mobile; the fixed host's bytes are relayed
//! as paced WTCP-Sinha packets (the first two as the packet pair) and its window shrinks by
//! what the mobile has not acknowledged.

use super::*;
use crate::agents::testkit::*;
use crate::packet::{Ipv4Addr, SeqNumber, TcpSegment};
use crate::transport::wtcp_sinha::{WtcpBody, WtcpData};
use crate::units::ByteSize;

fn proxy() -> WtcpSinhaAgent {
    let mut spec = WtcpSinhaProxySpec::default();
    spec.tcp.mss = ByteSize(u64::from(MSS));
    WtcpSinhaAgent::new(spec, RngStream::derive(1, "test"))
}

fn show_to(a: &mut WtcpSinhaAgent, now: SimTime, side: Side, p: Packet) -> AgentOutbox {
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

fn wtcp_to_mobile(out: &AgentOutbox) -> Vec<WtcpBody> {
    out.packets
        .iter()
        .filter(|p| p.ip.dst == MH.0 && p.ip.src == FH.0)
        .filter_map(|p| match p.transport {
            Transport::WtcpSinha(s) => Some(s.body),
            _ => None,
        })
        .collect()
}

fn from_mobile(body: WtcpBody) -> Packet {
    let seg = WtcpSegment {
        src_port: MH.1,
        dst_port: FH.1,
        body,
    };
    crate::transport::build_packet(
        MH.0,
        FH.0,
        crate::transport::OutPacket::new(Transport::WtcpSinha(seg), SimTime::ZERO, false),
        FlowId(0),
    )
}

#[test]
fn wtcp_sinha_proxy_splits_the_connection_and_relays_paced_packets_to_the_mobile() {
    let mut p = proxy();
    let out = show_to(&mut p, ms(0), Side::Wired, syn());
    assert_eq!(out.verdict, Verdict::Consume);
    let synack = tcp_to(&out, FH.0);
    assert_eq!(synack[0].header.control, Control::Syn);
    let to_mobile = wtcp_to_mobile(&out);
    assert!(
        matches!(to_mobile[..], [WtcpBody::Syn { .. }]),
        "{to_mobile:?}"
    );
    let WtcpBody::Syn { ts } = to_mobile[0] else {
        unreachable!()
    };
    // The mobile accepts after 1 s; the proxy completes its handshake.
    let out = show_to(
        &mut p,
        ms(1000),
        Side::Wireless,
        from_mobile(WtcpBody::SynAck {
            ts: ms(500),
            ts_echo: ts,
        }),
    );
    assert!(matches!(wtcp_to_mobile(&out)[..], [WtcpBody::Ack(_)]));
    // The fixed host's bytes: the first two packets go back to back as the pair.
    let ack = synack[0].header.seq + 1;
    show_to(&mut p, ms(1001), Side::Wired, fh_segment(0, 0, ack));
    let mut relayed: Vec<WtcpData> = Vec::new();
    for i in 0..4 {
        let out = show_to(&mut p, ms(1010), Side::Wired, fh_segment(i, 100, ack));
        relayed.extend(wtcp_to_mobile(&out).into_iter().filter_map(|b| match b {
            WtcpBody::Data(d) => Some(d),
            _ => None,
        }));
    }
    assert_eq!(relayed.len(), 2, "the pair, then the pace: {relayed:?}");
    assert!(relayed.iter().all(|d| d.pair && d.len == 100));
    assert_eq!(relayed[1].seq, 1);
    // The rest waits for its pacing time (one packet per handshake RTT at first).
    let next = p.poll_timeout().expect("paced");
    assert!(next > ms(1010) && next <= ms(2100), "{next:?}");
    assert_eq!(p.summary(ms(1100)).kind, "wtcp_sinha");
    assert_eq!(p.summary(ms(1100)).occupancy_max_bytes, 400);
}

#[test]
fn wtcp_sinha_proxy_forwards_what_it_does_not_split() {
    let mut p = proxy();
    let out = show_to(&mut p, ms(0), Side::Wired, data(0));
    assert_eq!(out.verdict, Verdict::Forward);
    let out = show_to(&mut p, ms(0), Side::Wireless, ack(1));
    assert_eq!(out.verdict, Verdict::Forward);
}
