//! The `cells` preset (WTCP Fig. 8): fixed host `fh` —`wired`— gateway `gw` —`backhaul<i>`—
//! base stations `bs1..bsN`, each with its own wireless hop or cell `cell<i>`, and mobile
//! hosts `mh1..mhM` that move between the cells (`[[mobile]]`, `sim::mobility`).
//!
//! With a point-to-point `wireless` hop (`mac = "p2p"`, WTCP's 800 kbps fading link) every
//! base station has a link to every mobile, `cell<i>` (or `cell<i>-mh<j>` with several
//! mobiles), from the base station to the mobile; the mobility model keeps up only the
//! link of the cell a mobile is in. With a cell MAC, `cell<i>` is a shared cell whose head
//! is `bs<i>`, and a mobile starts as a member of its start cell only (the first of its
//! `cells`, `cell1` without a `[[mobile]]` entry); it leaves and joins cells as it moves.

use super::super::model::{LinkSpec, Scenario};
use super::{cell, preset_link, wired_link, ResolvedCell, ResolvedLink, ResolvedTopology};
use crate::errors::ScenarioError;

/// The most base stations of the preset.
pub const CELLS_MAX: u32 = 64;
/// The most mobile hosts of the preset.
pub const MOBILES_MAX: u32 = 1000;

/// The name of cell `i` (1-based) as the mobile `mobile` (1-based) of `m` sees it: the
/// cell, or its own link to the base station.
pub fn hop_name(i: u32, mobile: u32, m: u32, p2p: bool) -> String {
    match (p2p, m) {
        (true, m) if m > 1 => format!("cell{i}-mh{mobile}"),
        _ => format!("cell{i}"),
    }
}

/// The path of the `i`th resolved link.
pub(super) fn link_path(s: &Scenario, i: usize) -> String {
    let n = s.topology.cells.unwrap_or(2) as usize;
    match i {
        0 => "topology.wired".into(),
        i if i <= n => "topology.backhaul".into(),
        _ => "topology.wireless".into(),
    }
}

fn count(value: Option<u32>, key: &str, default: u32, max: u32) -> Result<u32, ScenarioError> {
    let n = value.unwrap_or(default);
    if n == 0 || n > max {
        return Err(ScenarioError::bad_value(
            format!("topology.{key}"),
            n.to_string(),
            format!("between 1 and {max}"),
        ));
    }
    Ok(n)
}

fn no_name(spec: &LinkSpec, key: &str) -> Result<(), ScenarioError> {
    match &spec.name {
        None => Ok(()),
        Some(name) => Err(ScenarioError::bad_value(
            format!("topology.{key}.name"),
            format!("\"{}\"", super::super::clip(name, super::super::QUOTE_MAX)),
            "no `name` in the cells preset: its links are named wired, backhaul<i> and \
             cell<i> (cell<i>-mh<j> with several mobiles)",
        )),
    }
}

/// The start cell (1-based) of mobile `mh<j>`: its `[[mobile]]` entry's `start`, else the
/// first of its `cells`, else cell 1; a name that is no cell of the preset is left to the
/// mobility checks (cell 1 here).
fn start_cell(s: &Scenario, j: u32, n: u32) -> u32 {
    let name = format!("mh{j}");
    let Some(entry) = s.mobiles.iter().find(|m| m.node == name) else {
        return 1;
    };
    let start = entry
        .start
        .as_deref()
        .or(entry.cells.first().map(String::as_str));
    start
        .and_then(|c| c.strip_prefix("cell"))
        .and_then(|rest| rest.split('-').next())
        .and_then(|k| k.parse::<u32>().ok())
        .filter(|&k| (1..=n).contains(&k))
        .unwrap_or(1)
}

/// fh —wired— gw —backhaul<i>— bs<i> —cell<i>— mh<j>.
pub(super) fn cells(s: &Scenario) -> Result<ResolvedTopology, ScenarioError> {
    let t = &s.topology;
    super::no_explicit_nodes(t, "cells")?;
    let n = count(t.cells, "cells", 2, CELLS_MAX)?;
    let m = count(t.mobiles, "mobiles", 1, MOBILES_MAX)?;
    for (key, present) in [
        ("wired", t.wired.is_some()),
        ("backhaul", t.backhaul.is_some()),
        ("wireless", t.wireless.is_some()),
    ] {
        if !present {
            return Err(ScenarioError::problem(
                format!("topology.{key}"),
                "missing required key: the cells preset needs `wired` (fh -> gw), `backhaul` \
                 (gw -> each bs<i>) and `wireless` (each cell)",
            ));
        }
    }
    let wired = preset_link(t.wired.as_ref(), "wired", "fh", "gw")?;
    let backhaul = preset_link(t.backhaul.as_ref(), "backhaul", "gw", "bs<i>")?;
    let wireless = preset_link(t.wireless.as_ref(), "wireless", "bs<i>", "mh<j>")?;
    for (spec, key) in [
        (wired, "wired"),
        (backhaul, "backhaul"),
        (wireless, "wireless"),
    ] {
        no_name(spec, key)?;
    }
    let mut nodes: Vec<String> = vec!["fh".into(), "gw".into()];
    nodes.extend((1..=n).map(|i| format!("bs{i}")));
    nodes.extend((1..=m).map(|j| format!("mh{j}")));
    let bs = |i: u32| 1 + i as usize;
    let mh = |j: u32| 1 + n as usize + j as usize;
    let mut links = vec![wired_link(wired)];
    links[0].to = 1;
    for i in 1..=n {
        links.push(ResolvedLink {
            name: format!("backhaul{i}"),
            from: 1,
            to: bs(i),
            wireless: backhaul.wireless.unwrap_or(false),
            spec: backhaul.clone(),
        });
    }
    let p2p = !wireless.mac.is_cell();
    let mut cells: Vec<ResolvedCell> = Vec::new();
    for i in 1..=n {
        if p2p {
            for j in 1..=m {
                links.push(ResolvedLink {
                    name: hop_name(i, j, m, true),
                    from: bs(i),
                    to: mh(j),
                    wireless: wireless.wireless.unwrap_or(true),
                    spec: wireless.clone(),
                });
            }
            continue;
        }
        let mut members = vec![bs(i)];
        members.extend((1..=m).filter(|&j| start_cell(s, j, n) == i).map(mh));
        let mut c = cell(wireless, members);
        c.name = hop_name(i, 0, m, false);
        cells.push(c);
    }
    Ok(ResolvedTopology::new(nodes, links, cells))
}
