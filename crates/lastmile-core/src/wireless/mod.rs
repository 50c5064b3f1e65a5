//! The wireless cell's protocol machines, driven by the engine in `sim::cell`:
//! - `phy`: IEEE 802.11 DSSS PHY timing (802.11-1999 clause 15, 802.11b);
//! - `medium`: the shared half-duplex broadcast channel (one collision domain);
//! - `mac`: the MACs behind [`mac::AnyMac`], their common vocabulary, and their scenario
//!   settings (`mac::spec`: the one list of MACs, which `lastmile schema` shows);
//! - `signals`: the MAC ⇄ link-layer signals of TULIP §3.2–3.3 and LLE-TCP;
//! - `link`: the link layers behind [`link::AnyLinkLayer`] and their scenario settings
//!   (`link::spec`, one list of link layers);
//! - `hop`: what a MAC and a link layer are configured from;
//! - `energy`: radio time and energy per state (transmit, receive, idle, sleep);
//! - `bianchi` and `harness`: Bianchi's (2000) saturation model and a saturation harness
//!   that checks the DCF against it.

pub mod bianchi;
pub mod energy;
pub mod harness;
pub mod hop;
pub mod link;
pub mod mac;
pub mod medium;
pub mod phy;
pub mod signals;
