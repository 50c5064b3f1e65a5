//! EBSN's settings (`agent = { kind = "ebsn" }`, on the base station): none yet.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::EbsnAgent;
use crate::agents::{AgentSettings, AgentSetup, Site};
use crate::errors::ScenarioError;

/// Explicit Bad State Notification (Bakshi et al., ICDCS 1997): the base station tells the
/// source each time an attempt to reach the mobile fails; the source needs `tcp.ebsn =
/// true`. It must sit on a member of a wireless cell whose failed attempts it can hear: a
/// MAC that acknowledges (`mac = "dcf"`) or a link layer with its own ARQ (`link =
/// "dda"`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EbsnSpec {}

impl AgentSettings for EbsnSpec {
    type Agent = EbsnAgent;
    const KIND: &'static str = "ebsn";

    fn build(&self, _setup: &AgentSetup<'_>) -> EbsnAgent {
        EbsnAgent::new(self.clone())
    }

    fn check_site(&self, site: &Site<'_>) -> Result<(), ScenarioError> {
        if site.cell.is_none() {
            return Err(ScenarioError::bad_value(
                "node",
                format!("\"{}\"", site.node),
                "a member of a wireless cell (e.g. the base station of a chain with mac = \
                 \"ideal\" and link = \"dda\"): EBSN hears the failed attempts of its station",
            ));
        }
        Ok(())
    }
}
