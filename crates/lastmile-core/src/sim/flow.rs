//! A flow: its application (`apps`), its two endpoints, and the checks and metrics of the
//! receiving application — every byte exactly once and in order, throughput
//! and per-packet delay as `experiments.md` defines them — and its **liveness**: how long
//! it went with data outstanding and no progress.
//!
//! * **Throughput** is the papers' measure (WTCP §4.1: "the average number of bits
//!   successfully transmitted to the mobile host in a second"): the bytes delivered in order
//!   within the measurement window × 8 / the window's length. The window opens at the
//!   flow's `start`, or at `measure_from` if that is later, and closes when the last byte is
//!   delivered or the run ends, whichever is first. A flow that stops delivering keeps its
//!   window open to the end of the run, so its stall shows in its throughput.
//! * **Stalls**: an interval during which bytes the application wrote are not yet all
//!   delivered (data outstanding) and no new byte is delivered in order. It opens when data
//!   becomes outstanding (a write with nothing outstanding) or at each in-order delivery that
//!   leaves data outstanding, and closes at the next in-order delivery; one still open when
//!   the run ends counts up to the end. The longest is reported; `stalled` says it exceeded
//!   `stall_threshold` (see there). Saturating UDP flows have nothing outstanding (a lost
//!   datagram is never resent) and report no stall.

use crate::apps::AnyApp;
use crate::engine::{SimDuration, SimTime, TimerId};
use crate::ids::EndpointId;
use crate::tcp::Delivery;

use super::observe::Welford;
use super::SimError;

/// The shortest stall that makes a flow `stalled` in a run of a minute or more, whatever its
/// RTO (see `stall_threshold`).
pub const STALL_FLOOR: SimDuration = SimDuration::from_secs(30);
/// A flow is `stalled` past this many of its source's largest RTOs (see `stall_threshold`).
pub const STALL_RTOS: u64 = 8;

/// The stall beyond which a flow is reported `stalled`: max(8 × the largest RTO, before
/// back-off, its source used; the floor), where the floor is 30 s, or half the flow's
/// measurement window (`window`) when that is shorter.
///
/// Why: a healthy TCP makes progress within an RTO of a loss, and a loss repeated `k` times
/// in a row costs it RTO·(2^(k+1) − 1) of exponential back-off. Eight RTOs are passed only
/// after the same segment and two of its retransmissions were lost (1 + 2 + 4 = 7 RTOs),
/// so the multiple keeps ordinary recovery — fast retransmit, a timeout or two — well
/// below the line, while a deadlock (data that no timer will ever resend) crosses it. The
/// RTO taken is the *base* RTO (SRTT + 4·RTTVAR, clamped): with back-off included a
/// deadlocked source's RTO climbs to `max_rto` and would hide its own stall. The 30 s
/// floor covers short-RTO paths, where a channel fade or a burst of back-offs lasts many
/// RTOs yet ends by itself: WTCP's Bad periods (Table I) and TULIP's bursts are under a
/// second, so 30 s of silence is not the channel but the protocol. In a run shorter than
/// a minute the floor is half the window instead: a flow silent for most of a 30 s run
/// (a deadlock 1.5 s in) must not pass for healthy because the run ended first. A flow
/// that completes closes its last interval at its last delivery; a run that ends
/// mid-transfer leaves open only the interval since the last delivery, so neither fires on
/// a healthy flow.
pub fn stall_threshold(largest_rto: SimDuration, window: SimDuration) -> SimDuration {
    let floor = STALL_FLOOR.min(SimDuration::from_nanos(window.as_nanos() / 2));
    (largest_rto * STALL_RTOS).max(floor)
}

/// Why a stalled flow stood still, as far as the run's counters tell: "backoff" when the
/// source's doubling timers can account for the stall, "lockup" when they cannot.
///
/// `timeouts` counts the expiries of both doubling timers: the retransmission timer's and the
/// persist timer's (a source held by a zero window, e.g. behind a split connection whose
/// relay buffer is full while its own wireless half backs off, probes at intervals that
/// double from one RTO as the retransmission timer's do). `timeouts` back-to-back expiries of a timer whose base RTO is at most `largest_base_rto`
/// (r) keep a source waiting at most r·(2^timeouts − 1) (RFC 6298 (5.5): each expiry
/// doubles the RTO; `max_rto` only shortens that), and the retransmission that ends the
/// stall reaches the receiver within one more RTO. A stall longer than that, or one with no
/// timeout in the run at all, is not the timer's back-off: the source held data that no
/// timer was going to resend (a lockup). A stall within the bound is consistent with the
/// scenario's own back-off — a run of timeouts on a channel that keeps losing — and is
/// reported as "backoff"; the counters cannot prove every such timeout fell inside it.
pub fn stall_cause(
    stall: SimDuration,
    largest_base_rto: SimDuration,
    timeouts: u64,
) -> &'static str {
    if timeouts == 0 {
        return "lockup";
    }
    // r·(2^n − 1) of back-off, plus one RTO for the retransmission: r·2^n.
    let bound = largest_base_rto
        .as_nanos()
        .saturating_mul(1u64 << timeouts.min(63));
    if stall.as_nanos() <= bound {
        "backoff"
    } else {
        "lockup"
    }
}

#[derive(Clone, Debug)]
pub struct Flow {
    pub name: String,
    /// Its group (an index into `World::groups`).
    pub group: u32,
    /// Background traffic (`FlowSpec::background`).
    pub background: bool,
    /// The run waits for this flow to be done (every flow but background traffic).
    pub ends_run: bool,
    pub src: String,
    pub dst: String,
    pub variant: &'static str,
    /// The application at the source, and its timer.
    pub app: AnyApp,
    pub app_timer: TimerId,
    pub source: EndpointId,
    pub sink: EndpointId,
    pub total_bytes: u64,
    /// The receiver's window (`tcp.rwnd`): the most it ever advertises.
    pub rwnd_bytes: u64,
    /// Bytes the application has written so far.
    pub written: u64,
    /// Bytes delivered in order to the receiving application (= the next offset expected).
    pub delivered: u64,
    pub first_data_sent: Option<SimTime>,
    pub last_delivery: Option<SimTime>,
    /// When the throughput window opens: the later of `start` and `measure_from`.
    pub window_start: SimTime,
    /// Bytes delivered before `window_start` (not counted in the throughput).
    pub delivered_before_window: u64,
    /// The start of the stall interval now open, if data is outstanding.
    pub stall_since: Option<SimTime>,
    /// The longest stall interval closed so far.
    pub longest_stall: SimDuration,
    pub delay: Welford,
    pub done: bool,
}

impl Flow {
    pub fn all_delivered(&self) -> bool {
        self.delivered == self.total_bytes
    }

    /// The application wrote `bytes` more (TCP flows): a stall interval opens if nothing was
    /// outstanding.
    pub fn on_write(&mut self, now: SimTime, bytes: u64) {
        if bytes > 0 && self.written == self.delivered {
            self.stall_since = Some(now);
        }
        self.written += bytes;
    }

    pub fn on_data_sent(&mut self, now: SimTime) {
        if self.first_data_sent.is_none() {
            self.first_data_sent = Some(now);
        }
    }

    /// The receiving application gets `d`: it must be the next bytes, never beyond the end.
    pub fn on_delivery(&mut self, now: SimTime, d: &Delivery) -> Result<(), SimError> {
        if d.offset != self.delivered {
            return Err(SimError::Invariant(format!(
                "flow {}: the application received bytes at offset {} while expecting {} \
                 (duplicate or out-of-order delivery)",
                self.name, d.offset, self.delivered
            )));
        }
        self.delivered += u64::from(d.len);
        if self.delivered > self.total_bytes {
            return Err(SimError::Invariant(format!(
                "flow {}: {} bytes delivered but only {} were written",
                self.name, self.delivered, self.total_bytes
            )));
        }
        self.last_delivery = Some(now);
        if now < self.window_start {
            self.delivered_before_window += u64::from(d.len);
        }
        if let Some(since) = self.stall_since.take() {
            self.longest_stall = self.longest_stall.max(now.saturating_since(since));
        }
        if self.delivered < self.written {
            self.stall_since = Some(now);
        }
        self.delay
            .push(now.saturating_since(d.origin_time).as_secs_f64());
        Ok(())
    }

    /// The longest stall up to `end`, the interval still open included.
    pub fn longest_stall(&self, end: SimTime) -> SimDuration {
        let open = self
            .stall_since
            .map_or(SimDuration::ZERO, |since| end.saturating_since(since));
        self.longest_stall.max(open)
    }

    /// The throughput window's end: the last byte's delivery (for saturating UDP: the last
    /// datagram's once the source stopped), else `end`.
    fn window_end(&self, end: SimTime) -> SimTime {
        let finished = if self.app.uses_tcp() {
            self.all_delivered()
        } else {
            self.done
        };
        match self.last_delivery {
            Some(last) if finished => last.min(end),
            _ => end,
        }
    }

    /// Bytes delivered in the throughput window × 8 / its length (module notes); 0 for an
    /// empty window.
    pub fn throughput_bps(&self, end: SimTime) -> f64 {
        let window = self.measurement_window(end).as_secs_f64();
        if window <= 0.0 {
            return 0.0;
        }
        (self.delivered - self.delivered_before_window) as f64 * 8.0 / window
    }

    /// The throughput window's length (module notes).
    pub fn measurement_window(&self, end: SimTime) -> SimDuration {
        self.window_end(end).saturating_since(self.window_start)
    }

    /// First byte sent to last byte delivered; to `end` if the transfer did not complete.
    pub fn transfer_time(&self, end: SimTime) -> SimDuration {
        match (self.first_data_sent, self.last_delivery) {
            (Some(first), Some(last)) if self.all_delivered() => last.saturating_since(first),
            (Some(first), _) => end.saturating_since(first),
            _ => SimDuration::ZERO,
        }
    }
}

#[cfg(test)]
mod stall_tests {
    use super::*;

    #[test]
    fn a_stall_the_timeouts_can_span_is_backoff_and_one_they_cannot_is_a_lockup() {
        let s = SimDuration::from_secs;
        // 1 + 2 + 4 + 8 + 16 + 32 s of back-off after six timeouts, plus one RTO.
        assert_eq!(stall_cause(s(64), s(1), 6), "backoff");
        assert_eq!(stall_cause(s(65), s(1), 6), "lockup");
        assert_eq!(stall_cause(s(92), s(2), 848), "backoff");
        assert_eq!(stall_cause(s(40), s(1), 0), "lockup");
    }
}
