//! BBR against draft-cardwell-iccrg-bbr-congestion-control-00: Startup's exit, the ProbeBW
//! gain cycle, ProbeRTT, the BtlBw filter and the loss response; by hand-made rate samples
//! and over a one-bottleneck path.

use super::super::test_support::*;
use super::super::*;
use super::{Bbr, BbrMode};
use crate::engine::{SimDuration, SimTime};
use crate::tcp::delivery::RateSample;

fn bbr() -> Bbr {
    Bbr::new(BbrConfig::default())
}

/// Hand-made rounds: each [`Rounds::round`] is one ACK delivering `rate` bytes/s over a
/// 100 ms interval, sent after the previous round's ACK, with a 100 ms RTT sample.
#[derive(Default)]
struct Rounds {
    delivered: u64,
    t_ms: u64,
}

impl Rounds {
    fn round(&mut self, cc: &mut Bbr, w: &mut CongestionWindow, rate: u64, app_limited: bool) {
        let bytes = rate / 10;
        let prior = self.delivered;
        self.delivered += bytes;
        self.t_ms += 100;
        let mut a = new_ack(
            at_ms(self.t_ms),
            bytes,
            Some(ms(100)),
            self.delivered,
            self.delivered + w.cwnd,
        );
        a.rate = RateSample {
            delivered: bytes,
            interval: ms(100),
            prior_delivered: prior,
            total_delivered: self.delivered,
            is_app_limited: app_limited,
        };
        cc.on_ack(w, &a);
    }
}

#[test]
fn draft_startup_exits_after_three_rounds_without_25_percent_growth() {
    let mut cc = bbr();
    let mut w = window(10, u64::MAX);
    let mut r = Rounds::default();
    for rate in [100_000, 200_000, 400_000, 450_000, 480_000] {
        r.round(&mut cc, &mut w, rate, false);
        assert_eq!(cc.mode(), BbrMode::Startup, "{rate} B/s");
    }
    // 450 and 480 kB/s are below 1.25 × 400 kB/s: two rounds; the third leaves Startup.
    r.round(&mut cc, &mut w, 490_000, false);
    assert!(cc.filled_pipe());
    assert_ne!(cc.mode(), BbrMode::Startup);
    assert_eq!(cc.btlbw_bytes_per_s(), 490_000);
}

#[test]
fn draft_growth_of_25_percent_restarts_the_count() {
    let mut cc = bbr();
    let mut w = window(10, u64::MAX);
    let mut r = Rounds::default();
    for rate in [400_000, 450_000, 460_000, 600_000, 610_000, 620_000] {
        r.round(&mut cc, &mut w, rate, false);
    }
    assert!(
        !cc.filled_pipe(),
        "600 kB/s ≥ 1.25 × 400 kB/s restarted the count"
    );
    r.round(&mut cc, &mut w, 620_000, false);
    assert!(cc.filled_pipe());
}

#[test]
fn draft_app_limited_samples_below_the_maximum_do_not_count() {
    let mut cc = bbr();
    let mut w = window(10, u64::MAX);
    let mut r = Rounds::default();
    r.round(&mut cc, &mut w, 400_000, false);
    r.round(&mut cc, &mut w, 100_000, true);
    assert_eq!(cc.btlbw_bytes_per_s(), 400_000);
    // An application-limited sample above the maximum does count.
    r.round(&mut cc, &mut w, 500_000, true);
    assert_eq!(cc.btlbw_bytes_per_s(), 500_000);
    // Application-limited rounds do not count towards a full pipe.
    for _ in 0..5 {
        r.round(&mut cc, &mut w, 500_000, true);
    }
    assert!(!cc.filled_pipe());
}

#[test]
fn draft_btlbw_is_the_maximum_over_ten_round_trips() {
    let mut cc = bbr();
    let mut w = window(10, u64::MAX);
    let mut r = Rounds::default();
    r.round(&mut cc, &mut w, 900_000, false);
    for _ in 0..9 {
        r.round(&mut cc, &mut w, 300_000, false);
        assert_eq!(cc.btlbw_bytes_per_s(), 900_000);
    }
    r.round(&mut cc, &mut w, 300_000, false);
    assert_eq!(
        cc.btlbw_bytes_per_s(),
        300_000,
        "the 900 kB/s round aged out"
    );
}

/// 1000 segments per second, 40 ms of propagation: the gain cycle seen over a long run.
fn path_run(secs: u64, extra: Option<(u64, u64)>) -> (Bbr, Vec<(SimTime, CcMetrics)>) {
    let path = Path {
        rate_bytes_per_s: 1000 * SMSS,
        prop: ms(40),
    };
    let mut cc = CcSpec::Bbr(Default::default()).build(CcOptions::default());
    let mut w = window(10, u64::MAX);
    let mut states = Vec::new();
    let until = at_ms(secs * 1000);
    let mut sim = PathSim::default();
    match extra {
        None => path.run_observed(&mut sim, &mut cc, &mut w, until, &mut states),
        Some((at_s, extra_ms)) => {
            let mut slower = path.clone();
            slower.prop = ms(40 + extra_ms);
            path.run_observed(&mut sim, &mut cc, &mut w, at_ms(at_s * 1000), &mut states);
            slower.run_observed(&mut sim, &mut cc, &mut w, until, &mut states);
        }
    }
    assert!(sim.log.delivered_bytes > 0);
    let AnyCongestionControl::Bbr(b) = cc else {
        unreachable!()
    };
    (*b, states)
}

#[test]
fn draft_probe_bw_cycles_its_pacing_gain_each_phase_at_least_rtprop() {
    let (b, states) = path_run(10, None);
    assert_eq!(b.mode(), BbrMode::ProbeBw);
    // The pacing gains in ProbeBW, one entry per phase, with the phase's start.
    let mut phases: Vec<(SimTime, f64)> = Vec::new();
    for (t, m) in &states {
        if m.phase != CcPhase::ProbeBw {
            continue;
        }
        let g = m.pacing_gain.unwrap();
        if phases.last().is_none_or(|(_, last)| *last != g) || phases.is_empty() {
            phases.push((*t, g));
        }
    }
    assert!(phases.len() > 10, "{} phases", phases.len());
    assert_ne!(
        phases[0].1, 0.75,
        "ProbeBW never starts with the 0.75 phase"
    );
    // The first entry may begin mid-cycle; it is only checked for what follows it.
    let first_length_checked = 1;
    // After each 1.25 phase comes 0.75, then six phases at 1 (merged above into one entry
    // lasting at least 6 RTprop).
    let rtprop = b.rtprop().unwrap();
    for (i, pair) in phases.windows(2).enumerate() {
        let ((t0, g0), (t1, g1)) = (pair[0], pair[1]);
        let expected_next = if g0 == 1.25 {
            0.75
        } else if g0 == 0.75 {
            1.0
        } else {
            1.25
        };
        assert_eq!(g1, expected_next, "after {g0}");
        let length = t1.saturating_since(t0);
        let min = if g0 == 1.0 {
            rtprop.saturating_mul(6)
        } else if g0 == 1.25 {
            rtprop
        } else {
            SimDuration::ZERO
        };
        if i >= first_length_checked {
            assert!(
                length >= min,
                "phase {g0} lasted {length:?} (RTprop {rtprop:?})"
            );
        }
    }
}

/// The (entry, exit) times of every ProbeRTT in `states`.
fn probe_rtts(states: &[(SimTime, CcMetrics)]) -> Vec<(SimTime, SimTime)> {
    let mut out = Vec::new();
    let mut entered = None;
    for (t, m) in states {
        match (m.phase == CcPhase::ProbeRtt, entered) {
            (true, None) => entered = Some(*t),
            (false, Some(e)) => {
                out.push((e, *t));
                entered = None;
            }
            _ => {}
        }
    }
    out
}

#[test]
fn draft_probe_rtt_every_ten_seconds_holds_four_segments_for_200_ms() {
    // After 2 s the path's delay grows by 10 ms, so that only ProbeRTT can refresh RTprop.
    let (_, states) = path_run(24, Some((2, 10)));
    let probes = probe_rtts(&states);
    assert_eq!(probes.len(), 2, "{probes:?}");
    // The first comes 10 s after RTprop was last refreshed (in Startup, before 1 s).
    assert!(
        probes[0].0 > at_ms(10_000) && probes[0].0 < at_ms(11_000),
        "{probes:?}"
    );
    // Leaving ProbeRTT refreshes RTprop: the next comes 10 s later (at the first ACK).
    let gap = probes[1].0.saturating_since(probes[0].1);
    assert!(gap >= ms(10_000) && gap < ms(10_100), "{gap:?}");
    for (entered, left) in &probes {
        assert!(
            left.saturating_since(*entered) >= ms(200),
            "ProbeRTT lasts 200 ms or more"
        );
        for (_, m) in states.iter().filter(|(t, _)| t > entered && t < left) {
            assert!(
                m.cwnd_bytes <= 4 * SMSS,
                "cwnd {} in ProbeRTT",
                m.cwnd_bytes
            );
        }
    }
    // ProbeRTT measured the longer path: RTprop 50 ms + one service time.
    let after = states.iter().find(|(t, _)| *t >= probes[0].1).unwrap().1;
    assert_eq!(after.min_rtt, Some(ms(51)));
}

#[test]
fn draft_bbr_fills_the_bottleneck_with_a_small_queue() {
    let path = Path {
        rate_bytes_per_s: 1000 * SMSS,
        prop: ms(40),
    };
    let mut cc = CcSpec::Bbr(Default::default()).build(CcOptions::default());
    let mut w = window(10, u64::MAX);
    let log = path.run(&mut cc, &mut w, at_ms(20_000));
    let rate = log.delivered_bytes as f64 / SMSS as f64 / 20.0;
    assert!(rate > 950.0, "{rate:.0} segments/s of 1000");
    let m = cc.metrics(&w);
    let btlbw = m.bandwidth_bytes_per_s.unwrap() as f64;
    assert!(
        (btlbw / (1000.0 * SMSS as f64) - 1.0).abs() < 0.05,
        "BtlBw {btlbw}"
    );
    assert!(m.min_rtt.unwrap() >= ms(41) && m.min_rtt.unwrap() < ms(43));
    // cwnd_gain 2 bounds the queue by about one BDP (41 segments).
    let q = log.mean_queue_after(at_ms(5000));
    assert!(q < 41.0, "mean queue {q:.1}");
}

#[test]
fn draft_fast_recovery_keeps_packet_conservation_then_restores_the_window() {
    let mut cc = bbr();
    let mut w = window(20, u64::MAX);
    let mut r = Rounds::default();
    for rate in [400_000, 400_000] {
        r.round(&mut cc, &mut w, rate, false);
    }
    let before = w.cwnd;
    // The third duplicate ACK: loss recovery asks for ssthresh and sets cwnd from it.
    let ss = cc.ssthresh_on_loss(at_ms(1000), &w, 20 * SMSS, SMSS);
    assert_eq!(ss, before, "ssthresh carries the saved window");
    w.cwnd = ss + 3 * SMSS;
    let una = r.delivered;
    let mut d = new_ack(at_ms(1000), 0, None, una, una + 20 * SMSS);
    d.duplicate = true;
    d.may_grow = false;
    cc.on_ack(&mut w, &d);
    // cwnd = flight (20 less one duplicate) + one segment delivered; the sender's window
    // adds the duplicate's segment back (it has left the network).
    assert_eq!(w.cwnd, (20 - 1 + 1 + 1) * SMSS);
    // The ACK that ends recovery (SND.UNA past the recovery point) restores the window.
    let mut full = new_ack(
        at_ms(1100),
        20 * SMSS,
        Some(ms(100)),
        una + 20 * SMSS,
        una + 30 * SMSS,
    );
    full.may_grow = false;
    cc.on_ack(&mut w, &full);
    assert!(
        w.cwnd >= before,
        "cwnd {} restored to at least {before}",
        w.cwnd
    );
}

#[test]
fn draft_timeout_cuts_to_one_segment() {
    let mut cc = bbr();
    let mut w = window(20, u64::MAX);
    let mut r = Rounds::default();
    r.round(&mut cc, &mut w, 400_000, false);
    cc.on_rto(at_ms(1000), &mut w, 20 * SMSS, SMSS, true);
    assert_eq!(w.cwnd, SMSS);
    assert!(cc.pacing_rate().is_some(), "BBR keeps pacing");
}

#[test]
fn samples_taken_in_loss_recovery_stay_out_of_the_bandwidth_filter() {
    let mut cc = bbr();
    let mut w = window(20, u64::MAX);
    let mut r = Rounds::default();
    r.round(&mut cc, &mut w, 400_000, false);
    // A loss: duplicate ACKs, then the ACK that fills the hole reports 20 segments at once.
    cc.ssthresh_on_loss(at_ms(200), &w, 20 * SMSS, SMSS);
    let una = r.delivered;
    for k in 0..3 {
        let mut d = new_ack(at_ms(200 + k), 0, None, una, una + 20 * SMSS);
        d.duplicate = true;
        d.may_grow = false;
        cc.on_ack(&mut w, &d);
    }
    r.round(&mut cc, &mut w, 4_000_000, false);
    assert_eq!(
        cc.btlbw_bytes_per_s(),
        400_000,
        "the inflated sample was kept out"
    );
}

/// With SACK the sender gates recovery's sending by cwnd − pipe, where pipe already leaves
/// out the SACKed segments: BBR's window is its own cwnd, not one more segment per
/// duplicate ACK (which let it grow without bound through a long recovery), and packet
/// conservation reads the pipe.
#[test]
fn with_sack_duplicate_acks_do_not_inflate_the_window() {
    let mut cc = bbr();
    let mut w = window(20, u64::MAX);
    let mut r = Rounds::default();
    for rate in [400_000, 400_000] {
        r.round(&mut cc, &mut w, rate, false);
    }
    cc.ssthresh_on_loss(at_ms(1000), &w, 20 * SMSS, SMSS);
    let una = r.delivered;
    let mut pipe = 19 * SMSS;
    let mut windows = Vec::new();
    for k in 0..50 {
        // Each duplicate ACK SACKs one segment; the sender sends one in its place.
        let mut d = new_ack(at_ms(1000 + k), 0, None, una, una + 20 * SMSS + k * SMSS);
        d.duplicate = true;
        d.may_grow = false;
        d.delivered_bytes = SMSS;
        d.pipe = Some(pipe);
        cc.on_ack(&mut w, &d);
        windows.push(w.cwnd);
        pipe = 19 * SMSS;
    }
    // Conservation at entry: pipe + delivered = 20 segments, and never more after.
    assert_eq!(windows[0], 20 * SMSS);
    assert!(
        windows.iter().all(|&c| c <= 20 * SMSS),
        "BBR's window stays at the flight it conserves: {windows:?}"
    );
}

/// draft §4.2.3.4 (`BBRModulateCwndForRecovery`, Linux's `rs->losses`): the data an ACK
/// newly shows lost leaves cwnd before conservation keeps cwnd ≥ pipe + delivered.
#[test]
fn newly_lost_data_leaves_the_window() {
    let mut cc = bbr();
    let mut w = window(40, u64::MAX);
    let mut r = Rounds::default();
    for rate in [400_000, 400_000] {
        r.round(&mut cc, &mut w, rate, false);
    }
    let before = w.cwnd;
    cc.ssthresh_on_loss(at_ms(1000), &w, 40 * SMSS, SMSS);
    let una = r.delivered;
    let mut d = new_ack(at_ms(1000), 0, None, una, una + 40 * SMSS);
    d.duplicate = true;
    d.may_grow = false;
    d.delivered_bytes = SMSS;
    d.pipe = Some(10 * SMSS);
    d.lost_bytes = 29 * SMSS;
    cc.on_ack(&mut w, &d);
    assert_eq!(
        w.cwnd,
        11 * SMSS,
        "entering recovery: pipe + delivered, not the {before} before"
    );
    // Later in the round: ten more segments found lost, pipe now 5.
    let mut d = new_ack(at_ms(1010), 0, None, una, una + 40 * SMSS);
    d.duplicate = true;
    d.may_grow = false;
    d.delivered_bytes = SMSS;
    d.pipe = Some(5 * SMSS);
    d.lost_bytes = 10 * SMSS;
    cc.on_ack(&mut w, &d);
    assert_eq!(w.cwnd, 6 * SMSS, "max(11 − 10, pipe 5 + delivered 1)");
}
