//! Link FEC: a block code that corrects up to t symbol errors in each n-symbol block, laid
//! over any error model (the survey §2.1: "FEC can detect and reverse a
//! limited number of bits, but the penalty in bandwidth can be considerable", its example
//! CDPD at 19.2 kbps raw and 9–13 kbps to the user).
//!
//! **The code.** A frame of `b` information bits is cut into ⌈b / (k·s)⌉ blocks of k data
//! symbols of s bits; each block goes on the air as n symbols (n − k of parity), so the
//! frame takes ⌈b / (k·s)⌉ · n · s bits of airtime — the rate overhead n/k (the last block
//! is padded). The receiver decodes every block: a block with at most t symbols in error
//! is corrected, one with more is not, and the frame is lost exactly when some block is
//! not corrected (the FCS then fails). With s = 1 this is a binary code correcting t bit
//! errors (BCH-like); with s > 1 a Reed–Solomon-like code, where any number of bit errors
//! inside one symbol is one symbol error (CDPD: RS(63,47) over 6-bit symbols, 7 symbols
//! corrected). A decoding delay per frame (interleaving, the decoder's work) is the
//! receiving MAC's (`wireless/mac/duplex.rs`) or the point-to-point channel's.
//!
//! **Errors per block, deterministically.** A bit-level error model describes the coded
//! frame as runs of bits, each with its bit-error probability (`BitRuns`): one run at the
//! BER for `ber`; the Good and Bad stretches the Gilbert–Elliott chain went through for its
//! timed and per-bit forms. Inside a run the error positions are a Bernoulli process, drawn
//! from the model's own random stream as geometric gaps; a block's count stops at t + 1 (it
//! cannot decode whatever follows) and the walk jumps to the next block's first bit, which
//! the memoryless gaps make exact. A block thus costs at most t + 2 draws plus one per run
//! boundary, and the counts are the same on every machine (`libm` only). Frame-level models
//! (`per`, `burst`, `on_off`, `drop_list`, the per-frame Gilbert–Elliott form) decide whole
//! frames: a frame they lose is an erasure no code repairs (every block fails), one they
//! keep arrives clean; they draw exactly what they draw without FEC.
//!
//! Without a code nothing here runs: `frame_lost` is called as before, draw for draw.
//!
//! Left out: soft decisions, erasure decoding, interleaving across frames, convolutional
//! codes (GSM's TCH/F9.6 code is convolutional: the GSM presets treat the RLP frame errors
//! after it as the channel, `scenario/presets.rs`), the decoder's energy.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::SpecError;
use crate::engine::RngStream;
use crate::units::Duration;

/// The largest block, in bits: keeps per-block arithmetic far from overflow and a block's
/// walk short.
pub const BLOCK_BITS_MAX: u64 = 1 << 20;

/// Link FEC as a scenario writes it: `fec = { n = 63, k = 47, t = 7, symbol_bits = 6 }`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FecSpec {
    /// n: symbols per coded block (data and parity).
    pub n: u32,
    /// k: data symbols per block (1 ≤ k < n); the airtime grows by n/k.
    pub k: u32,
    /// t: symbol errors corrected per block; at most (n − k)/2 (the Singleton bound).
    pub t: u32,
    /// Bits per symbol: 1 for a binary code correcting t bit errors, 6 for CDPD's
    /// Reed–Solomon code. Default 1.
    #[serde(default = "default_symbol_bits")]
    pub symbol_bits: u32,
    /// Decoding delay per frame at the receiver (interleaving and decoding), added to the
    /// frame's arrival. Only on `mac = "p2p"` and `mac = "duplex"` hops. Default "0s".
    #[serde(default)]
    pub decode_delay: Duration,
}

fn default_symbol_bits() -> u32 {
    1
}

impl FecSpec {
    /// Checks the code's parameters; the error names the field.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.symbol_bits == 0 || self.symbol_bits > 16 {
            return Err(SpecError::new("symbol_bits", "1 to 16 bits per symbol"));
        }
        if self.k == 0 {
            return Err(SpecError::new("k", "at least 1 data symbol per block"));
        }
        if self.n <= self.k {
            return Err(SpecError::new(
                "n",
                format!("more symbols than k = {} (n − k are parity)", self.k),
            ));
        }
        if u64::from(self.n) * u64::from(self.symbol_bits) > BLOCK_BITS_MAX {
            return Err(SpecError::new(
                "n",
                format!("a block of at most {BLOCK_BITS_MAX} bits (n × symbol_bits)"),
            ));
        }
        if 2 * u64::from(self.t) > u64::from(self.n - self.k) {
            return Err(SpecError::new(
                "t",
                format!(
                    "at most (n − k)/2 = {} corrected symbols (no code of n = {}, k = {} \
                     corrects more)",
                    (self.n - self.k) / 2,
                    self.n,
                    self.k
                ),
            ));
        }
        Ok(())
    }

    /// The code (call `validate` first; an invalid spec is clamped into a valid one).
    pub fn code(&self) -> BlockCode {
        let s = self.symbol_bits.clamp(1, 16);
        let k = self.k.max(1);
        let n = self.n.max(k + 1);
        BlockCode {
            n,
            k,
            t: self.t.min((n - k) / 2),
            symbol_bits: s,
        }
    }
}

/// An (n, k) block code over s-bit symbols correcting t symbol errors per block.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockCode {
    pub n: u32,
    pub k: u32,
    pub t: u32,
    pub symbol_bits: u32,
}

impl BlockCode {
    /// Bits of a coded block on the air: n·s.
    pub fn block_bits(&self) -> u64 {
        u64::from(self.n) * u64::from(self.symbol_bits)
    }
    /// Information bits a block carries: k·s.
    pub fn data_bits(&self) -> u64 {
        u64::from(self.k) * u64::from(self.symbol_bits)
    }
    /// Blocks needed for `info_bits` (the last one padded).
    pub fn blocks(&self, info_bits: u64) -> u64 {
        info_bits.div_ceil(self.data_bits())
    }
    /// Bits on the air for a frame of `info_bits`.
    pub fn coded_bits(&self, info_bits: u64) -> u64 {
        self.blocks(info_bits).saturating_mul(self.block_bits())
    }
    /// Whether a block with `symbol_errors` symbols in error is corrected.
    pub fn corrects(&self, symbol_errors: u32) -> bool {
        symbol_errors <= self.t
    }
    /// Whether a frame whose blocks have these symbol-error counts is decoded: every block
    /// corrected.
    pub fn decodes(&self, errors: &BlockErrors) -> bool {
        errors.counts.iter().all(|&e| self.corrects(e))
    }
}

/// Symbol errors in each block of a coded frame, each count capped at t + 1 (past t the
/// block is lost whatever the exact count).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockErrors {
    pub counts: Vec<u32>,
}

impl BlockErrors {
    /// A frame with no error in any of its `blocks`.
    pub fn clean(blocks: u64) -> Self {
        BlockErrors {
            counts: vec![0; blocks as usize],
        }
    }
    /// A frame whose every block is beyond repair (a frame-level model's loss).
    pub fn erased(blocks: u64, code: &BlockCode) -> Self {
        BlockErrors {
            counts: vec![code.t + 1; blocks as usize],
        }
    }
}

/// The coded frame as runs of bits, in transmission order, each judged at one bit-error
/// probability; the runs' lengths add up to the frame's coded bits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BitRuns {
    pub runs: Vec<(u64, f64)>,
}

impl BitRuns {
    pub fn push(&mut self, bits: u64, ber: f64) {
        if bits == 0 {
            return;
        }
        match self.runs.last_mut() {
            Some((b, p)) if *p == ber => *b += bits,
            _ => self.runs.push((bits, ber)),
        }
    }

    /// The symbol errors in each block of `code` over these runs, drawn from `rng` (see the
    /// module notes: geometric gaps, a count capped at t + 1, a jump to the next block).
    pub fn block_errors(&self, code: &BlockCode, rng: &mut RngStream) -> BlockErrors {
        let total: u64 = self.runs.iter().map(|r| r.0).sum();
        let block = code.block_bits();
        let blocks = total.div_ceil(block);
        let mut counts = Vec::with_capacity(blocks as usize);
        // The run the walk is in, and the bit where that run started.
        let (mut run, mut run_start) = (0usize, 0u64);
        for b in 0..blocks {
            let (start, end) = (b * block, ((b + 1) * block).min(total));
            while run < self.runs.len() && run_start + self.runs[run].0 <= start {
                run_start += self.runs[run].0;
                run += 1;
            }
            counts.push(block_symbol_errors(
                &self.runs, run, run_start, start, end, code, rng,
            ));
        }
        BlockErrors { counts }
    }
}

/// Symbol errors (capped at t + 1) in the block [start, end), the walk entering it in run
/// `run`, which began at bit `run_start`.
fn block_symbol_errors(
    runs: &[(u64, f64)],
    mut run: usize,
    mut run_start: u64,
    start: u64,
    end: u64,
    code: &BlockCode,
    rng: &mut RngStream,
) -> u32 {
    let s = u64::from(code.symbol_bits);
    let (mut errors, mut last_symbol) = (0u32, None);
    let mut pos = start;
    while pos < end && run < runs.len() {
        let (bits, ber) = runs[run];
        let seg_end = (run_start + bits).min(end);
        while pos < seg_end {
            let gap = rng.geometric(ber);
            if gap >= seg_end - pos {
                pos = seg_end;
                break;
            }
            let at = pos + gap;
            let symbol = (at - start) / s;
            if last_symbol != Some(symbol) {
                last_symbol = Some(symbol);
                errors += 1;
                if errors > code.t {
                    return errors;
                }
            }
            pos = at + 1;
        }
        if pos >= run_start + bits {
            run_start += bits;
            run += 1;
        }
    }
    errors
}

#[cfg(test)]
mod tests;
