//! A flow's endpoint speaking TCP, WTP (the initiator of a WAP client) or WTCP-Sinha, behind
//! one interface the world drives (`sim::world`): open, a packet, a timer, writes and
//! requests from the application, close. The TCP arm is the `TcpConnection` as it always
//! was, with its own outbox, so TCP runs exactly as before; the others fill a
//! `TransportOutbox`.
//!
//! Which one a flow's destination is comes from the flow's `transport` (`TransportKind`);
//! its source is always TCP (the fixed host), and the gateway on the path speaks the
//! destination's protocol (`transport::check`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::wtcp_sinha::WtcpSinhaConnection;
use super::wtp::WtpInitiator;
use super::TransportOutbox;
use crate::engine::SimTime;
use crate::packet::{Packet, Transport};
use crate::tcp::{TcpConnection, TcpOutbox};

/// What a flow's destination (the mobile) speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// TCP end to end (or split by I-TCP).
    #[default]
    Tcp,
    /// WAP: WTP class 2 transactions over UDP to a WAP gateway (`agent = { kind = "wap"
    /// }` on a base station on the path), which fetches each object from the source over
    /// TCP. Needs `app = { kind = "request_response", ... }`.
    Wap,
    /// WTCP of Sinha et al. to a proxy (`agent = { kind = "wtcp_sinha" }` on a base
    /// station on the path), which relays over TCP to the source.
    WtcpSinha,
}

impl TransportKind {
    /// The name in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Tcp => "tcp",
            TransportKind::Wap => "wap",
            TransportKind::WtcpSinha => "wtcp_sinha",
        }
    }
    /// The base-station agent that must sit on the flow's path (none for TCP).
    pub fn gateway(self) -> Option<&'static str> {
        match self {
            TransportKind::Tcp => None,
            TransportKind::Wap => Some("wap"),
            TransportKind::WtcpSinha => Some("wtcp_sinha"),
        }
    }
}

/// The effects of one call into an endpoint: TCP's outbox, or the other transports'.
#[derive(Debug, Default)]
pub struct EndpointOutbox {
    pub tcp: TcpOutbox,
    pub other: TransportOutbox,
}

impl EndpointOutbox {
    pub fn clear(&mut self) {
        self.tcp.clear();
        self.other.clear();
    }
}

/// A flow endpoint. TCP, by far the most common and on every packet's path, is held inline;
/// the wide-area transports are boxed.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // Boxing TCP would add an indirection to every segment.
pub enum AnyEndpoint {
    Tcp(TcpConnection),
    Wtp(Box<WtpInitiator>),
    WtcpSinha(Box<WtcpSinhaConnection>),
}

impl AnyEndpoint {
    /// The TCP connection, for a TCP endpoint.
    pub fn tcp(&self) -> Option<&TcpConnection> {
        match self {
            AnyEndpoint::Tcp(c) => Some(c),
            _ => None,
        }
    }

    /// Active open (WTP has no connection: nothing to do).
    #[inline]
    pub fn connect(&mut self, now: SimTime, out: &mut EndpointOutbox) {
        match self {
            AnyEndpoint::Tcp(c) => c.connect(now, &mut out.tcp),
            AnyEndpoint::Wtp(_) => {}
            AnyEndpoint::WtcpSinha(c) => c.connect(now, &mut out.other),
        }
    }

    /// Passive open.
    pub fn listen(&mut self) {
        match self {
            AnyEndpoint::Tcp(c) => c.listen(),
            AnyEndpoint::Wtp(_) => {}
            AnyEndpoint::WtcpSinha(c) => c.listen(),
        }
    }

    /// A packet for this endpoint arrived (one of another transport is ignored); TCP sees
    /// its IP header's Congestion Experienced mark (RFC 3168).
    #[inline]
    pub fn on_packet(&mut self, now: SimTime, packet: &Packet, out: &mut EndpointOutbox) {
        let origin = packet.origin_time;
        let ce = packet.ip.ecn == crate::packet::Ecn::Ce;
        match (self, &packet.transport) {
            (AnyEndpoint::Tcp(c), Transport::Tcp(seg)) => {
                c.on_segment_marked(now, seg, ce, origin, &mut out.tcp)
            }
            (AnyEndpoint::Wtp(w), Transport::Wtp(pdu)) => {
                w.on_pdu(now, pdu, origin, &mut out.other)
            }
            (AnyEndpoint::WtcpSinha(c), Transport::WtcpSinha(seg)) => {
                c.on_segment(now, seg, origin, &mut out.other)
            }
            _ => {}
        }
    }

    #[inline]
    pub fn on_timeout(&mut self, now: SimTime, out: &mut EndpointOutbox) {
        match self {
            AnyEndpoint::Tcp(c) => c.on_timeout(now, &mut out.tcp),
            AnyEndpoint::Wtp(w) => w.on_timeout(now, &mut out.other),
            AnyEndpoint::WtcpSinha(c) => c.on_timeout(now, &mut out.other),
        }
    }

    #[inline]
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyEndpoint::Tcp(c) => c.poll_timeout(),
            AnyEndpoint::Wtp(w) => w.poll_timeout(),
            AnyEndpoint::WtcpSinha(c) => c.poll_timeout(),
        }
    }

    /// The application writes `bytes` (WTP carries requests only, `request`).
    #[inline]
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut EndpointOutbox) {
        match self {
            AnyEndpoint::Tcp(c) => c.app_write(now, bytes, &mut out.tcp),
            AnyEndpoint::Wtp(_) => {}
            AnyEndpoint::WtcpSinha(c) => c.app_write(now, bytes, &mut out.other),
        }
    }

    /// The client's request of `bytes` for an object of `reply_bytes`: written to the
    /// stream by TCP and WTCP-Sinha, a class 2 transaction for WTP.
    pub fn request(
        &mut self,
        now: SimTime,
        bytes: u64,
        reply_bytes: u64,
        out: &mut EndpointOutbox,
    ) {
        match self {
            AnyEndpoint::Wtp(w) => {
                let clamp = |b: u64| b.min(u64::from(u32::MAX)) as u32;
                w.invoke(now, clamp(bytes), clamp(reply_bytes), &mut out.other);
            }
            _ => self.app_write(now, bytes, out),
        }
    }

    /// The application will write nothing more.
    #[inline]
    pub fn app_close(&mut self, now: SimTime, out: &mut EndpointOutbox) {
        match self {
            AnyEndpoint::Tcp(c) => c.app_close(now, &mut out.tcp),
            AnyEndpoint::Wtp(_) => {}
            AnyEndpoint::WtcpSinha(c) => c.app_close(now, &mut out.other),
        }
    }

    /// Done at this end: both FINs exchanged (TCP, WTCP-Sinha); no transaction waiting for
    /// its result (WTP).
    #[inline]
    pub fn is_finished(&self) -> bool {
        match self {
            AnyEndpoint::Tcp(c) => c.is_finished(),
            AnyEndpoint::Wtp(w) => w.is_idle(),
            AnyEndpoint::WtcpSinha(c) => c.is_finished(),
        }
    }
}
