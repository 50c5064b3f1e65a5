//! Turning the world's counters into the run summary (`metrics::RunSummary`): per flow,
//! per group of flows and over all of them (fairness), per link, cell and agent.

use crate::engine::SimTime;
use crate::metrics::summary::object_times;
use crate::metrics::{
    AgentOwnMetrics, CellSummary, EngineSummary, FlowSetSummary, FlowSummary, GroupSummary, Groups,
    LinkSummary, RunSummary, WirelessSummary,
};

use super::cell::Cell;
use super::flow::{stall_cause, stall_threshold};
use super::world::{Link, StopReason, World};

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

pub fn summarize(
    world: &World,
    name: &str,
    seed: u64,
    end: SimTime,
    reason: StopReason,
    wall_s: f64,
) -> RunSummary {
    let several = world.flows.len() > 1;
    let flows: Vec<FlowSummary> = world
        .flows
        .iter()
        .map(|f| {
            let source = world.endpoints[f.source.index()]
                .conn
                .tcp()
                .expect("a flow's source speaks TCP");
            let stats = source.stats();
            let transfer = f.transfer_time(end).as_secs_f64();
            let longest_stall = f.longest_stall(end);
            let threshold = stall_threshold(source.largest_base_rto(), f.measurement_window(end));
            let (objects_completed, object_time_mean_s, object_time_median_s, object_time_max_s) =
                match f.app.objects() {
                    Some(objects) => {
                        let times: Vec<f64> = objects
                            .iter()
                            .filter_map(|o| o.completed.map(|c| c.saturating_since(o.requested)))
                            .map(|d| d.as_secs_f64())
                            .collect();
                        let (n, mean, median, max) = object_times(&times);
                        (Some(n), mean, median, max)
                    }
                    None => (None, None, None, None),
                };
            FlowSummary {
                name: f.name.clone(),
                group: several.then(|| world.groups[f.group as usize].name.clone()),
                src: f.src.clone(),
                dst: f.dst.clone(),
                variant: f.variant.to_string(),
                cc: source.cc_name().to_string(),
                rwnd_bytes: f.rwnd_bytes,
                bytes_total: f.total_bytes,
                bytes_delivered: f.delivered,
                completed: f.all_delivered(),
                throughput_bps: f.throughput_bps(end),
                completion_s: transfer,
                last_delivery_s: f.last_delivery.map(SimTime::as_secs_f64),
                longest_stall_s: longest_stall.as_secs_f64(),
                stalled: longest_stall > threshold,
                stall_threshold_s: threshold.as_secs_f64(),
                stall_cause: (longest_stall > threshold).then(|| {
                    stall_cause(
                        longest_stall,
                        source.largest_base_rto(),
                        stats.timeouts + stats.persist_probes,
                    )
                    .to_string()
                }),
                tcp_timeouts: stats.timeouts,
                tcp_persist_probes: stats.persist_probes,
                tcp_fast_retransmits: stats.fast_retransmits,
                tcp_retransmits: stats.retransmits,
                tcp_segments_sent: stats.data_segments_sent,
                delay_mean_s: f.delay.mean(),
                delay_std_s: f.delay.std(),
                overhead_bytes: (stats.payload_bytes_sent + stats.header_bytes_sent)
                    .saturating_sub(f.delivered),
                tcp_ecn_reductions: stats.ecn_reductions,
                objects_completed,
                object_time_mean_s,
                object_time_median_s,
                object_time_max_s,
            }
        })
        .collect();
    let mut links = Vec::new();
    for l in &world.links {
        for c in &l.dirs {
            links.push(LinkSummary {
                name: l.name.clone(),
                from: world.nodes[c.from.index()].name.clone(),
                to: world.nodes[c.to.index()].name.clone(),
                frames_sent: c.stats.frames_sent,
                frames_lost: c.stats.frames_lost,
                bytes_sent: c.stats.bytes_sent,
                queue_drops: c.stats.queue_drops,
                max_queue_packets: c.stats.max_queue_packets,
                ce_marks: c.stats.ce_marks,
            });
        }
    }
    let (groups, fairness) = if several {
        (groups(world, &flows), Some(FlowSetSummary::of(&flows)))
    } else {
        (Groups::default(), None)
    };
    RunSummary {
        name: name.to_string(),
        seed,
        flows,
        groups,
        fairness,
        wireless: world
            .links
            .iter()
            .find(|l| l.wireless)
            .map(wireless_summary)
            .or_else(|| world.cells.first().map(cell_wireless_summary)),
        links,
        cells: world.cells.iter().map(|c| cell_summary(c, end)).collect(),
        agent: world.agents.summary(end).map(|mut a| {
            if let AgentOwnMetrics::Lle(lle) = &mut a.own {
                lle.tcp_ack_frames_on_air =
                    world.cells.iter().map(|c| c.stats.tcp_ack_frames).sum();
            }
            a
        }),
        mobiles: world.mobility.summaries(),
        energy: super::energy::energy_summary(world, end),
        engine: EngineSummary {
            events: world.queue.events_processed(),
            sim_time_s: end.as_secs_f64(),
            wall_s,
            stop_reason: match reason {
                StopReason::Completed => "completed",
                StopReason::StopTime => "stop_time",
                StopReason::Interrupted => "interrupted",
                StopReason::Budget => "budget",
            }
            .to_string(),
        },
        scenario: serde_json::Value::Null,
    }
}

/// Each group's aggregates, from the flows' summaries (one pass over the flows).
fn groups(world: &World, flows: &[FlowSummary]) -> Groups {
    let mut members: Vec<Vec<&FlowSummary>> = vec![Vec::new(); world.groups.len()];
    for (f, summary) in world.flows.iter().zip(flows) {
        members[f.group as usize].push(summary);
    }
    Groups(
        world
            .groups
            .iter()
            .zip(members)
            .map(|(g, members)| GroupSummary {
                name: g.name.clone(),
                background: g.background,
                stats: FlowSetSummary::of(members),
            })
            .collect(),
    )
}

fn wireless_summary(l: &Link) -> WirelessSummary {
    let fwd = &l.dirs[0];
    let acc = &l.accounting;
    WirelessSummary {
        link: l.name.clone(),
        frames_sent: fwd.stats.frames_sent,
        frames_lost: fwd.stats.frames_lost,
        data_frames_sent: acc.data_frames_sent,
        data_frames_delivered: acc.data_frames_delivered,
        data_frames_lost: acc.data_frames_lost,
        goodput_wireless: ratio(acc.data_frames_delivered, acc.data_frames_sent),
        goodput_bytes: ratio(acc.new_bytes_sent, acc.all_bytes_sent),
        redundant_tx: acc.redundant_tx,
        reverse_frames_lost: l.dirs[1].stats.frames_lost,
    }
}

/// The head-to-others direction of a cell as the `wireless` summary.
fn cell_wireless_summary(c: &Cell) -> WirelessSummary {
    let head = &c.stations[0].stats;
    let others = || c.stations[1..].iter().map(|s| &s.stats);
    let acc = &c.accounting;
    WirelessSummary {
        link: c.name.clone(),
        frames_sent: head.frames_sent,
        frames_lost: others().map(|s| s.rx_collided + s.rx_errored).sum(),
        data_frames_sent: acc.data_frames_sent,
        data_frames_delivered: acc.data_frames_delivered,
        data_frames_lost: acc.data_frames_lost,
        goodput_wireless: ratio(acc.data_frames_delivered, acc.data_frames_sent),
        goodput_bytes: ratio(acc.new_bytes_sent, acc.all_bytes_sent),
        redundant_tx: acc.redundant_tx,
        reverse_frames_lost: head.rx_collided + head.rx_errored,
    }
}

fn cell_summary(c: &Cell, end: SimTime) -> CellSummary {
    let mut s = CellSummary {
        name: c.name.clone(),
        mac: c.mac_name.to_string(),
        link: c.link_name.to_string(),
        stations: c.stations.len() as u64,
        airtime_busy_fraction: ratio(
            c.stats.busy.as_nanos(),
            end.saturating_since(SimTime::ZERO).as_nanos(),
        ),
        transmissions: c.stats.transmissions,
        tcp_ack_frames: c.stats.tcp_ack_frames,
        air_bytes: c.stats.air_bits / 8,
        ..CellSummary::default()
    };
    let mut acks_received = 0;
    for st in &c.stations {
        s.collisions += st.stats.rx_collided;
        s.frames_errored += st.stats.rx_errored;
        s.queue_drops += st.stats.queue_drops;
        let m = st.mac.counters();
        s.mac_attempts += m.attempts;
        s.mac_retries += m.retries;
        s.mac_drops += m.drops;
        s.control_frames_sent += m.control_frames_sent;
        s.data_frames_sent += m.data_frames_sent;
        for l in &st.links {
            let lm = l.layer.metrics();
            s.link_retransmissions += lm.retransmissions;
            s.lacks_sent += lm.acks_sent;
            acks_received += lm.acks_received;
            s.frames_released += lm.frames_released;
            s.link_drops += lm.drops;
            s.link_duplicates += lm.duplicates_received;
            s.tcp_duplicates_at_link += lm.tcp_duplicates;
            s.link_resets += lm.resets;
        }
    }
    // LACKs still on their way when the run ended count as lost.
    s.lacks_lost = s.lacks_sent.saturating_sub(acks_received);
    s
}
