//! M-TCP's settings (`agent = { kind = "mtcp", ... }` on the supervisor host, e.g. `node =
//! "gw"`), and their checks.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::MtcpAgent;
use crate::agents::{AgentSettings, AgentSetup};
use crate::errors::ScenarioError;

/// The most reopening ACKs.
const REOPEN_COPIES_MAX: u32 = 10;

/// M-TCP (Brown & Singh, CCR 1997) at the supervisor host: the mobile's ACKs relayed with
/// the last byte held back, a zero window to the fixed host while the mobile is handed off,
/// and the window reopened when the gateway's route is updated. It needs `[[mobile]]`
/// entries to hear of handoffs, and a link layer for wireless losses.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MtcpSpec {
    /// ACKs that reopen the window when the mobile is back, 1 to 10. Default 1 (the
    /// supervisor host sends one ACK that opens the window, as the notes read the
    /// author's description; 2 is the robust choice against its loss).
    #[serde(default = "default_reopen_copies")]
    pub reopen_copies: u32,
}

fn default_reopen_copies() -> u32 {
    1
}

impl Default for MtcpSpec {
    fn default() -> Self {
        MtcpSpec {
            reopen_copies: default_reopen_copies(),
        }
    }
}

impl AgentSettings for MtcpSpec {
    type Agent = MtcpAgent;
    const KIND: &'static str = "mtcp";
    const NODE_HINT: Option<&'static str> = Some(
        "M-TCP sits on the supervisor host over the base stations (\"gw\" in the cells preset)",
    );

    fn build(&self, _setup: &AgentSetup<'_>) -> MtcpAgent {
        MtcpAgent::new(self.clone())
    }

    fn check(&self) -> Result<(), ScenarioError> {
        if !(1..=REOPEN_COPIES_MAX).contains(&self.reopen_copies) {
            return Err(ScenarioError::bad_value(
                "reopen_copies",
                self.reopen_copies.to_string(),
                format!("between 1 and {REOPEN_COPIES_MAX} ACKs"),
            ));
        }
        Ok(())
    }
}
