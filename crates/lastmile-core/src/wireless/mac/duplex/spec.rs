//! The duplex MAC in a scenario (`mac = "duplex"`): it has no settings of its own; its
//! channel is the hop's `rate`, `overhead`, `delay` and `fec` (with the FEC's decoding
//! delay, which this MAC can hold frames for).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::RngStream;
use crate::wireless::hop::Hop;
use crate::wireless::mac::spec::{MacSettings, StationSetup};
use crate::wireless::mac::AnyMac;

use super::{DuplexConfig, DuplexMac};

/// The duplex MAC's settings: none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DuplexSpec {}

impl DuplexSpec {
    /// The duplex channel of `hop`.
    pub fn config(hop: &Hop<'_>) -> DuplexConfig {
        DuplexConfig {
            rate_bps: hop.rate_bps,
            overhead_bytes: hop.overhead_bytes.min(u64::from(u32::MAX)) as u32,
            propagation: hop.delay,
            code: hop.fec_code,
            decode_delay: hop.decode_delay,
        }
    }
}

impl MacSettings for DuplexSpec {
    const KIND: &'static str = "duplex";
    const FULL_DUPLEX: bool = true;
    const HOLDS_FRAMES: bool = true;

    fn build<P: Clone>(&self, hop: &Hop<'_>, station: StationSetup, _rng: RngStream) -> AnyMac<P> {
        AnyMac::Duplex(DuplexMac::new(station.node, Self::config(hop)))
    }
}
