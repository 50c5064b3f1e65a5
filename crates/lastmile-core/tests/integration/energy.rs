//! The radios' energy (`energy` in the summary) over whole runs: each radio's state times
//! against the frames the links report, and the joules against the power profile.

use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};

fn chain(energy: &str, errors: &str) -> lastmile_core::metrics::RunSummary {
    let text = format!(
        r#"
name = "energy"
seed = 2
stop_time = "600s"
{energy}
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "1ms" }}
wireless = {{ rate = "1Mbps", delay = "2ms", errors = {errors} }}

[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "newreno", mss = "1460B" }}
app = {{ kind = "bulk", bytes = "1MB" }}
"#
    );
    let s = load_str(&text, Format::Toml, "energy.toml", &[]).expect("valid scenario");
    run(&s, &RunOptions::default()).expect("runs").summary
}

#[test]
fn chain_radios_transmit_exactly_their_links_airtime_and_fill_the_run() {
    let s = chain("", r#"{ model = "per", per = 0.02 }"#);
    let e = s.energy.as_ref().expect("the chain has radios");
    assert_eq!(e.profile, "ns3");
    assert_eq!(
        e.nodes.keys().collect::<Vec<_>>(),
        ["bs", "mh"],
        "only the wireless hop's ends have radios"
    );
    let hop: Vec<_> = s.links.iter().filter(|l| l.name == "wireless").collect();
    let airtime = |bytes: u64| bytes as f64 * 8.0 / 1e6;
    let (down, up) = (airtime(hop[0].bytes_sent), airtime(hop[1].bytes_sent));
    let (bs, mh) = (&e.nodes["bs"], &e.nodes["mh"]);
    let run_s = s.engine.sim_time_s;
    // Each frame's serialization is whole nanoseconds: allow 1 ns per frame.
    let ns = 1e-9 * (hop[0].frames_sent + hop[1].frames_sent) as f64;
    assert!(
        (bs.transmit_s - down).abs() <= ns,
        "{} vs {down}",
        bs.transmit_s
    );
    assert!(
        (mh.transmit_s - up).abs() <= ns,
        "{} vs {up}",
        mh.transmit_s
    );
    // Every data frame arrives at the mobile, lost or not, less what overlapped its ACKs;
    // the last ACK may still be on its way to the base station when the run ends.
    assert!(mh.receive_s <= down + ns && mh.receive_s >= down - up - ns);
    assert!(bs.receive_s > 0.0 && bs.receive_s <= up + ns);
    for n in [bs, mh] {
        let sum = n.transmit_s + n.receive_s + n.idle_s + n.sleep_s;
        assert!((sum - run_s).abs() < 1e-6, "{sum} vs {run_s}");
        assert_eq!(n.sleep_s, 0.0);
        let j = 1.14 * n.transmit_s + 0.939 * n.receive_s + 0.819 * n.idle_s;
        assert!((n.total_j - j).abs() < 1e-9);
    }
    assert!((e.total_j - bs.total_j - mh.total_j).abs() < 1e-9);
    let mb = s.flows[0].bytes_delivered as f64 / 1e6;
    assert!((e.joules_per_mb.unwrap() - e.total_j / mb).abs() < 1e-9);
}

#[test]
fn the_ns2_profile_charges_airtime_only_and_powers_can_be_replaced() {
    let s = chain("[energy]\nprofile = \"ns2\"\n", r#"{ model = "none" }"#);
    let e = s.energy.unwrap();
    let mh = &e.nodes["mh"];
    assert!((mh.total_j - (0.660 * mh.transmit_s + 0.395 * mh.receive_s)).abs() < 1e-9);
    assert_eq!(mh.idle_j, 0.0);
    let s = chain(
        "[energy]\nprofile = \"ns2\"\nidle_w = 1.0\n",
        r#"{ model = "none" }"#,
    );
    let mh = &s.energy.unwrap().nodes["mh"];
    assert!((mh.idle_j - mh.idle_s).abs() < 1e-9 && mh.idle_s > 0.0);
}

#[test]
fn a_negative_power_is_refused_naming_its_field() {
    let text = r#"
name = "bad"
[energy]
sleep_w = -0.5
[topology]
preset = "chain"
wired = { rate = "10Mbps", delay = "1ms" }
wireless = { rate = "1Mbps", delay = "2ms" }
[[flow]]
src = "fh"
dst = "mh"
app = { kind = "bulk", bytes = "1MB" }
"#;
    let err = load_str(text, Format::Toml, "bad.toml", &[]).unwrap_err();
    let line = err.to_string();
    assert!(
        line.contains("energy.sleep_w") && line.contains("-0.5"),
        "{line}"
    );
}
