//! Typed indices into the simulator's arenas: a `NodeId` can never be mistaken for a
//! `LinkId`.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(/// A node (host, router or base station).
    NodeId);
id!(/// A point-to-point link (two directions).
    LinkId);
id!(/// A flow of the scenario: one application and one TCP connection.
    FlowId);
id!(/// A transport endpoint (one side of a connection).
    EndpointId);

/// One direction of a link: `Forward` carries frames from the link's `from` node to its
/// `to` node (the data-bound direction in the presets), `Reverse` the other way.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Forward,
    Reverse,
}

impl Direction {
    pub fn index(self) -> usize {
        match self {
            Direction::Forward => 0,
            Direction::Reverse => 1,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Direction::Forward => "fwd",
            Direction::Reverse => "rev",
        }
    }
}

id!(/// A member of a wireless cell, for as long as it is one: a node that leaves and joins
    /// again gets a new id, so events meant for its former membership find nothing.
    StationId);
id!(/// A base-station agent placed on a node (or an agent's client on an end host).
    AgentId);
