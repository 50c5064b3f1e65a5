//! Turning the world's counters into the run summary (`metrics::RunSummary`).

use crate::engine::SimTime;
use crate::metrics::{EngineSummary, FlowSummary, LinkSummary, RunSummary, WirelessSummary};

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
    let flows = world
        .flows
        .iter()
        .map(|f| {
            let stats = world.endpoints[f.source.index()].conn.stats();
            let transfer = f.transfer_time(end).as_secs_f64();
            FlowSummary {
                name: f.name.clone(),
                src: f.src.clone(),
                dst: f.dst.clone(),
                variant: f.variant.to_string(),
                bytes_total: f.total_bytes,
                bytes_delivered: f.delivered,
                completed: f.all_delivered(),
                throughput_bps: if transfer > 0.0 {
                    f.delivered as f64 * 8.0 / transfer
                } else {
                    0.0
                },
                completion_s: transfer,
                tcp_timeouts: stats.timeouts,
                tcp_fast_retransmits: stats.fast_retransmits,
                tcp_retransmits: stats.retransmits,
                tcp_segments_sent: stats.data_segments_sent,
                delay_mean_s: f.delay.mean(),
                delay_std_s: f.delay.std(),
                overhead_bytes: (stats.payload_bytes_sent + stats.header_bytes_sent)
                    .saturating_sub(f.delivered),
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
            });
        }
    }
    RunSummary {
        name: name.to_string(),
        seed,
        flows,
        wireless: world
            .links
            .iter()
            .find(|l| l.wireless)
            .map(wireless_summary),
        links,
        agent: world.agents.summary(end),
        engine: EngineSummary {
            events: world.queue.events_processed(),
            sim_time_s: end.as_secs_f64(),
            wall_s,
            stop_reason: match reason {
                StopReason::Completed => "completed",
                StopReason::StopTime => "stop_time",
            }
            .to_string(),
        },
    }
}

fn wireless_summary(l: &Link) -> WirelessSummary {
    let fwd = &l.dirs[0];
    let acc = &l.accounting[0];
    WirelessSummary {
        link: l.name.clone(),
        frames_sent: fwd.stats.frames_sent,
        frames_lost: fwd.stats.frames_lost,
        data_frames_sent: acc.data_frames_sent,
        data_frames_delivered: acc.data_frames_delivered,
        goodput_wireless: ratio(acc.data_frames_delivered, acc.data_frames_sent),
        goodput_bytes: ratio(acc.new_bytes_sent, acc.all_bytes_sent),
        redundant_tx: acc.redundant_tx,
        reverse_frames_lost: l.dirs[1].stats.frames_lost,
    }
}
