//! Scripted packets for the agents' unit tests: a fixed host 10.0.0.1:49152 sending to a
//! mobile 10.0.0.3:5001 through the base station, as the chain preset numbers them.

use super::{AgentInput, AgentOutbox, ConnKey, Side};
use crate::engine::{SimDuration, SimTime};
use crate::ids::FlowId;
use crate::packet::{
    Control, Ipv4Addr, Ipv4Header, Packet, PacketId, SeqNumber, Service, TcpHeader, TcpOptions,
    TcpSegment, Transport, DEFAULT_TTL, PROTO_TCP,
};

pub const FH: (Ipv4Addr, u16) = (Ipv4Addr(0x0A00_0001), 49152);
pub const MH: (Ipv4Addr, u16) = (Ipv4Addr(0x0A00_0003), 5001);
pub const KEY: ConnKey = ConnKey { fh: FH, mh: MH };
/// The first data byte's sequence number.
pub const ISS: u32 = 1000;
pub const MSS: u32 = 100;

pub fn ms(t: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(t)
}

fn packet(from: (Ipv4Addr, u16), to: (Ipv4Addr, u16), header: TcpHeader, len: u32) -> Packet {
    let mut p = Packet {
        id: PacketId(0),
        origin_time: SimTime::ZERO,
        ip: Ipv4Header {
            src: from.0,
            dst: to.0,
            protocol: PROTO_TCP,
            ttl: DEFAULT_TTL,
            total_len: 0,
            ident: 0,
            ecn: crate::packet::Ecn::NotEct,
        },
        transport: Transport::Tcp(TcpSegment {
            header,
            payload_len: len,
        }),
        flow: FlowId(0),
        service: if len > 0 {
            Service::Reliable
        } else {
            Service::Unreliable
        },
    };
    p.fix_length();
    p
}

fn header(from: u16, to: u16, seq: u32, ack: Option<u32>, control: Control) -> TcpHeader {
    TcpHeader {
        src_port: from,
        dst_port: to,
        seq: SeqNumber(seq),
        ack: ack.map(SeqNumber),
        control,
        window: 64_000,
        options: TcpOptions::default(),
        ece: false,
        cwr: false,
        sender_in_slow_start: false,
    }
}

/// Data segment number `i` (0-based) of `MSS` bytes from the fixed host.
pub fn data(i: u32) -> Packet {
    packet(
        FH,
        MH,
        header(FH.1, MH.1, ISS + i * MSS, Some(1), Control::None),
        MSS,
    )
}

/// Data segment `i` carrying the timestamp `tsval`.
pub fn data_ts(i: u32, tsval: u32) -> Packet {
    let mut p = data(i);
    p.tcp_mut().expect("tcp").header.options.timestamp = Some((tsval, 0));
    p.fix_length();
    p
}

/// The fixed host's SYN.
pub fn syn() -> Packet {
    packet(FH, MH, header(FH.1, MH.1, ISS - 1, None, Control::Syn), 0)
}

/// The mobile's cumulative ACK for segments 0..i (i.e. the next expected is segment `i`).
pub fn ack(i: u32) -> Packet {
    packet(
        MH,
        FH,
        header(MH.1, FH.1, 1, Some(ISS + i * MSS), Control::None),
        0,
    )
}

/// Shows `p` to `handle` from `side`; returns the outbox and the packet as rewritten.
pub fn show(
    handle: &mut impl FnMut(SimTime, AgentInput<'_>, &mut AgentOutbox),
    now: SimTime,
    side: Side,
    mut p: Packet,
) -> (AgentOutbox, Packet) {
    let mut out = AgentOutbox::default();
    handle(
        now,
        AgentInput::Packet {
            side,
            packet: &mut p,
        },
        &mut out,
    );
    (out, p)
}

/// The sequence numbers of the data packets in an outbox: those sent ahead of the queue,
/// then the others.
pub fn seqs(out: &AgentOutbox) -> Vec<u32> {
    out.ahead
        .iter()
        .chain(&out.packets)
        .filter(|p| p.payload_len() > 0)
        .map(|p| (p.tcp().expect("tcp").header.seq.0 - ISS) / MSS)
        .collect()
}
