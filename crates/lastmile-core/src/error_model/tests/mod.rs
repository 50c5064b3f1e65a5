//! Error-model tests: each model's long-run loss against its analytical value, burst
//! structure, determinism and spec validation.
//!
//! Tolerances. Every Monte-Carlo check compares an empirical rate with an exact value and
//! allows 5 standard deviations of the estimator, computed from the sample size (and, where
//! frames are correlated, from the exact autocorrelation). The seeds are fixed, so a run is
//! deterministic; 5σ means that any other seed would fail with probability below 1e-6,
//! while the tests stay sharp: each tolerance is a few percent of the value checked or
//! less, tighter than the effect of any of the modelling errors they guard against (e.g.
//! ignoring state changes inside a frame, or point-sampling the timed channel).

use super::*;
use crate::engine::SimDuration;

fn rng(seed: u64) -> RngStream {
    RngStream::derive(seed, "link/0/fwd/errors")
}

fn at(ns: u64) -> SimTime {
    SimTime::from_nanos(ns)
}

/// A frame of `bits` at `rate_bps` starting at `start_ns`.
fn frame_at(start_ns: u64, bits: u64, rate_bps: u64, payload_bytes: u32) -> FrameInfo {
    FrameInfo {
        tx_start: at(start_ns),
        tx_end: at(start_ns) + SimDuration::transmission(bits, rate_bps),
        bits,
        payload_bytes,
    }
}

/// A data frame whose timing does not matter to the model under test.
fn data(bits: u64) -> FrameInfo {
    frame_at(0, bits, 1_000_000, (bits / 8) as u32)
}

/// Fraction of `frames` the model loses.
fn loss_rate(model: &mut AnyErrorModel, frames: impl Iterator<Item = FrameInfo>) -> f64 {
    let (mut lost, mut n) = (0u64, 0u64);
    for f in frames {
        n += 1;
        lost += u64::from(model.frame_lost(&f));
    }
    lost as f64 / n as f64
}

/// 5 standard deviations of the mean of `n` independent Bernoulli(p) draws.
fn five_sigma(p: f64, n: usize) -> f64 {
    5.0 * (p * (1.0 - p) / n as f64).sqrt()
}

fn assert_close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:.6}, expected {want:.6} ± {tol:.6}"
    );
}

// ---------------------------------------------------------------------------------------
// 2×2 matrices for the exact Markov-channel values.

type M2 = [[f64; 2]; 2];
const I2: M2 = [[1.0, 0.0], [0.0, 1.0]];

fn mul(a: &M2, b: &M2) -> M2 {
    let mut c = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
        }
    }
    c
}

fn pow(a: &M2, mut k: u64) -> M2 {
    let (mut result, mut base) = (I2, *a);
    while k > 0 {
        if k & 1 == 1 {
            result = mul(&result, &base);
        }
        base = mul(&base, &base);
        k >>= 1;
    }
    result
}

/// e^A by scaling and squaring with a Taylor series (the norms here are small).
fn expm(a: &M2) -> M2 {
    let norm = a.iter().flatten().map(|x| x.abs()).sum::<f64>();
    let mut squarings = 0;
    let mut scale = 1.0;
    while norm * scale > 0.25 {
        scale /= 2.0;
        squarings += 1;
    }
    let a = a.map(|row| row.map(|x| x * scale));
    let (mut sum, mut term) = (I2, I2);
    for k in 1..30 {
        term = mul(&term, &a).map(|row| row.map(|x| x / k as f64));
        sum = [0, 1].map(|i| [0, 1].map(|j| sum[i][j] + term[i][j]));
    }
    for _ in 0..squarings {
        sum = mul(&sum, &sum);
    }
    sum
}

/// πᵀ·M·1.
fn weigh(pi: [f64; 2], m: &M2) -> f64 {
    (0..2).map(|i| pi[i] * (m[i][0] + m[i][1])).sum()
}

// ---------------------------------------------------------------------------------------
// ber and per

#[test]
fn tulip_table1_ber_15_per_million_on_1440_bytes_is_a_per_of_0_159() {
    // 1 − (1 − 15e-6)^11520 = 1 − e^(11520·ln(1 − 15e-6)) = 1 − e^(−0.1728013) = 0.158695.
    let per = per_from_ber(15e-6, 1440 * 8);
    assert_close("PER at 15/million", per, 0.158695, 1e-6);
    // Fig. 9(a): 3.9 bits/million is "a packet error rate of approximately 4%".
    assert_close(
        "PER at 3.9/million",
        per_from_ber(3.9e-6, 1440 * 8),
        0.0439,
        5e-4,
    );
    // Computed without cancellation: 8 bits at 1e-15 lose 8e-15, not 0 or 1.1e-14.
    assert_close("tiny PER", per_from_ber(1e-15, 8), 8e-15, 1e-22);
    assert_eq!(per_from_ber(1.0, 0), 0.0);
    assert_eq!(per_from_ber(1.0, 1), 1.0);
}

#[test]
fn ber_model_loses_1_minus_1_minus_ber_to_the_n_of_frames() {
    let spec = ErrorModelSpec::Ber {
        ber: Probability(15e-6),
    };
    let mut model = spec.build(1_000_000, rng(1));
    let n = 100_000;
    let want = per_from_ber(15e-6, 11_520);
    let got = loss_rate(&mut model, (0..n).map(|_| data(11_520)));
    // Independent draws: σ = sqrt(p(1 − p)/n) = 0.00116, so 5σ = 0.0058 (3.6 % of 0.159).
    assert_close("BER frame loss", got, want, five_sigma(want, n));
    // Shorter frames lose less: the model uses each frame's own length.
    let got_acks = loss_rate(&mut model, (0..n).map(|_| data(40 * 8)));
    let want_acks = per_from_ber(15e-6, 320);
    assert_close("ACK loss", got_acks, want_acks, five_sigma(want_acks, n));
}

#[test]
fn per_model_loses_the_given_fraction_whatever_the_length() {
    let spec = ErrorModelSpec::Per {
        per: Probability(0.05),
    };
    let mut model = spec.build(1_000_000, rng(2));
    let n = 100_000;
    let got = loss_rate(
        &mut model,
        (0..n as u64).map(|i| data(320 + 64 * (i % 200))),
    );
    assert_close("PER frame loss", got, 0.05, five_sigma(0.05, n));
}

// ---------------------------------------------------------------------------------------
// Timed Gilbert–Elliott (WTCP Table I)

fn timed_spec(mean_good_ms: u64, mean_bad_ms: u64, good_ber: f64, bad_ber: f64) -> ErrorModelSpec {
    ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
        mean_good: Some(Duration::from_millis(mean_good_ms)),
        mean_bad: Some(Duration::from_millis(mean_bad_ms)),
        good_ber: Some(Probability(good_ber)),
        bad_ber: Some(Probability(bad_ber)),
        ..Default::default()
    })
}

/// The exact loss probability of a frame of duration `d_s` at rate `rate` on the timed
/// channel in its stationary regime, by the Feynman–Kac formula: P(ok) =
/// E[exp(−Σ_s c_s·τ_s)] = πᵀ·exp((Q − C)·d)·1, with Q the generator, C = diag(c_G, c_B) and
/// c_s = −R·ln(1 − ber_s) the per-second "killing" rate of state s.
fn timed_exact_loss(mean_good_s: f64, mean_bad_s: f64, bers: [f64; 2], rate: f64, d_s: f64) -> f64 {
    let (a, b) = (1.0 / mean_good_s, 1.0 / mean_bad_s);
    let c = bers.map(|e| -rate * (1.0 - e).ln());
    let q_minus_c = [[(-a - c[0]) * d_s, a * d_s], [b * d_s, (-b - c[1]) * d_s]];
    let pi = [b / (a + b), a / (a + b)];
    1.0 - weigh(pi, &expm(&q_minus_c))
}

#[test]
fn wtcp_table1_timed_channel_loses_the_feynman_kac_fraction_of_1kb_segments() {
    // WTCP Table I: 800 kbps, 1 KB segments (8000 bits, 10 ms), Good 1 s / Bad 100 ms,
    // BER 1e-6 / 1e-2. Frames start 1 s apart: the chain's correlation time is
    // 1/(1/1 s + 1/0.1 s) = 91 ms, so successive frames are independent to e^−11.
    let (rate, bits) = (800_000, 8_000);
    let mut model = timed_spec(1_000, 100, 1e-6, 1e-2).build(rate, rng(3));
    let n = 200_000;
    let got = loss_rate(
        &mut model,
        (1..=n as u64).map(|k| frame_at(k * 1_000_000_000, bits, rate, 960)),
    );
    let want = timed_exact_loss(1.0, 0.1, [1e-6, 1e-2], rate as f64, 0.01);
    // want = 0.1069; σ = 0.00069, 5σ = 0.0035. Point-sampling the state at tx_start would
    // give ≈ π_B + π_G·0.008 = 0.0982 and miss by 13σ.
    assert!((0.105..0.110).contains(&want), "exact value {want}");
    assert_close("WTCP timed GE loss", got, want, five_sigma(want, n));
}

#[test]
fn wtcp_timed_channel_is_bad_a_fraction_mean_bad_over_the_cycle() {
    // With good_ber = 0 and bad_ber = 1, a 1 µs probe is lost iff it touches Bad:
    // P = 1 − π_G·e^(−d/mean_good), i.e. π_B + π_G·1e-6. Probes 1 s apart are correlated
    // by e^(−(a+b)·1 s) ≤ e^−11 (a, b the rates out of Good and Bad): independent.
    for (mean_bad_ms, seed) in [(10, 4), (100, 5)] {
        let mut model = timed_spec(1_000, mean_bad_ms, 0.0, 1.0).build(1_000_000, rng(seed));
        let n = 200_000;
        let got = loss_rate(
            &mut model,
            (1..=n as u64).map(|k| frame_at(k * 1_000_000_000, 1, 1_000_000, 0)),
        );
        let mean_bad = mean_bad_ms as f64 / 1e3;
        let pi_bad = mean_bad / (1.0 + mean_bad);
        let want = 1.0 - (1.0 - pi_bad) * (-1e-6f64).exp();
        // 5σ: 0.0011 for π_B = 0.0099, 0.0032 for π_B = 0.0909 (about 11 % and 3.5 %).
        assert_close("fraction of time Bad", got, want, five_sigma(want, n));
    }
}

#[test]
fn timed_channel_runs_through_idle_time_from_good() {
    // The chain starts in Good and runs in real time: after an idle 100 ms the state is Bad
    // with probability π_B·(1 − e^(−(a+b)t)) = 0.0909·(1 − e^−1.1) = 0.0606 (mean Good 1 s,
    // Bad 100 ms). One 1 µs probe per fresh model; good_ber = 0, bad_ber = 1.
    let n = 50_000;
    let mut lost = 0;
    for seed in 0..n as u64 {
        let mut model = timed_spec(1_000, 100, 0.0, 1.0).build(1_000_000, rng(seed));
        lost += u64::from(model.frame_lost(&frame_at(100_000_000, 1, 1_000_000, 0)));
    }
    let (a, b) = (1.0, 10.0);
    let p_bad = a / (a + b) * (1.0 - (-(a + b) * 0.1f64).exp());
    let want = 1.0 - (1.0 - p_bad) * (-1e-6f64).exp();
    // Independent models: σ = 0.00107, 5σ = 0.0053.
    assert_close(
        "P(Bad after 100 ms idle)",
        lost as f64 / n as f64,
        want,
        five_sigma(want, n),
    );
}

#[test]
fn timed_channel_with_equal_bers_is_the_ber_model() {
    // The same BER in both states: the state timeline cannot matter.
    let rate = 1_000_000;
    let mut model = timed_spec(50, 5, 15e-6, 15e-6).build(rate, rng(6));
    let n = 100_000;
    let got = loss_rate(
        &mut model,
        (0..n as u64).map(|k| frame_at(k * 11_520_000, 11_520, rate, 1400)),
    );
    let want = per_from_ber(15e-6, 11_520);
    assert_close("timed GE, equal BERs", got, want, five_sigma(want, n));
}

// ---------------------------------------------------------------------------------------
// Per-bit Gilbert–Elliott (TULIP Exp. 5b)

struct PerBitChannel {
    p: f64,
    r: f64,
    loss: [f64; 2],
}

impl PerBitChannel {
    fn spec(&self) -> ErrorModelSpec {
        ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
            p_good_to_bad: Some(Probability(self.p)),
            p_bad_to_good: Some(Probability(self.r)),
            good_loss: Some(Probability(self.loss[0])),
            bad_loss: Some(Probability(self.loss[1])),
            ..Default::default()
        })
    }
    fn transition(&self) -> M2 {
        [[1.0 - self.p, self.p], [self.r, 1.0 - self.r]]
    }
    fn pi(&self) -> [f64; 2] {
        let s = self.p + self.r;
        [self.r / s, self.p / s]
    }
    fn survive(&self) -> M2 {
        [[1.0 - self.loss[0], 0.0], [0.0, 1.0 - self.loss[1]]]
    }

    /// Exact P(a frame of `l` bits is lost) in the stationary regime, πᵀ(P·diag(1−e))^L·1,
    /// and 5σ of the mean of `n` back-to-back frames from the exact autocovariance:
    /// P(frames 1 and 1+k both survive) = πᵀ·S·P^((k−1)L+1)·S·1 with S = (D·P)^(L−1)·D.
    fn exact_loss_and_tolerance(&self, l: u64, n: usize) -> (f64, f64) {
        let (p, d, pi) = (self.transition(), self.survive(), self.pi());
        let ok = weigh(pi, &pow(&mul(&p, &d), l));
        let s = mul(&pow(&mul(&d, &p), l - 1), &d);
        assert_close("two forms of P(ok)", weigh(pi, &s), ok, 1e-12);
        let mut variance = ok * (1.0 - ok);
        for k in 1..=50 {
            let both = weigh(pi, &mul(&mul(&s, &pow(&p, (k - 1) * l + 1)), &s));
            variance += 2.0 * (both - ok * ok);
        }
        (1.0 - ok, 5.0 * (variance / n as f64).sqrt())
    }
}

#[test]
fn tulip_exp5b_per_bit_channel_matches_the_matrix_power() {
    // Exp. 5b: Bad-state bit loss 50 %, Good-state BER 10 per million; fades of 1000 bits
    // on average every 100,000 bits. 1440-byte frames back to back.
    let channel = PerBitChannel {
        p: 1e-5,
        r: 1e-3,
        loss: [10e-6, 0.5],
    };
    let (l, n) = (11_520, 50_000);
    let mut model = channel.spec().build(1_000_000, rng(7));
    let got = loss_rate(&mut model, (0..n).map(|_| data(l)));
    let (want, tol) = channel.exact_loss_and_tolerance(l, n);
    // want = 0.2135, tol = 0.0095 (4.4 %). Judging the whole frame in the state of its
    // first bit would give 0.118.
    assert!(tol < 0.012, "tolerance {tol}");
    assert_close("TULIP Exp. 5b frame loss", got, want, tol);
}

#[test]
fn per_bit_channel_with_many_state_changes_per_frame_matches_the_matrix_power() {
    // About eight sojourns per 4000-bit frame, with Bad lossy but survivable, so the
    // survival of every run inside a frame matters.
    let channel = PerBitChannel {
        p: 1e-3,
        r: 1e-2,
        loss: [1e-5, 1e-3],
    };
    let (l, n) = (4_000, 50_000);
    let mut model = channel.spec().build(1_000_000, rng(8));
    let got = loss_rate(&mut model, (0..n).map(|_| data(l)));
    let (want, tol) = channel.exact_loss_and_tolerance(l, n);
    // want = 0.3116, tol = 0.0104 (3.3 %). Judging the whole frame in the state of its
    // first bit would give 0.125; independent bits at the mean BER 1.0e-4, 0.330.
    assert!(tol < 0.015, "tolerance {tol}");
    assert_close("per-bit GE frame loss", got, want, tol);
}

#[test]
fn per_bit_chain_is_clocked_by_transmitted_bits_not_idle_time() {
    // TULIP: "As bits arrive on the channel ... a decision is made as to whether or not a
    // change of state should occur". The same frames, back to back or an hour apart, meet
    // the same channel.
    let channel = PerBitChannel {
        p: 1e-4,
        r: 1e-2,
        loss: [1e-6, 0.5],
    };
    let mut dense = channel.spec().build(1_000_000, rng(9));
    let mut sparse = channel.spec().build(1_000_000, rng(9));
    let mut losses = 0;
    for k in 0..5_000u64 {
        let a = dense.frame_lost(&frame_at(k * 11_520_000, 11_520, 1_000_000, 1440));
        let b = sparse.frame_lost(&frame_at(k * 3_600_000_000_000, 11_520, 1_000_000, 1440));
        assert_eq!(a, b, "frame {k}");
        losses += u64::from(a);
    }
    assert!(
        losses > 100,
        "the channel must lose frames for this to mean anything"
    );
}

// ---------------------------------------------------------------------------------------
// Per-frame Gilbert–Elliott

#[test]
fn per_frame_gilbert_loses_mean_loss_in_geometric_bursts_of_mean_burst() {
    let (mean_loss, mean_burst) = (0.05, 3.0);
    let spec = ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
        mean_loss: Some(Probability(mean_loss)),
        mean_burst: Some(mean_burst),
        ..Default::default()
    });
    let mut model = spec.build(1_000_000, rng(10));
    let AnyErrorModel::GilbertElliottPerFrame(chain) = &model else {
        panic!("built {model:?}");
    };
    let (p, r) = chain.transition_probabilities();
    assert_close("r = 1/mean_burst", r, 1.0 / 3.0, 1e-15);
    assert_close("p = r·π_B/(1 − π_B)", p, (1.0 / 3.0) * 0.05 / 0.95, 1e-15);

    let n = 1_000_000;
    let mut bursts: Vec<u64> = Vec::new();
    let (mut lost, mut run) = (0u64, 0u64);
    for _ in 0..n {
        if model.frame_lost(&data(8_000)) {
            lost += 1;
            run += 1;
        } else if run > 0 {
            bursts.push(run);
            run = 0;
        }
    }
    // The loss indicator is a two-state chain with eigenvalue λ = 1 − p − r = 0.649; the
    // variance of its mean is π_B·π_G/n·(1 + λ)/(1 − λ): σ = 0.00047, 5σ = 0.0024 (5 %).
    let lambda = 1.0 - p - r;
    let tol =
        5.0 * (mean_loss * (1.0 - mean_loss) / n as f64 * (1.0 + lambda) / (1.0 - lambda)).sqrt();
    assert_close("long-run loss", lost as f64 / n as f64, mean_loss, tol);

    // Bursts are Geometric(r) on {1, 2, ...}: mean 1/r = 3, standard deviation
    // sqrt(1 − r)/r = 2.45; over ≈ 16,700 bursts 5σ of the mean is 0.095.
    let count = bursts.len();
    let mean = bursts.iter().sum::<u64>() as f64 / count as f64;
    let sd = (1.0 - r).sqrt() / r;
    assert_close(
        "mean burst",
        mean,
        mean_burst,
        5.0 * sd / (count as f64).sqrt(),
    );
    for (k, want) in [
        (1u64, r),
        (2, (1.0 - r) * r),
        (3, (1.0 - r) * (1.0 - r) * r),
    ] {
        let got = bursts.iter().filter(|&&b| b == k).count() as f64 / count as f64;
        assert_close(
            &format!("P(burst = {k})"),
            got,
            want,
            five_sigma(want, count),
        );
    }
}

// ---------------------------------------------------------------------------------------
// burst (TULIP Exp. 5a)

#[test]
fn tulip_exp5a_bursts_of_4_every_64kb_hit_exactly_these_data_frames() {
    let spec = ErrorModelSpec::Burst {
        length: 4,
        every: ByteSize(64_000),
    };
    let mut model = spec.build(1_000_000, rng(11));
    // 1400-byte data frames, each followed by a pure ACK that must neither count nor be lost.
    // The count after data frame 46 is 64,400 ≥ 64,000: frames 47-50 are lost and 400
    // bytes carry over; then 400 + 46·1400 = 64,800 at frame 96 (carry 800), 800 + 46·1400
    // at frame 146 (carry 1200), 1200 + 45·1400 = 64,200 at frame 195 (carry 200),
    // 200 + 46·1400 at frame 245.
    let mut lost_data = Vec::new();
    for j in 1..=260u64 {
        if model.frame_lost(&data(1400 * 8)) {
            lost_data.push(j);
        }
        let ack = frame_at(0, 40 * 8, 1_000_000, 0);
        assert!(
            !model.frame_lost(&ack),
            "an ACK after data frame {j} was lost"
        );
    }
    let want: Vec<u64> = [47, 97, 147, 196, 246]
        .iter()
        .flat_map(|&first| first..first + 4)
        .collect();
    assert_eq!(lost_data, want);
}

#[test]
fn burst_model_loses_length_frames_per_every_bytes_over_a_10mb_transfer() {
    for (length, seed) in [(2u32, 12), (6, 13)] {
        let mut model = ErrorModelSpec::Burst {
            length,
            every: ByteSize(64_000),
        }
        .build(1_000_000, rng(seed));
        // 10 MB in 1400-byte frames (TULIP's transfer), counting original transmissions only.
        let mut lost = 0u64;
        let mut delivered_bytes = 0u64;
        while delivered_bytes < 10_000_000 {
            if model.frame_lost(&data(1400 * 8)) {
                lost += 1;
            } else {
                delivered_bytes += 1400;
            }
        }
        // One burst per full 64,000 bytes sent outside bursts; the last may be under way.
        let bursts = delivered_bytes / 64_000;
        let all = u64::from(length) * bursts;
        assert!(
            lost <= all && lost + u64::from(length) > all,
            "length {length}: lost {lost}, {bursts} bursts"
        );
    }
}

// ---------------------------------------------------------------------------------------
// on_off (survey §3.1)

fn on_off(mean_on_ms: u64, mean_off_ms: u64, on_loss: f64) -> ErrorModelSpec {
    ErrorModelSpec::OnOff {
        mean_on: Duration::from_millis(mean_on_ms),
        mean_off: Duration::from_millis(mean_off_ms),
        on_loss: Probability(on_loss),
    }
}

#[test]
fn survey_one_second_on_off_phases_lose_on_loss_times_the_on_fraction() {
    // Mean ON = mean OFF = 1 s, 20 % loss during ON: 0.2·1/(1 + 1) = 0.1. Frames 5 s apart
    // are independent to e^(−2·5). σ = 0.00095, 5σ = 0.0047.
    let mut model = on_off(1_000, 1_000, 0.2).build(1_000_000, rng(14));
    let n = 100_000;
    let got = loss_rate(
        &mut model,
        (1..=n as u64).map(|k| frame_at(k * 5_000_000_000, 11_520, 1_000_000, 1400)),
    );
    assert_close("ON/OFF loss", got, 0.1, five_sigma(0.1, n));

    // Unequal phases, certain loss while ON: the fraction of time ON, 1/(1 + 3).
    let mut model = on_off(1_000, 3_000, 1.0).build(1_000_000, rng(15));
    let got = loss_rate(
        &mut model,
        (1..=n as u64).map(|k| frame_at(k * 10_000_000_000, 11_520, 1_000_000, 1400)),
    );
    assert_close("fraction of time ON", got, 0.25, five_sigma(0.25, n));
}

#[test]
fn on_off_starts_off_and_judges_a_frame_by_its_first_bit() {
    // Starts OFF: a frame at time zero is never lost, whatever the seed.
    for seed in 0..1_000 {
        let mut model = on_off(1_000, 1_000, 1.0).build(1_000_000, rng(seed));
        assert!(
            !model.frame_lost(&frame_at(0, 11_520, 1_000_000, 1400)),
            "seed {seed}"
        );
    }
    // 10 s frames on 1 s phases almost always overlap an ON phase, but only those starting
    // ON are lost: P = 0.5 (an overlap rule would give ≈ 1). Frames 20 s apart.
    let mut model = on_off(1_000, 1_000, 1.0).build(1_000_000, rng(16));
    let n = 20_000;
    let got = loss_rate(
        &mut model,
        (1..=n as u64).map(|k| frame_at(k * 20_000_000_000, 10_000_000, 1_000_000, 1400)),
    );
    assert_close("judged at tx_start", got, 0.5, five_sigma(0.5, n));
}

// ---------------------------------------------------------------------------------------
// drop_list

#[test]
fn drop_list_loses_exactly_the_listed_ordinals_among_all_frames() {
    let spec = ErrorModelSpec::DropList {
        packets: vec![10, 3, 3, 1],
    };
    let mut model = spec.build(1_000_000, rng(17));
    let lost: Vec<u64> = (1..=20u64)
        .filter(|k| {
            // Odd ordinals are data, even ones ACKs: the list counts both.
            let payload = if k % 2 == 1 { 1400 } else { 0 };
            model.frame_lost(&frame_at(0, 11_520, 1_000_000, payload))
        })
        .collect();
    assert_eq!(lost, vec![1, 3, 10]);
    let AnyErrorModel::DropList(m) = &model else {
        panic!("built {model:?}");
    };
    assert_eq!(m.frames_seen(), 20);
}

// ---------------------------------------------------------------------------------------
// Determinism

fn random_specs() -> Vec<ErrorModelSpec> {
    vec![
        ErrorModelSpec::Ber {
            ber: Probability(2e-5),
        },
        ErrorModelSpec::Per {
            per: Probability(0.1),
        },
        timed_spec(200, 50, 1e-6, 1e-2),
        PerBitChannel {
            p: 1e-4,
            r: 1e-2,
            loss: [1e-6, 0.5],
        }
        .spec(),
        ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
            mean_loss: Some(Probability(0.1)),
            mean_burst: Some(2.0),
            ..Default::default()
        }),
        on_off(100, 100, 0.5),
    ]
}

fn decisions(spec: &ErrorModelSpec, seed: u64) -> Vec<bool> {
    let mut model = spec.build(1_000_000, rng(seed));
    (0..5_000u64)
        .map(|k| model.frame_lost(&frame_at(k * 20_000_000, 11_520, 1_000_000, 1400)))
        .collect()
}

#[test]
fn same_seed_same_decisions_other_seed_other_decisions() {
    for spec in random_specs() {
        let a = decisions(&spec, 42);
        assert_eq!(a, decisions(&spec, 42), "{spec:?}");
        assert_ne!(a, decisions(&spec, 43), "{spec:?}");
        assert!(a.iter().any(|&x| x), "{spec:?} never lost a frame");
    }
}

#[test]
fn clones_continue_identically() {
    // A cloned model (e.g. a snapshot of the world) carries its stream and state with it.
    for spec in random_specs() {
        let mut model = spec.build(1_000_000, rng(7));
        for k in 0..100 {
            model.frame_lost(&frame_at(k * 20_000_000, 11_520, 1_000_000, 1400));
        }
        let mut twin = model.clone();
        for k in 100..1_000 {
            let f = frame_at(k * 20_000_000, 11_520, 1_000_000, 1400);
            assert_eq!(model.frame_lost(&f), twin.frame_lost(&f), "{spec:?}");
        }
    }
}

mod spec;
