//! The semantic checks one by one: each bad setting is refused at its own path, and the
//! value just inside the limit is accepted (so the check is where the spec puts it).

use super::FLOWS_MAX;
use super::*;

const CHAIN: &str = r#"
name = "t"
[topology]
preset = "chain"
wired = { rate = "10Mbps" }
wireless = { rate = "1Mbps" }
[[flow]]
src = "fh"
dst = "mh"
app = { kind = "bulk", bytes = "1MB" }
"#;

const FOUR: &str = r#"
name = "t"
[topology]
nodes = ["a", "b", "c", "d"]
links = [
  { from = "a", to = "b", rate = "10Mbps" },
  { from = "b", to = "c", rate = "10Mbps" },
  { from = "d", to = "c", rate = "1Mbps" },
]
[[flow]]
src = "a"
dst = "d"
app = { kind = "bulk", bytes = "1MB" }
"#;

fn load(text: &str, overrides: &[&str]) -> Result<Scenario, ScenarioError> {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_str(text, Format::Toml, "t.toml", &overrides)
}

/// The path of the error `overrides` cause on the chain scenario.
fn chain_err(overrides: &[&str]) -> ScenarioError {
    load(CHAIN, overrides).expect_err("must be refused")
}

#[test]
fn scenario_tcp_limits_are_checked_at_their_paths() {
    for (set, path) in [
        ("flow.0.tcp.mss=0B", "flow[0].tcp.mss"),
        ("flow.0.tcp.mss=65496B", "flow[0].tcp.mss"),
        ("flow.0.tcp.rwnd=1459B", "flow[0].tcp.rwnd"),
        ("flow.0.tcp.initial_window=0", "flow[0].tcp.initial_window"),
        (
            "flow.0.tcp.initial_ssthresh=0B",
            "flow[0].tcp.initial_ssthresh",
        ),
        (
            "flow.0.tcp.dupack_threshold=0",
            "flow[0].tcp.dupack_threshold",
        ),
        (
            "flow.0.tcp.timer_granularity=0s",
            "flow[0].tcp.timer_granularity",
        ),
        ("flow.0.tcp.initial_rto=0s", "flow[0].tcp.initial_rto"),
        ("flow.0.tcp.min_rto=61s", "flow[0].tcp.min_rto"),
    ] {
        let e = chain_err(&[set]);
        assert_eq!(e.path, path, "{set}: {e}");
        assert!(e.value.is_some(), "{set}: {e}");
        assert!(e.file.contains("--set"), "{set}: {e}");
    }
    let e = chain_err(&["flow.0.tcp.ack=delayed", "flow.0.tcp.delack_timeout=0s"]);
    assert_eq!(e.path, "flow[0].tcp.delack_timeout");
    // Just inside every limit.
    load(
        CHAIN,
        &[
            "flow.0.tcp.mss=65495B",
            "flow.0.tcp.rwnd=65495B",
            "flow.0.tcp.min_rto=60s",
            "flow.0.tcp.initial_window=1",
            "flow.0.tcp.dupack_threshold=1",
            "flow.0.tcp.timer_granularity=1ns",
        ],
    )
    .unwrap();
}

#[test]
fn scenario_app_link_and_run_limits_are_checked() {
    for (set, path) in [
        ("flow.0.app.bytes=0B", "flow[0].app.bytes"),
        (
            "flow.0.app={ kind = \"poisson\", rate = \"1Mbps\", bytes = \"1MB\", packet_size = \"0B\" }",
            "flow[0].app.packet_size",
        ),
        (
            "flow.0.app={ kind = \"poisson\", rate = \"0Mbps\", bytes = \"1MB\" }",
            "flow[0].app.rate",
        ),
        ("topology.wired.queue=0B", "topology.wired.queue"),
        ("topology.wireless.queue=0pkt", "topology.wireless.queue"),
        ("stop_time=0s", "stop_time"),
        ("flow=[]", "flow"),
    ] {
        let e = chain_err(&[set]);
        assert_eq!(e.path, path, "{set}: {e}");
    }
    let e = chain_err(&["flow=[]"]);
    assert_eq!(e.expected, "at least one `[[flow]]`");
}

#[test]
fn scenario_validate_catches_values_built_in_code() {
    // Values the unit parsers would refuse can still be built in code; validate refuses
    // them too.
    let mut s = load(CHAIN, &[]).unwrap();
    s.topology.wired.as_mut().unwrap().rate = crate::units::Rate(0);
    let e = validate(&s, "code").unwrap_err();
    assert_eq!(e.path, "topology.wired.rate");
    assert_eq!(e.file, "code");
    assert!(e
        .to_string()
        .starts_with("code: topology.wired.rate: got \"0bps\", expected a positive rate"));
}

#[test]
fn scenario_base_station_node_must_exist() {
    let e = chain_err(&["base_station.node=bss"]);
    assert_eq!(e.path, "base_station.node");
    assert_eq!(e.hint.as_deref(), Some("did you mean \"bs\"?"));
    load(CHAIN, &["base_station.node=bs"]).unwrap();
    // With no agent, a topology without "bs" is fine.
    load(FOUR, &[]).unwrap();
    let e = load(FOUR, &["base_station.node=x"]).unwrap_err();
    assert_eq!(e.expected, "one of the nodes a, b, c, d");
}

#[test]
fn scenario_flows_need_distinct_reachable_nodes_and_unique_names() {
    let e = load(FOUR, &["flow.0.src=e"]).unwrap_err();
    assert_eq!(e.path, "flow[0].src");
    let e = load(FOUR, &["flow.0.dst=a"]).unwrap_err();
    assert_eq!(e.path, "flow[0].dst");
    // Links carry both directions: d → a is reachable over d–c, c–b, b–a.
    load(FOUR, &["flow.0.src=d", "flow.0.dst=a"]).unwrap();
    let e = load(FOUR, &["topology.links.2.from=a", "topology.links.2.to=b"]).unwrap_err();
    assert!(e.to_string().contains("a unique link name"), "{e}");
    let e = load(
        FOUR,
        &["topology.links.2.from=a", "topology.links.2.name=x"],
    )
    .unwrap_err();
    assert_eq!(e.path, "flow[0].dst");
    assert!(e.expected.starts_with("a node reachable from \"a\""), "{e}");
    let two = format!("{FOUR}\n[[flow]]\nname = \"x\"\nsrc = \"a\"\ndst = \"b\"\napp = {{ kind = \"bulk\", bytes = \"1B\" }}\n");
    let e = load(&two, &["flow.0.name=x"]).unwrap_err();
    assert_eq!(e.path, "flow[1].name");
}

#[test]
fn scenario_explicit_topology_errors_name_the_entry() {
    let e = load(FOUR, &["topology.nodes=[\"a\", \"b\", \"a\", \"d\"]"]).unwrap_err();
    assert_eq!(e.path, "topology.nodes[2]");
    assert!(
        e.expected.contains("topology.nodes[0] is also \"a\""),
        "{e}"
    );
    let e = load(FOUR, &["topology.nodes.1=\"\""]).unwrap_err();
    assert_eq!(e.path, "topology.nodes[1]");
    let e = load(FOUR, &["topology.links.1={ to = \"c\", rate = \"1Mbps\" }"]).unwrap_err();
    assert_eq!(e.path, "topology.links[1].from");
    assert!(e.expected.starts_with("missing required key"), "{e}");
    let e = load(FOUR, &["topology.links.0.to=a"]).unwrap_err();
    assert_eq!(e.path, "topology.links[0].to");
    assert!(e.expected.contains("other than `from`"), "{e}");
    let e = load(FOUR, &["topology.links.1.name=a-b"]).unwrap_err();
    assert_eq!(e.path, "topology.links[1].name");
    let e = load(FOUR, &["topology.nodes=[]", "topology.links=[]"]).unwrap_err();
    assert_eq!(e.path, "topology");
    let e = chain_err(&["topology.wired.from=fh"]);
    assert_eq!(e.path, "topology.wired.from");
}

#[test]
fn scenario_fama_table_sets_the_constants_and_keeps_cts_dominance() {
    let fama = ["topology.wireless.mac=fama"];
    let s = load(
        CHAIN,
        &["topology.wireless.mac={ kind = \"fama\", slot = \"354us\", cw_min = 7, cw_max = 255, cts_bytes = 40 }"],
    )
    .unwrap();
    let cell = s.topology.wireless.as_ref().expect("chain's wireless hop");
    let cfg = fama_config(cell);
    assert_eq!(cfg.phy.slot, crate::engine::SimDuration::from_micros(354));
    assert_eq!((cfg.cw_min, cfg.cw_max, cfg.cts_bytes), (7, 255, 40));
    // A CTS as short as the RTS breaks dominance (CTS >= RTS + 2τ + ξ): refused at its key.
    let e = chain_err(&[fama[0], "topology.wireless.mac.cts_bytes=20"]);
    assert_eq!(e.path, "topology.wireless.mac.cts_bytes", "{e}");
    let e = chain_err(&[fama[0], "topology.wireless.mac.cw_min=8"]);
    assert_eq!(e.path, "topology.wireless.mac.cw_min/cw_max", "{e}");
    let e = chain_err(&[fama[0], "topology.wireless.mac.cts_bytes=4294967295"]);
    assert_eq!(e.path, "topology.wireless.mac.cts_bytes", "{e}");
    let e = chain_err(&[fama[0], "topology.wireless.mac.cw_max=1048575"]);
    assert_eq!(e.path, "topology.wireless.mac.cw_max", "{e}");
    // Only over FAMA-NCS: the DCF's table has no such key.
    let e = chain_err(&[
        "topology.wireless.mac=dcf",
        "topology.wireless.mac.cw_min=7",
    ]);
    assert_eq!(e.path, "topology.wireless.mac.cw_min", "{e}");
    // The defaults are FamaConfig's: 21-byte CTS at 1 Mbps.
    let s = load(CHAIN, &fama).unwrap();
    let cfg = fama_config(s.topology.wireless.as_ref().unwrap());
    assert_eq!((cfg.cw_min, cfg.cw_max, cfg.cts_bytes), (31, 1023, 21));
}

fn fama_config(hop: &crate::scenario::LinkSpec) -> crate::wireless::mac::FamaConfig {
    match &hop.mac {
        crate::wireless::mac::MacSpec::Fama(f) => f.config(&hop.hop()),
        other => panic!("not FAMA-NCS: {other:?}"),
    }
}

/// The hardening audit's list: every one of these used to saturate to
/// u64::MAX ns and end the run in "simulated time overflow".
const HUGE_TIMES: &[(&[&str], &str)] = &[
    (&[], "topology.wired.delay"),
    (&[], "topology.wireless.delay"),
    (&[], "stop_time"),
    (&[], "flow.0.start"),
    (&[], "flow.0.tcp.delack_timeout"),
    (&[], "flow.0.tcp.max_rto"),
    (
        &["base_station.agent=snoop"],
        "base_station.snoop.min_timeout",
    ),
    (&["base_station.agent=snoop"], "base_station.snoop.persist"),
    (
        &["base_station.agent=snoop"],
        "base_station.snoop.initial_rtt",
    ),
    (&["base_station.agent=wtcp"], "base_station.wtcp.clock"),
    (
        &["base_station.agent=wtcp"],
        "base_station.wtcp.initial_rtt",
    ),
    (&TULIP_CELL, "topology.wireless.link.t_ack"),
    (&TULIP_CELL, "topology.wireless.link.delta_t2_min"),
    (&TULIP_CELL, "topology.wireless.link.t_p"),
    (&TULIP_CELL, "topology.wireless.link.t_c"),
    (&TULIP_CELL, "topology.wireless.link.t_tr"),
    (&TULIP_CELL, "topology.wireless.link.tau"),
    (&TULIP_CELL, "topology.wireless.mac.slot"),
];

const TULIP_CELL: [&str; 2] = ["topology.wireless.mac=fama", "topology.wireless.link=tulip"];

/// `a.b.0.c` → `a.b[0].c`, the path as errors print it.
fn shown_path(key: &str) -> String {
    key.split('.')
        .map(|k| match k.parse::<usize>() {
            Ok(i) => format!("[{i}]"),
            Err(_) => format!(".{k}"),
        })
        .collect::<String>()
        .trim_start_matches('.')
        .to_string()
}

#[test]
fn scenario_huge_times_are_refused_as_typed_at_their_path() {
    for (setup, key) in HUGE_TIMES {
        for typed in ["1e308s", "2e10s"] {
            let mut sets = setup.to_vec();
            let set = format!("{key}={typed}");
            sets.push(&set);
            let e = chain_err(&sets);
            assert_eq!(e.path, shown_path(key), "{set}: {e}");
            assert_eq!(e.value.as_deref(), Some(&*format!("\"{typed}\"")), "{e}");
            let line = e.to_string();
            assert!(line.contains(&format!("got \"{typed}\"")), "{line}");
            assert!(line.contains("100000000s"), "{line}");
            assert!(!line.contains("18446744073709551615"), "{line}");
        }
        // The bound itself is accepted.
        let mut sets = setup.to_vec();
        let set = format!("{key}=100000000s");
        sets.push(&set);
        load(CHAIN, &sets).unwrap_or_else(|e| panic!("{set}: {e}"));
    }
}

#[test]
fn scenario_huge_sizes_and_rates_are_refused_as_typed() {
    for (set, path, typed) in [
        (
            "flow.0.app.bytes=1e400MB",
            "flow[0].app.bytes",
            "\"1e400MB\"",
        ),
        (
            "topology.wired.rate=1e400Mbps",
            "topology.wired.rate",
            "\"1e400Mbps\"",
        ),
        (
            "topology.wireless.rate=0.1bps",
            "topology.wireless.rate",
            "\"0.1bps\"",
        ),
        (
            "topology.wired.queue=1e400pkt",
            "topology.wired.queue",
            "\"1e400pkt\"",
        ),
        ("flow.0.tcp.rwnd=1e400MB", "flow[0].tcp.rwnd", "\"1e400MB\""),
    ] {
        let e = chain_err(&[set]);
        assert_eq!(e.path, path, "{set}: {e}");
        assert_eq!(e.value.as_deref(), Some(typed), "{set}: {e}");
    }
}

#[test]
fn scenario_timeout_factors_and_poisson_gaps_stay_bounded() {
    for (sets, path) in [
        (
            &["base_station.agent=snoop", "base_station.snoop.timeout_factor=101"][..],
            "base_station.snoop.timeout_factor",
        ),
        (
            &["base_station.agent=wtcp", "base_station.wtcp.timeout_factor=1e300"][..],
            "base_station.wtcp.timeout_factor",
        ),
        (
            &["flow.0.app={ kind = \"poisson\", rate = \"1bps\", packet_size = \"1000000GB\", bytes = \"1MB\" }"][..],
            "flow[0].app.rate",
        ),
    ] {
        let e = chain_err(sets);
        assert_eq!(e.path, path, "{e}");
    }
    load(
        CHAIN,
        &[
            "base_station.agent=snoop",
            "base_station.snoop.timeout_factor=100",
        ],
    )
    .unwrap();
}

#[test]
fn scenario_names_are_identifiers_that_cannot_escape_the_output_folder() {
    for bad in [
        "../../../x",
        "/abs/x",
        "a/b",
        "a\\\\b",
        ".hidden",
        "..",
        "",
        "a b",
        "nul\\u0000",
    ] {
        let e = chain_err(&[&format!("name=\"{bad}\"")]);
        assert_eq!(e.path, "name", "{bad:?}: {e}");
        assert!(e.expected.contains("letters, digits"), "{e}");
    }
    let e = chain_err(&[&format!("name=\"{}\"", "x".repeat(101))]);
    assert_eq!(e.path, "name");
    for good in ["tulip-basic", "run_1.5", "débit", "x"] {
        load(CHAIN, &[&format!("name=\"{good}\"")]).unwrap();
    }
    // Link, node and flow names become file names too (`--pcap LINK` writes LINK.pcap).
    let e = chain_err(&["topology.wired.name=\"../x\""]);
    assert_eq!(e.path, "topology.wired.name");
    let e = chain_err(&["topology.wireless.name=\"a/b\""]);
    assert_eq!(e.path, "topology.wireless.name");
    let e = chain_err(&["flow.0.name=\"../f\""]);
    assert_eq!(e.path, "flow[0].name");
    let e = load(FOUR, &["topology.nodes.3=\"d/../e\""]).unwrap_err();
    assert_eq!(e.path, "topology.nodes[3]");
    // A cell may not take a link's name either.
    let e = chain_err(&["topology.wireless.mac=dcf", "topology.wireless.name=wired"]);
    assert_eq!(e.path, "topology.wireless.name");
    assert!(e.expected.contains("unique link name"), "{e}");
}

#[test]
fn scenario_too_many_flows_names_the_file_and_the_field() {
    let flow = "[[flow]]\nsrc = \"fh\"\ndst = \"mh\"\napp = { kind = \"bulk\", bytes = \"1B\" }\n";
    let head = CHAIN.split("[[flow]]").next().unwrap();
    let many = format!("{head}{}", flow.repeat(FLOWS_MAX + 1));
    let e = load(&many, &[]).unwrap_err();
    assert_eq!(e.file, "t.toml");
    assert_eq!(e.path, "flow");
    assert!(
        e.to_string()
            .starts_with("t.toml: flow: got 16385 flows, expected at most 16384"),
        "{e}"
    );
    let enough = format!("{head}{}", flow.repeat(FLOWS_MAX));
    load(&enough, &[]).unwrap();
}

#[test]
fn scenario_enum_values_are_quoted_as_written() {
    let e = chain_err(&["topology.wired.link=stop_and_wait"]);
    assert_eq!(e.path, "topology.wired.link");
    assert_eq!(e.value.as_deref(), Some("\"stop_and_wait\""), "{e}");
}

#[test]
fn scenario_a_bad_entry_at_the_end_of_a_long_list_is_located_in_linear_time() {
    let n = 50_000;
    let mut packets: Vec<String> = (1..n).map(|i| i.to_string()).collect();
    packets.push("\"x\"".into());
    let set = format!(
        "topology.wireless.errors={{model=\"drop_list\", packets=[{}]}}",
        packets.join(",")
    );
    let start = std::time::Instant::now();
    let e = load(CHAIN, &[&set]).unwrap_err();
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    assert_eq!(
        e.path,
        format!("topology.wireless.errors.packets[{}]", n - 1)
    );
    assert_eq!(e.value.as_deref(), Some("\"x\""));
}

#[test]
fn scenario_a_congestion_control_given_as_variant_says_where_it_belongs() {
    let e = chain_err(&["flow.0.tcp.variant=cubic"]);
    assert_eq!(e.path, "flow[0].tcp.variant");
    assert_eq!(
        e.hint.as_deref(),
        Some("\"cubic\" is a congestion control: set flow[0].tcp.cc = \"cubic\"")
    );
    let e = chain_err(&["flow.0.tcp.cc=sack"]);
    assert_eq!(
        e.hint.as_deref(),
        Some("\"sack\" is a loss recovery: set flow[0].tcp.recovery = \"sack\"")
    );
}

#[test]
fn scenario_set_cc_on_a_variant_keeps_its_recovery() {
    let text = CHAIN.replace("app = {", "tcp = { variant = \"newreno\" }\napp = {");
    let s = load(&text, &["flow.0.tcp.cc=cubic"]).unwrap();
    let tcp = &s.flows[0].tcp;
    assert_eq!(tcp.recovery_kind().name(), "newreno");
    assert_eq!(tcp.cc_spec().name(), "cubic");
    let s = load(&text, &["flow.0.tcp.recovery=sack"]).unwrap();
    assert_eq!(s.flows[0].tcp.recovery_kind().name(), "sack");
    assert_eq!(s.flows[0].tcp.cc_spec().name(), "reno");
}

#[test]
fn scenario_the_bsd_ssthresh_rule_is_refused_with_a_congestion_control_other_than_reno() {
    let e = chain_err(&["flow.0.tcp.cc=cubic", "flow.0.tcp.ssthresh_rule=bsd"]);
    assert_eq!(e.path, "flow[0].tcp.ssthresh_rule");
    assert_eq!(e.value.as_deref(), Some("\"bsd\""));
    assert!(e.expected.contains("cc = \"reno\""), "{}", e.expected);
    load(CHAIN, &["flow.0.tcp.ssthresh_rule=bsd"]).expect("Reno takes it");
}

#[test]
fn scenario_mac_and_link_tables_refuse_keys_of_another_kind() {
    let cases = [
        (
            "topology.wireless.mac={ kind = \"dcf\", slot = \"20us\" }",
            "topology.wireless.mac.slot",
        ),
        (
            "topology.wireless.mac={ kind = \"p2p\", phy = \"802.11b\" }",
            "topology.wireless.mac.phy",
        ),
        (
            "topology.wireless.mac={ kind = \"duplex\", rts_threshold = \"0B\" }",
            "topology.wireless.mac.rts_threshold",
        ),
        (
            "topology.wireless.link={ kind = \"none\", window = 8 }",
            "topology.wireless.link.window",
        ),
        (
            "topology.wireless.link={ kind = \"rlp\", mac_acceleration = true }",
            "topology.wireless.link.mac_acceleration",
        ),
    ];
    for (set, path) in cases {
        let e = chain_err(&[set]);
        assert_eq!(e.path, path, "{set}: {e}");
        assert!(e.expected.starts_with("unknown key"), "{set}: {e}");
    }
}

#[test]
fn scenario_override_into_a_mac_named_alone_sets_that_mac_s_key() {
    let s = load(
        CHAIN,
        &[
            "topology.wireless.mac=dcf",
            "topology.wireless.mac.rts_threshold=0B",
        ],
    )
    .unwrap();
    let hop = s.topology.wireless.as_ref().unwrap();
    let crate::scenario::MacSpec::Dcf(dcf) = &hop.mac else {
        panic!("a DCF: {:?}", hop.mac);
    };
    assert_eq!(dcf.rts_threshold.bytes(), 0);
    assert_eq!(
        dcf.retry_limit_short, None,
        "the other settings keep their defaults"
    );
}
