//! Criterion benchmarks: the event queue alone, and a whole run of the issue's reference
//! scenario (10 MB over the TULIP chain, 1 Mbps hop, 1400-byte segments, 42 KB window,
//! PER 5 %, NewReno). ns-3 3.44 takes about 0.32 s for that run on the project's machine.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use lastmile_core::engine::{EventQueue, RngStream, SimDuration, SimTime};
use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};

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

criterion_group!(benches, event_queue, whole_run);
criterion_main!(benches);
