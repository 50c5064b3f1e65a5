//! Explicit Bad State Notification (Bakshi, Krishna, Vaidya & Pradhan, "Improving
//! performance of TCP over wireless networks", ICDCS 1997), the base station's half; the
//! source's half is `tcp.ebsn` (`tcp/sender/notices.rs`).
//!
//! * **Rule** (mechanism-notes §7c EBSN-R1, protocol-notes §4.6; the paper itself was not
//!   reachable, so this is the rule as those notes give it, tagged \[P\] there): the base
//!   station runs link-level retransmission towards the mobile; each time an attempt to
//!   deliver a TCP data segment fails — the wireless link is in a bad state — it sends an
//!   EBSN message to the segment's source. The source restarts its retransmission timer
//!   with the current RTO, so it neither times out nor backs off while the base station
//!   keeps trying.
//! * **What counts as a failed attempt**: a `TxFailure` for the datagram from the agent's
//!   station — the MAC giving up (`mac = "dcf"`), or the link layer's own ARQ finding an
//!   attempt lost (`link = "dda"`, whose retries are the base station's "local
//!   retransmissions"; `in_order = true` keeps it from reordering).
//! * **The message**: a 40-byte TCP segment from the mobile's address and port to the
//!   source's, carrying `ExplicitNotice::BadState` and no ACK; one per failed attempt.
//!
//! Left out: the paper's study of the wireless-hop segment size; any rate limit on the
//! messages.

mod spec;
#[cfg(test)]
mod tests;

use super::{Agent, AgentInput, AgentOutbox, ConnKey, Side};
use crate::engine::SimTime;
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{Control, ExplicitNotice, Packet, Service, TcpHeader, TcpOptions, TcpSegment};
use crate::packet::{Transport, DEFAULT_TTL};
use crate::wireless::signals::MacSignal;

pub use spec::EbsnSpec;

/// The EBSN agent on a base station.
#[derive(Clone, Debug, Default)]
pub struct EbsnAgent {
    /// Messages sent.
    sent: u64,
}

impl EbsnAgent {
    pub fn new(_spec: EbsnSpec) -> Self {
        EbsnAgent::default()
    }
    /// EBSN messages sent so far.
    pub fn notices_sent(&self) -> u64 {
        self.sent
    }

    /// An attempt at `packet` over the air failed: tell its source, if it is TCP data from
    /// the fixed side.
    fn on_failure(&mut self, packet: &Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        if seg.payload_len == 0 {
            return;
        }
        out.packets.push(notice(key, packet));
        self.sent += 1;
    }
}

/// The EBSN message for the connection `key` of `data`: from the mobile to the fixed host.
fn notice(key: ConnKey, data: &Packet) -> Packet {
    let mut p = Packet {
        ip: crate::packet::Ipv4Header {
            src: key.mh.0,
            dst: key.fh.0,
            ttl: DEFAULT_TTL,
            ecn: crate::packet::Ecn::NotEct,
            ..data.ip
        },
        transport: Transport::Tcp(TcpSegment {
            header: TcpHeader {
                src_port: key.mh.1,
                dst_port: key.fh.1,
                seq: crate::packet::SeqNumber(0),
                ack: None,
                control: Control::None,
                window: 0,
                options: TcpOptions {
                    notice: ExplicitNotice::BadState,
                    ..TcpOptions::default()
                },
                ece: false,
                cwr: false,
                sender_in_slow_start: false,
            },
            payload_len: 0,
        }),
        service: Service::Unreliable,
        ..*data
    };
    p.fix_length();
    p
}

impl Agent for EbsnAgent {
    fn handle(&mut self, _now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Link {
                signal: MacSignal::TxFailure,
                packet: Some(packet),
            } => self.on_failure(packet, out),
            AgentInput::Link { .. }
            | AgentInput::Packet { .. }
            | AgentInput::Local { .. }
            | AgentInput::Timer
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
    }

    /// EBSN has no timers.
    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    /// It holds nothing.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    fn summary(&self, _end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "ebsn".into(),
            own: AgentOwnMetrics::Notices {
                notices_sent: self.sent,
            },
            ..AgentSummary::default()
        }
    }

    fn wants_link_signals(&self) -> bool {
        true
    }
}
