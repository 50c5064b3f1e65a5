//! The sender's scoreboard (RFC 6675 §3, §4): which bytes above SND.UNA the receiver has
//! reported holding in SACK blocks (RFC 2018), as stream offsets. Without SACK it stays
//! empty, and every question it answers reduces to the cumulative ACK alone.
//!
//! It answers what loss recovery needs: the first byte at or after an offset the receiver
//! does not hold (`next_hole`), the highest byte it holds (`highest_sacked`, FACK's
//! snd.fack), how many bytes and ranges it holds above an offset, and RFC 6675 `IsLost`:
//! DupThresh discontiguous SACKed ranges or more than (DupThresh − 1)·SMSS SACKed bytes
//! above. `IsLost(s)` can only turn from true to false as `s` grows, so after each update
//! the scoreboard keeps the boundary `lost_below`: every un-SACKed byte below it is lost,
//! none above — which makes `SetPipe` a handful of range sums rather than a walk over
//! every octet. SACKed data stays advisory (RFC 2018 §8): nothing is freed until
//! cumulatively acknowledged.
//!
//! Left out: reneging detection. D-SACK blocks (RFC 2883) need no special case here: one
//! below SND.UNA is ignored, one inside a reported block adds nothing.

use crate::ranges::RangeSet;

/// What the receiver holds beyond the cumulative ACK.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scoreboard {
    sacked: RangeSet,
    /// Every un-SACKed byte below this offset is lost per RFC 6675 `IsLost`
    /// (`update_lost_boundary`); 0 when none is.
    lost_below: u64,
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

    /// Forget everything (RFC 2018 §8: after a timeout the sender turns the SACKed bits off).
    pub fn clear(&mut self) {
        self.sacked = RangeSet::new();
        self.lost_below = 0;
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

    /// Where the next reported range after `from` starts: how far a segment from an
    /// un-SACKed `from` may extend without resending SACKed bytes.
    pub fn next_sacked_after(&self, from: u64) -> Option<u64> {
        self.sacked.next_start_after(from)
    }

    /// The SACKed ranges, lowest first.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.sacked.iter()
    }

    /// One past the highest SACKed byte, if any.
    pub fn highest_sacked(&self) -> Option<u64> {
        self.sacked.iter().last().map(|(_, end)| end)
    }

    /// Bytes SACKed in total.
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked.total()
    }

    /// Bytes in `[start, end)` the receiver has not reported holding.
    pub fn unsacked_in(&self, start: u64, end: u64) -> u64 {
        end.saturating_sub(start) - self.sacked.bytes_in(start, end)
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

    /// The boundary of `IsLost` as of the last `update_lost_boundary`.
    pub fn lost_below(&self) -> u64 {
        self.lost_below
    }

    /// Recomputes `lost_below`, the smallest offset `s` for which `IsLost(s)` is false.
    /// From the top: the ranges condition holds below the end of the DupThresh-th highest
    /// range; the bytes condition below e + C − (DupThresh − 1)·SMSS − 1, where [a, e) is the
    /// range in which the SACKed bytes counted from the top first exceed that amount and C
    /// the bytes above it (for `s` in [a − 1, e), the bytes above `s` are C + e − s − 1).
    pub fn update_lost_boundary(&mut self, dupthresh: u32, mss: u64) {
        let limit = u64::from(dupthresh.saturating_sub(1)) * mss;
        let (mut by_ranges, mut by_bytes) = (0, 0);
        let mut above = 0;
        for (n, (start, end)) in self.sacked.iter().rev().enumerate() {
            if n + 1 == dupthresh as usize {
                by_ranges = end;
            }
            if by_bytes == 0 && above + (end - start) > limit {
                by_bytes = end + above - limit - 1;
            }
            above += end - start;
            if by_bytes != 0 && n + 1 >= dupthresh as usize {
                break;
            }
        }
        self.lost_below = by_ranges.max(by_bytes);
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

    /// The cached boundary agrees with `IsLost` octet by octet.
    #[test]
    fn lost_boundary_is_where_is_lost_turns_false() {
        let layouts: [&[(u64, u64)]; 5] = [
            &[(1000, 4000)],
            &[(1000, 3000)],
            &[(1000, 1100), (3000, 3100), (5000, 5100)],
            &[(2000, 2500), (4000, 6500), (9000, 9200)],
            &[(1000, 2000), (3000, 4000), (5000, 6000), (7000, 8000)],
        ];
        for sacks in layouts {
            for dupthresh in [2, 3] {
                let mut b = Scoreboard::default();
                for &(s, e) in sacks {
                    b.on_sack(0, s, e);
                }
                b.update_lost_boundary(dupthresh, SMSS);
                let first_not_lost = (0..10_000)
                    .find(|&s| !b.is_lost(s, dupthresh, SMSS))
                    .unwrap();
                assert_eq!(
                    b.lost_below(),
                    first_not_lost,
                    "{sacks:?} with DupThresh {dupthresh}"
                );
            }
        }
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
        assert_eq!(b.next_sacked_after(0), Some(2000));
        assert_eq!(b.highest_sacked(), Some(5000));
        assert_eq!(b.unsacked_in(0, 6000), 3000);
        assert!(b.is_sacked(2000, 5000));
        b.on_cumulative_ack(3000);
        assert_eq!(b.sacked_bytes(), 2000);
        b.on_cumulative_ack(6000);
        assert!(b.is_empty());
    }
}
