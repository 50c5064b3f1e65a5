//! `lastmile-run`'s command line, read by a pure function: the words given, to what to run
//! or a one-line error that names the word and the fix.
//!
//! The words are those of `lastmile run --json` that a run without files takes: the
//! scenario file, `--seed N`, `--set KEY=VALUE` (repeatable), `--max-events N`, and
//! `--json` (accepted and implied: the summary is always printed as JSON). Traces,
//! captures, `--example`, `--out`, `--max-wall` and the text summary are the Python CLI's
//! (`lastmile run`); asking for them here says so.

use std::path::PathBuf;

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Run(RunArgs),
    Help,
    Version,
}

/// A run: the scenario file and what replaces its settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunArgs {
    pub scenario: PathBuf,
    pub seed: Option<u64>,
    pub overrides: Vec<String>,
    pub max_events: Option<u64>,
}

pub const USAGE: &str = "\
usage: lastmile-run SCENARIO [--seed N] [--set KEY=VALUE]... [--max-events N] [--json]

Runs a scenario file (.toml, .yaml or .json) and prints its summary as one JSON object,
as `lastmile run --json` does, in a native process (no Python start-up).

  --seed N            replace the scenario's seed (0 to 2**64-1)
  --set KEY=VALUE     replace a setting, e.g. --set flow.0.tcp.variant=reno (repeatable)
  --max-events N      stop after N events (e.g. 1e9): partial summary, exit status 3
  --json              accepted; the summary is always JSON

Exit status: 0 done, 1 the run failed, 2 bad input, 3 stopped by --max-events,
130 interrupted (Ctrl-C), 143 terminated; the last three print the summary so far.
Traces, captures, built-in examples and the text summary: `lastmile run`.";

/// The options of `lastmile run` that only the Python CLI has, with what they do.
const PYTHON_ONLY: &[(&str, &str)] = &[
    ("--trace", "traces"),
    ("--pcap", "captures"),
    ("--out", "an output folder"),
    ("--example", "built-in examples"),
    ("--max-wall", "a wall-clock budget"),
];

/// Reads the words after the program's name.
pub fn parse(words: &[String]) -> Result<Request, String> {
    let mut scenario: Option<PathBuf> = None;
    let (mut seed, mut overrides, mut max_events) = (None, Vec::new(), None);
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (word.as_str(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline
                .clone()
                .or_else(|| rest.next().cloned())
                .ok_or_else(|| format!("{name} needs a value: {name} {}", metavar(name)))
        };
        match flag {
            "-h" | "--help" => return Ok(Request::Help),
            "--version" => return Ok(Request::Version),
            "--json" if inline.is_none() => {}
            "--seed" => seed = Some(seed_value(&value("--seed")?)?),
            "--set" => overrides.push(override_value(&value("--set")?)?),
            "--max-events" => max_events = Some(max_events_value(&value("--max-events")?)?),
            _ if flag.starts_with('-') && flag.len() > 1 => return Err(unknown_option(flag)),
            _ if scenario.is_some() => {
                return Err(format!(
                    "{word}: one scenario file per run (the first was {})",
                    scenario
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string())
                ))
            }
            _ => scenario = Some(PathBuf::from(word)),
        }
    }
    let scenario = scenario.ok_or("no scenario file: lastmile-run SCENARIO (e.g. my.toml)")?;
    Ok(Request::Run(RunArgs {
        scenario,
        seed,
        overrides,
        max_events,
    }))
}

fn metavar(flag: &str) -> &'static str {
    match flag {
        "--set" => "KEY=VALUE",
        _ => "N",
    }
}

fn unknown_option(flag: &str) -> String {
    match PYTHON_ONLY.iter().find(|(f, _)| *f == flag) {
        Some((_, what)) => {
            format!("{flag}: {what} are the Python CLI's: use `lastmile run ... {flag} ...`")
        }
        None => format!(
            "{flag}: unknown option; expected --seed, --set, --max-events or --json \
             (lastmile-run --help)"
        ),
    }
}

/// `--seed`: a whole number from 0 to 2**64-1 in digits (underscores allowed), as the
/// Python CLI reads it.
fn seed_value(text: &str) -> Result<u64, String> {
    let digits = text.trim().replace('_', "");
    let valid = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    valid
        .then(|| digits.parse::<u64>().ok())
        .flatten()
        .ok_or_else(|| {
            format!("--seed {text}: expected a whole number from 0 to 2**64-1, written in digits")
        })
}

fn override_value(text: &str) -> Result<String, String> {
    match text.split_once('=') {
        Some((key, _)) if !key.trim().is_empty() => Ok(text.to_string()),
        _ => Err(format!(
            "--set {text}: expected KEY=VALUE, e.g. --set flow.0.tcp.variant=reno"
        )),
    }
}

/// `--max-events`: a whole number of events, written `1000000` or `1e6`.
fn max_events_value(text: &str) -> Result<u64, String> {
    let refuse = || format!("--max-events {text}: expected a whole number of events, e.g. 1e9");
    let cleaned = text.replace('_', "");
    if let Ok(n) = cleaned.parse::<u64>() {
        return if n >= 1 { Ok(n) } else { Err(refuse()) };
    }
    let value: f64 = cleaned.trim().parse().map_err(|_| refuse())?;
    // 2**64 is exact in f64; every whole f64 below it converts exactly.
    if value.is_finite()
        && value >= 1.0
        && value.fract() == 0.0
        && value < 18_446_744_073_709_551_616.0
    {
        Ok(value as u64)
    } else {
        Err(refuse())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn run_args(line: &str) -> RunArgs {
        match parse(&words(line)) {
            Ok(Request::Run(a)) => a,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn the_words_of_lastmile_run_json_are_read_alike() {
        let a = run_args("chain.toml --json --seed 7 --set stop_time=1s --set=seed=3");
        assert_eq!(a.scenario, PathBuf::from("chain.toml"));
        assert_eq!(a.seed, Some(7));
        assert_eq!(a.overrides, vec!["stop_time=1s", "seed=3"]);
        assert_eq!(a.max_events, None);
        let b = run_args("--seed=1_000 --max-events 1e6 x.yaml");
        assert_eq!((b.seed, b.max_events), (Some(1000), Some(1_000_000)));
        assert_eq!(
            run_args("x.toml --seed 18446744073709551615").seed,
            Some(u64::MAX)
        );
    }

    #[test]
    fn bad_words_are_named_with_their_fix() {
        let err = |line: &str| parse(&words(line)).unwrap_err();
        assert!(err("x.toml --seed -1").starts_with("--seed -1: expected a whole number"));
        assert!(err("x.toml --seed 18446744073709551616").contains("2**64-1"));
        assert!(err("x.toml --seed 1.5").starts_with("--seed 1.5:"));
        assert!(err("x.toml --max-events 0").starts_with("--max-events 0:"));
        assert!(err("x.toml --max-events 1.5e0").starts_with("--max-events 1.5e0:"));
        assert!(err("x.toml --max-events 2e19").starts_with("--max-events 2e19:"));
        assert!(err("x.toml --set novalue").starts_with("--set novalue: expected KEY=VALUE"));
        assert!(err("x.toml --seed").starts_with("--seed needs a value"));
        assert!(err("x.toml --trace cwnd").contains("use `lastmile run ... --trace ...`"));
        assert!(err("x.toml --frobnicate").contains("unknown option"));
        assert!(err("a.toml b.toml").contains("one scenario file per run"));
        assert!(err("--json").starts_with("no scenario file"));
    }

    #[test]
    fn help_and_version_win() {
        assert_eq!(parse(&words("x.toml --help")), Ok(Request::Help));
        assert_eq!(parse(&words("--version")), Ok(Request::Version));
    }
}
