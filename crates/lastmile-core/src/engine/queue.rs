//! The event queue: events ordered by (time, insertion sequence), in two four-ary heaps.
//!
//! Events at equal times leave in the order they were scheduled (FIFO), which makes every
//! run deterministic without relying on the heaps' internal order. Scheduling an event
//! earlier than the last one popped is an error: time never runs backwards.
//!
//! **The key.** An entry's place is one 128-bit number, the time in the high 64 bits and
//! the sequence number in the low 64: comparing two entries is one wide comparison, and
//! (time, sequence) order is exactly the order of that number.
//!
//! **Four-ary heaps.** A simulation's queue is popped as often as it is pushed, and most
//! of what is pending at any moment is a handful of frames in transmission and in
//! propagation. A heap whose nodes have four children is half as deep as a binary one: a
//! pop sifts over half the levels (each finding the least of four adjacent keys, one cache
//! line), and a push climbs half as far.
//!
//! **Two heaps.** A heap's pop sifts over log₄(size) levels, each a branch the CPU
//! mispredicts often and, in a large heap, a cache miss. In a run with many flows most
//! pending events are connection timers — each connection's retransmission timer, a second
//! or so ahead, mostly moved on before it fires — while the events that pop most often (a
//! frame's end, a packet's arrival, a MAC's slot) are few at a time. So the events of
//! `Lane::Timers` (scheduled by the world for endpoints' and applications' timers) wait in
//! a heap of their own, and the hot events in a heap that stays small; `pop` takes the
//! earlier of the two heads. The order of events is unchanged.
//!
//! **Reserved sequence numbers.** A component whose events are scheduled in (time, seq)
//! order — a link's packets in propagation, each due `delay` after its transmission ended
//! — can keep them in its own FIFO with only the first in the queue: it takes each one's
//! place in the order at the time it would have scheduled it (`reserve_seq`), and queues
//! the next when the first pops (`schedule_reserved`). The run is the same event for
//! event, with one pending entry per FIFO instead of one per packet.
//!
//! **Provisional places.** An event may also be queued before the moment that would have
//! fixed its place, at a place reserved early, and watched until that moment is passed
//! (`provisional` module notes): a reservation for an event at the same time in between
//! flags it, and the owner moves it behind (`try_watch`, `take_moves`, `move_entry`). `passed` says
//! whether a place that holds no event has been reached.

use super::provisional::{Moved, Watches};
use super::time::SimTime;

/// An event and its place in the order: `time << 64 | seq` (module notes).
struct Entry<E> {
    key: u128,
    event: E,
}

#[inline(always)]
fn key_of(time: SimTime, seq: u64) -> u128 {
    (u128::from(time.as_nanos()) << 64) | u128::from(seq)
}

#[inline(always)]
fn time_of(key: u128) -> SimTime {
    SimTime::from_nanos((key >> 64) as u64)
}

/// A min-heap of entries by key, four children per node (module notes).
struct QuadHeap<E> {
    entries: Vec<Entry<E>>,
}

impl<E> QuadHeap<E> {
    fn with_capacity(n: usize) -> Self {
        QuadHeap {
            entries: Vec::with_capacity(n),
        }
    }

    #[inline(always)]
    fn head_key(&self) -> Option<u128> {
        self.entries.first().map(|e| e.key)
    }

    #[inline]
    fn push(&mut self, entry: Entry<E>) {
        let key = entry.key;
        let mut at = self.entries.len();
        self.entries.push(entry);
        // Climb while the parent is later, one swap a level (most events are scheduled
        // behind the others and do not climb at all).
        while at > 0 {
            let parent = (at - 1) / 4;
            if self.entries[parent].key <= key {
                break;
            }
            self.entries.swap(parent, at);
            at = parent;
        }
    }

    /// Removes the head (the heap must not be empty).
    #[inline]
    fn pop_head(&mut self) -> Entry<E> {
        let last = self.entries.pop().expect("pop_head on an empty heap");
        if self.entries.is_empty() {
            return last;
        }
        let key = last.key;
        let head = std::mem::replace(&mut self.entries[0], last);
        let n = self.entries.len();
        let mut at = 0;
        loop {
            let first = 4 * at + 1;
            if first >= n {
                break;
            }
            // The least of the (up to) four children.
            let mut least = first;
            let mut least_key = self.entries[first].key;
            for child in first + 1..(first + 4).min(n) {
                let k = self.entries[child].key;
                if k < least_key {
                    least = child;
                    least_key = k;
                }
            }
            if least_key >= key {
                break;
            }
            self.entries.swap(at, least);
            at = least;
        }
        head
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    /// Moves the entry at `old` to the later key `new`; false if no entry has key `old`.
    /// A scan: only a rare correction uses it.
    #[cold]
    fn move_later(&mut self, old: u128, new: u128) -> bool {
        debug_assert!(new > old);
        let Some(mut at) = self.entries.iter().position(|e| e.key == old) else {
            return false;
        };
        self.entries[at].key = new;
        let n = self.entries.len();
        loop {
            let first = 4 * at + 1;
            if first >= n {
                break;
            }
            let least = (first..(first + 4).min(n))
                .min_by_key(|&c| self.entries[c].key)
                .expect("a child");
            if self.entries[least].key >= new {
                break;
            }
            self.entries.swap(at, least);
            at = least;
        }
        true
    }

    fn iter(&self) -> impl Iterator<Item = &Entry<E>> + '_ {
        self.entries.iter()
    }
}

/// An attempt to schedule an event before the current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("event scheduled in the past: at {at} while the clock reads {now}")]
pub struct PastEvent {
    pub at: SimTime,
    pub now: SimTime,
}

/// Which heap an event waits in (see the module notes); the order of events does not
/// depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Events that come due soon and often.
    Main,
    /// Many long-lived, mostly re-armed timers (connections', applications').
    Timers,
}

/// A deterministic priority queue of timed events.
pub struct EventQueue<E> {
    main: QuadHeap<E>,
    timers: QuadHeap<E>,
    next_seq: u64,
    now: SimTime,
    /// The place (`time << 64 | seq`) of the last event popped.
    current: u128,
    popped: u64,
    watches: Watches,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            main: QuadHeap::with_capacity(1024),
            timers: QuadHeap::with_capacity(16),
            next_seq: 0,
            now: SimTime::ZERO,
            current: 0,
            popped: 0,
            watches: Watches::new(),
        }
    }

    /// The place in the order of the event at `time` with sequence number `seq`.
    #[inline(always)]
    pub fn place(time: SimTime, seq: u64) -> u128 {
        key_of(time, seq)
    }

    /// The place of the last event popped (the one being processed).
    #[inline(always)]
    pub fn current(&self) -> u128 {
        self.current
    }

    /// True once the run has gone beyond `place`: an event there would have been popped
    /// before the one being processed.
    #[inline(always)]
    pub fn passed(&self, place: u128) -> bool {
        place < self.current
    }

    /// The time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Events pending (a FIFO with reserved places counts its first only).
    pub fn len(&self) -> usize {
        self.main.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedules `event` at `time`; refuses a time before `now`.
    #[inline(always)]
    pub fn schedule(&mut self, time: SimTime, event: E) -> Result<(), PastEvent> {
        let seq = self.reserve_seq(time);
        self.schedule_reserved(time, seq, event)
    }

    /// Schedules `event` at `time` in `lane`; refuses a time before `now`.
    #[inline]
    pub fn schedule_in(&mut self, lane: Lane, time: SimTime, event: E) -> Result<(), PastEvent> {
        match lane {
            Lane::Main => self.schedule(time, event),
            Lane::Timers => {
                self.check(time)?;
                let seq = self.reserve_seq(time);
                self.timers.push(Entry {
                    key: key_of(time, seq),
                    event,
                });
                Ok(())
            }
        }
    }

    /// Takes the next place in the order of equal-time events for an event at `time`,
    /// without scheduling anything yet (see the module notes).
    #[inline]
    pub fn reserve_seq(&mut self, time: SimTime) -> u64 {
        self.watches.on_reserve(time, self.current);
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Watches the event of `owner` queued provisionally at (`at`, `seq`) until the run
    /// passes place `until`; false if the watch cannot be held (the event must then not be
    /// queued early: `provisional` module notes).
    #[inline]
    pub fn try_watch(&mut self, at: SimTime, seq: u64, until: u128, owner: u32) -> bool {
        self.watches.try_watch(at, seq, until, owner, self.current)
    }

    /// Watched events moved so far, and watches refused (`provisional` module notes).
    pub fn provisional_counts(&self) -> (u64, u64) {
        (self.watches.moved, self.watches.refused)
    }

    /// Ends the watch at `at` that waited for `until`.
    #[inline]
    pub fn unwatch(&mut self, at: SimTime, until: u128) {
        self.watches.unwatch(at, until);
    }

    /// Some watched event must move (checked after each event processed).
    #[inline(always)]
    pub fn has_moves(&self) -> bool {
        self.watches.any_flagged()
    }

    /// The flagged watched events' new sequence numbers, taken now: each comes after every
    /// place reserved so far. The owner moves its event (`move_entry` if it is queued).
    pub fn take_moves(&mut self) -> Vec<Moved> {
        let next = &mut self.next_seq;
        self.watches.move_flagged(|| {
            let seq = *next;
            *next += 1;
            seq
        })
    }

    /// Moves the queued event at (`at`, `old_seq`) to (`at`, `new_seq`), a later place;
    /// false if no event is queued there.
    pub fn move_entry(&mut self, at: SimTime, old_seq: u64, new_seq: u64) -> bool {
        self.main
            .move_later(key_of(at, old_seq), key_of(at, new_seq))
    }

    /// Schedules `event` at `time` in the place `seq` reserved by `reserve_seq`. Events
    /// scheduled this way must come in (time, seq) order with respect to the ones they
    /// stand behind (a FIFO's next, queued when its first pops); refuses a time before
    /// `now`.
    #[inline]
    pub fn schedule_reserved(
        &mut self,
        time: SimTime,
        seq: u64,
        event: E,
    ) -> Result<(), PastEvent> {
        self.check(time)?;
        self.main.push(Entry {
            key: key_of(time, seq),
            event,
        });
        Ok(())
    }

    #[inline]
    fn check(&self, time: SimTime) -> Result<(), PastEvent> {
        if time < self.now {
            return Err(PastEvent {
                at: time,
                now: self.now,
            });
        }
        Ok(())
    }

    /// The key of the earliest pending event and whether it waits in the timers' heap.
    #[inline(always)]
    fn head(&self) -> Option<(u128, bool)> {
        match (self.main.head_key(), self.timers.head_key()) {
            (Some(m), Some(t)) => Some(if t < m { (t, true) } else { (m, false) }),
            (Some(m), None) => Some((m, false)),
            (None, Some(t)) => Some((t, true)),
            (None, None) => None,
        }
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.head().map(|(key, _)| time_of(key))
    }

    /// The pending events, in no particular order (for inspection; never for a decision
    /// that affects the run, which must not depend on the heaps' layout).
    pub fn pending(&self) -> impl Iterator<Item = (SimTime, &E)> + '_ {
        self.main
            .iter()
            .chain(self.timers.iter())
            .map(|e| (time_of(e.key), &e.event))
    }

    /// Removes the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_until(SimTime::MAX)
    }

    /// Removes the earliest event if it is due at or before `until`, and advances the
    /// clock to its time; `None` (and nothing removed) if the queue is empty or its next
    /// event lies beyond `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        let (key, from_timers) = self.head()?;
        let time = time_of(key);
        if time > until {
            return None;
        }
        let entry = if from_timers {
            self.timers.pop_head()
        } else {
            self.main.pop_head()
        };
        self.now = time;
        self.current = key;
        self.popped += 1;
        Some((time, entry.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::SimDuration;

    #[test]
    fn equal_times_leave_in_insertion_order() {
        let mut q = EventQueue::new();
        let t = SimTime::ZERO + SimDuration::from_millis(5);
        for i in 0..10 {
            q.schedule(t, i).unwrap();
        }
        q.schedule(SimTime::ZERO + SimDuration::from_millis(1), 99)
            .unwrap();
        assert_eq!(
            q.pop(),
            Some((SimTime::ZERO + SimDuration::from_millis(1), 99))
        );
        let order: Vec<i32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn lanes_and_reserved_places_keep_the_one_order_of_time_then_scheduling() {
        let ms = |m| SimTime::ZERO + SimDuration::from_millis(m);
        let mut q = EventQueue::new();
        q.schedule_in(Lane::Timers, ms(5), "timer at 5, first")
            .unwrap();
        let reserved = q.reserve_seq(ms(5));
        q.schedule(ms(5), "main at 5, third").unwrap();
        q.schedule_in(Lane::Timers, ms(3), "timer at 3").unwrap();
        q.schedule(ms(4), "main at 4").unwrap();
        // Queued last, in the place taken before "main at 5, third".
        q.schedule_reserved(ms(5), reserved, "reserved at 5, second")
            .unwrap();
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            [
                "timer at 3",
                "main at 4",
                "timer at 5, first",
                "reserved at 5, second",
                "main at 5, third"
            ]
        );
        assert!(q.schedule_in(Lane::Timers, ms(4), "past").is_err());
    }

    #[test]
    fn pop_until_leaves_later_events_pending() {
        let ms = |m| SimTime::ZERO + SimDuration::from_millis(m);
        let mut q = EventQueue::new();
        q.schedule(ms(5), 'b').unwrap();
        q.schedule_in(Lane::Timers, ms(2), 'a').unwrap();
        assert_eq!(q.pop_until(ms(4)), Some((ms(2), 'a')));
        assert_eq!(q.pop_until(ms(4)), None);
        assert_eq!((q.len(), q.now()), (1, ms(2)));
        assert_eq!(q.pop_until(ms(5)), Some((ms(5), 'b')));
        assert_eq!(q.pop_until(SimTime::MAX), None);
    }

    proptest::proptest! {
        /// Any mix of lanes, reserved places filled late and pops between schedules pops
        /// exactly as a list sorted by (time, place taken) does.
        #[test]
        fn pops_in_time_then_scheduling_order(
            ops in proptest::collection::vec((0u64..40, 0u8..3, 0usize..3), 1..300)
        ) {
            let mut q = EventQueue::new();
            // The reference: (time, place, id); each op takes the next place, as the queue
            // counts them, so an op's place is its index.
            let mut pending: Vec<(u64, u64, usize)> = Vec::new();
            let mut held: Option<(u64, SimTime, usize)> = None;
            let (mut got, mut want) = (Vec::new(), Vec::new());
            for (id, &(gap, how, pops)) in ops.iter().enumerate() {
                let at = q.now() + SimDuration::from_nanos(gap);
                match how {
                    0 => q.schedule(at, id).unwrap(),
                    1 => q.schedule_in(Lane::Timers, at, id).unwrap(),
                    _ => {
                        if let Some((seq, at, id)) = held.take() {
                            q.schedule_reserved(at, seq, id).unwrap();
                        }
                        held = Some((q.reserve_seq(at), at, id));
                    }
                }
                pending.push((at.as_nanos(), id as u64, id));
                // A reserved place is filled after the next event is scheduled.
                if how != 2 {
                    if let Some((seq, at, id)) = held.take() {
                        q.schedule_reserved(at, seq, id).unwrap();
                    }
                }
                if held.is_none() {
                    for _ in 0..pops {
                        got.push(q.pop().map(|(t, id)| (t.as_nanos(), id)));
                        pending.sort_unstable();
                        want.push((!pending.is_empty()).then(|| {
                            let (t, _, id) = pending.remove(0);
                            (t, id)
                        }));
                    }
                }
            }
            if let Some((seq, at, id)) = held.take() {
                q.schedule_reserved(at, seq, id).unwrap();
            }
            pending.sort_unstable();
            got.extend(std::iter::from_fn(|| q.pop()).map(|(t, id)| Some((t.as_nanos(), id))));
            want.extend(pending.into_iter().map(|(t, _, id)| Some((t, id))));
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn scheduling_in_the_past_is_an_error() {
        let mut q = EventQueue::new();
        q.schedule(SimTime::ZERO + SimDuration::from_secs(2), ())
            .unwrap();
        q.pop();
        let err = q
            .schedule(SimTime::ZERO + SimDuration::from_secs(1), ())
            .unwrap_err();
        assert_eq!(err.now, SimTime::ZERO + SimDuration::from_secs(2));
        // The present is not the past.
        assert!(q.schedule(q.now(), ()).is_ok());
    }
}
