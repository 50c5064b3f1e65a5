//! The WTCP-Sinha proxy's settings (`agent = { kind = "wtcp_sinha", ... }`): its relay
//! buffer, its TCP towards the fixed host, and WTCP-Sinha's knobs (every default is
//! lastmile's; `transport::wtcp_sinha` says why), and their checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::WtcpSinhaAgent;
use crate::agents::{AgentSettings, AgentSetup};
use crate::engine::SimDuration;
use crate::errors::ScenarioError;
use crate::tcp::check::check_tcp;
use crate::tcp::spec::TcpSpec;
use crate::transport::wtcp_sinha::WtcpSinhaConfig;
use crate::units::{ByteSize, Duration};

/// WTCP-Sinha's knobs, on both ends of its connections (the proxy's and the mobile's).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WtcpSinhaSpec {
    /// The receiver acknowledges every this many data packets (and at once on a hole, a
    /// probe, a FIN or the sender's request). Default 4 (lastmile's; design notes §9).
    #[serde(default = "default_ack_every")]
    pub ack_every: u32,
    /// Arrival spacing over send spacing below which the receiver asks for more. Default
    /// 1.05 (lastmile's).
    #[serde(default = "default_increase_below")]
    pub increase_below: f64,
    /// Above which it asks for less (a queue builds). Default 1.2 (lastmile's).
    #[serde(default = "default_decrease_above")]
    pub decrease_above: f64,
    /// The rate after a decrease, as a fraction. Default 0.5 (TCP's halving).
    #[serde(default = "default_decrease_factor")]
    pub decrease_factor: f64,
    /// Loss statistics: losses within mean + this many deviations of the loss fraction seen
    /// in uncongested periods are predicted wireless errors. Default 2 (lastmile's).
    #[serde(default = "default_loss_deviations")]
    pub loss_deviations: f64,
    /// The longest interval between probes during a blackout. Default "4s" (lastmile's).
    #[serde(default = "default_probe_max")]
    pub probe_max: Duration,
}

fn default_ack_every() -> u32 {
    4
}
fn default_increase_below() -> f64 {
    1.05
}
fn default_decrease_above() -> f64 {
    1.2
}
fn default_decrease_factor() -> f64 {
    0.5
}
fn default_loss_deviations() -> f64 {
    2.0
}
fn default_probe_max() -> Duration {
    Duration::from_secs(4)
}

impl Default for WtcpSinhaSpec {
    fn default() -> Self {
        WtcpSinhaSpec {
            ack_every: default_ack_every(),
            increase_below: default_increase_below(),
            decrease_above: default_decrease_above(),
            decrease_factor: default_decrease_factor(),
            loss_deviations: default_loss_deviations(),
            probe_max: default_probe_max(),
        }
    }
}

impl WtcpSinhaSpec {
    /// The configuration of an endpoint with packets of `mss` and a window of `rwnd`.
    pub fn config(&self, mss: u64, rwnd: u64) -> WtcpSinhaConfig {
        let clamp = |b: u64| b.min(u64::from(u32::MAX)) as u32;
        WtcpSinhaConfig {
            ack_every: self.ack_every,
            increase_below: self.increase_below,
            decrease_above: self.decrease_above,
            decrease_factor: self.decrease_factor,
            loss_deviations: self.loss_deviations,
            probe_max: self.probe_max.sim(),
            ..WtcpSinhaConfig::new(clamp(mss), clamp(rwnd))
        }
    }

    /// The checks, paths relative to this table's `path`.
    pub fn check(&self, path: &str) -> Result<(), ScenarioError> {
        let bad = |field: &str, value: String, expected: &str| {
            Err(ScenarioError::bad_value(
                format!("{path}{field}"),
                value,
                expected.to_string(),
            ))
        };
        if !(1..=64).contains(&self.ack_every) {
            return bad("ack_every", self.ack_every.to_string(), "1 to 64 packets");
        }
        let finite = |x: f64| x.is_finite();
        if !finite(self.increase_below) || self.increase_below < 1.0 {
            return bad(
                "increase_below",
                self.increase_below.to_string(),
                "a ratio of at least 1",
            );
        }
        if !finite(self.decrease_above) || self.decrease_above < self.increase_below {
            return bad(
                "decrease_above",
                self.decrease_above.to_string(),
                "a ratio at least increase_below",
            );
        }
        if !finite(self.decrease_factor) || !(0.05..1.0).contains(&self.decrease_factor) {
            return bad(
                "decrease_factor",
                self.decrease_factor.to_string(),
                "a fraction from 0.05 to below 1",
            );
        }
        if !finite(self.loss_deviations) || !(0.0..=100.0).contains(&self.loss_deviations) {
            return bad(
                "loss_deviations",
                self.loss_deviations.to_string(),
                "0 to 100",
            );
        }
        if self.probe_max.sim() == SimDuration::ZERO {
            return bad(
                "probe_max",
                format!("\"{}\"", self.probe_max),
                "a time greater than zero",
            );
        }
        Ok(())
    }
}

/// The WTCP-Sinha proxy (survey §2.5.1: "WTCP is used when a mobile host needs to connect
/// through a proxy"): TCP with the fixed host, WTCP-Sinha with the mobile.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WtcpSinhaProxySpec {
    /// The relay buffer per connection: the window the fixed host sees is what is free of
    /// it. Default "64KB" (lastmile's).
    #[serde(default = "default_buffer")]
    pub buffer: ByteSize,
    /// The proxy's TCP towards the fixed host; its `mss` is also the WTCP-Sinha packet
    /// size towards the mobile. Default: the flow defaults.
    #[serde(default)]
    pub tcp: TcpSpec,
    /// WTCP-Sinha's knobs, for the proxy's end and the mobile's. Default: each key's.
    #[serde(default)]
    pub wtcp: WtcpSinhaSpec,
}

fn default_buffer() -> ByteSize {
    ByteSize(64_000)
}

impl Default for WtcpSinhaProxySpec {
    fn default() -> Self {
        WtcpSinhaProxySpec {
            buffer: default_buffer(),
            tcp: TcpSpec::default(),
            wtcp: WtcpSinhaSpec::default(),
        }
    }
}

impl AgentSettings for WtcpSinhaProxySpec {
    type Agent = WtcpSinhaAgent;
    const KIND: &'static str = "wtcp_sinha";

    fn build(&self, setup: &AgentSetup<'_>) -> WtcpSinhaAgent {
        WtcpSinhaAgent::new(self.clone(), setup.stream("wtcp_sinha/isn"))
    }

    fn check(&self) -> Result<(), ScenarioError> {
        check_tcp("tcp", &self.tcp)?;
        if self.buffer < self.tcp.mss {
            return Err(ScenarioError::bad_value(
                "buffer",
                format!("\"{}\"", self.buffer),
                format!("room for at least one segment (mss = {})", self.tcp.mss),
            ));
        }
        self.wtcp.check("wtcp.")
    }
}
