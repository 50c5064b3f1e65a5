//! TCP: one connection endpoint as a pure state machine (no engine inside), RFC 9293
//! handshake and teardown, RFC 5681 congestion control with Tahoe / Reno / NewReno
//! (RFC 6582) loss recovery kept apart from the window rule, RFC 6298 retransmission timer
//! with a configurable clock granularity, RFC 7323 timestamps, and an ACK-every-segment or
//! delayed-ACK receiver.
//!
//! The engine drives a `TcpConnection` through `on_segment`, `on_timeout`, `app_write` and
//! `app_close`, and asks `poll_timeout` for the next deadline; every effect (segments to
//! send, bytes delivered to the application, trace records) lands in a `TcpOutbox`.
//!
//! Modules: `connection` (states, handshake, teardown, dispatch, sequence numbers),
//! `sender` (send buffer as stream offsets, what to send, ACK processing, timers),
//! `recovery` (`AnyRecovery`: Tahoe, Reno, NewReno), `window` (`AnyWindowRule`: RFC 5681
//! slow start and congestion avoidance), `rtt` (RFC 6298 estimator, Karn, backoff, ticks),
//! `receiver` (reassembly, ACK policy, advertised window).

pub mod api;
pub mod connection;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sender;
pub mod window;

#[cfg(test)]
mod tests;

pub use api::*;
pub use connection::TcpConnection;
pub use recovery::AnyRecovery;
pub use window::{AnyWindowRule, CongestionWindow};
