//! Pieces every agent shares: the occupancy meter behind the buffer metrics, the common
//! counters, and the `agent_rtt` trace record and its columns.

use crate::engine::{SimDuration, SimTime};
use crate::ids::FlowId;
use crate::metrics::{Column, TraceTable};

/// Occupancy of a cache or buffer in bytes, as a maximum and a **time-weighted** mean
/// (the integral of the occupancy over time divided by the time from the first change to
/// the end of the run).
#[derive(Clone, Copy, Debug, Default)]
pub struct Occupancy {
    current: u64,
    max: u64,
    since: Option<SimTime>,
    first: Option<SimTime>,
    /// Byte·nanoseconds.
    integral: u128,
}

impl Occupancy {
    pub fn current(&self) -> u64 {
        self.current
    }
    pub fn max(&self) -> u64 {
        self.max
    }
    /// The occupancy becomes `bytes` at `now`.
    pub fn set(&mut self, now: SimTime, bytes: u64) {
        if let Some(since) = self.since {
            self.integral +=
                u128::from(self.current) * u128::from(now.saturating_since(since).as_nanos());
        }
        self.first.get_or_insert(now);
        self.since = Some(now);
        self.current = bytes;
        self.max = self.max.max(bytes);
    }
    /// The time-weighted mean from the first change up to `end`.
    pub fn mean(&self, end: SimTime) -> f64 {
        let (Some(first), Some(since)) = (self.first, self.since) else {
            return 0.0;
        };
        let tail = u128::from(self.current) * u128::from(end.saturating_since(since).as_nanos());
        let span = end.saturating_since(first).as_nanos();
        if span == 0 {
            return self.current as f64;
        }
        (self.integral + tail) as f64 / span as f64
    }
}

/// Counters common to the agents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgentCounters {
    /// Segments the agent sent again on its own (dupack-, timer- or persist-driven).
    pub local_retransmissions: u64,
    /// Duplicate ACKs from the mobile the agent kept from the fixed host.
    pub suppressed_dupacks: u64,
    /// Expiries of the agent's retransmission timer that retransmitted something.
    pub timer_expiries: u64,
    /// RTT samples the agent took of the wireless hop.
    pub rtt_samples: u64,
}

/// A trace record from an agent.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum AgentTrace {
    /// The agent's wireless-hop RTT estimate and the timeout it implies changed.
    Rtt {
        flow: FlowId,
        rtt: SimDuration,
        timeout: SimDuration,
    },
}

/// The `agent_rtt` trace: time_s, flow, rtt_s, timeout_s.
#[derive(Clone, Debug, Default)]
pub struct AgentTraceColumns {
    pub enabled: bool,
    time_s: Vec<f64>,
    flow: Vec<u32>,
    rtt_s: Vec<f64>,
    timeout_s: Vec<f64>,
}

impl AgentTraceColumns {
    pub fn new(enabled: bool) -> Self {
        AgentTraceColumns {
            enabled,
            ..Default::default()
        }
    }
    pub fn push(&mut self, now: SimTime, ev: &AgentTrace) {
        if !self.enabled {
            return;
        }
        let AgentTrace::Rtt { flow, rtt, timeout } = *ev;
        self.time_s.push(now.as_secs_f64());
        self.flow.push(flow.0);
        self.rtt_s.push(rtt.as_secs_f64());
        self.timeout_s.push(timeout.as_secs_f64());
    }
    /// The table, if the trace was asked for.
    pub fn into_table(self) -> Option<TraceTable> {
        self.enabled.then(|| {
            TraceTable::new(
                "agent_rtt",
                &[
                    ("time_s", Column::F64(self.time_s)),
                    ("flow", Column::U32(self.flow)),
                    ("rtt_s", Column::F64(self.rtt_s)),
                    ("timeout_s", Column::F64(self.timeout_s)),
                ],
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn occupancy_mean_is_time_weighted() {
        let mut o = Occupancy::default();
        o.set(at(0), 100);
        o.set(at(10), 300);
        o.set(at(20), 0);
        // 100 for 10 ms, 300 for 10 ms, 0 for 20 ms → 4000 / 40.
        assert!((o.mean(at(40)) - 100.0).abs() < 1e-9);
        assert_eq!(o.max(), 300);
    }
}
