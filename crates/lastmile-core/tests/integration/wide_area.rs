//! WAP and WTCP of Sinha et al. end to end: the request/response
//! application over TCP, I-TCP, a WAP gateway and a WTCP-Sinha proxy on a slow wide-area
//! hop; bulk transfers over WTCP-Sinha; and the scenario rules that tie a flow's transport
//! to a gateway on its path.

use lastmile_core::metrics::{FlowSummary, RunSummary};
use lastmile_core::scenario::{load_str, Format, Scenario, ScenarioError};
use lastmile_core::sim::{run, RunOptions};

/// A chain with a 10 Mbit/s, 20 ms wire and the given wireless hop; `agent` on `bs`.
fn scenario(
    wireless: &str,
    agent: &str,
    transport: &str,
    app: &str,
    seed: u64,
) -> Result<Scenario, ScenarioError> {
    let base_station = if agent.is_empty() {
        String::new()
    } else {
        format!("[[base_station]]\nnode = \"bs\"\nagent = {{ kind = \"{agent}\" }}\n")
    };
    let text = format!(
        r#"
name = "wide-area"
seed = {seed}
stop_time = "3000s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "20ms" }}
wireless = {{ {wireless} }}
{base_station}
[[flow]]
src = "fh"
dst = "mh"
transport = "{transport}"
tcp = {{ variant = "newreno", mss = "536B" }}
app = {app}
"#
    );
    load_str(&text, Format::Toml, "wide_area.toml", &[])
}

const SLOW: &str = r#"rate = "19.2kbps", delay = "200ms""#;
const WEB: &str = r#"{ kind = "request_response", request = "300B", object = "3KB", objects = 5, think_time = "2s" }"#;

fn summary(s: &Scenario) -> RunSummary {
    run(s, &RunOptions::default()).expect("runs").summary
}

fn flow(s: &RunSummary) -> &FlowSummary {
    &s.flows[0]
}

/// Each object takes at least its bytes at the hop's rate plus a round trip of the hop.
fn object_floor_s() -> f64 {
    3000.0 * 8.0 / 19_200.0 + 0.4
}

#[test]
fn request_response_completes_every_object_over_each_transport() {
    let cases = [
        ("tcp end to end", "", "tcp"),
        ("i-tcp", "itcp", "tcp"),
        ("wap", "wap", "wap"),
        ("wtcp-sinha", "wtcp_sinha", "wtcp_sinha"),
    ];
    for (name, agent, transport) in cases {
        let s = summary(&scenario(SLOW, agent, transport, WEB, 1).expect(name));
        let f = flow(&s);
        assert!(f.completed, "{name}: {f:?}");
        assert_eq!(f.bytes_delivered, 15_000, "{name}");
        assert_eq!(f.objects_completed, Some(5), "{name}");
        let mean = f.object_time_mean_s.expect("object times");
        let (median, max) = (
            f.object_time_median_s.unwrap(),
            f.object_time_max_s.unwrap(),
        );
        assert!(mean >= object_floor_s(), "{name}: {mean} s");
        assert!(mean < 10.0 * object_floor_s(), "{name}: {mean} s");
        assert!(median <= max && mean <= max, "{name}");
        assert!(!f.stalled, "{name}");
        // Five objects, four think times of 2 s between them.
        assert!(
            f.completion_s > 8.0 + 5.0 * object_floor_s() * 0.9,
            "{name}: {f:?}"
        );
        if !agent.is_empty() {
            assert_eq!(
                s.agent.as_ref().map(|a| a.kind.as_str()),
                Some(agent),
                "{name}"
            );
        }
        assert_eq!(
            f.variant,
            if transport == "tcp" {
                "newreno"
            } else {
                transport
            },
            "{name}"
        );
    }
}

#[test]
fn request_response_runs_are_deterministic() {
    let lossy = r#"rate = "19.2kbps", delay = "200ms", errors = { model = "per", per = 0.05 }"#;
    for (agent, transport) in [("wap", "wap"), ("wtcp_sinha", "wtcp_sinha")] {
        let s = scenario(lossy, agent, transport, WEB, 7).unwrap();
        let a = summary(&s);
        let b = summary(&s);
        assert_eq!(
            flow(&a).object_time_mean_s,
            flow(&b).object_time_mean_s,
            "{agent}"
        );
        assert_eq!(
            a.agent.as_ref().unwrap().local_retransmissions,
            b.agent.as_ref().unwrap().local_retransmissions
        );
        assert!(flow(&a).completed, "{agent}: {:?}", flow(&a));
    }
}

#[test]
fn wap_repairs_losses_with_wtp_retransmissions() {
    let lossy = r#"rate = "19.2kbps", delay = "200ms", errors = { model = "per", per = 0.1 }"#;
    let s = summary(&scenario(lossy, "wap", "wap", WEB, 3).unwrap());
    let f = flow(&s);
    assert!(f.completed, "{f:?}");
    assert!(
        s.agent.as_ref().unwrap().local_retransmissions > 0,
        "{:?}",
        s.agent
    );
}

#[test]
fn wtcp_sinha_bulk_transfer_over_a_cdpd_preset_completes_without_stalling() {
    let bulk = r#"{ kind = "bulk", bytes = "100KB" }"#;
    let s = summary(&scenario(r#"preset = "cdpd""#, "wtcp_sinha", "wtcp_sinha", bulk, 1).unwrap());
    let f = flow(&s);
    assert!(f.completed, "{f:?}");
    assert!(!f.stalled);
    assert!(f.throughput_bps > 1_000.0, "{f:?}");
}

#[test]
fn a_wap_flow_needs_a_wap_gateway_on_its_path() {
    let e = scenario(SLOW, "", "wap", WEB, 1).unwrap_err();
    assert_eq!(e.path, "flow[0].transport");
    assert!(e.to_string().contains("kind = \"wap\""), "{e}");
    let e = scenario(SLOW, "wtcp_sinha", "wap", WEB, 1).unwrap_err();
    assert!(e.to_string().contains("\"wtcp_sinha\""), "{e}");
}

#[test]
fn a_tcp_flow_through_a_wap_gateway_is_refused() {
    let e = scenario(SLOW, "wap", "tcp", WEB, 1).unwrap_err();
    assert_eq!(e.path, "flow[0].transport");
    assert!(e.to_string().contains("gateway on \"bs\""), "{e}");
}

#[test]
fn wap_carries_only_request_response() {
    let bulk = r#"{ kind = "bulk", bytes = "100KB" }"#;
    let e = scenario(SLOW, "wap", "wap", bulk, 1).unwrap_err();
    assert_eq!(e.path, "flow[0].app.kind");
    let big = r#"{ kind = "request_response", object = "200KB" }"#;
    let e = scenario(SLOW, "wap", "wap", big, 1).unwrap_err();
    assert_eq!(e.path, "flow[0].app.object");
    assert!(e.to_string().contains("147456B"), "{e}");
}

#[test]
fn request_response_app_settings_are_checked() {
    let e = scenario(
        SLOW,
        "",
        "tcp",
        r#"{ kind = "request_response", object = "0B" }"#,
        1,
    )
    .unwrap_err();
    assert_eq!(e.path, "flow[0].app.object");
    let e = scenario(
        SLOW,
        "",
        "tcp",
        r#"{ kind = "request_response", object = "1KB", objects = 0 }"#,
        1,
    )
    .unwrap_err();
    assert_eq!(e.path, "flow[0].app.objects");
    let e = scenario(
        SLOW,
        "",
        "tcp",
        r#"{ kind = "request_response", object = "1KB", color = 1 }"#,
        1,
    )
    .unwrap_err();
    assert!(e.to_string().contains("color"), "{e}");
}
