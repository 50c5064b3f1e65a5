//! The radios' accounting hooks outside the medium, and the `energy` section of the summary
//! (the survey's §3.1; the model and its power profiles are in `wireless::energy`).
//!
//! A point-to-point wireless link has one radio at each end, both attached for the whole
//! run: a frame starting on one direction is that end's transmission and, one propagation
//! delay later, an arrival at the other end, lost or not. Cell members' radios are kept by
//! their `Medium`. Wired links have no radio. A node's radios (two cells, or a cell and a
//! link) add up.

use std::collections::BTreeMap;

use crate::engine::{SimDuration, SimTime};
use crate::ids::{Direction, NodeId};
use crate::metrics::{EnergySummary, NodeEnergy};
use crate::wireless::energy::{DuplexRadioMeter, PowerProfile, StateTimes};

use super::world::{Link, World};

/// The two radios of a wireless link: `[0]` at `dirs[0].from`, `[1]` at `dirs[0].to`,
/// attached from time zero for the whole run.
#[derive(Clone, Debug, Default)]
pub struct LinkRadios([DuplexRadioMeter; 2]);

impl LinkRadios {
    pub fn new() -> Self {
        Self::default()
    }
}

/// The power profile a run reports its energy at.
#[derive(Clone, Debug)]
pub struct EnergySettings {
    pub profile: String,
    pub powers: PowerProfile,
}

impl Default for EnergySettings {
    fn default() -> Self {
        EnergySettings {
            profile: "ns3".into(),
            powers: PowerProfile::NS3,
        }
    }
}

impl LinkRadios {
    /// A frame of direction `dir` is on the air from `now` to `tx_end`, reaching the far
    /// end `delay` later.
    #[inline(never)]
    fn on_tx(&mut self, dir: Direction, now: SimTime, tx_end: SimTime, delay: SimDuration) {
        let [a, b] = &mut self.0;
        let (from, to) = match dir {
            Direction::Forward => (a, b),
            Direction::Reverse => (b, a),
        };
        from.transmit(now, now, tx_end);
        to.receive(now, now + delay, tx_end + delay);
    }
}

impl Link {
    /// A frame of direction `dir` is on the air from `now` to `tx_end` (a wired link, with
    /// no radios, costs one test).
    #[inline(always)]
    pub(super) fn on_radio_tx(&mut self, dir: Direction, now: SimTime, tx_end: SimTime) {
        if let Some(radios) = self.radios.as_mut() {
            radios.on_tx(dir, now, tx_end, self.dirs[dir.index()].delay);
        }
    }
}

/// Every radio's times up to `end`, summed per node.
fn node_times(world: &World, end: SimTime) -> BTreeMap<NodeId, StateTimes> {
    let mut per_node: BTreeMap<NodeId, StateTimes> = BTreeMap::new();
    for l in &world.links {
        if let Some(LinkRadios(ends)) = &l.radios {
            let nodes = [l.dirs[0].from, l.dirs[0].to];
            for (node, radio) in nodes.into_iter().zip(ends) {
                per_node.entry(node).or_default().add(&radio.times(end));
            }
        }
    }
    for c in &world.cells {
        for (node, times) in c.medium.radio_times(end) {
            per_node.entry(node).or_default().add(&times);
        }
    }
    per_node
}

/// The summary's `energy` section; `None` when the run has no radio.
pub(super) fn energy_summary(world: &World, end: SimTime) -> Option<EnergySummary> {
    let per_node = node_times(world, end);
    if per_node.is_empty() {
        return None;
    }
    let p = &world.energy.powers;
    let delivered_mb = world.flows.iter().map(|f| f.delivered).sum::<u64>() as f64 / 1e6;
    let per_mb = |j: f64| (delivered_mb > 0.0).then(|| j / delivered_mb);
    let mut nodes = BTreeMap::new();
    let mut total_j = 0.0;
    for (node, t) in per_node {
        let e = t.energy(p);
        total_j += e.total_j();
        nodes.insert(
            world.nodes[node.index()].name.clone(),
            NodeEnergy {
                transmit_s: t.transmit.as_secs_f64(),
                receive_s: t.receive.as_secs_f64(),
                idle_s: t.idle.as_secs_f64(),
                sleep_s: t.sleep.as_secs_f64(),
                transmit_j: e.transmit_j,
                receive_j: e.receive_j,
                idle_j: e.idle_j,
                sleep_j: e.sleep_j,
                total_j: e.total_j(),
                joules_per_mb: per_mb(e.total_j()),
            },
        );
    }
    Some(EnergySummary {
        profile: world.energy.profile.clone(),
        transmit_w: p.transmit_w,
        receive_w: p.receive_w,
        idle_w: p.idle_w,
        sleep_w: p.sleep_w,
        nodes,
        total_j,
        joules_per_mb: per_mb(total_j),
    })
}
