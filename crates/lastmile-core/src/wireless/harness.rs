//! A minimal deterministic event loop for one cell: n saturated DCF stations sending
//! fixed-size datagrams to one receiver over the shared `Medium`, with no channel errors
//! (the medium's per-receiver error-model hook is left at `none`). It exists to check the
//! DCF against Bianchi's saturation model (Bianchi 2000 §IV) and for benchmarks; the main
//! engine wires the MAC through the link layer instead.
//!
//! Stations are `NodeId(0..n)`, the receiver `NodeId(n)`. Saturation: each station starts
//! with two datagrams queued and gets a new one on every `TxSuccess` / `TxFailure`, so it
//! always has a frame behind the one in service. Events at one instant run in scheduling
//! order (`EventQueue`); at the end of an arrival the frame (or the error) is reported before
//! the medium's idle indication, as the PHY's RX-END precedes CCA idle.

use std::collections::BTreeMap;

use crate::engine::{EventQueue, RngStream, SimDuration, SimTime};
use crate::ids::NodeId;
use crate::wireless::mac::{
    Dcf, DcfConfig, FrameKind, MacCounters, MacFrame, MacInput, MacOutput, MacSignal,
};
use crate::wireless::medium::{FrameMeta, Medium, RxOutcome, TxId};

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SaturationConfig {
    pub stations: u32,
    pub msdu_bytes: u32,
    pub dcf: DcfConfig,
    pub propagation: SimDuration,
    /// Deliveries before this are not counted (the synchronised start).
    pub warmup: SimDuration,
    pub duration: SimDuration,
    pub seed: u64,
}

/// What was measured after the warm-up.
#[derive(Clone, Debug)]
pub struct SaturationReport {
    /// MSDU bits delivered to the receiver per second (Bianchi's S in bit/s).
    pub throughput_bps: f64,
    pub per_station_bps: Vec<f64>,
    /// Jain's fairness index over `per_station_bps`.
    pub jain_index: f64,
    /// The stations' counters, then the receiver's.
    pub counters: Vec<MacCounters>,
    /// Fraction of data/RTS attempts that got no response: the measured p.
    pub collision_probability: f64,
    pub events: u64,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Timeout(usize),
    ArrivalStart(usize),
    ArrivalEnd(TxId, usize),
}

struct Cell {
    cfg: SaturationConfig,
    medium: Medium,
    macs: Vec<Dcf<()>>,
    queue: EventQueue<Ev>,
    scheduled: Vec<Option<SimTime>>,
    reported_busy: Vec<bool>,
    in_flight: BTreeMap<TxId, (MacFrame<()>, usize)>,
    delivered_bytes: Vec<u64>,
    receiver: NodeId,
}

/// Jain's fairness index (Σx)² / (n·Σx²); 1 for equal shares.
pub fn jain_index(xs: &[f64]) -> f64 {
    let sum: f64 = xs.iter().sum();
    let sum_sq: f64 = xs.iter().map(|x| x * x).sum();
    if sum_sq == 0.0 {
        return 1.0;
    }
    sum * sum / (xs.len() as f64 * sum_sq)
}

/// Runs the saturated cell and measures it.
pub fn run_saturated(cfg: SaturationConfig) -> SaturationReport {
    let n = cfg.stations as usize;
    let mut medium = Medium::new(cfg.propagation);
    let macs = (0..=n)
        .map(|i| {
            let node = NodeId(i as u32);
            medium.join(SimTime::ZERO, node);
            let rng = RngStream::derive(cfg.seed, &format!("wireless/dcf/{i}"));
            Dcf::new(node, cfg.dcf.clone(), rng)
        })
        .collect();
    let mut cell = Cell {
        medium,
        macs,
        queue: EventQueue::new(),
        scheduled: vec![None; n + 1],
        reported_busy: vec![false; n + 1],
        in_flight: BTreeMap::new(),
        delivered_bytes: vec![0; n],
        receiver: NodeId(n as u32),
        cfg,
    };
    for i in 0..n {
        for _ in 0..2 {
            cell.enqueue(SimTime::ZERO, i);
        }
    }
    let end = SimTime::ZERO + cell.cfg.duration;
    while let Some(t) = cell.queue.peek_time() {
        if t > end {
            break;
        }
        let (now, ev) = cell.queue.pop().expect("peeked");
        cell.on_event(now, ev);
    }
    cell.report()
}

impl Cell {
    fn enqueue(&mut self, now: SimTime, i: usize) {
        let input = MacInput::Enqueue {
            dst: self.receiver,
            msdu_bytes: self.cfg.msdu_bytes,
            payload: (),
        };
        self.dispatch(now, i, input);
    }

    fn on_event(&mut self, now: SimTime, ev: Ev) {
        match ev {
            Ev::Timeout(i) => {
                if self.scheduled[i] == Some(now) {
                    self.scheduled[i] = None;
                    self.dispatch(now, i, MacInput::Timeout);
                }
            }
            Ev::ArrivalStart(i) => {
                let node = NodeId(i as u32);
                if !self.reported_busy[i] && self.medium.is_busy(node, now) {
                    self.reported_busy[i] = true;
                    self.dispatch(now, i, MacInput::MediumBusy);
                }
            }
            Ev::ArrivalEnd(tx, i) => self.on_arrival_end(now, tx, i),
        }
    }

    fn on_arrival_end(&mut self, now: SimTime, tx: TxId, i: usize) {
        let node = NodeId(i as u32);
        let outcome = self.medium.finish_rx(tx, node);
        let frame = match self.in_flight.get_mut(&tx) {
            Some((frame, left)) => {
                *left -= 1;
                let frame = frame.clone();
                if *left == 0 {
                    self.in_flight.remove(&tx);
                }
                frame
            }
            None => return,
        };
        match outcome {
            RxOutcome::Intact => self.dispatch(now, i, MacInput::Received(frame)),
            RxOutcome::Collided | RxOutcome::Errored => self.dispatch(now, i, MacInput::RxError),
            RxOutcome::Missed => {}
        }
        if self.reported_busy[i] && !self.medium.is_busy(node, now) {
            self.reported_busy[i] = false;
            self.dispatch(now, i, MacInput::MediumIdle);
        }
    }

    fn dispatch(&mut self, now: SimTime, i: usize, input: MacInput<()>) {
        let mut out = Vec::new();
        self.macs[i].handle(now, input, &mut out);
        for effect in out {
            self.apply(now, i, effect);
        }
        if let Some(t) = self.macs[i].poll_timeout() {
            if self.scheduled[i] != Some(t) {
                self.scheduled[i] = Some(t.max(now));
                self.queue
                    .schedule(t.max(now), Ev::Timeout(i))
                    .expect("not in the past");
            }
        }
    }

    fn apply(&mut self, now: SimTime, i: usize, effect: MacOutput<()>) {
        match effect {
            MacOutput::StartTx { frame, airtime } => {
                let meta = FrameMeta {
                    bits: 8 * u64::from(frame.bytes()),
                    payload_bytes: if frame.kind == FrameKind::Data {
                        frame.msdu_bytes
                    } else {
                        0
                    },
                };
                let (tx, arrivals) = self.medium.start_tx(now, NodeId(i as u32), airtime, meta);
                self.in_flight.insert(tx, (frame, arrivals.len()));
                for a in arrivals {
                    let r = a.receiver.index();
                    let q = &mut self.queue;
                    q.schedule(a.start, Ev::ArrivalStart(r)).expect("future");
                    q.schedule(a.end, Ev::ArrivalEnd(tx, r)).expect("future");
                }
            }
            MacOutput::Deliver {
                from, msdu_bytes, ..
            } => {
                if now >= SimTime::ZERO + self.cfg.warmup {
                    if let Some(b) = self.delivered_bytes.get_mut(from.index()) {
                        *b += u64::from(msdu_bytes);
                    }
                }
            }
            MacOutput::Signal(MacSignal::TxSuccess | MacSignal::TxFailure) => {
                self.enqueue(now, i);
            }
            MacOutput::Signal(_) => {}
        }
    }

    fn report(self) -> SaturationReport {
        let secs = self
            .cfg
            .duration
            .saturating_sub(self.cfg.warmup)
            .as_secs_f64();
        let per_station_bps: Vec<f64> = self
            .delivered_bytes
            .iter()
            .map(|&b| 8.0 * b as f64 / secs)
            .collect();
        let counters: Vec<MacCounters> = self.macs.iter().map(|m| m.counters().clone()).collect();
        let (attempts, failures) = counters.iter().fold((0, 0), |(a, f), c| {
            (a + c.attempts, f + c.ack_timeouts + c.cts_timeouts)
        });
        SaturationReport {
            throughput_bps: per_station_bps.iter().sum(),
            jain_index: jain_index(&per_station_bps),
            per_station_bps,
            counters,
            collision_probability: failures as f64 / attempts.max(1) as f64,
            events: self.queue.events_processed(),
        }
    }
}

#[cfg(test)]
mod tests;
