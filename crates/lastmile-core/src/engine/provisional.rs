//! Provisional places in the event order: an event queued before the moment that fixes its
//! place among equal-time events, and moved if that moment turns out to matter.
//!
//! The queue orders events at the same nanosecond by the sequence number each took when it
//! was scheduled (`queue` module notes). Some events are known before the moment that would
//! schedule them: a frame whose transmitter has nothing else to send is known, when it
//! starts, to arrive one serialisation and one propagation delay later, but in a run that
//! handled the frame's end as an event of its own, the arrival took its place when that
//! end was processed (at the end's own place in the order, `until`). The arrival can be
//! queued early, at the place reserved when the frame started, and still pop exactly where
//! it would have: the two places differ only for an event at the arrival's very time `at`
//! that was scheduled after the frame started and before its end was reached. So each
//! early arrival is watched: every place reserved for an event at time `at` while `until`
//! has not been reached flags it, and its owner moves it, at the end of the event being
//! processed, to a place taken after every place reserved so far (`EventQueue::
//! take_moves`). Any place reserved once `until` is passed comes after it anyway.
//!
//! The table is direct-mapped by `at` and small: checking a reservation costs a multiply,
//! a load and a compare, and nothing but a flag's test in a run that never watched. Two watches whose times share a slot cannot both be held; the
//! second is refused (`try_watch`) and its owner schedules the event it meant to skip,
//! which is always exact. A watch whose `until` has been passed is dead: it is cleared when
//! a reservation meets it or taken over when a new watch needs its slot.

use super::time::SimTime;

/// Slots in the table (a power of two).
const SLOTS: usize = 128;
/// An empty slot's time (no watch stands there: a reservation at `SimTime::MAX` meets it
/// and finds it dead).
const EMPTY: u64 = u64::MAX;

/// One watched event: its provisional place (`at`, `seq`), the place `until` that fixes its
/// true one, whom it belongs to, and whether a reservation has flagged it.
#[derive(Copy, Clone, Debug, Default)]
struct Watch {
    until: u128,
    seq: u64,
    owner: u32,
    flagged: bool,
}

/// A watched event moved to a fresh place: its owner, time and old and new sequence numbers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    pub owner: u32,
    pub at: SimTime,
    pub old_seq: u64,
    pub new_seq: u64,
}

/// The watches (module notes).
pub(super) struct Watches {
    /// Per slot, the watched time in nanoseconds (`EMPTY` when free).
    times: Box<[u64; SLOTS]>,
    watches: Box<[Watch; SLOTS]>,
    /// Some watch is flagged.
    flagged: bool,
    /// A watch has been taken in this run (until then a reservation checks nothing).
    used: bool,
    /// Watched events moved, and watches refused for want of a slot.
    pub(super) moved: u64,
    pub(super) refused: u64,
}

#[inline(always)]
fn slot_of(at: SimTime) -> usize {
    (at.as_nanos().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros())) as usize
}

impl Watches {
    pub(super) fn new() -> Self {
        Watches {
            times: Box::new([EMPTY; SLOTS]),
            watches: Box::new([Watch::default(); SLOTS]),
            flagged: false,
            used: false,
            moved: 0,
            refused: 0,
        }
    }

    /// A place is being reserved for an event at `at` while the event at place `current`
    /// is processed: flags a live watch at that time, clears a dead one.
    #[inline(always)]
    pub(super) fn on_reserve(&mut self, at: SimTime, current: u128) {
        if !self.used {
            return;
        }
        let slot = slot_of(at);
        if self.times[slot] == at.as_nanos() {
            self.met(slot, current);
        }
    }

    #[cold]
    #[inline(never)]
    fn met(&mut self, slot: usize, current: u128) {
        let w = &mut self.watches[slot];
        if w.until > current {
            w.flagged = true;
            self.flagged = true;
        } else {
            self.times[slot] = EMPTY;
        }
    }

    /// Watches the event at (`at`, `seq`) of `owner` until place `until` is passed, if its
    /// slot is free or its holder dead (`until` passed); false, and nothing watched, if a
    /// live watch holds it.
    #[inline]
    pub(super) fn try_watch(
        &mut self,
        at: SimTime,
        seq: u64,
        until: u128,
        owner: u32,
        current: u128,
    ) -> bool {
        let slot = slot_of(at);
        if self.times[slot] != EMPTY && self.watches[slot].until > current {
            self.refused += 1;
            return false;
        }
        self.times[slot] = at.as_nanos();
        self.watches[slot] = Watch {
            until,
            seq,
            owner,
            flagged: false,
        };
        self.used = true;
        true
    }

    /// Ends the watch at `at` that waited for `until`, if it still holds its slot (a watch
    /// left to die instead frees its slot once `until` is passed).
    #[inline]
    pub(super) fn unwatch(&mut self, at: SimTime, until: u128) {
        let slot = slot_of(at);
        if self.times[slot] == at.as_nanos() && self.watches[slot].until == until {
            self.times[slot] = EMPTY;
        }
    }

    #[inline(always)]
    pub(super) fn any_flagged(&self) -> bool {
        self.flagged
    }

    /// Gives every flagged watch the sequence number `fresh` returns (in slot order: their
    /// times differ, so their order among themselves does not matter) and reports the moves.
    pub(super) fn move_flagged(&mut self, mut fresh: impl FnMut() -> u64) -> Vec<Moved> {
        self.flagged = false;
        let mut moved = Vec::new();
        for (slot, w) in self.watches.iter_mut().enumerate() {
            if !w.flagged || self.times[slot] == EMPTY {
                w.flagged = false;
                continue;
            }
            w.flagged = false;
            let new_seq = fresh();
            moved.push(Moved {
                owner: w.owner,
                at: SimTime::from_nanos(self.times[slot]),
                old_seq: w.seq,
                new_seq,
            });
            w.seq = new_seq;
        }
        self.moved += moved.len() as u64;
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(at: u64, seq: u64) -> u128 {
        (u128::from(at) << 64) | u128::from(seq)
    }

    #[test]
    fn a_reservation_at_the_watched_time_before_its_end_flags_it_once_after_not() {
        let mut w = Watches::new();
        let at = SimTime::from_nanos(5_000);
        assert!(w.try_watch(at, 7, place(2_000, 7), 3, place(1_000, 6)));
        // Another time: nothing.
        w.on_reserve(SimTime::from_nanos(4_999), place(1_000, 8));
        assert!(!w.any_flagged());
        // The watched time, before the end is reached: flagged.
        w.on_reserve(at, place(1_000, 8));
        assert!(w.any_flagged());
        let moved = w.move_flagged(|| 42);
        assert_eq!(
            moved,
            [Moved {
                owner: 3,
                at,
                old_seq: 7,
                new_seq: 42
            }]
        );
        assert!(!w.any_flagged());
        // Past the end: the watch is dead, cleared, and its slot free.
        w.on_reserve(at, place(2_000, 9));
        assert!(!w.any_flagged());
        assert!(w.move_flagged(|| 43).is_empty());
        assert!(w.try_watch(at, 10, place(3_000, 10), 4, place(2_000, 9)));
    }

    #[test]
    fn a_live_watch_holds_its_slot_until_its_end_is_passed_or_it_is_ended() {
        let mut w = Watches::new();
        let at = SimTime::from_nanos(9_000);
        assert!(w.try_watch(at, 1, place(3_000, 1), 0, place(0, 0)));
        // Live: refused, and counted.
        assert!(!w.try_watch(at, 5, place(4_000, 5), 1, place(2_999, 5)));
        assert_eq!(w.refused, 1);
        // Ending another watch's wait leaves it; ending its own frees the slot.
        w.unwatch(at, place(3_000, 2));
        assert!(!w.try_watch(at, 6, place(4_000, 6), 1, place(2_999, 6)));
        w.unwatch(at, place(3_000, 1));
        assert!(w.try_watch(at, 7, place(4_000, 7), 1, place(2_999, 7)));
        // Dead once its end is passed: taken over.
        assert!(w.try_watch(at, 9, place(5_000, 9), 2, place(4_000, 8)));
    }
}
