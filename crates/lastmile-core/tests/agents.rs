//! Base-station agents end to end: Snoop on TULIP's topology (Table 1), WTCP on its own
//! (Figs. 4 and 5), I-TCP's split connection, and every agent's exactly-once delivery under
//! random losses. Scenarios are built from TOML text like the users write them.

use lastmile_core::metrics::{Column, TraceTable};
use lastmile_core::scenario::{load_str, Format, Scenario};
use lastmile_core::sim::{run, RunOptions, RunOutput};

fn load(text: &str) -> Scenario {
    load_str(text, Format::Toml, "agents.toml", &[]).expect("valid scenario")
}

fn run_ok(s: &Scenario, options: &RunOptions) -> RunOutput {
    run(s, options).expect("run succeeds")
}

fn column<'a>(t: &'a TraceTable, name: &str) -> &'a Column {
    t.column(name).unwrap_or_else(|| panic!("column {name}"))
}

fn f64s(c: &Column) -> &[f64] {
    match c {
        Column::F64(v) => v,
        other => panic!("not f64: {other:?}"),
    }
}

/// TULIP's Fig. 8 over the core's full-duplex hop: fh —10 Mbps, 1 ms— bs —1 Mbps— mh,
/// Reno, 1400-byte segments, 42 KB window, 500 ms timer granularity.
fn tulip_chain(errors: &str, bytes: &str, base_station: &str) -> Scenario {
    load(&format!(
        r#"
name = "tulip"
seed = 1
stop_time = "3000s"

[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "1ms", queue = "100pkt" }}
wireless = {{ rate = "1Mbps", delay = "1us", errors = {errors} }}

{base_station}

[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "reno", mss = "1400B", rwnd = "42KB", timer_granularity = "500ms" }}
app = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    ))
}

#[test]
fn tulip_table1_snoop_has_no_timeouts_no_redundancy_and_ideal_goodput() {
    let s = tulip_chain(
        r#"{ model = "ber", ber = 15e-6 }"#,
        "10MB",
        "[base_station]\nagent = \"snoop\"",
    );
    let out = run_ok(&s, &RunOptions::default());
    let f = &out.summary.flows[0];
    let w = out.summary.wireless.as_ref().unwrap();
    let a = out.summary.agent.as_ref().unwrap();
    let per = 1.0 - (1.0f64 - 15e-6).powf(8.0 * 1440.0);
    println!(
        "Snoop, TULIP Table 1 row: PER {:.3} ideal {:.3} achieved {:.4} timeouts {} \
         redundant {} | {:.1} kbps, local rxmt {}, suppressed {}, timer {}, persist {:?}, \
         fast rxmt {}, src rxmt {}",
        w.frames_lost as f64 / w.frames_sent as f64,
        1.0 - per,
        w.goodput_wireless,
        f.tcp_timeouts,
        w.redundant_tx,
        f.throughput_bps / 1e3,
        a.local_retransmissions,
        a.suppressed_dupacks,
        a.timer_expiries,
        a.persist_retransmissions,
        f.tcp_fast_retransmits,
        f.tcp_retransmits,
    );
    assert!(f.completed);
    assert_eq!(f.tcp_timeouts, 0, "{f:?}");
    assert_eq!(w.redundant_tx, 0, "{w:?}");
    let measured_per = w.frames_lost as f64 / w.frames_sent as f64;
    // TULIP Table 1 compares achieved goodput with 1 − PER of the run's own losses.
    assert!(
        (w.goodput_wireless - (1.0 - measured_per)).abs() < 0.005,
        "{w:?}"
    );
    assert!((w.goodput_wireless - (1.0 - per)).abs() < 0.015, "{w:?}");
    assert!(a.local_retransmissions > 0);
}

#[test]
#[ignore]
fn explore_snoop() {
    for fix in [false, true] {
        let s = tulip_chain(
            r#"{ model = "ber", ber = 15e-6 }"#,
            "10MB",
            &format!("[base_station]\nagent = \"snoop\"\nsnoop = {{ fix = {fix} }}"),
        );
        let out = run_ok(
            &s,
            &RunOptions {
                traces: vec!["agent_rtt".into()],
                ..Default::default()
            },
        );
        let f = &out.summary.flows[0];
        let w = out.summary.wireless.as_ref().unwrap();
        let a = out.summary.agent.as_ref().unwrap();
        println!(
            "fix {fix}: {:.1} kbps to {} rd {} {:?}",
            f.throughput_bps / 1e3,
            f.tcp_timeouts,
            w.redundant_tx,
            a
        );
        let t = &out.traces[0];
        let r = f64s(column(t, "rtt_s"));
        let tm = f64s(column(t, "time_s"));
        for i in (0..r.len()).step_by(r.len() / 30 + 1) {
            println!("  t {:.2} rtt {:.3}", tm[i], r[i]);
        }
    }
}

// ---- scenario keys -----------------------------------------------------------------------

#[test]
fn agent_settings_for_an_agent_not_selected_are_refused_with_their_path() {
    let text = |bs: &str| {
        format!(
            r#"
name = "x"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps" }}
wireless = {{ rate = "1Mbps" }}
{bs}
[[flow]]
src = "fh"
dst = "mh"
app = {{ kind = "bulk", bytes = "10KB" }}
"#
        )
    };
    let e = load_str(
        &text("[base_station]\nagent = \"wtcp\"\n[base_station.snoop]\nfix = true"),
        Format::Toml,
        "x.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "base_station.snoop");
    assert!(e.to_string().contains("agent = \"wtcp\""), "{e}");
    let e = load_str(
        &text("[base_station]\nagent = \"snoop\"\nsnoop = { persist = \"200ms\", bogus = 1 }"),
        Format::Toml,
        "x.toml",
        &[],
    )
    .unwrap_err();
    assert!(e.to_string().contains("bogus"), "{e}");
    let s = load_str(
        &text("[base_station]\nagent = \"snoop\"\nsnoop = { dupack_threshold = 3, fix = true }"),
        Format::Toml,
        "x.toml",
        &[],
    )
    .unwrap();
    let snoop = s.base_station.snoop.unwrap();
    assert_eq!((snoop.dupack_threshold, snoop.fix), (3, true));
    assert_eq!(snoop.min_timeout.to_string(), "40ms");
    let schema = lastmile_core::scenario::json_schema().to_string();
    for needle in [
        "SnoopSpec",
        "WtcpSpec",
        "ItcpSpec",
        "TULIP §4",
        "WTCP Table I",
    ] {
        assert!(schema.contains(needle), "schema lacks {needle}");
    }
}
