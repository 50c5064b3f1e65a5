//! TCP: one connection endpoint as a pure state machine (no engine inside), RFC 9293
//! handshake and teardown, loss recovery (Tahoe, Reno RFC 5681 §3.2, NewReno RFC 6582) kept
//! apart from congestion control (RFC 5681 §3.1 Reno) behind a trait, pacing, the RFC 6298
//! retransmission timer with a configurable clock granularity, RFC 7323 timestamps, and an
//! ACK-every-segment or delayed-ACK receiver.
//!
//! The engine drives a `TcpConnection` through `on_segment`, `on_timeout`, `app_write` and
//! `app_close`, and asks `poll_timeout` for the next deadline; every effect (segments to
//! send, bytes delivered to the application, trace records) lands in a `TcpOutbox`.
//!
//! Modules:
//! - `spec`: the scenario's TCP settings (`TcpSpec`, `variant` / `recovery` / `cc`, ACK policy);
//!   `check`: what their types cannot express.
//! - `api`: the endpoint's configuration and what it exchanges with the engine.
//! - `connection`: states, handshake, teardown, dispatch, sequence numbers.
//! - `sender`: send buffer as stream offsets, what to send, ACK processing, timers.
//! - `recovery`: `LossRecovery` over `AnyRecovery` (Tahoe, Reno, NewReno), the hole to
//!   retransmit next and the SACK `Scoreboard`.
//! - `cc`: the `CongestionControl` trait and `AnyCongestionControl` (Reno).
//! - `delivery`: delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation).
//! - `pacing`: release times of paced segments.
//! - `rtt`: RFC 6298 estimator, Karn, backoff, ticks.
//! - `receiver`: reassembly, ACK policy, advertised window.

pub mod api;
pub mod cc;
pub mod check;
pub mod connection;
pub mod delivery;
pub mod pacing;
pub mod receiver;
pub mod recovery;
pub mod rtt;
pub mod sender;
pub mod spec;

#[cfg(test)]
mod tests;

pub use api::*;
pub use cc::{AnyCongestionControl, CongestionControl, CongestionWindow};
pub use connection::TcpConnection;
pub use recovery::{AnyRecovery, LossRecovery};
pub use spec::{AckPolicy, CcKind, RecoveryKind, TcpSpec, TcpVariant, TsEcho};
