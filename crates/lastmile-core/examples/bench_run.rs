//! The engine alone on a scenario file: loads it once (with `--set`-style overrides), runs
//! it `repeats` times and prints the best and the median run's CPU time, its events and
//! events per second (of the median)
//! (`bench/vs_ns2.py` reports it as the engine's time; `make bench`'s callgrind gate runs
//! it under valgrind). The time is this thread's CPU time (`/proc/thread-self/schedstat`),
//! which on a shared machine leaves out the time other processes held the core; where that
//! file is missing, wall time.
//!
//!     cargo run --release -p lastmile-core --example bench_run -- bench/scenarios/wifi.toml 5
//!     cargo run --release -p lastmile-core --example bench_run -- \
//!         python/lastmile/examples/tulip-basic.toml 5 base_station.agent=snoop

use std::path::Path;
use std::time::Instant;

use lastmile_core::scenario::load_path;
use lastmile_core::sim::{run, RunOptions};

/// CPU time of this thread so far, in seconds.
fn thread_cpu_s() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 * 1e-9)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: bench_run FILE [REPEATS] [KEY=VALUE ...]");
    let repeats: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("REPEATS: a number"));
    let overrides: Vec<String> = args.collect();
    let scenario = load_path(Path::new(&path), &overrides).expect("scenario");
    let (mut spent_s, mut clock) = (Vec::new(), "cpu");
    let mut summary = None;
    for _ in 0..repeats.max(1) {
        let (cpu0, wall0) = (thread_cpu_s(), Instant::now());
        let out = run(&scenario, &RunOptions::default()).expect("run");
        let spent = match (cpu0, thread_cpu_s()) {
            (Some(a), Some(b)) => b - a,
            _ => {
                clock = "wall";
                wall0.elapsed().as_secs_f64()
            }
        };
        spent_s.push(spent);
        summary = Some(out.summary);
    }
    let s = summary.expect("at least one run");
    spent_s.sort_by(f64::total_cmp);
    let (best, median) = (spent_s[0], spent_s[spent_s.len() / 2]);
    let segments: u64 = s.flows.iter().map(|f| f.tcp_segments_sent).sum();
    println!(
        "scenario={} events={} best_{clock}_s={best:.6} median_{clock}_s={median:.6} \
         events_per_s={:.4e} sim_time_s={:.3} \
         segments_sent={segments} bytes_delivered={}",
        s.name,
        s.engine.events,
        s.engine.events as f64 / median,
        s.engine.sim_time_s,
        s.flows.iter().map(|f| f.bytes_delivered).sum::<u64>(),
    );
}
