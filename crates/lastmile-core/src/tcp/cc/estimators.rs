//! Measurements the delay- and rate-based controllers share, each driven by the
//! [`AckSample`]s the sender gives every controller:
//!
//! * [`Rounds`]: round trips counted the way Vegas (Brakmo & Peterson 1995 §3.2, "once per
//!   round-trip time"), Linux's `tcp_vegas.c` / `tcp_illinois.c` (`after(ack, beg_snd_nxt)`)
//!   and FAST's per-RTT update count them: a round ends when SND.UNA passes the SND.MAX of
//!   the ACK that began it, i.e. once data sent after that ACK is acknowledged (the ACK
//!   reaches the controller before the sender answers it).
//! * [`RoundRtt`]: the RTT samples of the current round (minimum, mean, count), the base RTT
//!   (the minimum ever seen: Vegas's BaseRTT, Veno's, FAST's and Illinois's base RTT) and
//!   the largest RTT seen (Illinois's maximum).
//!
//! Samples come from `AckSample::latest_rtt`: one per ACK of new data, the time since the
//! newest segment it acknowledges was sent (none when a segment it covers was sent again:
//! Karn's rule), exact to the nanosecond, with or without RFC 7323 timestamps. That is the
//! sample Linux gives these controllers (`pkts_acked`'s `rtt_us`, from per-packet send
//! times) and ns-3 (`PktsAcked`'s `m_lastRtt`), and what the papers' fine-grained
//! measurements read. The retransmission timer's own sample (`AckSample::rtt`) is not used:
//! it counts whole ticks of the timer's clock (10 ms for ns-2's `tcpTick_`, 500 ms for
//! 4.4BSD) and, without timestamps, times one segment per round trip. Left out: Linux's
//! sample from a segment newly SACKed when the cumulative ACK does not move.

use crate::engine::SimDuration;

use super::AckSample;

/// Round-trip counting by SND.UNA passing the SND.MAX of the round's start.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rounds {
    /// The round ends once SND.UNA passes this offset.
    end: u64,
    /// Rounds completed.
    pub count: u64,
}

impl Rounds {
    /// True if `ack` ends the current round (the next begins with it).
    #[inline]
    pub fn on_ack(&mut self, ack: &AckSample) -> bool {
        if ack.acked_bytes == 0 || ack.snd_una <= self.end {
            return false;
        }
        self.end = ack.snd_max;
        self.count += 1;
        true
    }
}

/// RTT samples of the current round, and the extremes of the connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoundRtt {
    /// The smallest sample ever seen (the propagation delay estimate).
    pub base: Option<SimDuration>,
    /// The largest sample ever seen.
    pub max: Option<SimDuration>,
    /// The most recent sample.
    pub last: Option<SimDuration>,
    min_in_round: Option<SimDuration>,
    sum_in_round_ns: u128,
    count_in_round: u64,
}

/// What one finished round measured.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RoundSummary {
    /// The smallest sample of the round (the last sample seen if the round had none).
    pub min: SimDuration,
    /// The mean of the round's samples (the last sample seen if the round had none).
    pub mean: SimDuration,
    /// Samples taken in the round.
    pub count: u64,
}

impl RoundRtt {
    /// Records the per-ACK sample `ack` carries (`latest_rtt`), if any.
    #[inline]
    pub fn on_ack(&mut self, ack: &AckSample) {
        self.on_sample(ack.latest_rtt);
    }

    /// Records `rtt`, if any.
    #[inline]
    pub fn on_sample(&mut self, rtt: Option<SimDuration>) {
        let Some(rtt) = rtt else {
            return;
        };
        self.base = Some(self.base.map_or(rtt, |b| b.min(rtt)));
        self.max = Some(self.max.map_or(rtt, |m| m.max(rtt)));
        self.last = Some(rtt);
        self.min_in_round = Some(self.min_in_round.map_or(rtt, |m| m.min(rtt)));
        self.sum_in_round_ns += u128::from(rtt.as_nanos());
        self.count_in_round += 1;
    }

    /// Closes the round: what it measured (`None` before any sample at all), and a fresh
    /// round begins.
    pub fn end_round(&mut self) -> Option<RoundSummary> {
        let last = self.last?;
        let summary = match self.count_in_round {
            0 => RoundSummary {
                min: last,
                mean: last,
                count: 0,
            },
            n => RoundSummary {
                min: self.min_in_round.unwrap_or(last),
                mean: SimDuration::from_nanos(
                    (self.sum_in_round_ns / u128::from(n)).min(u128::from(u64::MAX)) as u64,
                ),
                count: n,
            },
        };
        self.min_in_round = None;
        self.sum_in_round_ns = 0;
        self.count_in_round = 0;
        Some(summary)
    }
}
