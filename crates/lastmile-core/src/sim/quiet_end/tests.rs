//! Frames that end without an event change nothing but the number of events: every run
//! below is made twice, once with every frame's end an event and once with quiet ends
//! allowed, and the two must process the same events other than `TxDone`, in the same
//! order at the same times with the same packets, and end with the same summary (but for
//! its event count) and the same traces. The runs are the built-in examples and a sweep of
//! small topologies built for ties: round rates and delays, flows both ways starting
//! together, so that events meet at the same nanosecond and the provisional places of
//! early arrivals must move (`engine::provisional`).

use crate::metrics::{RunSummary, TraceTable};
use crate::scenario::{load_path, load_str, Format, Scenario};
use crate::sim::build::build;
use crate::sim::report::summarize;
use crate::sim::world::{Event, Propagating, StopReason};
use crate::sim::RunOptions;

/// One run: the events other than `TxDone` as (time, what, packet id), the `TxDone`
/// events counted, the summary without its event count, the traces.
struct Outcome {
    log: Vec<(u64, String, u64)>,
    tx_done: u64,
    summary: RunSummary,
    traces: Vec<TraceTable>,
    moved: u64,
    refused: u64,
}

/// Runs `s` as `World::run` does, event by event, logging each; `quiet`: with frames'
/// ends without events allowed.
fn run_logged(s: &Scenario, seed: u64, quiet: bool) -> Outcome {
    let options = RunOptions {
        traces: vec!["seq".into(), "cwnd".into(), "rtt".into()],
        ..RunOptions::default()
    };
    let plan = crate::scenario::plan(s).unwrap_or_else(|e| panic!("{}: {e}", s.name));
    let mut w = build(&plan, &options, seed).unwrap_or_else(|e| panic!("{}: {e}", s.name));
    if quiet {
        w.allow_quiet_ends();
    }
    let (mut log, mut tx_done) = (Vec::new(), 0);
    let reason = loop {
        if w.flows.is_empty() || w.flows_done == w.flows_to_finish {
            break StopReason::Completed;
        }
        let Some((now, event)) = w.queue.pop_until(w.stop_time) else {
            break StopReason::StopTime;
        };
        let t = now.as_nanos();
        match event {
            Event::TxDone { .. } => tx_done += 1,
            Event::Propagated { link, dir } => {
                let &Propagating { at, slot, .. } = w.links[link.index()].propagating[dir.index()]
                    .front()
                    .expect("a packet propagates");
                assert_eq!(at, now);
                let id = w.packets.get(slot).id.0;
                log.push((t, format!("propagated {} {}", link.0, dir.index()), id));
            }
            Event::Arrive { node, slot } => {
                log.push((t, format!("arrive {}", node.0), w.packets.get(slot).id.0));
            }
            other => log.push((t, format!("{other:?}"), 0)),
        }
        w.dispatch(now, event)
            .unwrap_or_else(|e| panic!("{}: {e}", s.name));
    };
    let (end, boundary) = match reason {
        StopReason::StopTime => (
            w.stop_time,
            crate::engine::EventQueue::<Event>::place(w.stop_time, u64::MAX),
        ),
        _ => (w.queue.now(), w.queue.current()),
    };
    w.settle_passed(boundary);
    let mut summary = summarize(&w, &s.name, seed, end, reason, 0.0);
    summary.engine.events = 0;
    let mut traces = std::mem::take(&mut w.traces).into_tables();
    traces.extend(w.agents.take_trace_table());
    traces.extend(w.mobility.take_trace_table());
    let (moved, refused) = w.queue.provisional_counts();
    Outcome {
        log,
        tx_done,
        summary,
        traces,
        moved,
        refused,
    }
}

/// Runs `s` both ways and checks they agree; returns the quiet run's (TxDone events
/// saved, moves, refusals).
fn same_both_ways(s: &Scenario, seed: u64) -> (u64, u64, u64) {
    let every = run_logged(s, seed, false);
    let quiet = run_logged(s, seed, true);
    assert_eq!(every.moved + every.refused, 0);
    assert_eq!(every.log.len(), quiet.log.len(), "{}: events", s.name);
    if let Some(i) = (0..every.log.len()).find(|&i| every.log[i] != quiet.log[i]) {
        panic!(
            "{} (seed {seed}): event {i} differs: every end an event {:?}, quiet ends {:?}",
            s.name, every.log[i], quiet.log[i]
        );
    }
    assert_eq!(every.summary, quiet.summary, "{}: summary", s.name);
    assert!(every.traces == quiet.traces, "{}: traces", s.name);
    assert!(quiet.tx_done <= every.tx_done);
    (every.tx_done - quiet.tx_done, quiet.moved, quiet.refused)
}

#[test]
fn the_examples_run_the_same_events_with_fewer_frame_ends() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/lastmile/examples");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 8);
    let mut saved = 0;
    for path in names {
        // Shortened where an example is long: the events, not the run's length, matter.
        let s = load_path(&path, &["flow.0.app.bytes=300KB".to_string()])
            .or_else(|_| load_path(&path, &[]))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        saved += same_both_ways(&s, s.seed).0;
    }
    assert!(saved > 0);
}

/// A small deterministic generator (the sweep's dice).
struct Dice(u64);

impl Dice {
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        from[((self.0 >> 33) % from.len() as u64) as usize]
    }
}

/// A diamond of four nodes with round rates and delays, and flows both ways.
fn tie_scenario(k: u64) -> String {
    let mut d = Dice(k * 7919 + 1);
    let mut text = format!(
        "name = \"ties-{k}\"\nseed = {k}\nstop_time = \"30s\"\n[topology]\nnodes = [\"a\", \"b\", \"c\", \"d\"]\n"
    );
    for (i, (from, to)) in [("a", "b"), ("b", "c"), ("c", "d"), ("b", "d")]
        .into_iter()
        .enumerate()
    {
        let errors = d.pick(&["", "", "errors = { model = \"per\", per = 0.05 }\n"]);
        let aqm = d.pick(&["", "", "", "aqm = { kind = \"red\" }\n"]);
        text += &format!(
            "[[topology.links]]\nname = \"l{i}\"\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"{}\"\ndelay = \"{}\"\nqueue = \"{}\"\n{errors}{aqm}",
            d.pick(&["1Mbps", "2Mbps", "4Mbps", "8Mbps"]),
            d.pick(&["1ms", "2ms", "4ms", "1us", "0s"]),
            d.pick(&["2pkt", "5pkt", "20pkt"]),
        );
    }
    let flows = [("a", "d"), ("d", "a"), ("a", "c"), ("c", "a"), ("b", "d")];
    for (src, dst) in flows {
        text += &format!(
            "[[flow]]\nsrc = \"{src}\"\ndst = \"{dst}\"\nstart = \"{}\"\ntcp = {{ variant = \"{}\", mss = \"{}\", ack = \"{}\" }}\napp = {{ kind = \"bulk\", bytes = \"{}\" }}\n",
            d.pick(&["0s", "0s", "1ms", "2ms"]),
            d.pick(&["newreno", "reno", "sack"]),
            d.pick(&["1000B", "1000B", "500B"]),
            d.pick(&["every", "delayed"]),
            d.pick(&["50KB", "100KB", "200KB"]),
        );
    }
    text
}

#[test]
fn topologies_full_of_ties_run_the_same_events_and_move_early_arrivals() {
    let (mut saved, mut moved, mut refused) = (0, 0, 0);
    for k in 0..60 {
        let text = tie_scenario(k);
        let s = load_str(&text, Format::Toml, "ties.toml", &[])
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        let (a, b, c) = same_both_ways(&s, k);
        (saved, moved, refused) = (saved + a, moved + b, refused + c);
    }
    assert!(saved > 0, "no frame ended without an event");
    assert!(
        moved > 0,
        "no early arrival had to move: the sweep tests too little"
    );
    assert!(
        refused > 0,
        "no watch was refused: the sweep tests too little"
    );
}

/// A run stopped between a quiet frame's end and the next event counts the frame as a
/// run with the end's event does: the connection's first frame (its SYN), dropped by the
/// link, ends 0.35 ms into a run stopped at 9 ms, and nothing else happens before the stop
/// (the SYN's retransmission waits for the initial RTO).
#[test]
fn a_frame_ended_quietly_before_the_stop_time_is_counted() {
    let text = r#"
name = "stop-after-a-quiet-end"
stop_time = "9ms"
[topology]
nodes = ["a", "b"]
[[topology.links]]
from = "a"
to = "b"
rate = "1Mbps"
delay = "10ms"
errors = { model = "drop_list", packets = [1] }
[[flow]]
src = "a"
dst = "b"
tcp = { variant = "newreno", mss = "1000B" }
app = { kind = "bulk", bytes = "10KB" }
"#;
    let s = load_str(text, Format::Toml, "stop.toml", &[]).expect("loads");
    same_both_ways(&s, 1);
    let quiet = run_logged(&s, 1, true);
    assert_eq!(quiet.tx_done, 0, "the frame's end was quiet");
    let link = &quiet.summary.links[0];
    assert_eq!((link.frames_sent, link.frames_lost), (1, 1));
}

/// The world the tests use must not differ from `World::run`'s in what it allows.
#[test]
fn a_run_allows_quiet_ends_and_counts_the_same_as_the_logged_loop() {
    let text = tie_scenario(3);
    let s = load_str(&text, Format::Toml, "ties.toml", &[]).expect("loads");
    let out = crate::sim::run(&s, &RunOptions::default()).expect("runs");
    let logged = run_logged(&s, 3, true);
    let mut summary = out.summary;
    summary.engine.events = 0;
    summary.engine.wall_s = 0.0;
    summary.scenario = serde_json::Value::Null;
    assert_eq!(summary, logged.summary);
}
