//! The event queue: events ordered by (time, insertion sequence), in two binary heaps.
//!
//! Events at equal times leave in the order they were scheduled (FIFO), which makes every
//! run deterministic without relying on the heaps' internal order. Scheduling an event
//! earlier than the last one popped is an error: time never runs backwards.
//!
//! **Two heaps.** A heap's pop sifts over log₂(size) levels, each a branch the CPU
//! mispredicts half the time and, in a large heap, a cache miss. In a run with many flows
//! most pending events are connection timers — each connection's retransmission timer, a
//! second or so ahead, mostly moved on before it fires — while the events that pop most
//! often (a frame's end, a packet's arrival, a MAC's slot) are few at a time. So the
//! events of `Lane::Timers` (scheduled by the world for endpoints' and applications'
//! timers) wait in a heap of their own, and the hot events in a heap that stays small;
//! `pop` takes the earlier of the two heads. The order of events is unchanged.
//!
//! **Reserved sequence numbers.** A component whose events are scheduled in (time, seq)
//! order — a link's packets in propagation, each due `delay` after its transmission ended
//! — can keep them in its own FIFO with only the first in the queue: it takes each one's
//! place in the order at the time it would have scheduled it (`reserve_seq`), and queues
//! the next when the first pops (`schedule_reserved`). The run is the same event for
//! event, with one pending entry per FIFO instead of one per packet.

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
    main: BinaryHeap<Entry<E>>,
    timers: BinaryHeap<Entry<E>>,
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
            main: BinaryHeap::with_capacity(1024),
            timers: BinaryHeap::new(),
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

    /// Events pending (a FIFO with reserved places counts its first only).
    pub fn len(&self) -> usize {
        self.main.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.main.is_empty() && self.timers.is_empty()
    }

    /// Schedules `event` at `time`; refuses a time before `now`.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) -> Result<(), PastEvent> {
        let seq = self.reserve_seq();
        self.schedule_reserved(time, seq, event)
    }

    /// Schedules `event` at `time` in `lane`; refuses a time before `now`.
    #[inline]
    pub fn schedule_in(&mut self, lane: Lane, time: SimTime, event: E) -> Result<(), PastEvent> {
        match lane {
            Lane::Main => self.schedule(time, event),
            Lane::Timers => {
                self.check(time)?;
                let seq = self.reserve_seq();
                self.timers.push(Entry { time, seq, event });
                Ok(())
            }
        }
    }

    /// Takes the next place in the order of equal-time events without scheduling anything
    /// yet (see the module notes).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
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
        self.main.push(Entry { time, seq, event });
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

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<SimTime> {
        match (self.main.peek(), self.timers.peek()) {
            (Some(m), Some(t)) => Some(m.time.min(t.time)),
            (m, t) => m.or(t).map(|e| e.time),
        }
    }

    /// The pending events, in no particular order (for inspection; never for a decision
    /// that affects the run, which must not depend on the heaps' layout).
    pub fn pending(&self) -> impl Iterator<Item = (SimTime, &E)> + '_ {
        self.main
            .iter()
            .chain(self.timers.iter())
            .map(|e| (e.time, &e.event))
    }

    /// Removes the earliest event and advances the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        // `Entry`'s order is reversed: the greater entry is the earlier event.
        let from_timers = match (self.main.peek(), self.timers.peek()) {
            (Some(m), Some(t)) => t > m,
            (None, Some(_)) => true,
            _ => false,
        };
        let entry = if from_timers {
            self.timers.pop()
        } else {
            self.main.pop()
        }?;
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
    fn lanes_and_reserved_places_keep_the_one_order_of_time_then_scheduling() {
        let ms = |m| SimTime::ZERO + SimDuration::from_millis(m);
        let mut q = EventQueue::new();
        q.schedule_in(Lane::Timers, ms(5), "timer at 5, first")
            .unwrap();
        let reserved = q.reserve_seq();
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
