//! The engine alone on a scenario file: loads it once (with `--set`-style overrides), runs
//! it `repeats` times and prints the best and the median run's CPU time, its events and
//! events per second (of the median)
//! (`bench/vs_ns2.py` reports it as the engine's time; `make bench`'s callgrind gate runs
//! it under valgrind). The time is this thread's CPU time, which on a shared machine leaves
//! out the time other processes held the core; off Linux, wall time.
//!
//!     cargo run --release -p lastmile-core --example bench_run -- bench/scenarios/wifi.toml 5
//!     cargo run --release -p lastmile-core --example bench_run -- \
//!         python/lastmile/examples/tulip-basic.toml 5 base_station.agent=snoop

use std::path::Path;
use std::time::Instant;

use lastmile_core::scenario::load_path;
use lastmile_core::sim::{run, RunOptions};

/// CPU time of this thread so far, in seconds: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
/// to the nanosecond (the tick-based `/proc` counters move in 4 ms steps on some kernels).
#[cfg(target_os = "linux")]
fn thread_cpu_s() -> Option<f64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec (64-bit `time_t` on Linux's 64-bit ABIs).
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

#[cfg(not(target_os = "linux"))]
fn thread_cpu_s() -> Option<f64> {
    None
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
