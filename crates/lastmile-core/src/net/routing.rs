//! Static shortest-path routing by hop count over an arbitrary graph of links and cells.
//!
//! The rule: from node `v` towards `d`, take the first entry of `v`'s adjacency list (its
//! links in the order the scenario lists them, then its cells in order, each cell's
//! members in order) whose neighbour is one hop closer to `d`. That is exactly the first hop
//! a breadth-first search from `v` would record (the search visits `v`'s neighbours in
//! adjacency order and every later node inherits the first hop of whoever found it first),
//! so routes are deterministic and do not depend on which tables were asked for first.
//!
//! Cost: a table is made per *destination*, on first use, by one breadth-first search from
//! the destination (distances) and one scan of every node's adjacency: O(N + E + Σ cell
//! sizes) time and O(N) memory per destination. Only destinations that packets are
//! actually addressed to (flow endpoints) are ever computed, so a run over 10^5 nodes with
//! a few flows costs a few linear passes instead of N searches and an N × N table. A cell
//! is a hyperedge (every member one hop from every other) and is never expanded into its
//! m² member pairs.
//!
//! The table is plain data: a later handoff event can rewrite an entry while the run goes
//! on (`set_next_hop`).

use std::cell::OnceCell;
use std::collections::VecDeque;

use crate::ids::{Direction, LinkId, NodeId};

/// A wireless cell (a shared half-duplex channel) of the network.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CellId(pub u32);

impl CellId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The next hop: one direction of a point-to-point link, or a member of a cell the sender
/// belongs to (every member of a cell is one hop from every other).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Hop {
    Link { link: LinkId, dir: Direction },
    Cell { cell: CellId, to: NodeId },
}

const UNREACHED: u32 = u32::MAX;

/// Next hops towards each destination, computed on first use.
#[derive(Clone, Debug, Default)]
pub struct RoutingTable {
    /// Node `v`'s link entries are `link_adj[link_start[v]..link_start[v + 1]]`, in link
    /// order: (neighbour, hop).
    link_start: Vec<u32>,
    link_adj: Vec<(NodeId, Hop)>,
    /// Node `v`'s cells are `node_cells[cell_start[v]..cell_start[v + 1]]`, in cell order.
    cell_start: Vec<u32>,
    node_cells: Vec<CellId>,
    cells: Vec<Vec<NodeId>>,
    /// `toward[d][v]`: the first hop from `v` towards `d`.
    toward: Vec<OnceCell<Box<[Option<Hop>]>>>,
}

/// Compressed rows: `rows[v]` for v in 0..n as (starts, flat entries).
fn compress<T: Copy>(
    n: usize,
    pairs: impl Iterator<Item = (usize, T)> + Clone,
) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for (v, _) in pairs.clone() {
        start[v + 1] += 1;
    }
    for v in 0..n {
        start[v + 1] += start[v];
    }
    let mut fill: Vec<u32> = start[..n].to_vec();
    let mut flat: Vec<Option<T>> = vec![None; start[n] as usize];
    for (v, item) in pairs {
        flat[fill[v] as usize] = Some(item);
        fill[v] += 1;
    }
    (start, flat.into_iter().flatten().collect())
}

impl RoutingTable {
    /// The routes of `node_count` nodes over `links` given as (from, to) and `cells` given
    /// as their members. Tables are computed when first asked for.
    pub fn shortest_paths(
        node_count: usize,
        links: &[(NodeId, NodeId)],
        cells: &[Vec<NodeId>],
    ) -> Self {
        let link_entries = links.iter().enumerate().flat_map(|(i, &(a, b))| {
            let link = LinkId(i as u32);
            [
                (
                    a.index(),
                    (
                        b,
                        Hop::Link {
                            link,
                            dir: Direction::Forward,
                        },
                    ),
                ),
                (
                    b.index(),
                    (
                        a,
                        Hop::Link {
                            link,
                            dir: Direction::Reverse,
                        },
                    ),
                ),
            ]
        });
        let (link_start, link_adj) = compress(node_count, link_entries);
        let cell_entries = cells
            .iter()
            .enumerate()
            .flat_map(|(i, members)| members.iter().map(move |m| (m.index(), CellId(i as u32))));
        let (cell_start, node_cells) = compress(node_count, cell_entries);
        RoutingTable {
            link_start,
            link_adj,
            cell_start,
            node_cells,
            cells: cells.to_vec(),
            toward: vec![OnceCell::new(); node_count],
        }
    }

    fn link_entries(&self, v: usize) -> &[(NodeId, Hop)] {
        &self.link_adj[self.link_start[v] as usize..self.link_start[v + 1] as usize]
    }

    fn cells_of(&self, v: usize) -> &[CellId] {
        &self.node_cells[self.cell_start[v] as usize..self.cell_start[v + 1] as usize]
    }

    /// Hop counts to `d` from every node (`UNREACHED` where no path exists).
    fn distances_to(&self, d: usize) -> Vec<u32> {
        let n = self.toward.len();
        let mut dist = vec![UNREACHED; n];
        let mut cell_done = vec![false; self.cells.len()];
        dist[d] = 0;
        let mut frontier = VecDeque::from([d]);
        while let Some(x) = frontier.pop_front() {
            let next = dist[x] + 1;
            for &(y, _) in self.link_entries(x) {
                if dist[y.index()] == UNREACHED {
                    dist[y.index()] = next;
                    frontier.push_back(y.index());
                }
            }
            for &c in self.cells_of(x) {
                // A cell's members are all one hop from the first of them reached.
                if std::mem::replace(&mut cell_done[c.index()], true) {
                    continue;
                }
                for &m in &self.cells[c.index()] {
                    if dist[m.index()] == UNREACHED {
                        dist[m.index()] = next;
                        frontier.push_back(m.index());
                    }
                }
            }
        }
        dist
    }

    /// The whole table towards `d` (see the module notes for the rule).
    fn compute(&self, d: usize) -> Box<[Option<Hop>]> {
        let dist = self.distances_to(d);
        // Per cell, its first member (in member order) at the cell's least distance: the
        // one every member one hop further takes.
        let nearest: Vec<Option<NodeId>> = self
            .cells
            .iter()
            .map(|members| {
                let least = members.iter().map(|m| dist[m.index()]).min()?;
                members.iter().copied().find(|m| dist[m.index()] == least)
            })
            .collect();
        (0..self.toward.len())
            .map(|v| {
                if v == d || dist[v] == UNREACHED {
                    return None;
                }
                let closer = dist[v] - 1;
                let by_link = self
                    .link_entries(v)
                    .iter()
                    .find(|(y, _)| dist[y.index()] == closer)
                    .map(|&(_, hop)| hop);
                by_link.or_else(|| {
                    self.cells_of(v).iter().find_map(|&cell| {
                        let to = nearest[cell.index()]?;
                        (dist[to.index()] == closer).then_some(Hop::Cell { cell, to })
                    })
                })
            })
            .collect()
    }

    fn table(&self, to: NodeId) -> &[Option<Hop>] {
        self.toward[to.index()].get_or_init(|| self.compute(to.index()))
    }

    pub fn next_hop(&self, from: NodeId, to: NodeId) -> Option<Hop> {
        self.table(to)[from.index()]
    }

    pub fn is_reachable(&self, from: NodeId, to: NodeId) -> bool {
        from == to || self.next_hop(from, to).is_some()
    }

    /// Rewrites one entry (for handoff).
    pub fn set_next_hop(&mut self, from: NodeId, to: NodeId, hop: Option<Hop>) {
        self.table(to);
        if let Some(table) = self.toward[to.index()].get_mut() {
            table[from.index()] = hop;
        }
    }
}

#[cfg(test)]
mod tests;
