//! TCP sequence numbers: 32-bit, compared by wrapping difference (RFC 793 §3.3, and
//! smoltcp's `TcpSeqNumber`). `a < b` means "b is after a" within half the space.

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Sub};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct SeqNumber(pub u32);

impl SeqNumber {
    /// Signed distance from `other` to `self`.
    pub fn wrapping_diff(self, other: SeqNumber) -> i32 {
        self.0.wrapping_sub(other.0) as i32
    }
    pub fn max(self, other: SeqNumber) -> SeqNumber {
        if self >= other {
            self
        } else {
            other
        }
    }
    pub fn min(self, other: SeqNumber) -> SeqNumber {
        if self <= other {
            self
        } else {
            other
        }
    }
}

impl Add<u32> for SeqNumber {
    type Output = SeqNumber;
    fn add(self, n: u32) -> SeqNumber {
        SeqNumber(self.0.wrapping_add(n))
    }
}

impl Sub<SeqNumber> for SeqNumber {
    type Output = u32;
    /// The number of bytes from `rhs` up to `self`; panics if `rhs` is after `self`.
    fn sub(self, rhs: SeqNumber) -> u32 {
        let d = self.wrapping_diff(rhs);
        assert!(d >= 0, "sequence number {rhs:?} is after {self:?}");
        d as u32
    }
}

impl PartialOrd for SeqNumber {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
// Not a total order over the whole space, but total within any window smaller than 2^31,
// which is all TCP ever compares.
impl Ord for SeqNumber {
    fn cmp(&self, other: &Self) -> Ordering {
        self.wrapping_diff(*other).cmp(&0)
    }
}

impl fmt::Debug for SeqNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seq{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_across_the_wrap() {
        let before = SeqNumber(u32::MAX - 10);
        let after = before + 100;
        assert_eq!(after.0, 89);
        assert!(after > before);
        assert_eq!(after - before, 100);
        assert_eq!(before.max(after), after);
    }
}
