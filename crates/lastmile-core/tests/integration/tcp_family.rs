//! Whole runs of the loss recoveries and knobs: SACK and FACK on the lossy chain,
//! ECN with a RED queue (no loss, no retransmission, a reduction per window of marks), the
//! pcap of a SACK and ECN conversation read back by tshark, and a transfer whose sequence
//! numbers cross 2^32 behaving exactly like one whose do not.

use std::path::Path;
use std::process::Command;

use lastmile_core::metrics::RunSummary;
use lastmile_core::scenario::{load_str, Format, Scenario};
use lastmile_core::sim::{run, RunOptions, RunOutput};

/// The TULIP chain (10 Mbps wired, 1 Mbps hop) with `wireless` extra keys, `tcp` keys and
/// a bulk transfer of `bytes`.
fn chain(wireless: &str, tcp: &str, bytes: &str) -> Scenario {
    let text = format!(
        r#"
name = "family"
seed = 1
stop_time = "3000s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "10ms", queue = "100pkt" }}
wireless = {{ rate = "1Mbps", delay = "10ms", queue = "100pkt"{wireless} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ mss = "1000B", rwnd = "64KB"{tcp} }}
app = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    );
    load_str(&text, Format::Toml, "family.toml", &[]).expect("valid scenario")
}

fn run_ok(s: &Scenario, options: &RunOptions) -> RunOutput {
    run(s, options).expect("run succeeds")
}

/// The run's results: the summary without the wall-clock time and without the scenario as
/// resolved (the runs compared are written differently: another ISN, another name).
fn without_wall_time(mut s: RunSummary) -> RunSummary {
    s.engine.wall_s = 0.0;
    s.scenario = serde_json::Value::Null;
    s
}

#[test]
fn sack_and_fack_deliver_every_byte_once_under_random_loss() {
    for recovery in ["sack", "fack"] {
        for seed in 1..=4 {
            let mut s = chain(
                r#", errors = { model = "per", per = 0.05 }"#,
                &format!(r#", recovery = "{recovery}""#),
                "300KB",
            );
            s.seed = seed;
            let f = &run_ok(&s, &RunOptions::default()).summary.flows[0];
            assert!(f.completed, "{recovery} seed {seed}: {f:?}");
            assert_eq!(f.bytes_delivered, 300_000);
            assert_eq!(f.variant, recovery);
        }
    }
}

/// `variant = "sack"` is recovery SACK with the Reno window rule.
#[test]
fn the_sack_variant_is_sack_recovery_with_the_reno_window_rule() {
    let errors = r#", errors = { model = "per", per = 0.03 }"#;
    let short = run_ok(
        &chain(errors, r#", variant = "sack""#, "500KB"),
        &RunOptions::default(),
    );
    let long = run_ok(
        &chain(errors, r#", recovery = "sack", cc = "reno""#, "500KB"),
        &RunOptions::default(),
    );
    assert_eq!(
        without_wall_time(short.summary),
        without_wall_time(long.summary)
    );
}

/// RFC 3168 with a (gentle) RED bottleneck: congestion is signalled by marks alone, the
/// sender reduces at most once per window (fewer reductions than marks) and never loses
/// or retransmits; without ECN the same RED queue drops and the sender retransmits.
#[test]
fn ecn_through_red_reduces_without_loss_or_retransmission() {
    let red = r#", aqm = { kind = "red", gentle = true }"#;
    let ecn = run_ok(&chain(red, ", ecn = true", "2MB"), &RunOptions::default()).summary;
    let f = &ecn.flows[0];
    let hop = ecn
        .links
        .iter()
        .find(|l| l.from == "bs" && l.to == "mh")
        .unwrap();
    assert!(f.completed);
    assert_eq!((f.tcp_retransmits, f.tcp_timeouts), (0, 0), "{f:?}");
    assert_eq!(hop.queue_drops, 0, "{hop:?}");
    assert!(hop.ce_marks > 0);
    assert!(
        f.tcp_ecn_reductions > 0 && f.tcp_ecn_reductions < hop.ce_marks,
        "once per window: {} reductions for {} marks",
        f.tcp_ecn_reductions,
        hop.ce_marks
    );
    let plain = run_ok(&chain(red, "", "2MB"), &RunOptions::default()).summary;
    let hop = plain
        .links
        .iter()
        .find(|l| l.from == "bs" && l.to == "mh")
        .unwrap();
    assert!(hop.queue_drops > 0 && hop.ce_marks == 0, "{hop:?}");
    assert!(plain.flows[0].tcp_retransmits > 0);
}

/// A connection whose sequence numbers wrap past 2^32 mid-transfer runs exactly as one
/// whose do not (the 32-bit wire numbers are unwrapped into 64-bit stream offsets).
#[test]
fn a_transfer_across_the_2_pow_32_boundary_behaves_like_one_that_does_not() {
    let errors = r#", errors = { model = "per", per = 0.02 }"#;
    for recovery in ["newreno", "sack"] {
        let tcp = |isn: u64| format!(r#", recovery = "{recovery}", isn = {isn}"#);
        let plain = run_ok(&chain(errors, &tcp(1000), "3MB"), &RunOptions::default());
        let wrapping = run_ok(
            &chain(errors, &tcp(u64::from(u32::MAX) - 1_500_000), "3MB"),
            &RunOptions::default(),
        );
        assert!(plain.summary.flows[0].completed);
        assert!(
            plain.summary.flows[0].tcp_retransmits > 0,
            "losses to recover"
        );
        assert_eq!(
            without_wall_time(plain.summary),
            without_wall_time(wrapping.summary),
            "{recovery}"
        );
    }
}

fn tshark_fields(file: &Path, filter: &str) -> Option<usize> {
    let out = Command::new("tshark")
        .args([
            "-r",
            file.to_str()?,
            "-Y",
            filter,
            "-T",
            "fields",
            "-e",
            "frame.number",
        ])
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "tshark: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).lines().count())
}

/// The pcap shows what RFC 2018 and RFC 3168 put on the wire, as tshark decodes it:
/// SACK-permitted on the SYNs, SACK blocks on ACKs, ECT(0) and CE in the IP header, ECE and
/// CWR in the TCP flags; and nothing malformed.
#[test]
fn the_pcap_shows_sack_blocks_and_ecn_bits_to_tshark() {
    if Command::new("tshark").arg("-v").output().is_err() {
        println!("skipped: tshark is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("lastmile-family-pcap-{}", std::process::id()));
    let s = chain(
        r#", errors = { model = "per", per = 0.01 }, aqm = { kind = "red", gentle = true }"#,
        r#", variant = "sack", ecn = true"#,
        "1MB",
    );
    let options = RunOptions {
        pcap: vec!["wireless".into()],
        out_dir: Some(dir.clone()),
        ..RunOptions::default()
    };
    let out = run_ok(&s, &options);
    let hop = out.summary.links.iter().find(|l| l.to == "mh").cloned();
    assert!(hop.as_ref().is_some_and(|h| h.ce_marks > 0), "{hop:?}");
    let file = dir.join("wireless.pcapng");
    let count = |filter: &str| tshark_fields(&file, filter).expect("tshark runs");
    assert!(
        count("tcp.flags.syn == 1 && tcp.options.sack_perm") >= 2,
        "both SYNs"
    );
    assert!(count("tcp.options.sack_le") > 0, "SACK blocks");
    assert!(
        count("tcp.flags.syn == 1 && tcp.flags.ece == 1") >= 2,
        "ECN setup"
    );
    assert!(count("ip.dsfield.ecn == 2") > 0, "ECT(0) data");
    assert!(count("ip.dsfield.ecn == 3") > 0, "CE marks: {hop:?}");
    assert!(
        count("tcp.flags.syn == 0 && tcp.flags.ece == 1") > 0,
        "ECE echoes"
    );
    assert!(count("tcp.flags.cwr == 1 && tcp.flags.syn == 0") > 0, "CWR");
    assert_eq!(count("_ws.malformed || _ws.expert.severity == error"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// RED works on a cell's interface queues too: the access point's queue marks an ECN flow.
#[test]
fn red_on_a_cell_marks_the_access_points_queue() {
    let text = |aqm: &str| {
        format!(
            r#"
name = "wlan-red"
seed = 2
stop_time = "100s"
[topology]
preset = "wlan"
mobiles = 1
wired = {{ rate = "100Mbps", delay = "2ms" }}
wireless = {{ rate = "11Mbps", delay = "1us", mac = {{ kind = "dcf", phy = "802.11b" }}{aqm} }}
[[flow]]
src = "fh"
dst = "mh1"
tcp = {{ variant = "newreno", mss = "1460B", rwnd = "256KB", ecn = true }}
app = {{ kind = "bulk", bytes = "3MB" }}
"#
        )
    };
    let load = |aqm: &str| load_str(&text(aqm), Format::Toml, "wlan.toml", &[]).expect("valid");
    let red = run_ok(
        &load(r#", aqm = { kind = "red", gentle = true }"#),
        &RunOptions::default(),
    );
    let f = &red.summary.flows[0];
    assert!(f.completed, "{f:?}");
    assert!(f.tcp_ecn_reductions > 0, "{f:?}");
    let plain = run_ok(&load(""), &RunOptions::default());
    assert_eq!(
        plain.summary.flows[0].tcp_ecn_reductions, 0,
        "drop-tail marks nothing"
    );
}
