//! The hop a cell runs on, as its MAC and link layer see it when they are configured: the
//! line's rate, propagation delay and framing overhead, its link FEC, and which MAC and link
//! layer run on it (some defaults of one depend on the other: the DCF's retry limits under
//! TULIP, FAMA-NCS's floors for TULIP's framing, TULIP's eq. (1) from the MAC's reply).

use crate::engine::SimDuration;
use crate::error_model::BlockCode;

use super::link::spec::LinkLayerSpec;
use super::mac::spec::MacSpec;

/// A hop's settings for its MAC and link layer.
#[derive(Clone, Copy, Debug)]
pub struct Hop<'a> {
    /// The line rate (in a cell: the rate of data frames).
    pub rate_bps: u64,
    /// One-way propagation delay.
    pub delay: SimDuration,
    /// Bytes added to every frame below the link layer.
    pub overhead_bytes: u64,
    /// The hop's link FEC, if any.
    pub fec_code: Option<BlockCode>,
    /// How long after a frame's last bit the FEC hands it up.
    pub decode_delay: SimDuration,
    pub mac: &'a MacSpec,
    pub link: &'a LinkLayerSpec,
}
