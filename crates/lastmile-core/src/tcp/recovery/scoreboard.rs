//! The sender's scoreboard (RFC 6675 §3, §4): which bytes above SND.UNA the receiver has
//! reported holding in SACK blocks (RFC 2018), as stream offsets. Without SACK it stays
//! empty, and every question it answers reduces to the cumulative ACK alone.
//!
//! It answers what loss recovery needs to name a hole: the first byte at or after an
//! offset the receiver does not hold (`next_hole`), the highest byte it holds
//! (`highest_sacked`), how many bytes and ranges it holds above an offset (RFC 6675
//! `IsLost`: DupThresh discontiguous ranges or more than (DupThresh − 1)·SMSS bytes above).
//! SACKed data stays advisory (RFC 2018 §8): nothing is freed until cumulatively acked.
//!
//! Left out: reneging detection, D-SACK (RFC 2883).

use crate::ranges::RangeSet;

/// What the receiver holds beyond the cumulative ACK.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    sacked: RangeSet,
}

impl Scoreboard {
    /// A SACK block `[start, end)` arrived; returns the bytes it newly reported.
    pub fn on_sack(&mut self, snd_una: u64, start: u64, end: u64) -> u64 {
        self.sacked.insert(start.max(snd_una), end)
    }

    /// SND.UNA advanced to `snd_una`: forget what it covers.
    #[inline]
    pub fn on_cumulative_ack(&mut self, snd_una: u64) {
        if !self.sacked.is_empty() {
            self.sacked.trim_below(snd_una);
        }
    }

    /// Forget everything (RFC 2018 §8 after a timeout, if the sender chooses to).
    pub fn clear(&mut self) {
        self.sacked = RangeSet::new();
    }

    pub fn is_empty(&self) -> bool {
        self.sacked.is_empty()
    }

    /// True if the receiver reported holding every byte of `[start, end)`.
    pub fn is_sacked(&self, start: u64, end: u64) -> bool {
        !self.sacked.is_empty() && self.sacked.contains(start, end)
    }

    /// The first byte at or after `from` the receiver has not reported holding.
    pub fn next_hole(&self, from: u64) -> u64 {
        self.sacked.contiguous_end(from)
    }

    /// One past the highest SACKed byte, if any.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.sacked.iter().last().map(|(_, end)| end)
    }

    /// Bytes SACKed in total.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.total()
    }

    /// (discontiguous ranges, bytes) SACKed above `offset`, for RFC 6675's `IsLost`.
    pub fn sacked_above(&self, offset: u64) -> (usize, u64) {
        self.sacked
            .iter()
            .filter(|&(_, end)| end > offset)
            .fold((0, 0), |(n, bytes), (start, end)| {
                (n + 1, bytes + end - start.max(offset + 1).min(end))
            })
    }

    /// RFC 6675 §4 `IsLost(offset)`: at least `dupthresh` discontiguous SACKed ranges lie
    /// above it, or more than (DupThresh − 1)·SMSS SACKed bytes do.
    pub fn is_lost(&self, offset: u64, dupthresh: u32, mss: u64) -> bool {
        let (ranges, bytes) = self.sacked_above(offset);
        ranges >= dupthresh as usize || bytes > u64::from(dupthresh.saturating_sub(1)) * mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1000;

    /// RFC 6675 §4 with SMSS 1000 and DupThresh 3 (tcp-family-notes §1.3, test 1).
    #[test]
    fn rfc6675_is_lost_after_three_segments_sacked_above_in_one_block() {
        let mut b = Scoreboard::default();
        // Segment 0 is the hole; segments 1, 2 and 3 arrived: one block, 3000 B > 2000 B.
        b.on_sack(0, 1000, 4000);
        assert!(b.is_lost(0, 3, SMSS));
        // With only 1 and 2 SACKed (2000 B, one block) it is not lost yet.
        let mut b = Scoreboard::default();
        b.on_sack(0, 1000, 3000);
        assert!(!b.is_lost(0, 3, SMSS));
    }

    #[test]
    fn rfc6675_is_lost_after_dupthresh_discontiguous_ranges() {
        let mut b = Scoreboard::default();
        for seg in [1, 3, 5] {
            b.on_sack(0, seg * SMSS, seg * SMSS + 100);
        }
        assert_eq!(b.sacked_above(0), (3, 300));
        assert!(b.is_lost(0, 3, SMSS));
        assert!(!b.is_lost(2 * SMSS, 3, SMSS));
    }

    #[test]
    fn holes_are_named_and_a_cumulative_ack_forgets_what_it_covers() {
        let mut b = Scoreboard::default();
        assert!(b.is_empty());
        assert_eq!(b.next_hole(0), 0, "without SACK the first hole is SND.UNA");
        assert_eq!(b.on_sack(0, 2000, 4000), 2000);
        assert_eq!(b.on_sack(0, 3000, 5000), 1000);
        assert_eq!(b.next_hole(0), 0);
        assert_eq!(b.next_hole(2500), 5000);
        assert_eq!(b.highest_sacked(), Some(5000));
        assert!(b.is_sacked(2000, 5000));
        b.on_cumulative_ack(3000);
        assert_eq!(b.sacked_bytes(), 2000);
        b.on_cumulative_ack(6000);
        assert!(b.is_empty());
    }
}
