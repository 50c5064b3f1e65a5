//! A set of half-open `u64` ranges kept sorted and coalesced: which bytes of a stream a
//! receiver holds. Small in practice (one entry per hole), so a sorted `Vec` beats a tree.

/// Sorted, non-overlapping, non-adjacent half-open ranges `[start, end)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: Vec<(u64, u64)>,
}

impl RangeSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `[start, end)`; returns how many of its bytes were not already present.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        // In-order data: the new range starts at or after the end of the last one.
        match self.ranges.last_mut() {
            Some(last) if start > last.1 => {
                self.ranges.push((start, end));
                return end - start;
            }
            Some(last) if start == last.1 => {
                last.1 = end;
                return end - start;
            }
            None => {
                self.ranges.push((start, end));
                return end - start;
            }
            Some(_) => {}
        }
        // First range whose end reaches `start` (touching ranges merge).
        let first = self.ranges.partition_point(|&(_, e)| e < start);
        let mut new_start = start;
        let mut new_end = end;
        let mut covered = 0;
        let mut last = first;
        while last < self.ranges.len() && self.ranges[last].0 <= end {
            let (s, e) = self.ranges[last];
            covered += e.min(end).saturating_sub(s.max(start));
            new_start = new_start.min(s);
            new_end = new_end.max(e);
            last += 1;
        }
        // The merged range replaces ranges `first..last` (usually one: the range grows).
        match last - first {
            0 => self.ranges.insert(first, (new_start, new_end)),
            n => {
                self.ranges[first] = (new_start, new_end);
                if n > 1 {
                    self.ranges.drain(first + 1..last);
                }
            }
        }
        (end - start) - covered
    }

    /// True if every byte of `[start, end)` is present.
    pub fn contains(&self, start: u64, end: u64) -> bool {
        if start >= end {
            return true;
        }
        let i = self.ranges.partition_point(|&(_, e)| e <= start);
        self.ranges
            .get(i)
            .is_some_and(|&(s, e)| s <= start && end <= e)
    }

    /// The end of the range starting at or before `from` and covering it, i.e. how far the
    /// bytes from `from` are contiguous; `from` itself if `from` is missing.
    pub fn contiguous_end(&self, from: u64) -> u64 {
        let i = self.ranges.partition_point(|&(_, e)| e <= from);
        match self.ranges.get(i) {
            Some(&(s, e)) if s <= from => e,
            _ => from,
        }
    }

    /// Bytes present within `[start, end)`.
    pub fn bytes_in(&self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let first = self.ranges.partition_point(|&(_, e)| e <= start);
        self.ranges[first..]
            .iter()
            .take_while(|&&(s, _)| s < end)
            .map(|&(s, e)| e.min(end) - s.max(start))
            .sum()
    }

    /// The start of the first range beginning after `from`, if any.
    pub fn next_start_after(&self, from: u64) -> Option<u64> {
        let i = self.ranges.partition_point(|&(s, _)| s <= from);
        self.ranges.get(i).map(|&(s, _)| s)
    }

    /// Removes `[start, end)`.
    pub fn remove(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let first = self.ranges.partition_point(|&(_, e)| e <= start);
        let last = first + self.ranges[first..].partition_point(|&(s, _)| s < end);
        if first == last {
            return;
        }
        let (left, _) = self.ranges[first];
        let (_, right) = self.ranges[last - 1];
        self.ranges.drain(first..last);
        let mut at = first;
        if left < start {
            self.ranges.insert(at, (left, start));
            at += 1;
        }
        if right > end {
            self.ranges.insert(at, (end, right));
        }
    }

    /// Removes everything below `below`.
    pub fn trim_below(&mut self, below: u64) {
        let i = self.ranges.partition_point(|&(_, e)| e <= below);
        self.ranges.drain(..i);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(below);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of disjoint ranges.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Total bytes present.
    pub fn total(&self) -> u64 {
        self.ranges.iter().map(|(s, e)| e - s).sum()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesces_overlapping_and_adjacent_ranges() {
        let mut r = RangeSet::new();
        assert_eq!(r.insert(10, 20), 10);
        assert_eq!(r.insert(30, 40), 10);
        assert_eq!(r.insert(15, 35), 10);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(10, 40)]);
        assert_eq!(r.insert(40, 50), 10);
        assert_eq!(r.insert(0, 10), 10);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(0, 50)]);
        assert_eq!(r.insert(5, 45), 0);
    }

    #[test]
    fn answers_containment_and_contiguity() {
        let mut r = RangeSet::new();
        r.insert(0, 100);
        r.insert(200, 300);
        assert!(r.contains(10, 100));
        assert!(!r.contains(90, 210));
        assert_eq!(r.contiguous_end(50), 100);
        assert_eq!(r.contiguous_end(150), 150);
        r.trim_below(250);
        assert_eq!(r.iter().collect::<Vec<_>>(), vec![(250, 300)]);
    }

    #[test]
    fn counts_removes_and_finds_the_next_range() {
        let mut r = RangeSet::new();
        r.insert(0, 100);
        r.insert(200, 300);
        r.insert(400, 500);
        assert_eq!(r.bytes_in(50, 450), 50 + 100 + 50);
        assert_eq!(r.bytes_in(100, 200), 0);
        assert_eq!(r.next_start_after(0), Some(200));
        assert_eq!(r.next_start_after(400), None);
        r.remove(50, 250);
        assert_eq!(
            r.iter().collect::<Vec<_>>(),
            vec![(0, 50), (250, 300), (400, 500)]
        );
        r.remove(260, 270);
        assert_eq!(
            r.iter().collect::<Vec<_>>(),
            vec![(0, 50), (250, 260), (270, 300), (400, 500)]
        );
        r.remove(0, 1000);
        assert!(r.is_empty());
    }

    proptest::proptest! {
        /// Inserts in any order keep the set equal to the bytes inserted, as sorted,
        /// coalesced ranges, and each insert counts the bytes it added.
        #[test]
        fn inserts_match_a_set_of_bytes(
            inserts in proptest::collection::vec((0u64..200, 0u64..20), 1..100)
        ) {
            let mut set = RangeSet::new();
            let mut bytes = std::collections::BTreeSet::new();
            for &(start, len) in &inserts {
                let before = bytes.len() as u64;
                bytes.extend(start..start + len);
                proptest::prop_assert_eq!(set.insert(start, start + len), bytes.len() as u64 - before);
            }
            let mut ranges: Vec<(u64, u64)> = Vec::new();
            for &b in &bytes {
                match ranges.last_mut() {
                    Some(last) if last.1 == b => last.1 = b + 1,
                    _ => ranges.push((b, b + 1)),
                }
            }
            proptest::prop_assert_eq!(set.iter().collect::<Vec<_>>(), ranges);
        }
    }
}
