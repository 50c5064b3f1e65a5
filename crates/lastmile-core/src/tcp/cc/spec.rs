//! What every congestion control's settings answer (`CcSettings`): its name in scenario
//! files, the controller it builds and the check of its constants. Each algorithm's module
//! holds its settings (`VegasConfig`, `CubicConfig`, ..., serde defaults citing its
//! document) and implements the trait; the one list in `mod.rs` turns them into the tagged
//! table `CcSpec` (`cc = { kind = "cubic", beta = 0.8 }`) and the dispatch enum.

use crate::errors::ScenarioError;

/// What a controller is built with besides its own constants: the TCP-wide knobs of
/// `[flow.tcp]` that a window rule reads.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CcOptions {
    /// Pace a window-based controller at Linux's ratios of cwnd/SRTT
    /// ([`super::window_pacing_rate`]).
    pub pacing: bool,
    /// RFC 3465 appropriate byte counting: 0 = off (RFC 5681 per-ACK growth), else the
    /// slow-start limit L in SMSS (1 or 2); read where slow-start growth is computed.
    pub abc: u8,
}

/// A constant out of range: (its key in the settings table, the value, what is expected).
pub type OutOfRange = (&'static str, f64, &'static str);

/// One congestion control's settings, as the scenario's `cc` table holds them.
pub trait CcSettings {
    /// The controller these settings build (boxed where its state is large).
    type Controller;
    /// The name in scenario files (`kind = "cubic"`).
    const KIND: &'static str;
    /// The controller, for a connection with `options`.
    fn build(&self, options: CcOptions) -> Self::Controller;
    /// The first constant out of range.
    fn check(&self) -> Result<(), OutOfRange> {
        Ok(())
    }
}

/// A constant out of range as the scenario error for the key under the `cc` table.
pub(super) fn out_of_range((key, value, expected): OutOfRange) -> ScenarioError {
    ScenarioError::bad_value(key, value.to_string(), expected)
}
