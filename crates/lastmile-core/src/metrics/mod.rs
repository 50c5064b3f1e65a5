//! Metrics: counters and summaries named as the papers define them, opt-in column traces,
//! the pcap writer, and output files written beside their path and renamed over it.

pub mod fresh_file;
pub mod pcap;
pub mod stall;
pub mod summary;
pub mod trace;

pub use summary::*;
pub use trace::{Column, TraceTable};
