//! A Poisson source (TULIP §5: "a Poisson source offering 1 Mbps"): after opening the
//! connection at the flow's start it writes `packet_size` bytes at exponentially
//! distributed intervals whose mean gives the offered `rate`, until `bytes` are written,
//! then closes. The gaps come from the flow's own random stream (`flow/<i>/app`).

use super::{AppAction, AppInput, AppOutbox};
use crate::engine::{RngStream, SimDuration, SimTime};

/// Fixed-size writes at exponential intervals.
#[derive(Clone, Debug)]
pub struct Poisson {
    start: SimTime,
    packet_size: u64,
    mean_gap: SimDuration,
    total: u64,
    written: u64,
    started: bool,
    next_write: Option<SimTime>,
    rng: RngStream,
}

impl Poisson {
    pub fn new(
        start: SimTime,
        packet_size: u64,
        mean_gap: SimDuration,
        total: u64,
        rng: RngStream,
    ) -> Self {
        Poisson {
            start,
            packet_size,
            mean_gap,
            total,
            written: 0,
            started: false,
            next_write: None,
            rng,
        }
    }

    pub fn handle(&mut self, now: SimTime, input: AppInput, out: &mut AppOutbox) {
        if input != AppInput::Timer {
            return;
        }
        if !self.started {
            self.started = true;
            out.actions.push(AppAction::Connect);
            self.next_write = Some(now + self.gap());
            return;
        }
        if self.next_write.is_none_or(|t| t > now) {
            return;
        }
        let n = self.packet_size.min(self.total - self.written);
        self.written += n;
        out.actions.push(AppAction::Write(n));
        if self.written == self.total {
            out.actions.push(AppAction::Close);
            self.next_write = None;
        } else {
            self.next_write = Some(now + self.gap());
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        if self.started {
            self.next_write
        } else {
            Some(self.start)
        }
    }

    fn gap(&mut self) -> SimDuration {
        SimDuration::from_secs_f64(self.rng.exponential(self.mean_gap.as_secs_f64()))
    }
}
