//! A golden case for every entry of every pluggable family: each congestion control, loss
//! recovery, MAC, link layer, base-station agent, error model, application and transport.
//! The entries are read from the families' own JSON Schemas (the names a scenario file may
//! write), not from a list kept here: a new entry without a case fails
//! `every_registry_entry_has_a_golden_case`, and a case for an entry that no longer exists
//! fails it too.
//!
//! Each case runs the entry where it does its work (a lossy hop for the congestion controls
//! and recoveries, the paper's own set-up for the agents, from the reproductions' scenario
//! files) and is compared value for value with `tests/golden/registry.json`, as
//! `golden_summaries` does for the examples. Re-recording (only when a change of behaviour
//! is intended; say so in the commit and review the JSON diff):
//!
//!     LASTMILE_RECORD_GOLDEN=1 cargo test -p lastmile-core --test integration registry_goldens

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lastmile_core::agents::AgentSpec;
use lastmile_core::apps::AppSpec;
use lastmile_core::error_model::ErrorModelSpec;
use lastmile_core::scenario::{LinkLayerSpec, MacSpec};
use lastmile_core::tcp::spec::RecoveryKind;
use lastmile_core::tcp::CcSpec;
use lastmile_core::transport::TransportKind;
use schemars::JsonSchema;
use serde_json::Value;

use super::golden_summaries::{check_against_golden, Case, Source, ADHOC_UDP};

const CHAIN: &str = "chain-per5-newreno.toml";
const TULIP_BASIC: &str = "tulip-basic.toml";
const SURVEY_MECH: &str = "survey_mech.toml";
/// The survey-mechanism path with 5 % of its radio's data frames lost.
const LOSSY: &str = "topology.wireless.errors={model=\"per\", per=0.05}";

/// The names a family's schema lets a scenario write: a plain enum's strings, or the
/// `kind` / `model` tag of each tagged form (short string forms included).
fn names_in(schema: &Value, root: &Value, out: &mut BTreeSet<String>) {
    if let Some(Value::String(r)) = schema.get("$ref") {
        let name = r.rsplit('/').next().unwrap_or_default();
        if let Some(def) = root["definitions"].get(name) {
            names_in(def, root, out);
        }
    }
    let strings = |v: Option<&Value>, out: &mut BTreeSet<String>| {
        if let Some(Value::Array(values)) = v {
            out.extend(values.iter().filter_map(Value::as_str).map(String::from));
        }
        if let Some(Value::String(s)) = v {
            out.insert(s.clone());
        }
    };
    strings(schema.get("enum"), out);
    for tag in ["kind", "model"] {
        let property = &schema["properties"][tag];
        strings(property.get("enum"), out);
        strings(property.get("const"), out);
    }
    for combinator in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema.get(combinator) {
            for branch in branches {
                names_in(branch, root, out);
            }
        }
    }
}

/// The entries of the family whose scenario type is `T`.
fn registry<T: JsonSchema>() -> BTreeSet<String> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).expect("schema serialises");
    let mut names = BTreeSet::new();
    names_in(&schema, &schema, &mut names);
    names
}

/// Every family, by the name its cases carry.
fn families() -> BTreeMap<&'static str, BTreeSet<String>> {
    BTreeMap::from([
        ("cc", registry::<CcSpec>()),
        ("recovery", registry::<RecoveryKind>()),
        ("mac", registry::<MacSpec>()),
        ("link", registry::<LinkLayerSpec>()),
        ("agent", registry::<AgentSpec>()),
        ("errors", registry::<ErrorModelSpec>()),
        ("app", registry::<AppSpec>()),
        ("transport", registry::<TransportKind>()),
    ])
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn case(name: String, source: Source, overrides: Vec<String>) -> Case {
    let overrides: Vec<&'static str> = overrides.into_iter().map(leak).collect();
    Case {
        name: leak(name),
        source,
        overrides: Box::leak(overrides.into_boxed_slice()),
        traces: &[],
    }
}

fn set(pairs: &[&str]) -> Vec<String> {
    pairs.iter().map(|s| s.to_string()).collect()
}

/// The case for `entry` of `family`: the set-up in which the entry does its work. `None`
/// for an entry this file does not know (a new one: write its case here).
fn case_for(family: &str, entry: &str) -> Option<Case> {
    let name = format!("{family}-{entry}");
    let chain = |extra: Vec<String>| {
        let mut o = set(&["flow.0.app.bytes=1MB"]);
        o.extend(extra);
        Source::Example(CHAIN).with(o)
    };
    // The survey's mechanism path (ideal MAC, 2 Mbps, Reno), lossy, 500 KB.
    let survey = |extra: Vec<String>| {
        let mut o = set(&[LOSSY, "flow.0.app.bytes=500KB"]);
        o.extend(extra);
        Source::Experiment(SURVEY_MECH).with(o)
    };
    let (source, overrides) = match (family, entry) {
        ("cc", cc) => chain(vec![format!("flow.0.tcp.cc={cc}")]),
        ("recovery", r) => chain(vec![format!("flow.0.tcp.variant={r}")]),
        ("mac", "p2p") => chain(vec![]),
        ("mac", "duplex") => Source::Experiment("fec_arq.toml").with(set(&[
            "flow.0.app.bytes=20KB",
            "topology.wireless.errors={model=\"per\", per=0.05}",
            "topology.wireless.reverse_errors={model=\"none\"}",
        ])),
        ("mac", mac @ ("ideal" | "dcf" | "fama")) => Source::Example(TULIP_BASIC).with(vec![
            format!("topology.wireless.mac={mac}"),
            "flow.0.app.bytes=500KB".into(),
        ]),
        ("link", link @ ("none" | "stop_and_wait" | "tulip" | "dda")) => {
            survey(vec![format!("topology.wireless.link={link}")])
        }
        ("link", link @ ("rlp" | "airmail")) => Source::Experiment("fec_arq.toml").with(vec![
            format!("topology.wireless.link={link}"),
            "flow.0.app.bytes=20KB".into(),
        ]),
        ("agent", agent @ ("none" | "snoop" | "wtcp" | "itcp")) => {
            chain(vec![format!("base_station.agent={agent}")])
        }
        ("agent", "lle") => Source::Example("lle-adhoc.toml").with(vec![]),
        ("agent", "mtcp") => Source::Experiment("survey_handoff.toml").with(set(&[
            "base_station=[{node=\"gw\", agent=\"mtcp\"}]",
            "flow.0.app.bytes=2MB",
        ])),
        ("agent", kind @ ("wap" | "wtcp_sinha")) => {
            Source::Experiment("wide_area_web.toml").with(vec![
                format!("base_station.agent={kind}"),
                format!("flow.0.transport={kind}"),
                "flow.0.app.objects=3".into(),
            ])
        }
        ("agent", "dda") => survey(set(&[
            "base_station=[{node=\"mh\", agent={kind=\"dda\", d=\"100ms\"}}]",
            "topology.wireless.link=dda",
        ])),
        ("agent", "eln") => survey(set(&[
            "base_station=[{node=\"mh\", agent={kind=\"eln\"}}]",
            "flow.0.tcp.eln=true",
        ])),
        ("agent", "ebsn") => Source::Experiment("survey_mech_ebsn.toml")
            .with(set(&["flow.0.app.bytes=1MB", "stop_time=120s"])),
        ("errors", model) => {
            let table = match model {
                "none" => "{model=\"none\"}",
                "ber" => "{model=\"ber\", ber=2e-5}",
                "per" => "{model=\"per\", per=0.03}",
                "gilbert_elliott" => {
                    "{model=\"gilbert_elliott\", mean_good=\"2s\", mean_bad=\"200ms\", \
                     good_ber=1e-6, bad_ber=1e-3}"
                }
                "burst" => "{model=\"burst\", length=3, every=\"100KB\"}",
                "on_off" => "{model=\"on_off\", mean_on=\"1s\", mean_off=\"2s\", on_loss=0.3}",
                "drop_list" => "{model=\"drop_list\", packets=[5, 6, 40, 41, 42]}",
                _ => return None,
            };
            chain(vec![format!("topology.wireless.errors={table}")])
        }
        ("app", "bulk") => chain(vec![]),
        ("app", "poisson") => chain(set(&[
            "flow.0.app={kind=\"poisson\", rate=\"500kbps\", bytes=\"500KB\"}",
        ])),
        ("app", "udp_saturate") => Source::Inline(ADHOC_UDP).with(vec![]),
        ("app", "request_response") => {
            Source::Experiment("wide_area_web.toml").with(set(&["flow.0.app.objects=3"]))
        }
        ("transport", "tcp") => chain(set(&["flow.0.transport=tcp"])),
        ("transport", kind @ ("wap" | "wtcp_sinha")) => {
            return case_for("agent", kind).map(|c| Case {
                name: leak(format!("transport-{kind}")),
                ..c
            })
        }
        _ => return None,
    };
    Some(case(name, source, overrides))
}

impl Source {
    fn with(self, overrides: Vec<String>) -> (Source, Vec<String>) {
        (self, overrides)
    }
}

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/registry.json")
}

fn all_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (family, names) in families() {
        for name in names {
            if let Some(c) = case_for(family, &name) {
                out.push(c);
            }
        }
    }
    out
}

#[test]
fn every_registry_entry_has_a_golden_case() {
    let families = families();
    for (family, names) in &families {
        assert!(
            names.len() >= 2,
            "{family}: the schema gave {names:?}; names_in no longer reads it"
        );
    }
    let missing: Vec<String> = families
        .iter()
        .flat_map(|(family, names)| {
            names
                .iter()
                .filter(|n| case_for(family, n).is_none())
                .map(move |n| format!("{family} = \"{n}\""))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "registry entries without a golden case (add one to `case_for`): {missing:?}"
    );
}

#[test]
fn every_registry_entry_runs_as_recorded() {
    check_against_golden(&golden_path(), &all_cases());
}
