//! The resolved scenario: what a run ran, written out as a scenario document that loads
//! again (the run summary's `scenario`, the run page's "Scenario" section).
//!
//! It is the checked `Scenario` serialized, so every key is there with its default filled
//! in and its unit spelled out (`rwnd = "42000B"`), the preset expanded, with four
//! changes: the run's seed replaces the file's; each TCP table names both halves of what
//! runs, `recovery` and `cc` (beside `variant` when the file used the shorthand, which
//! agrees with them), `cc` as its table with every constant filled in; an agent named
//! without its settings (`agent = "snoop"`) is written as the table of its settings,
//! defaults filled in (so is a MAC or link layer named alone, `mac = "dcf"`: the hop's
//! `mac` and `link` are always their tables); and keys left unset (serialized as
//! null: "none", or a default that depends on other keys) are left out, as a file leaves
//! them out. Loading this document
//! gives the same `Scenario`, so running it with the same seed gives the same result.

use serde_json::Value;

use super::base_station::AgentChoice;
use super::model::{BaseStations, Scenario};
use crate::agents::AgentSpec;
use crate::tcp::spec::TcpSpec;

/// `scenario` as run with `seed`, as a scenario document.
pub fn resolved(scenario: &Scenario, seed: u64) -> Value {
    let mut doc = serde_json::to_value(scenario).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut doc {
        map.insert("seed".into(), Value::from(seed));
    }
    fill_agents(&mut doc, scenario);
    resolve_node(&mut doc, None);
    doc
}

/// An agent named without settings, written as its settings table (`{ kind = "snoop",
/// ... }`, every default filled in). The shorthand's own settings table
/// (`[base_station.wtcp]`), when given, already holds them.
fn fill_agents(doc: &mut Value, scenario: &Scenario) {
    let table = |spec: &AgentSpec| match spec {
        AgentSpec::None => None,
        other => serde_json::to_value(other).ok(),
    };
    match &scenario.base_station {
        BaseStations::One(one) => {
            let settings_given = one.snoop.is_some()
                || one.wtcp.is_some()
                || one.itcp.is_some()
                || one.lle.is_some();
            if let (AgentChoice::Name(spec), false) = (&one.agent, settings_given) {
                if let Some(t) = table(spec) {
                    doc["base_station"]["agent"] = t;
                }
            }
        }
        BaseStations::Many(list) => {
            for (i, b) in list.iter().enumerate() {
                if let AgentChoice::Name(spec) = &b.agent {
                    if let Some(t) = table(spec) {
                        doc["base_station"][i]["agent"] = t;
                    }
                }
            }
        }
    }
}

/// Drops nulls and names every TCP table's recovery and congestion control, depth first.
fn resolve_node(node: &mut Value, key: Option<&str>) {
    match node {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            for (k, v) in map.iter_mut() {
                resolve_node(v, Some(k));
            }
            if key == Some("tcp") {
                if let Ok(spec) = serde_json::from_value::<TcpSpec>(Value::Object(map.clone())) {
                    map.insert("recovery".into(), spec.recovery_kind().name().into());
                    let cc = serde_json::to_value(spec.cc_spec()).unwrap_or(Value::Null);
                    map.insert("cc".into(), cc);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| resolve_node(v, None)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load_str, Format};

    const TEXT: &str = r#"
name = "t"
seed = 4
[topology]
preset = "chain"
wired = { rate = "10Mbps" }
wireless = { rate = "1Mbps", errors = { model = "per", per = 0.05 } }
[[flow]]
src = "fh"
dst = "mh"
tcp = { variant = "tahoe", rwnd = "42KB" }
app = { kind = "bulk", bytes = "1MB" }
"#;

    #[test]
    fn an_agent_named_alone_is_written_with_its_settings() {
        for form in [
            "[base_station]\nagent = \"snoop\"",
            "[[base_station]]\nagent = \"snoop\"",
        ] {
            let text = format!("{TEXT}{form}\n");
            let s = load_str(&text, Format::Toml, "t.toml", &[]).unwrap();
            let doc = resolved(&s, 1);
            let agent = if doc["base_station"].is_array() {
                &doc["base_station"][0]["agent"]
            } else {
                &doc["base_station"]["agent"]
            };
            assert_eq!(agent["kind"], "snoop", "{doc}");
            assert!(
                agent.as_object().unwrap().len() > 2,
                "settings filled in: {agent}"
            );
            let again = load_str(&doc.to_string(), Format::Json, "r.json", &[]).unwrap();
            assert_eq!(resolved(&again, 1), doc);
        }
    }

    #[test]
    fn the_resolved_scenario_names_what_ran_and_loads_to_the_same_scenario() {
        let s = load_str(TEXT, Format::Toml, "t.toml", &[]).unwrap();
        let doc = resolved(&s, 9);
        assert_eq!(doc["seed"], 9);
        let tcp = &doc["flow"][0]["tcp"];
        assert_eq!(
            (&tcp["variant"], &tcp["recovery"], &tcp["cc"]),
            (
                &Value::from("tahoe"),
                &Value::from("tahoe"),
                &serde_json::json!({ "kind": "reno" })
            )
        );
        assert_eq!(tcp["rwnd"], "42000B");
        assert_eq!(tcp["min_rto"], "1s", "defaults are filled in");
        assert_eq!(doc["topology"]["wireless"]["queue"], "100pkt");
        assert!(!doc.to_string().contains("null"), "{doc}");
        let again = load_str(&doc.to_string(), Format::Json, "r.json", &[]).unwrap();
        assert_eq!(resolved(&again, 9), doc);
    }

    #[test]
    fn a_mac_and_link_layer_named_alone_are_written_as_their_tables() {
        let overrides = [
            "topology.wireless.mac=dcf".to_string(),
            "topology.wireless.link=stop_and_wait".to_string(),
        ];
        let s = load_str(TEXT, Format::Toml, "t.toml", &overrides).unwrap();
        let doc = resolved(&s, 1);
        let hop = &doc["topology"]["wireless"];
        assert_eq!(
            (
                &hop["mac"]["kind"],
                &hop["mac"]["rts_threshold"],
                &hop["mac"]["cw_rule"]
            ),
            (
                &Value::from("dcf"),
                &Value::from("2347B"),
                &Value::from("dcf")
            ),
            "{hop}"
        );
        assert_eq!(
            hop["link"],
            serde_json::json!({"kind": "stop_and_wait", "retry_limit": 7})
        );
        assert_eq!(
            doc["topology"]["wired"]["mac"],
            serde_json::json!({"kind": "p2p"})
        );
        let again = load_str(&doc.to_string(), Format::Json, "r.json", &[]).unwrap();
        assert_eq!(resolved(&again, 1), doc);
        let (w, w_again) = (
            s.topology.wireless.unwrap(),
            again.topology.wireless.unwrap(),
        );
        assert_eq!((w_again.mac, w_again.link), (w.mac, w.link));
    }

    #[test]
    fn a_cc_named_alone_is_written_as_its_table_with_every_constant() {
        let text = TEXT.replace(r#"variant = "tahoe""#, r#"cc = "cubic""#);
        let s = load_str(
            &text,
            Format::Toml,
            "t.toml",
            &["flow.0.tcp.cc.beta=0.8".into()],
        )
        .unwrap();
        let doc = resolved(&s, 1);
        let cc = &doc["flow"][0]["tcp"]["cc"];
        assert_eq!(
            (&cc["kind"], &cc["beta"], &cc["c"]),
            (&Value::from("cubic"), &Value::from(0.8), &Value::from(0.4))
        );
        let again = load_str(&doc.to_string(), Format::Json, "r.json", &[]).unwrap();
        assert_eq!(again.flows[0].tcp.cc_spec(), s.flows[0].tcp.cc_spec());
        assert_eq!(resolved(&again, 1), doc);
    }
}
