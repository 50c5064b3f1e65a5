//! lastmile-core: a fast, deterministic simulator of TCP over wired-cum-wireless paths.
//!
//! The modules, floor by floor from the bottom up; a module imports only from its own floor
//! or below (the integration test `layers` reads the source and checks it). Which variants
//! each family has (congestion controls, MACs, link layers, agents, error models,
//! applications) is the family's own list, its registry: `lastmile schema` and
//! `docs/scenario-reference.md` are generated from them, and `docs/architecture.md` says
//! which files a new variant touches.
//! 1. `engine` (integer time, the event queue, timers, named random streams), `ids`,
//!    `units` (quantities with units and their ranges), `ranges`, `errors` (the
//!    validation error every component reports its settings' problems with), `short_form`
//!    (a family member by name or as its tagged table), `pyfmt` (numbers as Python writes
//!    them, for front ends that must print what the Python CLI prints).
//! 2. `packet`: every header and wire format, without payload.
//! 3. `net` (nodes, routing, point-to-point links, queues), `error_model` (channel losses
//!    per frame), `metrics` (summaries, traces, pcap).
//! 4. The components, each a set of pure state machines with its settings: `wireless`
//!    (the 802.11 PHY, the medium, the MACs, the link layers), `tcp` (the connection, loss
//!    recovery, congestion control, pacing), `transport` (the transports beside TCP for the
//!    wide-area hop), `apps` (the applications at a flow's source), `mobility` (a mobile's
//!    movement between cells).
//! 5. `agents`: base-station agents on the forwarding path.
//! 6. `scenario`: the file format, its loading, overrides and checks; composes the
//!    components' settings without building anything.
//! 7. `sim`: the world that wires them together and runs.

pub mod agents;
pub mod apps;
pub mod engine;
pub mod error_model;
pub mod errors;
pub mod ids;
pub mod metrics;
pub mod mobility;
pub mod net;
pub mod packet;
pub mod pyfmt;
pub mod ranges;
pub mod scenario;
pub mod short_form;
pub mod sim;
pub mod tcp;
pub mod transport;
pub mod units;
pub mod wireless;
