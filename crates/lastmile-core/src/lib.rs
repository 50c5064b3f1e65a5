//! lastmile-core: a fast, deterministic simulator of TCP over wired-cum-wireless paths.
//!
//! The modules, from the bottom up (`docs/architecture.md` says which files each kind of
//! extension touches):
//! - `engine`: integer time, the event queue, timers, named random streams.
//! - `ids`, `units`, `ranges`: typed arena indices, quantities with units, byte-range sets.
//! - `packet`: IPv4 / TCP / UDP headers without payload.
//! - `net`: nodes, static routing, point-to-point links, drop-tail queues.
//! - `error_model`: channel losses per frame (PER, BER, Gilbert–Elliott, bursts, on/off,
//!   drop lists).
//! - `wireless`: 802.11 PHY timing, the shared medium, the MACs (ideal, DCF, FAMA-NCS), the
//!   link layers (none, stop-and-wait, TULIP) and a cell's configuration.
//! - `tcp`: the connection state machine, loss recovery, congestion control, pacing, and
//!   the TCP settings of a scenario.
//! - `transport`: transports beside TCP for the wide-area hop (WTP, WTCP of Sinha et al.),
//!   and a flow endpoint speaking any of them.
//! - `agents`: base-station agents on the forwarding path (Snoop, WTCP, I-TCP, LLE-TCP, the
//!   WAP gateway, the WTCP-Sinha proxy, M-TCP).
//! - `mobility`: a mobile host's movement between cells (residence, handoff, routing update).
//! - `apps`: the applications at a flow's source (bulk, Poisson, saturating UDP).
//! - `metrics`: counters and summaries, opt-in traces, pcap.
//! - `scenario`: the file format, its loading, overrides and checks.
//! - `sim`: the world that wires them together and runs.

pub mod agents;
pub mod apps;
pub mod engine;
pub mod error_model;
pub mod ids;
pub mod metrics;
pub mod mobility;
pub mod net;
pub mod packet;
pub mod ranges;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod transport;
pub mod units;
pub mod wireless;
