//! Network presets: `topology.wireless.preset = "gprs"` fills a hop from
//! the survey's Appendix (Tables 2–5: the rates) and, for latency, link-layer behaviour and
//! errors, the sources each preset's doc names. docs/wwan.md has the table with every value
//! and its source; `D` there marks a documented default where no source gives a number.
//!
//! A preset is expanded on the scenario document, after `--set` overrides and before the
//! document is read into a `LinkSpec`: every key the preset fills that the hop does not
//! write is added, so any key written beside the preset (or set with `--set`) wins. A
//! settings table written beside it (`link = { kind = "rlp", n2 = 10 }`, `fec = { ... }`)
//! keeps the preset's other settings; an error model written beside it replaces the
//! preset's whole. The preset's `mac` and `link` tables fill the hop's only when the hop
//! names the same MAC or link layer (a name alone, `link = "rlp"`, counts as its table, and a
//! table without `kind`, `link = { n2 = 10 }`, names the preset's);
//! another MAC that uses the 802.11 PHY keeps the preset's PHY keys. The `preset` key stays
//! in the hop, for the record.
//!
//! Rules common to the presets (docs/wwan.md says why):
//! - the WWAN presets run over `mac = "duplex"` (FDD: each direction its own channel);
//! - their queue is the larger of RFC 3150 §3's nine buffers ("at least six (6) or nine (9)
//!   buffers are needed") and one bandwidth-delay product of 1,500-byte packets;
//! - the hops with link ARQ see the radio's residual errors after its own channel coding as
//!   WTCP's two-state channel (Ratnam & Matta, Table I: Good 1 s, Bad 10–100 ms — 50 ms here —
//!   BER 1e-6 Good, 1e-2 Bad) in both directions.
//!
//! Left out: asymmetric rates (RFC 3481 §2.3: up to 3–6 times), bandwidth oscillation and
//! delay spikes of handovers (§2.4, §2.7), the contention of shared uplinks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// A network preset for a hop (docs/wwan.md lists every value and its source).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum NetworkPreset {
    /// GSM circuit-switched data, 9.6 kbit/s to the user (survey Table 3), non-transparent:
    /// RLP frames of 240 bits every 20 ms on TCH/F9.6's 12 kbit/s, window 61, T1 480 ms, N2 6
    /// (GSM 04.22 / TS 24.022). One-way delay 180 ms (D: RLP's round trip of two frames and
    /// 2 × 180 ms fits within T1; RFC 3481 §2.1's "few hundred milliseconds" to one second).
    #[serde(rename = "gsm")]
    Gsm,
    /// GSM Phase 2+ TCH/F14.4 (survey Table 3: 14.4 kbit/s): 290 bits per 20 ms (14.5
    /// kbit/s), RLP frames of 576 bits (13.3 kbit/s to the user); otherwise as `gsm`.
    #[serde(rename = "gsm_14_4")]
    Gsm14_4,
    /// HSCSD: several GSM timeslots for one user (RFC 3481 §3.1); D: four TCH/F14.4 slots,
    /// 58 kbit/s, RLP frames of 576 bits; otherwise as `gsm`.
    #[serde(rename = "hscsd")]
    Hscsd,
    /// CDPD, 19.2 kbit/s raw with Reed–Solomon FEC (survey §2.1, Table 2): RS(63,47) over
    /// 6-bit symbols correcting 7 (Sierra Wireless CDPD Primer §3.2.9), 14.3 kbit/s of data;
    /// no link ARQ; the raw channel fades between the survey's BER 1e-3 and 1e-1 (§1.2).
    #[serde(rename = "cdpd")]
    Cdpd,
    /// Mobitex, 8 kbit/s (survey Table 2); no link ARQ modelled; D: 1 % frame losses in
    /// bursts of 2.
    #[serde(rename = "mobitex")]
    Mobitex,
    /// GPRS, "up to 170" kbit/s (survey Table 2; RFC 3481 §2.2 reports 10–40 kbit/s
    /// downlink in practice), RLC acknowledged mode (RFC 3481 §3.1) as selective-reject ARQ
    /// over 336-bit PDUs; one-way delay 300 ms (D, within RFC 3481 §2.1).
    #[serde(rename = "gprs")]
    Gprs,
    /// EDGE, 560 kbit/s (survey Table 3); RLC as `gprs`; one-way delay 200 ms (D).
    #[serde(rename = "edge")]
    Edge,
    /// UMTS 128 kbit/s ("High Interactive Multimedia", survey Table 4); W-CDMA RLC
    /// acknowledged mode, 336-bit PDUs (RFC 3481 §3.2); one-way delay 100 ms (RFC 2757 §1:
    /// a 200 ms round trip for 3G).
    #[serde(rename = "umts_128")]
    Umts128,
    /// UMTS 384 kbit/s ("Medium Multimedia", survey Table 4); as `umts_128`.
    #[serde(rename = "umts_384")]
    Umts384,
    /// UMTS 2048 kbit/s ("High Multimedia", microcell, slow terminals only: survey Table 4
    /// and Appendix); as `umts_128`.
    #[serde(rename = "umts_2048")]
    Umts2048,
    /// IS-95 (cdmaOne), 14.4 kbit/s (survey Table 3 and Appendix); its RLP retransmits "only
    /// a couple of times" (RFC 2757 §2.1): RLP with N2 = 2; one-way delay 150 ms (D).
    #[serde(rename = "is95")]
    Is95,
    /// IEEE 802.11, 2 Mbit/s (survey §1.1: "1 or 2 Mbps"): the DCF on the 802.11 DSSS PHY,
    /// propagation 1 µs; errors: two-state channel, BER 1e-6 / 1e-3 (D).
    #[serde(rename = "802.11")]
    Dot11,
    /// IEEE 802.11b, 11 Mbit/s (survey §1.1): the DCF on LLE-TCP Table 3's PHY; as `802.11`.
    #[serde(rename = "802.11b")]
    Dot11b,
    /// HIPERLAN/1, 20 Mbit/s at 50 m (survey §1.1, Table 5): a shared channel without
    /// contention (`mac = "ideal"`; EY-NPMA left out); errors as `802.11`.
    #[serde(rename = "hiperlan1")]
    Hiperlan1,
    /// HIPERLAN/2, 24 Mbit/s (survey Table 5): its access point schedules a TDD frame
    /// (`mac = "ideal"`: no contention); errors as `802.11`.
    #[serde(rename = "hiperlan2")]
    Hiperlan2,
}

impl NetworkPreset {
    /// Every preset, in the order of docs/wwan.md.
    pub const ALL: [NetworkPreset; 15] = [
        NetworkPreset::Gsm,
        NetworkPreset::Gsm14_4,
        NetworkPreset::Hscsd,
        NetworkPreset::Cdpd,
        NetworkPreset::Mobitex,
        NetworkPreset::Gprs,
        NetworkPreset::Edge,
        NetworkPreset::Umts128,
        NetworkPreset::Umts384,
        NetworkPreset::Umts2048,
        NetworkPreset::Is95,
        NetworkPreset::Dot11,
        NetworkPreset::Dot11b,
        NetworkPreset::Hiperlan1,
        NetworkPreset::Hiperlan2,
    ];

    /// The name a scenario writes.
    pub fn name(self) -> String {
        match serde_json::to_value(self) {
            Ok(Value::String(s)) => s,
            _ => String::new(),
        }
    }

    fn from_name(name: &str) -> Option<NetworkPreset> {
        NetworkPreset::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The keys this preset fills, as a scenario would write them.
    pub fn keys(self) -> Value {
        use NetworkPreset::*;
        match self {
            Gsm => rlp_hop("12kbps", "180ms", 9, json!({})),
            Gsm14_4 => rlp_hop("14.5kbps", "180ms", 9, json!({ "info_bytes": 66 })),
            Hscsd => rlp_hop("58kbps", "180ms", 9, json!({ "info_bytes": 66 })),
            Is95 => rlp_hop("14.4kbps", "150ms", 9, json!({ "info_bytes": 30, "n2": 2 })),
            Gprs => rlc_hop("170kbps", "300ms", 9, 1024),
            Edge => rlc_hop("560kbps", "200ms", 19, 2048),
            Umts128 => rlc_hop("128kbps", "100ms", 9, 256),
            Umts384 => rlc_hop("384kbps", "100ms", 9, 512),
            Umts2048 => rlc_hop("2048kbps", "100ms", 35, 4096),
            Cdpd => json!({
                "rate": "19.2kbps", "delay": "250ms", "queue": "9pkt",
                "mac": { "kind": "duplex" }, "link": { "kind": "none" },
                "fec": { "n": 63, "k": 47, "t": 7, "symbol_bits": 6 },
                "errors": timed_ge("10s", "50ms", 1e-3, 1e-1),
                "reverse_errors": timed_ge("10s", "50ms", 1e-3, 1e-1),
            }),
            Mobitex => json!({
                "rate": "8kbps", "delay": "500ms", "queue": "9pkt",
                "mac": { "kind": "duplex" }, "link": { "kind": "none" },
                "errors": { "model": "gilbert_elliott", "mean_loss": 0.01, "mean_burst": 2.0 },
                "reverse_errors": { "model": "gilbert_elliott", "mean_loss": 0.01, "mean_burst": 2.0 },
            }),
            Dot11 => wlan_hop("2Mbps", "dcf", Some("802.11")),
            Dot11b => wlan_hop("11Mbps", "dcf", Some("802.11b")),
            Hiperlan1 => wlan_hop("20Mbps", "ideal", None),
            Hiperlan2 => wlan_hop("24Mbps", "ideal", None),
        }
    }
}

/// WTCP's two-state channel (Ratnam & Matta, Table I) in its timed form.
fn timed_ge(mean_good: &str, mean_bad: &str, good_ber: f64, bad_ber: f64) -> Value {
    json!({
        "model": "gilbert_elliott", "mean_good": mean_good, "mean_bad": mean_bad,
        "good_ber": good_ber, "bad_ber": bad_ber,
    })
}

/// The residual channel under link ARQ: WTCP Table I, Bad 50 ms.
fn residual_errors() -> Value {
    timed_ge("1s", "50ms", 1e-6, 1e-2)
}

/// A GSM-family hop: RLP over a duplex channel.
fn rlp_hop(rate: &str, delay: &str, queue_pkts: u32, mut rlp: Value) -> Value {
    if let Value::Object(map) = &mut rlp {
        map.insert("kind".into(), json!("rlp"));
    }
    json!({
        "rate": rate, "delay": delay, "queue": format!("{queue_pkts}pkt"),
        "mac": { "kind": "duplex" }, "link": rlp,
        "errors": residual_errors(), "reverse_errors": residual_errors(),
    })
}

/// A 2.5G/3G hop: RLC acknowledged mode as RLP's selective-reject machine over 336-bit
/// PDUs (16-bit header, RFC 3481 §3.2), a window of about twice the bandwidth-delay product
/// and T1 of four one-way delays (D).
fn rlc_hop(rate: &str, delay: &str, queue_pkts: u32, window: u32) -> Value {
    let one_way_ms: u64 = delay.trim_end_matches("ms").parse().unwrap_or(100);
    json!({
        "rate": rate, "delay": delay, "queue": format!("{queue_pkts}pkt"),
        "mac": { "kind": "duplex" },
        "link": {
            "kind": "rlp", "info_bytes": 40, "header_bytes": 2, "window": window,
            "t1": format!("{}ms", 4 * one_way_ms), "n2": 6,
        },
        "errors": residual_errors(), "reverse_errors": residual_errors(),
    })
}

/// A wireless LAN hop: a cell MAC, 1 µs of propagation, no link layer, an uncorrected
/// two-state channel (design notes §14: BER 1e-6 Good, 1e-3 Bad).
fn wlan_hop(rate: &str, mac: &str, phy: Option<&str>) -> Value {
    let mut mac = json!({ "kind": mac });
    if let (Some(phy), Value::Object(map)) = (phy, &mut mac) {
        map.insert("phy".into(), json!(phy));
    }
    json!({
        "rate": rate, "delay": "1us", "mac": mac, "link": { "kind": "none" },
        "errors": timed_ge("1s", "50ms", 1e-6, 1e-3),
        "reverse_errors": timed_ge("1s", "50ms", 1e-6, 1e-3),
    })
}

/// Settings tables filled key by key when the hop writes one of its own.
const SETTINGS_TABLES: [&str; 1] = ["fec"];
/// The tagged tables of a hop's families, filled key by key when the hop names the same
/// kind.
const FAMILY_TABLES: [&str; 2] = ["mac", "link"];
/// The 802.11 PHY keys of the MACs that use them.
const PHY_KEYS: [&str; 3] = ["phy", "basic_rate", "preamble"];
/// The MACs that take the PHY keys.
const PHY_MACS: [&str; 3] = ["ideal", "dcf", "fama"];

/// Expands every `preset` of the document's hops (`topology.wireless`, `topology.wired`,
/// `topology.links[i]`). An unknown name is left for the reader to refuse with the list.
pub(crate) fn expand(doc: &mut Value) {
    let Some(topology) = doc.get_mut("topology").and_then(Value::as_object_mut) else {
        return;
    };
    for key in ["wireless", "wired"] {
        if let Some(Value::Object(hop)) = topology.get_mut(key) {
            expand_hop(hop);
        }
    }
    if let Some(Value::Array(links)) = topology.get_mut("links") {
        for link in links {
            if let Value::Object(hop) = link {
                expand_hop(hop);
            }
        }
    }
}

fn expand_hop(hop: &mut Map<String, Value>) {
    let Some(preset) = hop
        .get("preset")
        .and_then(Value::as_str)
        .and_then(NetworkPreset::from_name)
    else {
        return;
    };
    let Value::Object(keys) = preset.keys() else {
        return;
    };
    for (key, value) in keys {
        match (hop.get_mut(&key), value) {
            (None, value) => {
                hop.insert(key, value);
            }
            (Some(mine), Value::Object(theirs)) if FAMILY_TABLES.contains(&key.as_str()) => {
                fill_family_table(mine, theirs);
            }
            (Some(Value::Object(mine)), Value::Object(theirs))
                if SETTINGS_TABLES.contains(&key.as_str()) =>
            {
                for (k, v) in theirs {
                    mine.entry(k).or_insert(v);
                }
            }
            _ => {}
        }
    }
}

/// The hop's `mac` or `link` (`mine`, a name or a table) filled from the preset's table: all
/// its settings for the same kind (a table without `kind` is the preset's kind), only the
/// PHY keys for another MAC that takes them.
fn fill_family_table(mine: &mut Value, theirs: Map<String, Value>) {
    let kind = match &*mine {
        Value::String(name) => name.clone(),
        Value::Object(map) => match map.get("kind").and_then(Value::as_str) {
            Some(kind) => kind.to_string(),
            None => match theirs.get("kind").and_then(Value::as_str) {
                Some(kind) => kind.to_string(),
                None => return,
            },
        },
        _ => return,
    };
    let same = theirs.get("kind").and_then(Value::as_str) == Some(kind.as_str());
    let fill_kind = same && matches!(&*mine, Value::Object(map) if !map.contains_key("kind"));
    let phy_only = !same && PHY_MACS.contains(&kind.as_str());
    let fill: Vec<(String, Value)> = theirs
        .into_iter()
        .filter(|(k, _)| {
            (k != "kind" || fill_kind) && (same || (phy_only && PHY_KEYS.contains(&k.as_str())))
        })
        .collect();
    if fill.is_empty() {
        return;
    }
    if let Value::String(name) = &*mine {
        *mine = json!({ "kind": name });
    }
    if let Value::Object(map) = mine {
        for (k, v) in fill {
            map.entry(k).or_insert(v);
        }
    }
}

#[cfg(test)]
mod tests;
