//! The energy model driven by scripted timelines: what a radio does, second by second, and
//! the joules that must come out.

use super::*;

fn t(s: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs(s)
}
fn ms(x: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_millis(x)
}
fn secs(s: u64) -> SimDuration {
    SimDuration::from_secs(s)
}

/// 100 s: sends 0-10 s, receives 20-40 s, idle until it leaves at 90 s, asleep to 100 s.
fn scripted_radio() -> RadioMeter {
    let mut r = RadioMeter::attached_at(t(0));
    r.transmit(t(0), t(0), t(10));
    r.receive(t(15), t(20), t(40));
    r.detach(t(90));
    r
}

#[test]
fn scripted_transmit_receive_idle_sleep_timeline_gives_its_energy_to_the_joule() {
    let times = scripted_radio().times(t(100));
    assert_eq!(
        times,
        StateTimes {
            transmit: secs(10),
            receive: secs(20),
            idle: secs(60),
            sleep: secs(10),
        }
    );
    // ns-3 profile: 10·1.14 + 20·0.939 + 60·0.819 + 10·0.099 = 80.31 J.
    let e = times.energy(&PowerProfile::NS3);
    assert!((e.transmit_j - 11.4).abs() < 1e-9, "{e:?}");
    assert!((e.receive_j - 18.78).abs() < 1e-9, "{e:?}");
    assert!((e.idle_j - 49.14).abs() < 1e-9, "{e:?}");
    assert!((e.sleep_j - 0.99).abs() < 1e-9, "{e:?}");
    assert!((e.total_j() - 80.31).abs() < 1e-9);
    assert_eq!(e.total_j().round(), 80.0);
    // ns-2 profile (idle and sleep free): 10·0.660 + 20·0.395 = 14.5 J.
    assert!((times.energy(&PowerProfile::NS2).total_j() - 14.5).abs() < 1e-9);
}

#[test]
fn receiving_while_transmitting_counts_as_transmitting_once() {
    // Full duplex: an ACK arrives during the radio's own 10 s transmission.
    let mut r = RadioMeter::attached_at(t(0));
    r.transmit(t(0), t(0), t(10));
    r.receive(t(2), t(3), t(12));
    let times = r.times(t(20));
    assert_eq!(times.transmit, secs(10));
    assert_eq!(times.receive, secs(2), "only 10-12 s is receive-only");
    assert_eq!(times.idle, secs(8));
    assert_eq!(times.sleep, SimDuration::ZERO);
}

#[test]
fn overlapping_arrivals_are_one_stretch_of_receive() {
    // A collision: two frames overlap at the receiver, 1-5 s and 3-8 s, then one touching
    // the second at 8 s, registered out of order of their starts but never before `now`.
    let mut r = RadioMeter::attached_at(t(0));
    r.receive(t(0), t(3), t(8));
    r.receive(t(0), t(1), t(5));
    r.receive(t(1), t(8), t(9));
    let times = r.times(t(10));
    assert_eq!(times.receive, secs(8));
    assert_eq!(times.idle, secs(2));
}

#[test]
fn settled_intervals_are_not_counted_twice() {
    // Many short frames, each added after the previous ended: the union settles as it goes.
    let mut r = RadioMeter::attached_at(t(0));
    for i in 0..1000 {
        r.transmit(ms(10 * i), ms(10 * i), ms(10 * i + 4));
        r.receive(ms(10 * i), ms(10 * i + 5), ms(10 * i + 7));
    }
    let times = r.times(t(10));
    assert_eq!(times.transmit, SimDuration::from_millis(4000));
    assert_eq!(times.receive, SimDuration::from_millis(2000));
    assert_eq!(times.idle, SimDuration::from_millis(4000));
}

#[test]
fn a_frame_still_on_the_air_at_the_end_counts_up_to_the_end() {
    let mut r = RadioMeter::attached_at(t(0));
    r.transmit(t(8), t(8), t(12));
    let times = r.times(t(10));
    assert_eq!(times.transmit, secs(2));
    assert_eq!(times.idle, secs(8));
}

#[test]
fn a_radio_that_leaves_stops_at_once_and_sleeps_until_it_joins_again() {
    let mut r = RadioMeter::attached_at(t(10));
    r.receive(t(10), t(20), t(30));
    r.detach(t(25)); // Leaves mid-frame: only 20-25 s were received.
    r.receive(t(26), t(27), t(28)); // Not a member: nothing arrives at it.
    r.attach(t(40));
    r.transmit(t(45), t(45), t(46));
    let times = r.times(t(50));
    assert_eq!(times.receive, secs(5));
    assert_eq!(times.transmit, secs(1));
    assert_eq!(
        times.idle,
        secs(10 + 9),
        "15 s attached before, 10 s after, less 6 s busy"
    );
    assert_eq!(
        times.sleep,
        secs(15),
        "25-40 s; nothing before its first attachment"
    );
}

#[test]
fn energy_spec_replaces_only_the_powers_it_names() {
    let spec = EnergySpec {
        profile: EnergyProfileKind::Ns2,
        idle_w: Some(0.8),
        ..EnergySpec::default()
    };
    let p = spec.powers();
    assert_eq!(p.transmit_w, 0.660);
    assert_eq!(p.idle_w, 0.8);
    assert_eq!(spec.invalid_power(), None);
    let bad = EnergySpec {
        sleep_w: Some(-1.0),
        ..EnergySpec::default()
    };
    assert_eq!(bad.invalid_power(), Some(("sleep_w", -1.0)));
    assert_eq!(EnergySpec::default().powers(), PowerProfile::NS3);
}

proptest::proptest! {
    /// Intervals added in any order the engine adds them (each starting at or after the
    /// `now` it is added at, `now` never going back) measure as the union of all of them.
    #[test]
    fn the_union_is_the_union_of_every_interval_added(
        adds in proptest::collection::vec((0u64..20, 0u64..30, 0u64..40), 1..200)
    ) {
        let mut union = IntervalUnion::default();
        let mut covered = std::collections::BTreeSet::new();
        let mut now = 0u64;
        for &(step, lead, len) in &adds {
            now += step;
            let (start, end) = (now + lead, now + lead + len);
            union.add(SimTime::from_nanos(now), SimTime::from_nanos(start), SimTime::from_nanos(end));
            covered.extend(start..end);
        }
        let horizon = SimTime::from_nanos(now + 100);
        proptest::prop_assert_eq!(union.length_until(horizon).as_nanos(), covered.len() as u64);
    }
}

#[test]
fn a_duplex_radio_counts_an_arrival_during_its_own_transmission_once() {
    // As `receiving_while_transmitting_counts_as_transmitting_once`, on a link's radio: the
    // ACK arriving at 3-12 s is known before the radio's next frame, 11-13 s, starts.
    let mut r = DuplexRadioMeter::default();
    r.transmit(t(0), t(0), t(10));
    r.receive(t(2), t(3), t(12));
    r.transmit(t(11), t(11), t(13));
    let times = r.times(t(20));
    assert_eq!(times.transmit, secs(12));
    assert_eq!(times.receive, secs(1), "only 10-11 s is receive-only");
    assert_eq!(times.idle, secs(7));
    // At an end inside the frames: everything past 11.5 s is cut.
    let cut = r.times(ms(11_500));
    assert_eq!(cut.transmit, ms(10_500).saturating_since(SimTime::ZERO));
    assert_eq!(cut.receive, secs(1));
    assert_eq!(cut.idle, SimDuration::ZERO);
}

proptest::proptest! {
    /// A link's radio fed as the world feeds it — its own frames back to back or apart,
    /// the far end's frames one delay later, each told when it starts — measures exactly
    /// as the general `RadioMeter`, at any end from the last frame's start on.
    #[test]
    fn a_duplex_radio_measures_as_the_general_meter(
        ours in proptest::collection::vec((0u64..30, 1u64..20), 0..60),
        theirs in proptest::collection::vec((0u64..30, 1u64..20), 0..60),
        delay in 0u64..50,
        end_after in 0u64..80,
    ) {
        // (start, end, is ours) per frame: each side's frames one after the other.
        let mut frames = Vec::new();
        for (list, is_ours) in [(&ours, true), (&theirs, false)] {
            let mut free = 0u64;
            for &(gap, len) in list {
                let start = free + gap;
                frames.push((start, start + len, is_ours));
                free = start + len;
            }
        }
        frames.sort_by_key(|&(start, _, is_ours)| (start, !is_ours));
        let mut general = RadioMeter::attached_at(SimTime::ZERO);
        let mut duplex = DuplexRadioMeter::default();
        let n = SimTime::from_nanos;
        let mut now = 0;
        for &(start, end, is_ours) in &frames {
            now = start;
            if is_ours {
                general.transmit(n(now), n(start), n(end));
                duplex.transmit(n(now), n(start), n(end));
            } else {
                general.receive(n(now), n(start + delay), n(end + delay));
                duplex.receive(n(now), n(start + delay), n(end + delay));
            }
        }
        let end = n(now + end_after);
        proptest::prop_assert_eq!(duplex.times(end), general.times(end));
    }
}

/// A radio measured the plainest way: every interval reported while it was attached,
/// each cut at the detachment that followed it, and the unions' lengths found by sorting
/// all of them. The reference the meters must match to the nanosecond.
#[derive(Default)]
struct PlainRadio {
    /// (start, end, is a transmission), in nanoseconds.
    spans: Vec<(u64, u64, bool)>,
    /// Attachments: (from, until), `until` open while attached.
    attachments: Vec<(u64, Option<u64>)>,
}

impl PlainRadio {
    fn attached_at(now: u64) -> Self {
        PlainRadio {
            spans: Vec::new(),
            attachments: vec![(now, None)],
        }
    }

    fn is_attached(&self) -> bool {
        self.attachments.last().is_some_and(|a| a.1.is_none())
    }

    fn add(&mut self, start: u64, end: u64, transmit: bool) {
        if self.is_attached() {
            self.spans.push((start, end, transmit));
        }
    }

    fn detach(&mut self, now: u64) {
        if self.is_attached() {
            self.attachments.last_mut().unwrap().1 = Some(now);
            for s in &mut self.spans {
                s.1 = s.1.min(now);
            }
        }
    }

    fn attach(&mut self, now: u64) {
        if !self.is_attached() {
            self.attachments.push((now, None));
        }
    }

    /// |∪ spans ∩ [0, end)| over the spans `keep` selects.
    fn union_until(&self, end: u64, keep: impl Fn(bool) -> bool) -> u64 {
        let mut spans: Vec<(u64, u64)> = self
            .spans
            .iter()
            .filter(|s| keep(s.2))
            .map(|s| (s.0, s.1.min(end)))
            .filter(|s| s.0 < s.1)
            .collect();
        spans.sort_unstable();
        let (mut total, mut reach) = (0, 0);
        for (a, b) in spans {
            let from = a.max(reach);
            if b > from {
                total += b - from;
                reach = b;
            }
        }
        total
    }

    fn times(&self, end: u64) -> StateTimes {
        let d = SimDuration::from_nanos;
        let attached: u64 = self
            .attachments
            .iter()
            .map(|&(from, until)| until.unwrap_or(end).min(end).saturating_sub(from))
            .sum();
        let transmit = self.union_until(end, |t| t);
        let busy = self.union_until(end, |_| true);
        StateTimes {
            transmit: d(transmit),
            receive: d(busy - transmit),
            idle: d(attached.saturating_sub(busy)),
            sleep: d(end
                .saturating_sub(self.attachments[0].0)
                .saturating_sub(attached)),
        }
    }
}

/// Cell radios fed random timelines from a fixed seed — frames back to back and apart,
/// arrivals overlapping each other and the radio's own frames, arrivals out of the order
/// of their starts (senders at different distances), frames known well before they start,
/// members leaving mid-frame and joining again — measure as the plain union at many ends,
/// mid-frame ones included, after every step.
#[test]
fn a_cell_radio_measures_as_the_plain_union_of_its_intervals() {
    let mut rng = crate::engine::RngStream::derive(27, "energy/cell-equivalence");
    let n = SimTime::from_nanos;
    for _ in 0..300 {
        let first = rng.below(50);
        let mut meter = RadioMeter::attached_at(n(first));
        let mut plain = PlainRadio::attached_at(first);
        let (mut now, mut tx_free) = (first, first);
        // The propagation delays of this timeline's senders (one in a cell of equals).
        let delays: Vec<u64> = (0..1 + rng.below(3)).map(|_| rng.below(12)).collect();
        for _ in 0..rng.below(300) {
            now += [0, 1, rng.below(8), rng.below(60)][rng.below(4) as usize];
            let len = rng.below(40);
            match rng.below(20) {
                // Its own frame, now or after its previous one.
                0..=5 => {
                    let start = if rng.bernoulli(0.5) {
                        now
                    } else {
                        now.max(tx_free)
                    };
                    meter.transmit(n(now), n(start), n(start + len));
                    plain.add(start, start + len, true);
                    tx_free = start + len;
                }
                // A frame of another member, arriving one of the delays later.
                6..=16 => {
                    let start = now + delays[rng.below(delays.len() as u64) as usize];
                    meter.receive(n(now), n(start), n(start + len));
                    plain.add(start, start + len, false);
                }
                // Something known well ahead of its start.
                17 => {
                    let start = now + rng.below(100);
                    meter.receive(n(now), n(start), n(start + len));
                    plain.add(start, start + len, false);
                }
                18 => {
                    meter.detach(n(now));
                    plain.detach(now);
                }
                _ => {
                    meter.attach(n(now));
                    plain.attach(now);
                }
            }
            for end in [now, now + 1, now + rng.below(30), now + rng.below(200)] {
                assert_eq!(meter.times(n(end)), plain.times(end), "at {end} ns");
            }
        }
    }
}

/// Link radios fed random timelines from a fixed seed — their own frames back to back or
/// apart, the far end's arriving one delay later, overlapping them or not — measure as
/// the plain union at many ends after every frame, mid-frame ones included.
#[test]
fn a_duplex_radio_measures_as_the_plain_union_of_its_intervals() {
    let mut rng = crate::engine::RngStream::derive(27, "energy/duplex-equivalence");
    let n = SimTime::from_nanos;
    for _ in 0..300 {
        let mut meter = DuplexRadioMeter::default();
        let mut plain = PlainRadio::attached_at(0);
        let delay = [0, 1, rng.below(20), rng.below(400)][rng.below(4) as usize];
        let (mut now, mut ours_free, mut theirs_free) = (0, 0, 0);
        for _ in 0..rng.below(400) {
            now += [0, 1, rng.below(10), rng.below(80)][rng.below(4) as usize];
            let len = [1, rng.below(5), rng.below(50)][rng.below(3) as usize];
            if rng.bernoulli(0.5) {
                if now < ours_free {
                    continue;
                }
                meter.transmit(n(now), n(now), n(now + len));
                plain.add(now, now + len, true);
                ours_free = now + len;
            } else {
                if now < theirs_free {
                    continue;
                }
                let start = now + delay;
                meter.receive(n(now), n(start), n(start + len));
                plain.add(start, start + len, false);
                theirs_free = now + len;
            }
            for end in [now, now + 1, now + rng.below(30), now + rng.below(800)] {
                assert_eq!(meter.times(n(end)), plain.times(end), "at {end} ns");
            }
        }
    }
}
