//! Delivery-rate estimation (Cheng, Cardwell, Hassas Yeganeh & Jacobson,
//! draft-cheng-iccrg-delivery-rate-estimation-02, §3): on every ACK, how many bytes the
//! network delivered over how long, measured over the most recent flight, and whether the
//! application limited the sending rate. BBR's bandwidth filter and Westwood-style
//! estimators read it from the controller's `AckSample`.
//!
//! * **Connection state** (`C.*`): `delivered` (bytes delivered so far), `delivered_time`
//!   (when `delivered` last grew), `first_sent_time` (send time of the packet that started
//!   the current flight), `app_limited` (the `delivered` mark below which samples are
//!   application-limited; 0 = not limited) — §3.1.
//! * **Per transmission** ([`TxState`], `P.*`): a snapshot of that state taken when a
//!   segment is sent (§3.2), stored by the sender with the segment's range; a
//!   retransmission takes a new snapshot.
//! * **On an ACK** (§3.3): every segment it newly delivers adds its bytes to `delivered`;
//!   the sample is taken from the most recently sent of them (the largest `P.delivered`):
//!   `delivered` − `P.delivered` bytes over max(send elapsed, ACK elapsed).
//! * **Application-limited** (§3.4): marked when the sender has less than one segment to
//!   send, nothing to retransmit and room in the window.
//!
//! With SACK a segment counts as delivered when a SACK block first reports it (the
//! sender walks the bytes each block newly SACKs; the segment's snapshot is then marked so
//! that its cumulative ACK does not count it again); without SACK, when it is cumulatively
//! acknowledged. Left out: the draft's filtering of
//! samples shorter than the minimum RTT, which is the controller's to apply (it knows its
//! min RTT).

use crate::engine::{SimDuration, SimTime};

/// The connection's delivery state (`C.*` of the draft).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryState {
    /// Bytes delivered (cumulatively acknowledged) so far.
    pub delivered: u64,
    /// When `delivered` last grew.
    pub delivered_time: SimTime,
    /// Send time of the most recently delivered segment (the start of the current flight,
    /// from which a segment sent now measures its send elapsed).
    pub first_sent_time: SimTime,
    /// Samples whose `P.delivered` is below this are application-limited; 0 = none.
    pub app_limited: u64,
}

/// A segment's snapshot of the delivery state when it was (last) sent (`P.*`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TxState {
    pub sent_time: SimTime,
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    pub app_limited: bool,
    /// Already counted as delivered when a SACK block reported it: its cumulative ACK
    /// adds nothing.
    pub sacked: bool,
}

/// One ACK's delivery-rate sample (`rs.*`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RateSample {
    /// Bytes delivered over `interval` (0: no sample; this ACK delivered nothing new).
    pub delivered: u64,
    /// max(send elapsed, ACK elapsed) of the most recently sent segment delivered.
    pub interval: SimDuration,
    /// `C.delivered` when that segment was sent.
    pub prior_delivered: u64,
    /// The connection's total delivered bytes after this ACK.
    pub total_delivered: u64,
    /// The sample was taken while the application, not the network, limited sending.
    pub is_app_limited: bool,
}

impl RateSample {
    /// The delivery rate in bytes per second, when the sample has an interval.
    pub fn rate_bytes_per_s(&self) -> Option<u64> {
        let ns = self.interval.as_nanos();
        (self.delivered > 0 && ns > 0)
            .then(|| (u128::from(self.delivered) * 1_000_000_000 / u128::from(ns)) as u64)
    }
}

/// The sample being built while an ACK's delivered segments are walked.
#[derive(Copy, Clone, Debug, Default)]
pub struct SampleBuilder {
    newest: Option<TxState>,
}

impl DeliveryState {
    /// A segment is being sent with `in_flight` bytes outstanding before it (§3.2).
    #[inline]
    pub fn on_send(&mut self, now: SimTime, in_flight: u64) -> TxState {
        if in_flight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxState {
            sent_time: now,
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
            sacked: false,
        }
    }

    /// A segment sent with `p` was delivered by the ACK arriving now, with `bytes` of it
    /// newly delivered (§3.3 `UpdateRateSample`).
    #[inline]
    pub fn on_delivered(&mut self, now: SimTime, bytes: u64, p: &TxState, b: &mut SampleBuilder) {
        self.delivered += bytes;
        self.delivered_time = now;
        let newer = match &b.newest {
            None => true,
            Some(n) => {
                p.delivered > n.delivered
                    || (p.delivered == n.delivered && p.sent_time > n.sent_time)
            }
        };
        if newer {
            b.newest = Some(*p);
            self.first_sent_time = p.sent_time;
        }
    }

    /// The sample of the ACK just walked (§3.3 `GenerateRateSample`).
    pub fn sample(&mut self, b: &SampleBuilder) -> RateSample {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let Some(p) = b.newest else {
            return RateSample {
                total_delivered: self.delivered,
                ..RateSample::default()
            };
        };
        let send_elapsed = p.sent_time.saturating_since(p.first_sent_time);
        let ack_elapsed = self.delivered_time.saturating_since(p.delivered_time);
        RateSample {
            delivered: self.delivered - p.delivered,
            interval: send_elapsed.max(ack_elapsed),
            prior_delivered: p.delivered,
            total_delivered: self.delivered,
            is_app_limited: p.app_limited,
        }
    }

    /// The sender has less than a segment to send, nothing to retransmit and room in the
    /// window: samples up to the data now in flight are application-limited (§3.4).
    #[inline]
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// Ten 1000-byte segments sent back to back from idle at t = 0..9 ms, each acknowledged
    /// 100 ms after it was sent: the rate is what one flight delivered per RTT-spaced
    /// interval, 1000 B/ms.
    #[test]
    fn a_flight_acked_at_the_send_rate_measures_the_send_rate() {
        let mut c = DeliveryState::default();
        let sent: Vec<TxState> = (0..10).map(|i| c.on_send(at_ms(i), i * 1000)).collect();
        let mut last = RateSample::default();
        for (i, p) in sent.iter().enumerate() {
            let mut b = SampleBuilder::default();
            c.on_delivered(at_ms(100 + i as u64), 1000, p, &mut b);
            last = c.sample(&b);
        }
        // The last segment: sent at 9 ms when nothing had been delivered, acked at 109 ms.
        assert_eq!(last.total_delivered, 10_000);
        assert_eq!(last.prior_delivered, 0);
        assert_eq!(last.delivered, 10_000);
        // Send elapsed 9 ms (first sent at 0), ACK elapsed 109 ms (delivered_time was 0).
        assert_eq!(last.interval, SimDuration::from_millis(109));
        assert_eq!(last.rate_bytes_per_s(), Some(10_000 * 1000 / 109));
    }

    /// A segment sent after the first ACKs returned carries their state: its sample spans
    /// one round trip of delivery, not the whole connection.
    #[test]
    fn the_sample_spans_the_deliveries_since_the_segment_was_sent() {
        let mut c = DeliveryState::default();
        let p0 = c.on_send(at_ms(0), 0);
        let mut b = SampleBuilder::default();
        c.on_delivered(at_ms(100), 1000, &p0, &mut b);
        c.sample(&b);
        // Sent at 100 ms with 1000 B delivered at 100 ms; acked at 200 ms with 4000 B more
        // delivered by the same ACK (a cumulative ACK of four segments).
        let p1 = c.on_send(at_ms(100), 0);
        let mut b = SampleBuilder::default();
        c.on_delivered(at_ms(200), 4000, &p1, &mut b);
        let s = c.sample(&b);
        assert_eq!(s.delivered, 4000);
        assert_eq!(s.prior_delivered, 1000);
        assert_eq!(s.interval, SimDuration::from_millis(100));
        assert_eq!(s.rate_bytes_per_s(), Some(40_000));
    }

    #[test]
    fn app_limited_marks_samples_until_the_mark_is_delivered() {
        let mut c = DeliveryState::default();
        c.mark_app_limited(0);
        assert_eq!(c.app_limited, 1);
        let p = c.on_send(at_ms(0), 0);
        assert!(p.app_limited);
        let mut b = SampleBuilder::default();
        c.on_delivered(at_ms(50), 500, &p, &mut b);
        let s = c.sample(&b);
        assert!(s.is_app_limited);
        // Delivery passed the mark: later segments are not application-limited.
        assert_eq!(c.app_limited, 0);
        assert!(!c.on_send(at_ms(50), 0).app_limited);
    }

    #[test]
    fn an_ack_that_delivers_nothing_gives_no_rate() {
        let mut c = DeliveryState::default();
        let s = c.sample(&SampleBuilder::default());
        assert_eq!(s.delivered, 0);
        assert_eq!(s.rate_bytes_per_s(), None);
    }
}
