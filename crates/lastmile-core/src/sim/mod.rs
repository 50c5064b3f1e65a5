//! The simulated world: builds nodes, links, cells, endpoints, agents and applications from
//! a `Scenario` and runs the event loop until every flow is done or `stop_time`.
//!
//! `world.rs` holds the event loop, the links and the endpoints, and the one timer path
//! (`World::arm` / `World::on_timer` over `World::timers`); `cell.rs` (with `cell/`) the
//! wireless cells; `agent_hook.rs` and `app_hook.rs` apply agents' and applications'
//! outboxes; `build.rs` makes the world; `observe.rs`, `report.rs` and `capture.rs` measure
//! it.
//!
//! `check` does everything `run` does before the first event (trace and capture names,
//! building the world, routes) and estimates the run's size, so that `lastmile validate`
//! refuses exactly what `run` would refuse at start. `run_observed` lets a caller watch a
//! long run (`RunObserver`: the estimate first, then progress every `PROGRESS_EVERY`
//! events) and stop it cleanly (Ctrl-C), with a summary of the run so far whose
//! `stop_reason` is "interrupted". `RunOptions::max_events` and `max_wall` give a run a
//! budget: past it the run stops the same way, as "budget". The summary carries the
//! resolved scenario (`scenario::resolved`).

mod agent_hook;
mod app_hook;
pub mod budget;
mod build;
mod capture;
mod cell;
mod energy;
mod estimate;
pub mod external;
mod flow;
mod mobility;
mod observe;
pub mod progress_line;
mod quiet_end;
mod report;
mod world;

#[cfg(test)]
mod prefetch_tests;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use crate::engine::SimTime;
use crate::metrics::{RunSummary, TraceTable};
use crate::scenario::{Plan, Scenario};

pub use build::SINK_PORT;
pub use estimate::{Estimate, NOMINAL_EVENTS_PER_S};
pub use external::{Departure, Emulation, ExternalReport};
pub use observe::Welford;
pub use world::{Budget, StopReason};

/// How often (in events) a `RunObserver` hears from a run: often enough to report and to
/// react to Ctrl-C within milliseconds, rarely enough to cost nothing measurable.
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Events processed so far.
    pub events: u64,
    /// The simulated time of the last event.
    pub sim_time: SimTime,
    /// When the run ends at the latest.
    pub stop_time: SimTime,
}

/// What an observer wants the run to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// End the run now, as "interrupted", with a summary of what ran.
    Stop,
}

/// Watches a run from outside (a progress line, Ctrl-C). Nothing it sees changes the
/// simulation: only `Control::Stop` ends it early.
pub trait RunObserver {
    /// Once the world is built, before the first event.
    fn on_start(&mut self, _estimate: &Estimate) {}
    /// Every `PROGRESS_EVERY` events.
    fn on_progress(&mut self, _progress: &Progress) -> Control {
        Control::Continue
    }
}

/// The observer that watches nothing.
pub struct Unobserved;
impl RunObserver for Unobserved {}

/// The traces a run can record (opt-in). `agent_rtt` is the base-station agent's
/// wireless-hop RTT estimate: time_s, flow, rtt_s, timeout_s. `cc` is each source's
/// congestion-control state (`tcp::cc::CcMetrics`) whenever it changes. `handoff` is one
/// row per handoff: time_s, mobile (index in the summary's `mobiles`), from and to (indices
/// in that mobile's `cells`), outage_s.
pub const TRACE_NAMES: &[&str] = &[
    "seq",
    "cwnd",
    "cc",
    "rtt",
    "wireless_tx",
    "agent_rtt",
    "handoff",
];

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
    /// Stop the run (as "budget") after this many events, if it has not ended before.
    pub max_events: Option<u64>,
    /// Stop the run (as "budget") once it has taken this much wall-clock time.
    pub max_wall: Option<std::time::Duration>,
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
    /// The scenario's own checks refused it (`scenario::plan`), with the field path.
    #[error("invalid scenario: {0}")]
    Scenario(#[from] crate::scenario::ScenarioError),
    #[error("invalid scenario: {0}")]
    Invalid(String),
    /// A run option (a trace name, a `--pcap` link, the output directory) that the run
    /// cannot honour; the message names the option as given.
    #[error("invalid run option: {0}")]
    Option(String),
    #[error("invariant violated: {0}")]
    Invariant(String),
    #[error("event scheduled in the past: {0}")]
    PastEvent(#[from] crate::engine::PastEvent),
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// Runs `scenario` to the end.
pub fn run(scenario: &Scenario, options: &RunOptions) -> Result<RunOutput, SimError> {
    run_observed(scenario, options, &mut Unobserved)
}

/// Refuses unknown trace names, and captures that name no link or lack a directory.
fn check_options(options: &RunOptions) -> Result<(), SimError> {
    for t in &options.traces {
        if !TRACE_NAMES.contains(&t.as_str()) {
            return Err(SimError::Option(format!(
                "unknown trace \"{}\": expected one of {}",
                crate::scenario::clip(t, crate::scenario::QUOTE_MAX),
                TRACE_NAMES.join(", ")
            )));
        }
    }
    if options.max_events == Some(0) {
        return Err(SimError::Option(
            "max_events = 0: expected at least 1 event".into(),
        ));
    }
    if !options.pcap.is_empty() && options.out_dir.is_none() {
        return Err(SimError::Option(
            "pcap capture needs an output directory (--out DIR)".into(),
        ));
    }
    Ok(())
}

/// Refuses a capture of a link the world does not have.
fn check_capture_names(world: &world::World, names: &[String]) -> Result<(), SimError> {
    let known = |n: &String| {
        world.links.iter().any(|l| &l.name == n) || world.cells.iter().any(|c| &c.name == n)
    };
    match names.iter().find(|n| !known(n)) {
        None => Ok(()),
        Some(name) => {
            let links: Vec<&str> = world
                .links
                .iter()
                .map(|l| l.name.as_str())
                .chain(world.cells.iter().map(|c| c.name.as_str()))
                .collect();
            Err(SimError::Option(format!(
                "--pcap \"{}\": no link of that name; links are: {}",
                crate::scenario::clip(name, crate::scenario::QUOTE_MAX),
                crate::scenario::join_names(links)
            )))
        }
    }
}

/// Everything `run` does before the first event, without running: the options are
/// checked, the world is built (nodes, links, cells, agents, flows, routes) and the run's
/// size estimated. An error here is an error `run` would give at start.
pub fn check(scenario: &Scenario, options: &RunOptions) -> Result<Estimate, SimError> {
    check_plan(&crate::scenario::plan(scenario)?, options)
}

/// `check` of a scenario already worked out.
pub fn check_plan(plan: &Plan<'_>, options: &RunOptions) -> Result<Estimate, SimError> {
    check_options(options)?;
    let seed = options.seed.unwrap_or(plan.scenario.seed);
    let world = build::build(plan, options, seed)?;
    check_capture_names(&world, &options.pcap)?;
    Ok(estimate::estimate(plan))
}

/// Runs `scenario`, telling `observer` the estimate at the start and the progress as it
/// goes; the observer may stop the run (the summary then says "interrupted").
pub fn run_observed(
    scenario: &Scenario,
    options: &RunOptions,
    observer: &mut dyn RunObserver,
) -> Result<RunOutput, SimError> {
    check_options(options)?;
    let wall = std::time::Instant::now();
    let seed = options.seed.unwrap_or(scenario.seed);
    let plan = crate::scenario::plan(scenario)?;
    let mut world = build::build(&plan, options, seed)?;
    check_capture_names(&world, &options.pcap)?;
    observer.on_start(&estimate::estimate(&plan));
    drop(plan);
    if let (false, Some(dir)) = (options.pcap.is_empty(), options.out_dir.as_deref()) {
        world.captures = Some(capture::Captures::open(&world, &options.pcap, dir)?);
    }
    world.budget = Budget {
        max_events: options.max_events,
        deadline: options.max_wall.map(|d| wall + d),
    };
    let reason = world.run(observer)?;
    if let Some(captures) = world.captures.take() {
        captures.finish()?;
    }
    let end = match reason {
        StopReason::Completed | StopReason::Interrupted | StopReason::Budget => world.queue.now(),
        StopReason::StopTime => world.stop_time,
    };
    let wall_s = wall.elapsed().as_secs_f64();
    let mut summary = report::summarize(&world, &scenario.name, seed, end, reason, wall_s);
    summary.scenario = crate::scenario::resolved(scenario, seed);
    let mut traces = std::mem::take(&mut world.traces).into_tables();
    traces.extend(world.agents.take_trace_table());
    traces.extend(world.mobility.take_trace_table());
    Ok(RunOutput { summary, traces })
}
