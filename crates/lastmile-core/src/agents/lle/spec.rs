//! LLE-TCP's settings (`agent = { kind = "lle", ... }`, or `[base_station.lle]`), with
//! the paper's set-up (LLE-TCP §3.3, §4.4) as defaults, and where the agent may sit: on a
//! member of a cell whose MAC acknowledges its frames, with flows ending across the cell
//! (where its ARQ clients go). `mobiles` lets LLE-TCP serve some of those receivers only
//! (§4.4's Scenario 2, "LLE-TCP enabled for 5 out of 10 evaluated flows"; §3.1: a mobile
//! without LLE-TCP runs standard TCP).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{LleAgent, LleRole};
use crate::agents::{AgentSettings, AgentSetup, Site};
use crate::errors::ScenarioError;
use crate::packet::Ipv4Addr;
use crate::units::ByteSize;

/// What LLE-TCP's ARQ agent does after the MAC gives up on a segment (`TxFailure`), when it
/// cannot know whether the receiver got it (only the MAC ACKs may have been lost).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LleAfterGiveUp {
    /// Never acknowledge beyond what the receiver is known to hold, and hand the segment
    /// back to the MAC (a bounded number of times) so that its `TxSuccess` settles the
    /// doubt: no phantom hole for TCP to time out on, no lost data acknowledged. Not in the
    /// paper.
    #[default]
    Resync,
    /// §3.1 literally: the ACK released on `TxSuccess` "acknowledges the packet just
    /// transmitted" (ack = its end), which covers an earlier segment the MAC gave up on
    /// whether or not the receiver got it.
    Paper,
}

/// LLE-TCP (Kliazovich, Granelli & Gerla §3): the ARQ agent on the base station's node and an
/// ARQ client on each flow's receiver across the wireless hop.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LleSpec {
    /// Advertise in every generated ACK at most the free part of `buffer` (§3.3), so that
    /// the sender cannot overflow the base station. Default false (§4.3 and §4.4 run
    /// without it).
    #[serde(default)]
    pub advertise_buffer: bool,
    /// The base station's buffer per connection behind `advertise_buffer`: segments that
    /// have reached it and not yet left over the air count against it. Default "1050KB"
    /// (§4.4: an access-point FIFO of 700 packets of 1500 B).
    #[serde(default = "default_lle_buffer")]
    pub buffer: ByteSize,
    /// What the agent does after the MAC gives up on a segment: "resync" hands the segment
    /// back to the MAC so that its `TxSuccess` settles whether the receiver holds it (not
    /// in the paper); "paper" lets the next `TxSuccess` acknowledge up to its own frame's
    /// end, as §3.1 says. Default "resync".
    #[serde(default)]
    pub after_give_up: LleAfterGiveUp,
    /// The receivers that run LLE-TCP (e.g. `["mh1", "mh2"]`): only they get an ARQ client,
    /// and the ARQ agent serves only the connections to them; flows to the other receivers
    /// run plain TCP through the base station (§4.4: "LLE-TCP enabled for 5 out of 10
    /// evaluated flows"). Each must be the `dst` of a flow across the agent's cell.
    /// Default: every such receiver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobiles: Option<Vec<String>>,
}

fn default_lle_buffer() -> ByteSize {
    ByteSize(700 * 1500)
}

impl Default for LleSpec {
    fn default() -> Self {
        LleSpec {
            advertise_buffer: false,
            buffer: default_lle_buffer(),
            after_give_up: LleAfterGiveUp::default(),
            mobiles: None,
        }
    }
}
impl AgentSettings for LleSpec {
    type Agent = LleAgent;
    const KIND: &'static str = "lle";
    const NODE_HINT: Option<&'static str> = Some(
        "for agent = \"lle\" name the wireless sender (the access point, or the sending \
         node in adhoc, e.g. node = \"n1\")",
    );

    /// The ARQ agent; with `mobiles`, serving the connections to their addresses only.
    fn build(&self, setup: &AgentSetup<'_>) -> LleAgent {
        let agent = LleAgent::new(LleRole::Agent, self.clone());
        let Some(mobiles) = &self.mobiles else {
            return agent;
        };
        let addresses = mobiles
            .iter()
            .filter_map(|m| setup.nodes.iter().position(|n| n == m))
            .map(|i| Ipv4Addr::for_node(i as u32));
        agent.serving_only(addresses.collect())
    }

    /// LLE-TCP needs the MAC's TxSuccess / TxFailure: its node must be a cell member, the
    /// cell's MAC must acknowledge frames, and some flow must end at another member (where
    /// the ARQ client goes).
    fn check_site(&self, site: &Site<'_>) -> Result<(), ScenarioError> {
        let name = site.node;
        let Some(cell) = &site.cell else {
            return Err(ScenarioError::bad_value(
                "node",
                format!("\"{name}\""),
                "a member of a wireless cell (a wireless hop with mac = \"ideal\", \"dcf\" or \
                 \"fama\"): LLE-TCP acts on the MAC's TxSuccess / TxFailure",
            ));
        };
        if !cell.mac_acknowledges {
            return Err(ScenarioError::bad_value(
                "agent",
                "\"lle\"".into(),
                format!(
                    "a cell whose MAC acknowledges its frames (mac = \"dcf\"); cell \"{}\" \
                     runs mac = {}, whose TxSuccess only says the frame went out, so a \
                     generated ACK could acknowledge data the receiver never got (LLE-TCP \
                     §3.1 needs ARQ at the link layer)",
                    cell.name, cell.mac
                ),
            ));
        }
        if let Some(mobiles) = &self.mobiles {
            check_mobiles(mobiles, &cell.receivers, cell.name)?;
        }
        if cell.receivers.is_empty() {
            return Err(ScenarioError::problem(
                "node",
                format!(
                    "agent = \"lle\" on \"{name}\" but no flow ends at another member of its \
                     cell \"{}\"; LLE-TCP serves flows whose data crosses the cell from \
                     \"{name}\" to their dst (where the ARQ client goes)",
                    cell.name
                ),
            ));
        }
        Ok(())
    }

    fn receiver_client(&self) -> Option<LleAgent> {
        Some(LleAgent::new(LleRole::Client, self.clone()))
    }

    fn serves_receiver(&self, receiver: &str) -> bool {
        self.mobiles
            .as_ref()
            .is_none_or(|m| m.iter().any(|n| n == receiver))
    }
}

/// `mobiles` names at least one receiver, each a flow's `dst` across the cell.
fn check_mobiles(mobiles: &[String], receivers: &[&str], cell: &str) -> Result<(), ScenarioError> {
    let choices = || {
        let mut list: Vec<&str> = Vec::new();
        for r in receivers {
            if !list.contains(r) {
                list.push(r);
            }
        }
        list.join(", ")
    };
    if mobiles.is_empty() {
        return Err(ScenarioError::bad_value(
            "mobiles",
            "[]".into(),
            format!(
                "at least one receiver to run LLE-TCP, of: {} (leave `mobiles` out for all)",
                choices()
            ),
        ));
    }
    for (i, m) in mobiles.iter().enumerate() {
        if !receivers.contains(&m.as_str()) {
            return Err(ScenarioError::bad_value(
                format!("mobiles[{i}]"),
                format!("\"{m}\""),
                format!(
                    "the dst of a flow across cell \"{cell}\": one of {}",
                    choices()
                ),
            ));
        }
    }
    Ok(())
}
