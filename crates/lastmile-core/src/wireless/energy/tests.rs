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
