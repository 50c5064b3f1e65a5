//! Metrics: counters and summaries named as the papers define them, opt-in column traces,
//! and the pcap writer.

pub mod pcap;
pub mod summary;
pub mod trace;

pub use summary::*;
pub use trace::{Column, TraceTable};
