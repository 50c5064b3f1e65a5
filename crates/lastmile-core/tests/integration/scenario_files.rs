//! Scenario files end to end: the issue's TULIP example in TOML, YAML and JSON, every kind
//! of bad input with the path and message it must produce, `--set` overrides, the JSON
//! Schema, and topology resolution.

use std::path::Path;

use lastmile_core::error_model::ErrorModelSpec;
use lastmile_core::scenario::*;
use lastmile_core::units::{Probability, QueueLimit};

const TULIP: &str = include_str!("../fixtures/tulip-basic.toml");
const TULIP_YAML: &str = include_str!("../fixtures/tulip-basic.yaml");
const TULIP_JSON: &str = include_str!("../fixtures/tulip-basic.json");
const FOUR_NODE: &str = include_str!("../fixtures/four-node.toml");

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn sets(overrides: &[&str]) -> Vec<String> {
    overrides.iter().map(|s| s.to_string()).collect()
}

/// Loads the TULIP example with `from` replaced by `to` (the replacement must apply).
fn tulip_with(from: &str, to: &str) -> Result<Scenario, ScenarioError> {
    assert!(TULIP.contains(from), "fixture lacks {from:?}");
    load_str(
        &TULIP.replacen(from, to, 1),
        Format::Toml,
        "tulip.toml",
        &[],
    )
}

fn tulip_err(from: &str, to: &str) -> ScenarioError {
    tulip_with(from, to).expect_err("the edited scenario must be refused")
}

fn tulip_set(overrides: &[&str]) -> Result<Scenario, ScenarioError> {
    load_str(TULIP, Format::Toml, "tulip.toml", &sets(overrides))
}

#[test]
fn tulip_example_loads_with_its_values() {
    let s = load_path(&fixture("tulip-basic.toml"), &[]).unwrap();
    assert_eq!(s.name, "tulip-basic");
    assert_eq!(s.seed, 1);
    assert_eq!(s.stop_time.sim().as_nanos(), 3_000_000_000_000);
    assert_eq!(s.topology.preset, Some(Preset::Chain));
    let wired = s.topology.wired.as_ref().unwrap();
    assert_eq!(wired.rate.bps(), 10_000_000);
    assert_eq!(wired.delay.sim().as_nanos(), 1_000_000);
    assert_eq!(wired.queue, QueueLimit::Packets(100));
    let wireless = s.topology.wireless.as_ref().unwrap();
    assert_eq!(wireless.rate.bps(), 1_000_000);
    assert_eq!(wireless.delay.sim().as_nanos(), 1_000);
    assert_eq!(wireless.mac, MacSpec::P2p);
    assert_eq!(wireless.link, LinkLayerSpec::None);
    assert_eq!(
        wireless.errors,
        ErrorModelSpec::Ber {
            ber: Probability(15e-6)
        }
    );
    assert_eq!(wireless.reverse_errors, ErrorModelSpec::None);
    assert!(
        s.base_stations().is_empty(),
        "agent = \"none\" and no node: no base station"
    );
    assert_eq!(s.flows.len(), 1);
    let f = &s.flows[0];
    assert_eq!((f.src.single(), f.dst.single()), (Some("fh"), Some("mh")));
    assert_eq!(f.tcp.variant, Some(TcpVariant::Reno));
    assert_eq!(f.tcp.mss.bytes(), 1400);
    assert_eq!(f.tcp.rwnd.bytes(), 42_000);
    assert_eq!(f.tcp.timer_granularity.sim().as_nanos(), 500_000_000);
    assert_eq!(f.tcp.dupack_threshold, 3, "unset keys take their defaults");
    assert!(!f.tcp.timestamps);
    assert_eq!(f.app.total_bytes(), 10_000_000);
    assert!(matches!(f.app, AppSpec::Bulk { .. }));
}

#[test]
fn yaml_and_json_equivalents_load_identically() {
    let toml = serde_json::to_value(load_str(TULIP, Format::Toml, "t.toml", &[]).unwrap()).unwrap();
    let yaml = load_path(&fixture("tulip-basic.yaml"), &[]).unwrap();
    let json = load_path(&fixture("tulip-basic.json"), &[]).unwrap();
    assert_eq!(serde_json::to_value(yaml).unwrap(), toml);
    assert_eq!(serde_json::to_value(json).unwrap(), toml);
    assert_eq!(
        load_str(TULIP_YAML, Format::Yaml, "t.yaml", &[])
            .unwrap()
            .name,
        load_str(TULIP_JSON, Format::Json, "t.json", &[])
            .unwrap()
            .name
    );
}

/// A long mantissa that serde_json's default (fast, not correctly rounded) reader takes one
/// ulp away from the nearest f64, which TOML's and YAML's readers return: with
/// `float_roundtrip` all three read the same number and run the same.
const PER_LONG: &str = "0.049914474573455476";

#[test]
fn the_same_scenario_in_toml_yaml_and_json_runs_to_an_identical_summary() {
    let toml = format!(
        r#"
name = "formats"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "1ms" }}
wireless = {{ rate = "1Mbps", delay = "1us", errors = {{ model = "per", per = {PER_LONG} }} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "newreno", mss = "1400B" }}
app = {{ kind = "bulk", bytes = "300KB" }}
"#
    );
    let yaml = format!(
        "name: formats\ntopology:\n  preset: chain\n  wired: {{rate: 10Mbps, delay: 1ms}}\n  \
         wireless:\n    rate: 1Mbps\n    delay: 1us\n    errors: {{model: per, per: {PER_LONG}}}\n\
         flow:\n  - src: fh\n    dst: mh\n    tcp: {{variant: newreno, mss: 1400B}}\n    \
         app: {{kind: bulk, bytes: 300KB}}\n"
    );
    let json = format!(
        r#"{{"name": "formats", "topology": {{"preset": "chain",
            "wired": {{"rate": "10Mbps", "delay": "1ms"}},
            "wireless": {{"rate": "1Mbps", "delay": "1us",
                          "errors": {{"model": "per", "per": {PER_LONG}}}}}}},
            "flow": [{{"src": "fh", "dst": "mh", "tcp": {{"variant": "newreno", "mss": "1400B"}},
                      "app": {{"kind": "bulk", "bytes": "300KB"}}}}]}}"#
    );
    let expected: f64 = PER_LONG.parse().unwrap();
    let summaries: Vec<serde_json::Value> = [
        (toml.as_str(), Format::Toml),
        (yaml.as_str(), Format::Yaml),
        (json.as_str(), Format::Json),
    ]
    .into_iter()
    .map(|(text, format)| {
        let s = load_str(text, format, "formats", &[]).unwrap_or_else(|e| panic!("{e}"));
        let per =
            &serde_json::to_value(&s.topology.wireless.as_ref().unwrap().errors).unwrap()["per"];
        assert_eq!(per.as_f64(), Some(expected), "{format:?} reads per exactly");
        let out =
            lastmile_core::sim::run(&s, &lastmile_core::sim::RunOptions::default()).expect("runs");
        let mut v = serde_json::to_value(&out.summary).unwrap();
        v["engine"].as_object_mut().unwrap().remove("wall_s");
        v
    })
    .collect();
    assert!(
        summaries[0]["flows"][0]["tcp_retransmits"]
            .as_u64()
            .unwrap()
            > 0,
        "losses happen"
    );
    assert_eq!(summaries[1], summaries[0], "YAML runs as TOML");
    assert_eq!(summaries[2], summaries[0], "JSON runs as TOML");
}

#[test]
fn format_follows_the_extension() {
    assert_eq!(Format::from_path(Path::new("a/b.toml")), Some(Format::Toml));
    assert_eq!(Format::from_path(Path::new("b.yml")), Some(Format::Yaml));
    assert_eq!(Format::from_path(Path::new("b.YAML")), Some(Format::Yaml));
    assert_eq!(Format::from_path(Path::new("b.json")), Some(Format::Json));
    assert_eq!(Format::from_path(Path::new("b.ini")), None);
    let e = load_path(Path::new("missing/nowhere.toml"), &[]).unwrap_err();
    assert_eq!(e.file, "missing/nowhere.toml");
    assert!(e.expected.starts_with("cannot read the file"), "{e}");
    let e = load_path(Path::new("scenario.ini"), &[]).unwrap_err();
    assert!(e.to_string().contains(".toml, .yaml, .yml or .json"), "{e}");
}

// ---- bad input: each case gives its own path and message -----------------------------

#[test]
fn unknown_key_is_refused_with_did_you_mean() {
    let e = tulip_err("rwnd = ", "rwind = ");
    assert_eq!(e.path, "flow[0].tcp.rwind");
    assert_eq!(e.value, None);
    assert!(
        e.expected
            .starts_with("unknown key, expected one of variant, recovery, cc, pacing, mss, rwnd,"),
        "{e}"
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean \"rwnd\"?"));
    let line = e.to_string();
    assert!(
        line.starts_with(
            "tulip.toml: flow[0].tcp.rwind: unknown key, expected one of variant, recovery, cc, pacing, mss, rwnd, "
        ),
        "{line}"
    );
    assert!(line.ends_with(" (did you mean \"rwnd\"?)"), "{line}");
    assert!(!line.contains('\n'));

    let e = tulip_err("[topology]", "[topolgy]");
    assert_eq!(e.path, "topolgy");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"topology\"?"));
}

#[test]
fn unknown_keys_inside_tagged_tables_name_the_key() {
    let e = tulip_err("ber = 15e-6", "bre = 15e-6");
    assert_eq!(e.path, "topology.wireless.errors.bre");
    assert_eq!(e.expected, "unknown key, expected one of ber");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"ber\"?"));

    let e = tulip_err("bytes = \"10MB\"", "bytes = \"10MB\", byts = \"1MB\"");
    assert_eq!(e.path, "flow[0].app.byts");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"bytes\"?"));

    // Serde ignores unknown keys next to a unit variant; the loader does not.
    let e = tulip_err(
        "model = \"ber\", ber = 15e-6",
        "model = \"none\", ber = 15e-6",
    );
    assert_eq!(e.path, "topology.wireless.errors.ber");
    assert_eq!(e.expected, "unknown key, expected one of model");
}

#[test]
fn unknown_tag_values_list_the_variants() {
    let e = tulip_err("model = \"ber\"", "model = \"bre\"");
    assert_eq!(e.path, "topology.wireless.errors.model");
    assert_eq!(e.value.as_deref(), Some("\"bre\""));
    assert_eq!(
        e.expected,
        "one of none, ber, per, gilbert_elliott, burst, on_off, drop_list"
    );
    assert_eq!(e.hint.as_deref(), Some("did you mean \"ber\"?"));

    let e = tulip_err("kind = \"bulk\"", "kind = \"blk\"");
    assert_eq!(e.path, "flow[0].app.kind");
    assert_eq!(
        e.expected,
        "one of bulk, poisson, udp_saturate, request_response"
    );

    let e = tulip_err("variant = \"reno\"", "variant = \"renoo\"");
    assert_eq!(e.path, "flow[0].tcp.variant");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"reno\"?"));
}

#[test]
fn bad_unit_names_the_value_and_the_units() {
    let e = tulip_err("\"42KB\"", "\"42\"");
    assert_eq!(e.path, "flow[0].tcp.rwnd");
    assert_eq!(e.value.as_deref(), Some("\"42\""));
    assert!(e.expected.starts_with("a size with a unit of B, KB"), "{e}");
    assert!(e
        .to_string()
        .starts_with("tulip.toml: flow[0].tcp.rwnd: got \"42\", expected a size with a unit"));

    let e = tulip_err("\"500ms\"", "\"500 parsecs\"");
    assert_eq!(e.path, "flow[0].tcp.timer_granularity");
    assert!(e.expected.contains("ns, us, ms, s or min"), "{e}");

    // Inside a tagged table, too.
    let e = tulip_err("bytes = \"10MB\"", "bytes = \"10Mbps\"");
    assert_eq!(e.path, "flow[0].app.bytes");
    assert_eq!(e.value.as_deref(), Some("\"10Mbps\""));
}

#[test]
fn negative_rate_is_refused_clearly() {
    let e = tulip_err("\"10Mbps\"", "\"-10Mbps\"");
    assert_eq!(e.path, "topology.wired.rate");
    assert_eq!(e.value.as_deref(), Some("\"-10Mbps\""));
    assert_eq!(e.expected, "a positive rate (e.g. \"10Mbps\")");
    let e = tulip_err("\"1Mbps\"", "\"0Mbps\"");
    assert_eq!(e.path, "topology.wireless.rate");
}

#[test]
fn probability_above_one_is_refused() {
    let e = tulip_err("15e-6", "1.5");
    assert_eq!(e.path, "topology.wireless.errors.ber");
    assert_eq!(e.value.as_deref(), Some("1.5"));
    assert_eq!(e.expected, "a probability between 0 and 1");
}

#[test]
fn flow_to_a_missing_node_lists_the_nodes() {
    let e = tulip_err("dst = \"mh\"", "dst = \"mhh\"");
    assert_eq!(e.path, "flow[0].dst");
    assert_eq!(e.value.as_deref(), Some("\"mhh\""));
    assert_eq!(e.expected, "one of the nodes fh, bs, mh");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"mh\"?"));

    let e = tulip_err("dst = \"mh\"", "dst = \"fh\"");
    assert_eq!(e.path, "flow[0].dst");
    assert!(e.expected.contains("other than the source"), "{e}");
}

#[test]
fn unreachable_destination_is_refused() {
    let island = FOUR_NODE.replace(
        "nodes = [\"server\", \"router\", \"ap\", \"laptop\"]",
        "nodes = [\"server\", \"router\", \"ap\", \"laptop\", \"island\"]",
    );
    let island = format!(
        "{island}\n[[flow]]\nsrc = \"server\"\ndst = \"island\"\napp = {{ kind = \"bulk\", bytes = \"1KB\" }}\n"
    );
    let e = load_str(&island, Format::Toml, "four.toml", &[]).unwrap_err();
    assert_eq!(e.path, "flow[2].dst");
    assert_eq!(e.value.as_deref(), Some("\"island\""));
    assert!(
        e.expected.starts_with("a node reachable from \"server\""),
        "{e}"
    );
}

#[test]
fn empty_file_says_what_a_scenario_needs() {
    for (text, format) in [
        ("", Format::Toml),
        ("  \n# only a comment\n", Format::Toml),
        ("", Format::Yaml),
        ("---\n", Format::Yaml),
        ("{}", Format::Json),
    ] {
        let e = load_str(text, format, "empty.toml", &[]).unwrap_err();
        assert_eq!(e.path, "");
        assert_eq!(
            e.to_string(),
            "empty.toml: the file is empty; a scenario needs at least `name`, `topology` and one `[[flow]]`"
        );
    }
}

#[test]
fn syntax_errors_give_line_and_column() {
    let e = tulip_err("stop_time = \"3000s\"", "stop_time = \"3000s");
    assert_eq!(e.path, "");
    assert!(
        e.to_string()
            .starts_with("tulip.toml: invalid TOML at line 3, column "),
        "{e}"
    );

    let bad_yaml = TULIP_YAML.replace("  preset: chain", "  preset: [chain");
    let e = load_str(&bad_yaml, Format::Yaml, "tulip.yaml", &[]).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("tulip.yaml: invalid YAML at line "),
        "{e}"
    );
    assert!(e.expected.contains(", column "), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn missing_required_key_names_it() {
    let e = tulip_err("src = \"fh\"\n", "");
    assert_eq!(e.path, "flow[0].src");
    assert_eq!(
        e.to_string(),
        "tulip.toml: flow[0].src: missing required key"
    );

    let e = tulip_err("model = \"ber\", ", "");
    assert_eq!(e.path, "topology.wireless.errors.model");
    assert!(
        e.expected
            .starts_with("missing required key, expected one of none, ber"),
        "{e}"
    );

    let e = tulip_err("name = \"tulip-basic\"\n", "");
    assert_eq!(e.path, "name");
}

#[test]
fn wrong_type_says_what_was_expected() {
    let e = tulip_err("seed = 1", "seed = \"one\"");
    assert_eq!(e.path, "seed");
    assert_eq!(e.value.as_deref(), Some("\"one\""));
    assert_eq!(e.expected, "a whole number, 0 or more");

    let e = tulip_err("\"42KB\"", "42");
    assert_eq!(e.path, "flow[0].tcp.rwnd");
    assert_eq!(e.value.as_deref(), Some("42"));
    assert_eq!(e.expected, "a size with a unit, e.g. \"42KB\"");

    let e = tulip_err("variant = \"reno\"", "variant = 3");
    assert_eq!(e.expected, "one of tahoe, reno, newreno, sack, fack");

    let e = tulip_err(
        "app = { kind = \"bulk\", bytes = \"10MB\" }",
        "app = \"bulk\"",
    );
    assert_eq!(e.path, "flow[0].app");
    assert_eq!(
        e.expected,
        "a table with `kind` set to one of bulk, poisson, udp_saturate, request_response"
    );

    let e = tulip_err("ber = 15e-6", "ber = \"low\"");
    assert_eq!(e.path, "topology.wireless.errors.ber");
    assert_eq!(e.expected, "a number");
}

// ---- overrides ---------------------------------------------------------------------------

#[test]
fn overrides_use_the_files_paths() {
    let s = tulip_set(&[
        "flow.0.tcp.variant=newreno",
        "topology.wireless.errors.ber=3.9e-6",
        "flow.0.tcp.timestamps=true",
        "stop_time=10s",
        "seed=3",
    ])
    .unwrap();
    assert_eq!(s.flows[0].tcp.variant, Some(TcpVariant::Newreno));
    assert_eq!(
        s.topology.wireless.as_ref().unwrap().errors,
        ErrorModelSpec::Ber {
            ber: Probability(3.9e-6)
        }
    );
    assert!(s.flows[0].tcp.timestamps);
    assert_eq!(s.stop_time.sim().as_nanos(), 10_000_000_000);
    assert_eq!(s.seed, 3);
    // Untouched values stay.
    assert_eq!(s.flows[0].tcp.rwnd.bytes(), 42_000);

    // Missing tables are created; whole tables can be given inline.
    let s = tulip_set(&[
        "topology.wired.reverse_errors={ model = \"per\", per = 0.5 }",
        "base_station.node=bs",
    ])
    .unwrap();
    assert_eq!(
        s.topology.wired.unwrap().reverse_errors,
        ErrorModelSpec::Per {
            per: Probability(0.5)
        }
    );
    // Later overrides win.
    assert_eq!(tulip_set(&["seed=3", "seed=4"]).unwrap().seed, 4);
}

#[test]
fn override_errors_name_the_set() {
    let e = tulip_set(&["flow.1.tcp.variant=newreno"]).unwrap_err();
    assert_eq!(e.file, "tulip.toml (--set flow.1.tcp.variant=newreno)");
    assert_eq!(e.path, "flow[1]");
    assert_eq!(e.expected, "an index below 1 (the array has 1 entry)");

    let e = tulip_set(&["flow.0.tcp.rwind=1KB"]).unwrap_err();
    assert_eq!(e.path, "flow[0].tcp.rwind");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"rwnd\"?"));
    assert!(
        e.to_string()
            .starts_with("tulip.toml (--set flow.0.tcp.rwind=1KB): flow[0].tcp.rwind: unknown key"),
        "{e}"
    );

    let e = tulip_set(&["flow.0.tcp.rwnd=42"]).unwrap_err();
    assert_eq!(e.to_string(), "tulip.toml (--set flow.0.tcp.rwnd=42): flow[0].tcp.rwnd: got 42, expected a size with a unit, e.g. \"42KB\"");

    let e = tulip_set(&["topology.wireless.errors.ber=2"]).unwrap_err();
    assert_eq!(e.path, "topology.wireless.errors.ber");
    assert_eq!(e.file, "tulip.toml (--set topology.wireless.errors.ber=2)");

    // A semantic error caused by an override is traced to it, too.
    let e = tulip_set(&["flow.0.tcp.rwnd=1KB"]).unwrap_err();
    assert_eq!(e.path, "flow[0].tcp.rwnd");
    assert_eq!(e.file, "tulip.toml (--set flow.0.tcp.rwnd=1KB)");

    // An error elsewhere still names only the file.
    let bad = TULIP.replace("\"42KB\"", "\"42\"");
    let e = load_str(&bad, Format::Toml, "tulip.toml", &sets(&["seed=3"])).unwrap_err();
    assert_eq!(e.file, "tulip.toml");

    let e = tulip_set(&["seed"]).unwrap_err();
    assert!(e.expected.contains("key.path=value"), "{e}");
}

// ---- schema ------------------------------------------------------------------------------

#[test]
fn json_schema_denies_unknown_keys_and_carries_unit_patterns() {
    let schema = json_schema();
    let text = serde_json::to_string(&schema).unwrap();
    let reparsed: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(reparsed, schema);
    assert_eq!(schema["title"], "lastmile scenario");
    assert!(schema["description"].as_str().unwrap().contains("10Mbps"));
    assert_eq!(schema["additionalProperties"], false);
    let defs = &schema["definitions"];
    assert_eq!(defs["TcpSpec"]["additionalProperties"], false);
    assert_eq!(defs["LinkSpec"]["additionalProperties"], false);
    let rate = defs["Rate"]["pattern"].as_str().unwrap();
    assert!(rate.contains("Mbps") && rate.ends_with('$'), "{rate}");
    assert!(defs["ByteSize"]["pattern"]
        .as_str()
        .unwrap()
        .contains("KiB"));
    assert!(defs["Duration"]["pattern"].as_str().unwrap().contains("ms"));
    assert!(defs["QueueLimit"]["pattern"]
        .as_str()
        .unwrap()
        .contains("pkt"));
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        required.contains(&"flow") && required.contains(&"topology"),
        "{required:?}"
    );
    assert!(text.contains("\"gilbert_elliott\""));
}

// ---- topology ----------------------------------------------------------------------------

#[test]
fn chain_preset_resolves_to_fh_bs_mh() {
    let s = load_str(TULIP, Format::Toml, "t.toml", &[]).unwrap();
    let t = resolve_topology(&s).unwrap();
    assert_eq!(t.nodes, ["fh", "bs", "mh"]);
    let summary: Vec<_> = t
        .links
        .iter()
        .map(|l| (l.name.as_str(), l.from, l.to, l.wireless, l.spec.rate.bps()))
        .collect();
    assert_eq!(
        summary,
        [
            ("wired", 0, 1, false, 10_000_000),
            ("wireless", 1, 2, true, 1_000_000)
        ]
    );
    let s = tulip_set(&[
        "topology.wireless.wireless=false",
        "topology.wired.wireless=true",
    ])
    .unwrap();
    let t = resolve_topology(&s).unwrap();
    assert_eq!((t.links[0].wireless, t.links[1].wireless), (true, false));
}

#[test]
fn explicit_four_node_topology_resolves() {
    let s = load_path(&fixture("four-node.toml"), &[]).unwrap();
    let t = resolve_topology(&s).unwrap();
    assert_eq!(t.nodes, ["server", "router", "ap", "laptop"]);
    let summary: Vec<_> = t
        .links
        .iter()
        .map(|l| (l.name.as_str(), l.from, l.to, l.wireless))
        .collect();
    assert_eq!(
        summary,
        [
            ("server-router", 0, 1, false),
            ("backhaul", 1, 2, false),
            ("ap-laptop", 2, 3, true)
        ]
    );
    assert_eq!(
        t.links[2].spec.errors,
        ErrorModelSpec::Per {
            per: Probability(0.01)
        }
    );
}

#[test]
fn preset_and_explicit_topologies_do_not_mix() {
    let e = tulip_err("preset = \"chain\"", "preset = \"chain\"\nnodes = [\"a\"]");
    assert_eq!(e.path, "topology.nodes");
    assert!(e.expected.starts_with("not allowed with a preset"), "{e}");

    let e = tulip_err("preset = \"chain\"\n", "");
    assert_eq!(e.path, "topology.wired");
    assert!(e.expected.contains("use"), "{e}");
    assert!(e.expected.contains("`links`"), "{e}");

    let e = load_str(
        &FOUR_NODE.replace(
            "[base_station]",
            "[topology.wired]\nrate = \"1Mbps\"\n\n[base_station]",
        ),
        Format::Toml,
        "four.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "topology.wired");

    let e = load_str(
        &FOUR_NODE.replace("to = \"laptop\"", "to = \"lapto\""),
        Format::Toml,
        "four.toml",
        &[],
    )
    .unwrap_err();
    assert_eq!(e.path, "topology.links[2].to");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"laptop\"?"));
}

// ---- recovery and congestion control: `variant` as the shorthand of both ----------------

#[test]
fn variant_shorthand_sets_recovery_and_reno_window_rule() {
    let f = &tulip_set(&[]).unwrap().flows[0];
    assert_eq!(f.tcp.recovery_kind(), RecoveryKind::Reno);
    assert_eq!(f.tcp.cc_spec().name(), "reno");
}

#[test]
fn recovery_and_cc_may_replace_the_variant() {
    let s = tulip_with(r#"variant = "reno""#, r#"recovery = "tahoe", cc = "reno""#).unwrap();
    assert_eq!(s.flows[0].tcp.variant, None);
    assert_eq!(s.flows[0].tcp.recovery_kind(), RecoveryKind::Tahoe);
}

#[test]
fn recovery_agreeing_with_the_variant_is_accepted() {
    let s = tulip_set(&["flow.0.tcp.recovery=reno", "flow.0.tcp.cc=reno"]).unwrap();
    assert_eq!(s.flows[0].tcp.recovery_kind(), RecoveryKind::Reno);
}

#[test]
fn recovery_contradicting_the_variant_names_the_field_and_the_fix() {
    let e = tulip_with(
        r#"variant = "reno""#,
        r#"variant = "reno", recovery = "newreno""#,
    )
    .unwrap_err();
    assert_eq!(e.path, "flow[0].tcp.recovery");
    let line = e.to_string();
    assert!(
        line.contains(r#"got "newreno", expected "reno" as `variant = "reno"` implies"#),
        "{line}"
    );
}

#[test]
fn a_set_of_recovery_or_cc_replaces_its_part_of_the_variant() {
    let s = tulip_set(&["flow.0.tcp.cc=cubic"]).unwrap();
    assert_eq!(s.flows[0].tcp.recovery_kind(), RecoveryKind::Reno);
    assert_eq!(s.flows[0].tcp.cc_spec().name(), "cubic");
    let s = tulip_set(&["flow.0.tcp.recovery=newreno"]).unwrap();
    assert_eq!(s.flows[0].tcp.recovery_kind(), RecoveryKind::Newreno);
    assert_eq!(s.flows[0].tcp.cc_spec().name(), "reno");
}

#[test]
fn an_unknown_congestion_control_lists_the_known_ones() {
    let e = tulip_set(&["flow.0.tcp.cc=cubik"]).unwrap_err();
    assert_eq!(e.path, "flow[0].tcp.cc");
    assert!(e.to_string().contains("reno"), "{e}");
}
