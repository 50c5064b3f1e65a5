//! WTCP-Sinha's sending half: packets paced at a rate the receiver steers, SACK-driven
//! retransmission and probes instead of a retransmission timer (module notes of
//! `wtcp_sinha`).
//!
//! * **Pacing.** A packet of `len` bytes is followed, before the next one, by the time it
//!   takes at the current rate to send `len` plus its headers (the inter-packet delay).
//!   Retransmissions go before new data; new data only within the receiver's window.
//! * **Start-up.** At establishment the rate is one packet per handshake RTT; the first two
//!   data packets form a packet pair — the second goes as soon as it is written, unpaced —
//!   and the receiver's estimate of the bottleneck from their spacing, in its ACK, becomes
//!   the rate.
//! * **ACKs.** Each carries the receiver's decision: an increase adds one packet per RTT
//!   per RTT (in rate: `mss / srtt` per `srtt` elapsed since the previous ACK), a decrease
//!   multiplies the rate by `decrease_factor`, at most once per RTT; the rate never falls
//!   below one packet per RTT. A packet neither acknowledged nor SACKed, sent before the
//!   send time the ACK echoes (so the receiver has seen a later packet), is lost: it is
//!   queued for retransmission once, and again only on new evidence after it was resent.
//! * **Probes.** With packets outstanding and no ACK for 2·SRTT plus the time of
//!   `ack_every` packets at the current rate (at least `probe_min`), the sender stops
//!   sending and probes — every 2·SRTT, doubling up to `probe_max` — until an ACK comes
//!   back; it then resumes at the rate it had.
//!
//! The RTT is estimated from the echoed send times with RFC 6298's gains.

use std::collections::{BTreeSet, VecDeque};

use super::wire::{RateDecision, WtcpAck, WtcpData};
use super::{WtcpSinhaConfig, DATA_OVERHEAD_BYTES};
use crate::engine::{SimDuration, SimTime};

/// A packet sent and not yet acknowledged.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u32,
    len: u32,
    fin: bool,
    origin: SimTime,
    last_sent: SimTime,
    sacked: bool,
    /// Queued for retransmission (and not resent since).
    queued: bool,
}

/// The sender's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub data_packets_sent: u64,
    pub payload_bytes_sent: u64,
    pub retransmissions: u64,
    pub probes_sent: u64,
    /// Times the sender stopped and probed (no ACK for the probe interval).
    pub blackouts: u64,
    pub increases: u64,
    pub decreases: u64,
    pub keeps: u64,
}

/// The sending half of a WTCP-Sinha connection.
#[derive(Clone, Debug)]
pub struct Sender {
    cfg: WtcpSinhaConfig,
    active: bool,
    written: u64,
    closing: bool,
    fin_sent: bool,
    fin_acked: bool,
    next_offset: u64,
    acked_offset: u64,
    next_seq: u32,
    unacked: VecDeque<Sent>,
    retx: BTreeSet<u32>,
    /// (stream offset, origin time) of each write not yet fully sent.
    origins: VecDeque<(u64, SimTime)>,
    rate_bps: f64,
    next_send_at: SimTime,
    hint_applied: bool,
    pair_left: u8,
    srtt: SimDuration,
    rttvar: SimDuration,
    last_feedback: SimTime,
    outstanding_since: SimTime,
    last_rate_ack: SimTime,
    last_decrease: Option<SimTime>,
    peer_window: u64,
    probing: bool,
    probes_in_row: u32,
    probe_at: SimTime,
    stats: SenderStats,
}

impl Sender {
    pub fn new(cfg: WtcpSinhaConfig) -> Self {
        Sender {
            cfg,
            active: false,
            written: 0,
            closing: false,
            fin_sent: false,
            fin_acked: false,
            next_offset: 0,
            acked_offset: 0,
            next_seq: 0,
            unacked: VecDeque::new(),
            retx: BTreeSet::new(),
            origins: VecDeque::new(),
            rate_bps: 0.0,
            next_send_at: SimTime::ZERO,
            hint_applied: false,
            pair_left: 2,
            srtt: cfg.syn_timeout,
            rttvar: SimDuration::ZERO,
            last_feedback: SimTime::ZERO,
            outstanding_since: SimTime::ZERO,
            last_rate_ack: SimTime::ZERO,
            last_decrease: None,
            peer_window: u64::from(cfg.rwnd_bytes),
            probing: false,
            probes_in_row: 0,
            probe_at: SimTime::ZERO,
            stats: SenderStats::default(),
        }
    }

    /// The connection is established after a handshake that took `rtt`: one packet per
    /// RTT until the packet pair's estimate arrives.
    pub fn start(&mut self, now: SimTime, rtt: SimDuration, peer_window: u64) {
        self.active = true;
        self.srtt = rtt.max(SimDuration::from_micros(1));
        self.rttvar = rtt / 2;
        self.rate_bps = self.packet_bits(self.cfg.mss) / self.srtt.as_secs_f64();
        self.next_send_at = now;
        self.last_feedback = now;
        self.last_rate_ack = now;
        self.peer_window = peer_window;
    }

    pub fn stats(&self) -> &SenderStats {
        &self.stats
    }
    /// The sending rate, IP bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }
    pub fn srtt(&self) -> SimDuration {
        self.srtt
    }
    pub fn is_probing(&self) -> bool {
        self.probing
    }
    pub fn fin_acked(&self) -> bool {
        self.fin_acked
    }
    pub fn written(&self) -> u64 {
        self.written
    }
    /// Bytes written and not yet acknowledged.
    pub fn unacknowledged_bytes(&self) -> u64 {
        self.written - self.acked_offset
    }
    /// Every byte written has been sent once.
    pub fn all_sent(&self) -> bool {
        self.next_offset >= self.written
    }

    /// The application makes `bytes` more available, first sent at `origin` (now, or the
    /// fixed host's send time at a proxy).
    pub fn write(&mut self, bytes: u64, origin: SimTime) {
        if bytes > 0 && !self.closing {
            self.origins.push_back((self.written, origin));
            self.written += bytes;
        }
    }

    /// Nothing more will be written: a FIN follows the data.
    pub fn close(&mut self) {
        self.closing = true;
    }

    fn packet_bits(&self, len: u32) -> f64 {
        f64::from(len + DATA_OVERHEAD_BYTES) * 8.0
    }

    fn interval(&self, len: u32) -> SimDuration {
        SimDuration::from_secs_f64(self.packet_bits(len) / self.rate_bps.max(1.0))
    }

    /// How long without an ACK, packets outstanding, before probing.
    fn probe_wait(&self) -> SimDuration {
        (self.srtt * 2 + self.interval(self.cfg.mss) * u64::from(self.cfg.ack_every))
            .max(self.cfg.probe_min)
    }

    fn has_new(&self) -> bool {
        self.next_offset < self.written || (self.closing && !self.fin_sent)
    }

    fn window_allows(&self, len: u32) -> bool {
        let in_flight = self.next_offset - self.acked_offset;
        in_flight == 0 || in_flight + u64::from(len) <= self.peer_window
    }

    /// When the sender next needs a call: a paced send or a probe.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        if !self.active {
            return None;
        }
        let probe = if self.probing {
            Some(self.probe_at)
        } else if !self.unacked.is_empty() {
            Some(self.last_feedback.max(self.outstanding_since) + self.probe_wait())
        } else {
            None
        };
        let ready = !self.retx.is_empty()
            || (self.has_new() && self.window_allows(self.cfg.mss.min(self.pending_bytes())));
        let send = (ready && !self.probing).then_some(self.next_send_at);
        probe.into_iter().chain(send).min()
    }

    fn pending_bytes(&self) -> u32 {
        (self.written - self.next_offset).min(u64::from(u32::MAX)) as u32
    }

    /// The next packet, if one may go now: a retransmission, new data or the FIN, with the
    /// origin time of its first byte.
    pub fn next_packet(&mut self, now: SimTime) -> Option<(WtcpData, SimTime)> {
        if !self.active || self.probing || now < self.next_send_at {
            return None;
        }
        let (mut data, origin, retransmission) = if let Some(seq) = self.retx.pop_first() {
            self.resend(now, seq)?
        } else {
            self.new_packet(now)?
        };
        data.ack_request = self.retx.is_empty()
            && !(self.has_new() && self.window_allows(self.cfg.mss.min(self.pending_bytes())));
        if self.unacked.len() == 1 && !retransmission {
            self.outstanding_since = now;
        }
        self.stats.data_packets_sent += 1;
        self.stats.payload_bytes_sent += u64::from(data.len);
        self.next_send_at = if data.pair && self.pair_left == 1 {
            now // The pair's second packet follows at once.
        } else {
            now + self.interval(data.len)
        };
        Some((data, origin))
    }

    fn resend(&mut self, now: SimTime, seq: u32) -> Option<(WtcpData, SimTime, bool)> {
        let i = seq.checked_sub(self.unacked.front()?.seq)? as usize;
        let p = self.unacked.get_mut(i)?;
        p.last_sent = now;
        p.queued = false;
        self.stats.retransmissions += 1;
        let data = WtcpData {
            seq,
            len: p.len,
            fin: p.fin,
            ack_request: false,
            pair: false,
            ts: now,
        };
        Some((data, p.origin, true))
    }

    fn new_packet(&mut self, now: SimTime) -> Option<(WtcpData, SimTime, bool)> {
        let len = self.cfg.mss.min(self.pending_bytes());
        let fin = len == 0 && self.closing && !self.fin_sent;
        if (len == 0 && !fin) || !self.window_allows(len) {
            return None;
        }
        let origin = self.origin_of(self.next_offset, now);
        let pair = self.pair_left > 0 && len > 0;
        if pair {
            self.pair_left -= 1;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.next_offset += u64::from(len);
        self.fin_sent |= fin;
        self.unacked.push_back(Sent {
            seq,
            len,
            fin,
            origin,
            last_sent: now,
            sacked: false,
            queued: false,
        });
        let data = WtcpData {
            seq,
            len,
            fin,
            ack_request: false,
            pair,
            ts: now,
        };
        Some((data, origin, false))
    }

    /// The origin time of the byte at `offset`, forgetting writes wholly sent.
    fn origin_of(&mut self, offset: u64, now: SimTime) -> SimTime {
        while self.origins.len() > 1 && self.origins[1].0 <= offset {
            self.origins.pop_front();
        }
        self.origins.front().map_or(now, |&(_, t)| t)
    }

    /// The probe timer: returns the send time of a probe to send now, if one is due.
    pub fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        let due = self.poll_timeout().is_some_and(|t| t <= now);
        if !self.active || self.unacked.is_empty() || !due {
            return None;
        }
        let deadline = if self.probing {
            self.probe_at
        } else {
            self.last_feedback.max(self.outstanding_since) + self.probe_wait()
        };
        if deadline > now {
            return None;
        }
        if !self.probing {
            self.probing = true;
            self.stats.blackouts += 1;
        }
        self.probes_in_row += 1;
        // A probe is answered at once: the next one after 2·SRTT, doubling up to probe_max.
        let base = (self.srtt * 2).max(self.cfg.probe_min);
        let backoff = base.saturating_mul(1 << (self.probes_in_row - 1).min(16));
        self.probe_at = now + backoff.min(self.cfg.probe_max.max(base));
        self.stats.probes_sent += 1;
        Some(now)
    }

    /// An ACK from the receiver.
    pub fn on_ack(&mut self, now: SimTime, ack: &WtcpAck) {
        if !self.active {
            return;
        }
        if ack.ts_echo > SimTime::ZERO && ack.ts_echo <= now {
            self.rtt_sample(now.saturating_since(ack.ts_echo));
        }
        self.last_feedback = now;
        if self.probing {
            self.probing = false;
            self.probes_in_row = 0;
            self.next_send_at = self.next_send_at.min(now);
        }
        self.peer_window = u64::from(ack.window);
        if ack.rate_hint_bps > 0 && !self.hint_applied {
            self.hint_applied = true;
            self.rate_bps = f64::from(ack.rate_hint_bps);
        }
        self.on_cumulative(ack.cumulative);
        self.on_sack(ack);
        self.detect_losses(ack);
        self.apply(now, ack.decision);
    }

    fn on_cumulative(&mut self, cumulative: u32) {
        while let Some(p) = self.unacked.front() {
            if p.seq >= cumulative {
                break;
            }
            self.fin_acked |= p.fin;
            self.acked_offset += u64::from(p.len);
            self.retx.remove(&p.seq);
            self.unacked.pop_front();
        }
    }

    fn on_sack(&mut self, ack: &WtcpAck) {
        let Some(base) = self.unacked.front().map(|p| p.seq) else {
            return;
        };
        for &(start, end) in ack.blocks() {
            for seq in start.max(base)..end {
                let Some(p) = self.unacked.get_mut((seq - base) as usize) else {
                    break;
                };
                p.sacked = true;
                self.retx.remove(&seq);
            }
        }
    }

    /// Packets sent before the one whose send time the ACK echoes, and neither acknowledged
    /// nor SACKed, are lost (module notes).
    fn detect_losses(&mut self, ack: &WtcpAck) {
        let limit = if ack.more_blocks {
            ack.blocks()
                .iter()
                .map(|b| b.1)
                .max()
                .unwrap_or(ack.cumulative)
        } else {
            u32::MAX
        };
        for p in self.unacked.iter_mut() {
            if p.seq >= limit {
                break;
            }
            if !p.sacked && !p.queued && p.last_sent < ack.ts_echo {
                p.queued = true;
                self.retx.insert(p.seq);
            }
        }
    }

    fn apply(&mut self, now: SimTime, decision: RateDecision) {
        let srtt = self.srtt.as_secs_f64();
        let mss_bits = self.packet_bits(self.cfg.mss);
        match decision {
            RateDecision::Increase => {
                let dt = now
                    .saturating_since(self.last_rate_ack)
                    .as_secs_f64()
                    .min(srtt);
                self.rate_bps += mss_bits / srtt * dt / srtt;
                self.stats.increases += 1;
            }
            RateDecision::Decrease => {
                let due = self.last_decrease.is_none_or(|t| now >= t + self.srtt);
                if due {
                    self.rate_bps *= self.cfg.decrease_factor;
                    self.last_decrease = Some(now);
                    self.stats.decreases += 1;
                }
            }
            RateDecision::Keep => self.stats.keeps += 1,
        }
        self.rate_bps = self.rate_bps.max(mss_bits / srtt);
        self.last_rate_ack = now;
    }

    /// RFC 6298 (2.3) smoothing of an echoed-timestamp sample.
    fn rtt_sample(&mut self, r: SimDuration) {
        let diff = if self.srtt > r {
            self.srtt - r
        } else {
            r - self.srtt
        };
        self.rttvar = (self.rttvar * 3 + diff) / 4;
        self.srtt = ((self.srtt * 7 + r) / 8).max(SimDuration::from_micros(1));
    }
}
