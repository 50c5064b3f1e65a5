//! IEEE 802.11 DSSS PHY timing (IEEE Std 802.11-1999 clause 15, with the 802.11b HR/DSSS
//! rates of clause 18), as the DCF needs it: the PLCP overhead, the airtime of a MAC frame
//! at a given rate, the interframe spaces and the DCF contention constants.
//!
//! - Every PPDU starts with the PLCP preamble and header sent at 1 Mbps: long 144 + 48 bits
//!   = 192 µs (15.2.3), short 72 bits at 1 Mbps + 48 bits at 2 Mbps = 96 µs (18.2.2.2).
//! - Airtime(n MAC bytes at rate R) = PLCP + 8n/R, rounded up to the nanosecond. The standard
//!   rounds the LENGTH field of the 5.5/11 Mbps PLCP header up to a whole microsecond
//!   (18.2.3.5); we do not, which changes a frame's airtime by less than 1 µs.
//! - Slot 20 µs, SIFS 10 µs, DIFS = SIFS + 2·slot = 50 µs (9.2.10, Table 15-2 / 18-5),
//!   EIFS = SIFS + DIFS + ACK airtime at the lowest basic rate = 364 µs (9.2.3.4),
//!   CWmin 31, CWmax 1023 (Table 15-2), retry limits 7 short / 4 long
//!   (dot11ShortRetryLimit / dot11LongRetryLimit, Annex D).
//! - Frame sizes (7.2): data header 24 B + FCS 4 B = 28 B, plus 8 B of LLC/SNAP in front of the
//!   IP datagram (RFC 1042); ACK 14 B; CTS 14 B; RTS 20 B.
//! - ACKTimeout = SIFS + slot + aPHY-RX-START-Delay (802.11-2007 9.2.8), where the DSSS
//!   PHY-RX-START delay is the PLCP duration (192 µs long, 96 µs short): 222 µs long.
//!
//! Left out: OFDM PHYs, PBCC, the CCK/Barker modulation itself, fragmentation thresholds.
//! The `"802.11b"` preset is LLE-TCP's Table 3 (11 Mbps data, 1 Mbps basic, long preamble).

use crate::engine::SimDuration;
use crate::error_model::BlockCode;

/// aSlotTime of the DSSS PHY (Table 15-2).
pub const A_SLOT_TIME: SimDuration = SimDuration::from_micros(20);
/// aSIFSTime of the DSSS PHY (Table 15-2).
pub const A_SIFS_TIME: SimDuration = SimDuration::from_micros(10);
/// aCWmin (Table 15-2).
pub const A_CW_MIN: u32 = 31;
/// aCWmax (Table 15-2).
pub const A_CW_MAX: u32 = 1023;
/// dot11ShortRetryLimit default (Annex D).
pub const DOT11_SHORT_RETRY_LIMIT: u32 = 7;
/// dot11LongRetryLimit default (Annex D).
pub const DOT11_LONG_RETRY_LIMIT: u32 = 4;
/// dot11RTSThreshold default (Annex D): frames longer than this use RTS/CTS, so 2347 means never.
pub const DOT11_RTS_THRESHOLD: u32 = 2347;

/// MAC header (24 B) + FCS (4 B) of a three-address data frame (7.2.2).
pub const DATA_HEADER_FCS_BYTES: u32 = 28;
/// LLC/SNAP encapsulation of an IP datagram (RFC 1042).
pub const LLC_SNAP_BYTES: u32 = 8;
/// ACK frame (7.2.1.3): frame control, duration, RA, FCS.
pub const ACK_BYTES: u32 = 14;
/// CTS frame (7.2.1.2).
pub const CTS_BYTES: u32 = 14;
/// RTS frame (7.2.1.1): adds TA to the CTS layout.
pub const RTS_BYTES: u32 = 20;

/// The rate the PLCP preamble and header go at: 1 Mbps DBPSK (15.2.3).
pub const PLCP_RATE_BPS: u64 = 1_000_000;

/// PLCP preamble format (15.2.3, 18.2.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Preamble {
    /// 144-bit preamble + 48-bit header at 1 Mbps: 192 µs.
    Long,
    /// 72-bit preamble at 1 Mbps + 48-bit header at 2 Mbps: 96 µs (802.11b only).
    Short,
}

impl Preamble {
    pub fn duration(self) -> SimDuration {
        match self {
            Preamble::Long => SimDuration::from_micros(192),
            Preamble::Short => SimDuration::from_micros(96),
        }
    }
}

/// The DSSS/HR-DSSS rates: 1, 2 (clause 15), 5.5 and 11 Mbps (clause 18).
pub const DSSS_RATES_BPS: [u64; 4] = [1_000_000, 2_000_000, 5_500_000, 11_000_000];

/// A DSSS PHY configuration; every DCF duration derives from it.
#[derive(Clone, Debug, PartialEq)]
pub struct PhyConfig {
    pub preamble: Preamble,
    pub slot: SimDuration,
    pub sifs: SimDuration,
    /// Rate of data frames.
    pub data_rate_bps: u64,
    /// Rate of control frames (RTS, CTS, ACK): the basic rate.
    pub basic_rate_bps: u64,
    /// Link FEC on the hop (`error_model/fec.rs`): every MAC frame's bits are coded; the PLCP
    /// is not.
    pub code: Option<BlockCode>,
}

impl Default for PhyConfig {
    /// The 1999 DSSS PHY as ns-2 defaults it: 1 Mbps data and basic rate, long preamble.
    fn default() -> Self {
        PhyConfig {
            preamble: Preamble::Long,
            slot: A_SLOT_TIME,
            sifs: A_SIFS_TIME,
            data_rate_bps: 1_000_000,
            basic_rate_bps: 1_000_000,
            code: None,
        }
    }
}

impl PhyConfig {
    /// A named preset: `"802.11"` (1 Mbps, the default) or `"802.11b"` (LLE-TCP Table 3:
    /// 11 Mbps data, 1 Mbps basic rate, long preamble, slot 20 µs, SIFS 10 µs, DIFS 50 µs).
    pub fn preset(name: &str) -> Option<PhyConfig> {
        match name {
            "802.11" => Some(PhyConfig::default()),
            "802.11b" => Some(PhyConfig {
                data_rate_bps: 11_000_000,
                ..PhyConfig::default()
            }),
            _ => None,
        }
    }

    /// Whether both rates are DSSS/HR-DSSS rates.
    pub fn is_valid(&self) -> bool {
        DSSS_RATES_BPS.contains(&self.data_rate_bps)
            && DSSS_RATES_BPS.contains(&self.basic_rate_bps)
    }

    /// PLCP preamble + header duration.
    pub fn plcp(&self) -> SimDuration {
        self.preamble.duration()
    }

    /// Airtime of a MAC frame of `frame_bytes` (header and FCS included) sent at `rate_bps`.
    pub fn airtime(&self, frame_bytes: u32, rate_bps: u64) -> SimDuration {
        let bits = 8 * u64::from(frame_bytes);
        let bits = self.code.map_or(bits, |c| c.coded_bits(bits));
        self.plcp() + SimDuration::transmission(bits, rate_bps)
    }

    /// MAC frame bytes of a data frame carrying an IP datagram of `msdu_bytes`.
    pub fn data_frame_bytes(msdu_bytes: u32) -> u32 {
        msdu_bytes + DATA_HEADER_FCS_BYTES + LLC_SNAP_BYTES
    }

    /// Airtime of a data frame carrying an IP datagram of `msdu_bytes`, at the data rate.
    pub fn data_airtime(&self, msdu_bytes: u32) -> SimDuration {
        self.airtime(Self::data_frame_bytes(msdu_bytes), self.data_rate_bps)
    }
    pub fn ack_airtime(&self) -> SimDuration {
        self.airtime(ACK_BYTES, self.basic_rate_bps)
    }
    pub fn cts_airtime(&self) -> SimDuration {
        self.airtime(CTS_BYTES, self.basic_rate_bps)
    }
    pub fn rts_airtime(&self) -> SimDuration {
        self.airtime(RTS_BYTES, self.basic_rate_bps)
    }

    /// DIFS = SIFS + 2·slot (9.2.10).
    pub fn difs(&self) -> SimDuration {
        self.sifs + self.slot * 2
    }
    /// PIFS = SIFS + slot (9.2.10).
    pub fn pifs(&self) -> SimDuration {
        self.sifs + self.slot
    }
    /// EIFS = SIFS + DIFS + ACK airtime at the lowest basic rate (9.2.10, 9.2.3.4). We take the
    /// configured basic rate as the lowest one.
    pub fn eifs(&self) -> SimDuration {
        self.sifs + self.difs() + self.ack_airtime()
    }
    /// ACKTimeout (and CTSTimeout) = SIFS + slot + PHY-RX-START delay, counted from the end of
    /// the frame (802.11-2007 9.2.8). The DSSS PHY-RX-START delay is the PLCP duration.
    pub fn ack_timeout(&self) -> SimDuration {
        self.sifs + self.slot + self.plcp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(d: SimDuration) -> f64 {
        d.as_nanos() as f64 / 1000.0
    }

    #[test]
    fn protocol_notes_5_1_worked_numbers_at_1_mbps_basic() {
        let phy = PhyConfig {
            data_rate_bps: 2_000_000,
            ..PhyConfig::default()
        };
        assert_eq!(phy.ack_airtime(), SimDuration::from_micros(304));
        assert_eq!(phy.cts_airtime(), SimDuration::from_micros(304));
        assert_eq!(phy.rts_airtime(), SimDuration::from_micros(352));
        // 1040-byte IP packet -> 1076-byte MAC frame.
        assert_eq!(PhyConfig::data_frame_bytes(1040), 1076);
        assert_eq!(phy.data_airtime(1040), SimDuration::from_micros(4496));
        assert_eq!(phy.airtime(1076, 1_000_000), SimDuration::from_micros(8800));
        // A 40-byte TCP ACK becomes 76 B: 496 µs at 2 Mbps.
        assert_eq!(phy.data_airtime(40), SimDuration::from_micros(496));
        assert_eq!(phy.difs(), SimDuration::from_micros(50));
        assert_eq!(phy.pifs(), SimDuration::from_micros(30));
        assert_eq!(phy.eifs(), SimDuration::from_micros(364));
        assert_eq!(phy.ack_timeout(), SimDuration::from_micros(222));
        // One RTS/CTS/DATA/ACK cycle with the mean initial backoff (15.5 slots) ≈ 5.85 ms.
        let cycle = phy.difs()
            + SimDuration::from_micros(310)
            + phy.rts_airtime()
            + phy.sifs
            + phy.cts_airtime()
            + phy.sifs
            + phy.data_airtime(1040)
            + phy.sifs
            + phy.ack_airtime();
        assert_eq!(cycle, SimDuration::from_micros(5846));
    }

    #[test]
    fn preset_802_11b_is_lle_tcp_table_3() {
        let phy = PhyConfig::preset("802.11b").unwrap();
        assert!(phy.is_valid());
        assert_eq!(phy.data_rate_bps, 11_000_000);
        assert_eq!(phy.basic_rate_bps, 1_000_000);
        assert_eq!(phy.slot, SimDuration::from_micros(20));
        assert_eq!(phy.sifs, SimDuration::from_micros(10));
        assert_eq!(phy.difs(), SimDuration::from_micros(50));
        assert_eq!(phy.plcp(), SimDuration::from_micros(192));
        // 1500-byte datagram: 1536 B at 11 Mbps = 192 + 1117.09 µs.
        assert!((us(phy.data_airtime(1500)) - (192.0 + 1536.0 * 8.0 / 11.0)).abs() < 0.001);
        assert!(PhyConfig::preset("802.11n").is_none());
    }

    #[test]
    fn short_preamble_halves_plcp_and_rates_are_dsss() {
        let phy = PhyConfig {
            preamble: Preamble::Short,
            data_rate_bps: 5_500_000,
            basic_rate_bps: 2_000_000,
            ..PhyConfig::default()
        };
        assert!(phy.is_valid());
        assert_eq!(phy.ack_airtime(), SimDuration::from_micros(96 + 56));
        assert_eq!(phy.ack_timeout(), SimDuration::from_micros(126));
        assert_eq!(phy.eifs(), SimDuration::from_micros(10 + 50 + 152));
        let bad = PhyConfig {
            data_rate_bps: 54_000_000,
            ..phy
        };
        assert!(!bad.is_valid());
    }
}
