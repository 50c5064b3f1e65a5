//! The event queue: a binary heap ordered by (time, insertion sequence).
//!
//! Events at equal times leave in the order they were scheduled (FIFO), which makes every
//! run deterministic without relying on the heap's internal order. Scheduling an event
//! earlier than the last one popped is an error: time never runs backwards.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::time::SimTime;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) on top.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// An attempt to schedule an event before the current time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("event scheduled in the past: at {at} while the clock reads {now}")]
pub struct PastEvent {
    pub at: SimTime,
    pub now: SimTime,
}

/// A deterministic priority queue of timed events.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    /// The time of the last event popped.
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `time`; refuses a time before `now`.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) -> Result<(), PastEvent> {
        if time < self.now {
            return Err(PastEvent {
                at: time,
                now: self.now,
            });
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
        Ok(())
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }

    /// The pending events, in no particular order (for inspection; never for a decision
    /// that affects the run, which must not depend on the heap's layout).
    pub fn pending(&self) -> impl Iterator<Item = (SimTime, &E)> + '_ {
        self.heap.iter().map(|e| (e.time, &e.event))
    }

    /// Removes the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let entry = self.heap.pop()?;
        self.now = entry.time;
        self.popped += 1;
        Some((entry.time, entry.event))
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
