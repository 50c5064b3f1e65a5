//! The TCP half a split-connection gateway keeps towards the fixed host — the WAP gateway's
//! TCP to the origin server (survey §2.3: the proxy "will use a standard TCP/IP wired
//! network to connect with the origin server") and the WTCP-Sinha proxy's (survey §2.5.1:
//! "split connections") — built as I-TCP's (`agents::itcp`): a `TcpConnection` that
//! accepts the fixed host's SYN in the mobile's name, advertises what is free of the
//! gateway's buffer, and whose segments leave as packets from the mobile's address.
//! Its packets leave through `transport::build_packet`, as the gateways' packets on the
//! other side do.

use crate::engine::SimTime;
use crate::ids::FlowId;
use crate::packet::{Packet, Service, TcpSegment, Transport};
use crate::tcp::{Delivery, TcpConfig, TcpConnection, TcpOutbox, TcpSpec};
use crate::transport::{build_packet, OutPacket};

use super::ConnKey;

/// A TCP segment as an `OutPacket` (data: reliable service).
fn tcp_out(segment: TcpSegment, origin_time: SimTime) -> OutPacket {
    OutPacket {
        transport: Transport::Tcp(segment),
        origin_time,
        service: if segment.payload_len > 0 {
            Service::Reliable
        } else {
            Service::Unreliable
        },
    }
}

/// The gateway's TCP towards the fixed host of connection `key`.
#[derive(Clone, Debug)]
pub struct WiredHalf {
    key: ConnKey,
    flow: FlowId,
    conn: TcpConnection,
    /// Bytes the fixed host's stream has delivered to the gateway.
    received: u64,
}

impl WiredHalf {
    /// A half listening in the mobile's name, with a receive buffer of `buffer` bytes,
    /// for the fixed host's SYN; `tcp` are its settings, `isn` its initial sequence number.
    pub fn listening(key: ConnKey, flow: FlowId, tcp: &TcpSpec, isn: u32, buffer: u64) -> Self {
        let mut cfg = TcpConfig::from_spec(tcp, key.mh, key.fh, isn, false);
        cfg.rwnd_bytes = buffer.min(u64::from(u32::MAX)) as u32;
        let mut conn = TcpConnection::new(cfg);
        conn.listen();
        WiredHalf {
            key,
            flow,
            conn,
            received: 0,
        }
    }

    pub fn conn(&self) -> &TcpConnection {
        &self.conn
    }
    /// Bytes the fixed host has delivered so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// A segment from the fixed host; packets go to `packets`, bytes delivered in order to
    /// `delivered`.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        origin: SimTime,
        packets: &mut Vec<Packet>,
        delivered: &mut Vec<Delivery>,
    ) {
        let mut out = TcpOutbox::default();
        self.conn.on_segment(now, seg, origin, &mut out);
        self.apply(&out, packets, delivered);
    }

    /// Its timer is due.
    pub fn on_timeout(
        &mut self,
        now: SimTime,
        packets: &mut Vec<Packet>,
        delivered: &mut Vec<Delivery>,
    ) {
        if self.conn.poll_timeout().is_some_and(|t| t <= now) {
            let mut out = TcpOutbox::default();
            self.conn.on_timeout(now, &mut out);
            self.apply(&out, packets, delivered);
        }
    }

    /// The gateway sends `bytes` to the fixed host (a request, or the mobile's data).
    pub fn write(&mut self, now: SimTime, bytes: u64, packets: &mut Vec<Packet>) {
        let mut out = TcpOutbox::default();
        self.conn.app_write(now, bytes, &mut out);
        self.apply(&out, packets, &mut Vec::new());
    }

    /// The gateway holds `bytes` of the fixed host's data not yet passed on: the window
    /// shrinks (and reopens with an update) accordingly.
    pub fn set_backlog(&mut self, now: SimTime, bytes: u64, packets: &mut Vec<Packet>) {
        let mut out = TcpOutbox::default();
        self.conn.set_receive_backlog(now, bytes, &mut out);
        self.apply(&out, packets, &mut Vec::new());
    }

    /// The gateway will send nothing more.
    pub fn close(&mut self, now: SimTime, packets: &mut Vec<Packet>) {
        let mut out = TcpOutbox::default();
        self.conn.app_close(now, &mut out);
        self.apply(&out, packets, &mut Vec::new());
    }

    fn apply(&mut self, out: &TcpOutbox, packets: &mut Vec<Packet>, delivered: &mut Vec<Delivery>) {
        for s in &out.segments {
            let p = tcp_out(s.segment, s.origin_time);
            packets.push(build_packet(self.key.mh.0, self.key.fh.0, p, self.flow));
        }
        for d in &out.delivered {
            self.received += u64::from(d.len);
            delivered.push(*d);
        }
    }
}
