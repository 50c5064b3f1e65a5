//! A wireless cell's configuration from its scenario spec (`LinkSpec`): the 802.11 PHY, the
//! MAC's parameters (DCF, FAMA-NCS), and the link layers' timers derived from the MAC.
//!
//! * PHY: the preset (802.11 or 802.11b DSSS), `rate` as the data rate, then `basic_rate` and
//!   `preamble`.
//! * DCF: the standard's MIB values on that PHY; over TULIP the retry limits default to 1
//!   (TULIP does the ARQ, and a MAC retry of a frame whose MAC ACK was lost would be a
//!   redundant transmission).
//! * FAMA-NCS: its constants on that PHY, τ at least the hop's delay, floors sized for the
//!   link layer's framing (which the MAC does not know, `LinkFraming`). MAC acceleration only
//!   for TULIP with `mac_acceleration` (TULIP §3.3, §5).
//! * TULIP: equation (1)'s terms — τ, t_c from the PHY, t_PKT with the MAC header, and t_ACK
//!   from the MAC's reply budget (`AnyMac::reply_budget`) — unless the scenario sets them.
//! * Stop-and-wait: the ACK timeout from the reply budget plus one maximum frame.
//! * Duplex (`mac = "duplex"`): the hop's rate, `overhead`, delay and FEC.
//! * RLP: the `rlp` table as it stands (its defaults are TS 24.022's).
//! * AIRMAIL: the `airmail` table; the status period one window of blocks on this MAC, the
//!   timeouts two periods and a reply.
//! * FEC (`fec`): every cell MAC's frames take the airtime of their coded bits.
//! * DDA's link layer: its `dda` settings, the ACK timeout from the reply budget plus two
//!   maximum frames.

use crate::engine::SimDuration;
use crate::error_model::BlockCode;
use crate::scenario::{CwRuleKind, LinkLayerKind, LinkSpec, MacKind, PhyPreset, PreambleKind};
use crate::wireless::link::airmail::{AirmailConfig, AIRMAIL_WINDOW_MAX};
use crate::wireless::link::dda::{DdaLinkConfig, DDA_ACK_BYTES};
use crate::wireless::link::rlp::RlpConfig;
use crate::wireless::link::stop_and_wait::{StopAndWaitConfig, SAW_HEADER_BYTES};
use crate::wireless::link::tulip::{
    TulipConfig, MAC_ACCEL_PIGGYBACK_MAX_BYTES, TULIP_HEADER_BYTES,
};
use crate::wireless::mac::fama::LinkFraming;
use crate::wireless::mac::{AnyMac, CwRule, DcfConfig, DuplexConfig, FamaConfig};
use crate::wireless::phy::{PhyConfig, Preamble, DATA_HEADER_FCS_BYTES, LLC_SNAP_BYTES};

/// Stop-and-wait's attempts per frame when the scenario gives none.
const DEFAULT_LINK_RETRY_LIMIT: u32 = 7;
/// The longest IP datagram a peer may be sending when a reply is due (stop-and-wait's ACK
/// timeout waits for it).
const MAX_DATAGRAM_BYTES: u32 = 1500;

/// The PHY of a cell from its spec: the preset, `rate` as the data rate, then the overrides.
pub fn phy_config(spec: &LinkSpec) -> PhyConfig {
    let mut phy = match spec.phy.unwrap_or_default() {
        PhyPreset::Dot11 => PhyConfig::preset("802.11"),
        PhyPreset::Dot11b => PhyConfig::preset("802.11b"),
    }
    .expect("known preset");
    phy.data_rate_bps = spec.rate.bps();
    if let Some(r) = spec.basic_rate {
        phy.basic_rate_bps = r.bps();
    }
    if let Some(p) = spec.preamble {
        phy.preamble = match p {
            PreambleKind::Long => Preamble::Long,
            PreambleKind::Short => Preamble::Short,
        };
    }
    phy.code = fec_code(spec);
    phy
}

/// The hop's link FEC, if any.
pub fn fec_code(spec: &LinkSpec) -> Option<BlockCode> {
    spec.fec.as_ref().map(|f| f.code())
}

/// The duplex channel of a hop (`mac = "duplex"`).
pub fn duplex_config(spec: &LinkSpec) -> DuplexConfig {
    DuplexConfig {
        rate_bps: spec.rate.bps(),
        overhead_bytes: spec.overhead.bytes().min(u64::from(u32::MAX)) as u32,
        propagation: spec.delay.sim(),
        code: fec_code(spec),
        decode_delay: spec
            .fec
            .as_ref()
            .map_or(SimDuration::ZERO, |f| f.decode_delay.sim()),
    }
}

/// RLP's configuration, `None` unless `link = "rlp"`.
pub fn rlp_config(spec: &LinkSpec) -> Option<RlpConfig> {
    if spec.link != LinkLayerKind::Rlp {
        return None;
    }
    let r = spec.rlp.clone().unwrap_or_default();
    Some(RlpConfig {
        info_bytes: r.info_bytes,
        header_bytes: r.header_bytes,
        window: r.window,
        t1: r.t1.sim(),
        n2: r.n2,
    })
}

/// The DCF of a cell from its spec (retry limits 1 over TULIP unless given).
pub fn dcf_config(spec: &LinkSpec) -> DcfConfig {
    let mut cfg = DcfConfig::with_phy(phy_config(spec));
    let tulip = spec.link == LinkLayerKind::Tulip;
    let default_limit = |standard: u32| if tulip { 1 } else { standard };
    cfg.short_retry_limit = spec
        .retry_limit_short
        .unwrap_or(default_limit(cfg.short_retry_limit));
    cfg.long_retry_limit = spec
        .retry_limit_long
        .unwrap_or(default_limit(cfg.long_retry_limit));
    if let Some(t) = spec.rts_threshold {
        cfg.rts_threshold_bytes = t.bytes().min(u64::from(u32::MAX)) as u32;
    }
    cfg.cw_rule = match spec.cw_rule.unwrap_or_default() {
        CwRuleKind::Dcf => CwRule::Dcf,
        CwRuleKind::Qsrc => CwRule::Qsrc,
    };
    cfg
}

/// True when the cell runs TULIP with MAC acceleration over FAMA-NCS (TULIP §3.3, §5): the
/// only case in which a link layer replies inside the floor.
pub fn is_mac_accelerated(spec: &LinkSpec) -> bool {
    spec.mac == MacKind::Fama
        && spec.link == LinkLayerKind::Tulip
        && spec.tulip.clone().unwrap_or_default().mac_acceleration
}

/// FAMA-NCS's constants on the cell's PHY, with the slot, backoff windows and CTS length of
/// the `fama` table, if any: what the scenario check validates (at the nominal τ).
pub fn fama_constants(spec: &LinkSpec) -> FamaConfig {
    let mut cfg = FamaConfig::with_phy(phy_config(spec));
    if let Some(f) = &spec.fama {
        cfg.phy.slot = f.slot.map_or(cfg.phy.slot, |d| d.sim());
        cfg.cw_min = f.cw_min.unwrap_or(cfg.cw_min);
        cfg.cw_max = f.cw_max.unwrap_or(cfg.cw_max);
        cfg.cts_bytes = f.cts_bytes.unwrap_or(cfg.cts_bytes);
    }
    cfg
}

/// The FAMA-NCS of a cell from its spec: its constants ([`fama_constants`]), the
/// propagation delay as τ, and floors for TULIP's framing: a 2-byte header on every data
/// frame, and under MAC acceleration an in-floor reply of the configured window's LACK plus
/// a 40-byte piggyback. The CTS deferral covers TULIP's header whichever link layer runs
/// (with `link = "none"` that is 16 µs more than needed at 1 Mbps; kept as the results were
/// recorded).
pub fn fama_config(spec: &LinkSpec) -> FamaConfig {
    let window = spec.tulip.clone().unwrap_or_default().window;
    let reply_in_floor_max_bytes = if is_mac_accelerated(spec) {
        TulipConfig::lack_bytes_for_window(window) + MAC_ACCEL_PIGGYBACK_MAX_BYTES
    } else {
        0
    };
    let mut cfg = fama_constants(spec).with_link(LinkFraming {
        header_bytes: TULIP_HEADER_BYTES,
        reply_in_floor_max_bytes,
    });
    cfg.tau = cfg.tau.max(spec.delay.sim());
    cfg
}

/// TULIP's configuration for a cell whose head runs `mac`, `None` unless `link = "tulip"`:
/// the scenario's settings, and the terms of equation (1) it leaves unset derived from the
/// PHY and the MAC.
pub fn tulip_config<P: Clone>(spec: &LinkSpec, mac: &AnyMac<P>) -> Option<TulipConfig> {
    if spec.link != LinkLayerKind::Tulip {
        return None;
    }
    let phy = phy_config(spec);
    let settings = spec.tulip.clone().unwrap_or_default();
    let mut t = TulipConfig {
        window: settings.window,
        rate_bps: phy.data_rate_bps,
        tau: spec.delay.sim(),
        t_c: phy.plcp(),
        mac_acceleration: settings.mac_acceleration,
        lack_bytes: TulipConfig::lack_bytes_for_window(settings.window),
        ..TulipConfig::default()
    };
    // Equation (1)'s terms a scenario sets explicitly.
    let set = |v: Option<crate::units::Duration>, d: &mut SimDuration| {
        if let Some(v) = v {
            *d = v.sim();
        }
    };
    set(settings.tau, &mut t.tau);
    set(settings.t_tr, &mut t.t_tr);
    set(settings.t_c, &mut t.t_c);
    set(settings.t_p, &mut t.t_p);
    set(settings.delta_t2_min, &mut t.delta_t2_min);
    // t_PKT of eq. (1) is the data frame's time on the channel: its MAC header too.
    t.mac_overhead_bytes = DATA_HEADER_FCS_BYTES + LLC_SNAP_BYTES;
    // The peer may have one TCP ACK (an unreliable frame of ≤ 40 B) queued at its MAC ahead
    // of the LACK: the ACK of the previous frame, generated after its LACK. With MAC
    // acceleration over FAMA the LACK goes first, inside the floor, and the TCP ACK waits to
    // ride on the next LACK (`AnyMac::piggyback_hold`).
    let lack = t.lack_bytes + MAC_ACCEL_PIGGYBACK_MAX_BYTES;
    let (reply, other_terms) = if is_mac_accelerated(spec) {
        t.piggyback_hold = mac.piggyback_hold();
        // The in-floor reply ends exactly as the sender's reply window does: eq. (1)'s
        // 2t_TR + t_p stay on top of it, so T1 never fires at the very instant the LACK (and
        // the TCP ACK it carries) arrives.
        (mac.reply_budget(lack), t.tau * 2)
    } else {
        let reply = mac.reply_budget(lack)
            + mac.reply_budget(TULIP_HEADER_BYTES + MAC_ACCEL_PIGGYBACK_MAX_BYTES);
        (reply, t.tau * 2 + t.t_tr * 2 + t.t_p)
    };
    // t_ACK: the LACK's way back; t_c already counts both PLCPs.
    t.t_ack = Some(
        settings
            .t_ack
            .map(|d| d.sim())
            .unwrap_or_else(|| reply.saturating_sub(phy.plcp()).saturating_sub(other_terms)),
    );
    Some(t)
}

/// AIRMAIL's configuration over `mac`, `None` unless `link = "airmail"`: the table's values,
/// and for those it leaves out our defaults (64-byte blocks with a 4-byte header, W = 32, a
/// status period of one window's airtime on this MAC, timeouts of two periods and a reply).
pub fn airmail_config<P: Clone>(spec: &LinkSpec, mac: &AnyMac<P>) -> Option<AirmailConfig> {
    if spec.link != LinkLayerKind::Airmail {
        return None;
    }
    let a = spec.airmail.clone().unwrap_or_default();
    let mut cfg = AirmailConfig {
        info_bytes: a.info_bytes.unwrap_or(64),
        header_bytes: a.header_bytes.unwrap_or(4),
        window: a.window.unwrap_or(32).clamp(1, AIRMAIL_WINDOW_MAX),
        status_period: SimDuration::ZERO,
        ack_timeout: SimDuration::ZERO,
        block_timeout: SimDuration::ZERO,
    };
    let block = cfg.info_bytes + cfg.header_bytes;
    let block_airtime = match mac {
        AnyMac::Duplex(d) => d.config().airtime(block),
        _ => phy_config(spec).data_airtime(block),
    };
    cfg.status_period = a
        .status_period
        .map_or(block_airtime * u64::from(cfg.window), |d| d.sim());
    let reply = mac.reply_budget(block + cfg.status_bytes());
    cfg.ack_timeout = a
        .ack_timeout
        .map_or(cfg.status_period * 2 + reply, |d| d.sim());
    cfg.block_timeout = a.block_timeout.map_or(cfg.ack_timeout, |d| d.sim());
    Some(cfg)
}

/// Stop-and-wait's configuration over `mac`: the ACK timeout is the reply, plus one maximum
/// frame the peer may have to finish first; `link_retry_limit` attempts (default 7).
pub fn stop_and_wait_config<P: Clone>(spec: &LinkSpec, mac: &AnyMac<P>) -> StopAndWaitConfig {
    let phy = phy_config(spec);
    let longest_frame = match mac {
        AnyMac::Duplex(d) => d.config().airtime(MAX_DATAGRAM_BYTES),
        _ => phy.data_airtime(MAX_DATAGRAM_BYTES) + phy.difs(),
    };
    StopAndWaitConfig {
        ack_timeout: mac.reply_budget(SAW_HEADER_BYTES) + longest_frame,
        retry_limit: spec.link_retry_limit.unwrap_or(DEFAULT_LINK_RETRY_LIMIT),
    }
}

/// The largest TCP ACK a DDA link ACK carries: IP and TCP headers and 40 bytes of options.
const MAX_PIGGYBACK_BYTES: u32 = 80;
/// DDA's window when the scenario gives none (TULIP's W).
const DEFAULT_DDA_WINDOW: u32 = 8;

/// The DDA link layer's configuration over `mac`: the `dda` table's settings, and an ACK
/// timeout of a link ACK's reply budget (with a TCP ACK in it) plus two maximum frames and a DIFS unless set
/// (`DdaLinkSpec`).
pub fn dda_link_config<P: Clone>(spec: &LinkSpec, mac: &AnyMac<P>) -> DdaLinkConfig {
    let phy = phy_config(spec);
    let d = spec.dda.clone().unwrap_or_default();
    DdaLinkConfig {
        window: d.window.unwrap_or(DEFAULT_DDA_WINDOW),
        ack_timeout: d.ack_timeout.map(|t| t.sim()).unwrap_or_else(|| {
            mac.reply_budget(DDA_ACK_BYTES + MAX_PIGGYBACK_BYTES)
                + phy.data_airtime(MAX_DATAGRAM_BYTES) * 2
                + phy.difs()
        }),
        retry_limit: d.retry_limit.unwrap_or(DEFAULT_LINK_RETRY_LIMIT),
        in_order: d.in_order,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStream;
    use crate::ids::NodeId;
    use crate::wireless::mac::{Dcf, Fama};

    /// TULIP's experiment hop (§5): 1 Mbps, τ = 1 µs, with the given MAC and link layer.
    fn hop(mac: &str, extra: &str) -> LinkSpec {
        toml::from_str(&format!(
            r#"rate = "1Mbps"
               delay = "1us"
               mac = "{mac}"
               {extra}"#
        ))
        .expect("a valid link")
    }

    fn fama(spec: &LinkSpec) -> AnyMac<()> {
        AnyMac::Fama(Fama::new(
            NodeId(0),
            fama_config(spec),
            RngStream::derive(1, "t"),
        ))
    }

    #[test]
    fn dcf_under_tulip_leaves_the_arq_to_tulip() {
        let spec = hop("dcf", r#"link = "tulip""#);
        let c = dcf_config(&spec);
        assert_eq!((c.short_retry_limit, c.long_retry_limit), (1, 1));
        let c = dcf_config(&hop("dcf", r#"retry_limit_short = 3"#));
        assert_eq!((c.short_retry_limit, c.long_retry_limit), (3, 4));
    }

    #[test]
    fn dcf_cw_rule_is_the_standards_unless_qsrc_is_asked_for() {
        assert_eq!(dcf_config(&hop("dcf", "")).cw_rule, CwRule::Dcf);
        let c = dcf_config(&hop("dcf", r#"cw_rule = "qsrc""#));
        assert_eq!(c.cw_rule, CwRule::Qsrc);
    }

    #[test]
    fn fama_opens_a_43_byte_reply_window_only_under_tulips_mac_acceleration() {
        let accel = fama_config(&hop("fama", r#"link = "tulip""#));
        assert!(accel.mac_acceleration);
        assert_eq!(accel.reply_in_floor_max_bytes, 43);
        assert_eq!(accel.max_data_msdu_bytes, 1502);
        let off = fama_config(&hop(
            "fama",
            r#"link = "tulip"
               tulip = { mac_acceleration = false }"#,
        ));
        assert!(!off.mac_acceleration);
        assert!(!fama_config(&hop("fama", r#"link = "stop_and_wait""#)).mac_acceleration);
    }

    /// TULIP eq. (1) over accelerated FAMA-NCS: t_ACK is the in-floor reply (SIFS 10 µs +
    /// 2τ 2 µs + a 43-byte frame, 824 µs) less the PLCP t_c already counts (192 µs) and 2τ.
    #[test]
    fn tulip_t_ack_over_accelerated_fama_is_the_in_floor_reply() {
        let spec = hop("fama", r#"link = "tulip""#);
        let mac = fama(&spec);
        assert_eq!(mac.reply_budget(43), SimDuration::from_micros(836));
        let t = tulip_config(&spec, &mac).expect("link = tulip");
        assert_eq!(t.t_ack, Some(SimDuration::from_micros(642)));
        assert_eq!(t.t_c, SimDuration::from_micros(192));
        assert_eq!(t.mac_overhead_bytes, 36);
        assert_eq!(t.piggyback_hold, mac.piggyback_hold());
        assert!(t.piggyback_hold > SimDuration::ZERO);
    }

    #[test]
    fn scenario_terms_of_equation_1_win_and_other_links_get_no_tulip() {
        let spec = hop(
            "fama",
            r#"link = "tulip"
                                  tulip = { t_ack = "1ms", t_p = "20us" }"#,
        );
        let t = tulip_config(&spec, &fama(&spec)).expect("link = tulip");
        assert_eq!(t.t_ack, Some(SimDuration::from_millis(1)));
        assert_eq!(t.t_p, SimDuration::from_micros(20));
        let none = hop("dcf", "");
        let dcf = AnyMac::<()>::Dcf(Dcf::new(
            NodeId(0),
            dcf_config(&none),
            RngStream::derive(1, "t"),
        ));
        assert!(tulip_config(&none, &dcf).is_none());
        assert_eq!(dcf.piggyback_hold(), SimDuration::ZERO);
    }

    #[test]
    fn stop_and_wait_waits_for_the_reply_and_one_maximum_frame() {
        let spec = hop("dcf", r#"link = "stop_and_wait""#);
        let dcf = AnyMac::<()>::Dcf(Dcf::new(
            NodeId(0),
            dcf_config(&spec),
            RngStream::derive(1, "t"),
        ));
        let phy = phy_config(&spec);
        let c = stop_and_wait_config(&spec, &dcf);
        assert_eq!(
            c.ack_timeout,
            dcf.reply_budget(SAW_HEADER_BYTES) + phy.data_airtime(1500) + phy.difs()
        );
        assert_eq!(c.retry_limit, 7);
    }
}
