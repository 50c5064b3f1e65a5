//! Wide-area wireless end to end: every network preset loads and runs, RLP over
//! the duplex channel turns the radio's losses into delay, link FEC composes with the error
//! models, and the metrics show duplicated effort at both layers.

use lastmile_core::metrics::{CellSummary, FlowSummary, RunSummary};
use lastmile_core::scenario::{load_str, Format, NetworkPreset, Scenario};
use lastmile_core::sim::{run, RunOptions};

fn chain(wireless: &str, bytes: &str, seed: u64) -> Scenario {
    chain_mss(wireless, bytes, seed, "536B")
}

fn chain_mss(wireless: &str, bytes: &str, seed: u64, mss: &str) -> Scenario {
    let text = format!(
        r#"
name = "wwan"
seed = {seed}
stop_time = "2000s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "20ms" }}
wireless = {{ {wireless} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "newreno", mss = "{mss}" }}
app = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    );
    load_str(&text, Format::Toml, "wwan.toml", &[]).expect("a valid scenario")
}

fn summary(s: &Scenario) -> RunSummary {
    run(s, &RunOptions::default()).expect("runs").summary
}

fn flow(s: &RunSummary) -> &FlowSummary {
    &s.flows[0]
}

fn cell(s: &RunSummary) -> &CellSummary {
    s.cells.first().expect("a cell")
}

#[test]
fn every_preset_loads_runs_and_delivers_a_transfer() {
    for p in NetworkPreset::ALL {
        let name = p.name();
        let s = summary(&chain(&format!("preset = \"{name}\""), "20KB", 1));
        let f = flow(&s);
        assert!(f.completed, "{name}: {f:?}");
        let rate = chain(&format!("preset = \"{name}\""), "20KB", 1)
            .topology
            .wireless
            .map(|w| w.rate.bps())
            .unwrap_or(0) as f64;
        assert!(
            f.throughput_bps > 0.0 && f.throughput_bps < rate,
            "{name}: {f:?}"
        );
        assert_eq!(cell(&s).link, {
            let p = chain(&format!("preset = \"{name}\""), "1KB", 1);
            let w = p.topology.wireless.expect("a hop");
            w.link.name()
        });
    }
}

/// GSM 9.6 with and without RLP: over the same fading channel, RLP's retransmissions
/// replace TCP's timeouts (the survey's non-transparent mode), at the price of delay.
#[test]
fn rlp_turns_the_fading_channels_losses_into_delay() {
    let with = summary(&chain(r#"preset = "gsm""#, "100KB", 1));
    let without = summary(&chain(r#"preset = "gsm", link = "none""#, "100KB", 1));
    let (f, g) = (flow(&with), flow(&without));
    assert!(f.completed && g.completed);
    assert!(cell(&with).link_retransmissions > 0);
    assert!(
        f.tcp_timeouts < g.tcp_timeouts,
        "{} vs {}",
        f.tcp_timeouts,
        g.tcp_timeouts
    );
    assert!(f.throughput_bps > 2.0 * g.throughput_bps, "{f:?} {g:?}");
    // 9.6 kbit/s less TCP/IP headers (536 of 576 bytes) is the ceiling.
    assert!(f.throughput_bps < 9_600.0 * 536.0 / 576.0);
}

/// The survey's duplicated effort: over RLP, TCP still times out on the delay of link
/// recovery and sends again what the link layer already carried; both show in the metrics.
#[test]
fn duplicate_retransmissions_at_both_layers_are_counted() {
    let s = summary(&chain(r#"preset = "gsm""#, "200KB", 1));
    let c = cell(&s);
    assert!(c.link_retransmissions > 0);
    assert!(c.tcp_duplicates_at_link > 0, "{c:?}");
    assert!(c.tcp_duplicates_at_link <= flow(&s).tcp_retransmits);
}

/// The rate overhead of FEC: CDPD's RS(63, 47) on a clean 19.2 kbit/s channel carries at
/// most 47/63 of the data, and puts 63/47 times the bits on the air plus the padding of
/// each frame's last block: a 576-byte datagram takes 17 blocks (×1.39), a 40-byte ACK 2
/// (×2.36), so the mix lands near 1.46.
#[test]
fn fec_costs_its_rate_overhead_on_a_clean_channel() {
    let hop = r#"rate = "19.2kbps", delay = "100ms", mac = "duplex""#;
    let plain = summary(&chain(hop, "50KB", 1));
    let coded = summary(&chain(
        &format!("{hop}, fec = {{ n = 63, k = 47, t = 7, symbol_bits = 6 }}"),
        "50KB",
        1,
    ));
    let ratio = flow(&coded).throughput_bps / flow(&plain).throughput_bps;
    assert!((0.70..0.747).contains(&ratio), "{ratio}");
    let air = cell(&coded).air_bytes as f64 / cell(&plain).air_bytes as f64;
    assert!((1.42..1.50).contains(&air), "{air}");
}

/// FEC with every link layer over the duplex channel and a fading raw channel: each run
/// delivers the transfer, and the code's parity is on the air.
#[test]
fn fec_composes_with_every_link_layer() {
    let errors = r#"{ model = "gilbert_elliott", mean_good = "2s", mean_bad = "20ms", good_ber = 1e-3, bad_ber = 0.05 }"#;
    for link in ["none", "stop_and_wait", "tulip", "rlp", "airmail"] {
        let hop = format!(
            r#"rate = "64kbps", delay = "50ms", mac = "duplex", link = "{link}",
               fec = {{ n = 255, k = 223, t = 16, symbol_bits = 8 }},
               errors = {errors}, reverse_errors = {errors}"#
        );
        let s = summary(&chain(&hop, "30KB", 3));
        assert!(flow(&s).completed, "{link}: {:?}", flow(&s));
        assert_eq!(cell(&s).link, link);
        assert!(cell(&s).air_bytes > 30_000 * 255 / 223, "{link}");
    }
}

/// AIRMAIL over CDPD's FEC: its status bit-maps recover what the code could not.
#[test]
fn airmail_over_fec_recovers_what_the_code_cannot() {
    let s = summary(&chain(r#"preset = "cdpd", link = "airmail""#, "100KB", 1));
    assert!(flow(&s).completed);
    assert!(cell(&s).link_retransmissions > 0);
    let plain = summary(&chain(r#"preset = "cdpd""#, "100KB", 1));
    assert!(flow(&s).tcp_timeouts <= flow(&plain).tcp_timeouts);
}
