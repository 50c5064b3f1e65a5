//! Expanding a scenario's topology into the nodes and links the builder wires.
//!
//! The `chain` preset is fixed host `fh` —`wired`— base station `bs` —`wireless`— mobile
//! host `mh` (TULIP Fig. 8, WTCP Fig. 3). An explicit topology lists `nodes` and `links`
//! with `from`/`to`. Links are full duplex; routing (shortest path by hop count, either
//! direction) is the builder's business, `reachable` here answers the validator's question.

use std::collections::VecDeque;

use super::error::{did_you_mean, join, ScenarioError};
use super::model::{LinkSpec, Preset, Scenario, Topology};

/// The network as the builder sees it: node names (index = node number) and links.
#[derive(Clone, Debug)]
pub struct ResolvedTopology {
    pub nodes: Vec<String>,
    pub links: Vec<ResolvedLink>,
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
    /// The index of the node called `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n == name)
    }

    /// True if `to` can be reached from `from` over the links (either direction).
    pub fn reachable(&self, from: usize, to: usize) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut queue = VecDeque::from([from]);
        seen[from] = true;
        while let Some(n) = queue.pop_front() {
            if n == to {
                return true;
            }
            for l in &self.links {
                let next = if l.from == n {
                    l.to
                } else if l.to == n {
                    l.from
                } else {
                    continue;
                };
                if !seen[next] {
                    seen[next] = true;
                    queue.push_back(next);
                }
            }
        }
        false
    }
}

/// The path of the `i`th resolved link's table in the file.
pub(crate) fn link_path(s: &Scenario, i: usize) -> String {
    match s.topology.preset {
        Some(Preset::Chain) => ["topology.wired", "topology.wireless"][i.min(1)].to_string(),
        None => format!("topology.links[{i}]"),
    }
}

/// Expands the preset, or checks the explicit nodes and links.
pub fn resolve_topology(s: &Scenario) -> Result<ResolvedTopology, ScenarioError> {
    let t = &s.topology;
    let topo = match t.preset {
        Some(Preset::Chain) => chain(t)?,
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
    let wired = preset_link(t.wired.as_ref(), "wired", "fh", "bs")?;
    let wireless = preset_link(t.wireless.as_ref(), "wireless", "bs", "mh")?;
    Ok(ResolvedTopology {
        nodes: vec!["fh".into(), "bs".into(), "mh".into()],
        links: vec![
            ResolvedLink {
                name: wired.name.clone().unwrap_or_else(|| "wired".into()),
                from: 0,
                to: 1,
                wireless: wired.wireless.unwrap_or(false),
                spec: wired.clone(),
            },
            ResolvedLink {
                name: wireless.name.clone().unwrap_or_else(|| "wireless".into()),
                from: 1,
                to: 2,
                wireless: wireless.wireless.unwrap_or(true),
                spec: wireless.clone(),
            },
        ],
    })
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
    for (i, name) in t.nodes.iter().enumerate() {
        let path = format!("topology.nodes[{i}]");
        if name.trim().is_empty() {
            return Err(ScenarioError::bad_value(
                path,
                format!("\"{name}\""),
                "a non-empty node name",
            ));
        }
        if let Some(first) = t.nodes[..i].iter().position(|n| n == name) {
            return Err(ScenarioError::bad_value(
                path,
                format!("\"{name}\""),
                format!("a unique node name (topology.nodes[{first}] is also \"{name}\")"),
            ));
        }
    }
    let mut links = Vec::with_capacity(t.links.len());
    for (i, spec) in t.links.iter().enumerate() {
        let from = link_end(t, i, "from", spec.from.as_deref())?;
        let to = link_end(t, i, "to", spec.to.as_deref())?;
        if from == to {
            return Err(ScenarioError::bad_value(
                format!("topology.links[{i}].to"),
                format!("\"{}\"", t.nodes[to]),
                format!("a node other than `from` (\"{}\")", t.nodes[from]),
            ));
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
    })
}

fn link_end(t: &Topology, i: usize, end: &str, name: Option<&str>) -> Result<usize, ScenarioError> {
    let path = format!("topology.links[{i}].{end}");
    let Some(name) = name else {
        return Err(ScenarioError::problem(
            path,
            "missing required key: a link of an explicit topology needs `from` and `to`",
        ));
    };
    t.nodes
        .iter()
        .position(|n| n == name)
        .ok_or_else(|| unknown_node(path, name, &t.nodes))
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
    for (i, link) in topo.links.iter().enumerate() {
        if let Some(first) = topo.links[..i].iter().position(|l| l.name == link.name) {
            let given = s.topology.preset.is_none() && s.topology.links[i].name.is_some()
                || s.topology.preset.is_some();
            let path = if given {
                format!("{}.name", link_path(s, i))
            } else {
                link_path(s, i)
            };
            return Err(ScenarioError::bad_value(
                path,
                format!("\"{}\"", link.name),
                format!(
                    "a unique link name ({} is also \"{}\")",
                    link_path(s, first),
                    link.name
                ),
            )
            .with_hint(Some("set `name` on one of them".into())));
        }
    }
    Ok(())
}
