//! Many-flows benchmark: the cost of one run with N concurrent flows, in
//! a process of its own so that its peak RSS is that run's. Prints one JSON object:
//! events, wall and CPU time of the run (building the world, the event loop, the summary),
//! events/s, ns/event and CPU seconds per simulated second (by CPU time, which on a shared
//! machine leaves out the time other processes held the core), and peak RSS.
//!
//!     cargo run --release -p lastmile-core --example many_flows -- wired 1000 [SIM_S]
//!     cargo run --release -p lastmile-core --example many_flows -- cell 1000 [SIM_S]
//!
//! `wired`: one wired bottleneck, `src` —N × 10 Mbps, 1 ms— `r` —N × 1 Mbps, 10 ms, 4N
//! packets (at least 100)— `dst`, N bulk NewReno flows from `src` to `dst`: each flow's fair share
//! stays 1 Mbps whatever N, so the per-flow behaviour is the same and only the number of
//! flows changes. `cell`: one 802.11b cell (the `wlan` preset, DCF at 11 Mbps, 1 % PER on
//! data frames) with min(N, 100) mobiles behind a 100 Mbps wired link, N bulk NewReno
//! flows from the fixed host to the mobiles in turn: the cell's capacity is shared by more
//! and more flows. In both, flow k starts at k/N s (`stagger`), so the flows start within
//! the first second, and the run lasts `SIM_S` simulated seconds (default 10).
//! `bench/many_flows.py` runs the table of 1 to 10,000 flows and writes `docs/performance.md`'s.

use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};

/// This thread's CPU time in seconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, Linux): on a
/// shared machine it leaves out the time other processes held the core.
fn thread_cpu_s() -> f64 {
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
    // SAFETY: `t` is a valid, writable timespec; the call only writes it.
    if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return f64::NAN;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The scenario of `kind` with `n` flows over `sim_s` simulated seconds.
fn scenario(kind: &str, n: u32, sim_s: f64) -> String {
    let stagger_ns = 1_000_000_000 / u64::from(n);
    let tcp = r#"tcp = { variant = "newreno", mss = "1460B", rwnd = "64KB" }"#;
    let app = r#"app = { kind = "bulk", bytes = "100GB" }"#;
    let (topology, src, dst) = match kind {
        "wired" => (
            format!(
                r#"[topology]
nodes = ["src", "r", "dst"]
links = [
  {{ from = "src", to = "r", rate = "{access}Mbps", delay = "1ms", queue = "{q}pkt" }},
  {{ from = "r", to = "dst", rate = "{n}Mbps", delay = "10ms", queue = "{q}pkt" }},
]"#,
                access = 10 * n,
                q = (4 * n).max(100)
            ),
            "src",
            "\"dst\"".to_string(),
        ),
        "cell" => (
            format!(
                r#"[topology]
preset = "wlan"
mobiles = {m}
wired = {{ rate = "100Mbps", delay = "5ms", queue = "1000pkt" }}
wireless = {{ rate = "11Mbps", delay = "1us", mac = {{ kind = "dcf", phy = "802.11b" }}, queue = "1000pkt",
             errors = {{ model = "per", per = 0.01 }} }}"#,
                m = n.min(100)
            ),
            "fh",
            "\"mh*\"".to_string(),
        ),
        other => panic!("unknown topology {other}: expected wired or cell"),
    };
    format!(
        r#"name = "many-flows-{kind}-{n}"
seed = 1
stop_time = "{sim_s}s"
{topology}
[[flow]]
name = "bulk"
count = {n}
src = "{src}"
dst = {dst}
stagger = "{stagger_ns}ns"
{tcp}
{app}
"#
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "wired".into());
    let n: u32 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let sim_s: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(10.0);
    let text = scenario(&kind, n, sim_s);
    let scenario = load_str(&text, Format::Toml, "many_flows", &[]).expect("scenario");
    let cpu_before = thread_cpu_s();
    let out = run(&scenario, &RunOptions::default()).expect("run");
    let cpu = thread_cpu_s() - cpu_before;
    let s = &out.summary;
    let wall = s.engine.wall_s;
    let delivered: u64 = s.flows.iter().map(|f| f.bytes_delivered).sum();
    let fairness = s
        .fairness
        .as_ref()
        .and_then(|f| f.jain_index)
        .unwrap_or(1.0);
    println!(
        "{{\"topology\": \"{kind}\", \"flows\": {n}, \"sim_s\": {sim_s}, \"events\": {}, \
         \"wall_s\": {wall:.4}, \"cpu_s\": {cpu:.4}, \"events_per_s\": {:.0}, \
         \"cpu_per_sim_s\": {:.6}, \"ns_per_event\": {:.1}, \"peak_rss_kib\": {}, \
         \"delivered_bytes\": {delivered}, \"jain_index\": {fairness:.4}}}",
        s.engine.events,
        s.engine.events as f64 / cpu,
        cpu / s.engine.sim_time_s,
        cpu * 1e9 / s.engine.events as f64,
        peak_rss_kib().unwrap_or(0),
    );
}
