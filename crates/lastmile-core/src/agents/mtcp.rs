//! M-TCP (Brown & Singh, ACM CCR 27(5), 1997) at the supervisor host — the gateway over
//! the base stations (`[[base_station]] node = "gw"`), as the survey (§2.2) and the
//! mechanism notes (§1, protocol notes §4.3) describe it: the connection is split at the
//! supervisor host, yet TCP's end-to-end semantics are kept, because the fixed host hears
//! of data only when the mobile has acknowledged it.
//!
//! * **Hold back the last byte** (MTCP-R1): the mobile's cumulative ACK for x goes to the
//!   fixed host as an ACK for x − 1 (never below what was already sent to it), with the
//!   mobile's window. The ACK that covers the fixed host's FIN passes whole.
//! * **Choke on a handoff** (MTCP-R2): when a handoff of the mobile begins
//!   (`MobilityNotice::HandoffStarted`), the held byte is acknowledged with a **zero
//!   window**. The fixed host's sender persists instead of timing out, keeping cwnd and
//!   ssthresh (RFC 9293 §3.8.6.1; `tcp::sender`'s window shrunk to zero); holding a byte
//!   back is what makes this ACK advance SND.UNA, so that a 4.4BSD sender takes it as a
//!   window update. While choked, the fixed host's probes are answered with the zero window
//!   and not forwarded, and the mobile's ACKs go on with a zero window.
//! * **Reopen** (MTCP-R3): when the gateway's route to the mobile is updated
//!   (`MobilityNotice::RouteUpdated`), `reopen_copies` ACKs for the same number carry the
//!   mobile's last window; the sender resumes at its old cwnd, from SND.UNA.
//!
//! What is modelled of the split is what the fixed host sees. Between the supervisor host
//! and the mobile the segments travel end to end: the SH's own TCP towards the mobile
//! (SH-TCP / M-TCP with a bandwidth manager and no slow start, the notes' MTCP-R4/R5) is
//! left out, and wireless losses are the link layer's to repair ("it requires a LL protocol
//! to recover from losses in the wireless link", the survey §2.2). The supervisor host
//! learns of a handoff when it begins (the paper's detector, an MSS signal or an ACK
//! timeout, is not modelled). A held byte keeps the fixed host's retransmission timer
//! running while the mobile has acknowledged everything but that byte: with an application
//! that pauses, the fixed host retransmits it when the timer fires. Left out as well: the
//! mobile as sender.

mod spec;
#[cfg(test)]
mod tests;

use super::common::{ConnState, Conns};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, MobilityNotice, Side, Verdict};
use crate::engine::SimTime;
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{Control, Ipv4Addr, Packet, SeqNumber};

pub use spec::MtcpSpec;

/// One connection through the supervisor host.
#[derive(Clone, Debug, Default)]
struct MtcpConn {
    /// The fixed host's first data byte (its ISN + 1), once its SYN has passed.
    data_start: Option<SeqNumber>,
    /// The sequence number of the fixed host's FIN, once seen.
    fin: Option<SeqNumber>,
    /// The mobile's highest cumulative ACK.
    mh_ack: Option<SeqNumber>,
    /// The highest ACK sent on to the fixed host.
    fh_ack: Option<SeqNumber>,
    /// The window the mobile advertised last.
    mh_window: u32,
    /// The mobile's last pure ACK: the pattern of the ACKs the supervisor host makes.
    template: Option<Packet>,
    /// The fixed host was given a zero window and is persisting.
    choked: bool,
}

impl ConnState for MtcpConn {
    fn deadline(&self) -> Option<SimTime> {
        None
    }
    fn held_bytes(&self) -> u64 {
        0
    }
}

/// M-TCP's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MtcpCounters {
    /// ACKs of the held byte with a zero window (one per connection per handoff).
    pub chokes: u64,
    /// Reopenings (each sends `reopen_copies` ACKs).
    pub reopens: u64,
    /// Probes of the fixed host answered with a zero window while choked.
    pub probes_answered: u64,
    /// ACKs from the mobile sent on with the last byte held back.
    pub acks_held_back: u64,
}

/// The M-TCP agent of a supervisor host.
#[derive(Clone, Debug)]
pub struct MtcpAgent {
    spec: MtcpSpec,
    conns: Conns<ConnKey, MtcpConn>,
    counters: MtcpCounters,
}

impl MtcpAgent {
    pub fn new(spec: MtcpSpec) -> Self {
        MtcpAgent {
            spec,
            conns: Conns::default(),
            counters: MtcpCounters::default(),
        }
    }

    pub fn counters(&self) -> MtcpCounters {
        self.counters
    }
    /// True while the fixed host of `key` is held at a zero window.
    pub fn is_choked(&self, key: &ConnKey) -> bool {
        self.conns.get(key).is_some_and(|c| c.choked)
    }

    /// A segment from the fixed host.
    fn on_wired(&mut self, packet: &Packet, out: &mut AgentOutbox) {
        let Some((key, seg)) = ConnKey::of(Side::Wired, packet) else {
            return;
        };
        let h = &seg.header;
        if h.control == Control::Syn && h.ack.is_none() {
            let conn = MtcpConn {
                data_start: Some(h.seq + 1),
                ..MtcpConn::default()
            };
            self.conns.insert(key, conn);
            return;
        }
        let counters = &mut self.counters;
        self.conns.update(&key, |c| {
            if h.control == Control::Fin {
                c.fin = Some(h.seq + seg.payload_len);
            }
            if c.choked && seg.seq_len() > 0 {
                // A probe (or data sent before the choke): the mobile is out of reach.
                out.verdict = Verdict::Drop;
                if let Some(ack) = c.fh_ack {
                    out.packets.extend(c.make_ack(ack, 0));
                    counters.probes_answered += 1;
                }
            }
        });
    }

    /// A segment from the mobile: its ACK goes on with the last byte held back.
    fn on_wireless(&mut self, packet: &mut Packet) {
        let Some((key, seg)) = ConnKey::of(Side::Wireless, packet) else {
            return;
        };
        let h = seg.header;
        let Some(ack) = h.ack else { return };
        if seg.payload_len > 0 || h.control == Control::Syn {
            return; // The mobile's SYN-ACK and any data pass untouched.
        }
        let counters = &mut self.counters;
        self.conns.update(&key, |c| {
            if c.mh_ack.is_none_or(|m| ack > m) {
                c.mh_ack = Some(ack);
            }
            c.mh_window = h.window;
            c.template = Some(*packet);
            let covers_fin = c.fin.is_some_and(|f| ack > f);
            let past_start = c.data_start.is_some_and(|s| ack > s);
            let mut sent = ack;
            if past_start && !covers_fin {
                let held = SeqNumber(ack.0.wrapping_sub(1));
                sent = c.fh_ack.map_or(held, |f| held.max(f));
                counters.acks_held_back += u64::from(sent < ack);
            }
            c.fh_ack = Some(c.fh_ack.map_or(sent, |f| f.max(sent)));
            if let Some(tcp) = packet.tcp_mut() {
                tcp.header.ack = Some(sent);
                if c.choked {
                    tcp.header.window = 0;
                }
            }
        });
    }

    /// A handoff of `mobile` began: its senders get the held byte with a zero window.
    fn on_handoff_started(&mut self, mobile: Ipv4Addr, out: &mut AgentOutbox) {
        let keys: Vec<ConnKey> = self
            .conns
            .iter()
            .filter(|(k, c)| k.mh.0 == mobile && !c.choked && c.template.is_some())
            .map(|(k, _)| *k)
            .collect();
        for key in keys {
            self.conns.update(&key, |c| {
                let ack = match (c.mh_ack, c.fh_ack) {
                    (Some(m), Some(f)) => m.max(f),
                    (m, f) => m.or(f).expect("an ACK was seen"),
                };
                c.choked = true;
                c.fh_ack = Some(ack);
                out.packets.extend(c.make_ack(ack, 0));
            });
            self.counters.chokes += 1;
        }
    }

    /// The gateway routes to the mobile's new base station: the window reopens.
    fn on_route_updated(&mut self, mobile: Ipv4Addr, out: &mut AgentOutbox) {
        let keys: Vec<ConnKey> = self
            .conns
            .iter()
            .filter(|(k, c)| k.mh.0 == mobile && c.choked)
            .map(|(k, _)| *k)
            .collect();
        let copies = self.spec.reopen_copies;
        for key in keys {
            self.conns.update(&key, |c| {
                c.choked = false;
                let ack = c.fh_ack.expect("choked with an ACK sent");
                for _ in 0..copies {
                    out.packets.extend(c.make_ack(ack, c.mh_window));
                }
            });
            self.counters.reopens += 1;
        }
    }
}

impl MtcpConn {
    /// An ACK for `ack` advertising `window`, in the mobile's name (after its last ACK).
    fn make_ack(&self, ack: SeqNumber, window: u32) -> Option<Packet> {
        let mut p = self.template?;
        let tcp = p.tcp_mut()?;
        tcp.header.ack = Some(ack);
        tcp.header.window = window;
        Some(p)
    }
}

impl Agent for MtcpAgent {
    fn handle(&mut self, _now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Packet {
                side: Side::Wired,
                packet,
            } => self.on_wired(packet, out),
            AgentInput::Packet {
                side: Side::Wireless,
                packet,
            } => self.on_wireless(packet),
            AgentInput::Mobility(MobilityNotice::HandoffStarted { mobile }) => {
                self.on_handoff_started(mobile, out)
            }
            AgentInput::Mobility(MobilityNotice::RouteUpdated { mobile }) => {
                self.on_route_updated(mobile, out)
            }
            AgentInput::Timer
            | AgentInput::Link { .. }
            | AgentInput::Local { .. }
            | AgentInput::Mobility(MobilityNotice::Left { .. })
            | AgentInput::Handover(_) => {}
        }
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        None
    }

    /// M-TCP holds nothing and has no timer: the fixed host's own timers move everything.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }

    fn summary(&self, _end: SimTime) -> AgentSummary {
        AgentSummary {
            kind: "mtcp".into(),
            own: AgentOwnMetrics::ZeroWindows {
                zero_window_advertisements: self.counters.chokes,
            },
            ..AgentSummary::default()
        }
    }
}
