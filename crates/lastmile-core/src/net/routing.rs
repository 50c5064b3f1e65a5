//! Static shortest-path routing by hop count over an arbitrary graph of links.
//!
//! Each node gets a next-hop table indexed by destination node. Ties are broken by link
//! order (breadth-first search visits links in the order the scenario lists them), so
//! routes are deterministic. The table is plain data: a later handoff event can rewrite an
//! entry while the run goes on.

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

/// `next[src][dst]`: the first hop from `src` towards `dst`.
#[derive(Clone, Debug, Default)]
pub struct RoutingTable {
    next: Vec<Vec<Option<Hop>>>,
}

impl RoutingTable {
    /// Computes shortest paths for `node_count` nodes over `links` given as (from, to) and
    /// `cells` given as their members.
    pub fn shortest_paths(
        node_count: usize,
        links: &[(NodeId, NodeId)],
        cells: &[Vec<NodeId>],
    ) -> Self {
        let mut adjacency: Vec<Vec<(NodeId, Hop)>> = vec![Vec::new(); node_count];
        for (i, &(a, b)) in links.iter().enumerate() {
            let link = LinkId(i as u32);
            adjacency[a.index()].push((
                b,
                Hop::Link {
                    link,
                    dir: Direction::Forward,
                },
            ));
            adjacency[b.index()].push((
                a,
                Hop::Link {
                    link,
                    dir: Direction::Reverse,
                },
            ));
        }
        for (i, members) in cells.iter().enumerate() {
            let cell = CellId(i as u32);
            for &a in members {
                for &b in members.iter().filter(|&&b| b != a) {
                    adjacency[a.index()].push((b, Hop::Cell { cell, to: b }));
                }
            }
        }
        let next = (0..node_count)
            .map(|src| Self::bfs_from(src, &adjacency))
            .collect();
        RoutingTable { next }
    }

    fn bfs_from(src: usize, adjacency: &[Vec<(NodeId, Hop)>]) -> Vec<Option<Hop>> {
        let mut first_hop: Vec<Option<Hop>> = vec![None; adjacency.len()];
        let mut seen = vec![false; adjacency.len()];
        seen[src] = true;
        let mut frontier = VecDeque::from([src]);
        while let Some(node) = frontier.pop_front() {
            for &(neighbour, hop) in &adjacency[node] {
                let n = neighbour.index();
                if seen[n] {
                    continue;
                }
                seen[n] = true;
                first_hop[n] = if node == src {
                    Some(hop)
                } else {
                    first_hop[node]
                };
                frontier.push_back(n);
            }
        }
        first_hop
    }

    pub fn next_hop(&self, from: NodeId, to: NodeId) -> Option<Hop> {
        self.next[from.index()][to.index()]
    }

    pub fn is_reachable(&self, from: NodeId, to: NodeId) -> bool {
        from == to || self.next_hop(from, to).is_some()
    }

    /// Rewrites one entry (for handoff).
    pub fn set_next_hop(&mut self, from: NodeId, to: NodeId, hop: Option<Hop>) {
        self.next[from.index()][to.index()] = hop;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_along_the_chain_in_both_directions() {
        // fh(0) -- bs(1) -- mh(2)
        let t =
            RoutingTable::shortest_paths(3, &[(NodeId(0), NodeId(1)), (NodeId(1), NodeId(2))], &[]);
        assert_eq!(
            t.next_hop(NodeId(0), NodeId(2)),
            Some(Hop::Link {
                link: LinkId(0),
                dir: Direction::Forward
            })
        );
        assert_eq!(
            t.next_hop(NodeId(2), NodeId(0)),
            Some(Hop::Link {
                link: LinkId(1),
                dir: Direction::Reverse
            })
        );
        assert_eq!(
            t.next_hop(NodeId(1), NodeId(0)),
            Some(Hop::Link {
                link: LinkId(0),
                dir: Direction::Reverse
            })
        );
    }

    #[test]
    fn prefers_the_fewest_hops_and_reports_unreachable_nodes() {
        // 0-1-2-3 and a shortcut 0-3; node 4 isolated.
        let links = [
            (NodeId(0), NodeId(1)),
            (NodeId(1), NodeId(2)),
            (NodeId(2), NodeId(3)),
            (NodeId(0), NodeId(3)),
        ];
        let t = RoutingTable::shortest_paths(5, &links, &[]);
        let link = |h: Option<Hop>| match h {
            Some(Hop::Link { link, .. }) => link,
            other => panic!("{other:?}"),
        };
        assert_eq!(link(t.next_hop(NodeId(0), NodeId(3))), LinkId(3));
        assert_eq!(link(t.next_hop(NodeId(1), NodeId(3))), LinkId(0));
        assert!(!t.is_reachable(NodeId(0), NodeId(4)));
    }

    #[test]
    fn cell_members_are_one_hop_from_each_other() {
        // fh(0) -- ap(1), cell {ap(1), mh1(2), mh2(3)}.
        let cells = [vec![NodeId(1), NodeId(2), NodeId(3)]];
        let t = RoutingTable::shortest_paths(4, &[(NodeId(0), NodeId(1))], &cells);
        let to_cell = |to| {
            Some(Hop::Cell {
                cell: CellId(0),
                to,
            })
        };
        assert_eq!(t.next_hop(NodeId(2), NodeId(3)), to_cell(NodeId(3)));
        assert_eq!(t.next_hop(NodeId(1), NodeId(2)), to_cell(NodeId(2)));
        assert_eq!(t.next_hop(NodeId(3), NodeId(0)), to_cell(NodeId(1)));
    }
}
