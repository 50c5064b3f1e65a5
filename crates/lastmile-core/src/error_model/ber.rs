//! Memoryless losses: independent bit errors (`ber`) and a fixed packet error rate (`per`).
//!
//! `ber` follows TULIP Exp. 1 ("bit errors are exponentially distributed", i.e. each bit is
//! in error independently at the given BER): a frame of n bits is lost with probability
//! 1 − (1 − BER)^n, computed as −expm1(n·log1p(−BER)) so that BERs of 1e-9 on short frames
//! keep their precision. TULIP's arithmetic checks it: BER 15 per million on a 1440-byte
//! packet gives a PER of 0.159 (Table 1). `per` loses every frame with the same probability
//! whatever its length (the survey's Table 1 "random segment drops", LLE-TCP Fig. 7).
//!
//! One uniform draw decides each frame; nothing carries over between frames.

use super::fec::{BitRuns, BlockCode, BlockErrors};
use super::FrameInfo;
use crate::engine::RngStream;

/// ln P(no error in `n` independent trials of error probability `p`) = n·ln(1 − p);
/// 0 when `n` is 0 (an empty exposure never fails, even at p = 1).
pub(crate) fn log_survival(p: f64, n: f64) -> f64 {
    if n <= 0.0 || p <= 0.0 || p.is_nan() {
        0.0
    } else if p >= 1.0 {
        f64::NEG_INFINITY
    } else {
        n * libm::log1p(-p)
    }
}

/// 1 − exp(log_survival), without cancellation for tiny losses.
pub(crate) fn loss_from_log_survival(log_survival: f64) -> f64 {
    -libm::expm1(log_survival)
}

/// A probability from user input, made safe: NaN becomes 0, the rest is clamped to [0, 1].
pub(crate) fn clamp_probability(p: f64) -> f64 {
    if p.is_nan() {
        0.0
    } else {
        p.clamp(0.0, 1.0)
    }
}

/// The packet error rate of an `bits`-bit frame under independent bit errors at `ber`:
/// 1 − (1 − ber)^bits (the paper arithmetic behind "ideal goodput = 1 − PER").
pub fn per_from_ber(ber: f64, bits: u64) -> f64 {
    loss_from_log_survival(log_survival(clamp_probability(ber), bits as f64))
}

/// Independent bit errors at a fixed BER (TULIP Exp. 1 and 2).
#[derive(Clone, Debug)]
pub struct BerModel {
    ber: f64,
    rng: RngStream,
}

impl BerModel {
    pub fn new(ber: f64, rng: RngStream) -> Self {
        BerModel {
            ber: clamp_probability(ber),
            rng,
        }
    }

    /// The probability that a frame of `bits` bits is lost: 1 − (1 − BER)^bits.
    pub fn loss_probability(&self, bits: u64) -> f64 {
        per_from_ber(self.ber, bits)
    }

    pub fn frame_lost(&mut self, frame: &FrameInfo) -> bool {
        let p = self.loss_probability(frame.bits);
        self.rng.bernoulli(p)
    }

    /// Symbol errors per block of `code` over the frame's coded bits, every bit in error
    /// independently at the BER (`fec.rs`).
    pub fn block_errors(&mut self, frame: &FrameInfo, code: &BlockCode) -> BlockErrors {
        let mut runs = BitRuns::default();
        runs.push(frame.bits, self.ber);
        runs.block_errors(code, &mut self.rng)
    }
}

/// Every frame lost independently with the same probability.
#[derive(Clone, Debug)]
pub struct PerModel {
    per: f64,
    rng: RngStream,
}

impl PerModel {
    pub fn new(per: f64, rng: RngStream) -> Self {
        PerModel {
            per: clamp_probability(per),
            rng,
        }
    }

    pub fn frame_lost(&mut self, _frame: &FrameInfo) -> bool {
        self.rng.bernoulli(self.per)
    }
}
