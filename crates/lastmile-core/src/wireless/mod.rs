//! The wireless cell: PHY timing, the shared medium and the MAC.
//!
//! TEMPORARY (branch `dcf`): the merged `wireless/mod.rs` belongs to the link-layer work and
//! should add the `pub mod` lines below next to its own `pub mod link;`.

pub mod bianchi;
pub mod harness;
pub mod mac;
pub mod medium;
pub mod phy;
