//! Snoop end to end: its local retransmissions ahead of the base station's queue (TULIP
//! Exp. 5a's burst losses), and `variant = "ns2"` accepting only ns-2's own settings.
//! TULIP Table 1 and Snoop over FAMA-NCS at BER 0 are in `agents`.

use std::collections::BTreeMap;

use lastmile_core::metrics::{Column, TraceTable};
use lastmile_core::scenario::{load_str, Format, Scenario};
use lastmile_core::sim::{run, RunOptions};

fn load(text: &str) -> Result<Scenario, lastmile_core::scenario::ScenarioError> {
    load_str(text, Format::Toml, "snoop.toml", &[])
}

/// Column `name` of trace `t` as optional integers (absent: `None`).
fn opt_u64s(t: &TraceTable, name: &str) -> Vec<Option<u64>> {
    match t.column(name) {
        Some(Column::OptU64 { values, valid }) => values
            .iter()
            .zip(valid)
            .map(|(v, ok)| (*ok == 1).then_some(*v))
            .collect(),
        _ => panic!("column {name} is not optional integers"),
    }
}

/// Column `name` of trace `t` as booleans.
fn bools(t: &TraceTable, name: &str) -> Vec<bool> {
    match t.column(name) {
        Some(Column::Bool(v)) => v.iter().map(|b| *b == 1).collect(),
        _ => panic!("column {name} is not booleans"),
    }
}

/// TULIP Exp. 5a's path (fh —10 Mbps— bs —1 Mbps— mh, Reno, 1400-byte segments, 42 KB
/// window, bursts of `length` data frames lost every 64 KB) with Snoop at the base station,
/// over `mac` with no link layer; `snoop` is the agent's settings table.
fn burst_scenario(mac: &str, length: u32, snoop: &str) -> Scenario {
    load(&format!(
        r#"
name = "snoop-burst"
seed = 1
stop_time = "600s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "1ms", queue = "100pkt" }}
wireless = {{ rate = "1Mbps", delay = "1us", mac = "{mac}", link = "none",
             errors = {{ model = "burst", length = {length}, every = "64KB" }} }}
[base_station]
agent = "snoop"
snoop = {{ {snoop} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "reno", mss = "1400B", rwnd = "42KB", timer_granularity = "500ms" }}
app = {{ kind = "bulk", bytes = "2MB" }}
"#
    ))
    .expect("valid scenario")
}

/// For each data segment lost on the air, the new segments (never sent before) that went on
/// the air between its loss and its next transmission: what the repair waited behind.
fn new_frames_before_each_repair(s: &Scenario) -> Vec<usize> {
    let options = RunOptions {
        traces: vec!["wireless_tx".into()],
        ..RunOptions::default()
    };
    let out = run(s, &options).expect("run succeeds");
    let t = out
        .traces
        .iter()
        .find(|t| t.name == "wireless_tx")
        .expect("wireless_tx trace");
    let (offset, data, lost) = (opt_u64s(t, "offset"), bools(t, "data"), bools(t, "lost"));
    let mut first_sent: BTreeMap<u64, usize> = BTreeMap::new();
    let mut waiting: BTreeMap<u64, usize> = BTreeMap::new();
    let mut waits = Vec::new();
    let mut new_frames = 0;
    for i in 0..offset.len() {
        let Some(o) = offset[i].filter(|_| data[i]) else {
            continue;
        };
        if let Some(at) = waiting.remove(&o) {
            waits.push(new_frames - at);
        }
        if first_sent.insert(o, i).is_none() {
            new_frames += 1;
        }
        if lost[i] {
            waiting.insert(o, new_frames);
        }
    }
    waits
}

/// Balakrishnan et al. (1995), Fig. 2: "Retransmit lost packet with high priority". Over a
/// MAC that lets the mobile's ACKs through at once (`ideal`), the repair of a burst's first
/// segment waits only for the two duplicate ACKs and the frame already on the air — not
/// behind the ~28 segments of the 42 KB window queued at the base station, as it did when
/// Snoop's copy joined the queue's tail (TULIP Exp. 5a, burst 2, seed 1: offset 960,400
/// lost at 10.589 s, on the air again at 11.022 s). ns-2's FIFO is the named variant.
#[test]
fn snoop_repairs_a_burst_ahead_of_the_window_queued_at_the_base_station() {
    let ahead = new_frames_before_each_repair(&burst_scenario("ideal", 2, ""));
    let fifo =
        new_frames_before_each_repair(&burst_scenario("ideal", 2, "retransmit_ahead = false"));
    let worst = |w: &[usize]| w.iter().copied().max().unwrap_or(0);
    println!(
        "new frames before a repair: ahead max {} over {} repairs; behind the queue max {}",
        worst(&ahead),
        ahead.len(),
        worst(&fifo)
    );
    assert!(ahead.len() >= 40, "{ahead:?}");
    assert!(worst(&ahead) <= 5, "{ahead:?}");
    assert!(worst(&fifo) >= 20, "{fifo:?}");
}

#[test]
fn snoop_ns2_variant_refuses_settings_ns2_has_no_counterpart_for() {
    let text = |snoop: &str| {
        format!(
            r#"
name = "x"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps" }}
wireless = {{ rate = "1Mbps" }}
[base_station]
agent = "snoop"
snoop = {{ {snoop} }}
[[flow]]
src = "fh"
dst = "mh"
app = {{ kind = "bulk", bytes = "1MB" }}
"#
        )
    };
    let e = load(&text(r#"variant = "ns2", fix = true"#)).expect_err("refused");
    assert!(e.path.ends_with("fix"), "{e:?}");
    assert!(e.to_string().contains("variant"), "{e}");
    load(&text(
        r#"variant = "ns2", cache_packets = 50, retransmit_ahead = true"#,
    ))
    .expect("ns-2's own settings are accepted");
}

/// On a point-to-point hop the base station's interface reports its frames too
/// (`Agent::wants_departures`): Snoop times the link — a 1440-byte frame's 11.52 ms at
/// 1 Mbps, the 40-byte ACK's 0.32 ms and 2 µs of propagation — not the ~30 segments of a
/// 42 KB window waiting in front of it (≈ 350 ms when timed from the arrival at the base
/// station).
#[test]
fn snoop_on_a_point_to_point_hop_times_the_link_not_the_queue_in_front_of_it() {
    let s = load(
        r#"
name = "snoop-p2p"
seed = 1
stop_time = "100s"
[topology]
preset = "chain"
wired = { rate = "10Mbps", delay = "1ms", queue = "100pkt" }
wireless = { rate = "1Mbps", delay = "1us" }
[base_station]
agent = "snoop"
[[flow]]
src = "fh"
dst = "mh"
tcp = { variant = "reno", mss = "1400B", rwnd = "42KB" }
app = { kind = "bulk", bytes = "1MB" }
"#,
    )
    .expect("valid scenario");
    let options = RunOptions {
        traces: vec!["agent_rtt".into()],
        ..RunOptions::default()
    };
    let out = run(&s, &options).expect("run succeeds");
    let t = out
        .traces
        .iter()
        .find(|t| t.name == "agent_rtt")
        .expect("agent_rtt trace");
    let Some(Column::F64(rtt)) = t.column("rtt_s") else {
        panic!("rtt_s holds floats");
    };
    let last = *rtt.last().expect("samples");
    println!("Snoop's rtt over 1 Mbps: {:.3} ms", last * 1e3);
    assert!((last - 0.011_844).abs() < 0.000_5, "{last}");
}
