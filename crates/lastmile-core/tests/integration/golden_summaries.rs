//! Golden summaries: every built-in example (`python/lastmile/examples/`) and a set of
//! variants of them (each loss recovery, each agent, each MAC and link layer, delayed ACKs
//! and timestamps, a `wlan` cell, a saturating UDP source) is run and its summary compared,
//! value for value, with the one recorded in `tests/golden/summaries.json`. One run also
//! records its `seq`, `cwnd` and `rtt` traces as row counts and FNV-1a digests of each
//! column's little-endian bytes.
//!
//! The comparison is exact, minus the wall-clock field (`engine.wall_s`). Floats are written
//! in their shortest round-trip form and read back exactly (serde_json's `float_roundtrip`);
//! the run's values take the same text round trip before they are compared. A field
//! present in the run but absent from the golden file is allowed, so that a new metric
//! does not invalidate the record; a changed or missing one fails.
//!
//! Re-recording (only when a change of behaviour is intended, e.g. a bug fixed on purpose;
//! say so in the commit message and review the diff of the JSON file):
//!
//!     LASTMILE_RECORD_GOLDEN=1 cargo test -p lastmile-core --test integration golden_summaries
//!
//! The cases use the examples as shipped with `--set`-style overrides, so an edited example
//! changes its golden values too: re-record with the edit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lastmile_core::metrics::{Column, TraceTable};
use lastmile_core::scenario::{load_path, load_str, Format, Scenario};
use lastmile_core::sim::{run, RunOptions};
use serde_json::{json, Value};

/// A case: a name, the example file (or inline TOML), overrides, traces to fingerprint.
pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) source: Source,
    pub(crate) overrides: &'static [&'static str],
    pub(crate) traces: &'static [&'static str],
}

pub(crate) enum Source {
    Example(&'static str),
    Inline(&'static str),
    /// A scenario file of the reproductions (`python/lastmile/reproduce/experiments/`).
    Experiment(&'static str),
}

const fn example(
    name: &'static str,
    file: &'static str,
    overrides: &'static [&'static str],
) -> Case {
    Case {
        name,
        source: Source::Example(file),
        overrides,
        traces: &[],
    }
}

/// A `wlan` cell: a fixed host behind an access point with two mobiles, the DCF with
/// RTS/CTS, one NewReno flow with delayed ACKs per mobile.
const WLAN_DCF: &str = r#"
name = "wlan-dcf"
seed = 3
stop_time = "200s"
[topology]
preset = "wlan"
mobiles = 2
wired = { rate = "10Mbps", delay = "5ms" }
wireless = { rate = "11Mbps", delay = "1us", mac = { kind = "dcf", phy = "802.11b", rts_threshold = "0B" },
             errors = { model = "per", per = 0.02 } }
[[flow]]
src = "fh"
dst = "mh1"
tcp = { variant = "newreno", mss = "1460B", ack = "delayed" }
app = { kind = "bulk", bytes = "1MB" }
[[flow]]
src = "fh"
dst = "mh2"
start = "0.5s"
tcp = { variant = "reno", mss = "1000B", timestamps = true }
app = { kind = "bulk", bytes = "500KB" }
"#;

/// Two saturating UDP sources in an ad hoc DCF cell (the MAC-test application).
pub(crate) const ADHOC_UDP: &str = r#"
name = "adhoc-udp"
seed = 5
stop_time = "3s"
[topology]
preset = "adhoc"
wireless = { rate = "2Mbps", delay = "1us", mac = "dcf" }
[[flow]]
src = "n1"
dst = "n2"
app = { kind = "udp_saturate", duration = "2s" }
[[flow]]
src = "n2"
dst = "n1"
app = { kind = "udp_saturate", packet_size = "500B", duration = "2s" }
"#;

const CHAIN: &str = "chain-per5-newreno.toml";
const TULIP_BASIC: &str = "tulip-basic.toml";
const TULIP_FAMA: &str = "tulip-fama.toml";
const WTCP: &str = "wtcp-fading.toml";
const LLE: &str = "lle-adhoc.toml";

fn cases() -> Vec<Case> {
    vec![
        // Every built-in example as shipped.
        example("chain-per5-newreno", CHAIN, &[]),
        example("explicit-topology", "explicit-topology.toml", &[]),
        example("snoop-side-by-side", "snoop-side-by-side.toml", &[]),
        example("lle-adhoc", LLE, &[]),
        example("tulip-basic", TULIP_BASIC, &[]),
        example("tulip-fama", TULIP_FAMA, &[]),
        example("wtcp-fading", WTCP, &[]),
        // Each loss recovery on the benchmark chain.
        example(
            "chain-tahoe-2MB",
            CHAIN,
            &["flow.0.tcp.variant=tahoe", "flow.0.app.bytes=2MB"],
        ),
        example(
            "chain-reno-2MB",
            CHAIN,
            &["flow.0.tcp.variant=reno", "flow.0.app.bytes=2MB"],
        ),
        example(
            "chain-newreno-delack-ts-2MB",
            CHAIN,
            &[
                "flow.0.app.bytes=2MB",
                "flow.0.tcp.ack=delayed",
                "flow.0.tcp.timestamps=true",
                "flow.0.tcp.initial_window=2",
            ],
        ),
        example(
            "chain-reno-paced-2MB",
            CHAIN,
            &[
                "flow.0.tcp.variant=reno",
                "flow.0.app.bytes=2MB",
                "flow.0.tcp.pacing=true",
            ],
        ),
        example(
            "chain-tahoe-dupthresh2-G500ms-2MB",
            CHAIN,
            &[
                "flow.0.tcp.variant=tahoe",
                "flow.0.app.bytes=2MB",
                "flow.0.tcp.dupack_threshold=2",
                "flow.0.tcp.timer_granularity=500ms",
                "flow.0.tcp.initial_ssthresh=8KB",
            ],
        ),
        // Issue 12's recoveries and knobs.
        example(
            "chain-sack-2MB",
            CHAIN,
            &["flow.0.tcp.variant=sack", "flow.0.app.bytes=2MB"],
        ),
        example(
            "chain-fack-2MB",
            CHAIN,
            &["flow.0.tcp.variant=fack", "flow.0.app.bytes=2MB"],
        ),
        example(
            "chain-sack-prr-lt-dsack-ts-2MB",
            CHAIN,
            &[
                "flow.0.tcp.variant=sack",
                "flow.0.app.bytes=2MB",
                "flow.0.tcp.prr=true",
                "flow.0.tcp.limited_transmit=true",
                "flow.0.tcp.dsack=true",
                "flow.0.tcp.timestamps=true",
            ],
        ),
        example(
            "chain-newreno-abc2-rfc3390-daass-lt-2MB",
            CHAIN,
            &[
                "flow.0.app.bytes=2MB",
                "flow.0.tcp.abc=2",
                "flow.0.tcp.initial_window=\"rfc3390\"",
                "flow.0.tcp.ack=daass",
                "flow.0.tcp.limited_transmit=true",
                "flow.0.tcp.max_backoff=64",
            ],
        ),
        example(
            "chain-newreno-ecn-red-2MB",
            CHAIN,
            &[
                "flow.0.app.bytes=2MB",
                "flow.0.tcp.ecn=true",
                "topology.wireless.aqm={kind=\"red\", gentle=true}",
            ],
        ),
        // Each agent.
        example(
            "tulip-basic-snoop",
            TULIP_BASIC,
            &["base_station.agent=snoop"],
        ),
        example("wtcp-fading-wtcp", WTCP, &["base_station.agent=wtcp"]),
        example("wtcp-fading-itcp", WTCP, &["base_station.agent=itcp"]),
        example("lle-adhoc-none", LLE, &["base_station.agent=none"]),
        // Each MAC and link layer under TULIP's experiment.
        example("tulip-dcf", TULIP_FAMA, &["topology.wireless.mac=dcf"]),
        example("tulip-ideal", TULIP_FAMA, &["topology.wireless.mac=ideal"]),
        example(
            "tulip-fama-noaccel",
            TULIP_FAMA,
            &["topology.wireless.link.mac_acceleration=false"],
        ),
        example(
            "fama-stop-and-wait",
            TULIP_BASIC,
            &[
                "topology.wireless.mac=fama",
                "topology.wireless.link=stop_and_wait",
            ],
        ),
        example("fama-no-ll", TULIP_BASIC, &["topology.wireless.mac=fama"]),
        example(
            "dcf-stop-and-wait-snoop",
            TULIP_BASIC,
            &[
                "topology.wireless.mac=dcf",
                "topology.wireless.link=stop_and_wait",
                "base_station.agent=snoop",
            ],
        ),
        Case {
            name: "wlan-dcf",
            source: Source::Inline(WLAN_DCF),
            overrides: &[],
            traces: &[],
        },
        Case {
            name: "adhoc-udp",
            source: Source::Inline(ADHOC_UDP),
            overrides: &[],
            traces: &[],
        },
        // The TCP traces of one run.
        Case {
            name: "chain-newreno-1MB-traces",
            source: Source::Example(CHAIN),
            overrides: &["flow.0.app.bytes=1MB", "flow.0.tcp.timestamps=true"],
            traces: &["seq", "cwnd", "rtt"],
        },
    ]
}

pub(crate) fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/lastmile/examples")
}

fn experiments_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/lastmile/reproduce/experiments")
}

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/summaries.json")
}

fn load(case: &Case) -> Scenario {
    let overrides: Vec<String> = case.overrides.iter().map(|s| s.to_string()).collect();
    let loaded = match case.source {
        Source::Example(file) => load_path(&examples_dir().join(file), &overrides),
        Source::Inline(text) => load_str(text, Format::Toml, case.name, &overrides),
        Source::Experiment(file) => load_path(&experiments_dir().join(file), &overrides),
    };
    loaded.unwrap_or_else(|e| panic!("{}: {e}", case.name))
}

/// FNV-1a, 64 bits: a stable digest of a column's bytes.
fn fnv1a(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn fingerprint(t: &TraceTable) -> Value {
    let columns: BTreeMap<&str, String> = t
        .columns
        .iter()
        .map(|(n, c): &(String, Column)| (n.as_str(), fnv1a(&c.to_le_bytes())))
        .collect();
    json!({ "rows": t.rows(), "columns": columns })
}

/// The recorded value of one case: its summary without wall time (and without the resolved
/// scenario), and trace fingerprints.
pub(crate) fn record(case: &Case) -> Value {
    let options = RunOptions {
        traces: case.traces.iter().map(|s| s.to_string()).collect(),
        ..RunOptions::default()
    };
    let out = run(&load(case), &options).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let mut summary = serde_json::to_value(&out.summary).expect("summary serialises");
    // The scenario as resolved says what ran, not what came out: it is no golden value.
    summary
        .as_object_mut()
        .expect("summary is a table")
        .remove("scenario");
    summary["engine"]
        .as_object_mut()
        .expect("engine section")
        .remove("wall_s");
    let mut v = json!({ "summary": summary });
    if !case.traces.is_empty() {
        let traces: BTreeMap<&str, Value> = out
            .traces
            .iter()
            .filter(|t| case.traces.contains(&t.name.as_str()))
            .map(|t| (t.name.as_str(), fingerprint(t)))
            .collect();
        v["traces"] = json!(traces);
    }
    v
}

/// Every difference between `golden` and `now` at `path`, ignoring keys only `now` has.
pub(crate) fn differences(path: &str, golden: &Value, now: &Value, out: &mut Vec<String>) {
    match (golden, now) {
        (Value::Object(g), Value::Object(n)) => {
            for (k, gv) in g {
                let p = format!("{path}.{k}");
                match n.get(k) {
                    Some(nv) => differences(&p, gv, nv, out),
                    None => out.push(format!("{p}: missing (golden {gv})")),
                }
            }
        }
        (Value::Array(g), Value::Array(n)) if g.len() == n.len() => {
            for (i, (gv, nv)) in g.iter().zip(n).enumerate() {
                differences(&format!("{path}[{i}]"), gv, nv, out);
            }
        }
        _ if golden != now => out.push(format!("{path}: golden {golden}, now {now}")),
        _ => {}
    }
}

fn load_golden() -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(golden_path())
        .expect("tests/golden/summaries.json (record it with LASTMILE_RECORD_GOLDEN=1)");
    serde_json::from_str(&text).expect("golden JSON")
}

/// `recovery = "tahoe", cc = "reno"` written out runs exactly as `variant = "tahoe"`.
#[test]
fn recovery_and_cc_written_out_run_as_the_variant_shorthand() {
    let text = std::fs::read_to_string(examples_dir().join(CHAIN)).expect("example");
    let from = r#"variant = "newreno""#;
    assert!(text.contains(from));
    let edited = text.replace(from, r#"recovery = "tahoe", cc = "reno""#);
    let case = Case {
        name: "chain-tahoe-2MB",
        source: Source::Inline(Box::leak(edited.into_boxed_str())),
        overrides: &["flow.0.app.bytes=2MB"],
        traces: &[],
    };
    let now = serde_json::to_string(&record(&case)).expect("serialises");
    let now: Value = serde_json::from_str(&now).expect("round trip");
    let golden = &load_golden()["chain-tahoe-2MB"];
    let mut diffs = Vec::new();
    differences("chain-tahoe-2MB", golden, &now, &mut diffs);
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
}

/// Records `cases` into the golden file at `path` (with `LASTMILE_RECORD_GOLDEN` set) or
/// compares their values with it: every difference, every case no longer run and every case
/// not recorded fails.
pub(crate) fn check_against_golden(path: &Path, cases: &[Case]) {
    let now: BTreeMap<&str, Value> = cases.iter().map(|c| (c.name, record(c))).collect();
    let text_of_now = serde_json::to_string_pretty(&now).expect("serialises") + "\n";
    if std::env::var_os("LASTMILE_RECORD_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("has a parent")).expect("mkdir");
        std::fs::write(path, text_of_now).expect("golden file written");
        return;
    }
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record it with LASTMILE_RECORD_GOLDEN=1)",
            path.display()
        )
    });
    let golden: BTreeMap<String, Value> = serde_json::from_str(&text).expect("golden JSON");
    let now: BTreeMap<String, Value> = serde_json::from_str(&text_of_now).expect("round trip");
    let mut diffs = Vec::new();
    for (name, g) in &golden {
        match now.get(name) {
            Some(n) => differences(name, g, n, &mut diffs),
            None => diffs.push(format!("{name}: case no longer run")),
        }
    }
    for name in now.keys() {
        if !golden.contains_key(name) {
            diffs.push(format!("{name}: not recorded (re-record the golden file)"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} differences from {}:\n{}",
        diffs.len(),
        path.display(),
        diffs.join("\n")
    );
}

#[test]
fn summaries_match_the_recorded_golden_values() {
    check_against_golden(&golden_path(), &cases());
}
