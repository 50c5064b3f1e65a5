//! The network: nodes with addresses, static shortest-path routing, full-duplex
//! point-to-point links made of two `Channel`s, and drop-tail queues.

pub mod link;
pub mod queue;
pub mod routing;

pub use link::{Channel, ChannelStats, Offer};
pub use queue::DropTail;
pub use routing::{CellId, Hop, RoutingTable};
