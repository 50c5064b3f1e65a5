//! Random streams: one run seed, one independent named stream per component.
//!
//! Each component (the error model of link 3's forward direction, the Poisson source of
//! flow 0, ...) asks for `RngStream::derive(seed, "link/3/fwd/errors")`. The stream's state
//! is a hash of the run seed and the name, so adding a component never changes the draws of
//! another. The generator is xoshiro256++ (Blackman & Vigna), seeded through SplitMix64;
//! logarithms come from `libm` (a pure-Rust port of musl's), so draws are bit-identical on
//! every machine and platform.

/// A deterministic stream of random numbers for one component.
#[derive(Clone, Debug)]
pub struct RngStream {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a, 64 bit: a stable hash of the stream name (std's hashers are not stable).
fn fnv1a(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

impl RngStream {
    /// The stream called `name` under the run seed `seed`.
    pub fn derive(seed: u64, name: &str) -> Self {
        let mut state = seed ^ fnv1a(name).rotate_left(17);
        // Mix twice so that nearby seeds and names land far apart.
        let _ = splitmix64(&mut state);
        let s = [
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
            splitmix64(&mut state),
        ];
        RngStream { s }
    }

    /// xoshiro256++.
    pub fn next_u64(&mut self) -> u64 {
        let result = (self.s[0].wrapping_add(self.s[3]))
            .rotate_left(23)
            .wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), 53 bits of precision.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1]: safe to take the logarithm of.
    pub fn next_f64_open0(&mut self) -> f64 {
        ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.next_f64() < p
        }
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.next_f64_open0())
    }

    /// Uniform integer in [0, n], inclusive (as 802.11's backoff draw over [0, CW]).
    pub fn uniform_inclusive(&mut self, n: u64) -> u64 {
        if n == u64::MAX {
            return self.next_u64();
        }
        self.below(n + 1)
    }

    /// Uniform integer in [0, n), unbiased (Lemire's method with rejection).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0) is empty");
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// Number of failures before the first success of independent trials with success
    /// probability `p` (geometric on {0, 1, 2, ...}); `u64::MAX` when `p` is 0.
    pub fn geometric(&mut self, p: f64) -> u64 {
        if p >= 1.0 {
            return 0;
        }
        if p <= 0.0 {
            return u64::MAX;
        }
        let k = libm::floor(libm::log(self.next_f64_open0()) / libm::log1p(-p));
        if k >= u64::MAX as f64 {
            u64::MAX
        } else {
            k as u64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_name_give_the_same_stream() {
        let mut a = RngStream::derive(7, "link/0/fwd/errors");
        let mut b = RngStream::derive(7, "link/0/fwd/errors");
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn streams_are_independent_by_name_and_seed() {
        let a: Vec<u64> = {
            let mut r = RngStream::derive(7, "a");
            (0..4).map(|_| r.next_u64()).collect()
        };
        let b: Vec<u64> = {
            let mut r = RngStream::derive(7, "b");
            (0..4).map(|_| r.next_u64()).collect()
        };
        let c: Vec<u64> = {
            let mut r = RngStream::derive(8, "a");
            (0..4).map(|_| r.next_u64()).collect()
        };
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut r = RngStream::derive(1, "exp");
        let n = 200_000;
        let mean: f64 = (0..n).map(|_| r.exponential(2.5)).sum::<f64>() / n as f64;
        assert!((mean - 2.5).abs() < 0.03, "mean {mean}");
    }

    #[test]
    fn geometric_has_mean_q_over_p() {
        let mut r = RngStream::derive(1, "geo");
        let p = 0.2;
        let n = 200_000;
        let mean = (0..n).map(|_| r.geometric(p) as f64).sum::<f64>() / n as f64;
        assert!((mean - (1.0 - p) / p).abs() < 0.05, "mean {mean}");
    }

    #[test]
    fn uniform_inclusive_covers_both_ends() {
        let mut r = RngStream::derive(3, "cw");
        let mut seen = [false; 32];
        for _ in 0..10_000 {
            seen[r.uniform_inclusive(31) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }
}
