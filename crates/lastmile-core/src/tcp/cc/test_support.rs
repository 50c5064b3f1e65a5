//! Test fixtures for the congestion controls: hand-made ACK samples, and a one-flow,
//! one-bottleneck path (a FIFO of a fixed rate between two fixed delays, no losses) that
//! clocks a controller with one ACK per segment, so that tests can measure the queue a
//! controller keeps at the bottleneck independently of the controller's own estimates.

use crate::engine::{SimDuration, SimTime};
use crate::tcp::delivery::{DeliveryState, RateSample, SampleBuilder, TxState};

use super::{AckSample, AnyCongestionControl, CcMetrics, CongestionControl, CongestionWindow};

pub const SMSS: u64 = 1000;

pub fn at_ms(ms: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(ms)
}

pub fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

/// An ACK of `acked` new bytes at `now` that recovery lets grow the window, with an RTT
/// sample and SND.UNA / SND.MAX as given.
pub fn new_ack(
    now: SimTime,
    acked: u64,
    rtt: Option<SimDuration>,
    una: u64,
    max: u64,
) -> AckSample {
    AckSample {
        now,
        acked_bytes: acked,
        duplicate: false,
        may_grow: true,
        rtt,
        srtt: rtt,
        prior_in_flight: max - una + acked,
        in_flight: max - una,
        snd_una: una,
        snd_max: max,
        mss: SMSS,
        delivered_bytes: acked,
        pipe: None,
        lost_bytes: 0,
        latest_rtt: rtt,
        rate: RateSample::default(),
    }
}

pub fn window(cwnd_segments: u64, ssthresh: u64) -> CongestionWindow {
    CongestionWindow {
        cwnd: cwnd_segments * SMSS,
        ssthresh,
    }
}

/// A sender of unlimited data over a bottleneck of `rate_bytes_per_s` with `prop` of
/// two-way propagation delay (half each way), ACKing every segment.
#[derive(Clone, Debug)]
pub struct Path {
    pub rate_bytes_per_s: u64,
    pub prop: SimDuration,
}

/// What a run over a [`Path`] observed, sampled at every ACK.
#[derive(Clone, Debug, Default)]
pub struct PathLog {
    /// (time, segments waiting at the bottleneck, not counting the one in service).
    pub queue: Vec<(SimTime, u64)>,
    /// (time, cwnd bytes) after each ACK.
    pub cwnd: Vec<(SimTime, u64)>,
    pub delivered_bytes: u64,
}

impl PathLog {
    /// The mean of the queue samples taken at or after `from`.
    pub fn mean_queue_after(&self, from: SimTime) -> f64 {
        let q: Vec<u64> = self
            .queue
            .iter()
            .filter(|(t, _)| *t >= from)
            .map(|(_, q)| *q)
            .collect();
        q.iter().sum::<u64>() as f64 / q.len().max(1) as f64
    }
}

struct InFlight {
    end: u64,
    sent: SimTime,
    arrives: SimTime,
    departs: SimTime,
    acked_at: SimTime,
    tx: TxState,
}

/// The sender's and the bottleneck's state, kept across [`PathSim::drive`] calls so that a
/// test can change the path mid-run.
#[derive(Default)]
pub struct PathSim {
    flight: std::collections::VecDeque<InFlight>,
    una: u64,
    max: u64,
    now: SimTime,
    last_departure: SimTime,
    next_send: SimTime,
    delivery: DeliveryState,
    srtt: Option<SimDuration>,
    pub log: PathLog,
}

impl Path {
    fn service(&self) -> SimDuration {
        SimDuration::from_nanos(SMSS * 1_000_000_000 / self.rate_bytes_per_s)
    }

    /// Runs `cc` from `w` until `until`; every ACK carries an RTT sample (timestamps).
    pub fn run(
        &self,
        cc: &mut AnyCongestionControl,
        w: &mut CongestionWindow,
        until: SimTime,
    ) -> PathLog {
        let mut sim = PathSim::default();
        sim.drive(self, cc, w, until, None);
        sim.log
    }

    /// As `run`, recording the controller's metrics after every ACK.
    pub fn run_observed(
        &self,
        sim: &mut PathSim,
        cc: &mut AnyCongestionControl,
        w: &mut CongestionWindow,
        until: SimTime,
        states: &mut Vec<(SimTime, CcMetrics)>,
    ) {
        sim.drive(self, cc, w, until, Some(states));
    }
}

impl PathSim {
    /// Sends what the window (and the pacing rate, if any) allows at `now`.
    fn send(&mut self, path: &Path, cc: &AnyCongestionControl, w: &CongestionWindow) {
        let half = SimDuration::from_nanos(path.prop.as_nanos() / 2);
        while self.max - self.una + SMSS <= w.cwnd.max(SMSS) && self.next_send <= self.now {
            let tx = self.delivery.on_send(self.now, self.max - self.una);
            let arrives = self.now + half;
            let departs = arrives.max(self.last_departure) + path.service();
            self.last_departure = departs;
            self.max += SMSS;
            self.flight.push_back(InFlight {
                end: self.max,
                sent: self.now,
                arrives,
                departs,
                acked_at: departs + half,
                tx,
            });
            if let Some(rate) = cc.pacing_rate() {
                self.next_send = self.now + SimDuration::transmission(8 * SMSS, 8 * rate.max(1));
            }
        }
    }

    /// Runs until `until` over `path`.
    pub fn drive(
        &mut self,
        path: &Path,
        cc: &mut AnyCongestionControl,
        w: &mut CongestionWindow,
        until: SimTime,
        mut states: Option<&mut Vec<(SimTime, CcMetrics)>>,
    ) {
        loop {
            self.send(path, cc, w);
            // The next event: the head's ACK, or a paced send.
            let ack_at = self.flight.front().map_or(SimTime::MAX, |h| h.acked_at);
            let can_send_more = self.max - self.una + SMSS <= w.cwnd.max(SMSS);
            if can_send_more && self.next_send > self.now && self.next_send < ack_at {
                self.now = self.next_send;
                continue;
            }
            if ack_at > until {
                self.now = until;
                break;
            }
            self.now = ack_at;
            let p = self.flight.pop_front().expect("head exists");
            let mut b = SampleBuilder::default();
            self.delivery.on_delivered(self.now, SMSS, &p.tx, &mut b);
            let rate = self.delivery.sample(&b);
            self.una = p.end;
            let rtt = self.now.saturating_since(p.sent);
            self.srtt = Some(self.srtt.map_or(rtt, |s| {
                SimDuration::from_nanos((7 * s.as_nanos() + rtt.as_nanos()) / 8)
            }));
            let sample = AckSample {
                now: self.now,
                acked_bytes: SMSS,
                duplicate: false,
                may_grow: true,
                rtt: Some(rtt),
                srtt: self.srtt,
                prior_in_flight: self.max - self.una + SMSS,
                in_flight: self.max - self.una,
                snd_una: self.una,
                snd_max: self.max,
                mss: SMSS,
                delivered_bytes: SMSS,
                pipe: None,
                lost_bytes: 0,
                latest_rtt: Some(rtt),
                rate: if cc.wants_rate_samples() {
                    rate
                } else {
                    RateSample::default()
                },
            };
            cc.on_ack(w, &sample);
            if let Some(states) = states.as_deref_mut() {
                states.push((self.now, cc.metrics(w)));
            }
            self.log.delivered_bytes += SMSS;
            self.log.cwnd.push((self.now, w.cwnd));
            // Segments at the bottleneck (arrived, not yet departed) less the one in service.
            let now = self.now;
            let at_bottleneck = self
                .flight
                .iter()
                .filter(|f| f.arrives <= now && f.departs > now)
                .count() as u64;
            self.log.queue.push((now, at_bottleneck.saturating_sub(1)));
        }
    }
}

/// A hand-driven sequence of round trips: each [`RoundTrips::close`] is one ACK that
/// acknowledges everything outstanding, ends the round and carries the round's RTT sample.
#[derive(Clone, Debug, Default)]
pub struct RoundTrips {
    pub una: u64,
    pub max: u64,
    pub t_ms: u64,
}

impl RoundTrips {
    /// Closes a round whose RTT sample was `rtt_ms`; the next round has cwnd in flight.
    pub fn close(&mut self, cc: &mut AnyCongestionControl, w: &mut CongestionWindow, rtt_ms: u64) {
        self.una = self.max + SMSS;
        self.max = self.una + w.cwnd;
        self.t_ms += rtt_ms;
        let a = new_ack(at_ms(self.t_ms), SMSS, Some(ms(rtt_ms)), self.una, self.max);
        cc.on_ack(w, &a);
    }
}

/// A steady ACK stream: `n` ACKs of one segment each, `gap_us` apart, every one with an RTT
/// sample of `rtt_ms`, with `in_flight` bytes outstanding before each (so a round trip is
/// `in_flight / SMSS` ACKs: each ACK finds one segment less, which the sender then
/// replaces).
#[derive(Clone, Debug, Default)]
pub struct AckStream {
    pub una: u64,
    pub t_us: u64,
}

impl AckStream {
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        cc: &mut AnyCongestionControl,
        w: &mut CongestionWindow,
        n: u64,
        gap_us: u64,
        rtt_ms: u64,
        in_flight: u64,
    ) {
        for _ in 0..n {
            self.una += SMSS;
            self.t_us += gap_us;
            let now = SimTime::ZERO + SimDuration::from_micros(self.t_us);
            let max = self.una + in_flight - SMSS;
            let a = new_ack(now, SMSS, Some(ms(rtt_ms)), self.una, max);
            cc.on_ack(w, &a);
        }
    }
}
