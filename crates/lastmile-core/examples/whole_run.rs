//! Whole-run benchmark: wall time, events per second and peak memory of the reference
//! transfer (TULIP chain, 1 Mbps hop, 1400-byte segments, 42 KB window, PER 5 %, NewReno)
//! at a given size. Run one size per process so peak RSS is that run's own:
//!
//!     cargo run --release -p lastmile-core --example whole_run -- 10MB
//!     cargo run --release -p lastmile-core --example whole_run -- 1GB
//!
//! A third argument picks the wireless hop: `p2p` (the default above), or the TULIP
//! experiment over a cell, `tulip-fama` / `tulip-dcf` / `tulip-ideal` (TULIP link layer,
//! Reno, BER 15e-6 on frames in both directions, 802.11 framing at 1 Mbps; `tulip-fama` is
//! the paper's own set-up, TULIP with MAC acceleration over FAMA-NCS):
//!
//!     cargo run --release -p lastmile-core --example whole_run -- 10MB 5 tulip-fama

use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let size = std::env::args().nth(1).unwrap_or_else(|| "10MB".into());
    let repeats: usize = std::env::args()
        .nth(2)
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let hop = std::env::args().nth(3).unwrap_or_else(|| "p2p".into());
    let (wireless, variant) = match hop.as_str() {
        "p2p" => (
            r#"{ rate = "1Mbps", delay = "1us", errors = { model = "per", per = 0.05 } }"#
                .to_string(),
            "newreno",
        ),
        "tulip-fama" | "tulip-dcf" | "tulip-ideal" => (
            format!(
                r#"{{ rate = "1Mbps", delay = "1us", mac = "{}", link = "tulip", errors = {{ model = "ber", ber = 15e-6 }}, reverse_errors = {{ model = "ber", ber = 15e-6 }} }}"#,
                &hop["tulip-".len()..]
            ),
            "reno",
        ),
        other => panic!("unknown hop {other}: expected p2p, tulip-fama, tulip-dcf or tulip-ideal"),
    };
    let text = format!(
        r#"
name = "chain-{hop}-{variant}-{size}"
seed = 1
stop_time = "1000000s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "1ms", queue = "100pkt" }}
wireless = {wireless}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "{variant}", mss = "1400B", rwnd = "42KB", timer_granularity = "500ms" }}
app = {{ kind = "bulk", bytes = "{size}" }}
"#
    );
    let scenario = load_str(&text, Format::Toml, "whole_run", &[]).expect("scenario");
    let mut best = f64::INFINITY;
    let mut summary = None;
    for _ in 0..repeats.max(1) {
        let out = run(&scenario, &RunOptions::default()).expect("run");
        best = best.min(out.summary.engine.wall_s);
        summary = Some(out.summary);
    }
    let s = summary.unwrap();
    let f = &s.flows[0];
    println!(
        "hop={hop} size={size} best_wall_ms={:.2} events={} events_per_s={:.3e} sim_time_s={:.1} \
         completed={} throughput_bps={:.0} timeouts={} peak_rss_kib={}",
        best * 1e3,
        s.engine.events,
        s.engine.events as f64 / best,
        s.engine.sim_time_s,
        f.completed,
        f.throughput_bps,
        f.tcp_timeouts,
        peak_rss_kib().map_or("?".into(), |k| k.to_string()),
    );
}
