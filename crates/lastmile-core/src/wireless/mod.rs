//! The wireless cell (groundwork for the wireless issue): IEEE 802.11 DSSS PHY timing, the
//! shared half-duplex medium, the DCF MAC as a pure state machine, Bianchi's analytical
//! saturation model with a saturation harness that validates the MAC against it, the
//! MAC ⇄ link-layer signals of TULIP and LLE-TCP, the ideal MAC and [`mac::AnyMac`], and the
//! link layers behind [`link::AnyLinkLayer`] (none, stop-and-wait, TULIP). The engine drives
//! them in `sim::cell`.

pub mod bianchi;
pub mod harness;
pub mod link;
pub mod mac;
pub mod medium;
pub mod phy;
pub mod signals;
