//! WTCP-Sinha's receiving half: reassembly in sequence order, the ACKs, and the rate
//! control the survey puts at the receiver (module notes of `wtcp_sinha`).
//!
//! * **The measure.** Over the data packets that arrived since the previous ACK (with the
//!   last packet before them as the reference), the ratio of the time between the
//!   reference's and the newest packet's arrivals to the time between their sending (the
//!   sender stamps each packet): the average inter-packet delay at the receiver over the
//!   one at the sender. It is 1 while the path keeps pace with the sender and above 1 when
//!   packets queue; gaps and idle periods do not disturb it, since both spans include them.
//! * **The decision** in each ACK: with no loss in the period, increase below
//!   `increase_below`, decrease above `decrease_above`, keep between (and keep when there
//!   is nothing to measure). With a loss (a gap in the sequence numbers): decrease if the
//!   ratio shows a queue (congestion-like loss); otherwise the loss is predicted to be a
//!   wireless error — the rate is kept — when the losses of the period are within what the
//!   statistics of losses in uncongested periods allow (at least one per period),
//!   decreased if beyond. Periods without a queue (with or without a predicted wireless
//!   loss) feed those statistics: moving averages of the loss fraction and its deviation.
//! * **When to acknowledge**: every `ack_every` data packets, and at once on a packet out
//!   of order or filling a hole, a duplicate, a FIN, a packet whose sender asks for it, a
//!   probe, and the second packet of the start-up pair, whose arrival spacing gives the
//!   bottleneck estimate the ACK carries — when the path spread the pair apart (arrivals
//!   further apart than sendings), else there is nothing to estimate.
//! * **SACK**: the lowest three ranges held above the cumulative ACK, and a flag when there
//!   are more.

use std::collections::BTreeMap;

use super::wire::{RateDecision, WtcpAck, WtcpData, SACK_BLOCKS};
use super::{WtcpSinhaConfig, DATA_OVERHEAD_BYTES};
use crate::engine::SimTime;
use crate::tcp::Delivery;

/// The receiver's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub acks_sent: u64,
    /// Decisions sent, by kind.
    pub asked_increase: u64,
    pub asked_decrease: u64,
    pub asked_keep: u64,
    /// Lost packets predicted to be wireless errors (rate kept).
    pub predicted_wireless_losses: u64,
    /// Lost packets taken as congestion (rate decreased).
    pub congestion_losses: u64,
    pub duplicates: u64,
}

/// A packet held out of order.
#[derive(Clone, Copy, Debug)]
struct Held {
    len: u32,
    fin: bool,
    origin: SimTime,
}

/// The receiving half of a WTCP-Sinha connection.
#[derive(Clone, Debug)]
pub struct Receiver {
    cfg: WtcpSinhaConfig,
    cumulative: u32,
    held: BTreeMap<u32, Held>,
    held_bytes: u64,
    delivered: u64,
    fin_received: bool,
    highest: Option<u32>,
    /// (send time, arrival) of the reference packet and of the newest this period.
    reference: Option<(SimTime, SimTime)>,
    newest: Option<(SimTime, SimTime)>,
    period_packets: u32,
    period_lost: u32,
    since_ack: u32,
    ack_now: bool,
    echo: SimTime,
    pair_first: Option<(SimTime, SimTime)>,
    rate_hint_bps: u32,
    nc_loss_mean: f64,
    nc_loss_dev: f64,
    stats: ReceiverStats,
}

impl Receiver {
    pub fn new(cfg: WtcpSinhaConfig) -> Self {
        Receiver {
            cfg,
            cumulative: 0,
            held: BTreeMap::new(),
            held_bytes: 0,
            delivered: 0,
            fin_received: false,
            highest: None,
            reference: None,
            newest: None,
            period_packets: 0,
            period_lost: 0,
            since_ack: 0,
            ack_now: false,
            echo: SimTime::ZERO,
            pair_first: None,
            rate_hint_bps: 0,
            nc_loss_mean: 0.0,
            nc_loss_dev: 0.0,
            stats: ReceiverStats::default(),
        }
    }

    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }
    pub fn fin_received(&self) -> bool {
        self.fin_received
    }
    /// Bytes held out of order.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }
    /// The mean loss fraction learnt in uncongested periods.
    pub fn uncongested_loss_mean(&self) -> f64 {
        self.nc_loss_mean
    }
    /// True when an ACK should go now.
    pub fn ack_due(&self) -> bool {
        self.ack_now || self.since_ack >= self.cfg.ack_every
    }

    /// A data packet arrived at `now`; `origin` is the time its data was first sent.
    /// In-order bytes are pushed to `delivered`.
    pub fn on_data(
        &mut self,
        now: SimTime,
        d: &WtcpData,
        origin: SimTime,
        delivered: &mut Vec<Delivery>,
    ) {
        self.echo = d.ts;
        if d.ack_request || d.fin {
            self.ack_now = true;
        }
        if d.seq < self.cumulative || self.held.contains_key(&d.seq) {
            self.stats.duplicates += 1;
            self.ack_now = true;
            return;
        }
        self.measure(now, d);
        if d.seq != self.cumulative || !self.held.is_empty() {
            self.ack_now = true; // Out of order, or filling a hole.
        }
        self.held.insert(
            d.seq,
            Held {
                len: d.len,
                fin: d.fin,
                origin,
            },
        );
        self.held_bytes += u64::from(d.len);
        self.since_ack += 1;
        self.deliver(delivered);
    }

    /// The arrival feeds the period's spacing, the loss count and the packet pair.
    fn measure(&mut self, now: SimTime, d: &WtcpData) {
        if let Some(h) = self.highest {
            if d.seq > h + 1 {
                self.period_lost += d.seq - h - 1;
            }
        }
        if self.highest.is_none_or(|h| d.seq > h) {
            self.highest = Some(d.seq);
        }
        if self.reference.is_none() {
            self.reference = Some((d.ts, now));
        } else {
            self.newest = Some((d.ts, now));
        }
        self.period_packets += 1;
        if d.pair {
            match (d.seq, self.pair_first) {
                (0, _) => self.pair_first = Some((d.ts, now)),
                (1, Some((ts0, arr0))) => {
                    self.ack_now = true;
                    let sent = d.ts.saturating_since(ts0).as_secs_f64();
                    let arrived = now.saturating_since(arr0).as_secs_f64();
                    // Only a pair the path spread apart measures its bottleneck.
                    if arrived > sent * 1.05 && arrived > 0.0 {
                        let bits = f64::from(d.len + DATA_OVERHEAD_BYTES) * 8.0;
                        self.rate_hint_bps = (bits / arrived).min(f64::from(u32::MAX)) as u32;
                    }
                }
                _ => {}
            }
        }
    }

    fn deliver(&mut self, delivered: &mut Vec<Delivery>) {
        while let Some(h) = self.held.remove(&self.cumulative) {
            self.held_bytes -= u64::from(h.len);
            self.cumulative += 1;
            if h.len > 0 {
                delivered.push(Delivery {
                    offset: self.delivered,
                    len: h.len,
                    origin_time: h.origin,
                });
                self.delivered += u64::from(h.len);
            }
            if h.fin {
                self.fin_received = true;
            }
        }
    }

    /// The send time the next ACK echoes.
    pub fn echo(&self) -> SimTime {
        self.echo
    }

    /// Notes the send time of a SYN to echo, without asking for an ACK.
    pub fn note_echo(&mut self, ts: SimTime) {
        self.echo = ts;
    }

    /// A probe arrived: it is answered at once.
    pub fn on_probe(&mut self, ts: SimTime) {
        self.echo = ts;
        self.ack_now = true;
    }

    /// The rate decision for the period since the last ACK (module notes), updating the
    /// loss statistics; the period then starts afresh from the newest packet.
    pub fn decide(&mut self) -> RateDecision {
        let ratio = match (self.reference, self.newest) {
            (Some((ts0, arr0)), Some((ts1, arr1))) if ts1 > ts0 => Some(
                arr1.saturating_since(arr0).as_secs_f64() / ts1.saturating_since(ts0).as_secs_f64(),
            ),
            _ => None,
        };
        let queue = ratio.is_some_and(|r| r > self.cfg.decrease_above);
        let lost = self.period_lost;
        let decision = if lost > 0 {
            if !queue && lost <= self.allowed_losses() {
                self.stats.predicted_wireless_losses += u64::from(lost);
                RateDecision::Keep
            } else {
                self.stats.congestion_losses += u64::from(lost);
                RateDecision::Decrease
            }
        } else {
            match ratio {
                Some(r) if r < self.cfg.increase_below => RateDecision::Increase,
                Some(r) if r > self.cfg.decrease_above => RateDecision::Decrease,
                _ => RateDecision::Keep,
            }
        };
        if !queue && (lost == 0 || decision == RateDecision::Keep) && self.period_packets > 0 {
            self.learn(lost);
        }
        if let Some(n) = self.newest.take() {
            self.reference = Some(n);
        }
        self.period_packets = 0;
        self.period_lost = 0;
        decision
    }

    /// The most losses in this period the uncongested statistics explain (at least one).
    fn allowed_losses(&self) -> u32 {
        let n = f64::from(self.period_packets + self.period_lost);
        let fraction = self.nc_loss_mean + self.cfg.loss_deviations * self.nc_loss_dev;
        ((fraction * n).floor() as u32).max(1)
    }

    /// An uncongested period with `lost` losses feeds the statistics.
    fn learn(&mut self, lost: u32) {
        let n = f64::from(self.period_packets + lost);
        let x = f64::from(lost) / n;
        let g = self.cfg.stats_gain;
        self.nc_loss_dev += g * ((x - self.nc_loss_mean).abs() - self.nc_loss_dev);
        self.nc_loss_mean += g * (x - self.nc_loss_mean);
    }

    /// The ACK to send now (the caller asked `ack_due`); `window` is the free buffer.
    pub fn make_ack(&mut self) -> WtcpAck {
        let decision = self.decide();
        match decision {
            RateDecision::Increase => self.stats.asked_increase += 1,
            RateDecision::Decrease => self.stats.asked_decrease += 1,
            RateDecision::Keep => self.stats.asked_keep += 1,
        }
        let mut sack = [(0, 0); SACK_BLOCKS];
        let mut count = 0usize;
        let mut more = false;
        let mut run: Option<(u32, u32)> = None;
        for &seq in self.held.keys() {
            match run {
                Some((s, e)) if seq == e => run = Some((s, e + 1)),
                Some(block) => {
                    if count < SACK_BLOCKS {
                        sack[count] = block;
                        count += 1;
                    } else {
                        more = true;
                    }
                    run = Some((seq, seq + 1));
                }
                None => run = Some((seq, seq + 1)),
            }
        }
        if let Some(block) = run {
            if count < SACK_BLOCKS {
                sack[count] = block;
                count += 1;
            } else {
                more = true;
            }
        }
        let hint = std::mem::take(&mut self.rate_hint_bps);
        self.since_ack = 0;
        self.ack_now = false;
        self.stats.acks_sent += 1;
        WtcpAck {
            cumulative: self.cumulative,
            sack,
            sack_count: count as u8,
            more_blocks: more,
            window: (u64::from(self.cfg.rwnd_bytes).saturating_sub(self.held_bytes))
                .min(u64::from(u32::MAX)) as u32,
            decision,
            rate_hint_bps: hint,
            ts_echo: self.echo,
        }
    }
}
