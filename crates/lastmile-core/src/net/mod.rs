//! The network: nodes with addresses, static shortest-path routing, full-duplex
//! point-to-point links made of two `Channel`s, and their queues: drop-tail, or RED with
//! ECN marking (`red.rs`).

pub mod link;
pub mod queue;
pub mod red;
pub mod routing;

pub use link::{Channel, ChannelStats, Offer};
pub use queue::{Admission, DropTail, Queue};
pub use red::{AqmSpec, RedSpec};
pub use routing::{CellId, Hop, RoutingTable};
