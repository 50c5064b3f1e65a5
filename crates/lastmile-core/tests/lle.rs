//! LLE-TCP (Kliazovich, Granelli & Gerla) end to end: the single-hop 802.11b network of §4.3
//! (Table 3, Fig. 5), packet errors (Fig. 7's uniform PER), the infrastructure network of
//! §4.4, the connection phases of §3.2 and exactly-once delivery under random losses.

use lastmile_core::metrics::LleSummary;
use lastmile_core::scenario::{load_str, Format, Scenario};
use lastmile_core::sim::{run, RunOptions, RunOutput};

fn load(text: &str) -> Scenario {
    load_str(text, Format::Toml, "lle.toml", &[]).expect("valid scenario")
}

fn run_ok(s: &Scenario) -> RunOutput {
    run(s, &RunOptions::default()).expect("run succeeds")
}

fn lle(out: &RunOutput) -> &LleSummary {
    out.summary
        .agent
        .as_ref()
        .and_then(|a| a.lle.as_ref())
        .expect("LLE-TCP counters")
}

/// §4.3's single hop: n1 sends to n2 over 802.11b (Table 3: 11 Mbps, basic rate 1 Mbps,
/// long preamble, RTS/CTS off), Reno, an ACK per segment; `mss` = datagram − 40 B.
fn adhoc(agent: bool, datagram: u32, bytes: &str, stop: &str, errors: &str, seed: u64) -> Scenario {
    let bs = if agent {
        "[base_station]\nagent = \"lle\"\nnode = \"n1\""
    } else {
        ""
    };
    load(&format!(
        r#"
name = "adhoc-lle"
seed = {seed}
stop_time = "{stop}"
[topology]
preset = "adhoc"
wireless = {{ phy = "802.11b", rate = "11Mbps", delay = "1us", mac = "dcf", errors = {errors}, reverse_errors = {errors} }}
{bs}
[[flow]]
src = "n1"
dst = "n2"
tcp = {{ variant = "reno", mss = "{mss}B", ack = "every" }}
app = {{ kind = "bulk", bytes = "{bytes}" }}
"#,
        mss = datagram - 40
    ))
}

const NO_ERRORS: &str = r#"{ model = "none" }"#;

/// Steady-state throughput between t = 2 s and t = 12 s (after slow start, as §4 measures).
fn steady_mbps(agent: bool, datagram: u32) -> f64 {
    let early = run_ok(&adhoc(agent, datagram, "1GB", "2s", NO_ERRORS, 1));
    let late = run_ok(&adhoc(agent, datagram, "1GB", "12s", NO_ERRORS, 1));
    let bytes = late.summary.flows[0].bytes_delivered - early.summary.flows[0].bytes_delivered;
    bytes as f64 * 8.0 / 10.0 / 1e6
}

#[test]
fn adhoc_smoke() {
    let out = run_ok(&adhoc(true, 1500, "2MB", "60s", NO_ERRORS, 1));
    let f = &out.summary.flows[0];
    println!("{f:?}\n{:?}\n{:?}", out.summary.agent, out.summary.cells);
    assert!(f.completed);
}
