//! Base stations as scenarios write them: `[[base_station]]` entries with the agent's
//! settings inline, the `[base_station]` shorthand of every earlier scenario (with
//! `[base_station.<agent>]` tables and `--set` overrides), both forms refused together, and
//! several base stations each running its agent.

use lastmile_core::metrics::RunSummary;
use lastmile_core::scenario::{load_str, Format, Scenario, ScenarioError};
use lastmile_core::sim::{run, RunOptions};

/// The TULIP chain with WTCP's fading channel, short enough for a test.
fn chain(base_station: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let text = format!(
        r#"
name = "bs"
stop_time = "60s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "20ms" }}
wireless = {{ rate = "800kbps", delay = "10ms", errors = {{ model = "per", per = 0.03 }} }}
{base_station}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "tahoe", mss = "960B", rwnd = "10KB", timer_granularity = "100ms" }}
app = {{ kind = "bulk", bytes = "300KB" }}
"#
    );
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    load_str(&text, Format::Toml, "bs.toml", &sets)
}

/// The run's results: its summary without the wall-clock time and without the scenario
/// as resolved (the forms compared write the same scenario differently).
fn summary(s: &Scenario) -> RunSummary {
    let mut out = run(s, &RunOptions::default()).expect("runs").summary;
    out.engine.wall_s = 0.0;
    out.scenario = serde_json::Value::Null;
    out
}

#[test]
fn the_shorthand_the_inline_table_and_a_base_station_entry_run_alike() {
    let forms = [
        "[base_station]\nagent = \"wtcp\"\n[base_station.wtcp]\nwindow = 5\nclock = \"20ms\"",
        "[base_station]\nagent = { kind = \"wtcp\", window = 5, clock = \"20ms\" }",
        "[[base_station]]\nnode = \"bs\"\nagent = { kind = \"wtcp\", window = 5, clock = \"20ms\" }",
    ];
    let runs: Vec<RunSummary> = forms
        .iter()
        .map(|f| summary(&chain(f, &[]).unwrap_or_else(|e| panic!("{e}"))))
        .collect();
    let agent = runs[0].agent.as_ref().expect("an agent ran");
    assert_eq!(agent.kind, "wtcp");
    assert!(
        agent.local_retransmissions > 0,
        "WTCP recovered losses locally"
    );
    assert_eq!(runs[1], runs[0]);
    assert_eq!(runs[2], runs[0]);
    // The same through overrides, as the experiments write them.
    let set = chain(
        "",
        &[
            "base_station.agent=wtcp",
            "base_station.wtcp.window=5",
            "base_station.wtcp.clock=20ms",
        ],
    )
    .unwrap();
    assert_eq!(summary(&set), runs[0]);
    // A name alone is every default.
    let by_name = chain("[[base_station]]\nagent = \"wtcp\"", &[]).unwrap();
    let table = chain("[[base_station]]\nagent = { kind = \"wtcp\" }", &[]).unwrap();
    assert_eq!(summary(&by_name), summary(&table));
}

#[test]
fn settings_in_both_places_are_refused() {
    let e = chain(
        "[base_station]\nagent = { kind = \"snoop\", fix = true }\n[base_station.snoop]\nfix = false",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station.snoop");
    let line = e.to_string();
    assert!(
        line.contains("both in `agent = { kind = \"snoop\""),
        "{line}"
    );
    assert!(line.contains("one place"), "{line}");
    let e = chain(
        "[base_station]\nagent = { kind = \"snoop\" }",
        &["base_station.wtcp.window=5"],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station.wtcp");
    assert_eq!(e.file, "bs.toml (--set base_station.wtcp.window=5)");
}

#[test]
fn inline_agent_errors_name_the_entry_and_the_key() {
    let e = chain(
        "[[base_station]]\nagent = { kind = \"snoop\", dupack_threshold = 0 }",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station[0].agent.dupack_threshold");
    let e = chain("[[base_station]]\nagent = { kind = \"snop\" }", &[]).unwrap_err();
    assert_eq!(e.path, "base_station[0].agent.kind");
    assert!(e.to_string().contains("\"snoop\""), "{e}");
    let e = chain("[[base_station]]\nagent = \"snop\"", &[]).unwrap_err();
    assert_eq!(e.path, "base_station[0].agent");
    assert!(e.to_string().contains("did you mean \"snoop\""), "{e}");
    let e = chain(
        "[[base_station]]\nagent = { kind = \"wtcp\", windw = 3 }",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station[0].agent.windw");
    let e = chain(
        "[[base_station]]\nagent = { kind = \"none\", window = 3 }",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station[0].agent.window");
    let e = chain(
        "[base_station]\nagent = \"snoop\"\nsnoop = { timeout_factor = 0 }",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station.snoop.timeout_factor");
    let e = chain(
        "[base_station]\nagent = { kind = \"snoop\", timeout_factor = 0 }",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station.agent.timeout_factor");
    let e = chain(
        "[[base_station]]\nagent = \"snoop\"\n[[base_station]]\nnode = \"bs\"\nagent = \"wtcp\"",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station[1].node");
    assert!(e.to_string().contains("base_station[0] is on it"), "{e}");
    let e = chain(
        "[[base_station]]\nnode = \"nowhere\"\nagent = \"snoop\"",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station[0].node");
    let e = chain("", &["base_station=3"]).unwrap_err();
    assert_eq!(e.path, "base_station");
    assert!(e.to_string().contains("[[base_station]]"), "{e}");
}

/// Two cells' worth of chain: a fixed host behind a router, two base stations on lossy
/// hops, one mobile behind each, a transfer to each.
fn two_base_stations(base_stations: &str) -> Scenario {
    let text = format!(
        r#"
name = "two-bs"
stop_time = "120s"
[topology]
nodes = ["fh", "router", "bs1", "mh1", "bs2", "mh2"]
links = [
  {{ from = "fh", to = "router", rate = "10Mbps", delay = "10ms" }},
  {{ from = "router", to = "bs1", rate = "10Mbps", delay = "1ms" }},
  {{ from = "router", to = "bs2", rate = "10Mbps", delay = "1ms" }},
  {{ from = "bs1", to = "mh1", rate = "1Mbps", delay = "1ms", wireless = true,
     errors = {{ model = "per", per = 0.05 }} }},
  {{ from = "bs2", to = "mh2", rate = "1Mbps", delay = "1ms", wireless = true,
     errors = {{ model = "per", per = 0.05 }} }},
]
{base_stations}
[[flow]]
src = "fh"
dst = "mh1"
tcp = {{ variant = "newreno", mss = "1000B", rwnd = "20KB" }}
app = {{ kind = "bulk", bytes = "400KB" }}
[[flow]]
src = "fh"
dst = "mh2"
tcp = {{ variant = "newreno", mss = "1000B", rwnd = "20KB" }}
app = {{ kind = "bulk", bytes = "400KB" }}
"#
    );
    load_str(&text, Format::Toml, "two.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn each_of_two_base_stations_runs_its_own_agent() {
    let bs1 = "[[base_station]]\nnode = \"bs1\"\nagent = \"snoop\"\n";
    let bs2 = "[[base_station]]\nnode = \"bs2\"\nagent = \"snoop\"\n";
    let neither = summary(&two_base_stations(""));
    let first = summary(&two_base_stations(bs1));
    let both = summary(&two_base_stations(&format!("{bs1}{bs2}")));
    let fast = |s: &RunSummary, i: usize| s.flows[i].tcp_fast_retransmits;
    assert!(
        both.flows.iter().all(|f| f.completed),
        "both transfers complete"
    );
    // Snoop hides the wireless losses of its own hop from the source (TULIP §2): the
    // source behind a Snoop base station leaves nearly all recovery to it.
    assert!(
        fast(&neither, 0) >= 5 && fast(&neither, 1) >= 5,
        "{neither:?}"
    );
    assert!(
        fast(&first, 0) * 4 < fast(&neither, 0),
        "bs1's Snoop acts on flow 0"
    );
    assert_eq!(fast(&first, 1), fast(&neither, 1), "nothing on bs2 yet");
    assert!(
        fast(&both, 1) * 4 < fast(&neither, 1),
        "bs2's Snoop acts on flow 1"
    );
    assert_eq!(both.agent.as_ref().map(|a| a.kind.as_str()), Some("snoop"));
}
