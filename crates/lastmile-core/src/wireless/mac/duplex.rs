//! A full-duplex radio channel: each station sends on a channel of its own (the FDD
//! carriers of GSM, GPRS, UMTS, IS-95 and CDPD's forward channel; RFC 3366 §1.3 calls such
//! links "full-duplex (allowing two-way communication over separate forward and reverse
//! channels)"), so nothing contends, nothing collides and a station hears no carrier.
//! There is no MAC ACK: reliability is the link layer's (RLP, AIRMAIL, ...).
//!
//! A frame is the link layer's MSDU plus `overhead_bytes` of framing, sent at `rate_bps`;
//! with link FEC (`error_model/fec.rs`) its airtime is that of its coded bits. Frames leave
//! back to back in FIFO order: `Trans` when one starts, `TxSuccess` when its last bit has
//! left. A received frame is handed up `decode_delay` after its last bit arrived (FEC's
//! interleaving and decoding), in arrival order.
//!
//! Left out: the scheduling of shared uplinks (GPRS's USF, CDPD's DSMA/CD reverse
//! channel), bandwidth-on-demand, power control; the medium treats every station's
//! channel as its own (`Medium::full_duplex`).

pub mod spec;
pub use spec::DuplexSpec;

use std::collections::VecDeque;

use crate::engine::{SimDuration, SimTime};
use crate::error_model::BlockCode;
use crate::ids::NodeId;

use super::common::{FrameKind, MacCounters, MacFrame, MacInput, MacOutput, MacSignal};

/// The duplex channel's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplexConfig {
    pub rate_bps: u64,
    /// Framing bytes added to every MSDU (the hop's `overhead`).
    pub overhead_bytes: u32,
    /// The one-way propagation delay (for the link layers' reply budget).
    pub propagation: SimDuration,
    /// Link FEC, if any: frames take the airtime of their coded bits.
    pub code: Option<BlockCode>,
    /// Receiver-side decoding delay per frame.
    pub decode_delay: SimDuration,
}

impl DuplexConfig {
    /// Bytes of a frame carrying `msdu_bytes` (before coding).
    pub fn frame_bytes(&self, msdu_bytes: u32) -> u32 {
        msdu_bytes.saturating_add(self.overhead_bytes)
    }
    /// Time on the air of a frame carrying `msdu_bytes`.
    pub fn airtime(&self, msdu_bytes: u32) -> SimDuration {
        let bits = 8 * u64::from(self.frame_bytes(msdu_bytes));
        let bits = self.code.map_or(bits, |c| c.coded_bits(bits));
        SimDuration::transmission(bits, self.rate_bps)
    }
}

#[derive(Clone, Debug)]
struct Queued<P> {
    dst: NodeId,
    msdu_bytes: u32,
    payload: P,
}

/// A frame decoded and waiting for its decoding delay to pass.
#[derive(Clone, Debug)]
struct Decoding<P> {
    due: SimTime,
    from: NodeId,
    msdu_bytes: u32,
    payload: P,
}

/// One station's end of a duplex channel.
#[derive(Clone, Debug)]
pub struct DuplexMac<P> {
    me: NodeId,
    cfg: DuplexConfig,
    queue: VecDeque<Queued<P>>,
    tx_end: Option<SimTime>,
    decoding: VecDeque<Decoding<P>>,
    counters: MacCounters,
}

impl<P: Clone> DuplexMac<P> {
    pub fn new(me: NodeId, cfg: DuplexConfig) -> Self {
        DuplexMac {
            me,
            cfg,
            queue: VecDeque::new(),
            tx_end: None,
            decoding: VecDeque::new(),
            counters: MacCounters::default(),
        }
    }

    pub fn config(&self) -> &DuplexConfig {
        &self.cfg
    }
    pub fn counters(&self) -> &MacCounters {
        &self.counters
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        let due = self.decoding.front().map(|d| d.due);
        match (self.tx_end, due) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    pub fn handle(&mut self, now: SimTime, input: MacInput<P>, out: &mut Vec<MacOutput<P>>) {
        match input {
            MacInput::Enqueue {
                dst,
                msdu_bytes,
                payload,
            }
            | MacInput::ReplyInFloor {
                dst,
                msdu_bytes,
                payload,
            } => self.queue.push_back(Queued {
                dst,
                msdu_bytes,
                payload,
            }),
            MacInput::Received(frame) => self.on_received(now, frame),
            MacInput::RxError => self.counters.rx_errors += 1,
            MacInput::MediumBusy | MacInput::MediumIdle | MacInput::Timeout => {}
        }
        self.fire_due(now, out);
    }

    fn on_received(&mut self, now: SimTime, frame: MacFrame<P>) {
        if frame.ra != self.me || frame.kind != FrameKind::Data {
            return;
        }
        if let Some(payload) = frame.payload {
            self.decoding.push_back(Decoding {
                due: now + self.cfg.decode_delay,
                from: frame.ta,
                msdu_bytes: frame.msdu_bytes,
                payload,
            });
        }
    }

    fn fire_due(&mut self, now: SimTime, out: &mut Vec<MacOutput<P>>) {
        while self.decoding.front().is_some_and(|d| d.due <= now) {
            let d = self.decoding.pop_front().expect("front was there");
            self.counters.delivered += 1;
            out.push(MacOutput::Deliver {
                from: d.from,
                msdu_bytes: d.msdu_bytes,
                payload: d.payload,
            });
        }
        if self.tx_end.is_some_and(|t| t <= now) {
            self.tx_end = None;
            self.queue.pop_front();
            self.counters.successes += 1;
            out.push(MacOutput::Signal(MacSignal::TxSuccess));
        }
        if self.tx_end.is_none() {
            if let Some(head) = self.queue.front() {
                let frame = MacFrame {
                    kind: FrameKind::Data,
                    ra: head.dst,
                    ta: self.me,
                    duration: SimDuration::ZERO,
                    seq: 0,
                    retry: false,
                    msdu_bytes: head.msdu_bytes,
                    payload: Some(head.payload.clone()),
                };
                let airtime = self.cfg.airtime(head.msdu_bytes);
                self.tx_end = Some(now + airtime);
                self.counters.attempts += 1;
                self.counters.data_frames_sent += 1;
                out.push(MacOutput::Signal(MacSignal::Trans));
                out.push(MacOutput::StartTx { frame, airtime });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mac(code: Option<BlockCode>, decode_ms: u64) -> DuplexMac<u32> {
        DuplexMac::new(
            NodeId(0),
            DuplexConfig {
                rate_bps: 12_000,
                overhead_bytes: 0,
                propagation: SimDuration::from_millis(10),
                code,
                decode_delay: SimDuration::from_millis(decode_ms),
            },
        )
    }

    fn t(ms: u64) -> SimTime {
        SimTime::from_nanos(ms * 1_000_000)
    }

    #[test]
    fn frames_leave_back_to_back_at_the_line_rate() {
        let mut m = mac(None, 0);
        let mut out = Vec::new();
        for p in 0..2 {
            let input = MacInput::Enqueue {
                dst: NodeId(1),
                msdu_bytes: 30,
                payload: p,
            };
            m.handle(t(0), input, &mut out);
        }
        // A 30-byte RLP frame at 12 kbit/s: 240 bits in 20 ms (GSM TCH/F9.6).
        assert_eq!(out.len(), 2, "only the first starts: {out:?}");
        assert_eq!(m.poll_timeout(), Some(t(20)));
        out.clear();
        m.handle(t(20), MacInput::Timeout, &mut out);
        assert_eq!(out[0], MacOutput::Signal(MacSignal::TxSuccess));
        assert_eq!(out[1], MacOutput::Signal(MacSignal::Trans));
        assert!(
            matches!(out[2], MacOutput::StartTx { airtime, .. } if airtime == SimDuration::from_millis(20))
        );
    }

    #[test]
    fn fec_stretches_the_airtime_and_the_decoder_holds_the_frame() {
        let code = crate::error_model::FecSpec {
            n: 2,
            k: 1,
            t: 0,
            symbol_bits: 8,
            decode_delay: Default::default(),
        }
        .code();
        let mut m = mac(Some(code), 40);
        assert_eq!(m.config().airtime(30), SimDuration::from_millis(40));
        let mut out = Vec::new();
        let frame = MacFrame {
            kind: FrameKind::Data,
            ra: NodeId(0),
            ta: NodeId(1),
            duration: SimDuration::ZERO,
            seq: 0,
            retry: false,
            msdu_bytes: 30,
            payload: Some(9),
        };
        m.handle(t(5), MacInput::Received(frame), &mut out);
        assert!(out.is_empty());
        assert_eq!(m.poll_timeout(), Some(t(45)));
        m.handle(t(45), MacInput::Timeout, &mut out);
        assert!(matches!(out[..], [MacOutput::Deliver { payload: 9, .. }]));
    }
}
