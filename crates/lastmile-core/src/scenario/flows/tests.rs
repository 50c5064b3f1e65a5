//! `[[flow]]` entries expanded into flows: counts, node lists and patterns, names, groups,
//! staggered starts, and each refusal at its own path.

use super::*;
use crate::scenario::{load_str, resolve_topology, Format};

/// A `wlan` cell of `mobiles` behind `fh`, and the given `[[flow]]` entries.
fn wlan(mobiles: u32, flows: &str) -> Result<Scenario, ScenarioError> {
    let text = format!(
        r#"
name = "t"
[topology]
preset = "wlan"
mobiles = {mobiles}
wired = {{ rate = "10Mbps" }}
wireless = {{ rate = "11Mbps", mac = {{ kind = "dcf", phy = "802.11b" }} }}
{flows}
"#
    );
    load_str(&text, Format::Toml, "t.toml", &[])
}

/// (name, group, src, dst, start in ms) of every flow of `s`.
fn expanded(s: &Scenario) -> Vec<(String, String, String, String, u64)> {
    let topo = resolve_topology(s).unwrap();
    let e = expand_flows(s, &topo).unwrap();
    e.flows
        .iter()
        .map(|f| {
            (
                f.name.clone(),
                e.groups[f.group].name.clone(),
                topo.nodes[f.src].clone(),
                topo.nodes[f.dst].clone(),
                f.start.as_nanos() / 1_000_000,
            )
        })
        .collect()
}

const BULK: &str = r#"app = { kind = "bulk", bytes = "1MB" }"#;

#[test]
fn count_makes_alike_flows_named_after_the_entry_with_staggered_starts() {
    let s = wlan(
        1,
        &format!(
            "[[flow]]\nname = \"bg\"\ncount = 3\nsrc = \"fh\"\ndst = \"ap\"\nstart = \"1s\"\n\
             stagger = \"100ms\"\n{BULK}"
        ),
    )
    .unwrap();
    assert_eq!(
        expanded(&s),
        [
            ("bg.1".into(), "bg".into(), "fh".into(), "ap".into(), 1000),
            ("bg.2".into(), "bg".into(), "fh".into(), "ap".into(), 1100),
            ("bg.3".into(), "bg".into(), "fh".into(), "ap".into(), 1200),
        ]
    );
}

#[test]
fn a_pattern_reaches_every_mobile_of_the_cell_in_order() {
    let s = wlan(
        10,
        &format!("[[flow]]\nsrc = \"fh\"\ndst = \"mh*\"\n{BULK}"),
    )
    .unwrap();
    let flows = expanded(&s);
    let dsts: Vec<&str> = flows.iter().map(|f| f.3.as_str()).collect();
    assert_eq!(
        dsts,
        ["mh1", "mh2", "mh3", "mh4", "mh5", "mh6", "mh7", "mh8", "mh9", "mh10"],
        "topology order, not text order"
    );
    assert_eq!(
        flows[0].0, "flow0.1",
        "an unnamed entry of several is flow<entry>"
    );
    assert!(flows.iter().all(|f| f.1 == "flow0"));
}

#[test]
fn a_count_beyond_the_listed_nodes_goes_round_them() {
    let s = wlan(
        3,
        &format!(
            "[[flow]]\nname = \"x\"\ncount = 5\nsrc = \"fh\"\ndst = [\"mh3\", \"mh1\"]\n{BULK}"
        ),
    )
    .unwrap();
    let dsts: Vec<String> = expanded(&s).into_iter().map(|f| f.3).collect();
    assert_eq!(dsts, ["mh3", "mh1", "mh3", "mh1", "mh3"]);
}

#[test]
fn a_single_flow_keeps_its_old_default_name_and_is_its_own_group() {
    let s = wlan(
        2,
        &format!(
            "[[flow]]\nsrc = \"fh\"\ndst = \"mh1\"\n{BULK}\n[[flow]]\nsrc = \"fh\"\ndst = \"mh2\"\n\
             {BULK}"
        ),
    )
    .unwrap();
    let flows = expanded(&s);
    assert_eq!(
        (flows[0].0.as_str(), flows[0].1.as_str()),
        ("fh-mh1-0", "fh-mh1-0")
    );
    assert_eq!(
        (flows[1].0.as_str(), flows[1].1.as_str()),
        ("fh-mh2-1", "fh-mh2-1")
    );
}

#[test]
fn entries_sharing_a_group_report_together_in_first_appearance_order() {
    let s = wlan(
        4,
        &format!(
            "[[flow]]\nname = \"lle\"\ngroup = \"measured\"\nsrc = \"fh\"\ndst = [\"mh1\", \"mh2\"]\n\
             {BULK}\n[[flow]]\nname = \"bg\"\nbackground = true\ncount = 2\nsrc = \"fh\"\n\
             dst = \"ap\"\n{BULK}\n[[flow]]\nname = \"plain\"\ngroup = \"measured\"\nsrc = \"fh\"\n\
             dst = [\"mh3\", \"mh4\"]\n{BULK}"
        ),
    )
    .unwrap();
    let topo = resolve_topology(&s).unwrap();
    let e = expand_flows(&s, &topo).unwrap();
    assert_eq!(
        e.groups,
        [
            FlowGroup {
                name: "measured".into(),
                background: false
            },
            FlowGroup {
                name: "bg".into(),
                background: true
            },
        ]
    );
    let groups: Vec<usize> = e.flows.iter().map(|f| f.group).collect();
    assert_eq!(groups, [0, 0, 1, 1, 0, 0]);
}

#[test]
fn every_refusal_names_its_path() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "count = 0\nsrc = \"fh\"\ndst = \"ap\"",
            "flow[0].count",
            "1 to 16384",
        ),
        (
            "src = \"fh\"\ndst = \"zz*\"",
            "flow[0].dst",
            "a pattern matching",
        ),
        ("src = \"fh\"\ndst = []", "flow[0].dst", "at least one node"),
        (
            "src = \"fh\"\ndst = [\"mh1\", \"mh9\"]",
            "flow[0].dst[1]",
            "one of the nodes",
        ),
        (
            "count = 2\nsrc = [\"mh1\", \"fh\"]\ndst = [\"mh2\", \"fh\"]",
            "flow[0].dst",
            "a node other than the source",
        ),
        (
            "group = \"a/b\"\nsrc = \"fh\"\ndst = \"ap\"",
            "flow[0].group",
            "group name",
        ),
        (
            "count = 3\nsrc = \"fh\"\ndst = \"ap\"\nstagger = \"100000000s\"",
            "flow[0].stagger",
            "starts by",
        ),
    ];
    for (entry, path, expected) in cases {
        let e = wlan(2, &format!("[[flow]]\n{entry}\n{BULK}")).unwrap_err();
        assert_eq!(e.path, *path, "{entry}: {e}");
        assert!(e.to_string().contains(expected), "{entry}: {e}");
    }
}

#[test]
fn flows_of_two_entries_may_not_share_a_name() {
    let e = wlan(
        1,
        &format!(
            "[[flow]]\nname = \"a\"\ncount = 2\nsrc = \"fh\"\ndst = \"ap\"\n{BULK}\n[[flow]]\n\
             name = \"a.2\"\nsrc = \"fh\"\ndst = \"mh1\"\n{BULK}"
        ),
    )
    .unwrap_err();
    assert_eq!(e.path, "flow[1].name");
    assert!(e.expected.contains("flow[0] also makes \"a.2\""), "{e}");
}

#[test]
fn a_group_is_background_or_not_in_every_entry() {
    let e = wlan(
        1,
        &format!(
            "[[flow]]\ngroup = \"g\"\nsrc = \"fh\"\ndst = \"ap\"\n{BULK}\n[[flow]]\ngroup = \"g\"\n\
             background = true\nsrc = \"fh\"\ndst = \"mh1\"\n{BULK}"
        ),
    )
    .unwrap_err();
    assert_eq!(e.path, "flow[1].background");
    assert!(e.expected.contains("same group \"g\""), "{e}");
}

#[test]
fn the_run_holds_at_most_flows_max_flows_in_all() {
    let entry = |n: usize| format!("[[flow]]\ncount = {n}\nsrc = \"fh\"\ndst = \"ap\"\n{BULK}\n");
    let e = wlan(1, &format!("{}{}", entry(FLOWS_MAX - 1), entry(2))).unwrap_err();
    assert_eq!(e.path, "flow");
    assert!(e.to_string().contains("got 16385 flows"), "{e}");
    wlan(1, &format!("{}{}", entry(FLOWS_MAX - 1), entry(1))).unwrap();
}

#[test]
fn star_stands_for_any_run_of_characters() {
    for (pattern, name, matches) in [
        ("mh*", "mh12", true),
        ("mh*", "mh", true),
        ("mh*", "fh", false),
        ("*", "anything", true),
        ("m*1", "mh11", true),
        ("m*1", "mh12", false),
        ("a*a", "a", false),
        ("a*b*c", "axxbyyc", true),
        ("a*b*c", "axxcyyb", false),
        ("fh", "fh", true),
        ("fh", "fh1", false),
    ] {
        assert_eq!(
            matches_pattern(pattern, name),
            matches,
            "{pattern} ~ {name}"
        );
    }
}
