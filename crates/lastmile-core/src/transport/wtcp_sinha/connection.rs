//! One WTCP-Sinha endpoint: connection set-up and teardown as TCP does them (the survey:
//! "algorithms similar to those of standard TCP for connection management"), and the
//! dispatch of each packet to the sending half (ACKs, `sender.rs`) or the receiving half
//! (data and probes, `receiver.rs`). Both directions may carry data.
//!
//! * **Set-up**: SYN, SYN-ACK, and an ACK from the opener; the SYN and SYN-ACK are resent
//!   on a timer (`syn_timeout`, doubled each time), the only timer of the protocol — once
//!   established, loss is repaired through SACK and probes. The handshake's round trip
//!   is the first RTT. A passive endpoint is established by the first packet from the
//!   opener after its SYN-ACK.
//! * **Teardown**: `app_close` queues a FIN after the data; a passive endpoint closes its
//!   own half once the peer's FIN has arrived and its data has all been sent once (as
//!   lastmile's TCP does). `is_finished` once our FIN is acknowledged and the peer's
//!   received; the endpoint keeps answering probes after that.
//!
//! Left out: RST, simultaneous open, keep-alives, piggy-backed ACKs.

use super::receiver::{Receiver, ReceiverStats};
use super::sender::{Sender, SenderStats};
use super::wire::{WtcpBody, WtcpSegment};
use super::WtcpSinhaConfig;
use crate::engine::{SimDuration, SimTime};
use crate::packet::{Transport, IPV4_HEADER_LEN};
use crate::transport::{OutPacket, TransportOutbox};

/// Where the connection stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WtcpSinhaState {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
}

/// Counters of one endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WtcpSinhaStats {
    pub sender: SenderStats,
    pub receiver: ReceiverStats,
    /// SYN and SYN-ACK retransmissions.
    pub syn_retransmissions: u64,
    /// IP, UDP and WTCP-Sinha header bytes of every packet sent.
    pub header_bytes_sent: u64,
}

/// A WTCP-Sinha endpoint.
#[derive(Clone, Debug)]
pub struct WtcpSinhaConnection {
    cfg: WtcpSinhaConfig,
    local_port: u16,
    remote_port: u16,
    state: WtcpSinhaState,
    passive: bool,
    sender: Sender,
    receiver: Receiver,
    syn_sent_at: SimTime,
    syn_deadline: Option<SimTime>,
    syn_backoff: u32,
    close_requested: bool,
    syn_retransmissions: u64,
    header_bytes_sent: u64,
}

impl WtcpSinhaConnection {
    pub fn new(cfg: WtcpSinhaConfig, local_port: u16, remote_port: u16) -> Self {
        WtcpSinhaConnection {
            cfg,
            local_port,
            remote_port,
            state: WtcpSinhaState::Closed,
            passive: false,
            sender: Sender::new(cfg),
            receiver: Receiver::new(cfg),
            syn_sent_at: SimTime::ZERO,
            syn_deadline: None,
            syn_backoff: 0,
            close_requested: false,
            syn_retransmissions: 0,
            header_bytes_sent: 0,
        }
    }

    pub fn state(&self) -> WtcpSinhaState {
        self.state
    }
    pub fn sender(&self) -> &Sender {
        &self.sender
    }
    pub fn receiver(&self) -> &Receiver {
        &self.receiver
    }
    pub fn stats(&self) -> WtcpSinhaStats {
        WtcpSinhaStats {
            sender: self.sender.stats().clone(),
            receiver: self.receiver.stats().clone(),
            syn_retransmissions: self.syn_retransmissions,
            header_bytes_sent: self.header_bytes_sent,
        }
    }
    /// Our FIN is acknowledged and the peer's received.
    pub fn is_finished(&self) -> bool {
        self.sender.fin_acked() && self.receiver.fin_received()
    }
    pub fn peer_closed(&self) -> bool {
        self.receiver.fin_received()
    }
    /// Bytes written and not yet acknowledged by the peer.
    pub fn unacknowledged_bytes(&self) -> u64 {
        self.sender.unacknowledged_bytes()
    }

    /// Active open: the SYN.
    pub fn connect(&mut self, now: SimTime, out: &mut TransportOutbox) {
        if self.state == WtcpSinhaState::Closed {
            self.state = WtcpSinhaState::SynSent;
            self.send_syn(now, out);
        }
    }

    /// Passive open.
    pub fn listen(&mut self) {
        if self.state == WtcpSinhaState::Closed {
            self.state = WtcpSinhaState::Listen;
            self.passive = true;
        }
    }

    /// The application makes `bytes` more available now.
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut TransportOutbox) {
        self.app_write_at(now, bytes, now, out);
    }

    /// As `app_write`, the data first sent at `origin` (a proxy relaying a fixed host's
    /// bytes keeps their send time for per-packet delay).
    pub fn app_write_at(
        &mut self,
        now: SimTime,
        bytes: u64,
        origin: SimTime,
        out: &mut TransportOutbox,
    ) {
        self.sender.write(bytes, origin);
        self.output(now, out);
    }

    /// Nothing more will be written.
    pub fn app_close(&mut self, now: SimTime, out: &mut TransportOutbox) {
        if !self.close_requested {
            self.close_requested = true;
            self.sender.close();
            self.output(now, out);
        }
    }

    /// The earliest time `on_timeout` must be called.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self.state {
            WtcpSinhaState::Established => self.sender.poll_timeout(),
            _ => self.syn_deadline,
        }
    }

    /// A timer is due: a SYN or SYN-ACK retransmission, a probe, or a paced packet.
    pub fn on_timeout(&mut self, now: SimTime, out: &mut TransportOutbox) {
        if self.syn_deadline.is_some_and(|t| t <= now) {
            self.syn_retransmissions += 1;
            self.syn_backoff += 1;
            match self.state {
                WtcpSinhaState::SynSent => self.send_syn(now, out),
                WtcpSinhaState::SynReceived => self.send_syn_ack(now, out),
                _ => self.syn_deadline = None,
            }
        }
        if self.state == WtcpSinhaState::Established {
            if let Some(ts) = self.sender.on_timer(now) {
                self.push(out, WtcpBody::Probe { ts }, now);
            }
        }
        self.output(now, out);
    }

    /// A packet from the peer; `origin` is the origin time it carried.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        seg: &WtcpSegment,
        origin: SimTime,
        out: &mut TransportOutbox,
    ) {
        match (self.state, seg.body) {
            (WtcpSinhaState::Listen, WtcpBody::Syn { ts }) => {
                self.state = WtcpSinhaState::SynReceived;
                self.receiver.note_echo(ts);
                self.send_syn_ack(now, out);
                return;
            }
            (WtcpSinhaState::SynReceived, WtcpBody::Syn { ts }) => {
                self.receiver.note_echo(ts);
                self.send_syn_ack(now, out);
                return;
            }
            (WtcpSinhaState::SynSent, WtcpBody::SynAck { ts, ts_echo }) => {
                let rtt = now.saturating_since(ts_echo.min(now));
                self.establish(now, rtt);
                self.receiver.on_probe(ts); // The handshake's ACK echoes the SYN-ACK.
            }
            (WtcpSinhaState::SynReceived, WtcpBody::SynAck { .. }) => {
                return;
            }
            (WtcpSinhaState::SynReceived, body) => {
                let echo = match body {
                    WtcpBody::Ack(a) if a.ts_echo >= self.syn_sent_at => a.ts_echo,
                    _ => self.syn_sent_at,
                };
                self.establish(now, now.saturating_since(echo.min(now)));
                self.dispatch(now, body, origin, out);
            }
            (WtcpSinhaState::Established, WtcpBody::SynAck { ts, .. }) => {
                self.receiver.on_probe(ts); // Our handshake ACK was lost.
            }
            (WtcpSinhaState::Established, body) => self.dispatch(now, body, origin, out),
            _ => return,
        }
        self.output(now, out);
    }

    fn dispatch(
        &mut self,
        now: SimTime,
        body: WtcpBody,
        origin: SimTime,
        out: &mut TransportOutbox,
    ) {
        match body {
            WtcpBody::Data(d) => self.receiver.on_data(now, &d, origin, &mut out.delivered),
            WtcpBody::Ack(a) => self.sender.on_ack(now, &a),
            WtcpBody::Probe { ts } => self.receiver.on_probe(ts),
            WtcpBody::Syn { .. } | WtcpBody::SynAck { .. } => {}
        }
    }

    fn establish(&mut self, now: SimTime, rtt: SimDuration) {
        self.state = WtcpSinhaState::Established;
        self.syn_deadline = None;
        self.sender.start(now, rtt, u64::from(self.cfg.rwnd_bytes));
    }

    /// Sends what the pacing allows, then an ACK if one is due; closes a passive half
    /// whose peer has closed.
    fn output(&mut self, now: SimTime, out: &mut TransportOutbox) {
        if self.state != WtcpSinhaState::Established {
            return;
        }
        if self.passive
            && !self.close_requested
            && self.receiver.fin_received()
            && self.sender.all_sent()
        {
            self.close_requested = true;
            self.sender.close();
        }
        while let Some((data, origin)) = self.sender.next_packet(now) {
            self.push(out, WtcpBody::Data(data), origin);
        }
        if self.receiver.ack_due() {
            let ack = self.receiver.make_ack();
            self.push(out, WtcpBody::Ack(ack), now);
        }
    }

    fn send_syn(&mut self, now: SimTime, out: &mut TransportOutbox) {
        self.syn_sent_at = now;
        self.syn_deadline = Some(
            now + self
                .cfg
                .syn_timeout
                .saturating_mul(1 << self.syn_backoff.min(16)),
        );
        self.push(out, WtcpBody::Syn { ts: now }, now);
    }

    fn send_syn_ack(&mut self, now: SimTime, out: &mut TransportOutbox) {
        let ts_echo = self.receiver.echo();
        self.syn_sent_at = now;
        self.syn_deadline = Some(
            now + self
                .cfg
                .syn_timeout
                .saturating_mul(1 << self.syn_backoff.min(16)),
        );
        self.push(out, WtcpBody::SynAck { ts: now, ts_echo }, now);
    }

    fn push(&mut self, out: &mut TransportOutbox, body: WtcpBody, origin: SimTime) {
        let seg = WtcpSegment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            body,
        };
        self.header_bytes_sent +=
            u64::from(IPV4_HEADER_LEN + seg.datagram_len() - seg.payload_len());
        out.packets.push(OutPacket::new(
            Transport::WtcpSinha(seg),
            origin,
            seg.carries_data(),
        ));
    }
}
