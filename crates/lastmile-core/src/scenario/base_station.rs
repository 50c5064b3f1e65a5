//! Base stations in a scenario: which nodes carry an agent, and its settings.
//!
//! Two forms, one meaning:
//! - **`[[base_station]]` entries** (any number): `node = "bs"` and `agent = { kind =
//!   "snoop", dupack_threshold = 3 }`, the agent's settings inline (`agents::AgentSpec`);
//!   `agent = "snoop"` is the same with every setting at its default.
//! - **The `[base_station]` table**, a shorthand for one base station that every earlier
//!   scenario uses: `agent = "wtcp"` names the agent and an optional `[base_station.wtcp]`
//!   table holds its settings (`--set base_station.agent=wtcp`,
//!   `--set base_station.wtcp.window=5`). Its `agent` may also be a tagged table; giving
//!   the settings both there and in a `[base_station.<kind>]` table is refused, as is a
//!   settings table for another agent than the one named.
//!
//! `Scenario::base_stations` turns either form into the same list of `BaseStationSpec`s;
//! `check_base_stations` checks them (the nodes exist and differ, each agent's settings and
//! placement rule), with error paths in the form the file used. The shorthand's settings
//! tables name the four agents that existed when it was the only form; new agents are
//! written inline (`agent = { kind = "..." }`) and need nothing here.

use std::fmt;

use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::agents::{AgentSpec, ItcpSpec, LleSpec, Site, SiteCell, SnoopSpec, WtcpSpec};

use super::model::Scenario;
use super::plan::AgentSite;
use super::topology::{unknown_node, ResolvedTopology};
use crate::errors::ScenarioError;
use crate::short_form::{self, Form};

/// An agent as written: by name (`agent = "snoop"`, every setting at its default) or as a
/// tagged table (`agent = { kind = "snoop", dupack_threshold = 3 }`).
#[derive(Clone, Debug)]
pub enum AgentChoice {
    Name(AgentSpec),
    Table(AgentSpec),
}

impl Default for AgentChoice {
    fn default() -> Self {
        AgentChoice::Name(AgentSpec::None)
    }
}

impl AgentChoice {
    pub fn spec(&self) -> &AgentSpec {
        match self {
            AgentChoice::Name(s) | AgentChoice::Table(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for AgentChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        short_form::deserialize_with_form(deserializer).map(|(spec, form)| match form {
            Form::Name => AgentChoice::Name(spec),
            Form::Table => AgentChoice::Table(spec),
        })
    }
}

impl Serialize for AgentChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AgentChoice::Name(spec) => serializer.serialize_str(spec.name()),
            AgentChoice::Table(spec) => spec.serialize(serializer),
        }
    }
}

impl JsonSchema for AgentChoice {
    fn schema_name() -> String {
        "AgentChoice".into()
    }
    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        short_form::schema::<AgentSpec>(
            gen,
            AgentSpec::NAMES,
            "An agent by name, every setting at its default.",
        )
    }
}

/// One base station: a node and the agent on its forwarding path.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaseStationSpec {
    /// The node that is the base station (for LLE-TCP: the wireless sender, e.g. "ap" in
    /// `wlan`, "n1" in `adhoc`). Default "bs".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The agent: a tagged table (`{ kind = "snoop", dupack_threshold = 3 }`) or a name
    /// (`"snoop"`, every setting at its default). Default "none".
    #[serde(default)]
    pub agent: AgentChoice,
}

impl BaseStationSpec {
    /// The node's name ("bs" unless given).
    pub fn node_name(&self) -> &str {
        self.node.as_deref().unwrap_or("bs")
    }
}

/// The `[base_station]` shorthand for one base station. Only the named
/// agent's settings table may be given, and only when `agent` is a name.
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OneBaseStation {
    /// The agent: a name (`"wtcp"`, settings in `[base_station.wtcp]`) or a tagged table
    /// (`{ kind = "wtcp", window = 5 }`). Default "none".
    #[serde(default)]
    pub agent: AgentChoice,
    /// The node that is the base station (for LLE-TCP: the wireless sender, e.g. "ap" in
    /// `wlan`, "n1" in `adhoc`). Default "bs".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Snoop's settings (with `agent = "snoop"`). Default: each key's default, as TULIP §4
    /// ran it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snoop: Option<SnoopSpec>,
    /// WTCP's settings (with `agent = "wtcp"`). Default: each key's default (WTCP §4 and
    /// Table I).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wtcp: Option<WtcpSpec>,
    /// I-TCP's settings (with `agent = "itcp"`). Default: each key's default (WTCP §4 and
    /// Table I).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub itcp: Option<ItcpSpec>,
    /// LLE-TCP's settings (with `agent = "lle"`). Default: each key's default (LLE-TCP §3.3
    /// and §4.4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lle: Option<LleSpec>,
}

impl OneBaseStation {
    /// The settings tables given, as agent specs, in the order of the keys above.
    fn tables(&self) -> Vec<AgentSpec> {
        let mut given = Vec::new();
        given.extend(self.snoop.clone().map(AgentSpec::Snoop));
        given.extend(self.wtcp.clone().map(AgentSpec::Wtcp));
        given.extend(self.itcp.clone().map(AgentSpec::Itcp));
        given.extend(self.lle.clone().map(AgentSpec::Lle));
        given
    }

    /// The base station it stands for, its agent's settings taken from the agent's table
    /// (assumes `check_shorthand` passed).
    fn resolve(&self) -> BaseStationSpec {
        let name = self.agent.spec().name();
        let agent = match (
            &self.agent,
            self.tables().into_iter().find(|t| t.name() == name),
        ) {
            (AgentChoice::Name(_), Some(table)) => AgentChoice::Name(table),
            (choice, _) => choice.clone(),
        };
        BaseStationSpec {
            node: self.node.clone(),
            agent,
        }
    }
}

/// The scenario's base stations: the `[base_station]` table for one, or `[[base_station]]`
/// entries for any number.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BaseStations {
    /// `[base_station]`: one base station, the shorthand.
    One(Box<OneBaseStation>),
    /// `[[base_station]]`: any number of them.
    Many(Vec<BaseStationSpec>),
}

impl Default for BaseStations {
    fn default() -> Self {
        BaseStations::One(Box::default())
    }
}

impl<'de> Deserialize<'de> for BaseStations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FormVisitor;
        impl<'de> Visitor<'de> for FormVisitor {
            type Value = BaseStations;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table ([base_station]) or an array of tables ([[base_station]])")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<BaseStations, A::Error> {
                OneBaseStation::deserialize(MapAccessDeserializer::new(map))
                    .map(|one| BaseStations::One(Box::new(one)))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<BaseStations, A::Error> {
                Vec::deserialize(SeqAccessDeserializer::new(seq)).map(BaseStations::Many)
            }
        }
        deserializer.deserialize_any(FormVisitor)
    }
}

impl Scenario {
    /// The base stations with an agent or a named node, in order, whichever form the file
    /// used.
    pub fn base_stations(&self) -> Vec<BaseStationSpec> {
        match &self.base_station {
            BaseStations::One(one) if one.node.is_none() && one.agent.spec().name() == "none" => {
                Vec::new()
            }
            BaseStations::One(one) => vec![one.resolve()],
            BaseStations::Many(list) => list.clone(),
        }
    }
}

/// The path of base station `i`'s table and of its agent's settings, as the file wrote them.
fn paths(s: &Scenario, i: usize) -> (String, String) {
    match &s.base_station {
        BaseStations::One(one) => {
            let settings = match &one.agent {
                AgentChoice::Table(_) => "base_station.agent".to_string(),
                AgentChoice::Name(spec) => format!("base_station.{}", spec.name()),
            };
            ("base_station".into(), settings)
        }
        BaseStations::Many(_) => (
            format!("base_station[{i}]"),
            format!("base_station[{i}].agent"),
        ),
    }
}

/// The shorthand's own rules: settings in one place, for the agent named.
fn check_shorthand(one: &OneBaseStation) -> Result<(), ScenarioError> {
    let name = one.agent.spec().name();
    for table in one.tables() {
        let kind = table.name();
        if let AgentChoice::Table(_) = one.agent {
            return Err(ScenarioError::problem(
                format!("base_station.{kind}"),
                format!(
                    "settings both in `agent = {{ kind = \"{name}\", ... }}` and in \
                     [base_station.{kind}]; give them in one place: the agent table, or \
                     agent = \"{kind}\" with the [base_station.{kind}] table"
                ),
            ));
        }
        if kind != name {
            return Err(ScenarioError::problem(
                format!("base_station.{kind}"),
                format!(
                    "settings for agent \"{kind}\" but base_station.agent = \"{name}\"; remove \
                     the table or set agent = \"{kind}\""
                ),
            ));
        }
    }
    Ok(())
}

/// Checks the base stations: the shorthand's rules, distinct existing nodes, each agent's
/// settings and placement.
///
/// Returns each agent's site: its node and, for an agent with a receiver client, the
/// receivers across its cell that get one (`receiver_clients`).
pub(crate) fn check_base_stations(
    s: &Scenario,
    topo: &ResolvedTopology,
) -> Result<Vec<AgentSite>, ScenarioError> {
    if let BaseStations::One(one) = &s.base_station {
        check_shorthand(one)?;
    }
    let stations = s.base_stations();
    let mut sites = Vec::with_capacity(stations.len());
    for (i, bs) in stations.iter().enumerate() {
        let (at, settings) = paths(s, i);
        let spec = bs.agent.spec();
        spec.check().map_err(|e| e.under(&settings))?;
        let name = bs.node_name();
        let Some(node) = topo.node_index(name) else {
            let mut e = unknown_node(format!("{at}.node"), name, &topo.nodes);
            if bs.node.is_none() {
                e.value = Some(format!("\"{name}\" (the default)"));
            }
            if let Some(hint) = spec.node_hint() {
                e.expected = format!("{}; {hint}", e.expected);
            }
            return Err(e);
        };
        if let Some(j) = stations[..i].iter().position(|b| b.node_name() == name) {
            return Err(ScenarioError::bad_value(
                format!("{at}.node"),
                format!("\"{name}\""),
                format!("a node with no other base station (base_station[{j}] is on it)"),
            ));
        }
        spec.check_site(&site(s, topo, name, node))
            .map_err(|e| match e.path.as_str() {
                "" | "node" | "agent" => e.under(&at),
                _ => e.under(&settings),
            })?;
        if !matches!(spec, AgentSpec::None) {
            sites.push(AgentSite {
                index: i,
                node,
                spec: spec.clone(),
                clients: Vec::new(),
            });
        }
    }
    receiver_clients(s, topo, &mut sites);
    Ok(sites)
}

/// For each agent with a receiver client (LLE-TCP's ARQ client), the receivers across its
/// cell that get one: the destinations of flows that end at another member of the cell,
/// in flow order, that the agent serves, on nodes with no agent yet (a base station's, or
/// the client of an earlier base station).
fn receiver_clients(s: &Scenario, topo: &ResolvedTopology, sites: &mut [AgentSite]) {
    let mut occupied: Vec<usize> = sites.iter().map(|a| a.node).collect();
    for agent in sites.iter_mut() {
        if agent.spec.receiver_client().is_none() {
            continue;
        }
        let name = topo.nodes[agent.node].as_str();
        let Some(cell) = site(s, topo, name, agent.node).cell else {
            continue; // refused by the agent's `check_site`
        };
        let mut clients = Vec::new();
        for receiver in cell.receivers {
            let Some(node) = topo.node_index(receiver) else {
                continue;
            };
            if agent.spec.serves_receiver(receiver) && !occupied.contains(&node) {
                occupied.push(node);
                clients.push(node);
            }
        }
        agent.clients = clients;
    }
}

/// Where base station `name` (node index `node`) sits, for the agents' placement rules.
pub(crate) fn site<'a>(
    s: &'a Scenario,
    topo: &'a ResolvedTopology,
    name: &'a str,
    node: usize,
) -> Site<'a> {
    let cell = topo
        .cells
        .iter()
        .find(|c| c.members.contains(&node))
        .map(|c| SiteCell {
            name: &c.name,
            mac: format!("\"{}\"", c.spec.mac.name()),
            mac_acknowledges: c.spec.mac.acknowledges(),
            receivers: super::flows::destinations(s, topo)
                .into_iter()
                .filter(|&d| d != node && c.members.contains(&d))
                .map(|d| topo.nodes[d].as_str())
                .collect(),
        });
    Site { node: name, cell }
}
