//! I-TCP's split connection driven directly: the fixed host's SYN, data and the zero
//! window, with the mobile silent (WTCP §4's I-TCP model); and a mobile's request relayed
//! to the fixed host (the request/response application).

use super::*;
use crate::agents::testkit::*;
use crate::packet::SeqNumber;
use crate::units::ByteSize;

fn agent(buffer: u64) -> ItcpAgent {
    let mut spec = ItcpSpec {
        buffer: ByteSize(buffer),
        ..ItcpSpec::default()
    };
    spec.tcp.mss = ByteSize(u64::from(MSS));
    ItcpAgent::new(spec, RngStream::derive(1, "test"))
}

fn from_fh(a: &mut ItcpAgent, now: SimTime, p: Packet) -> AgentOutbox {
    show(&mut |n, i, o| a.handle(n, i, o), now, Side::Wired, p).0
}

/// The fixed host's segment `i` (or a pure ACK when `len` is 0), acknowledging `ack`.
fn fh_segment(i: u32, len: u32, ack: SeqNumber) -> Packet {
    let mut p = data(i);
    let seg = p.tcp_mut().unwrap();
    seg.payload_len = len;
    seg.header.ack = Some(ack);
    p.fix_length();
    p
}

fn to(out: &AgentOutbox, dst: Ipv4Addr) -> Vec<TcpSegment> {
    out.packets
        .iter()
        .filter(|p| p.ip.dst == dst)
        .map(|p| *p.tcp().unwrap())
        .collect()
}

/// Handshake with the fixed host; returns the agent and its ISN + 1 (the fixed host's ACK).
fn established(buffer: u64) -> (ItcpAgent, SeqNumber) {
    let mut a = agent(buffer);
    let out = from_fh(&mut a, ms(0), syn());
    assert_eq!(
        out.verdict,
        Verdict::Consume,
        "the SYN to the mobile is intercepted"
    );
    let synack = to(&out, FH.0);
    assert_eq!(synack.len(), 1);
    assert_eq!(synack[0].header.control, Control::Syn);
    assert_eq!(synack[0].header.ack, Some(SeqNumber(ISS)));
    assert_eq!(
        out.packets
            .iter()
            .find(|p| p.ip.dst == FH.0)
            .unwrap()
            .ip
            .src,
        MH.0
    );
    let syn_to_mobile = to(&out, MH.0);
    assert_eq!(
        syn_to_mobile[0].header.control,
        Control::Syn,
        "its own connection to the mobile"
    );
    assert_eq!(
        out.packets
            .iter()
            .find(|p| p.ip.dst == MH.0)
            .unwrap()
            .ip
            .src,
        FH.0
    );
    let ack = synack[0].header.seq + 1;
    from_fh(&mut a, ms(1), fh_segment(0, 0, ack));
    (a, ack)
}

#[test]
fn itcp_acknowledges_the_fixed_host_before_the_mobile_has_anything() {
    let (mut a, ack) = established(1000);
    let out = from_fh(&mut a, ms(2), fh_segment(0, MSS, ack));
    let acks = to(&out, FH.0);
    assert_eq!(acks.len(), 1);
    assert_eq!(
        acks[0].header.ack,
        Some(SeqNumber(ISS + MSS)),
        "acknowledged at once"
    );
    assert_eq!(acks[0].header.window, 900, "the free relay buffer");
    assert_eq!(a.buffered(&KEY), Some(u64::from(MSS)));
}

#[test]
fn itcp_full_relay_buffer_advertises_a_zero_window() {
    let (mut a, ack) = established(300);
    let mut windows = Vec::new();
    for i in 0..3 {
        let out = from_fh(&mut a, ms(2 + u64::from(i)), fh_segment(i, MSS, ack));
        windows.push(to(&out, FH.0)[0].header.window);
    }
    assert_eq!(windows, vec![200, 100, 0]);
    assert_eq!(a.zero_window_advertisements(), 1);
    // A probe beyond the window is not accepted.
    let out = from_fh(&mut a, ms(10), fh_segment(3, 1, ack));
    let reply = to(&out, FH.0);
    assert_eq!(reply[0].header.ack, Some(SeqNumber(ISS + 3 * MSS)));
    assert_eq!(reply[0].header.window, 0);
}

fn from_mh(a: &mut ItcpAgent, now: SimTime, p: Packet) -> AgentOutbox {
    show(&mut |n, i, o| a.handle(n, i, o), now, Side::Wireless, p).0
}

/// A segment from the mobile with these sequence fields and `len` payload bytes.
fn mh_segment(seq: u32, ack_no: SeqNumber, control: Control, len: u32) -> Packet {
    let mut p = ack(0);
    let seg = p.tcp_mut().unwrap();
    seg.header.seq = SeqNumber(seq);
    seg.header.ack = Some(ack_no);
    seg.header.control = control;
    seg.payload_len = len;
    p.fix_length();
    p
}

#[test]
fn itcp_relays_the_mobiles_request_to_the_fixed_host() {
    let mut a = agent(1000);
    let out = from_fh(&mut a, ms(0), syn());
    let synack = to(&out, FH.0)[0];
    let syn_to_mobile = to(&out, MH.0)[0];
    let wired_next = synack.header.seq + 1;
    from_fh(&mut a, ms(1), fh_segment(0, 0, wired_next));
    // The mobile accepts the base station's connection, then writes a 300-byte request.
    let mh_isn = 5000;
    let mobile_ack = syn_to_mobile.header.seq + 1;
    from_mh(
        &mut a,
        ms(2),
        mh_segment(mh_isn, mobile_ack, Control::Syn, 0),
    );
    let out = from_mh(
        &mut a,
        ms(3),
        mh_segment(mh_isn + 1, mobile_ack, Control::None, 300),
    );
    assert_eq!(out.verdict, Verdict::Consume);
    let to_fh: Vec<TcpSegment> = to(&out, FH.0)
        .into_iter()
        .filter(|s| s.payload_len > 0)
        .collect();
    assert_eq!(
        to_fh[0].header.seq, wired_next,
        "the wired half's next byte"
    );
    // Tahoe's initial window of one segment, then two once the fixed host acknowledges it.
    assert_eq!(to_fh.iter().map(|s| s.payload_len).sum::<u32>(), MSS);
    let to_mobile = to(&out, MH.0);
    assert!(
        to_mobile
            .iter()
            .any(|s| s.header.ack == Some(SeqNumber(mh_isn + 301))),
        "the request is acknowledged to the mobile: {to_mobile:?}"
    );
    let mut fh_ack = fh_segment(0, 0, wired_next + MSS);
    fh_ack.tcp_mut().unwrap().header.seq = SeqNumber(ISS);
    let out = from_fh(&mut a, ms(4), fh_ack);
    let rest: u32 = to(&out, FH.0).iter().map(|s| s.payload_len).sum();
    assert_eq!(
        MSS + rest,
        300,
        "the whole request goes on to the fixed host"
    );
}
