//! Transports beside TCP for the wide-area wireless hop, as pure state machines
//! like `tcp/` (`handle`-style calls filling an outbox, `poll_timeout()`), and what lets a
//! flow's endpoint be one of them.
//!
//! * `wtp` — WTP class 2 transactions over UDP (WAP 1.x, survey §2.3): the mobile's
//!   initiator and the WAP gateway's responder.
//! * `wtcp_sinha` — WTCP of Sinha, Venkitaraman, Sivakumar and Bharghavan (MobiCom 1999;
//!   survey §2.5.1): rate-based, receiver-controlled transmission, loss-cause prediction,
//!   cumulative ACKs with SACK information and probes instead of a retransmission timer.
//!   Not the base-station WTCP of Ratnam & Matta (`agents::wtcp`).
//! * `endpoint` — `AnyEndpoint`: a flow endpoint speaking TCP, WTP or WTCP-Sinha, and the
//!   flow's `transport` setting (`TransportKind`).
//!
//! The scenario rules that tie a flow's transport to a gateway on its path are the
//! scenario's (`scenario::transports`): this layer knows nothing of scenario files.
//!
//! A flow whose `transport` is `wap` or `wtcp_sinha` has a TCP endpoint at its source (the
//! fixed host, which opens the connection as for any flow) and, at its destination (the
//! mobile), an endpoint speaking the wide-area protocol; the gateway agent on a base
//! station between them terminates the TCP connection and speaks the mobile's protocol on
//! the wireless side, as I-TCP splits a connection (`agents::itcp`).

pub mod endpoint;
pub mod wtcp_sinha;
pub mod wtp;

pub use endpoint::{AnyEndpoint, EndpointOutbox, TransportKind};

use crate::engine::SimTime;
use crate::ids::FlowId;
use crate::packet::{
    Ecn, Ipv4Addr, Ipv4Header, Packet, PacketId, Service, Transport, DEFAULT_TTL, PROTO_TCP,
    PROTO_UDP,
};
use crate::tcp::Delivery;

/// A packet a transport wants sent: its transport header, the origin time of the data it
/// carries (for per-packet delay) and the link-layer service it needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OutPacket {
    pub transport: Transport,
    pub origin_time: SimTime,
    pub service: Service,
}

impl OutPacket {
    /// `transport` carrying data first sent at `origin_time`: data packets ask for the
    /// reliable link-layer service, as TCP data does (TULIP §3), the rest for best effort.
    pub fn new(transport: Transport, origin_time: SimTime, carries_data: bool) -> Self {
        OutPacket {
            transport,
            origin_time,
            service: if carries_data {
                Service::Reliable
            } else {
                Service::Unreliable
            },
        }
    }
}

/// The effects of one call into a WTP or WTCP-Sinha state machine: packets to send and
/// bytes delivered in order to the application.
#[derive(Clone, Debug, Default)]
pub struct TransportOutbox {
    pub packets: Vec<OutPacket>,
    pub delivered: Vec<Delivery>,
}

impl TransportOutbox {
    pub fn clear(&mut self) {
        self.packets.clear();
        self.delivered.clear();
    }
}

/// A packet from `src` to `dst` carrying `out` (the world assigns its id).
pub fn build_packet(src: Ipv4Addr, dst: Ipv4Addr, out: OutPacket, flow: FlowId) -> Packet {
    let protocol = match out.transport {
        Transport::Tcp(_) => PROTO_TCP,
        _ => PROTO_UDP,
    };
    let mut p = Packet {
        id: PacketId(0),
        origin_time: out.origin_time,
        ip: Ipv4Header {
            src,
            dst,
            protocol,
            ttl: DEFAULT_TTL,
            total_len: 0,
            ident: 0,
            ecn: Ecn::NotEct,
        },
        transport: out.transport,
        flow,
        service: out.service,
    };
    p.fix_length();
    p
}
