//! Many flows in one run: `[[flow]]` entries with `count`, background traffic
//! that does not hold the run (WTCP §5, Table II's set-up), groups and fairness in the
//! summary, starts staggered or drawn from each flow's own stream.

use lastmile_core::metrics::{Column, FlowSetSummary, RunSummary};
use lastmile_core::scenario::{load_str, Format, Scenario};
use lastmile_core::sim::{run, RunOptions, RunOutput};

fn load(text: &str) -> Scenario {
    load_str(text, Format::Toml, "many.toml", &[]).expect("valid scenario")
}

fn run_ok(s: &Scenario, options: &RunOptions) -> RunOutput {
    run(s, options).expect("run succeeds")
}

/// WTCP Table II's set-up (§7): fh —1 Mbps, `buffer` packets— bs (the gateway, with WTCP)
/// —800 kbps— mh; 20 Tahoe connections fh → bs as background, one WTCP-served connection
/// fh → mh measured; windows fixed at 10 packets of 960 bytes.
fn table2(buffer: u32, measured_bytes: &str) -> Scenario {
    load(&format!(
        r#"
name = "wtcp-table2"
seed = 1
stop_time = "600s"

[topology]
preset = "chain"
wired = {{ rate = "1Mbps", delay = "10ms", queue = "{buffer}pkt" }}
wireless = {{ rate = "800kbps", delay = "10ms", queue = "1000pkt" }}

[base_station]
agent = "wtcp"

[[flow]]
name = "tcp"
group = "background"
background = true
count = 20
src = "fh"
dst = "bs"
stagger = "10ms"
tcp = {{ variant = "tahoe", mss = "960B", rwnd = "9600B", min_rto = "200ms" }}
app = {{ kind = "bulk", bytes = "1GB" }}

[[flow]]
name = "wtcp"
src = "fh"
dst = "mh"
tcp = {{ variant = "tahoe", mss = "960B", rwnd = "9600B", min_rto = "200ms" }}
app = {{ kind = "bulk", bytes = "{measured_bytes}" }}
"#
    ))
}

#[test]
fn wtcp_table2_background_connections_share_the_wire_and_do_not_hold_the_run() {
    let out = run_ok(&table2(50, "200KB"), &RunOptions::default());
    let s = &out.summary;
    assert_eq!(s.flows.len(), 21);
    assert_eq!(
        s.engine.stop_reason, "completed",
        "the measured flow ends the run"
    );
    assert!(s.engine.sim_time_s < 600.0);
    let measured = s.flows.last().unwrap();
    assert_eq!(measured.name, "wtcp");
    assert!(measured.completed);
    assert_eq!(s.flows[0].name, "tcp.1");
    assert_eq!(s.flows[19].name, "tcp.20");
    let ports_apart = s.flows[..20].iter().all(|f| f.bytes_delivered > 0);
    assert!(
        ports_apart,
        "every background connection delivered: {:?}",
        s.flows
    );

    let bg = s.groups.get("background").expect("background group");
    assert!(bg.background);
    assert_eq!((bg.stats.flows, bg.stats.completed), (20, 0));
    let tcp_mean = s.flows[..20].iter().map(|f| f.throughput_bps).sum::<f64>() / 20.0;
    assert!((bg.stats.throughput_bps_mean - tcp_mean).abs() < 1e-9 * tcp_mean);
    // Together they fill most of the 1 Mbps wire beside the measured flow.
    assert!(bg.stats.throughput_bps_sum > 0.5e6, "{bg:?}");
    let wtcp = s.groups.get("wtcp").expect("measured group");
    assert_eq!(
        (wtcp.stats.flows, wtcp.stats.jain_index),
        (1, Some(1.0)),
        "a group of one is perfectly fair"
    );
    let all = s.fairness.as_ref().expect("fairness over all flows");
    assert_eq!(all.flows, 21);
    assert_eq!(all.jain_index, FlowSetSummary::of(&s.flows).jain_index);
}

#[test]
fn the_summary_keeps_groups_apart_by_name_and_a_single_flow_run_as_it_was() {
    let out = run_ok(&table2(50, "50KB"), &RunOptions::default());
    let json = serde_json::to_value(&out.summary).unwrap();
    let groups = json["groups"].as_object().expect("groups keyed by name");
    let names: Vec<&String> = groups.keys().collect();
    assert_eq!(names, ["background", "wtcp"], "order of first appearance");
    assert_eq!(groups["background"]["flows"], 20);
    assert_eq!(groups["background"]["background"], true);
    assert_eq!(json["flows"][0]["group"], "background");
    assert!(json["fairness"]["jain_index"].as_f64().unwrap() <= 1.0);

    let one = load(
        r#"
name = "one"
[topology]
preset = "chain"
wired = { rate = "10Mbps" }
wireless = { rate = "1Mbps" }
[[flow]]
src = "fh"
dst = "mh"
app = { kind = "bulk", bytes = "20KB" }
"#,
    );
    let json = serde_json::to_value(run_ok(&one, &RunOptions::default()).summary).unwrap();
    for key in ["groups", "fairness"] {
        assert!(json.get(key).is_none(), "{key} in a run of one flow");
    }
    assert!(json["flows"][0].get("group").is_none());
}

/// Ten flows to ten mobiles of a `wlan` cell, starting at random within the first second.
fn jittered(seed: u64) -> Scenario {
    load(&format!(
        r#"
name = "jitter"
seed = {seed}
stop_time = "60s"
[topology]
preset = "wlan"
mobiles = 10
wired = {{ rate = "10Mbps", delay = "1ms" }}
wireless = {{ rate = "11Mbps", mac = {{ kind = "dcf", phy = "802.11b" }} }}
[[flow]]
src = "fh"
dst = "mh*"
start_jitter = "1s"
app = {{ kind = "bulk", bytes = "20KB" }}
"#
    ))
}

/// Each flow's first segment's time, from the `seq` trace.
fn first_sends(out: &RunOutput) -> Vec<f64> {
    let t = out.traces.iter().find(|t| t.name == "seq").expect("seq");
    let (Some(Column::F64(time)), Some(Column::U32(flow))) = (t.column("time_s"), t.column("flow"))
    else {
        panic!("seq columns");
    };
    let mut first = vec![f64::INFINITY; 10];
    for (t, f) in time.iter().zip(flow) {
        first[*f as usize] = first[*f as usize].min(*t);
    }
    first
}

#[test]
fn start_jitter_gives_each_flow_its_own_start_from_its_own_stream() {
    let options = RunOptions {
        traces: vec!["seq".into()],
        ..Default::default()
    };
    let a = first_sends(&run_ok(&jittered(1), &options));
    assert!(a.iter().all(|t| (0.0..1.1).contains(t)), "{a:?}");
    let mut distinct = a.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert_eq!(distinct.len(), 10, "{a:?}");
    assert_eq!(
        a,
        first_sends(&run_ok(&jittered(1), &options)),
        "same seed, same starts"
    );
    assert_ne!(a, first_sends(&run_ok(&jittered(2), &options)));
}

#[test]
fn every_mobile_of_the_cell_gets_its_flow_and_all_complete() {
    let out = run_ok(&jittered(3), &RunOptions::default());
    let s: &RunSummary = &out.summary;
    let dsts: Vec<&str> = s.flows.iter().map(|f| f.dst.as_str()).collect();
    assert_eq!(
        dsts,
        ["mh1", "mh2", "mh3", "mh4", "mh5", "mh6", "mh7", "mh8", "mh9", "mh10"]
    );
    assert!(s
        .flows
        .iter()
        .all(|f| f.completed && f.group.as_deref() == Some("flow0")));
    assert_eq!(s.engine.stop_reason, "completed");
}
