//! Expanding a scenario's topology into the nodes and links the builder wires.
//!
//! The `chain` preset is fixed host `fh` —`wired`— base station `bs` —`wireless`— mobile
//! host `mh` (TULIP Fig. 8, WTCP Fig. 3). An explicit topology lists `nodes` and `links`
//! with `from`/`to`. Links are full duplex; routing (shortest path by hop count, either
//! direction) is the builder's business, `reachable` here answers the validator's question.
//!
//! Resolution is linear in the size of the topology (names are looked up in a map,
//! connectivity is one union–find pass), so explicit topologies of 10^5 nodes load in a
//! fraction of a second.
//!
//! A wireless hop whose `mac` is a cell MAC (`ideal`, `dcf`) becomes a cell instead of a
//! link: a shared half-duplex channel whose members are all one hop from each other. In the
//! chain the cell is {bs, mh}; `wlan` is fh —wired— ap with the cell {ap, mh1..mhN};
//! `adhoc` is the cell {n1, n2}. The cell's first member is its head (base station, access
//! point, n1): frames it receives see `reverse_errors`, every other member's see `errors`.

use std::collections::HashMap;

mod cells;

use super::model::{LinkSpec, Preset, Scenario, Topology};
use crate::errors::{did_you_mean, join, ScenarioError};

/// The network as the builder sees it: node names (index = node number) and links.
#[derive(Clone, Debug)]
pub struct ResolvedTopology {
    pub nodes: Vec<String>,
    pub links: Vec<ResolvedLink>,
    pub cells: Vec<ResolvedCell>,
    /// Node name → index (names are unique).
    index: HashMap<String, usize>,
}

/// A wireless cell: its members (indices into `nodes`, the head first) and its spec.
#[derive(Clone, Debug)]
pub struct ResolvedCell {
    pub name: String,
    pub members: Vec<usize>,
    pub spec: LinkSpec,
    /// Where the file defines it (`"topology.wireless"`, `"topology.links[3]"`).
    pub path: String,
}

/// A link between two nodes (indices into `ResolvedTopology::nodes`).
#[derive(Clone, Debug)]
pub struct ResolvedLink {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub spec: LinkSpec,
    /// Counted in the `wireless` metrics.
    pub wireless: bool,
}

impl ResolvedTopology {
    fn new(nodes: Vec<String>, links: Vec<ResolvedLink>, cells: Vec<ResolvedCell>) -> Self {
        let index = name_index(&nodes);
        ResolvedTopology {
            nodes,
            links,
            cells,
            index,
        }
    }

    /// The index of the node called `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// A label per node, equal for two nodes exactly when links and cells join them (in
    /// either direction): one union–find pass over the links and cells.
    pub fn components(&self) -> Vec<usize> {
        let mut parent: Vec<usize> = (0..self.nodes.len()).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let mut union = |a: usize, b: usize| {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            if ra != rb {
                parent[ra.max(rb)] = ra.min(rb);
            }
        };
        for l in &self.links {
            union(l.from, l.to);
        }
        for c in &self.cells {
            for pair in c.members.windows(2) {
                union(pair[0], pair[1]);
            }
        }
        (0..self.nodes.len())
            .map(|x| root(&mut parent, x))
            .collect()
    }

    /// True if `to` can be reached from `from` over the links (either direction). For
    /// many questions, compute `components` once instead.
    pub fn reachable(&self, from: usize, to: usize) -> bool {
        let c = self.components();
        c[from] == c[to]
    }
}

/// Name → first index.
fn name_index(names: &[String]) -> HashMap<String, usize> {
    let mut index = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        index.entry(n.clone()).or_insert(i);
    }
    index
}

/// The path of the `i`th resolved link's table in the file.
pub(crate) fn link_path(s: &Scenario, i: usize) -> String {
    match s.topology.preset {
        Some(Preset::Chain) => ["topology.wired", "topology.wireless"][i.min(1)].to_string(),
        Some(Preset::Wlan) => "topology.wired".to_string(),
        Some(Preset::Adhoc) => "topology.wireless".to_string(),
        Some(Preset::Cells) => cells::link_path(s, i),
        None => explicit_link_path(s, i),
    }
}

/// The paths of the first `n` resolved links, in one pass (`link_path` for each).
pub(crate) fn link_paths(s: &Scenario, n: usize) -> Vec<String> {
    match s.topology.preset {
        None => s
            .topology
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.mac.is_cell())
            .map(|(j, _)| format!("topology.links[{j}]"))
            .take(n)
            .collect(),
        Some(_) => (0..n).map(|i| link_path(s, i)).collect(),
    }
}

/// The `i`th resolved link of an explicit topology is the `i`th of its links that is not a
/// cell.
fn explicit_link_path(s: &Scenario, i: usize) -> String {
    let index = s
        .topology
        .links
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.mac.is_cell())
        .nth(i)
        .map_or(i, |(j, _)| j);
    format!("topology.links[{index}]")
}

/// Expands the preset, or checks the explicit nodes and links.
pub fn resolve_topology(s: &Scenario) -> Result<ResolvedTopology, ScenarioError> {
    let t = &s.topology;
    if t.preset != Some(Preset::Cells) {
        for (key, present) in [
            ("cells", t.cells.is_some()),
            ("backhaul", t.backhaul.is_some()),
        ] {
            if present {
                return Err(ScenarioError::problem(
                    format!("topology.{key}"),
                    "belongs to preset = \"cells\" (gateway, base stations and mobiles)",
                ));
            }
        }
    }
    let topo = match t.preset {
        Some(Preset::Chain) => chain(t)?,
        Some(Preset::Wlan) => wlan(t)?,
        Some(Preset::Adhoc) => adhoc(t)?,
        Some(Preset::Cells) => cells::cells(s)?,
        None => explicit(t)?,
    };
    check_unique_link_names(s, &topo)?;
    Ok(topo)
}

fn chain(t: &Topology) -> Result<ResolvedTopology, ScenarioError> {
    for (key, present) in [
        ("nodes", !t.nodes.is_empty()),
        ("links", !t.links.is_empty()),
    ] {
        if present {
            return Err(ScenarioError::problem(
                format!("topology.{key}"),
                "not allowed with a preset: the chain preset defines its own nodes (fh, bs, mh) \
                 and links (wired, wireless); remove `preset` to list nodes and links yourself",
            ));
        }
    }
    if let Some(n) = t.mobiles {
        return Err(ScenarioError::bad_value(
            "topology.mobiles",
            n.to_string(),
            "no `mobiles` with the chain preset (one mobile host, mh); use preset = \"wlan\"",
        ));
    }
    let wired = preset_link(t.wired.as_ref(), "wired", "fh", "bs")?;
    let wireless = preset_link(t.wireless.as_ref(), "wireless", "bs", "mh")?;
    let nodes = vec!["fh".into(), "bs".into(), "mh".into()];
    let mut links = vec![wired_link(wired)];
    if wireless.mac.is_cell() {
        return Ok(ResolvedTopology::new(
            nodes,
            links,
            vec![cell(wireless, vec![1, 2])],
        ));
    }
    links.push(ResolvedLink {
        name: wireless.name.clone().unwrap_or_else(|| "wireless".into()),
        from: 1,
        to: 2,
        wireless: wireless.wireless.unwrap_or(true),
        spec: wireless.clone(),
    });
    Ok(ResolvedTopology::new(nodes, links, Vec::new()))
}

fn wired_link(wired: &LinkSpec) -> ResolvedLink {
    ResolvedLink {
        name: wired.name.clone().unwrap_or_else(|| "wired".into()),
        from: 0,
        to: 1,
        wireless: wired.wireless.unwrap_or(false),
        spec: wired.clone(),
    }
}

fn cell(spec: &LinkSpec, members: Vec<usize>) -> ResolvedCell {
    ResolvedCell {
        name: spec.name.clone().unwrap_or_else(|| "wireless".into()),
        members,
        spec: spec.clone(),
        path: "topology.wireless".into(),
    }
}

fn no_explicit_nodes(t: &Topology, preset: &str) -> Result<(), ScenarioError> {
    for (key, present) in [
        ("nodes", !t.nodes.is_empty()),
        ("links", !t.links.is_empty()),
    ] {
        if present {
            return Err(ScenarioError::problem(
                format!("topology.{key}"),
                format!("not allowed with a preset: the {preset} preset defines its own nodes"),
            ));
        }
    }
    Ok(())
}

fn cell_spec<'a>(t: &'a Topology, preset: &str) -> Result<&'a LinkSpec, ScenarioError> {
    let spec = preset_link(t.wireless.as_ref(), "wireless", "", "")?;
    if !spec.mac.is_cell() {
        return Err(ScenarioError::bad_value(
            "topology.wireless.mac",
            "\"p2p\"".into(),
            format!("a cell MAC (\"ideal\" or \"dcf\"): the {preset} preset is a wireless cell"),
        ));
    }
    Ok(spec)
}

/// fh —wired— ap, and the cell {ap, mh1..mhN}.
fn wlan(t: &Topology) -> Result<ResolvedTopology, ScenarioError> {
    no_explicit_nodes(t, "wlan")?;
    let wired = preset_link(t.wired.as_ref(), "wired", "fh", "ap")?;
    let spec = cell_spec(t, "wlan")?;
    let n = t.mobiles.unwrap_or(1);
    if n == 0 || n > 1000 {
        return Err(ScenarioError::bad_value(
            "topology.mobiles",
            n.to_string(),
            "between 1 and 1000 mobile hosts",
        ));
    }
    let mut nodes: Vec<String> = vec!["fh".into(), "ap".into()];
    nodes.extend((1..=n).map(|i| format!("mh{i}")));
    let members = (1..nodes.len()).collect();
    Ok(ResolvedTopology::new(
        nodes,
        vec![wired_link(wired)],
        vec![cell(spec, members)],
    ))
}

/// The cell {n1, n2}.
fn adhoc(t: &Topology) -> Result<ResolvedTopology, ScenarioError> {
    no_explicit_nodes(t, "adhoc")?;
    if t.wired.is_some() || t.mobiles.is_some() {
        return Err(ScenarioError::problem(
            "topology",
            "the adhoc preset takes only `wireless` (two nodes n1, n2 in one cell)",
        ));
    }
    let spec = cell_spec(t, "adhoc")?;
    Ok(ResolvedTopology::new(
        vec!["n1".into(), "n2".into()],
        Vec::new(),
        vec![cell(spec, vec![0, 1])],
    ))
}

fn preset_link<'a>(
    spec: Option<&'a LinkSpec>,
    key: &str,
    from: &str,
    to: &str,
) -> Result<&'a LinkSpec, ScenarioError> {
    let spec = spec.ok_or_else(|| {
        ScenarioError::problem(
            format!("topology.{key}"),
            "missing required key: the chain preset needs a `wired` and a `wireless` link",
        )
    })?;
    for (end, value) in [("from", &spec.from), ("to", &spec.to)] {
        if let Some(v) = value {
            return Err(ScenarioError::bad_value(
                format!("topology.{key}.{end}"),
                format!("\"{v}\""),
                format!("no `{end}` with a preset (the chain's {key} link runs {from} → {to})"),
            ));
        }
    }
    Ok(spec)
}

fn explicit(t: &Topology) -> Result<ResolvedTopology, ScenarioError> {
    for (key, present) in [
        ("wired", t.wired.is_some()),
        ("wireless", t.wireless.is_some()),
    ] {
        if present {
            return Err(ScenarioError::problem(
                format!("topology.{key}"),
                format!(
                    "`{key}` belongs to `preset = \"chain\"`; without a preset, use `links` \
                     (each with `from` and `to`)"
                ),
            ));
        }
    }
    if t.nodes.is_empty() {
        return Err(ScenarioError::problem(
            "topology",
            "no network: expected `preset = \"chain\"` (with `wired` and `wireless`) or \
             `nodes` and `links`",
        ));
    }
    let index = name_index(&t.nodes);
    for (i, name) in t.nodes.iter().enumerate() {
        let path = format!("topology.nodes[{i}]");
        check_identifier(&path, name, "node name")?;
        let first = index[name];
        if first != i {
            return Err(ScenarioError::bad_value(
                path,
                format!("\"{name}\""),
                format!("a unique node name (topology.nodes[{first}] is also \"{name}\")"),
            ));
        }
    }
    let mut links = Vec::with_capacity(t.links.len());
    let mut cells = Vec::new();
    for (i, spec) in t.links.iter().enumerate() {
        let from = link_end(t, &index, i, "from", spec.from.as_deref())?;
        let to = link_end(t, &index, i, "to", spec.to.as_deref())?;
        if from == to {
            return Err(ScenarioError::bad_value(
                format!("topology.links[{i}].to"),
                format!("\"{}\"", t.nodes[to]),
                format!("a node other than `from` (\"{}\")", t.nodes[from]),
            ));
        }
        if spec.mac.is_cell() {
            // A cell of two: `from` is its head (the base station).
            cells.push(ResolvedCell {
                name: spec
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("{}-{}", t.nodes[from], t.nodes[to])),
                members: vec![from, to],
                spec: spec.clone(),
                path: format!("topology.links[{i}]"),
            });
            continue;
        }
        links.push(ResolvedLink {
            name: spec
                .name
                .clone()
                .unwrap_or_else(|| format!("{}-{}", t.nodes[from], t.nodes[to])),
            from,
            to,
            spec: spec.clone(),
            wireless: spec.wireless.unwrap_or(false),
        });
    }
    Ok(ResolvedTopology {
        nodes: t.nodes.clone(),
        links,
        cells,
        index,
    })
}

fn link_end(
    t: &Topology,
    index: &HashMap<String, usize>,
    i: usize,
    end: &str,
    name: Option<&str>,
) -> Result<usize, ScenarioError> {
    let path = format!("topology.links[{i}].{end}");
    let Some(name) = name else {
        return Err(ScenarioError::problem(
            path,
            "missing required key: a link of an explicit topology needs `from` and `to`",
        ));
    };
    index
        .get(name)
        .copied()
        .ok_or_else(|| unknown_node(path, name, &t.nodes))
}

/// The longest name, in bytes (a file name must fit in 255 with its extension).
pub const NAME_MAX_BYTES: usize = 100;

/// True for a name that can safely become a file or directory name: letters, digits, `-`,
/// `_` and `.`, not starting with a dot, 1 to `NAME_MAX_BYTES` bytes. No separator, no
/// `..`, no NUL, nothing a shell or a file system reads specially.
pub fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX_BYTES
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Refuses a `what` (e.g. "node name") at `path` that is not an identifier.
pub(crate) fn check_identifier(path: &str, name: &str, what: &str) -> Result<(), ScenarioError> {
    if is_identifier(name) {
        return Ok(());
    }
    Err(ScenarioError::bad_value(
        path,
        format!("\"{name}\""),
        format!(
            "a {what} of letters, digits, '-', '_' and '.', not starting with '.', at most \
             {NAME_MAX_BYTES} bytes (it names files and directories)"
        ),
    ))
}

/// "got "x", expected one of the nodes a, b, c (did you mean ...?)".
pub(crate) fn unknown_node(path: String, name: &str, nodes: &[String]) -> ScenarioError {
    ScenarioError::bad_value(
        path,
        format!("\"{name}\""),
        format!(
            "one of the nodes {}",
            join(nodes.iter().map(String::as_str))
        ),
    )
    .with_hint(did_you_mean(name, nodes.iter().map(String::as_str)))
}

fn check_unique_link_names(s: &Scenario, topo: &ResolvedTopology) -> Result<(), ScenarioError> {
    let names: Vec<String> = topo
        .links
        .iter()
        .map(|l| l.name.clone())
        .chain(topo.cells.iter().map(|c| c.name.clone()))
        .collect();
    let index = name_index(&names);
    let paths = link_paths(s, topo.links.len());
    let named: Vec<bool> = match s.topology.preset {
        None => s
            .topology
            .links
            .iter()
            .filter(|l| !l.mac.is_cell())
            .map(|l| l.name.is_some())
            .collect(),
        Some(_) => vec![true; topo.links.len()],
    };
    for (i, link) in topo.links.iter().enumerate() {
        let path = if named[i] {
            format!("{}.name", paths[i])
        } else {
            paths[i].clone()
        };
        check_identifier(&path, &link.name, "link name")?;
        let first = index[&link.name];
        if first != i {
            return Err(ScenarioError::bad_value(
                path,
                format!("\"{}\"", link.name),
                format!(
                    "a unique link name ({} is also \"{}\")",
                    paths[first], link.name
                ),
            )
            .with_hint(Some("set `name` on one of them".into())));
        }
    }
    for (j, c) in topo.cells.iter().enumerate() {
        let path = &format!("{}.name", c.path);
        check_identifier(path, &c.name, "link name")?;
        let first = index[&c.name];
        if first != topo.links.len() + j {
            return Err(ScenarioError::bad_value(
                path,
                format!("\"{}\"", c.name),
                format!(
                    "a unique link name ({} is also \"{}\")",
                    link_path(s, first),
                    c.name
                ),
            ));
        }
    }
    Ok(())
}
