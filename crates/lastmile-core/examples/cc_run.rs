//! One transfer over the TULIP chain (10 Mbps, 1 ms wire; 1 Mbps hop with a packet error
//! rate; 1400-byte segments, 42 KB window, NewReno recovery, the default 1 ms timer clock:
//! with the seeds' 500 ms clock every RTT sample is a whole tick and the delay-based
//! controllers and BBR see no delay) with a chosen congestion control, for measuring what
//! each algorithm costs (`validation/cc_cost.sh` runs it under callgrind):
//!
//!     cargo run --release -p lastmile-core --example cc_run -- cubic 10MB 0.01
//!
//! Prints the engine's events, the simulated time and the flow's throughput.

use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};

fn main() {
    let mut args = std::env::args().skip(1);
    let cc = args.next().unwrap_or_else(|| "reno".into());
    let size = args.next().unwrap_or_else(|| "10MB".into());
    let per = args.next().unwrap_or_else(|| "0.01".into());
    let text = format!(
        r#"
name = "cc-{cc}-{size}"
seed = 1
stop_time = "1000000s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "1ms", queue = "100pkt" }}
wireless = {{ rate = "1Mbps", delay = "1us", errors = {{ model = "per", per = {per} }} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ recovery = "newreno", cc = "{cc}", mss = "1400B", rwnd = "42KB" }}
app = {{ kind = "bulk", bytes = "{size}" }}
"#
    );
    let scenario = load_str(&text, Format::Toml, "cc_run", &[]).expect("scenario");
    let out = run(&scenario, &RunOptions::default()).expect("run");
    let f = &out.summary.flows[0];
    println!(
        "cc={cc} size={size} per={per} events={} sim_time_s={:.1} completed={} throughput_bps={:.0} timeouts={}",
        out.summary.engine.events,
        out.summary.engine.sim_time_s,
        f.completed,
        f.throughput_bps,
        f.tcp_timeouts,
    );
}
