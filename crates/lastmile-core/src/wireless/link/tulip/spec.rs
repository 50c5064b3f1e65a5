//! TULIP's settings in a scenario (`link = { kind = "tulip", window = 8 }`) and its
//! configuration on a cell: the scenario's settings, and the terms of equation (1) it leaves
//! unset — τ, t_c from the PHY, t_PKT with the MAC header, and t_ACK from the MAC's reply
//! budget (`AnyMac::reply_budget`). Defaults are the paper's set-up (§5).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::SimDuration;
use crate::errors::ScenarioError;
use crate::units::Duration;
use crate::wireless::hop::Hop;
use crate::wireless::link::spec::LinkLayerSettings;
use crate::wireless::link::AnyLinkLayer;
use crate::wireless::mac::fama::spec::is_mac_accelerated;
use crate::wireless::mac::spec::phy_config;
use crate::wireless::mac::AnyMac;
use crate::wireless::phy::{DATA_HEADER_FCS_BYTES, LLC_SNAP_BYTES};

use super::{TulipConfig, TulipLink, MAC_ACCEL_PIGGYBACK_MAX_BYTES, TULIP_HEADER_BYTES, W_MAX};

/// TULIP's settings. Defaults are the paper's set-up (§5).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TulipSpec {
    /// W, the sliding window in frames (2..=128). Default 8 (TULIP §5).
    #[serde(default = "default_tulip_window")]
    pub window: u16,
    /// MAC acceleration (TULIP §3.3): a LACK carries a queued packet of ≤ 40 bytes (a TCP
    /// ACK); over `mac = "fama"` the LACK is sent inside the data frame's floor, with no
    /// RTS/CTS. Default true (the paper's TULIP runs over FAMA-NCS with it).
    #[serde(default = "default_true")]
    pub mac_acceleration: bool,
    /// τ of equation (1): the maximum propagation delay. Default: the hop's `delay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tau: Option<Duration>,
    /// t_TR of equation (1): radio turnaround. Default "5us" (802.11 DSSS
    /// aRxTxTurnaroundTime; the paper gives no number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_tr: Option<Duration>,
    /// t_c of equation (1): time to get capture, framing and preamble. Default: the PHY's
    /// PLCP preamble and header (192 µs long, 96 µs short).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_c: Option<Duration>,
    /// t_p of equation (1): processing at sender and receiver. Default "10us" (one SIFS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_p: Option<Duration>,
    /// t_ACK of equation (1): the LACK's time on the air. Default: derived from the MAC (the
    /// in-floor reply over FAMA with MAC acceleration, a full exchange otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_ack: Option<Duration>,
    /// Lower bound of the Δt2 hold-down after a WAIT (Figure 2). Default "0s": the MAC's
    /// announced duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_t2_min: Option<Duration>,
}

fn default_tulip_window() -> u16 {
    8
}

fn default_true() -> bool {
    true
}

impl Default for TulipSpec {
    fn default() -> Self {
        TulipSpec {
            window: default_tulip_window(),
            mac_acceleration: true,
            tau: None,
            t_tr: None,
            t_c: None,
            t_p: None,
            t_ack: None,
            delta_t2_min: None,
        }
    }
}

impl LinkLayerSettings for TulipSpec {
    const KIND: &'static str = "tulip";
    type Config = TulipConfig;

    /// W in TULIP's range.
    fn check(&self) -> Result<(), ScenarioError> {
        if !(2..=W_MAX).contains(&self.window) {
            return Err(ScenarioError::bad_value(
                "window",
                self.window.to_string(),
                format!("a window of 2..={W_MAX} frames (the paper's is 8)"),
            ));
        }
        Ok(())
    }

    /// The scenario's settings, and the terms of equation (1) they leave unset derived from
    /// the PHY and the MAC.
    fn config<P: Clone>(&self, hop: &Hop<'_>, mac: &AnyMac<P>) -> TulipConfig {
        let phy = phy_config(hop);
        let mut t = TulipConfig {
            window: self.window,
            rate_bps: phy.data_rate_bps,
            tau: hop.delay,
            t_c: phy.plcp(),
            mac_acceleration: self.mac_acceleration,
            lack_bytes: TulipConfig::lack_bytes_for_window(self.window),
            ..TulipConfig::default()
        };
        // Equation (1)'s terms a scenario sets explicitly.
        let set = |v: Option<Duration>, d: &mut SimDuration| {
            if let Some(v) = v {
                *d = v.sim();
            }
        };
        set(self.tau, &mut t.tau);
        set(self.t_tr, &mut t.t_tr);
        set(self.t_c, &mut t.t_c);
        set(self.t_p, &mut t.t_p);
        set(self.delta_t2_min, &mut t.delta_t2_min);
        // t_PKT of eq. (1) is the data frame's time on the channel: its MAC header too.
        t.mac_overhead_bytes = DATA_HEADER_FCS_BYTES + LLC_SNAP_BYTES;
        // The peer may have one TCP ACK (an unreliable frame of ≤ 40 B) queued at its MAC
        // ahead of the LACK: the ACK of the previous frame, generated after its LACK. With
        // MAC acceleration over FAMA the LACK goes first, inside the floor, and the TCP ACK
        // waits to ride on the next LACK (`AnyMac::piggyback_hold`).
        let lack = t.lack_bytes + MAC_ACCEL_PIGGYBACK_MAX_BYTES;
        let (reply, other_terms) = if is_mac_accelerated(hop) {
            t.piggyback_hold = mac.piggyback_hold();
            // The in-floor reply ends exactly as the sender's reply window does: eq. (1)'s
            // 2t_TR + t_p stay on top of it, so T1 never fires at the very instant the LACK
            // (and the TCP ACK it carries) arrives.
            (mac.reply_budget(lack), t.tau * 2)
        } else {
            let reply = mac.reply_budget(lack)
                + mac.reply_budget(TULIP_HEADER_BYTES + MAC_ACCEL_PIGGYBACK_MAX_BYTES);
            (reply, t.tau * 2 + t.t_tr * 2 + t.t_p)
        };
        // t_ACK: the LACK's way back; t_c already counts both PLCPs.
        t.t_ack = Some(
            self.t_ack
                .map(|d| d.sim())
                .unwrap_or_else(|| reply.saturating_sub(phy.plcp()).saturating_sub(other_terms)),
        );
        t
    }

    fn layer(config: &TulipConfig, _head: bool) -> Result<AnyLinkLayer, String> {
        TulipLink::new(config.clone())
            .map(|l| AnyLinkLayer::Tulip(Box::new(l)))
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStream;
    use crate::ids::NodeId;
    use crate::scenario::LinkSpec;
    use crate::wireless::link::spec::LinkLayerSpec;
    use crate::wireless::mac::StationSetup;

    /// TULIP's experiment hop (§5): 1 Mbps, τ = 1 µs, with the given MAC and link layer.
    fn hop(mac: &str, link: &str) -> LinkSpec {
        LinkSpec::tulip_experiment_hop(&format!("\"{mac}\""), &format!("link = {link}"))
    }

    fn head_mac(spec: &LinkSpec) -> AnyMac<()> {
        let station = StationSetup {
            node: NodeId(0),
            rank: 0,
            cell_size: 2,
        };
        spec.mac
            .build(&spec.hop(), station, RngStream::derive(1, "t"))
            .expect("a cell")
    }

    fn tulip(spec: &LinkSpec) -> TulipConfig {
        let LinkLayerSpec::Tulip(t) = &spec.link else {
            panic!("not TULIP");
        };
        t.config(&spec.hop(), &head_mac(spec))
    }

    /// TULIP eq. (1) over accelerated FAMA-NCS: t_ACK is the in-floor reply (SIFS 10 µs +
    /// 2τ 2 µs + a 43-byte frame, 824 µs) less the PLCP t_c already counts (192 µs) and 2τ.
    #[test]
    fn tulip_t_ack_over_accelerated_fama_is_the_in_floor_reply() {
        let spec = hop("fama", "\"tulip\"");
        let mac = head_mac(&spec);
        assert_eq!(mac.reply_budget(43), SimDuration::from_micros(836));
        let t = tulip(&spec);
        assert_eq!(t.t_ack, Some(SimDuration::from_micros(642)));
        assert_eq!(t.t_c, SimDuration::from_micros(192));
        assert_eq!(t.mac_overhead_bytes, 36);
        assert_eq!(t.piggyback_hold, mac.piggyback_hold());
        assert!(t.piggyback_hold > SimDuration::ZERO);
    }

    #[test]
    fn scenario_terms_of_equation_1_win() {
        let spec = hop("fama", r#"{ kind = "tulip", t_ack = "1ms", t_p = "20us" }"#);
        let t = tulip(&spec);
        assert_eq!(t.t_ack, Some(SimDuration::from_millis(1)));
        assert_eq!(t.t_p, SimDuration::from_micros(20));
        let dcf = head_mac(&hop("dcf", "\"none\""));
        assert_eq!(dcf.piggyback_hold(), SimDuration::ZERO);
    }

    #[test]
    fn tulip_defaults_are_the_papers_and_its_window_is_checked() {
        let t = TulipSpec::default();
        assert_eq!((t.window, t.mac_acceleration), (8, true));
        assert!(t.check().is_ok());
        for w in [1, 129] {
            let e = TulipSpec {
                window: w,
                ..t.clone()
            }
            .check()
            .unwrap_err();
            assert_eq!(e.path, "window", "{e}");
        }
    }
}
