//! WTCP's settings (`agent = { kind = "wtcp", ... }`, or `[base_station.wtcp]`), with the
//! paper's simulation settings (WTCP §4, Table I) as defaults, and their checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::WtcpAgent;
use crate::agents::{AgentSettings, AgentSetup, OnHandoff};
use crate::errors::ScenarioError;
use crate::units::TIMEOUT_FACTOR_MAX;
use crate::units::{ByteSize, Duration};

/// How WTCP hides its residence time from the source's RTT estimate (WTCP §3.1, §4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum WtcpTimestamps {
    /// Forward the source's timestamp unchanged: the residence time shows in its RTT.
    None,
    /// Add the segment's exact residence time, in ticks of the source's clock
    /// (`source_clock`), to its timestamp: WTCP's "first method".
    #[default]
    Exact,
    /// Stamp the segment with the most recent timestamp received from the source, and remove
    /// the option if the base station retransmitted since that segment arrived: the
    /// "second method".
    Recent,
}

/// WTCP (Ratnam & Matta, §3–4), with the paper's simulation settings as defaults.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WtcpSpec {
    /// The wireless transmission window, in segments. Default 3 (WTCP §4).
    #[serde(default = "default_wtcp_window")]
    pub window: u32,
    /// The base station's clock granularity: RTT samples count its ticks and timeouts fire
    /// on them. Default "10ms" (WTCP §3, §4).
    #[serde(default = "default_wtcp_clock")]
    pub clock: Duration,
    /// Timestamp handling. Default "exact" (WTCP §4, first method).
    #[serde(default)]
    pub timestamps: WtcpTimestamps,
    /// The local timeout is `timeout_factor` × the last RTT sample, with no back-off
    /// ("linear"). Default 1.5 (WTCP §4).
    #[serde(default = "default_wtcp_factor")]
    pub timeout_factor: f64,
    /// The base-station buffer per connection; segments beyond it are dropped. Default
    /// "20KB" (WTCP Table I).
    #[serde(default = "default_wtcp_buffer")]
    pub buffer: ByteSize,
    /// The source's timestamp clock granularity, known to the base station for
    /// `timestamps = "exact"`. Default "100ms" (WTCP §4: the fixed host's clock).
    #[serde(default = "default_wtcp_source_clock")]
    pub source_clock: Duration,
    /// The wireless RTT assumed before the first sample. Default "100ms" (not in the
    /// paper; ns-2's Snoop `srtt_`).
    #[serde(default = "default_wtcp_initial_rtt")]
    pub initial_rtt: Duration,
    /// On a base station a mobile leaves (`[[mobile]]`): "drop" (the buffer is lost with
    /// the cell; the source recovers end to end) or "transfer" (handed to the new base
    /// station's WTCP). WTCP §6 runs WTCP on the gateway, which no mobile leaves. Default
    /// "drop".
    #[serde(default)]
    pub handoff: OnHandoff,
    /// With `handoff = "transfer"`: from the mobile joining its new cell until the buffer
    /// is there. Default "0s".
    #[serde(default)]
    pub handoff_latency: Duration,
}

fn default_wtcp_window() -> u32 {
    3
}
fn default_wtcp_clock() -> Duration {
    Duration::from_millis(10)
}
fn default_wtcp_factor() -> f64 {
    1.5
}
fn default_wtcp_buffer() -> ByteSize {
    ByteSize(20_000)
}
fn default_wtcp_source_clock() -> Duration {
    Duration::from_millis(100)
}
fn default_wtcp_initial_rtt() -> Duration {
    Duration::from_millis(100)
}

impl Default for WtcpSpec {
    fn default() -> Self {
        WtcpSpec {
            window: default_wtcp_window(),
            clock: default_wtcp_clock(),
            timestamps: WtcpTimestamps::default(),
            timeout_factor: default_wtcp_factor(),
            buffer: default_wtcp_buffer(),
            source_clock: default_wtcp_source_clock(),
            initial_rtt: default_wtcp_initial_rtt(),
            handoff: OnHandoff::Drop,
            handoff_latency: Duration::default(),
        }
    }
}

impl AgentSettings for WtcpSpec {
    type Agent = WtcpAgent;
    const KIND: &'static str = "wtcp";

    fn build(&self, _setup: &AgentSetup<'_>) -> WtcpAgent {
        WtcpAgent::new(self.clone())
    }

    fn check(&self) -> Result<(), ScenarioError> {
        if self.window == 0 {
            return Err(ScenarioError::bad_value(
                "window",
                "0".into(),
                "at least 1 segment",
            ));
        }
        for (field, d) in [("clock", self.clock), ("source_clock", self.source_clock)] {
            if d.sim().is_zero() {
                return Err(ScenarioError::bad_value(
                    field,
                    format!("\"{d}\""),
                    "a time greater than zero",
                ));
            }
        }
        if !(1.0..=f64::from(TIMEOUT_FACTOR_MAX)).contains(&self.timeout_factor) {
            return Err(ScenarioError::bad_value(
                "timeout_factor",
                self.timeout_factor.to_string(),
                format!("a number from 1 to {TIMEOUT_FACTOR_MAX}"),
            ));
        }
        Ok(())
    }
}
