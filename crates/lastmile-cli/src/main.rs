//! `lastmile-run`: one scenario run in a native process, its summary printed as one JSON
//! object, as `lastmile run --json` prints it (`pyjson`), without the Python
//! interpreter's start-up and imports (about 20 ms of each `lastmile run`; this process
//! adds about 1 ms around the engine).
//!
//! It is the run command for scripts and for comparisons with other simulators'
//! processes (`bench/vs_ns2.py`); traces, captures, built-in examples and the text summary
//! are the Python CLI's (`args` names them). What it shares with `lastmile run`: the exit
//! statuses, Ctrl-C and SIGTERM ending the run with the summary so far (130, 143),
//! `--max-events` (3), the warning for a run whose estimate is over `LASTMILE_EVENT_BUDGET`
//! (read and worded by `lastmile_core::sim::budget`), a warning on stderr for each flow that
//! stalled (worded by `lastmile_core::metrics::stall`), and, once a run has taken a few
//! seconds, its progress line on stderr (worded by `lastmile_core::sim::progress_line`),
//! rewritten in place on a terminal and a plain line every ten seconds otherwise.

mod args;
mod pyjson;
mod shell;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use args::{Request, RunArgs};
use lastmile_core::metrics::stall::{stall_warning, thousands};
use lastmile_core::metrics::RunSummary;
use lastmile_core::pyfmt::general;
use lastmile_core::scenario::load_path;
use lastmile_core::sim::budget::{budget_warning, event_budget, EVENT_BUDGET_VAR};
use lastmile_core::sim::progress_line::progress_line;
use lastmile_core::sim::{
    run_observed, Control, Estimate, Progress, RunObserver, RunOptions, SimError,
};

const EXIT_OK: u8 = 0;
const EXIT_RUN_FAILED: u8 = 1;
const EXIT_BAD_INPUT: u8 = 2;
const EXIT_BUDGET: u8 = 3;
const EXIT_INTERRUPTED: u8 = 130;
const EXIT_TERMINATED: u8 = 143;

/// The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none has.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop_signal(signal: libc::c_int) {
    STOP_SIGNAL.store(signal, Ordering::SeqCst);
}

/// Ctrl-C and SIGTERM end the run at its next progress check, with its summary.
fn catch_stop_signals() {
    let handler = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores into an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// Stops the run once a stop signal came, and shows its progress on stderr once it has
/// taken `AFTER` (as `lastmile run` does): every half second in place on a terminal, a
/// line every ten seconds otherwise. Only the printing reads the clock.
struct Watch {
    started: Instant,
    tty: bool,
    every: Duration,
    /// A line has been shown; `last` is then its events and time (for the rate and the
    /// next line's turn), else the start's.
    shown: bool,
    last: (u64, Instant),
    /// The events over whose estimate the run is announced as big.
    budget: f64,
}

/// How long a run goes before its progress shows.
const AFTER: Duration = Duration::from_secs(3);

impl Watch {
    fn new(budget: f64) -> Self {
        let tty = std::io::stderr().is_terminal();
        let started = Instant::now();
        Watch {
            started,
            tty,
            every: Duration::from_millis(if tty { 500 } else { 10_000 }),
            shown: false,
            last: (0, started),
            budget,
        }
    }

    fn show(&mut self, progress: &Progress) {
        let now = Instant::now();
        let due = !self.shown || now - self.last.1 >= self.every;
        if now - self.started < AFTER || !due {
            return;
        }
        let (events, at) = self.last;
        let elapsed = (now - at).as_secs_f64().max(1e-9);
        let rate = progress.events.saturating_sub(events) as f64 / elapsed;
        self.last = (progress.events, now);
        self.shown = true;
        let line = progress_line(
            progress.sim_time.as_secs_f64(),
            progress.stop_time.as_secs_f64(),
            progress.events,
            rate,
        );
        let mut err = std::io::stderr().lock();
        // A closed stderr must not end the run: the summary still goes to stdout.
        let _ = if self.tty {
            write!(err, "\rlastmile-run: {line}\x1b[K").and_then(|()| err.flush())
        } else {
            writeln!(err, "lastmile-run: {line}")
        };
    }

    /// Clears the in-place line (a terminal), so what follows starts clean.
    fn close(&self) {
        if self.tty && self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K").and_then(|()| err.flush());
        }
    }
}

impl RunObserver for Watch {
    fn on_start(&mut self, estimate: &Estimate) {
        if let Some(warning) = budget_warning(estimate, self.budget) {
            eprintln!("lastmile-run: warning: {warning}");
        }
    }

    fn on_progress(&mut self, progress: &Progress) -> Control {
        if STOP_SIGNAL.load(Ordering::SeqCst) != 0 {
            return Control::Stop;
        }
        self.show(progress);
        Control::Continue
    }
}

fn main() -> ExitCode {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let status = match args::parse(&words) {
        Ok(Request::Help) => {
            println!("{}", args::USAGE);
            EXIT_OK
        }
        Ok(Request::Version) => {
            println!("lastmile-run {}", env!("CARGO_PKG_VERSION"));
            EXIT_OK
        }
        Ok(Request::Run(run_args)) => run(&run_args, &words),
        Err(message) => {
            error(&message);
            EXIT_BAD_INPUT
        }
    };
    ExitCode::from(status)
}

fn run(args: &RunArgs, words: &[String]) -> u8 {
    let budget = match read_event_budget() {
        Ok(b) => b,
        Err(message) => {
            error(&message);
            return EXIT_BAD_INPUT;
        }
    };
    let scenario = match load_path(&args.scenario, &args.overrides) {
        Ok(s) => s,
        Err(e) => {
            error(&e.to_string());
            return EXIT_BAD_INPUT;
        }
    };
    let options = RunOptions {
        seed: args.seed,
        max_events: args.max_events,
        ..RunOptions::default()
    };
    catch_stop_signals();
    let mut watch = Watch::new(budget);
    let result = run_observed(&scenario, &options, &mut watch);
    watch.close();
    let output = match result {
        Ok(o) => o,
        Err(e) => {
            error(&e.to_string());
            return match e {
                SimError::Scenario(_) | SimError::Invalid(_) | SimError::Option(_) => {
                    EXIT_BAD_INPUT
                }
                _ => EXIT_RUN_FAILED,
            };
        }
    };
    let summary = output.summary;
    if let Err(status) = print_summary(&summary, &command(words, args.seed, summary.seed)) {
        return status;
    }
    finish(&summary, args.max_events)
}

/// The summary as one JSON object, with the command line that reruns it last.
fn print_summary(summary: &RunSummary, command: &str) -> Result<(), u8> {
    let text = pyjson::to_string(summary).map_err(|e| {
        error(&format!("the summary is not serialisable: {e}"));
        EXIT_RUN_FAILED
    })?;
    let body = text.strip_suffix('}').expect("a summary is a JSON object");
    let command = pyjson::to_string(command).expect("a string serialises");
    let mut out = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) ends the process quietly, as Unix tools do.
    writeln!(out, "{body}, \"command\": {command}}}")
        .and_then(|()| out.flush())
        .map_err(|_| EXIT_RUN_FAILED)
}

/// The command line as typed, with the run's seed made explicit (as `lastmile run`
/// records it).
fn command(words: &[String], seed_given: Option<u64>, seed: u64) -> String {
    let mut all = vec!["lastmile-run".to_string()];
    all.extend(words.iter().cloned());
    if seed_given.is_none() {
        all.extend(["--seed".to_string(), seed.to_string()]);
    }
    shell::join(&all)
}

/// `LASTMILE_EVENT_BUDGET`, read as `lastmile run` reads it.
fn read_event_budget() -> Result<f64, String> {
    let value = std::env::var_os(EVENT_BUDGET_VAR);
    let text = value.as_ref().map(|v| v.to_string_lossy());
    event_budget(text.as_deref())
}

/// What stderr says after the summary, and the exit status.
fn finish(summary: &RunSummary, max_events: Option<u64>) -> u8 {
    let engine = &summary.engine;
    match engine.stop_reason.as_str() {
        "interrupted" => {
            let terminated = STOP_SIGNAL.load(Ordering::SeqCst) == libc::SIGTERM;
            eprintln!(
                "lastmile-run: {}: the summary covers the run so far ({} s simulated)",
                if terminated {
                    "terminated"
                } else {
                    "interrupted"
                },
                general(engine.sim_time_s, 4)
            );
            if terminated {
                EXIT_TERMINATED
            } else {
                EXIT_INTERRUPTED
            }
        }
        "budget" => {
            eprintln!(
                "lastmile-run: stopped: the run used up its budget (max_events = {}) after {} \
                 events, {} s simulated; the summary covers the run so far",
                max_events.map_or_else(|| "-".into(), thousands),
                thousands(engine.events),
                general(engine.sim_time_s, 4)
            );
            EXIT_BUDGET
        }
        _ => {
            for flow in summary.flows.iter().filter(|f| f.stalled) {
                eprintln!("lastmile-run: warning: {}", stall_warning(&flow.into()));
            }
            EXIT_OK
        }
    }
}

fn error(message: &str) {
    // One line, whatever the message holds.
    let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
    eprintln!("lastmile-run: error: {line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_records_the_seed_the_run_used() {
        let words: Vec<String> = ["my file.toml", "--set", "stop_time=1s"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            command(&words, None, 9),
            "lastmile-run 'my file.toml' --set stop_time=1s --seed 9"
        );
        assert_eq!(
            command(&words, Some(3), 3),
            "lastmile-run 'my file.toml' --set stop_time=1s"
        );
    }
}
