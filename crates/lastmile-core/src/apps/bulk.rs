//! A bulk transfer: at the flow's start the application opens the connection, writes all
//! its bytes and closes — the FTP source of the seeds' simulations (TULIP §5, WTCP §4,
//! LLE-TCP §4). TCP's window alone paces it.

use super::{AppAction, AppInput, AppOutbox};
use crate::engine::SimTime;

/// Writes `bytes` at `start` and closes.
#[derive(Clone, Debug)]
pub struct Bulk {
    start: SimTime,
    bytes: u64,
    started: bool,
}

impl Bulk {
    pub fn new(start: SimTime, bytes: u64) -> Self {
        Bulk {
            start,
            bytes,
            started: false,
        }
    }

    pub fn handle(&mut self, _now: SimTime, input: AppInput, out: &mut AppOutbox) {
        if input == AppInput::Timer && !self.started {
            self.started = true;
            out.actions.extend([
                AppAction::Connect,
                AppAction::Write(self.bytes),
                AppAction::Close,
            ]);
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        (!self.started).then_some(self.start)
    }
}
