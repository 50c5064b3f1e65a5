//! Pieces every agent shares: the per-connection table (`Conns`), the occupancy meter
//! behind the buffer metrics, the common counters, and the `agent_rtt` trace record and its
//! columns.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::{SimDuration, SimTime};
use crate::ids::FlowId;
use crate::metrics::{Column, TraceTable};

/// What the table of connections needs to know of one connection's state.
pub trait ConnState {
    /// When the connection next needs the agent's timer.
    fn deadline(&self) -> Option<SimTime>;
    /// The payload bytes it holds at the base station (the occupancy metric).
    fn held_bytes(&self) -> u64;
}

/// An agent's connections, keyed by 4-tuple (ordered, so that no iteration depends on
/// hashing), with an index of their deadlines and the total of the bytes they hold, kept
/// up to date by `update`: the agent's `poll_timeout` and its occupancy cost O(log n) per
/// input, not O(connections) — one base station may carry thousands of flows.
#[derive(Clone, Debug)]
pub struct Conns<K, C> {
    map: BTreeMap<K, C>,
    deadlines: BTreeSet<(SimTime, K)>,
    held: u64,
}

impl<K, C> Default for Conns<K, C> {
    fn default() -> Self {
        Conns {
            map: BTreeMap::new(),
            deadlines: BTreeSet::new(),
            held: 0,
        }
    }
}

impl<K: Ord + Copy, C: ConnState> Conns<K, C> {
    pub fn get(&self, key: &K) -> Option<&C> {
        self.map.get(key)
    }
    pub fn contains(&self, key: &K) -> bool {
        self.map.contains_key(key)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&K, &C)> + '_ {
        self.map.iter()
    }
    pub fn values(&self) -> impl Iterator<Item = &C> + '_ {
        self.map.values()
    }
    /// Connection `key` is now `conn` (a new one, or a fresh start on the same 4-tuple).
    pub fn insert(&mut self, key: K, conn: C) {
        self.forget(&key);
        self.remember(key, &conn);
        self.map.insert(key, conn);
    }
    /// Runs `f` on connection `key`, if there is one, and re-indexes it.
    pub fn update<R>(&mut self, key: &K, f: impl FnOnce(&mut C) -> R) -> Option<R> {
        let c = self.map.get_mut(key)?;
        let (old_deadline, old_held) = (c.deadline(), c.held_bytes());
        let r = f(c);
        let (deadline, held) = (c.deadline(), c.held_bytes());
        self.held = self.held - old_held + held;
        if deadline != old_deadline {
            if let Some(t) = old_deadline {
                self.deadlines.remove(&(t, *key));
            }
            if let Some(t) = deadline {
                self.deadlines.insert((t, *key));
            }
        }
        Some(r)
    }
    /// Drops connection `key`.
    pub fn remove(&mut self, key: &K) {
        self.forget(key);
        self.map.remove(key);
    }
    /// Keeps the connections for which `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &C) -> bool) {
        let gone: Vec<K> = self
            .map
            .iter()
            .filter(|(k, c)| !keep(k, c))
            .map(|(k, _)| *k)
            .collect();
        for key in gone {
            self.forget(&key);
            self.map.remove(&key);
        }
    }
    /// Takes out the connections whose key satisfies `take`, in key order (a mobile's
    /// connections leaving with it, `sim::mobility`).
    pub fn take_where(&mut self, mut take: impl FnMut(&K) -> bool) -> Vec<(K, C)> {
        let keys: Vec<K> = self.map.keys().filter(|k| take(k)).copied().collect();
        keys.into_iter()
            .filter_map(|k| {
                self.forget(&k);
                self.map.remove(&k).map(|c| (k, c))
            })
            .collect()
    }
    /// The earliest deadline of any connection.
    pub fn earliest(&self) -> Option<SimTime> {
        self.deadlines.first().map(|&(t, _)| t)
    }
    /// The connections whose deadline has come, in key order.
    pub fn due(&self, now: SimTime) -> Vec<K> {
        let mut due: Vec<K> = self
            .deadlines
            .iter()
            .take_while(|&&(t, _)| t <= now)
            .map(|&(_, k)| k)
            .collect();
        due.sort_unstable();
        due
    }
    /// The bytes all connections hold.
    pub fn held_bytes(&self) -> u64 {
        self.held
    }

    fn forget(&mut self, key: &K) {
        if let Some(old) = self.map.get(key) {
            self.held -= old.held_bytes();
            if let Some(t) = old.deadline() {
                self.deadlines.remove(&(t, *key));
            }
        }
    }
    fn remember(&mut self, key: K, conn: &C) {
        self.held += conn.held_bytes();
        if let Some(t) = conn.deadline() {
            self.deadlines.insert((t, key));
        }
    }
}

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

/// What a caching agent on a base station does with a mobile's connections when the
/// mobile leaves its cell (`[[mobile]]`, docs/mobility.md).
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Deserialize,
    serde::Serialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OnHandoff {
    /// The state is soft and lost with the cell: the new base station starts afresh from
    /// the packets it sees.
    #[default]
    Drop,
    /// The state goes to the agent of the mobile's new base station (the Snoop paper's
    /// neighbouring base stations primed by multicast), arriving `handoff_latency` after
    /// the mobile joins it.
    Transfer,
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

    #[derive(Clone, Debug)]
    struct Conn(Option<u64>, u64);
    impl ConnState for Conn {
        fn deadline(&self) -> Option<SimTime> {
            self.0.map(at)
        }
        fn held_bytes(&self) -> u64 {
            self.1
        }
    }

    #[test]
    fn conns_index_the_earliest_deadline_and_the_bytes_held_as_they_change() {
        let mut conns: Conns<u32, Conn> = Conns::default();
        conns.insert(3, Conn(Some(30), 100));
        conns.insert(1, Conn(Some(30), 50));
        conns.insert(2, Conn(None, 10));
        assert_eq!((conns.earliest(), conns.held_bytes()), (Some(at(30)), 160));
        conns.update(&2, |c| *c = Conn(Some(10), 0));
        assert_eq!((conns.earliest(), conns.held_bytes()), (Some(at(10)), 150));
        assert_eq!(conns.due(at(30)), [1, 2, 3], "in key order");
        conns.update(&2, |c| c.0 = None);
        conns.insert(3, Conn(Some(40), 5)); // a fresh start replaces the old entry
        assert_eq!(conns.due(at(35)), [1]);
        conns.retain(|&k, _| k != 1);
        assert_eq!((conns.earliest(), conns.held_bytes()), (Some(at(40)), 5));
        assert_eq!(conns.update(&9, |_| ()), None);
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
