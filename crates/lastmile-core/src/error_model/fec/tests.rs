//! Tests of link FEC (`fec.rs`): the decoding rule block by block, symbols, the rate
//! overhead, and the per-block error counts each kind of error model reports.

use super::*;
use crate::engine::{SimDuration, SimTime};
use crate::error_model::{ErrorModelSpec, FrameInfo, GilbertElliottSpec};
use crate::units::Probability;

fn code(n: u32, k: u32, t: u32, symbol_bits: u32) -> BlockCode {
    let spec = FecSpec {
        n,
        k,
        t,
        symbol_bits,
        decode_delay: Duration::default(),
    };
    spec.validate().expect("a valid code");
    spec.code()
}

fn rng() -> RngStream {
    RngStream::derive(7, "fec-test")
}

/// One block of 63 bits with `errors` bits in error from bit 10 on.
fn one_block_with(errors: u64) -> BitRuns {
    let mut runs = BitRuns::default();
    runs.push(10, 0.0);
    runs.push(errors, 1.0);
    runs.push(63 - 10 - errors, 0.0);
    runs
}

#[test]
fn fec_block_with_t_errors_decodes_and_one_with_t_plus_1_does_not() {
    // A binary (63, 45) code correcting t = 3 bit errors (BCH(63,45) has t = 3).
    let c = code(63, 45, 3, 1);
    let at_t = one_block_with(3).block_errors(&c, &mut rng());
    assert_eq!(at_t.counts, vec![3]);
    assert!(c.decodes(&at_t));
    let over = one_block_with(4).block_errors(&c, &mut rng());
    assert_eq!(over.counts, vec![4], "t + 1: the count stops there");
    assert!(!c.decodes(&over));
    // Far more errors still report t + 1 (the block is lost whatever the exact count).
    assert_eq!(
        one_block_with(40).block_errors(&c, &mut rng()).counts,
        vec![4]
    );
}

#[test]
fn a_frame_is_lost_only_if_some_block_has_more_than_t_errors() {
    let c = code(63, 45, 3, 1);
    // Three blocks: 3 errors in the first, none in the second, 3 in the third.
    let mut runs = BitRuns::default();
    runs.push(3, 1.0);
    runs.push(60 + 63 + 60, 0.0);
    runs.push(3, 1.0);
    let e = runs.block_errors(&c, &mut rng());
    assert_eq!(e.counts, vec![3, 0, 3]);
    assert!(
        c.decodes(&e),
        "6 errors in the frame, at most t in each block"
    );
    // The same 6 errors straddling one block boundary: 2 + 4.
    let mut runs = BitRuns::default();
    runs.push(59, 0.0);
    runs.push(6, 1.0);
    runs.push(61 + 63, 0.0);
    let e = runs.block_errors(&c, &mut rng());
    assert_eq!(e.counts, vec![4, 2, 0]);
    assert!(!c.decodes(&e));
}

#[test]
fn reed_solomon_symbols_count_once_however_many_of_their_bits_are_wrong() {
    // CDPD: RS(63, 47) over 6-bit symbols, 7 symbols corrected (Sierra Wireless CDPD
    // Primer §3.2.9: 378-bit blocks, 47 data symbols, "up to 7 of the 63 symbols").
    let c = code(63, 47, 7, 6);
    assert_eq!((c.block_bits(), c.data_bits()), (378, 282));
    let burst = |bits: u64| {
        let mut runs = BitRuns::default();
        runs.push(bits, 1.0);
        runs.push(378 - bits, 0.0);
        runs.block_errors(&c, &mut rng())
    };
    // A 42-bit burst fills exactly 7 symbols: corrected; 43 bits touch an 8th.
    assert_eq!(burst(42).counts, vec![7]);
    assert!(c.decodes(&burst(42)));
    assert_eq!(burst(43).counts, vec![8]);
    assert!(!c.decodes(&burst(43)));
    // One wrong bit in each of 8 symbols is 8 symbol errors.
    let mut runs = BitRuns::default();
    for _ in 0..8 {
        runs.push(1, 1.0);
        runs.push(5, 0.0);
    }
    runs.push(378 - 48, 0.0);
    assert_eq!(runs.block_errors(&c, &mut rng()).counts, vec![8]);
}

#[test]
fn the_airtime_grows_by_n_over_k_with_the_last_block_padded() {
    let c = code(63, 47, 7, 6);
    // A 1500-byte frame: 12,000 bits in ⌈12000 / 282⌉ = 43 blocks of 378 bits.
    assert_eq!(c.blocks(12_000), 43);
    assert_eq!(c.coded_bits(12_000), 43 * 378);
    assert_eq!(c.coded_bits(0), 0);
    // The survey's CDPD: 19.2 kbps raw carries 19,200 × 47/63 = 14,323.8 bps of data.
    let user_bps = 19_200.0 * c.data_bits() as f64 / c.block_bits() as f64;
    assert!((user_bps - 14_323.8).abs() < 0.1, "{user_bps}");
}

#[test]
fn a_code_correcting_more_than_the_singleton_bound_is_refused() {
    let bad = FecSpec {
        n: 63,
        k: 47,
        t: 9,
        symbol_bits: 6,
        decode_delay: Duration::default(),
    };
    assert_eq!(bad.validate().unwrap_err().field, "t");
    let no_parity = FecSpec {
        n: 47,
        t: 0,
        ..bad.clone()
    };
    assert_eq!(no_parity.validate().unwrap_err().field, "n");
    let wide = FecSpec {
        symbol_bits: 17,
        t: 7,
        ..bad
    };
    assert_eq!(wide.validate().unwrap_err().field, "symbol_bits");
}

fn frame(bits: u64, start_us: u64, end_us: u64) -> FrameInfo {
    FrameInfo {
        tx_start: SimTime::from_nanos(start_us * 1000),
        tx_end: SimTime::from_nanos(end_us * 1000),
        bits,
        payload_bytes: 1000,
    }
}

/// P(more than t errors in n independent bits at BER p).
fn binomial_tail(n: u64, t: u64, p: f64) -> f64 {
    let mut ok = 0.0;
    let mut term = (1.0 - p).powi(n as i32);
    for i in 0..=t {
        ok += term;
        term *= (n - i) as f64 / (i + 1) as f64 * p / (1.0 - p);
    }
    1.0 - ok
}

#[test]
fn ber_block_failures_follow_the_binomial_tail() {
    // 1 % BER on 255-bit blocks correcting 3: P(block lost) = 1 − Σ_{i≤3} C(255,i) p^i
    // (1 − p)^(255−i) = 0.2527.
    let c = code(255, 223, 3, 1);
    let mut m = ErrorModelSpec::Ber {
        ber: Probability(0.01),
    }
    .build(1_000_000, rng());
    let trials = 20_000u32;
    let lost = (0..trials)
        .filter(|_| !c.decodes(&m.block_errors(&frame(255, 0, 255), &c)))
        .count() as f64;
    let expected = binomial_tail(255, 3, 0.01);
    let sigma = (expected * (1.0 - expected) / f64::from(trials)).sqrt();
    let measured = lost / f64::from(trials);
    assert!((expected - 0.2527).abs() < 0.0001, "{expected}");
    assert!(
        (measured - expected).abs() < 4.0 * sigma,
        "{measured} vs {expected}"
    );
}

#[test]
fn without_a_code_a_frame_is_judged_draw_for_draw_as_before() {
    let spec = ErrorModelSpec::Ber {
        ber: Probability(1e-4),
    };
    let (mut a, mut b) = (spec.build(1, rng()), spec.build(1, rng()));
    for i in 0..500 {
        let f = frame(12_000, i, i + 12);
        assert_eq!(a.frame_lost(&f), b.frame_lost_coded(&f, None));
    }
}

#[test]
fn frame_level_models_lose_every_block_or_none() {
    let c = code(63, 47, 7, 6);
    let bits = c.coded_bits(12_000);
    let mut always = ErrorModelSpec::Per {
        per: Probability(1.0),
    }
    .build(1, rng());
    assert_eq!(
        always.block_errors(&frame(bits, 0, 1), &c).counts,
        vec![8; 43]
    );
    let mut never = ErrorModelSpec::Per {
        per: Probability(0.0),
    }
    .build(1, rng());
    assert_eq!(
        never.block_errors(&frame(bits, 0, 1), &c).counts,
        vec![0; 43]
    );
    let mut list = ErrorModelSpec::DropList { packets: vec![2] }.build(1, rng());
    assert!(!list.frame_lost_coded(&frame(bits, 0, 1), Some(&c)));
    assert!(list.frame_lost_coded(&frame(bits, 1, 2), Some(&c)));
}

#[test]
fn a_code_rescues_the_good_state_of_a_fading_channel_but_not_its_fades() {
    // Timed Gilbert–Elliott at 19.2 kbps: Good BER 1e-3, Bad BER 0.5 (a fade), 1 s / 50 ms.
    let spec = ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
        mean_good: Some(crate::units::Duration::from_secs(1)),
        mean_bad: Some(crate::units::Duration::from_millis(50)),
        good_ber: Some(Probability(1e-3)),
        bad_ber: Some(Probability(0.5)),
        ..Default::default()
    });
    let c = code(63, 47, 7, 6);
    let (mut plain, mut coded) = (spec.build(19_200, rng()), spec.build(19_200, rng()));
    let (mut plain_lost, mut coded_lost, n) = (0, 0, 2_000u64);
    for i in 0..n {
        // 1,000-bit frames back to back (52.08 ms each at 19.2 kbps uncoded).
        let start = i * 80_000;
        plain_lost += u64::from(plain.frame_lost(&frame(1_000, start, start + 52_083)));
        let bits = c.coded_bits(1_000);
        let end = start + bits * 1_000_000 / 19_200;
        coded_lost += u64::from(coded.frame_lost_coded(&frame(bits, start, end), Some(&c)));
    }
    // Good-state frames: 1 − 0.999^1000 ≈ 63 % lost uncoded; with the code nearly none. The
    // fades (≈ 5 % of the time, longer with the frame) still cost their frames.
    let (p, q) = (plain_lost as f64 / n as f64, coded_lost as f64 / n as f64);
    assert!(p > 0.55, "uncoded loss {p}");
    assert!(q < 0.2 && q > 0.01, "coded loss {q}");
}

#[test]
fn timed_gilbert_elliott_runs_cover_the_frame_bit_for_bit() {
    let spec = ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
        mean_good: Some(crate::units::Duration::from_millis(3)),
        mean_bad: Some(crate::units::Duration::from_millis(1)),
        good_ber: Some(Probability(1e-6)),
        bad_ber: Some(Probability(1e-2)),
        ..Default::default()
    });
    let crate::error_model::AnyErrorModel::GilbertElliottTimed(mut m) =
        spec.build(1_000_000, rng())
    else {
        panic!("timed form");
    };
    for i in 0..200u64 {
        let f = frame(12_345, i * 20_000, i * 20_000 + 12_345);
        let runs = m.bit_runs(&f);
        assert_eq!(runs.runs.iter().map(|r| r.0).sum::<u64>(), 12_345);
        assert!(runs.runs.iter().all(|r| r.1 == 1e-6 || r.1 == 1e-2));
    }
    let _ = SimDuration::ZERO;
}
