//! lastmile-core: a fast, deterministic simulator of TCP over wired-cum-wireless paths.
//!
//! The crate is organised as the architecture guide describes: `engine` (time, events,
//! timers, random streams), `packet` (headers without payload), `net` (nodes, routing,
//! links and queues), `error_model` (channel losses), `tcp` (the connection state machine
//! and its loss recovery), `apps`, `metrics` (counters, traces, pcap), `scenario` (the
//! file format) and `sim` (the world that wires them together and runs).

pub mod agents;
pub mod engine;
pub mod error_model;
pub mod ids;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod ranges;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod units;
pub mod wireless;
