//! A drop-tail FIFO limited in packets or bytes (ns-2's `DropTail`: the packet being
//! transmitted does not count against the limit).

use std::collections::VecDeque;

use crate::units::QueueLimit;

#[derive(Clone, Debug)]
pub struct DropTail<T> {
    items: VecDeque<(T, u32)>,
    bytes: u64,
    limit: QueueLimit,
}

impl<T> DropTail<T> {
    pub fn new(limit: QueueLimit) -> Self {
        DropTail {
            items: VecDeque::new(),
            bytes: 0,
            limit,
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

    pub fn pop(&mut self) -> Option<T> {
        let (item, size) = self.items.pop_front()?;
        self.bytes -= u64::from(size);
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
}
