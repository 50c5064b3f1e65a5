//! ELN's settings (`agent = { kind = "eln" }`, on the mobile): none yet.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ElnAgent;
use crate::agents::{AgentSettings, AgentSetup, Site};
use crate::errors::ScenarioError;

/// Explicit Loss Notification at the receiver (Pentikousis §2.4.4.4): the mobile marks the
/// ACKs that ask for a segment its radio received corrupted; the sender needs `tcp.eln =
/// true`. It must sit on a mobile that is a member of a wireless cell (`node = "mh"`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElnSpec {}

impl AgentSettings for ElnSpec {
    type Agent = ElnAgent;
    const KIND: &'static str = "eln";
    const NODE_HINT: Option<&'static str> =
        Some("for agent = \"eln\" name the mobile that receives (e.g. node = \"mh\")");

    fn build(&self, _setup: &AgentSetup<'_>) -> ElnAgent {
        ElnAgent::new(self.clone())
    }

    /// Only a cell delivers corrupted frames to the agent.
    fn check_site(&self, site: &Site<'_>) -> Result<(), ScenarioError> {
        if site.cell.is_none() {
            return Err(ScenarioError::bad_value(
                "node",
                format!("\"{}\"", site.node),
                "a member of a wireless cell (any mac but \"p2p\"): ELN reads \
                 the corrupted frames its radio receives",
            ));
        }
        Ok(())
    }
}
