//! Cancellable timers without heap deletion: generation counters plus lazy re-arming.
//!
//! A protocol owns one `TimerSlot` per timer. Setting a timer later than an event already
//! pending only moves the deadline: the pending event fires, sees the deadline ahead and
//! re-arms once. Setting it earlier, or re-arming, bumps the generation so the stale event
//! is ignored when it pops. A retransmission timer restarted on every ACK thus costs one
//! heap entry per RTO, not one per ACK.
//!
//! `TimerTable` holds every slot of a world under a stable `TimerId`, each with its owner,
//! so that one event kind (`(TimerId, generation)`) and one code path serve every timer.
//! A slot is never removed: an owner that goes away is retired (`retire`), its pending
//! events then find nothing to wake, and a slot reused for a new owner keeps counting
//! generations, so no stale event can pass for a fresh one.

use super::time::SimTime;

/// What the engine must do after the slot changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerAction {
    /// Nothing new to schedule.
    None,
    /// Push an event at this time carrying this generation.
    Schedule { at: SimTime, generation: u32 },
}

/// The state of one timer: its deadline and the event that will wake it.
#[derive(Debug, Clone, Copy, Default)]
pub struct TimerSlot {
    deadline: Option<SimTime>,
    pending: Option<SimTime>,
    generation: u32,
}

/// The outcome of a timer event popping from the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimerFire {
    /// The event is stale or the timer was cancelled: do nothing.
    Ignore,
    /// The deadline moved later: re-schedule, and do nothing now.
    Rearm { at: SimTime, generation: u32 },
    /// The timer expired now.
    Expired,
}

impl TimerSlot {
    pub fn deadline(&self) -> Option<SimTime> {
        self.deadline
    }

    /// Sets (or moves, or with `None` cancels) the deadline.
    pub fn set(&mut self, deadline: Option<SimTime>) -> TimerAction {
        self.deadline = deadline;
        let Some(at) = deadline else {
            return TimerAction::None;
        };
        match self.pending {
            Some(p) if p <= at => TimerAction::None,
            _ => {
                self.generation = self.generation.wrapping_add(1);
                self.pending = Some(at);
                TimerAction::Schedule {
                    at,
                    generation: self.generation,
                }
            }
        }
    }

    /// Called when an event for this slot pops at `now` with `generation`.
    pub fn fire(&mut self, now: SimTime, generation: u32) -> TimerFire {
        if generation != self.generation {
            return TimerFire::Ignore;
        }
        self.pending = None;
        match self.deadline {
            None => TimerFire::Ignore,
            Some(d) if d > now => {
                self.generation = self.generation.wrapping_add(1);
                self.pending = Some(d);
                TimerFire::Rearm {
                    at: d,
                    generation: self.generation,
                }
            }
            Some(_) => {
                self.deadline = None;
                TimerFire::Expired
            }
        }
    }
}

/// A timer in a `TimerTable`: stable for the table's lifetime.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerId(pub u32);

/// Every timer of a world with its owner (module notes).
#[derive(Clone, Debug)]
pub struct TimerTable<O> {
    slots: Vec<(TimerSlot, Option<O>)>,
}

impl<O> Default for TimerTable<O> {
    fn default() -> Self {
        TimerTable { slots: Vec::new() }
    }
}

impl<O: Copy> TimerTable<O> {
    /// A new timer, not armed, for `owner`.
    pub fn add(&mut self, owner: O) -> TimerId {
        self.slots.push((TimerSlot::default(), Some(owner)));
        TimerId(self.slots.len() as u32 - 1)
    }

    /// Sets (moves, or with `None` cancels) the deadline of `id`.
    #[inline]
    pub fn set(&mut self, id: TimerId, deadline: Option<SimTime>) -> TimerAction {
        self.slots[id.0 as usize].0.set(deadline)
    }

    /// An event for `id` popped at `now` with `generation`: what to do, and for whom. A
    /// retired timer is ignored.
    pub fn fire(&mut self, id: TimerId, now: SimTime, generation: u32) -> (TimerFire, Option<O>) {
        let (slot, owner) = &mut self.slots[id.0 as usize];
        match owner {
            Some(o) => (slot.fire(now, generation), Some(*o)),
            None => (TimerFire::Ignore, None),
        }
    }

    /// The owner of `id` went away: cancel it; its pending events will be ignored.
    pub fn retire(&mut self, id: TimerId) {
        let (slot, owner) = &mut self.slots[id.0 as usize];
        *slot = TimerSlot {
            deadline: None,
            pending: None,
            generation: slot.generation.wrapping_add(1),
        };
        *owner = None;
    }

    /// Gives retired timer `id` a new owner; the generation count goes on, so events of its
    /// former owner stay stale.
    pub fn reuse(&mut self, id: TimerId, owner: O) {
        self.slots[id.0 as usize].1 = Some(owner);
    }

    /// Whom `id` wakes; `None` once retired.
    pub fn owner(&self, id: TimerId) -> Option<O> {
        self.slots[id.0 as usize].1
    }

    /// The current deadline of `id`.
    pub fn deadline(&self, id: TimerId) -> Option<SimTime> {
        self.slots[id.0 as usize].0.deadline()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::time::SimDuration;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn moving_a_deadline_later_schedules_nothing_new() {
        let mut t = TimerSlot::default();
        let TimerAction::Schedule { generation, .. } = t.set(Some(at(100))) else {
            panic!("first set must schedule");
        };
        assert_eq!(t.set(Some(at(300))), TimerAction::None);
        assert_eq!(
            t.fire(at(100), generation),
            TimerFire::Rearm {
                at: at(300),
                generation: generation + 1
            }
        );
        assert_eq!(t.fire(at(300), generation + 1), TimerFire::Expired);
    }

    #[test]
    fn moving_a_deadline_earlier_makes_the_old_event_stale() {
        let mut t = TimerSlot::default();
        let TimerAction::Schedule { generation: g1, .. } = t.set(Some(at(300))) else {
            panic!()
        };
        let TimerAction::Schedule { generation: g2, .. } = t.set(Some(at(100))) else {
            panic!()
        };
        assert_eq!(t.fire(at(100), g2), TimerFire::Expired);
        assert_eq!(t.fire(at(300), g1), TimerFire::Ignore);
    }

    #[test]
    fn a_retired_timer_ignores_its_pending_event_even_when_reused() {
        let mut table = TimerTable::default();
        let id = table.add('a');
        let TimerAction::Schedule {
            generation: old, ..
        } = table.set(id, Some(at(100)))
        else {
            panic!()
        };
        table.retire(id);
        assert_eq!(table.fire(id, at(100), old), (TimerFire::Ignore, None));
        table.reuse(id, 'b');
        let TimerAction::Schedule { generation, .. } = table.set(id, Some(at(100))) else {
            panic!()
        };
        assert_ne!(generation, old);
        assert_eq!(table.fire(id, at(100), old), (TimerFire::Ignore, Some('b')));
        assert_eq!(
            table.fire(id, at(100), generation),
            (TimerFire::Expired, Some('b'))
        );
    }

    #[test]
    fn a_cancelled_timer_never_expires() {
        let mut t = TimerSlot::default();
        let TimerAction::Schedule { generation, .. } = t.set(Some(at(100))) else {
            panic!()
        };
        t.set(None);
        assert_eq!(t.fire(at(100), generation), TimerFire::Ignore);
    }
}
