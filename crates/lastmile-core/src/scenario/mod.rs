//! Scenario files: the structure (`model`), and turning a file into a checked `Scenario`.

pub mod model;

pub use model::*;
