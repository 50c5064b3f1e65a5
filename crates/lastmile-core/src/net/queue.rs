//! Interface queues. [`DropTail`] is a FIFO limited in packets or bytes (ns-2's `DropTail`:
//! the packet being transmitted does not count against the limit). [`Queue`] is what a
//! link or a cell's station holds: that FIFO, optionally under RED (`red.rs`), which may
//! drop an arrival early or mark it with CE (RFC 3168) before it joins the FIFO.

use std::collections::VecDeque;

use crate::engine::{RngStream, SimTime};
use crate::units::QueueLimit;

use super::red::{AqmSpec, Red, Verdict};

#[derive(Clone, Debug)]
pub struct DropTail<T> {
    items: VecDeque<(T, u32)>,
    bytes: u64,
    limit: QueueLimit,
    /// The first `ahead` items were put ahead of the others (`push_front`).
    ahead: usize,
}

impl<T> DropTail<T> {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail {
            items: VecDeque::new(),
            bytes: 0,
            limit,
            ahead: 0,
        }
    }

    /// Appends `item` of `size` bytes, or gives it back if the queue is full.
    pub fn push(&mut self, item: T, size: u32) -> Result<(), T> {
        let full = match self.limit {
            QueueLimit::Packets(n) => self.items.len() as u64 >= n,
            QueueLimit::Bytes(n) => self.bytes + u64::from(size) > n,
        };
        if full {
            return Err(item);
        }
        self.bytes += u64::from(size);
        self.items.push_back((item, size));
        Ok(())
    }

    /// Puts `item` of `size` bytes ahead of everything waiting but the items put ahead
    /// before it (a high-priority band, first come first served, before the data); if that
    /// takes the queue over its limit, packets at the tail are dropped to make room and
    /// handed back, last first (ns-2's `PriQueue::recvHighPriority`: enqueue at the head,
    /// then drop the last). An item bigger than a byte limit on its own is handed back.
    pub fn push_front(&mut self, item: T, size: u32) -> Vec<T> {
        if let QueueLimit::Bytes(n) = self.limit {
            if u64::from(size) > n {
                return vec![item];
            }
        }
        self.bytes += u64::from(size);
        self.items.insert(self.ahead, (item, size));
        self.ahead += 1;
        let mut evicted = Vec::new();
        while self.over_limit() {
            let Some((last, s)) = self.items.pop_back() else {
                break;
            };
            self.bytes -= u64::from(s);
            self.ahead = self.ahead.min(self.items.len());
            evicted.push(last);
        }
        evicted
    }

    fn over_limit(&self) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => self.items.len() as u64 > n,
            QueueLimit::Bytes(n) => self.bytes > n,
        }
    }

    pub fn pop(&mut self) -> Option<T> {
        let (item, size) = self.items.pop_front()?;
        self.bytes -= u64::from(size);
        self.ahead = self.ahead.saturating_sub(1);
        Some(item)
    }

    /// The head of the queue, without taking it.
    pub fn front(&self) -> Option<&T> {
        self.items.front().map(|(item, _)| item)
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Keeps the items `keep` accepts, in order; returns how many were removed.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) -> usize {
        let before = self.items.len();
        let mut index = 0;
        let mut ahead_kept = 0;
        let ahead = self.ahead;
        self.items.retain(|(item, _)| {
            let kept = keep(item);
            if kept && index < ahead {
                ahead_kept += 1;
            }
            index += 1;
            kept
        });
        self.ahead = ahead_kept;
        self.bytes = self.items.iter().map(|(_, size)| u64::from(*size)).sum();
        before - self.items.len()
    }
}

/// A FIFO with drop-tail overflow, and RED in front of it when configured.
#[derive(Clone, Debug)]
pub struct Queue<T> {
    fifo: DropTail<T>,
    red: Option<Red>,
}

/// The outcome of offering a packet to a [`Queue`]'s discipline.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Admission {
    /// Let it in (the FIFO may still be full).
    Admit,
    /// Let it in marked with CE.
    AdmitMarked,
    /// Dropped early by RED.
    Drop,
}

impl<T> Queue<T> {
    /// A drop-tail queue.
    pub fn drop_tail(limit: QueueLimit) -> Self {
        Queue {
            fifo: DropTail::new(limit),
            red: None,
        }
    }

    /// The queue a link or station gets: drop-tail, or RED per `aqm` (its random stream
    /// `rng`, the line rate for RED's idle-time decay).
    pub fn new(limit: QueueLimit, aqm: Option<&AqmSpec>, rate_bps: u64, rng: RngStream) -> Self {
        let red = aqm.map(|AqmSpec::Red(spec)| Red::new(spec.clone(), rate_bps, rng));
        Queue {
            fifo: DropTail::new(limit),
            red,
        }
    }

    /// True when a discipline (RED) looks at arrivals before the FIFO.
    #[inline]
    pub fn has_aqm(&self) -> bool {
        self.red.is_some()
    }

    /// RED's verdict on an arrival (`ect`: ECN-capable) with `self.len()` packets waiting;
    /// always `Admit` without RED.
    #[inline]
    pub fn admit(&mut self, now: SimTime, ect: bool) -> Admission {
        match self.red.as_mut() {
            None => Admission::Admit,
            Some(red) => match red.on_arrival(now, self.fifo.len(), ect) {
                Verdict::Enqueue => Admission::Admit,
                Verdict::Mark => Admission::AdmitMarked,
                Verdict::Drop => Admission::Drop,
            },
        }
    }

    /// Appends `item` of `size` bytes (already admitted), or gives it back if full.
    #[inline]
    pub fn push(&mut self, item: T, size: u32) -> Result<(), T> {
        self.fifo.push(item, size)
    }

    /// Puts `item` at the head, ahead of the FIFO, without RED's verdict (a high-priority
    /// packet, as ns-2's `PriQueue` passes them); returns the packets dropped from the tail
    /// to keep the limit (`DropTail::push_front`).
    pub fn push_front(&mut self, item: T, size: u32) -> Vec<T> {
        self.fifo.push_front(item, size)
    }

    /// A packet admitted went straight to the transmitter: the queue stays empty from `now`
    /// (as ns-2's RED sees an arrival pass through an idle link: enqueued and at once
    /// dequeued).
    #[inline]
    pub fn passed_through(&mut self, now: SimTime) {
        if let Some(red) = self.red.as_mut() {
            red.on_empty(now);
        }
    }

    /// Takes the head; RED notes the moment the queue empties (its idle time).
    #[inline]
    pub fn pop(&mut self, now: SimTime) -> Option<T> {
        let item = self.fifo.pop()?;
        if self.fifo.is_empty() {
            if let Some(red) = self.red.as_mut() {
                red.on_empty(now);
            }
        }
        Some(item)
    }

    pub fn front(&self) -> Option<&T> {
        self.fifo.front()
    }
    /// Keeps the items `keep` accepts, in order; returns how many were removed.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) -> usize {
        self.fifo.retain(keep)
    }
    pub fn len(&self) -> usize {
        self.fifo.len()
    }
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }
    /// RED's state, when it runs.
    pub fn red(&self) -> Option<&Red> {
        self.red.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_at_the_tail_when_full_in_packets() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.push(1, 100).is_ok());
        assert!(q.push(2, 100).is_ok());
        assert_eq!(q.push(3, 100), Err(3));
        assert_eq!(q.pop(), Some(1));
        assert!(q.push(4, 100).is_ok());
    }

    #[test]
    fn drops_at_the_tail_when_full_in_bytes() {
        let mut q = DropTail::new(QueueLimit::Bytes(250));
        assert!(q.push(1, 100).is_ok());
        assert!(q.push(2, 100).is_ok());
        assert_eq!(q.push(3, 100), Err(3));
        assert!(q.push(4, 50).is_ok());
        assert_eq!(q.bytes(), 250);
    }

    #[test]
    fn a_packet_put_ahead_goes_first_and_a_full_queue_drops_its_last() {
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert!(q.push(1, 100).is_ok());
        assert!(q.push(2, 100).is_ok());
        assert_eq!(q.push_front(9, 100), vec![2]);
        assert_eq!(q.push_front(8, 100), vec![1]);
        assert_eq!(
            q.pop(),
            Some(9),
            "first come first served among those put ahead"
        );
        assert_eq!(q.pop(), Some(8));
        assert_eq!(q.pop(), None);
        assert!(q.push(3, 100).is_ok());
        assert_eq!(q.push_front(7, 100), Vec::<u32>::new());
        assert_eq!(q.pop(), Some(7));
        assert_eq!(q.pop(), Some(3));
        let mut b = DropTail::new(QueueLimit::Bytes(250));
        assert!(b.push(1, 100).is_ok());
        assert!(b.push(2, 100).is_ok());
        assert_eq!(b.push_front(9, 200), vec![2, 1]);
        assert_eq!(b.bytes(), 200);
        assert_eq!(b.push_front(8, 300), vec![8], "bigger than the whole limit");
    }

    #[test]
    fn without_aqm_every_arrival_is_admitted() {
        let mut q: Queue<u32> = Queue::drop_tail(QueueLimit::Packets(1));
        assert_eq!(q.admit(SimTime::ZERO, true), Admission::Admit);
        assert!(q.push(1, 100).is_ok());
        assert_eq!(q.push(2, 100), Err(2));
        assert_eq!(q.pop(SimTime::ZERO), Some(1));
    }
}
