//! A two-state channel in real time: Good and Bad alternate, each sojourn exponentially
//! distributed with its own mean, starting in Good at time zero. This is the continuous-time
//! chain behind the timed Gilbert–Elliott channel (WTCP Table I: "the duration of the Good
//! and Bad periods are exponentially distributed") and the survey's ON/OFF error phases
//! (§3.1), where OFF plays Good and ON plays Bad.
//!
//! The timeline is resolved lazily. Inside a frame it is walked sojourn by sojourn, so a
//! frame's exposure to each state is exact. Across idle time it jumps: when at least one
//! sojourn ends in an idle gap, the state at the end of the gap is drawn from the chain's
//! transition probability, P(other state after t | entered X) = a/(a+b)·(1 − e^{−(a+b)t})
//! with a, b the rates out of X and out of the other state, and a fresh residual sojourn is
//! drawn. The exponential sojourns are memoryless, so this has exactly the law of walking
//! every idle sojourn, at a constant cost however long the gap or short the means
//! (protocol-notes §3.3: "keep a real-time state timeline, advancing through idle periods").
//!
//! Left out: overlapping frames. The timeline only moves forward; a frame starting before
//! the end of the previous one is exposed from that end on.

use crate::engine::{RngStream, SimDuration, SimTime};

/// The state of a two-state channel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ChannelState {
    /// Few or no errors (ON/OFF: the OFF phase).
    Good,
    /// Many errors (ON/OFF: the ON phase).
    Bad,
}

impl ChannelState {
    pub fn other(self) -> ChannelState {
        match self {
            ChannelState::Good => ChannelState::Bad,
            ChannelState::Bad => ChannelState::Good,
        }
    }
    pub(crate) fn index(self) -> usize {
        match self {
            ChannelState::Good => 0,
            ChannelState::Bad => 1,
        }
    }
}

/// Time spent in each state over an interval, in nanoseconds, indexed by
/// `ChannelState::index` (Good, Bad).
pub(crate) type Exposure = [u64; 2];

#[derive(Clone, Debug)]
pub(crate) struct TwoStateTimeline {
    /// Mean sojourn in Good and in Bad, in nanoseconds (at least 1).
    mean_ns: [f64; 2],
    state: ChannelState,
    /// The timeline is resolved up to here.
    now: SimTime,
    /// The end of the current sojourn; never before `now`.
    switch_at: SimTime,
}

impl TwoStateTimeline {
    /// A channel in Good at time zero. Means below 1 ns are taken as 1 ns.
    pub(crate) fn new(mean_good: SimDuration, mean_bad: SimDuration, rng: &mut RngStream) -> Self {
        let mut timeline = TwoStateTimeline {
            mean_ns: [
                mean_good.as_nanos().max(1) as f64,
                mean_bad.as_nanos().max(1) as f64,
            ],
            state: ChannelState::Good,
            now: SimTime::ZERO,
            switch_at: SimTime::ZERO,
        };
        timeline.switch_at = SimTime::ZERO.saturating_add(timeline.sojourn(rng));
        timeline
    }

    pub(crate) fn state(&self) -> ChannelState {
        self.state
    }

    /// A sojourn in the current state, rounded to the nanosecond.
    fn sojourn(&self, rng: &mut RngStream) -> SimDuration {
        let ns = libm::round(rng.exponential(self.mean_ns[self.state.index()]));
        // `as` saturates: a sojourn beyond u64 nanoseconds lasts for ever.
        SimDuration::from_nanos(ns as u64)
    }

    /// Resolves the state at `t` (no-op if `t` is not after the resolved point).
    pub(crate) fn advance_to(&mut self, t: SimTime, rng: &mut RngStream) {
        if t <= self.now {
            return;
        }
        if t < self.switch_at {
            self.now = t;
            return;
        }
        // The current sojourn ended at `switch_at`, in the gap: the chain entered the other
        // state there, then ran freely for `gap`.
        let entered = self.state.other();
        let gap_ns = t.saturating_since(self.switch_at).as_nanos() as f64;
        let rate_out = 1.0 / self.mean_ns[entered.index()];
        let rate_back = 1.0 / self.mean_ns[entered.other().index()];
        let total = rate_out + rate_back;
        let p_other = rate_out / total * -libm::expm1(-total * gap_ns);
        self.state = if rng.bernoulli(p_other) {
            entered.other()
        } else {
            entered
        };
        self.now = t;
        self.switch_at = t.saturating_add(self.sojourn(rng));
    }

    /// Walks the timeline from the resolved point to `until`, returning the time spent in
    /// each state on the way.
    pub(crate) fn expose(&mut self, until: SimTime, rng: &mut RngStream) -> Exposure {
        let mut exposure = [0u64; 2];
        self.walk(until, rng, |state, ns| exposure[state.index()] += ns);
        exposure
    }

    /// Walks the timeline from the resolved point to `until`, calling `stretch` with each
    /// state in turn and the nanoseconds spent in it (in order; FEC needs where in the frame
    /// the Bad stretches fall, not only their sum).
    pub(crate) fn walk(
        &mut self,
        until: SimTime,
        rng: &mut RngStream,
        mut stretch: impl FnMut(ChannelState, u64),
    ) {
        if until <= self.now {
            return;
        }
        while self.switch_at < until {
            stretch(self.state, (self.switch_at - self.now).as_nanos());
            self.now = self.switch_at;
            self.state = self.state.other();
            self.switch_at = self.now.saturating_add(self.sojourn(rng));
        }
        stretch(self.state, (until - self.now).as_nanos());
        self.now = until;
    }
}
