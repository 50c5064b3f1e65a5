//! Radio energy by state (the survey's §3.1, "The energy-throughput tradeoff"): how long each
//! radio spends transmitting, receiving, idle and asleep, and the joules that costs at a
//! profile's power per state, E = Σ P_state · t_state.
//!
//! What is accounted, per radio (a member of a cell's medium, or one end of a point-to-point
//! wireless link):
//! - **transmit** while the radio sends a frame (from its first to its last bit);
//! - **receive** while a frame arrives at it and it is not transmitting: every arrival counts,
//!   also one addressed to another station or destroyed by a collision or an error (the radio
//!   demodulates it all the same; Feeney & Nilsson, INFOCOM 2001, measure such "discard"
//!   costs too). On a full-duplex link a radio that transmits while a frame arrives is counted
//!   as transmitting;
//! - **idle** for the rest of the time it is attached (on a link: the whole run; in a cell:
//!   while it is a member);
//! - **sleep** from the time it leaves a cell until it joins again, or the end of the run.
//!   No MAC in lastmile dozes (802.11 power save is not modelled), so only a station that
//!   left its cell sleeps; a real card between cells would scan, at about receive power.
//!
//! The window is the run: from the radio's first attachment (time zero for every radio the
//! scenario builds) to the run's end, which for a run whose flows all finish is the last
//! delivery. Intervals are recorded when they become known (a transmission at its start, an
//! arrival when its sender starts), so every new interval starts at or after `now`; the
//! unions keep only the intervals that may still overlap a later one.
//!
//! Power profiles (W), checked at their sources:
//! - `ns3` (the default): ns-3's `WifiRadioEnergyModel` default currents — TX 0.380 A, RX
//!   0.313 A, idle 0.273 A, sleep 0.033 A (`src/wifi/model/wifi-radio-energy-model.cc`) — at
//!   its `BasicEnergySource` default supply of 3.0 V (`src/energy/model/basic-energy-source.cc`):
//!   1.14, 0.939, 0.819 and 0.099 W. The design notes attribute the currents to Halperin et
//!   al.'s 802.11n card measurements (HotPower 2010); ns-3's source does not say.
//! - `ns2`: ns-2's `WirelessPhy` defaults, which its comment says assume "AT&T's Wavelan
//!   PCMCIA card" (`mac/wireless-phy.cc`): TX 0.660 W, RX 0.395 W, idle 0 (its 0.035 W line is
//!   commented out), sleep 0. With idle at zero, energy follows airtime alone: the survey's
//!   reading of overhead as the cost of energy.
//!
//! Left out: per-packet fixed costs (Feeney & Nilsson's linear E = m·size + b; their
//! coefficients could not be checked at the source), state-transition time and power,
//! transmit power control, the CPU.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{SimDuration, SimTime};

/// A radio's power in each state, in watts.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct PowerProfile {
    pub transmit_w: f64,
    pub receive_w: f64,
    pub idle_w: f64,
    pub sleep_w: f64,
}

impl PowerProfile {
    /// ns-3's `WifiRadioEnergyModel` currents (0.380, 0.313, 0.273, 0.033 A) at its
    /// `BasicEnergySource`'s 3.0 V.
    pub const NS3: PowerProfile = PowerProfile {
        transmit_w: 1.14,
        receive_w: 0.939,
        idle_w: 0.819,
        sleep_w: 0.099,
    };
    /// ns-2's `WirelessPhy` (`Pt_consume_`, `Pr_consume_`, `P_idle_`, `P_sleep_`), "AT&T's
    /// Wavelan PCMCIA card".
    pub const NS2: PowerProfile = PowerProfile {
        transmit_w: 0.660,
        receive_w: 0.395,
        idle_w: 0.0,
        sleep_w: 0.0,
    };
}

/// The named power profiles of `[energy]`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EnergyProfileKind {
    /// ns-3's `WifiRadioEnergyModel` defaults at 3.0 V: transmit 1.14 W, receive 0.939 W,
    /// idle 0.819 W, sleep 0.099 W.
    #[default]
    Ns3,
    /// ns-2's `WirelessPhy` defaults ("AT&T's Wavelan PCMCIA card"): transmit 0.660 W,
    /// receive 0.395 W, idle 0, sleep 0.
    Ns2,
}

impl EnergyProfileKind {
    pub fn name(self) -> &'static str {
        match self {
            EnergyProfileKind::Ns3 => "ns3",
            EnergyProfileKind::Ns2 => "ns2",
        }
    }

    pub fn powers(self) -> PowerProfile {
        match self {
            EnergyProfileKind::Ns3 => PowerProfile::NS3,
            EnergyProfileKind::Ns2 => PowerProfile::NS2,
        }
    }
}

/// The radios' power per state (`[energy]`): a named profile, any state's power replaced.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnergySpec {
    /// The power profile: "ns3" (ns-3's WifiRadioEnergyModel defaults: 1.14 / 0.939 /
    /// 0.819 / 0.099 W) or "ns2" (ns-2's WirelessPhy, a WaveLAN card: 0.660 / 0.395 / 0 /
    /// 0 W). Default "ns3".
    #[serde(default)]
    pub profile: EnergyProfileKind,
    /// Transmit power in watts, replacing the profile's. Default: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transmit_w: Option<f64>,
    /// Receive power in watts. Default: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_w: Option<f64>,
    /// Idle (attached, neither sending nor receiving) power in watts. Default: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_w: Option<f64>,
    /// Sleep power in watts. Default: the profile's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sleep_w: Option<f64>,
}

impl EnergySpec {
    /// The powers in use: the profile's, with the ones given here instead.
    pub fn powers(&self) -> PowerProfile {
        let p = self.profile.powers();
        PowerProfile {
            transmit_w: self.transmit_w.unwrap_or(p.transmit_w),
            receive_w: self.receive_w.unwrap_or(p.receive_w),
            idle_w: self.idle_w.unwrap_or(p.idle_w),
            sleep_w: self.sleep_w.unwrap_or(p.sleep_w),
        }
    }

    /// The first power that is not a finite number of watts ≥ 0, as (key, value).
    pub fn invalid_power(&self) -> Option<(&'static str, f64)> {
        [
            ("transmit_w", self.transmit_w),
            ("receive_w", self.receive_w),
            ("idle_w", self.idle_w),
            ("sleep_w", self.sleep_w),
        ]
        .into_iter()
        .find_map(|(key, w)| {
            w.filter(|w| !(w.is_finite() && *w >= 0.0))
                .map(|w| (key, w))
        })
    }
}

/// Time spent in each radio state.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct StateTimes {
    pub transmit: SimDuration,
    pub receive: SimDuration,
    pub idle: SimDuration,
    pub sleep: SimDuration,
}

impl StateTimes {
    /// Adds another radio's times (a node with several radios).
    pub fn add(&mut self, o: &StateTimes) {
        self.transmit += o.transmit;
        self.receive += o.receive;
        self.idle += o.idle;
        self.sleep += o.sleep;
    }

    /// Joules per state at `p`.
    pub fn energy(&self, p: &PowerProfile) -> StateEnergy {
        StateEnergy {
            transmit_j: p.transmit_w * self.transmit.as_secs_f64(),
            receive_j: p.receive_w * self.receive.as_secs_f64(),
            idle_j: p.idle_w * self.idle.as_secs_f64(),
            sleep_j: p.sleep_w * self.sleep.as_secs_f64(),
        }
    }
}

/// Joules spent in each radio state.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct StateEnergy {
    pub transmit_j: f64,
    pub receive_j: f64,
    pub idle_j: f64,
    pub sleep_j: f64,
}

impl StateEnergy {
    pub fn total_j(&self) -> f64 {
        self.transmit_j + self.receive_j + self.idle_j + self.sleep_j
    }
}

/// The length of a union of intervals added with starts at or after the latest `now`.
///
/// A radio's intervals come almost always in order of their starts (its transmissions
/// start when it sends, its arrivals one propagation delay after their senders start), so
/// the union keeps its latest open interval apart: an addition that starts at or after it
/// extends it or, once it has ended by `now`, settles it and takes its place. The rest
/// (an addition that starts before the latest one, or after a gap while the latest has not
/// ended yet) goes through the general merge, on the open intervals before the latest.
#[derive(Clone, Debug, Default)]
struct IntervalUnion {
    /// Length of the intervals that ended by the latest `now` (no later one can overlap them).
    settled: SimDuration,
    /// The latest open interval (`(0, 0)`, empty, before the first and after a cut).
    last: (SimTime, SimTime),
    /// The open intervals before `last`, disjoint, sorted and apart from it; usually none.
    earlier: Vec<(SimTime, SimTime)>,
}

impl IntervalUnion {
    #[inline(always)]
    fn add(&mut self, now: SimTime, start: SimTime, end: SimTime) {
        if end <= start {
            return;
        }
        let last = &mut self.last;
        if start >= last.0 {
            if start <= last.1 {
                last.1 = last.1.max(end);
                return;
            }
            if last.1 <= now && self.earlier.is_empty() {
                self.settled += last.1.saturating_since(last.0);
                *last = (start, end);
                return;
            }
        }
        self.merge(now, start, end);
    }

    /// Adds an interval that starts before the latest open one, or after it while
    /// intervals that have not ended by `now` are open.
    #[cold]
    #[inline(never)]
    fn merge(&mut self, now: SimTime, start: SimTime, end: SimTime) {
        let open = &mut self.earlier;
        open.push(self.last);
        // The open intervals are disjoint and sorted, so their ends are sorted too: those
        // that ended by `now` are a prefix.
        let ended = open.partition_point(|&(_, b)| b <= now);
        for &(a, b) in &open[..ended] {
            self.settled += b.saturating_since(a);
        }
        open.drain(..ended);
        // The ones the new interval overlaps or touches are consecutive, `first..past`, and
        // merging them cannot reach any other (the intervals are apart).
        let first = open.partition_point(|&(_, b)| b < start);
        let past = open.partition_point(|&(a, _)| a <= end);
        if first == past {
            open.insert(first, (start, end));
        } else {
            open[first] = (start.min(open[first].0), end.max(open[past - 1].1));
            open.drain(first + 1..past);
        }
        self.last = open.pop().unwrap_or_default();
    }

    /// Every open interval: the earlier ones, then the latest.
    fn open(&self) -> impl Iterator<Item = &(SimTime, SimTime)> {
        self.earlier.iter().chain(std::iter::once(&self.last))
    }

    /// Cuts every interval at `at` and settles them all (the radio is detached at `at`).
    fn cut(&mut self, at: SimTime) {
        self.settled = self.length_until(at);
        self.earlier.clear();
        self.last = Default::default();
    }

    /// The union's length up to `end`.
    fn length_until(&self, end: SimTime) -> SimDuration {
        self.open().fold(self.settled, |acc, &(a, b)| {
            acc + b.min(end).saturating_since(a)
        })
    }
}

/// One radio's time in each state, as transmissions and arrivals are reported to it.
#[derive(Clone, Debug)]
pub struct RadioMeter {
    transmit: IntervalUnion,
    /// Transmitting or receiving.
    busy: IntervalUnion,
    /// Attached time before `attached_since` (closed attachments).
    attached: SimDuration,
    attached_since: Option<SimTime>,
    first_attached: SimTime,
}

impl RadioMeter {
    /// A radio attached (awake) from `now`.
    pub fn attached_at(now: SimTime) -> Self {
        RadioMeter {
            transmit: IntervalUnion::default(),
            busy: IntervalUnion::default(),
            attached: SimDuration::ZERO,
            attached_since: Some(now),
            first_attached: now,
        }
    }

    pub fn is_attached(&self) -> bool {
        self.attached_since.is_some()
    }

    /// The radio sends from `start` to `end` (known at `now` ≤ `start`).
    pub fn transmit(&mut self, now: SimTime, start: SimTime, end: SimTime) {
        if self.is_attached() {
            self.transmit.add(now, start, end);
            self.busy.add(now, start, end);
        }
    }

    /// A frame arrives from `start` to `end` (known at `now` ≤ `start`).
    pub fn receive(&mut self, now: SimTime, start: SimTime, end: SimTime) {
        if self.is_attached() {
            self.busy.add(now, start, end);
        }
    }

    /// The radio leaves its medium at `now`: what it was sending or receiving stops there,
    /// and it sleeps until `attach`.
    pub fn detach(&mut self, now: SimTime) {
        if let Some(since) = self.attached_since.take() {
            self.attached += now.saturating_since(since);
            self.transmit.cut(now);
            self.busy.cut(now);
        }
    }

    /// The radio is attached (awake) again from `now`.
    pub fn attach(&mut self, now: SimTime) {
        if self.attached_since.is_none() {
            self.attached_since = Some(now);
        }
    }

    /// Time in each state from the first attachment to `end`.
    pub fn times(&self, end: SimTime) -> StateTimes {
        let attached = self.attached
            + self
                .attached_since
                .map_or(SimDuration::ZERO, |since| end.saturating_since(since));
        let transmit = self.transmit.length_until(end);
        let busy = self.busy.length_until(end);
        StateTimes {
            transmit,
            receive: busy.saturating_sub(transmit),
            idle: attached.saturating_sub(busy),
            sleep: end
                .saturating_since(self.first_attached)
                .saturating_sub(attached),
        }
    }
}

/// An interval `[start, end)` of a radio's activity, in nanoseconds since time zero.
type Span = (u64, u64);

/// The radio at one end of a full-duplex point-to-point link, attached for the whole run:
/// the same accounting as [`RadioMeter`] for what such a radio sees, cheaper per frame.
///
/// Its transmissions are one direction's frames, one after the other, and its arrivals
/// the other direction's frames one propagation delay later: each is a sequence of
/// disjoint intervals added in order. So the time it is busy is Σ transmit + Σ receive −
/// Σ |t ∩ r| over the pairs that overlap, each pair's overlap counted once, when the later
/// of the two is added. Every interval starts at or after the `now` it is added at, so
/// an arrival can overlap only the last transmission (the ones before it ended when it
/// started), and a transmission only the arrivals that end after its start: the retained
/// ones, which end in order, so the ended ones leave from the front. A union (as
/// `RadioMeter` keeps) costs an insertion in the middle whenever an arrival already known
/// lies ahead of a new transmission; here each addition looks at the few intervals it
/// overlaps. Times are kept as integer nanoseconds (sums of durations within the run,
/// which cannot overflow a `u64`), exactly as `SimDuration` would add them.
#[derive(Clone, Debug, Default)]
pub struct DuplexRadioMeter {
    /// Σ |t| and Σ |r| over every interval added, and Σ |t ∩ r| over the overlapping
    /// pairs, in nanoseconds.
    transmit_total_ns: u64,
    receive_total_ns: u64,
    overlap_total_ns: u64,
    /// The last transmission (empty before the first).
    last_transmit: Span,
    /// The arrivals that may still overlap a later transmission, in order:
    /// `receives[first..]` (a transmission moves `first` past the ended ones; the vector is
    /// compacted instead of grown when half of it is behind `first`). Ended ones not
    /// dropped yet add nothing anywhere.
    receives: Vec<Span>,
    first: usize,
}

/// |a ∩ b| in nanoseconds.
#[inline(always)]
fn overlap(a: Span, b: Span) -> u64 {
    a.1.min(b.1).saturating_sub(a.0.max(b.0))
}

/// |s past `end`| in nanoseconds.
#[inline]
fn past(s: Span, end: u64) -> u64 {
    s.1.saturating_sub(s.0.max(end))
}

impl DuplexRadioMeter {
    /// The radio sends from `start` to `end` (known at `now` ≤ `start`; after the end of
    /// its previous transmission).
    #[inline]
    pub fn transmit(&mut self, now: SimTime, start: SimTime, end: SimTime) {
        let span = (start.as_nanos(), end.as_nanos());
        if span.1 <= span.0 {
            return;
        }
        self.transmit_total_ns += span.1 - span.0;
        self.last_transmit = span;
        // The arrivals that ended by `now` leave (no later transmission can overlap them);
        // the live ones that start before this one ends overlap it.
        let (now, receives) = (now.as_nanos(), &self.receives);
        let mut i = self.first;
        while let Some(r) = receives.get(i) {
            if r.1 > now {
                break;
            }
            i += 1;
        }
        self.first = i;
        while let Some(&r) = receives.get(i) {
            if r.0 >= span.1 {
                break;
            }
            self.overlap_total_ns += overlap(r, span);
            i += 1;
        }
    }

    /// A frame arrives from `start` to `end` (known at `now` ≤ `start`; after the end of
    /// the previous arrival).
    #[inline]
    pub fn receive(&mut self, now: SimTime, start: SimTime, end: SimTime) {
        let span = (start.as_nanos(), end.as_nanos());
        if span.1 <= span.0 {
            return;
        }
        self.receive_total_ns += span.1 - span.0;
        self.overlap_total_ns += overlap(self.last_transmit, span);
        if self.receives.len() == self.receives.capacity() {
            self.make_room(now.as_nanos());
        }
        self.receives.push(span);
    }

    /// When the arrivals' vector is full: the ones that ended by `now` leave (a radio that
    /// seldom transmits drops them only here), the rest move to the front when that frees
    /// at least half of it, and the vector keeps room for 16 more.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, now: u64) {
        let live = &self.receives[self.first..];
        self.first += live.iter().take_while(|&&(_, b)| b <= now).count();
        if 2 * self.first >= self.receives.len() {
            self.receives.drain(..self.first);
            self.first = 0;
        }
        self.receives.reserve(16);
    }

    /// Time in each state from time zero to `end` (at or after the last addition's `now`):
    /// what lies past `end` is in the last transmission and the retained arrivals, and is
    /// taken off.
    pub fn times(&self, end: SimTime) -> StateTimes {
        let d = SimDuration::from_nanos;
        let (t, end_ns) = (self.last_transmit, end.as_nanos());
        let transmit = d(self.transmit_total_ns).saturating_sub(d(past(t, end_ns)));
        let cut = (t.0.max(end_ns), t.1.max(end_ns));
        let (mut receive_past, mut overlap_past) = (SimDuration::ZERO, SimDuration::ZERO);
        for &r in &self.receives[self.first..] {
            receive_past += d(past(r, end_ns));
            overlap_past += d(overlap(r, cut));
        }
        let busy_past = d(past(t, end_ns)) + receive_past - overlap_past;
        let busy = (d(self.transmit_total_ns) + d(self.receive_total_ns)
            - d(self.overlap_total_ns))
        .saturating_sub(busy_past);
        let attached = end.saturating_since(SimTime::ZERO);
        StateTimes {
            transmit,
            receive: busy.saturating_sub(transmit),
            idle: attached.saturating_sub(busy),
            sleep: SimDuration::ZERO,
        }
    }
}

#[cfg(test)]
mod tests;
