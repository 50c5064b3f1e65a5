//! Presets expand into the hop they are written in, and what is written beside them wins.

use super::*;
use crate::scenario::{load_str, Format, LinkLayerSpec, MacSpec, Scenario};

fn chain(wireless: &str, overrides: &[&str]) -> Result<Scenario, String> {
    let text = format!(
        r#"
name = "p"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "20ms" }}
wireless = {{ {wireless} }}
[[flow]]
src = "fh"
dst = "mh"
app = {{ kind = "bulk", bytes = "10KB" }}
"#
    );
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_str(&text, Format::Toml, "p.toml", &overrides).map_err(|e| e.to_string())
}

fn wireless(s: &Scenario) -> &crate::scenario::LinkSpec {
    s.topology.wireless.as_ref().expect("a wireless hop")
}

#[test]
fn preset_bitrates_match_the_survey_appendix() {
    // (preset, line rate in bit/s, user rate in bit/s after RLP's or FEC's overhead)
    let table: [(&str, u64, f64); 15] = [
        ("gsm", 12_000, 9_600.0),                // Table 3: GSM 9.6
        ("gsm_14_4", 14_500, 13_291.7),          // Table 3: Phase 2+ 14.4 (RLP 576-bit frames)
        ("hscsd", 58_000, 53_166.7),             // D: four 14.4 slots
        ("cdpd", 19_200, 14_323.8),              // Table 2 / §2.1: 19.2 raw, FEC
        ("mobitex", 8_000, 8_000.0),             // Table 2
        ("gprs", 170_000, 161_904.8),            // Table 2: up to 170
        ("edge", 560_000, 533_333.3),            // Table 3
        ("umts_128", 128_000, 121_904.8),        // Table 4
        ("umts_384", 384_000, 365_714.3),        // Table 4
        ("umts_2048", 2_048_000, 1_950_476.2),   // Table 4
        ("is95", 14_400, 12_000.0),              // Table 3: 9.6/14.4
        ("802.11", 2_000_000, 2_000_000.0),      // §1.1: 1 or 2 Mbps
        ("802.11b", 11_000_000, 11_000_000.0),   // §1.1
        ("hiperlan1", 20_000_000, 20_000_000.0), // Table 5
        ("hiperlan2", 24_000_000, 24_000_000.0), // Table 5
    ];
    for (name, line, user) in table {
        let s = chain(&format!("preset = \"{name}\""), &[]).expect(name);
        let w = wireless(&s);
        assert_eq!(w.rate.bps(), line, "{name}");
        let mut share = 1.0;
        if let LinkLayerSpec::Rlp(r) = &w.link {
            share *= f64::from(r.info_bytes) / f64::from(r.info_bytes + r.header_bytes);
        }
        if let Some(f) = &w.fec {
            share *= f64::from(f.k) / f64::from(f.n);
        }
        let got = line as f64 * share;
        assert!((got - user).abs() < 0.1, "{name}: {got} vs {user}");
    }
}

#[test]
fn a_preset_fills_rate_delay_queue_mac_link_and_errors() {
    let s = chain(r#"preset = "gsm""#, &[]).expect("gsm");
    let w = wireless(&s);
    assert_eq!(w.preset, Some(NetworkPreset::Gsm));
    assert_eq!(w.mac.name(), "duplex");
    assert_eq!(
        w.link,
        LinkLayerSpec::Rlp(crate::scenario::RlpSpec::default())
    );
    assert_eq!(w.delay.sim(), crate::engine::SimDuration::from_millis(180));
    assert_eq!(w.queue.to_string(), "9pkt");
    assert!(matches!(
        w.errors,
        crate::error_model::ErrorModelSpec::GilbertElliott(_)
    ));
    assert_eq!(w.errors, w.reverse_errors);
}

#[test]
fn a_key_written_beside_the_preset_wins_and_a_settings_table_keeps_the_rest() {
    let s = chain(
        r#"preset = "gprs", rate = "40kbps", link = { kind = "rlp", n2 = 10 }"#,
        &["topology.wireless.delay=350ms"],
    )
    .expect("gprs");
    let w = wireless(&s);
    assert_eq!(w.rate.bps(), 40_000);
    assert_eq!(w.delay.sim(), crate::engine::SimDuration::from_millis(350));
    let LinkLayerSpec::Rlp(r) = &w.link else {
        panic!("rlp settings: {:?}", w.link);
    };
    assert_eq!((r.n2, r.info_bytes, r.header_bytes), (10, 40, 2));
    // A table without `kind` is the preset's link layer's.
    let s = chain(r#"preset = "gprs", link = { n2 = 3 }"#, &[]).expect("gprs");
    let LinkLayerSpec::Rlp(r) = &wireless(&s).link else {
        panic!("rlp settings");
    };
    assert_eq!((r.n2, r.info_bytes, r.window), (3, 40, 1024));
    // The short form names the preset's link layer: its settings stay the preset's.
    let s = chain(r#"preset = "gprs", link = "rlp""#, &[]).expect("gprs");
    let LinkLayerSpec::Rlp(r) = &wireless(&s).link else {
        panic!("rlp settings");
    };
    assert_eq!((r.info_bytes, r.header_bytes, r.window), (40, 2, 1024));
    // An error model beside the preset replaces the preset's whole.
    let s = chain(r#"preset = "cdpd", errors = { model = "none" }"#, &[]).expect("cdpd");
    assert_eq!(
        wireless(&s).errors,
        crate::error_model::ErrorModelSpec::None
    );
    assert_ne!(
        wireless(&s).reverse_errors,
        crate::error_model::ErrorModelSpec::None
    );
}

#[test]
fn the_preset_can_come_from_set_alone() {
    let s = chain(r#"rate = "1Mbps""#, &["topology.wireless.preset=umts_384"]).expect("umts");
    let w = wireless(&s);
    assert_eq!(w.rate.bps(), 1_000_000, "the file's rate stays");
    assert_eq!(w.link.name(), "rlp");
    assert_eq!(w.delay.sim(), crate::engine::SimDuration::from_millis(100));
}

#[test]
fn another_link_layer_drops_the_presets_link_settings() {
    let s = chain(r#"preset = "gsm", link = "none""#, &[]).expect("gsm without RLP");
    assert_eq!(wireless(&s).link, LinkLayerSpec::None);
    let s = chain(r#"preset = "802.11b", mac = "duplex""#, &[]).expect("no PHY keys");
    assert_eq!(wireless(&s).mac.phy(), None);
    let s = chain(r#"preset = "802.11b""#, &[]).expect("802.11b");
    let phy = |s: &Scenario| wireless(s).mac.phy().and_then(|p| p.phy);
    assert_eq!(phy(&s), Some(crate::scenario::PhyPreset::Dot11b));
    // Another MAC that frames for the 802.11 PHY keeps the preset's PHY keys.
    let s = chain(r#"preset = "802.11b", mac = "fama""#, &[]).expect("fama");
    assert!(matches!(wireless(&s).mac, MacSpec::Fama(_)));
    assert_eq!(phy(&s), Some(crate::scenario::PhyPreset::Dot11b));
}

#[test]
fn an_unknown_preset_is_refused_with_the_names() {
    let e = chain(r#"preset = "lte""#, &[]).unwrap_err();
    assert!(e.contains("topology.wireless.preset"), "{e}");
    assert!(e.contains("gprs") && e.contains("umts_384"), "{e}");
}

#[test]
fn every_preset_has_a_name_and_expands_to_a_valid_hop() {
    for p in NetworkPreset::ALL {
        let name = p.name();
        assert!(!name.is_empty());
        chain(&format!("preset = \"{name}\""), &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
