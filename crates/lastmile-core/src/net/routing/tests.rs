//! Routing tables: the chain, fewest hops with link-order tie-breaking, cells as one hop,
//! and a property test against the all-pairs breadth-first search the tables replaced.

use std::collections::VecDeque;

use proptest::prelude::*;

use super::*;

#[test]
fn routes_along_the_chain_in_both_directions() {
    // fh(0) -- bs(1) -- mh(2)
    let t = RoutingTable::shortest_paths(3, &[(NodeId(0), NodeId(1)), (NodeId(1), NodeId(2))], &[]);
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
    // 1 is two hops from 3 both via 0 and via 2: the earlier-listed link (to 0) wins.
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

#[test]
fn handoff_rewrites_one_entry() {
    let mut t =
        RoutingTable::shortest_paths(3, &[(NodeId(0), NodeId(1)), (NodeId(1), NodeId(2))], &[]);
    t.set_next_hop(NodeId(0), NodeId(2), None);
    assert_eq!(t.next_hop(NodeId(0), NodeId(2)), None);
    assert!(t.next_hop(NodeId(1), NodeId(2)).is_some());
}

#[test]
fn a_long_chain_of_100000_nodes_routes_in_linear_time() {
    let n = 100_000;
    let links: Vec<_> = (0..n - 1)
        .map(|i| (NodeId(i as u32), NodeId(i as u32 + 1)))
        .collect();
    let start = std::time::Instant::now();
    let t = RoutingTable::shortest_paths(n, &links, &[]);
    let last = NodeId(n as u32 - 1);
    for v in 0..n - 1 {
        assert_eq!(
            t.next_hop(NodeId(v as u32), last),
            Some(Hop::Link {
                link: LinkId(v as u32),
                dir: Direction::Forward
            })
        );
    }
    assert!(t.next_hop(last, NodeId(0)).is_some());
    // All-pairs tables took minutes and 10^10 entries here; two tables take milliseconds.
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
}

/// The tables as they were computed before: a breadth-first search from every source over
/// an adjacency list of links (in order) then cell members (in order).
fn all_pairs(n: usize, links: &[(NodeId, NodeId)], cells: &[Vec<NodeId>]) -> Vec<Vec<Option<Hop>>> {
    let mut adjacency: Vec<Vec<(NodeId, Hop)>> = vec![Vec::new(); n];
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
    (0..n)
        .map(|src| {
            let mut first_hop: Vec<Option<Hop>> = vec![None; n];
            let mut seen = vec![false; n];
            seen[src] = true;
            let mut frontier = VecDeque::from([src]);
            while let Some(node) = frontier.pop_front() {
                for &(neighbour, hop) in &adjacency[node] {
                    let m = neighbour.index();
                    if !seen[m] {
                        seen[m] = true;
                        first_hop[m] = if node == src {
                            Some(hop)
                        } else {
                            first_hop[node]
                        };
                        frontier.push_back(m);
                    }
                }
            }
            first_hop
        })
        .collect()
}

fn graphs() -> impl Strategy<Value = (usize, Vec<(NodeId, NodeId)>, Vec<Vec<NodeId>>)> {
    (2usize..12).prop_flat_map(|n| {
        let node = 0..n as u32;
        let links = prop::collection::vec((node.clone(), node.clone()), 0..20).prop_map(|pairs| {
            pairs
                .into_iter()
                .filter(|(a, b)| a != b)
                .map(|(a, b)| (NodeId(a), NodeId(b)))
                .collect::<Vec<_>>()
        });
        let cells =
            prop::collection::vec(prop::collection::btree_set(node, 2..5), 0..3).prop_map(|sets| {
                sets.into_iter()
                    .map(|s| s.into_iter().map(NodeId).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            });
        (Just(n), links, cells)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn per_destination_tables_equal_the_all_pairs_search((n, links, cells) in graphs()) {
        let expected = all_pairs(n, &links, &cells);
        let t = RoutingTable::shortest_paths(n, &links, &cells);
        for (src, row) in expected.iter().enumerate() {
            for (dst, hop) in row.iter().enumerate() {
                prop_assert_eq!(t.next_hop(NodeId(src as u32), NodeId(dst as u32)), *hop,
                    "from {} to {}", src, dst);
            }
        }
    }
}
