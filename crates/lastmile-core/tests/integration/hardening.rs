//! Hardening: extreme but valid scenarios run without a panic, `check` refuses
//! what `run` refuses at start, an observer can stop a run cleanly and sees the same run,
//! the size estimate is close on the reference runs and loud on absurd ones, and a
//! topology of 10^5 explicit nodes loads, routes and runs in linear time.

use std::time::Instant;

use lastmile_core::scenario::{load_str, Format, Scenario};
use lastmile_core::sim::{
    check, run, run_observed, Control, Estimate, Progress, RunObserver, RunOptions, SimError,
    PROGRESS_EVERY,
};

const CHAIN: &str = r#"
name = "chain"
stop_time = "3000s"
[topology]
preset = "chain"
wired = { rate = "10Mbps", delay = "1ms" }
wireless = { rate = "1Mbps", delay = "1us", errors = { model = "per", per = 0.05 } }
[[flow]]
src = "fh"
dst = "mh"
tcp = { variant = "newreno", mss = "1400B", rwnd = "42KB", timer_granularity = "500ms" }
app = { kind = "bulk", bytes = "10MB" }
"#;

fn load(text: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, Format::Toml, "t.toml", &sets).unwrap_or_else(|e| panic!("{e}"))
}

const MAX: &str = "100000000s";

/// Every time of the issue's list at the top of its range, per configuration; each run
/// must end without "simulated time overflow".
#[test]
fn times_at_the_top_of_their_range_run_without_overflow() {
    let every_time = |prefix: &str, keys: &[&str]| -> Vec<String> {
        keys.iter().map(|k| format!("{prefix}{k}={MAX}")).collect()
    };
    let tcp = every_time(
        "flow.0.tcp.",
        &[
            "delack_timeout",
            "max_rto",
            "initial_rto",
            "min_rto",
            "timer_granularity",
        ],
    );
    // Huge delays go with huge RTOs: with the default 60 s cap the SYN would time out a
    // million times before its answer came back (a valid run, but a slow test).
    let mut links = every_time("topology.", &["wired.delay", "wireless.delay"]);
    links.extend(tcp.iter().cloned());
    let mut configs: Vec<Vec<String>> = Vec::new();
    for agent in ["snoop", "wtcp"] {
        let keys: &[&str] = if agent == "snoop" {
            &["min_timeout", "persist", "initial_rtt"]
        } else {
            &["clock", "initial_rtt", "source_clock"]
        };
        let mut c = every_time(&format!("base_station.{agent}."), keys);
        c.push(format!("base_station.agent={agent}"));
        configs.push(c);
    }
    let mut tulip = every_time(
        "topology.wireless.tulip.",
        &["t_ack", "delta_t2_min", "t_p", "t_c", "t_tr", "tau"],
    );
    tulip.extend([
        "topology.wireless.mac=fama".into(),
        "topology.wireless.link=tulip".into(),
    ]);
    configs.push(tulip);
    configs.push(vec!["flow.0.tcp.ack=delayed".into()]);
    for extra in &configs {
        for base in [&tcp[..], &links[..], &[][..]] {
            // TULIP holding a lost frame for 10^9 s under TCP's 60 s RTO cap: 3.5·10^7
            // valid events, too slow for a debug test.
            if extra.iter().any(|e| e.ends_with("link=tulip")) && base.is_empty() {
                continue;
            }
            let mut sets: Vec<&str> = vec!["stop_time=100000000s", "flow.0.app.bytes=20KB"];
            sets.extend(base.iter().map(String::as_str));
            sets.extend(extra.iter().map(String::as_str));
            let s = load(CHAIN, &sets);
            let out = run(&s, &RunOptions::default()).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
            assert!(out.summary.engine.sim_time_s <= 1e8, "{sets:?}");
        }
    }
}

#[test]
fn check_refuses_what_run_refuses_at_start() {
    let s = load(CHAIN, &["flow.0.app.bytes=1MB"]);
    check(&s, &RunOptions::default()).unwrap();
    let bad_options = [
        RunOptions {
            traces: vec!["cwnd2".into()],
            ..Default::default()
        },
        RunOptions {
            pcap: vec!["wireless".into()],
            ..Default::default()
        },
        RunOptions {
            pcap: vec!["nope".into()],
            out_dir: Some(std::env::temp_dir()),
            ..Default::default()
        },
    ];
    let said = [
        "invalid run option: unknown trace \"cwnd2\": expected one of seq, cwnd",
        "invalid run option: pcap capture needs an output directory (--out DIR)",
        "invalid run option: --pcap \"nope\": no link of that name; links are: wired, wireless",
    ];
    for (options, said) in bad_options.into_iter().zip(said) {
        let checked = check(&s, &options).unwrap_err();
        assert!(matches!(checked, SimError::Option(_)), "{checked}");
        let checked = checked.to_string();
        assert!(checked.starts_with(said), "{checked}");
        let ran = run(&s, &options).unwrap_err().to_string();
        assert_eq!(checked, ran);
    }
}

/// Stops the run at the `stop_at`-th progress report; records what it saw.
struct Stopper {
    stop_at: usize,
    seen: Vec<Progress>,
    estimate: Option<Estimate>,
}

impl RunObserver for Stopper {
    fn on_start(&mut self, estimate: &Estimate) {
        self.estimate = Some(*estimate);
    }
    fn on_progress(&mut self, p: &Progress) -> Control {
        self.seen.push(*p);
        if self.seen.len() == self.stop_at {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

#[test]
fn an_observer_stops_a_run_cleanly_with_a_partial_summary() {
    let s = load(CHAIN, &["flow.0.app.bytes=100MB"]);
    let mut stopper = Stopper {
        stop_at: 1,
        seen: Vec::new(),
        estimate: None,
    };
    let out = run_observed(&s, &RunOptions::default(), &mut stopper).unwrap();
    assert_eq!(out.summary.engine.stop_reason, "interrupted");
    assert_eq!(out.summary.engine.events, PROGRESS_EVERY);
    assert_eq!(stopper.seen[0].events, PROGRESS_EVERY);
    let flow = &out.summary.flows[0];
    assert!(!flow.completed);
    assert!(flow.bytes_delivered > 0 && flow.bytes_delivered < 100_000_000);
    assert!(out.summary.engine.sim_time_s > 0.0);
    assert!(stopper.estimate.is_some());
}

#[test]
fn a_budget_stops_a_run_cleanly_with_a_partial_summary() {
    let s = load(CHAIN, &["flow.0.app.bytes=100MB"]);
    // An event budget is exact, whatever `PROGRESS_EVERY` is.
    let options = RunOptions {
        max_events: Some(PROGRESS_EVERY + 1234),
        ..RunOptions::default()
    };
    let out = run(&s, &options).unwrap();
    assert_eq!(out.summary.engine.stop_reason, "budget");
    assert_eq!(out.summary.engine.events, PROGRESS_EVERY + 1234);
    let flow = &out.summary.flows[0];
    assert!(!flow.completed && flow.bytes_delivered > 0);
    // A wall-clock budget: stopped at its first check once the time is up.
    let options = RunOptions {
        max_wall: Some(std::time::Duration::ZERO),
        ..RunOptions::default()
    };
    let out = run(&s, &options).unwrap();
    assert_eq!(out.summary.engine.stop_reason, "budget");
    assert_eq!(out.summary.engine.events, PROGRESS_EVERY);
    // A budget the run does not reach changes nothing.
    let roomy = RunOptions {
        max_events: Some(u64::MAX),
        max_wall: Some(std::time::Duration::from_secs(3600)),
        ..RunOptions::default()
    };
    let small = load(CHAIN, &[]);
    let mut a = run(&small, &roomy).unwrap().summary;
    let mut b = run(&small, &RunOptions::default()).unwrap().summary;
    (a.engine.wall_s, b.engine.wall_s) = (0.0, 0.0);
    assert_eq!(a, b);
    assert_eq!(a.engine.stop_reason, "completed");
    let zero = RunOptions {
        max_events: Some(0),
        ..RunOptions::default()
    };
    assert!(matches!(run(&small, &zero), Err(SimError::Option(_))));
}

#[test]
fn watching_a_run_does_not_change_it() {
    let s = load(CHAIN, &[]);
    let mut watcher = Stopper {
        stop_at: usize::MAX,
        seen: Vec::new(),
        estimate: None,
    };
    let mut watched = run_observed(&s, &RunOptions::default(), &mut watcher)
        .unwrap()
        .summary;
    let mut plain = run(&s, &RunOptions::default()).unwrap().summary;
    watched.engine.wall_s = 0.0;
    plain.engine.wall_s = 0.0;
    assert_eq!(
        serde_json::to_string(&watched).unwrap(),
        serde_json::to_string(&plain).unwrap()
    );
    assert_eq!(
        watcher.seen.len() as u64,
        plain.engine.events / PROGRESS_EVERY
    );
    let times: Vec<_> = watcher.seen.iter().map(|p| p.sim_time).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

fn estimated_and_counted(s: &Scenario) -> (f64, f64) {
    let estimate = check(s, &RunOptions::default()).unwrap();
    let events = run(s, &RunOptions::default())
        .unwrap()
        .summary
        .engine
        .events;
    (estimate.events, events as f64)
}

#[test]
fn the_estimate_is_close_on_the_reference_run_and_loud_on_a_1bps_link() {
    let (estimated, counted) = estimated_and_counted(&load(CHAIN, &[]));
    assert!(
        (estimated / counted - 1.0).abs() < 0.1,
        "{estimated} vs {counted}"
    );
    // A 1 bps link: every segment outlives the RTO, which fires every max_rto until the
    // end; the estimate follows the timer, not the data.
    let slow = [
        "topology.wired.rate=1bps",
        "topology.wireless.rate=1bps",
        "topology.wireless.errors={ model = \"none\" }",
        "stop_time=1000000s",
    ];
    let (estimated, counted) = estimated_and_counted(&load(CHAIN, &slow));
    assert!(
        (estimated / counted - 1.0).abs() < 0.25,
        "{estimated} vs {counted}"
    );
    let mut huge = slow.to_vec();
    huge.push("stop_time=100000000s");
    let s = load(CHAIN, &huge);
    let e = check(&s, &RunOptions::default()).unwrap();
    assert!(e.events > 1e6, "{e:?}");
    assert_eq!(
        e.sim_time_s,
        8e7 + 0.0,
        "10 MB at 1 bps end before stop_time"
    );
}

/// An explicit chain of `n` nodes with one flow over its first 50 hops (IP's TTL of 64
/// would drop it over more).
fn long_chain(n: usize) -> String {
    let nodes: Vec<String> = (0..n).map(|i| format!("\"n{i}\"")).collect();
    let mut text = format!(
        "name = \"long\"\nstop_time = \"100s\"\n[topology]\nnodes = [{}]\n",
        nodes.join(", ")
    );
    for i in 0..n - 1 {
        text.push_str(&format!(
            "[[topology.links]]\nfrom = \"n{i}\"\nto = \"n{}\"\nrate = \"1Gbps\"\n",
            i + 1
        ));
    }
    text.push_str(
        "[[flow]]\nsrc = \"n0\"\ndst = \"n50\"\napp = { kind = \"bulk\", bytes = \"3KB\" }\n",
    );
    text
}

#[test]
fn a_topology_of_100000_explicit_nodes_loads_and_runs_in_linear_time() {
    let text = long_chain(100_000);
    let start = Instant::now();
    let s = load(&text, &[]);
    let loaded = start.elapsed();
    check(&s, &RunOptions::default()).unwrap();
    let out = run(&s, &RunOptions::default()).unwrap();
    assert!(out.summary.flows[0].completed, "{:?}", out.summary.flows[0]);
    // Quadratic loading took minutes (and an N x N table) at this size; debug builds here
    // take a few seconds.
    let total = start.elapsed();
    assert!(
        total.as_secs_f64() < 60.0,
        "loaded in {loaded:?}, all in {total:?}"
    );
}

/// A scenario built in code without `load`'s checks is worked out by `run` itself
/// (`scenario::plan`), and refused with the same typed error, field path included, that
/// loading gives; the plan `run` builds from is the one `validate` checks.
#[test]
fn run_refuses_an_unchecked_scenario_with_the_field_path_loading_gives() {
    let bad = CHAIN.replace(r#"dst = "mh""#, r#"dst = "nowhere""#);
    let unchecked: Scenario = toml::from_str(&bad).expect("well-typed");
    let loaded = load_str(&bad, Format::Toml, "t.toml", &[]).unwrap_err();
    for outcome in [
        run(&unchecked, &RunOptions::default()).map(drop),
        check(&unchecked, &RunOptions::default()).map(drop),
    ] {
        match outcome {
            Err(SimError::Scenario(e)) => {
                assert_eq!(e.path, "flow[0].dst");
                assert_eq!((&e.path, &e.value), (&loaded.path, &loaded.value));
            }
            other => panic!("expected a scenario error, got {other:?}"),
        }
    }
}
