//! DDA's settings (`agent = { kind = "dda", d = "100ms" }`) and their checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::DdaAgent;
use crate::agents::{AgentSettings, AgentSetup};
use crate::units::Duration;

/// Delayed duplicate ACKs (Vaidya et al.; Pentikousis §2.1.2.2): the receiving side holds
/// the third and later duplicate ACKs of a hole for `d`. Put it on the mobile (`node =
/// "mh"`, the paper's placement) with `link = "dda"` on the wireless hop; on the base
/// station it holds the mobile's duplicates in transit (the survey's reading).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DdaSpec {
    /// How long the third and later duplicate ACKs are held while the link layer
    /// retransmits; "0s" holds none. Default "100ms": our choice (a few link-level
    /// recoveries on a 2 Mbps hop); the papers leave it open ("the optimal value for d" is
    /// unresolved, the survey says), so sweep it.
    #[serde(default = "default_d")]
    pub d: Duration,
}

fn default_d() -> Duration {
    Duration::from_millis(100)
}

impl Default for DdaSpec {
    fn default() -> Self {
        DdaSpec { d: default_d() }
    }
}

impl AgentSettings for DdaSpec {
    type Agent = DdaAgent;
    const KIND: &'static str = "dda";
    const NODE_HINT: Option<&'static str> =
        Some("for agent = \"dda\" name the mobile that receives (e.g. node = \"mh\")");

    fn build(&self, _setup: &AgentSetup<'_>) -> DdaAgent {
        DdaAgent::new(self.clone())
    }
}
