//! Criterion benchmarks: the event queue alone, a whole run of the issue's reference
//! scenario (10 MB over the TULIP chain, 1 Mbps hop, 1400-byte segments, 42 KB window,
//! PER 5 %, NewReno; ns-3 3.44 takes about 0.32 s for that run on the project's machine),
//! and large explicit topologies: loading and checking (building the world,
//! routes included) a chain of 40,000 and 100,000 nodes, which must stay linear.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use lastmile_core::engine::{EventQueue, RngStream, SimDuration, SimTime};
use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{check, run, RunOptions};

const REFERENCE: &str = r#"
name = "chain-per5-newreno"
seed = 1
stop_time = "3000s"
[topology]
preset = "chain"
wired = { rate = "10Mbps", delay = "1ms", queue = "100pkt" }
wireless = { rate = "1Mbps", delay = "1us", errors = { model = "per", per = 0.05 } }
[[flow]]
src = "fh"
dst = "mh"
tcp = { variant = "newreno", mss = "1400B", rwnd = "42KB", timer_granularity = "500ms" }
app = { kind = "bulk", bytes = "10MB" }
"#;

fn event_queue(c: &mut Criterion) {
    const N: u64 = 100_000;
    let mut group = c.benchmark_group("event_queue");
    group.throughput(Throughput::Elements(N));
    group.bench_function("hold_1000_pending", |b| {
        b.iter(|| {
            // The "hold" model: keep ~1,000 events pending, pop one, push one a random
            // (exponential) distance ahead — the shape of a network simulation's queue.
            let mut q = EventQueue::new();
            let mut rng = RngStream::derive(1, "bench");
            for i in 0..1000u64 {
                q.schedule(SimTime::from_nanos(i * 1000), i).unwrap();
            }
            for i in 0..N {
                let (now, _) = q.pop().unwrap();
                let gap = SimDuration::from_nanos(rng.exponential(1e6) as u64);
                q.schedule(now + gap, black_box(i)).unwrap();
            }
            q.len()
        })
    });
    group.finish();
}

fn whole_run(c: &mut Criterion) {
    let scenario = load_str(REFERENCE, Format::Toml, "bench", &[]).unwrap();
    let events = run(&scenario, &RunOptions::default())
        .unwrap()
        .summary
        .engine
        .events;
    let mut group = c.benchmark_group("whole_run");
    group.sample_size(20);
    group.throughput(Throughput::Elements(events));
    group.bench_function("chain_10MB_per5_newreno", |b| {
        b.iter(|| run(black_box(&scenario), &RunOptions::default()).unwrap())
    });
    group.finish();
}

/// An explicit chain of `n` nodes, one 1 Gbps link between neighbours, and one flow over
/// its first 50 hops.
fn long_chain(n: usize) -> String {
    let nodes: Vec<String> = (0..n).map(|i| format!("\"n{i}\"")).collect();
    let mut text = format!(
        "name = \"long\"\n[topology]\nnodes = [{}]\n",
        nodes.join(", ")
    );
    for i in 0..n - 1 {
        text.push_str(&format!(
            "[[topology.links]]\nfrom = \"n{i}\"\nto = \"n{}\"\nrate = \"1Gbps\"\n",
            i + 1
        ));
    }
    text.push_str(
        "[[flow]]\nsrc = \"n0\"\ndst = \"n50\"\napp = { kind = \"bulk\", bytes = \"1MB\" }\n",
    );
    text
}

fn topology(c: &mut Criterion) {
    let mut group = c.benchmark_group("topology");
    group.sample_size(10);
    for n in [40_000, 100_000] {
        let text = long_chain(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(format!("load_{n}_nodes"), |b| {
            b.iter(|| load_str(black_box(&text), Format::Toml, "big", &[]).unwrap())
        });
        let scenario = load_str(&text, Format::Toml, "big", &[]).unwrap();
        group.bench_function(format!("check_{n}_nodes"), |b| {
            b.iter(|| check(black_box(&scenario), &RunOptions::default()).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, event_queue, whole_run, topology);
criterion_main!(benches);
