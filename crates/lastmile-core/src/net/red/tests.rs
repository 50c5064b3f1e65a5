//! RED driven directly, against the worked numbers of Floyd & Jacobson 1993
//! (tcp-family-notes §11).

use super::*;

fn red(spec: RedSpec) -> Red {
    // 8 Mbps: a 500-byte small packet takes 0.5 ms.
    Red::new(spec, 8_000_000, RngStream::derive(7, "red-test"))
}

#[test]
fn average_follows_the_ewma_of_a_constant_queue() {
    let mut r = red(RedSpec::default());
    let t = SimTime::ZERO;
    // The first arrival finds the queue empty since time zero: only decay.
    r.on_arrival(t, 0, false);
    for n in 1..=200 {
        r.on_arrival(t, 10, false);
        let expected = 10.0 * (1.0 - 0.998f64.powi(n));
        assert!((r.avg() - expected).abs() < 1e-9, "n = {n}: {}", r.avg());
    }
}

#[test]
fn an_idle_queue_decays_the_average_by_one_step_per_small_packet_time() {
    let mut r = red(RedSpec {
        w_q: 0.5,
        ..RedSpec::default()
    });
    let t0 = SimTime::ZERO;
    r.on_arrival(t0, 0, false);
    r.on_arrival(t0, 8, false);
    assert_eq!(r.avg(), 4.0);
    r.on_empty(t0);
    // Idle for 3 small-packet times (1.5 ms at 8 Mbps): avg · 0.5³.
    r.on_arrival(t0 + SimDuration::from_micros(1500), 0, false);
    assert!((r.avg() - 0.5).abs() < 1e-12, "{}", r.avg());
}

#[test]
fn marking_probability_is_linear_between_the_thresholds() {
    let r = |avg: f64, gentle: bool| {
        let mut x = red(RedSpec {
            gentle,
            ..RedSpec::default()
        });
        x.avg = avg;
        x.probability()
    };
    let base = |p: Option<Probability>| match p {
        Some(Probability::Base(b)) => Some(b),
        _ => None,
    };
    assert_eq!(r(4.9, false).map(|_| ()), None, "below min_th: no mark");
    assert!(
        (base(r(10.0, false)).unwrap() - 0.01).abs() < 1e-12,
        "5/15/0.02 at 10"
    );
    assert!(matches!(r(15.0, false), Some(Probability::Forced)));
    // Gentle: at 22.5, 0.02 + 0.98 · 7.5 / 15 = 0.51; forced only from 2 · max_th.
    assert!((base(r(22.5, true)).unwrap() - 0.51).abs() < 1e-12);
    assert!(matches!(r(30.0, true), Some(Probability::Forced)));
}

/// §7: with p_a = p_b / (1 − count · p_b) the packets between marks are uniform on
/// 1..=1/p_b rather than geometric, so marks do not cluster.
#[test]
fn marks_are_spread_uniformly_between_one_and_one_over_p_b() {
    let mut r = red(RedSpec {
        w_q: 1.0, // avg = the instantaneous queue: p_b = 0.01 throughout
        ..RedSpec::default()
    });
    let t = SimTime::ZERO;
    r.on_arrival(t, 0, true);
    let mut gaps = Vec::new();
    let mut since = 0u32;
    while gaps.len() < 2000 {
        since += 1;
        if r.on_arrival(t, 10, true) == Verdict::Mark {
            gaps.push(since);
            since = 0;
        }
    }
    let max = *gaps.iter().max().unwrap();
    let mean = gaps.iter().map(|&g| f64::from(g)).sum::<f64>() / gaps.len() as f64;
    assert!(
        max <= 100,
        "a mark is certain by the 1/p_b-th packet: {max}"
    );
    assert!(
        (45.0..=56.0).contains(&mean),
        "uniform on 1..=100 has mean 50.5: {mean}"
    );
    assert_eq!(r.stats.marks, 2000);
}

#[test]
fn ecn_capable_packets_are_marked_others_dropped_and_beyond_max_th_all_dropped() {
    let mut r = red(RedSpec {
        w_q: 1.0,
        max_p: 1.0,
        ..RedSpec::default()
    });
    let t = SimTime::ZERO;
    r.on_arrival(t, 0, true);
    // avg = 14: p_b = 0.9, and after one unmarked arrival count · p_b ≥ 1: a mark.
    let verdicts: Vec<Verdict> = (0..4).map(|_| r.on_arrival(t, 14, true)).collect();
    assert!(verdicts.contains(&Verdict::Mark));
    assert!(!verdicts.contains(&Verdict::Drop));
    let not_ect: Vec<Verdict> = (0..4).map(|_| r.on_arrival(t, 14, false)).collect();
    assert!(not_ect.contains(&Verdict::Drop));
    assert!(!not_ect.contains(&Verdict::Mark));
    assert_eq!(r.on_arrival(t, 15, true), Verdict::Drop, "forced region");
    let mut off = red(RedSpec {
        w_q: 1.0,
        max_p: 1.0,
        ecn: false,
        ..RedSpec::default()
    });
    off.on_arrival(t, 0, true);
    let v: Vec<Verdict> = (0..4).map(|_| off.on_arrival(t, 14, true)).collect();
    assert!(!v.contains(&Verdict::Mark), "ecn = false drops instead");
}

#[test]
fn settings_out_of_range_are_named() {
    let bad = RedSpec {
        min_th: 10.0,
        max_th: 10.0,
        ..RedSpec::default()
    };
    assert_eq!(bad.check().unwrap_err().0, "max_th");
    let bad = RedSpec {
        w_q: 0.0,
        ..RedSpec::default()
    };
    assert_eq!(bad.check().unwrap_err().0, "w_q");
    assert!(RedSpec::default().check().is_ok());
}
