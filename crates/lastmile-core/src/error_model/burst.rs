//! Deterministic bursts of data-frame losses (TULIP Exp. 5a, §5.3.1, after Balakrishnan et
//! al.): "burst losses of a specific size are distributed uniformly over the run of the
//! experiment. The results when bursts of sizes 2,4 and 6 data packets are spread every
//! 64Kbytes of data are shown in Table 2" ("Burst periods are distributed every 64Kbytes of
//! data").
//!
//! The rule, precisely: only data frames (`payload_bytes > 0`) count and only they can be
//! lost; ACKs and control frames always pass and do not count. A running count adds the
//! payload of every data frame sent outside a burst. When the count reaches `every`, the
//! next `length` data frames are lost, and the count keeps its remainder modulo `every`,
//! so that in the long run there is exactly one burst per `every` bytes of payload sent
//! outside bursts ("distributed uniformly" read as evenly spaced, which "every 64Kbytes"
//! implies). The lost frames' bytes do not count towards the next burst, and the run does
//! not start with a burst. Retransmissions are data frames like any other: the link cannot
//! tell them apart.
//!
//! Sizes are SI in scenario files: "64KB" is 64,000 bytes; write "64KiB" for 65,536.

use super::FrameInfo;

#[derive(Clone, Debug)]
pub struct BurstModel {
    /// Data frames lost per burst.
    length: u32,
    /// Payload bytes between bursts (at least 1).
    every_bytes: u64,
    /// Payload bytes counted since the last burst began.
    bytes_counted: u64,
    /// Data frames still to lose in the current burst.
    burst_left: u32,
}

impl BurstModel {
    /// `every_bytes` below 1 is taken as 1; a `length` of 0 never loses anything.
    pub fn new(length: u32, every_bytes: u64) -> Self {
        BurstModel {
            length,
            every_bytes: every_bytes.max(1),
            bytes_counted: 0,
            burst_left: 0,
        }
    }

    /// True while a burst is under way (the next data frame will be lost).
    pub fn is_in_burst(&self) -> bool {
        self.burst_left > 0
    }

    pub fn frame_lost(&mut self, frame: &FrameInfo) -> bool {
        if !frame.is_data() {
            return false;
        }
        if self.burst_left > 0 {
            self.burst_left -= 1;
            return true;
        }
        self.bytes_counted += u64::from(frame.payload_bytes);
        if self.bytes_counted >= self.every_bytes {
            self.bytes_counted %= self.every_bytes;
            self.burst_left = self.length;
        }
        false
    }
}
