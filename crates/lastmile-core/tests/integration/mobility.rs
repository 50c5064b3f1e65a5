//! Mobility end to end: handoffs with and without outage, stale routes at
//! the gateway (WTCP §6), M-TCP's persist, fast retransmit after handoff, and every agent
//! across many random handoffs.

use lastmile_core::metrics::{Column, FlowSummary, MobileSummary, RunSummary, TraceTable};
use lastmile_core::scenario::{load_str, Format, Scenario};
use lastmile_core::sim::{run, RunOptions};

/// fh —10 Mbps, 20 ms— gw —10 Mbps, 2 ms— bs1, bs2 —2 Mbps, 1 ms— mh1, one handoff at
/// 2 s, a window-limited NewReno transfer (no congestion loss).
const CELLS: &str = r#"
name = "handoff"
stop_time = "30s"
[topology]
preset = "cells"
cells = 2
wired = { rate = "10Mbps", delay = "20ms" }
backhaul = { rate = "10Mbps", delay = "2ms" }
wireless = { rate = "2Mbps", delay = "1ms", queue = "20pkt" }
[[mobile]]
node = "mh1"
residence = { kind = "schedule", at = ["2s"] }
[[flow]]
src = "fh"
dst = "mh1"
tcp = { variant = "newreno", mss = "1000B", rwnd = "10KB", timer_granularity = "10ms" }
app = { kind = "bulk", bytes = "1MB" }
"#;

fn scenario(text: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(text, Format::Toml, "handoff.toml", &sets).unwrap_or_else(|e| panic!("{e}"))
}

fn summary(s: &Scenario) -> RunSummary {
    run(s, &RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .summary
}

fn flow(s: &RunSummary) -> &FlowSummary {
    &s.flows[0]
}

fn mobile(s: &RunSummary) -> &MobileSummary {
    &s.mobiles[0]
}

#[test]
fn an_overlapping_handoff_with_no_stale_route_loses_nothing() {
    for wireless in [
        "topology.wireless.mac=p2p",
        "topology.wireless={ rate = \"2Mbps\", delay = \"1us\", mac = \"dcf\", queue = \"20pkt\" }",
    ] {
        let s = summary(&scenario(
            CELLS,
            &[
                wireless,
                "mobile.0.overlap=500ms",
                "mobile.0.route_update_delay=0s",
            ],
        ));
        let (f, m) = (flow(&s), mobile(&s));
        assert_eq!(m.handoffs, 1, "{wireless}");
        assert_eq!(m.outage_s, 0.0);
        assert_eq!(
            m.handoff_drops, 0,
            "{wireless}: nothing lost to the handoff"
        );
        assert!(f.completed);
        assert_eq!(
            (f.tcp_timeouts, f.tcp_retransmits),
            (0, 0),
            "{wireless}: no retransmission at all"
        );
    }
}

#[test]
fn a_handoff_without_overlap_loses_what_the_old_base_station_held() {
    let s = summary(&scenario(CELLS, &["mobile.0.route_update_delay=0s"]));
    let m = mobile(&s);
    assert!(m.handoff_drops > 0 && m.handoff_drops <= 10, "{m:?}");
    assert!(flow(&s).completed);
}

/// Data frames the mobile received intact over its wireless hops (`wireless_tx`).
fn data_frames_received(traces: &[TraceTable]) -> usize {
    let t = traces
        .iter()
        .find(|t| t.name == "wireless_tx")
        .expect("wireless_tx trace");
    let (Some(Column::Bool(data)), Some(Column::Bool(lost))) = (t.column("data"), t.column("lost"))
    else {
        panic!("wireless_tx columns");
    };
    data.iter()
        .zip(lost)
        .filter(|&(&d, &l)| d == 1 && l == 0)
        .count()
}

#[test]
fn packets_sent_to_the_old_base_station_before_the_routing_update_are_handoff_losses() {
    let mut drops = Vec::new();
    for update in ["0s", "300ms", "2s"] {
        let s = scenario(
            CELLS,
            &[
                &format!("mobile.0.route_update_delay={update}"),
                "flow.0.tcp.min_rto=200ms",
            ],
        );
        let (summary, traces) = traced(&s, &["wireless_tx"]);
        assert!(
            summary.links.iter().all(|l| l.queue_drops == 0),
            "no congestion loss"
        );
        let f = flow(&summary);
        assert!(f.completed);
        // Loss-free links: every data segment the source sent either reached the mobile
        // or was lost to the handoff, and counted so.
        let lost = f.tcp_segments_sent - data_frames_received(&traces) as u64;
        let m = mobile(&summary);
        assert_eq!(
            m.handoff_data_drops, lost,
            "route update after {update}: {m:?}"
        );
        drops.push(m.handoff_data_drops);
    }
    // The later the gateway learns, the more of the source's (re)transmissions go to the
    // old base station: its timeouts' retransmissions within the stale period too.
    assert!(drops[0] < drops[1] && drops[1] < drops[2], "{drops:?}");
}

fn traced(s: &Scenario, names: &[&str]) -> (RunSummary, Vec<TraceTable>) {
    let options = RunOptions {
        traces: names.iter().map(|n| n.to_string()).collect(),
        ..RunOptions::default()
    };
    let out = run(s, &options).unwrap_or_else(|e| panic!("{e}"));
    (out.summary, out.traces)
}

fn f64s(t: &TraceTable, name: &str) -> Vec<f64> {
    match t.column(name) {
        Some(Column::F64(v)) => v.clone(),
        Some(Column::U64(v)) => v.iter().map(|&x| x as f64).collect(),
        Some(Column::OptU64 { values, .. }) => values.iter().map(|&x| x as f64).collect(),
        other => panic!("no column {name}: {other:?}"),
    }
}

/// The source's cwnd at each change: (time, cwnd bytes).
fn cwnd(traces: &[TraceTable]) -> Vec<(f64, f64)> {
    let t = traces
        .iter()
        .find(|t| t.name == "cwnd")
        .expect("cwnd trace");
    f64s(t, "time_s")
        .into_iter()
        .zip(f64s(t, "cwnd_bytes"))
        .collect()
}

#[test]
fn mtcp_sender_enters_persist_and_leaves_it_without_a_timeout_or_a_cwnd_collapse() {
    let base = [
        "mobile.0.handoff_delay=1s",
        "mobile.0.route_update_delay=10ms",
        "flow.0.app.bytes=4MB",
    ];
    let plain = summary(&scenario(CELLS, &base));
    assert!(
        flow(&plain).tcp_timeouts >= 1,
        "without M-TCP the outage costs a timeout"
    );
    let mut sets = base.to_vec();
    sets.push("base_station=[{ node = \"gw\", agent = { kind = \"mtcp\" } }]");
    let (s, traces) = traced(&scenario(CELLS, &sets), &["cwnd", "handoff"]);
    let f = flow(&s);
    assert!(f.completed && !f.stalled);
    assert_eq!(f.tcp_timeouts, 0, "the sender persisted instead");
    assert_eq!(
        s.agent
            .as_ref()
            .and_then(|a| a.zero_window_advertisements()),
        Some(1)
    );
    let h = traces
        .iter()
        .find(|t| t.name == "handoff")
        .expect("handoff trace");
    assert_eq!(f64s(h, "time_s"), [2.0]);
    assert_eq!(f64s(h, "outage_s"), [1.0]);
    let w = cwnd(&traces);
    let before = w
        .iter()
        .rev()
        .find(|(t, _)| *t < 2.0)
        .expect("cwnd before")
        .1;
    let lowest_after = w
        .iter()
        .filter(|(t, _)| *t >= 2.0)
        .map(|&(_, c)| c)
        .fold(f64::MAX, f64::min);
    assert!(
        lowest_after >= before,
        "cwnd {before} then as low as {lowest_after}"
    );
}

#[test]
fn fast_retransmit_after_handoff_retransmits_without_a_timeout() {
    let base = [
        "mobile.0.handoff_delay=300ms",
        "mobile.0.route_update_delay=10ms",
        "flow.0.tcp.min_rto=1s",
    ];
    let plain = summary(&scenario(CELLS, &base));
    assert!(flow(&plain).tcp_timeouts >= 1);
    assert_eq!(flow(&plain).tcp_fast_retransmits, 0);
    let mut sets = base.to_vec();
    sets.push("mobile.0.tcp={ kind = \"fast_retransmit\", dupacks = 3 }");
    let s = summary(&scenario(CELLS, &sets));
    let f = flow(&s);
    assert!(f.completed);
    assert_eq!(f.tcp_timeouts, 0);
    assert_eq!(f.tcp_fast_retransmits, 1, "the three duplicate ACKs did it");
    assert!(f.longest_stall_s < flow(&plain).longest_stall_s);
    // Two duplicates are not enough for the sender's threshold of three.
    sets.pop();
    sets.push("mobile.0.tcp={ kind = \"fast_retransmit\", dupacks = 2 }");
    let two = summary(&scenario(CELLS, &sets));
    assert_eq!(flow(&two).tcp_fast_retransmits, 0);
    assert!(flow(&two).tcp_timeouts >= 1);
}

#[test]
fn freeze_tcp_persists_through_the_outage_and_resumes_on_its_acks() {
    let base = [
        "mobile.0.handoff_delay=1s",
        "mobile.0.route_update_delay=10ms",
        "flow.0.app.bytes=4MB",
    ];
    let mut sets = base.to_vec();
    sets.push("mobile.0.tcp={ kind = \"freeze\" }");
    let (s, traces) = traced(&scenario(CELLS, &sets), &["cwnd"]);
    let f = flow(&s);
    assert!(f.completed && !f.stalled);
    assert_eq!(f.tcp_timeouts, 0);
    let w = cwnd(&traces);
    let before = w
        .iter()
        .rev()
        .find(|(t, _)| *t < 2.0)
        .expect("cwnd before")
        .1;
    assert!(w
        .iter()
        .filter(|(t, _)| *t >= 2.0)
        .all(|&(_, c)| c >= before));
}

/// A mobile moving at random between three cells every second on average, 50 ms out of
/// reach each time, the gateway learning 20 ms later; lossy wireless hops. I-TCP's own
/// TCP has the WTCP experiments' 200 ms minimum RTO.
const RANDOM: &str = r#"
name = "roaming"
stop_time = "120s"
[topology]
preset = "cells"
cells = 3
wired = { rate = "10Mbps", delay = "20ms" }
backhaul = { rate = "10Mbps", delay = "2ms" }
wireless = { rate = "2Mbps", delay = "2ms", queue = "30pkt", errors = { model = "per", per = 0.02 } }
[[mobile]]
node = "mh1"
residence = { kind = "exponential", mean = "1s" }
next = "random"
handoff_delay = "50ms"
route_update_delay = "20ms"
[[flow]]
src = "fh"
dst = "mh1"
tcp = { variant = "newreno", mss = "1000B", rwnd = "16KB", timer_granularity = "10ms", min_rto = "200ms", timestamps = true }
app = { kind = "bulk", bytes = "500KB" }
"#;

/// I-TCP on every base station, its state transfer taking 100 ms (see
/// `itcp_state_transfers_at_one_handoff_a_second_back_the_source_off`).
const BS_ITCP_100MS: &str = "base_station=[{ node = \"bs1\", agent = { kind = \"itcp\", handoff_latency = \"100ms\", tcp = { min_rto = \"200ms\" } } }, { node = \"bs2\", agent = { kind = \"itcp\", handoff_latency = \"100ms\", tcp = { min_rto = \"200ms\" } } }, { node = \"bs3\", agent = { kind = \"itcp\", handoff_latency = \"100ms\", tcp = { min_rto = \"200ms\" } } }]";

#[test]
fn every_agent_delivers_every_byte_once_and_in_order_across_random_handoffs() {
    // Plain TCP, the two mobile-side settings, and each agent on the gateway or on every
    // base station (caches dropped or transferred; I-TCP's state always transferred).
    let agents = [
        "",
        "mobile.0.tcp={ kind = \"fast_retransmit\" }",
        "mobile.0.tcp={ kind = \"freeze\" }",
        "base_station=[{ node = \"gw\", agent = \"snoop\" }]",
        "base_station=[{ node = \"gw\", agent = \"wtcp\" }]",
        "base_station=[{ node = \"gw\", agent = { kind = \"itcp\", tcp = { min_rto = \"200ms\" } } }]",
        "base_station=[{ node = \"gw\", agent = \"mtcp\" }]",
        "base_station=[{ node = \"bs1\", agent = \"snoop\" }, { node = \"bs2\", agent = \"snoop\" }, { node = \"bs3\", agent = \"snoop\" }]",
        "base_station=[{ node = \"bs1\", agent = { kind = \"snoop\", handoff = \"transfer\" } }, { node = \"bs2\", agent = { kind = \"snoop\", handoff = \"transfer\" } }, { node = \"bs3\", agent = { kind = \"snoop\", handoff = \"transfer\" } }]",
        "base_station=[{ node = \"bs1\", agent = \"wtcp\" }, { node = \"bs2\", agent = \"wtcp\" }, { node = \"bs3\", agent = \"wtcp\" }]",
        "base_station=[{ node = \"bs1\", agent = { kind = \"wtcp\", handoff = \"transfer\" } }, { node = \"bs2\", agent = { kind = \"wtcp\", handoff = \"transfer\" } }, { node = \"bs3\", agent = { kind = \"wtcp\", handoff = \"transfer\" } }]",
        BS_ITCP_100MS,
    ];
    for agent in agents {
        let mut handoffs = 0;
        for seed in 1..=50u64 {
            let sets: Vec<&str> = [agent].into_iter().filter(|a| !a.is_empty()).collect();
            let mut s = scenario(RANDOM, &sets);
            s.seed = seed;
            // An invariant error (a byte delivered twice or out of order) fails the run.
            let out = run(&s, &RunOptions::default())
                .unwrap_or_else(|e| panic!("{agent:?} seed {seed}: {e}"));
            let f = &out.summary.flows[0];
            assert!(f.completed, "{agent:?} seed {seed}: {f:?}");
            assert!(!f.stalled, "{agent:?} seed {seed}: stalled {f:?}");
            handoffs += out.summary.mobiles[0].handoffs;
        }
        assert!(handoffs >= 100, "{agent:?}: only {handoffs} handoffs");
    }
}

#[test]
fn the_same_seed_moves_the_same_way_and_another_seed_does_not() {
    let mut s = scenario(RANDOM, &[]);
    let a = traced(&s, &["handoff"]).1;
    let b = traced(&s, &["handoff"]).1;
    s.seed = 2;
    let c = traced(&s, &["handoff"]).1;
    let times = |t: &[TraceTable]| f64s(&t[0], "time_s");
    assert_eq!(times(&a), times(&b));
    assert_ne!(times(&a), times(&c));
}

/// `CELLS` written out as nodes and links ("the same from explicit nodes
/// and links"), the wireless hops named as the preset names them.
const EXPLICIT: &str = r#"
name = "handoff"
stop_time = "30s"
[topology]
nodes = ["fh", "gw", "bs1", "bs2", "mh1"]
links = [
  { name = "wired", from = "fh", to = "gw", rate = "10Mbps", delay = "20ms" },
  { name = "backhaul1", from = "gw", to = "bs1", rate = "10Mbps", delay = "2ms" },
  { name = "backhaul2", from = "gw", to = "bs2", rate = "10Mbps", delay = "2ms" },
  { name = "cell1", from = "bs1", to = "mh1", rate = "2Mbps", delay = "1ms", queue = "20pkt", wireless = true },
  { name = "cell2", from = "bs2", to = "mh1", rate = "2Mbps", delay = "1ms", queue = "20pkt", wireless = true },
]
[[mobile]]
node = "mh1"
cells = ["cell1", "cell2"]
gateway = "gw"
residence = { kind = "schedule", at = ["2s"] }
[[flow]]
src = "fh"
dst = "mh1"
tcp = { variant = "newreno", mss = "1000B", rwnd = "10KB", timer_granularity = "10ms" }
app = { kind = "bulk", bytes = "1MB" }
"#;

#[test]
fn explicit_nodes_and_links_move_as_the_cells_preset_does() {
    let sets = [
        "mobile.0.handoff_delay=300ms",
        "mobile.0.route_update_delay=50ms",
    ];
    let preset = summary(&scenario(CELLS, &sets));
    let explicit = summary(&scenario(EXPLICIT, &sets));
    assert_eq!(mobile(&explicit).handoffs, 1);
    assert!(
        mobile(&explicit).handoff_data_drops > 0,
        "{:?}",
        mobile(&explicit)
    );
    assert_eq!(
        format!("{:?}", explicit.mobiles),
        format!("{:?}", preset.mobiles)
    );
    assert_eq!(
        format!("{:?}", explicit.flows),
        format!("{:?}", preset.flows)
    );
}

#[test]
fn fast_retransmit_after_handoff_needs_the_bsd_rule_once_the_timer_fired_in_the_outage() {
    // A 1 s handoff at 2.25 s against a 500 ms clock and a 1 s RTO: the sender's timer
    // fires at 3 s, inside the outage, and its retransmission is lost (the survey's case).
    let base = [
        "mobile.0.residence={ kind = \"schedule\", at = [\"2.25s\"] }",
        "mobile.0.handoff_delay=1s",
        "mobile.0.route_update_delay=1ms",
        "flow.0.tcp.timer_granularity=500ms",
        "mobile.0.tcp={ kind = \"fast_retransmit\", dupacks = 3 }",
    ];
    let guarded = summary(&scenario(CELLS, &base));
    assert_eq!(
        flow(&guarded).tcp_fast_retransmits,
        0,
        "RFC 6582: no fast retransmit"
    );
    assert!(flow(&guarded).longest_stall_s > 2.0, "{:?}", flow(&guarded));
    let mut sets = base.to_vec();
    sets.push("flow.0.tcp.fast_retransmit_after_timeout=true");
    let bsd = summary(&scenario(CELLS, &sets));
    let f = flow(&bsd);
    assert_eq!((f.tcp_timeouts, f.tcp_fast_retransmits), (1, 1), "{f:?}");
    assert!(
        f.longest_stall_s < 1.5,
        "recovered when the handoff completed: {f:?}"
    );
}

#[test]
fn itcp_state_transfers_at_one_handoff_a_second_back_the_source_off() {
    // The survey §2.2: I-TCP's state must move between base stations, handoffs "may take
    // several hundreds of milliseconds", "leading to degraded TCP performance". With the
    // default 300 ms transfer and a handoff a second on average, the new base station
    // discards the fixed host's segments until the state arrives: in seed 17 each of the
    // source's backed-off retransmissions falls into such a window, and it stays silent
    // for most of the transfer (RTO 1.6 s doubled to 25.6 s). With a 100 ms transfer none
    // does.
    let slow = BS_ITCP_100MS.replace("handoff_latency = \"100ms\", ", "");
    let mut s = scenario(RANDOM, &[&slow]);
    s.seed = 17;
    let f = summary(&s).flows[0].clone();
    assert!(f.completed && f.stalled, "{f:?}");
    assert!(f.tcp_timeouts >= 5 && f.longest_stall_s > 20.0, "{f:?}");
    let mut s = scenario(RANDOM, &[BS_ITCP_100MS]);
    s.seed = 17;
    let f = summary(&s).flows[0].clone();
    assert!(
        f.completed && !f.stalled && f.longest_stall_s < 5.0,
        "{f:?}"
    );
}
