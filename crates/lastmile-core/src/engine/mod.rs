//! The discrete-event engine: integer time, a deterministic event queue, cancellable
//! timers and named random streams. It knows nothing about networks.

pub mod fxhash;
pub mod prefetch;
pub mod provisional;
pub mod queue;
pub mod rng;
pub mod time;
pub mod timer;

pub use fxhash::FxHashMap;
pub use provisional::Moved;
pub use queue::{EventQueue, Lane, PastEvent};
pub use rng::RngStream;
pub use time::{SimDuration, SimTime};
pub use timer::{TimerAction, TimerFire, TimerId, TimerSlot, TimerTable};
