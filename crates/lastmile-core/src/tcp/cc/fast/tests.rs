//! FAST against Wei, Jin, Low & Hegde §IV: the update law, its start-up bound and its
//! equilibrium of α segments queued.

use super::super::test_support::*;
use super::super::*;

fn fast(alpha: f64) -> AnyCongestionControl {
    let settings = FastConfig { alpha, gamma: 0.5 };
    CcSpec::Fast(settings).build(CcOptions::default())
}

#[test]
fn paper_update_law_moves_gamma_of_the_way_to_the_equilibrium_window() {
    let mut cc = fast(4.0);
    let mut w = window(20, u64::MAX);
    let mut r = RoundTrips::default();
    // The first round: base = avg = 100 ms, w ← min(40, 0.5·20 + 0.5·(20 + 4)) = 22.
    r.close(&mut cc, &mut w, 100);
    assert_eq!(w.cwnd, 22 * SMSS);
    // Rounds at 120 ms move avgRTT by η = min(3/w, 1/4) per sample; the update then uses it.
    let AnyCongestionControl::Fast(f) = &cc else {
        unreachable!()
    };
    let eta = 3.0 / 22.0;
    let avg = (1.0 - eta) * 0.1 + eta * 0.12;
    let expected = 0.5 * 22.0 + 0.5 * (0.1 / avg * 22.0 + 4.0);
    assert_eq!(
        f.next_window(22 * SMSS, SMSS).unwrap(),
        22 * SMSS + 2 * SMSS
    );
    r.close(&mut cc, &mut w, 120);
    let got = w.cwnd as f64 / SMSS as f64;
    assert!((got - expected).abs() < 1e-3, "{got} vs {expected}");
}

#[test]
fn paper_start_up_is_bounded_by_doubling() {
    // With the default α = 100 and no queue, the law asks for w + 50: min{2w, ·} binds.
    let mut cc = CcSpec::Fast(Default::default()).build(CcOptions::default());
    let mut w = window(2, u64::MAX);
    let mut r = RoundTrips::default();
    for expected in [4, 8, 16, 32] {
        r.close(&mut cc, &mut w, 100);
        assert_eq!(w.cwnd, expected * SMSS);
    }
}

#[test]
fn paper_loss_halves_as_reno() {
    let mut cc = fast(4.0);
    let w = window(20, u64::MAX);
    assert_eq!(
        cc.ssthresh_on_loss(at_ms(0), &w, 20 * SMSS, SMSS),
        10 * SMSS
    );
}

/// "each flow keeps α packets queued at the bottleneck", whatever the capacity: α = 4 and
/// α = 8 over 1000 and 4000 segments per second.
#[test]
fn paper_fast_converges_to_alpha_segments_queued() {
    for (alpha, rate_segments) in [(4.0, 1000), (8.0, 1000), (4.0, 4000)] {
        let path = Path {
            rate_bytes_per_s: rate_segments * SMSS,
            prop: ms(50),
        };
        let mut cc = fast(alpha);
        let mut w = window(2, u64::MAX);
        let log = path.run(&mut cc, &mut w, at_ms(20_000));
        let q = log.mean_queue_after(at_ms(10_000));
        assert!(
            (q - alpha).abs() <= 1.0,
            "α = {alpha}, {rate_segments} segments/s: mean queue {q:.2}"
        );
        // The window is the bandwidth-delay product plus α.
        let bdp = rate_segments as f64 * 0.05;
        let cwnd = w.cwnd as f64 / SMSS as f64;
        assert!(
            (cwnd - bdp - alpha).abs() <= 1.5,
            "cwnd {cwnd:.1}, BDP {bdp}"
        );
    }
}
