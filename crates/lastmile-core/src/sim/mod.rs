//! The simulated world: builds nodes, links, endpoints and applications from a `Scenario`
//! and runs the event loop until every flow is done or `stop_time`.

use std::path::PathBuf;

use crate::metrics::{RunSummary, TraceTable};
use crate::scenario::Scenario;

/// The traces a run can record (opt-in).
pub const TRACE_NAMES: &[&str] = &["seq", "cwnd", "rtt", "wireless_tx"];

/// How to run a scenario, beyond the scenario itself.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Trace names from `TRACE_NAMES` to record.
    pub traces: Vec<String>,
    /// Link names to capture to pcap files in `out_dir` (`<link>.pcap`).
    pub pcap: Vec<String>,
    /// Where pcap files go; required when `pcap` is not empty.
    pub out_dir: Option<PathBuf>,
}

/// What a run returns.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub summary: RunSummary,
    pub traces: Vec<TraceTable>,
}

/// A run that could not be carried out, or that broke an invariant.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("invalid scenario: {0}")]
    Invalid(String),
    #[error("invariant violated: {0}")]
    Invariant(String),
    #[error("event scheduled in the past: {0}")]
    PastEvent(#[from] crate::engine::PastEvent),
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs `scenario` to the end.
pub fn run(scenario: &Scenario, options: &RunOptions) -> Result<RunOutput, SimError> {
    let _ = (scenario, options);
    Err(SimError::Invalid("the simulator is being built".into()))
}
