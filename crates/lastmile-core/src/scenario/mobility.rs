//! Mobile hosts in a scenario (`[[mobile]]`): which node moves, between which wireless hops,
//! how long it stays in each, how long a handoff leaves it out of reach, how late the
//! gateway learns where it went, and what its TCP does about handoffs.
//!
//! The model follows WTCP §6: a residence time per cell (exponential, mean 10 s there), a
//! handoff delay during which no cell reaches the mobile (50 ms there), and a routing update
//! from the new base station that reaches the gateway after a delay, until which the gateway
//! sends the mobile's packets to the old base station, which discards them. Cells may
//! overlap (Cáceres & Iftode's overlapping cells, the survey §2.4.4.5): the mobile joins
//! the new cell before it leaves the old one. The mobile's TCP may send duplicate ACKs when
//! a handoff completes (Cáceres & Iftode, the survey §2.4.4.5) or freeze its sender
//! (Freeze-TCP, Goff et al., INFOCOM 2000).
//!
//! `resolve_mobiles` checks the entries against the topology and names, for each mobile,
//! its hops as links or cells with the base station at their other end. The run itself is
//! `mobility` (the movement, a pure state machine) and `sim::mobility` (the world's side).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::model::{Preset, Scenario};
use super::topology::{unknown_node, ResolvedTopology};
use crate::errors::ScenarioError;
use crate::units::Duration;

/// The most wireless hops one mobile moves between.
const HOPS_MAX: usize = 1024;
/// The most handoff times of a schedule.
const SCHEDULE_MAX: usize = 100_000;
/// The most ACK copies a handoff may send.
const COPIES_MAX: u32 = 100;

/// A mobile host that moves between cells (WTCP §6).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MobileSpec {
    /// The mobile host (e.g. "mh1").
    pub node: String,
    /// The wireless hops it moves between, by name: links with the mobile at one end and
    /// its base station at the other, or cells whose head is the base station. Default in
    /// the `cells` preset: every cell, "cell1".."cellN"; required otherwise.
    #[serde(default)]
    pub cells: Vec<String>,
    /// The hop it starts in. Default: the first of `cells`.
    pub start: Option<String>,
    /// The node whose route to the mobile the new base station's routing update changes
    /// (WTCP §6: the gateway; the nodes between it and the new base station follow).
    /// Default "gw" in the `cells` preset; required otherwise.
    pub gateway: Option<String>,
    /// How long it stays in a cell. Default `{ kind = "none" }`: it never moves.
    #[serde(default)]
    pub residence: Residence,
    /// Which cell it moves to. Default "next".
    #[serde(default)]
    pub next: NextCell,
    /// Time between leaving a cell and joining the next, out of reach of every cell (WTCP §6:
    /// "50 msec"; the survey §2.4.4.5: "one second"). Default "0s".
    #[serde(default)]
    pub handoff_delay: Duration,
    /// Time from joining a cell until the new base station's routing update reaches the
    /// gateway; until then the gateway sends the mobile's packets to the old base station,
    /// which discards them (WTCP §6). Default: the one-way propagation delay from the new
    /// base station to the gateway.
    pub route_update_delay: Option<Duration>,
    /// Overlapping cells (make before break): for this long after joining the new cell the
    /// old one still reaches the mobile, and what the old base station had for it still
    /// arrives. Needs `handoff_delay = "0s"`. Default "0s" (no overlap).
    #[serde(default)]
    pub overlap: Duration,
    /// What the mobile's TCP does about a handoff. Default `{ kind = "none" }`.
    #[serde(default)]
    pub tcp: HandoffTcp,
}

/// How long a mobile stays in a cell.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Residence {
    /// It never moves.
    #[default]
    None,
    /// Exponentially distributed with this mean, drawn afresh in each cell from the random
    /// stream `mobility/<node>` (WTCP §6: mean "10 seconds").
    Exponential { mean: Duration },
    /// Handoffs at these times from the start of the run, increasing (e.g. `at = ["10s",
    /// "20s"]`).
    Schedule { at: Vec<Duration> },
}

pub use crate::mobility::NextCell;

/// What the mobile's TCP does about handoffs (only the mobile changes).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum HandoffTcp {
    /// Nothing: TCP learns of handoffs from its losses.
    #[default]
    None,
    /// Fast retransmit after handoff (Cáceres & Iftode, JSAC 1995; the survey §2.4.4.5):
    /// when a handoff completes, each TCP connection of the mobile sends `dupacks` copies of
    /// its current ACK, so that its sender retransmits at once instead of waiting for its
    /// timer.
    FastRetransmit {
        /// Duplicate ACKs sent, 1 to 100. Default 3 (the sender's fast retransmit
        /// threshold, RFC 5681).
        #[serde(default = "default_copies")]
        dupacks: u32,
    },
    /// Freeze-TCP (Goff et al., INFOCOM 2000): `warning` before a predicted handoff each
    /// connection of the mobile advertises a zero window, so that its sender persists; when
    /// the mobile is reachable again it sends `copies` copies of the ACK for the last
    /// segment it received, with the real window.
    Freeze {
        /// The warning lead. Default: one RTT, the round-trip time of the mobile's flows'
        /// paths without queueing (propagation and one segment's and one ACK's
        /// serialization on every hop; the largest over its flows).
        warning: Option<Duration>,
        /// Copies of the last ACK on reconnection, 1 to 100. Default 3 (Goff et al.).
        #[serde(default = "default_copies")]
        copies: u32,
    },
}

fn default_copies() -> u32 {
    3
}

/// A wireless hop a mobile can be attached by.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AttachHop {
    /// A point-to-point link (index into `ResolvedTopology::links`).
    Link(usize),
    /// A cell (index into `ResolvedTopology::cells`).
    Cell(usize),
}

/// One of a mobile's hops: its name, the base station at its other end, the hop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub name: String,
    pub base_station: usize,
    pub hop: AttachHop,
}

/// A mobile resolved against the topology (node indices).
#[derive(Clone, Debug)]
pub struct ResolvedMobile {
    pub node: usize,
    pub gateway: usize,
    pub cells: Vec<Attachment>,
    /// Index into `cells`.
    pub start: usize,
    pub spec: MobileSpec,
}

/// The mobiles of `s`: its `[[mobile]]` entries, and in the `cells` preset every other
/// mobile host as one that stays in `cell1`. Every check of the entries is here.
pub fn resolve_mobiles(
    s: &Scenario,
    topo: &ResolvedTopology,
) -> Result<Vec<ResolvedMobile>, ScenarioError> {
    let mut out = Vec::with_capacity(s.mobiles.len());
    for (i, m) in s.mobiles.iter().enumerate() {
        let at = format!("mobile[{i}]");
        let r = resolve_one(s, topo, m).map_err(|e| e.under(&at))?;
        if let Some(j) = out.iter().position(|o: &ResolvedMobile| o.node == r.node) {
            return Err(ScenarioError::bad_value(
                format!("{at}.node"),
                format!("\"{}\"", m.node),
                format!("a node no other [[mobile]] names (mobile[{j}] does)"),
            ));
        }
        out.push(r);
    }
    if s.topology.preset == Some(Preset::Cells) {
        for (index, name) in topo.nodes.iter().enumerate() {
            let is_mobile = name.starts_with("mh") && name[2..].parse::<u32>().is_ok();
            if is_mobile && !out.iter().any(|o| o.node == index) {
                let spec = MobileSpec {
                    node: name.clone(),
                    cells: Vec::new(),
                    start: None,
                    gateway: None,
                    residence: Residence::None,
                    next: NextCell::Next,
                    handoff_delay: Duration::default(),
                    route_update_delay: None,
                    overlap: Duration::default(),
                    tcp: HandoffTcp::None,
                };
                out.push(resolve_one(s, topo, &spec)?);
            }
        }
    }
    Ok(out)
}

fn node(topo: &ResolvedTopology, path: &str, name: &str) -> Result<usize, ScenarioError> {
    topo.node_index(name)
        .ok_or_else(|| unknown_node(path.to_string(), name, &topo.nodes))
}

fn resolve_one(
    s: &Scenario,
    topo: &ResolvedTopology,
    m: &MobileSpec,
) -> Result<ResolvedMobile, ScenarioError> {
    let mobile = node(topo, "node", &m.node)?;
    let preset = s.topology.preset == Some(Preset::Cells);
    let gateway_name = match (&m.gateway, preset) {
        (Some(g), _) => g.as_str(),
        (None, true) => "gw",
        (None, false) => {
            return Err(ScenarioError::problem(
                "gateway",
                "missing required key: the node whose route to the mobile handoffs update \
                 (the cells preset's \"gw\")",
            ))
        }
    };
    let gateway = node(topo, "gateway", gateway_name)?;
    let names: Vec<String> = match (m.cells.is_empty(), preset) {
        (false, _) => m.cells.clone(),
        (true, true) => (1..=s.topology.cells.unwrap_or(2))
            .map(|i| format!("cell{i}"))
            .collect(),
        (true, false) => {
            return Err(ScenarioError::problem(
                "cells",
                "missing required key: the wireless hops (links or cells) the mobile moves \
                 between",
            ))
        }
    };
    if names.len() > HOPS_MAX {
        return Err(ScenarioError::bad_value(
            "cells",
            format!("{} hops", names.len()),
            format!("at most {HOPS_MAX}"),
        ));
    }
    let mut cells = Vec::with_capacity(names.len());
    for (k, name) in names.iter().enumerate() {
        let a = attachment(s, topo, mobile, name).map_err(|e| e.under(&format!("cells[{k}]")))?;
        if let Some(j) = cells.iter().position(|c: &Attachment| c.hop == a.hop) {
            return Err(ScenarioError::bad_value(
                format!("cells[{k}]"),
                format!("\"{name}\""),
                format!("a hop not listed before (cells[{j}] is the same)"),
            ));
        }
        if a.base_station == gateway {
            return Err(ScenarioError::bad_value(
                format!("cells[{k}]"),
                format!("\"{name}\""),
                "a hop whose base station is not the gateway itself",
            ));
        }
        cells.push(a);
    }
    let start = match &m.start {
        None => 0,
        Some(name) => names.iter().position(|n| n == name).ok_or_else(|| {
            ScenarioError::bad_value(
                "start",
                format!("\"{name}\""),
                format!(
                    "one of its cells: {}",
                    super::join_names(names.iter().map(String::as_str))
                ),
            )
        })?,
    };
    check_movement(m, cells.len())?;
    Ok(ResolvedMobile {
        node: mobile,
        gateway,
        cells,
        start,
        spec: m.clone(),
    })
}

/// The hop called `name` that joins `mobile` to a base station.
fn attachment(
    s: &Scenario,
    topo: &ResolvedTopology,
    mobile: usize,
    name: &str,
) -> Result<Attachment, ScenarioError> {
    // In the cells preset, "cell<i>" names each mobile's own link to bs<i>.
    let own = match (s.topology.preset, topo.cells.is_empty()) {
        (Some(Preset::Cells), true) if s.topology.mobiles.unwrap_or(1) > 1 => {
            format!("{name}-{}", topo.nodes[mobile])
        }
        _ => name.to_string(),
    };
    if let Some(i) = topo.links.iter().position(|l| l.name == own) {
        let l = &topo.links[i];
        let base_station = match (l.from == mobile, l.to == mobile) {
            (true, _) => l.to,
            (_, true) => l.from,
            _ => return Err(not_the_mobiles(name, &topo.nodes[mobile])),
        };
        return Ok(Attachment {
            name: name.to_string(),
            base_station,
            hop: AttachHop::Link(i),
        });
    }
    if let Some(i) = topo.cells.iter().position(|c| c.name == name) {
        let head = topo.cells[i].members[0];
        if head == mobile {
            return Err(ScenarioError::bad_value(
                "",
                format!("\"{name}\""),
                "a cell whose head (its base station) is not the mobile",
            ));
        }
        return Ok(Attachment {
            name: name.to_string(),
            base_station: head,
            hop: AttachHop::Cell(i),
        });
    }
    let known: Vec<&str> = topo
        .links
        .iter()
        .map(|l| l.name.as_str())
        .chain(topo.cells.iter().map(|c| c.name.as_str()))
        .collect();
    Err(ScenarioError::bad_value(
        "",
        format!("\"{}\"", super::clip(name, super::QUOTE_MAX)),
        format!(
            "a link or cell of the topology: {}",
            super::join_names(known)
        ),
    ))
}

fn not_the_mobiles(name: &str, mobile: &str) -> ScenarioError {
    ScenarioError::bad_value(
        "",
        format!("\"{name}\""),
        format!("a link with \"{mobile}\" at one end"),
    )
}

/// Residence, delays and the TCP setting.
fn check_movement(m: &MobileSpec, hops: usize) -> Result<(), ScenarioError> {
    let moves = m.residence != Residence::None;
    if moves && hops < 2 {
        return Err(ScenarioError::bad_value(
            "cells",
            format!("{hops} hop"),
            "at least two hops for a mobile that moves",
        ));
    }
    match &m.residence {
        Residence::Exponential { mean } if mean.sim().is_zero() => {
            return Err(ScenarioError::bad_value(
                "residence.mean",
                format!("\"{mean}\""),
                "a mean residence time greater than zero (e.g. \"10s\")",
            ))
        }
        Residence::Schedule { at } => check_schedule(at)?,
        _ => {}
    }
    if !m.overlap.sim().is_zero() && !m.handoff_delay.sim().is_zero() {
        return Err(ScenarioError::bad_value(
            "handoff_delay",
            format!("\"{}\"", m.handoff_delay),
            "\"0s\" with overlapping cells (`overlap`): the mobile joins the new cell before \
             it leaves the old one",
        ));
    }
    let copies = match &m.tcp {
        HandoffTcp::None => None,
        HandoffTcp::FastRetransmit { dupacks } => Some(("tcp.dupacks", *dupacks)),
        HandoffTcp::Freeze { copies, .. } => Some(("tcp.copies", *copies)),
    };
    if let Some((path, n)) = copies.filter(|&(_, n)| n == 0 || n > COPIES_MAX) {
        return Err(ScenarioError::bad_value(
            path,
            n.to_string(),
            format!("between 1 and {COPIES_MAX} ACKs"),
        ));
    }
    Ok(())
}

fn check_schedule(at: &[Duration]) -> Result<(), ScenarioError> {
    if at.len() > SCHEDULE_MAX {
        return Err(ScenarioError::bad_value(
            "residence.at",
            format!("{} times", at.len()),
            format!("at most {SCHEDULE_MAX} handoffs"),
        ));
    }
    for (k, pair) in at.windows(2).enumerate() {
        if pair[1] <= pair[0] {
            return Err(ScenarioError::bad_value(
                format!("residence.at[{}]", k + 1),
                format!("\"{}\"", pair[1]),
                format!(
                    "a time after residence.at[{k}] (\"{}\"): increasing times",
                    pair[0]
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::{load_str, Format, Scenario, ScenarioError};

    const CELLS: &str = r#"
name = "t"
[topology]
preset = "cells"
cells = 3
wired = { rate = "10Mbps" }
backhaul = { rate = "10Mbps" }
wireless = { rate = "2Mbps" }
[[mobile]]
node = "mh1"
residence = { kind = "exponential", mean = "10s" }
[[flow]]
src = "fh"
dst = "mh1"
app = { kind = "bulk", bytes = "1MB" }
"#;

    fn load(overrides: &[&str]) -> Result<Scenario, ScenarioError> {
        let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        load_str(CELLS, Format::Toml, "t.toml", &overrides)
    }

    #[test]
    fn mobile_entries_are_refused_at_their_own_paths() {
        for (set, path) in [
            ("mobile.0.node=\"mh9\"", "mobile[0].node"),
            (
                "mobile.0.cells=[\"cell1\", \"cell7\"]",
                "mobile[0].cells[1]",
            ),
            (
                "mobile.0.cells=[\"cell1\", \"cell1\"]",
                "mobile[0].cells[1]",
            ),
            ("mobile.0.cells=[\"cell1\"]", "mobile[0].cells"),
            ("mobile.0.start=\"cell9\"", "mobile[0].start"),
            ("mobile.0.gateway=\"nowhere\"", "mobile[0].gateway"),
            ("mobile.0.residence.mean=0s", "mobile[0].residence.mean"),
            (
                "mobile.0.residence={ kind = \"schedule\", at = [\"2s\", \"1s\"] }",
                "mobile[0].residence.at[1]",
            ),
            ("mobile.0.overlap=100ms", "mobile[0].handoff_delay"),
            (
                "mobile.0.tcp={ kind = \"fast_retransmit\", dupacks = 0 }",
                "mobile[0].tcp.dupacks",
            ),
            (
                "mobile.0.tcp={ kind = \"freeze\", copies = 101 }",
                "mobile[0].tcp.copies",
            ),
        ] {
            let sets: Vec<&str> = if set.starts_with("mobile.0.overlap") {
                vec![set, "mobile.0.handoff_delay=50ms"]
            } else {
                vec![set]
            };
            let e = load(&sets).expect_err(set);
            assert_eq!(e.path, path, "{set}: {e}");
        }
        // Just inside the limits.
        load(&[
            "mobile.0.cells=[\"cell3\", \"cell1\"]",
            "mobile.0.overlap=100ms",
            "mobile.0.tcp={ kind = \"fast_retransmit\", dupacks = 100 }",
        ])
        .unwrap();
    }

    #[test]
    fn cells_preset_keys_belong_to_it_and_explicit_mobiles_name_their_gateway() {
        let chain = CELLS.replace("preset = \"cells\"", "preset = \"chain\"");
        let e = load_str(&chain, Format::Toml, "t.toml", &[]).expect_err("cells on a chain");
        assert_eq!(e.path, "topology.cells", "{e}");
        let explicit = r#"
name = "t"
[topology]
nodes = ["fh", "bs1", "bs2", "mh"]
links = [
  { from = "fh", to = "bs1", rate = "10Mbps" },
  { from = "fh", to = "bs2", rate = "10Mbps" },
  { name = "w1", from = "bs1", to = "mh", rate = "2Mbps" },
  { name = "w2", from = "bs2", to = "mh", rate = "2Mbps" },
]
[[mobile]]
node = "mh"
cells = ["w1", "w2"]
[[flow]]
src = "fh"
dst = "mh"
app = { kind = "bulk", bytes = "1MB" }
"#;
        let e = load_str(explicit, Format::Toml, "t.toml", &[]).expect_err("no gateway");
        assert_eq!(e.path, "mobile[0].gateway", "{e}");
        let sets = ["mobile.0.gateway=\"fh\"".to_string()];
        load_str(explicit, Format::Toml, "t.toml", &sets).unwrap();
    }
}
