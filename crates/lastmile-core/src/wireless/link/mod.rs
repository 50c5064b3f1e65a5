//! Link layers for the wireless hop. Each is a pure state machine driven by
//! `handle(now, input, out)` with `poll_timeout()`, talking to its MAC through
//! [`crate::wireless::signals::MacSignal`].
//!
//! Present: [`tulip`] (Parsa & Garcia-Luna-Aceves). Planned: `none` (pass-through) and
//! `stop_and_wait`.

pub mod tulip;
