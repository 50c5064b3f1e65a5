//! How big a run will be, from the scenario's own numbers, before it starts: an order of
//! magnitude for the events it will process and the simulated time it will cover, so that a
//! run that would take hours (a 1 bps link with a ten-year `stop_time`) is announced
//! instead of silently started.
//!
//! The model, per flow, along its route (the routing table's own path):
//! - the flow lasts `T = bytes·8 / bottleneck rate` (the application's rate for Poisson,
//!   `duration` for a saturating UDP source), cut at `stop_time`;
//! - it sends `bytes / mss` segments (`T·rate / packet_size` datagrams for UDP) in that
//!   time, each crossing every hop, with an ACK coming back (TCP);
//! - a frame costs 1 event per point-to-point hop (its arrival; its transmission's end is
//!   an event only when a frame waits behind it, `sim::quiet_end`), one more for a data
//!   frame when the bottleneck is a point-to-point hop (where frames queue), and
//!   `4 + 2·members` per cell hop (carrier sense at every member, the MAC's timers), 1.6
//!   times that under the DCF or FAMA-NCS (their control frames: RTS/CTS, MAC ACKs), as
//!   counted on the TULIP chain; RLP multiplies it by the frames it cuts a full-size
//!   datagram into, each answered by a supervisory frame at worst;
//! - a stalled connection still wakes at least once per `max_rto` (its backed-off
//!   retransmission timer) for as long as it lasts; a route longer than IP's TTL never
//!   delivers, so such a flow only retransmits its SYN, once per `max_rto`.
//!
//! Losses, retransmissions and agents' timers are left out: on the reference runs (the
//! chain with PER 5 %, TULIP over the ideal MAC, the DCF and FAMA-NCS) the estimate is
//! within 10 % of the events counted (see the tests), and it only has to tell seconds from
//! hours.

use crate::ids::NodeId;
use crate::net::{Hop, RoutingTable};
use crate::packet::DEFAULT_TTL;
use crate::scenario::{Plan, ResolvedTopology};

/// Events per second assumed to turn events into a wall-time estimate: a conservative
/// figure (on the project's machine the reference chain runs at ~2·10^7 events/s, TULIP
/// over a cell at ~10^7).
pub const NOMINAL_EVENTS_PER_S: f64 = 5e6;

/// What a run is expected to cost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Events the engine will process, to an order of magnitude.
    pub events: f64,
    /// Simulated seconds the run will cover (at most `stop_time`).
    pub sim_time_s: f64,
    /// `events / NOMINAL_EVENTS_PER_S`.
    pub wall_s: f64,
}

/// A route from one node to another, as far as a packet gets.
struct Path {
    /// Events per frame over the hops it crosses.
    events_per_frame: f64,
    /// The slowest rate on the way.
    slowest_bps: f64,
    /// The slowest hop is a point-to-point link (frames queue there, each end an event).
    queues_on_link: bool,
    /// False when the route is longer than IP's TTL: packets die on the way.
    arrives: bool,
}

/// The path from `src` to `dst`; None when no route joins them.
fn path(topo: &ResolvedTopology, routes: &RoutingTable, src: usize, dst: usize) -> Option<Path> {
    let (mut events, mut slowest, mut queues_on_link) = (0.0, f64::INFINITY, false);
    let mut at = NodeId(src as u32);
    for hops in 0..=usize::from(DEFAULT_TTL) {
        if at.index() == dst || hops == usize::from(DEFAULT_TTL) {
            return Some(Path {
                events_per_frame: events,
                slowest_bps: slowest,
                queues_on_link,
                arrives: at.index() == dst,
            });
        }
        match routes.next_hop(at, NodeId(dst as u32))? {
            Hop::Link { link, dir } => {
                let l = &topo.links[link.index()];
                events += 1.0;
                let rate = l.spec.rate.bps() as f64;
                queues_on_link = rate < slowest || (rate == slowest && queues_on_link);
                slowest = slowest.min(rate);
                at = NodeId(if dir.index() == 0 { l.to } else { l.from } as u32);
            }
            Hop::Cell { cell, to } => {
                let c = &topo.cells[cell.index()];
                let control = c.spec.mac.events_per_frame() * c.spec.link.frames_per_datagram();
                events += control * (4.0 + 2.0 * c.members.len() as f64);
                let rate = c.spec.rate.bps() as f64;
                queues_on_link &= rate > slowest;
                slowest = slowest.min(rate);
                at = to;
            }
        }
    }
    None
}

/// The estimate for the scenario `plan` worked out.
pub fn estimate(plan: &Plan<'_>) -> Estimate {
    let (topo, routes) = (&plan.topology, &plan.routes);
    let stop_s = plan.scenario.stop_time.sim().as_secs_f64();
    let (mut events, mut end_s) = (0.0f64, 0.0f64);
    for flow in &plan.flows.flows {
        let (f, src, dst) = (flow.spec, flow.src, flow.dst);
        let Some(route) = path(topo, routes, src, dst) else {
            continue;
        };
        let (per_frame, bottleneck_bps) = (route.events_per_frame, route.slowest_bps);
        let start_s = flow.start.as_secs_f64();
        let max_rto_s = f.tcp.max_rto.sim().as_secs_f64().max(1e-9);
        if !route.arrives {
            let lasts_s = (stop_s - start_s).max(0.0);
            events += (lasts_s / max_rto_s + 1.0) * per_frame;
            end_s = end_s.max(start_s + lasts_s);
            continue;
        }
        let mss = f.tcp.mss.bytes().max(1) as f64;
        // (frames the whole transfer needs, seconds it needs, frames carry ACKs back?)
        let load = f.app.offered_load(mss, bottleneck_bps);
        let (frames, needs_s, acked) = (load.frames, load.needs_s, load.acked);
        let lasts_s = needs_s.min((stop_s - start_s).max(0.0));
        let share = if needs_s > 0.0 {
            lasts_s / needs_s
        } else {
            1.0
        };
        let directions = if acked { 2.0 } else { 1.0 };
        let queued = if route.queues_on_link { 1.0 } else { 0.0 };
        events += frames * share * (per_frame * directions + queued);
        events += lasts_s / max_rto_s;
        end_s = end_s.max(start_s + lasts_s);
    }
    let events = events.max(1.0);
    Estimate {
        events,
        sim_time_s: end_s.min(stop_s),
        wall_s: events / NOMINAL_EVENTS_PER_S,
    }
}
