//! I-TCP's settings (`agent = { kind = "itcp", ... }`, or `[base_station.itcp]`), as WTCP
//! §4 simulated it (Table I), and their checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ItcpAgent;
use crate::agents::{AgentSettings, AgentSetup};
use crate::errors::ScenarioError;
use crate::tcp::check::check_tcp;
use crate::tcp::spec::{TcpSpec, TcpVariant};
use crate::units::{ByteSize, Duration};

/// I-TCP (Bakre & Badrinath), as WTCP §4 simulated it: the base station terminates the
/// fixed host's connection and relays over its own TCP connection to the mobile. This
/// **breaks end-to-end semantics**: the fixed host's data is acknowledged once the base
/// station has buffered it, before the mobile has it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ItcpSpec {
    /// The relay buffer per connection: the window advertised to the fixed host is what is
    /// free of it (zero when full, reopened only when a full segment fits). Default "20KB"
    /// (WTCP Table I).
    #[serde(default = "default_itcp_buffer")]
    pub buffer: ByteSize,
    /// The base station's TCP towards the mobile (and of its half facing the fixed host).
    /// Default: Tahoe with a 10 ms clock (WTCP §4: "the clock resolution of the base station
    /// is changed to 10 ms"), other settings as for flows. Fields left out of a given table
    /// take the flow defaults.
    #[serde(default = "default_itcp_tcp")]
    pub tcp: TcpSpec,
    /// On a base station a mobile leaves (`[[mobile]]`): the time from the mobile joining
    /// its new cell until the split connections' state (both halves, both buffers) is at
    /// the new base station's I-TCP (Bakre & Badrinath's handoff; WTCP §6 runs I-TCP on
    /// the gateway, which no mobile leaves). Default "300ms" (the survey §2.2: handoffs
    /// "may take several hundreds of milliseconds").
    #[serde(default = "default_itcp_handoff_latency")]
    pub handoff_latency: Duration,
}

fn default_itcp_handoff_latency() -> Duration {
    Duration::from_millis(300)
}

fn default_itcp_buffer() -> ByteSize {
    ByteSize(20_000)
}
fn default_itcp_tcp() -> TcpSpec {
    TcpSpec {
        timer_granularity: Duration::from_millis(10),
        ..TcpSpec::with_variant(TcpVariant::Tahoe)
    }
}

impl Default for ItcpSpec {
    fn default() -> Self {
        ItcpSpec {
            buffer: default_itcp_buffer(),
            tcp: default_itcp_tcp(),
            handoff_latency: default_itcp_handoff_latency(),
        }
    }
}

impl AgentSettings for ItcpSpec {
    type Agent = ItcpAgent;
    const KIND: &'static str = "itcp";

    fn build(&self, setup: &AgentSetup<'_>) -> ItcpAgent {
        ItcpAgent::new(self.clone(), setup.stream("itcp/isn"))
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
        Ok(())
    }
}
