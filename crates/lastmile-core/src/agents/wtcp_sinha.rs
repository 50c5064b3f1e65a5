//! The WTCP-Sinha proxy (survey §2.5.1: WTCP "is used when a mobile host needs to connect
//! through a proxy ... in a 'split connections' fashion"; Sinha et al. note this is how
//! most wireless WANs were deployed): on a base station, it terminates the fixed host's
//! TCP connection and relays over a WTCP-Sinha connection to the mobile
//! (`transport::wtcp_sinha`). Not the base-station WTCP of Ratnam & Matta (`agents::wtcp`).
//!
//! * The fixed host's SYN towards the mobile is intercepted: a TCP half listening in the
//!   mobile's name accepts it (`agents::split`, as I-TCP does), and the proxy opens a
//!   WTCP-Sinha connection to the mobile in the fixed host's name.
//! * Bytes delivered by either side are written to the other: the fixed host's data to the
//!   mobile over WTCP-Sinha (keeping their origin times), the mobile's (requests) to the
//!   fixed host over TCP. The relay buffer is what WTCP-Sinha has not had acknowledged; the
//!   window the fixed host sees is what is free of `buffer`.
//! * A FIN from either side closes the other half once its data is out.
//!
//! Like I-TCP, this breaks end-to-end semantics: the fixed host's data is acknowledged once
//! the proxy holds it. Metrics: WTCP-Sinha's retransmissions are the local
//! retransmissions, its blackouts (entries into probing) the timer expiries, the relay
//! buffer the occupancy.
//!
//! Left out: handoff between proxies, the mobile as the connection's opener.

mod spec;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use super::common::{ConnState, Conns, Occupancy};
use super::{Agent, AgentInput, AgentOutbox, ConnKey, Side, Verdict};
use crate::engine::{RngStream, SimTime};
use crate::ids::FlowId;
use crate::metrics::{AgentOwnMetrics, AgentSummary};
use crate::packet::{Control, Packet, Transport, WtcpSegment};
use crate::transport::build_packet;

use super::split::WiredHalf;
use crate::transport::wtcp_sinha::{WtcpSinhaConnection, WtcpSinhaStats};
use crate::transport::TransportOutbox;

pub use spec::{WtcpSinhaProxySpec, WtcpSinhaSpec};

/// One split connection.
#[derive(Clone, Debug)]
struct Split {
    key: ConnKey,
    flow: FlowId,
    wired: WiredHalf,
    wireless: WtcpSinhaConnection,
    closing_wireless: bool,
    closing_wired: bool,
}

impl ConnState for Split {
    fn deadline(&self) -> Option<SimTime> {
        [
            self.wired.conn().poll_timeout(),
            self.wireless.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min()
    }
    /// The relay buffer: what WTCP-Sinha has not had acknowledged by the mobile.
    fn held_bytes(&self) -> u64 {
        self.wireless.unacknowledged_bytes()
    }
}

/// The WTCP-Sinha proxy agent.
#[derive(Clone, Debug)]
pub struct WtcpSinhaAgent {
    spec: WtcpSinhaProxySpec,
    isn: RngStream,
    splits: Conns<ConnKey, Split>,
    finished: BTreeSet<ConnKey>,
    occupancy: Occupancy,
    retransmissions_past: u64,
    blackouts_past: u64,
}

/// The key of a WTCP-Sinha packet from the mobile.
fn wtcp_key(packet: &Packet) -> Option<(ConnKey, WtcpSegment)> {
    let Transport::WtcpSinha(seg) = packet.transport else {
        return None;
    };
    let key = ConnKey {
        fh: (packet.ip.dst, seg.dst_port),
        mh: (packet.ip.src, seg.src_port),
    };
    Some((key, seg))
}

impl WtcpSinhaAgent {
    pub fn new(spec: WtcpSinhaProxySpec, isn: RngStream) -> Self {
        WtcpSinhaAgent {
            spec,
            isn,
            splits: Conns::default(),
            finished: BTreeSet::new(),
            occupancy: Occupancy::default(),
            retransmissions_past: 0,
            blackouts_past: 0,
        }
    }

    /// The counters of the proxy's WTCP-Sinha end of connection `key`.
    pub fn wireless_stats(&self, key: &ConnKey) -> Option<WtcpSinhaStats> {
        self.splits.get(key).map(|s| s.wireless.stats())
    }

    /// The proxy's sending rate towards the mobile of connection `key`, bit/s.
    pub fn rate_bps(&self, key: &ConnKey) -> Option<f64> {
        self.splits.get(key).map(|s| s.wireless.sender().rate_bps())
    }

    fn open(&mut self, now: SimTime, key: ConnKey, flow: FlowId, out: &mut AgentOutbox) {
        let t = &self.spec.tcp;
        let isn = self.isn.next_u64() as u32;
        let wired = WiredHalf::listening(key, flow, t, isn, self.spec.buffer.bytes());
        let cfg = self
            .spec
            .wtcp
            .config(t.mss.bytes(), self.spec.buffer.bytes());
        let mut wireless = WtcpSinhaConnection::new(cfg, key.fh.1, key.mh.1);
        let mut w_out = TransportOutbox::default();
        wireless.connect(now, &mut w_out);
        let split = Split {
            key,
            flow,
            wired,
            wireless,
            closing_wireless: false,
            closing_wired: false,
        };
        split.emit(&w_out, out);
        self.splits.insert(key, split);
    }

    fn on_packet(&mut self, now: SimTime, side: Side, packet: &Packet, out: &mut AgentOutbox) {
        let origin = packet.origin_time;
        match side {
            Side::Wired => {
                let Some((key, seg)) = ConnKey::of(side, packet) else {
                    return;
                };
                if !self.splits.contains(&key) {
                    if seg.header.control != Control::Syn || seg.header.ack.is_some() {
                        return; // Not a connection we split: forwarded.
                    }
                    self.open(now, key, packet.flow, out);
                }
                out.verdict = Verdict::Consume;
                self.with(&key, out, |s, out| {
                    let mut delivered = Vec::new();
                    s.wired
                        .on_segment(now, &seg, origin, &mut out.packets, &mut delivered);
                    let mut w_out = TransportOutbox::default();
                    for d in &delivered {
                        s.wireless
                            .app_write_at(now, u64::from(d.len), d.origin_time, &mut w_out);
                    }
                    s.emit(&w_out, out);
                    s.relay(now, out);
                });
            }
            Side::Wireless => {
                let Some((key, seg)) = wtcp_key(packet) else {
                    return;
                };
                if !self.splits.contains(&key) {
                    return;
                }
                out.verdict = Verdict::Consume;
                self.with(&key, out, |s, out| {
                    let mut w_out = TransportOutbox::default();
                    s.wireless.on_segment(now, &seg, origin, &mut w_out);
                    s.emit(&w_out, out);
                    for d in &w_out.delivered {
                        s.wired.write(now, u64::from(d.len), &mut out.packets);
                    }
                    s.relay(now, out);
                });
            }
        }
    }

    fn with(
        &mut self,
        key: &ConnKey,
        out: &mut AgentOutbox,
        f: impl FnOnce(&mut Split, &mut AgentOutbox),
    ) {
        let finished = &mut self.finished;
        self.splits.update(key, |s| {
            f(s, out);
            if s.wired.conn().is_finished() && s.wireless.is_finished() {
                finished.insert(*key);
            }
        });
    }

    fn on_timer(&mut self, now: SimTime, out: &mut AgentOutbox) {
        for key in self.splits.due(now) {
            self.with(&key, out, |s, out| {
                let mut delivered = Vec::new();
                s.wired.on_timeout(now, &mut out.packets, &mut delivered);
                let mut w_out = TransportOutbox::default();
                for d in &delivered {
                    s.wireless
                        .app_write_at(now, u64::from(d.len), d.origin_time, &mut w_out);
                }
                if s.wireless.poll_timeout().is_some_and(|t| t <= now) {
                    s.wireless.on_timeout(now, &mut w_out);
                }
                s.emit(&w_out, out);
                for d in &w_out.delivered {
                    s.wired.write(now, u64::from(d.len), &mut out.packets);
                }
                s.relay(now, out);
            });
        }
        for key in std::mem::take(&mut self.finished) {
            if let Some(s) = self.splits.get(&key) {
                let st = s.wireless.stats();
                self.retransmissions_past += st.sender.retransmissions;
                self.blackouts_past += st.sender.blackouts;
            }
            self.splits.remove(&key);
        }
    }
}

impl Split {
    /// FINs across, and the window the fixed host sees from the relay buffer.
    fn relay(&mut self, now: SimTime, out: &mut AgentOutbox) {
        let mut w_out = TransportOutbox::default();
        if self.wired.conn().peer_closed() && !self.closing_wireless {
            self.closing_wireless = true;
            self.wireless.app_close(now, &mut w_out);
        }
        if self.wireless.peer_closed() && !self.closing_wired {
            self.closing_wired = true;
            self.wired.close(now, &mut out.packets);
        }
        self.emit(&w_out, out);
        let backlog = self.wireless.unacknowledged_bytes();
        self.wired.set_backlog(now, backlog, &mut out.packets);
    }

    /// WTCP-Sinha's packets, towards the mobile in the fixed host's name.
    fn emit(&self, w_out: &TransportOutbox, out: &mut AgentOutbox) {
        for p in &w_out.packets {
            out.packets
                .push(build_packet(self.key.fh.0, self.key.mh.0, *p, self.flow));
        }
    }
}

impl Agent for WtcpSinhaAgent {
    fn handle(&mut self, now: SimTime, input: AgentInput<'_>, out: &mut AgentOutbox) {
        match input {
            AgentInput::Packet { side, packet } => self.on_packet(now, side, packet, out),
            AgentInput::Timer => self.on_timer(now, out),
            AgentInput::Link { .. }
            | AgentInput::Local { .. }
            | AgentInput::Mobility(_)
            | AgentInput::Handover(_) => {}
        }
        self.occupancy.set(now, self.splits.held_bytes());
    }

    fn poll_timeout(&self) -> Option<SimTime> {
        self.splits.earliest()
    }

    /// Data outstanding on either side has a way forward: TCP's timer on the wired side,
    /// WTCP-Sinha's pacing or probe (or its SYN timer) on the wireless side.
    fn check(&self) -> Result<(), String> {
        for (key, s) in self.splits.iter() {
            let conn = s.wired.conn();
            if conn.unacknowledged_bytes() > 0 && conn.poll_timeout().is_none() {
                return Err(format!(
                    "wtcp_sinha {key:?}: the wired half has data and no timer"
                ));
            }
            if s.wireless.unacknowledged_bytes() > 0 && s.wireless.poll_timeout().is_none() {
                return Err(format!(
                    "wtcp_sinha {key:?}: {} bytes unacknowledged by the mobile and nothing to move them",
                    s.wireless.unacknowledged_bytes()
                ));
            }
        }
        Ok(())
    }

    fn summary(&self, end: SimTime) -> AgentSummary {
        let (mut rexmt, mut blackouts) = (self.retransmissions_past, self.blackouts_past);
        for s in self.splits.values() {
            let st = s.wireless.stats();
            rexmt += st.sender.retransmissions;
            blackouts += st.sender.blackouts;
        }
        AgentSummary {
            kind: "wtcp_sinha".into(),
            local_retransmissions: rexmt,
            suppressed_dupacks: 0,
            timer_expiries: blackouts,
            rtt_samples: 0,
            occupancy_max_bytes: self.occupancy.max(),
            occupancy_mean_bytes: self.occupancy.mean(end),
            own: AgentOwnMetrics::None,
        }
    }
}
