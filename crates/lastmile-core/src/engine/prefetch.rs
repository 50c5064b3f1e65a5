//! Asking the CPU ahead for memory the run will read a few events from now.
//!
//! With thousands of flows, the packet that arrives next on a link and the endpoint it is
//! for were last written milliseconds of simulated time and megabytes of other state ago;
//! read cold, each stalls the run on memory (docs/performance.md, many flows). Where the
//! run knows them an event or more ahead, it names their lines here. A prefetch is a hint:
//! it reads nothing the simulation sees and cannot change a result.

/// The cache line size of the x86_64 CPUs this is tuned on.
const LINE_BYTES: usize = 64;

/// Asks for up to `LINES` cache lines of `items[index]`, 64 bytes apart from its first
/// byte, as many as start within the element. Nothing happens off x86_64. No bounds
/// check: an address is only named, never read, and an `index` out of range names memory
/// no one reads.
#[inline(always)]
pub fn prefetch_element<T, const LINES: usize>(items: &[T], index: usize) {
    let lines = const {
        let within = std::mem::size_of::<T>().div_ceil(LINE_BYTES);
        if LINES < within {
            LINES
        } else {
            within
        }
    };
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = items.as_ptr().wrapping_add(index).cast::<i8>();
        for line in 0..lines {
            // SAFETY: `_mm_prefetch` is unsafe only for its SSE target feature, which every
            // x86_64 CPU has; a prefetch is a hint that neither changes memory nor faults,
            // whatever the address.
            unsafe {
                _mm_prefetch(start.wrapping_add(line * LINE_BYTES), _MM_HINT_T0);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, index, lines);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefetch_changes_nothing_and_an_index_out_of_range_is_ignored() {
        let items = vec![[7u8; 200]; 3];
        prefetch_element::<_, 4>(&items, 1);
        prefetch_element::<_, 4>(&items, 3);
        prefetch_element::<_, 1>(&items, usize::MAX);
        prefetch_element::<u64, 1>(&[], 0);
        assert!(items.iter().all(|i| i.iter().all(|&b| b == 7)));
    }
}
