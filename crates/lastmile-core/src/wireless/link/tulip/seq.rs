//! TULIP's sequence numbers: "Data packets are assigned sequence numbers modulo 2W and sender
//! and receiver maintain a buffer of W packets to ensure correct operation" (§3.2, after the
//! selective-repeat rule of Bertsekas & Gallager [8]). All modular arithmetic lives here, so
//! sender and receiver cannot disagree on it.

use std::fmt;

/// A link-level sequence number, in `0..2W`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkSeq(pub u16);

impl fmt::Display for LinkSeq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The sequence space of a window `W`: numbers modulo `2W`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SeqSpace {
    window: u16,
}

impl SeqSpace {
    /// The space for window `W` (callers validate `W ≥ 1`; see `TulipConfig::validate`).
    pub fn new(window: u16) -> Self {
        debug_assert!(window >= 1);
        SeqSpace { window }
    }
    /// W.
    pub fn window(self) -> u16 {
        self.window
    }
    /// 2W.
    pub fn modulus(self) -> u16 {
        2 * self.window
    }
    /// `seq + n` modulo 2W.
    pub fn add(self, seq: LinkSeq, n: u16) -> LinkSeq {
        let m = u32::from(self.modulus());
        LinkSeq(((u32::from(seq.0) + u32::from(n)) % m) as u16)
    }
    /// The number that precedes `seq` (CumACK = −1 is `2W − 1`).
    pub fn prev(self, seq: LinkSeq) -> LinkSeq {
        self.add(seq, self.modulus() - 1)
    }
    /// How far `to` lies after `from`, in `0..2W`.
    pub fn distance(self, from: LinkSeq, to: LinkSeq) -> u16 {
        let m = self.modulus();
        (to.0 + m - from.0 % m) % m
    }
    /// True when `seq ∈ {base, …, base + len − 1}` (mod 2W).
    pub fn in_range(self, base: LinkSeq, len: u16, seq: LinkSeq) -> bool {
        self.distance(base, seq) < len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tulip_seq_arithmetic_wraps_modulo_2w() {
        let s = SeqSpace::new(8);
        assert_eq!(s.modulus(), 16);
        assert_eq!(s.add(LinkSeq(15), 1), LinkSeq(0));
        assert_eq!(s.add(LinkSeq(14), 5), LinkSeq(3));
        assert_eq!(s.prev(LinkSeq(0)), LinkSeq(15));
        assert_eq!(s.distance(LinkSeq(14), LinkSeq(2)), 4);
        assert_eq!(s.distance(LinkSeq(2), LinkSeq(14)), 12);
        assert!(s.in_range(LinkSeq(15), 8, LinkSeq(6)));
        assert!(!s.in_range(LinkSeq(15), 8, LinkSeq(7)));
        assert!(!s.in_range(LinkSeq(15), 0, LinkSeq(15)));
    }
}
