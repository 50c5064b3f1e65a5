//! A small, fast, deterministic hasher for lookup tables keyed by a few integers (the
//! Firefox/rustc "FxHash" multiply-rotate scheme). It is used only for lookups — never for
//! iteration order — so it cannot influence a result; it replaces SipHash where hashing a
//! port/address tuple per packet was a measurable share of a run.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A `HashMap` with `FxHasher`: for lookups by small integer keys.
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_stores() {
        let mut m: FxHashMap<(u16, u32, u16), u32> = FxHashMap::default();
        for i in 0..1000u16 {
            m.insert((i, u32::from(i) * 7, 5001), u32::from(i));
        }
        assert_eq!(m.get(&(42, 294, 5001)), Some(&42));
        assert_eq!(m.get(&(42, 295, 5001)), None);
    }
}
