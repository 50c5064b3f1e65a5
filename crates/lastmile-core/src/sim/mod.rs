//! The simulated world: builds nodes, links, endpoints and applications from a `Scenario`
//! and runs the event loop until every flow is done or `stop_time`.

mod agent_hook;
mod build;
mod capture;
mod cell;
mod flow;
mod observe;
mod report;
mod world;

use std::path::PathBuf;

use crate::metrics::{RunSummary, TraceTable};
use crate::scenario::Scenario;

pub use build::SINK_PORT;
pub use observe::Welford;
pub use world::StopReason;

/// The traces a run can record (opt-in). `agent_rtt` is the base-station agent's
/// wireless-hop RTT estimate: time_s, flow, rtt_s, timeout_s.
pub const TRACE_NAMES: &[&str] = &["seq", "cwnd", "rtt", "wireless_tx", "agent_rtt"];

/// How to run a scenario, beyond the scenario itself.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Trace names from `TRACE_NAMES` to record.
    pub traces: Vec<String>,
    /// Link names to capture to pcapng files in `out_dir` (`<link>.pcapng`).
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
    for t in &options.traces {
        if !TRACE_NAMES.contains(&t.as_str()) {
            return Err(SimError::Invalid(format!(
                "unknown trace \"{t}\": expected one of {}",
                TRACE_NAMES.join(", ")
            )));
        }
    }
    let wall = std::time::Instant::now();
    let seed = options.seed.unwrap_or(scenario.seed);
    let mut world = build::build(scenario, options, seed)?;
    if !options.pcap.is_empty() {
        let dir = options.out_dir.as_deref().ok_or_else(|| {
            SimError::Invalid("pcap capture needs an output directory (--out DIR)".into())
        })?;
        world.captures = Some(capture::Captures::open(&world, &options.pcap, dir)?);
    }
    let reason = world.run()?;
    if let Some(captures) = world.captures.take() {
        captures.finish()?;
    }
    let end = match reason {
        StopReason::Completed => world.queue.now(),
        StopReason::StopTime => world.stop_time,
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let summary = report::summarize(&world, &scenario.name, seed, end, reason, wall_s);
    let mut traces = std::mem::take(&mut world.traces).into_tables();
    traces.extend(world.agents.take_trace_table());
    Ok(RunOutput { summary, traces })
}
