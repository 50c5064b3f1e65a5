//! Scripted losses: exactly the listed frames are lost, by 1-based ordinal among all frames
//! passed to the model (data, ACKs and control frames alike, in the order sent in this
//! direction). For tests and for replaying a published loss pattern (e.g. TULIP Fig. 12's
//! dropped packets). Ordinals may be given in any order and repeated; 0 never matches.

use super::FrameInfo;

#[derive(Clone, Debug)]
pub struct DropListModel {
    /// The ordinals to drop, sorted, without duplicates.
    ordinals: Vec<u64>,
    /// Index of the next ordinal to drop in `ordinals`.
    next: usize,
    /// Frames judged so far.
    frames_seen: u64,
}

impl DropListModel {
    pub fn new(ordinals: &[u64]) -> Self {
        let mut ordinals = ordinals.to_vec();
        ordinals.sort_unstable();
        ordinals.dedup();
        let next = ordinals.partition_point(|&n| n == 0);
        DropListModel {
            ordinals,
            next,
            frames_seen: 0,
        }
    }

    /// Frames judged so far.
    pub fn frames_seen(&self) -> u64 {
        self.frames_seen
    }

    pub fn frame_lost(&mut self, _frame: &FrameInfo) -> bool {
        self.frames_seen = self.frames_seen.saturating_add(1);
        if self.ordinals.get(self.next) == Some(&self.frames_seen) {
            self.next += 1;
            true
        } else {
            false
        }
    }
}
