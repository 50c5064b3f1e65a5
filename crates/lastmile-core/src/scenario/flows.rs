//! The flows of a scenario: each `[[flow]]` entry expanded into the flows it stands for,
//! with their names, groups, nodes and start times (many flows in one scenario).
//!
//! An entry makes `count` flows (default: one per node its `src` or `dst` names, the
//! longer list). `src` and `dst` each name one node, a list of nodes, or a pattern with
//! `*` (`"mh*"`: every node whose name matches, in the topology's order); flow k of the
//! entry (k from 0) runs from the (k mod n)-th source to the (k mod m)-th destination, so
//! `count = 20` with one source and one destination is 20 parallel connections, and
//! `dst = "mh*"` in a `wlan` cell of 10 mobiles is one flow to each. Flow k starts at
//! `start + k × stagger`; the builder adds a random `start_jitter` from the flow's own
//! stream. Every flow of a run has its own source port (49152 + its index in the run,
//! RFC 6335's dynamic range, hence `FLOWS_MAX`) and its own random streams (named by that
//! index).
//!
//! Names: an entry of one flow keeps its `name` (default `"<src>-<dst>-<index>"`, as
//! before); the flows of an entry of several are `"<name>.1"` to `"<name>.N"`, the entry's
//! name defaulting to `"flow<entry>"`. A flow's group is its entry's `group`, else the
//! entry's name; groups keep the order in which they first appear, and every entry of a
//! group must agree on `background`.
//!
//! Left out: per-flow settings inside an entry (an entry's flows are alike; write two
//! entries for two kinds), and patterns richer than `*`.

use std::collections::HashMap;

use crate::engine::SimDuration;
use crate::units::DURATION_MAX;

use super::model::{FlowSpec, Nodes, Scenario};
use super::topology::{check_identifier, unknown_node, ResolvedTopology};
use crate::errors::{join, ScenarioError};

/// The most flows in a run: each source takes its own port from the dynamic range
/// 49152–65535 (RFC 6335 §6), so 16,384 of them.
pub const FLOWS_MAX: usize = 16_384;

/// One flow of a run, from its entry.
#[derive(Clone, Debug)]
pub struct FlowInstance<'a> {
    /// Its entry in the scenario.
    pub spec: &'a FlowSpec,
    /// The entry's index among the `[[flow]]` entries.
    pub entry: usize,
    /// The flow's index within its entry (from 0).
    pub member: u32,
    pub name: String,
    /// Index into `ExpandedFlows::groups`.
    pub group: usize,
    /// Node indices of the resolved topology.
    pub src: usize,
    pub dst: usize,
    /// `start + member × stagger` (the builder adds the jitter).
    pub start: SimDuration,
}

/// A group of flows reported together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowGroup {
    pub name: String,
    pub background: bool,
}

/// Every flow of a run, in order (flow i is the i-th), and their groups.
#[derive(Clone, Debug, Default)]
pub struct ExpandedFlows<'a> {
    pub flows: Vec<FlowInstance<'a>>,
    pub groups: Vec<FlowGroup>,
}

/// Expands every `[[flow]]` entry of `s` over `topo`, checking the nodes, counts, names,
/// groups and starts (the flows' TCP and application settings are `validate`'s).
pub fn expand_flows<'a>(
    s: &'a Scenario,
    topo: &ResolvedTopology,
) -> Result<ExpandedFlows<'a>, ScenarioError> {
    let components = topo.components();
    let mut out = ExpandedFlows::default();
    let mut group_index: HashMap<String, (usize, usize)> = HashMap::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    for (j, f) in s.flows.iter().enumerate() {
        let path = format!("flow[{j}]");
        let srcs = select(&f.src, topo, &format!("{path}.src"))?;
        let dsts = select(&f.dst, topo, &format!("{path}.dst"))?;
        let count = entry_count(f, &path, srcs.len(), dsts.len(), out.flows.len())?;
        let first = out.flows.len();
        let entry_name = match &f.name {
            Some(name) => {
                check_identifier(&format!("{path}.name"), name, "flow name")?;
                name.clone()
            }
            None if count == 1 => {
                format!("{}-{}-{first}", topo.nodes[srcs[0]], topo.nodes[dsts[0]])
            }
            None => format!("flow{j}"),
        };
        let group = entry_group(f, &path, &entry_name, &mut group_index, &mut out.groups, j)?;
        check_starts(f, &path, count)?;
        for k in 0..count {
            let (src, dst) = (srcs[k as usize % srcs.len()], dsts[k as usize % dsts.len()]);
            check_ends(topo, &components, &path, k, count, src, dst)?;
            let name = if count == 1 {
                entry_name.clone()
            } else {
                format!("{entry_name}.{}", k + 1)
            };
            if let Some(other) = names.insert(name.clone(), j) {
                return Err(ScenarioError::bad_value(
                    format!("{path}.name"),
                    format!("\"{entry_name}\""),
                    format!("a name no other flow has (flow[{other}] also makes \"{name}\")"),
                ));
            }
            out.flows.push(FlowInstance {
                spec: f,
                entry: j,
                member: k,
                name,
                group,
                src,
                dst,
                start: f.start.sim() + f.stagger.sim() * u64::from(k),
            });
        }
    }
    Ok(out)
}

/// The flows of entry `f`: its `count`, or one per node of the longer end; at most
/// `FLOWS_MAX` in the run with the `before` flows of earlier entries.
fn entry_count(
    f: &FlowSpec,
    path: &str,
    srcs: usize,
    dsts: usize,
    before: usize,
) -> Result<u32, ScenarioError> {
    let count = f.count.unwrap_or(srcs.max(dsts) as u32);
    if count == 0 || count as usize > FLOWS_MAX {
        return Err(ScenarioError::bad_value(
            format!("{path}.count"),
            count.to_string(),
            format!("1 to {FLOWS_MAX} flows"),
        ));
    }
    if before + count as usize > FLOWS_MAX {
        return Err(ScenarioError::bad_value(
            "flow",
            format!("{} flows", before + count as usize),
            format!(
                "at most {FLOWS_MAX} flows in all (each source takes a port of the dynamic \
                 range 49152-65535)"
            ),
        ));
    }
    Ok(count)
}

/// The group of entry `j` (named `entry_name`), added to `groups` when new.
fn entry_group(
    f: &FlowSpec,
    path: &str,
    entry_name: &str,
    index: &mut HashMap<String, (usize, usize)>,
    groups: &mut Vec<FlowGroup>,
    j: usize,
) -> Result<usize, ScenarioError> {
    let name = match &f.group {
        Some(g) => {
            check_identifier(&format!("{path}.group"), g, "group name")?;
            g.as_str()
        }
        None => entry_name,
    };
    if let Some(&(g, first)) = index.get(name) {
        if groups[g].background != f.background {
            return Err(ScenarioError::bad_value(
                format!("{path}.background"),
                f.background.to_string(),
                format!(
                    "{} as in flow[{first}], of the same group \"{name}\" (a group is \
                     background traffic or not)",
                    groups[g].background
                ),
            ));
        }
        return Ok(g);
    }
    index.insert(name.to_string(), (groups.len(), j));
    groups.push(FlowGroup {
        name: name.to_string(),
        background: f.background,
    });
    Ok(groups.len() - 1)
}

/// The last flow's start, jitter included, stays within the engine's times.
fn check_starts(f: &FlowSpec, path: &str, count: u32) -> Result<(), ScenarioError> {
    let last = u128::from(f.start.sim().as_nanos())
        + u128::from(f.stagger.sim().as_nanos()) * u128::from(count - 1)
        + u128::from(f.start_jitter.sim().as_nanos());
    if last > u128::from(DURATION_MAX.as_nanos()) {
        return Err(ScenarioError::bad_value(
            format!("{path}.stagger"),
            format!("\"{}\"", f.stagger),
            format!(
                "a gap with which the last of the {count} flows starts by {DURATION_MAX} \
                 (start + (count - 1) × stagger + start_jitter)"
            ),
        ));
    }
    Ok(())
}

/// Flow `k` of an entry joins distinct nodes that the links connect.
fn check_ends(
    topo: &ResolvedTopology,
    components: &[usize],
    path: &str,
    k: u32,
    count: u32,
    src: usize,
    dst: usize,
) -> Result<(), ScenarioError> {
    let which = if count == 1 {
        String::new()
    } else {
        format!(" (for flow {} of the entry)", k + 1)
    };
    let (src_name, dst_name) = (&topo.nodes[src], &topo.nodes[dst]);
    if src == dst {
        return Err(ScenarioError::bad_value(
            format!("{path}.dst"),
            format!("\"{dst_name}\"{which}"),
            format!("a node other than the source (\"{src_name}\")"),
        ));
    }
    if components[src] != components[dst] {
        return Err(ScenarioError::bad_value(
            format!("{path}.dst"),
            format!("\"{dst_name}\"{which}"),
            format!("a node reachable from \"{src_name}\" over the links (no path joins them)"),
        ));
    }
    Ok(())
}

/// The node indices `nodes` names, in order.
fn select(nodes: &Nodes, topo: &ResolvedTopology, path: &str) -> Result<Vec<usize>, ScenarioError> {
    match nodes {
        Nodes::One(pattern) if pattern.contains('*') => {
            let found: Vec<usize> = (0..topo.nodes.len())
                .filter(|&i| matches_pattern(pattern, &topo.nodes[i]))
                .collect();
            if found.is_empty() {
                return Err(ScenarioError::bad_value(
                    path,
                    format!("\"{pattern}\""),
                    format!(
                        "a pattern matching some of the nodes {}",
                        join(topo.nodes.iter().map(String::as_str))
                    ),
                ));
            }
            Ok(found)
        }
        Nodes::One(name) => topo
            .node_index(name)
            .map(|i| vec![i])
            .ok_or_else(|| unknown_node(path.to_string(), name, &topo.nodes)),
        Nodes::List(list) if list.is_empty() => Err(ScenarioError::bad_value(
            path,
            "an empty list".into(),
            "at least one node name",
        )),
        Nodes::List(list) => list
            .iter()
            .enumerate()
            .map(|(i, name)| {
                topo.node_index(name)
                    .ok_or_else(|| unknown_node(format!("{path}[{i}]"), name, &topo.nodes))
            })
            .collect(),
    }
}

/// True if `name` matches `pattern`, where `*` stands for any run of characters.
pub fn matches_pattern(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*` at all: the whole name was the prefix
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The destination of every flow of `s` (node indices, in flow order), as far as the
/// entries resolve: for the agents' placement rules, which run before the flows are
/// checked (an entry that does not resolve adds nothing; `expand_flows` reports it).
pub(crate) fn destinations(s: &Scenario, topo: &ResolvedTopology) -> Vec<usize> {
    let mut out = Vec::new();
    for f in &s.flows {
        let (Ok(srcs), Ok(dsts)) = (select(&f.src, topo, ""), select(&f.dst, topo, "")) else {
            continue;
        };
        let count = f.count.unwrap_or(srcs.len().max(dsts.len()) as u32) as usize;
        let count = count.min(FLOWS_MAX.saturating_sub(out.len()));
        out.extend((0..count).map(|k| dsts[k % dsts.len()]));
    }
    out
}

#[cfg(test)]
mod tests;
