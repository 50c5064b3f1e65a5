//! `lastmile-run`: one scenario run in a native process, its summary printed as one JSON
//! object, as `lastmile run --json` prints it (`pyjson`), without the Python
//! interpreter's start-up and imports (about 20 ms of each `lastmile run`; this process
//! adds about 1 ms around the engine).
//!
//! It is the run command for scripts and for comparisons with other simulators'
//! processes (`bench/vs_ns2.py`); traces, captures, built-in examples, the text summary
//! and the progress line are the Python CLI's (`args` names them). What it shares with
//! `lastmile run`: the exit statuses, Ctrl-C and SIGTERM ending the run with the summary
//! so far (130, 143), `--max-events` (3), and a warning on stderr for each flow that
//! stalled (worded by `lastmile_core::metrics::stall`).

mod args;
mod pyjson;
mod shell;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicI32, Ordering};

use args::{Request, RunArgs};
use lastmile_core::metrics::stall::{stall_warning, thousands};
use lastmile_core::metrics::RunSummary;
use lastmile_core::scenario::load_path;
use lastmile_core::sim::{run_observed, Control, Progress, RunObserver, RunOptions, SimError};

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

/// Stops the run once a stop signal came.
struct SignalWatch;

impl RunObserver for SignalWatch {
    fn on_progress(&mut self, _progress: &Progress) -> Control {
        if STOP_SIGNAL.load(Ordering::SeqCst) == 0 {
            Control::Continue
        } else {
            Control::Stop
        }
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
    let output = match run_observed(&scenario, &options, &mut SignalWatch) {
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
                general_4(engine.sim_time_s)
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
                general_4(engine.sim_time_s)
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

/// A number to 4 significant digits, as Python's `{:.4g}` writes it.
fn general_4(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let exponent = format!("{x:.3e}")
        .split_once('e')
        .and_then(|(_, e)| e.parse::<i32>().ok())
        .unwrap_or(0);
    if (-4..4).contains(&exponent) {
        let decimals = (3 - exponent).max(0) as usize;
        let fixed = format!("{x:.decimals$}");
        if fixed.contains('.') {
            fixed
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        } else {
            fixed
        }
    } else {
        let s = format!("{x:.3e}");
        let (m, e) = s.split_once('e').expect("an exponent");
        let m = if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.')
        } else {
            m
        };
        let e: i32 = e.parse().expect("a whole exponent");
        format!(
            "{m}e{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.unsigned_abs()
        )
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
    fn four_significant_digits_as_python_writes_them() {
        // Python: [f"{x:.4g}" for x in (1000.0, 98.41, 0.5, 12345.0, 0.0001234, 1e-05, 3.0)]
        let cases = [
            (1000.0, "1000"),
            (98.41, "98.41"),
            (0.5, "0.5"),
            (12345.0, "1.234e+04"),
            (0.0001234, "0.0001234"),
            (1e-05, "1e-05"),
            (3.0, "3"),
        ];
        for (x, python) in cases {
            assert_eq!(general_4(x), python);
        }
    }

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
