//! The ideal MAC's settings in a scenario (`mac = { kind = "ideal", ... }`): only the
//! 802.11 PHY keys, which give its framing and airtime; it takes any rate. Its stations'
//! priority ranks are their places in the cell: a later joiner takes the next one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::RngStream;
use crate::wireless::hop::Hop;
use crate::wireless::mac::spec::{MacSettings, PhySettings, StationSetup};
use crate::wireless::mac::AnyMac;

use super::{IdealConfig, IdealMac};

/// The ideal MAC's settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IdealSpec {
    #[serde(flatten)]
    pub phy: PhySettings,
}

impl MacSettings for IdealSpec {
    const KIND: &'static str = "ideal";

    fn phy(&self) -> Option<&PhySettings> {
        Some(&self.phy)
    }

    fn build<P: Clone>(&self, hop: &Hop<'_>, station: StationSetup, _rng: RngStream) -> AnyMac<P> {
        AnyMac::Ideal(IdealMac::new(
            station.node,
            IdealConfig {
                phy: self.phy.config(hop),
                rank: station.rank,
                cell_size: station.cell_size,
                propagation: hop.delay,
            },
        ))
    }
}
