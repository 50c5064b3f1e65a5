//! The run summary: every metric with the name and definition of
//! `shared/design/experiments.md`, serialised to JSON for the CLI and the results store —
//! except `throughput_bps`, which divides by the measurement window (the
//! flow's start, or `measure_from`, to its completion or the end of the run) rather than by
//! the transfer time, so that a flow that stops delivering is not reported as fast; and the
//! per-flow liveness figures (`last_delivery_s`, `longest_stall_s`, `stalled`); and the
//! radios' energy (`energy`, `wireless::energy`).

use std::collections::BTreeMap;

use serde::Serialize;

/// Per-flow metrics (TCP at the source, the application at the sink).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowSummary {
    pub name: String,
    /// The flow's group (`[[flow]]`'s `group`, default its entry's name); absent in a run
    /// of one flow, whose summary has no `groups` either.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    pub src: String,
    pub dst: String,
    /// The loss recovery ("tahoe", "reno", "newreno").
    pub variant: String,
    /// The congestion control (`tcp.cc`: "reno", "cubic", "bbr", ...).
    pub cc: String,
    /// The receiver's window (`tcp.rwnd`): the most it advertises; the window it
    /// advertises is smaller only while it holds data out of order (`tcp::receiver`).
    pub rwnd_bytes: u64,
    /// Application bytes the source wrote in total.
    pub bytes_total: u64,
    /// Application bytes delivered in order to the receiving application.
    pub bytes_delivered: u64,
    /// True when every byte was delivered.
    pub completed: bool,
    /// The papers' throughput (WTCP §4.1): bytes delivered in order within the measurement
    /// window × 8 / the window's length. The window opens at the flow's `start` (or its
    /// `measure_from`, if later) and closes at the last byte's delivery or the end of the
    /// run, whichever is first: a flow that stops delivering is charged for the time it
    /// stood still.
    pub throughput_bps: f64,
    /// Time from the first byte sent to the last byte delivered (the whole run so far when
    /// the transfer did not complete).
    pub completion_s: f64,
    /// Simulated time of the last in-order delivery to the receiving application (absent if
    /// nothing was delivered).
    pub last_delivery_s: Option<f64>,
    /// The longest interval with data written by the application and not yet delivered
    /// during which nothing new was delivered in order (one still open at the end of the
    /// run counts up to the end); 0 for saturating UDP.
    pub longest_stall_s: f64,
    /// The liveness check: `longest_stall_s` exceeded `stall_threshold_s`.
    pub stalled: bool,
    /// max(30 s, 8 × the largest RTO before back-off the source used): past it a stall is
    /// the protocol's, not the channel's (`sim::flow::stall_threshold` gives the reasons).
    pub stall_threshold_s: f64,
    /// A stalled flow only: "backoff" when its source's retransmission timeouts can account
    /// for the stall (the scenario's own exponential back-off on a channel that keeps
    /// losing), "lockup" when they cannot (`sim::flow::stall_cause` gives the bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stall_cause: Option<String>,
    /// Retransmission timer expiries at the source.
    pub tcp_timeouts: u64,
    /// Zero-window probes the source sent on its persist timer.
    pub tcp_persist_probes: u64,
    /// Fast retransmits at the source (entries into loss recovery on duplicate ACKs).
    pub tcp_fast_retransmits: u64,
    /// Data segments the source sent again, for any reason.
    pub tcp_retransmits: u64,
    /// Data segments the source sent, retransmissions included.
    pub tcp_segments_sent: u64,
    /// Mean per-packet delay: from the source's first transmission of a segment to its
    /// in-order delivery to the receiving application.
    pub delay_mean_s: f64,
    /// Standard deviation of that delay.
    pub delay_std_s: f64,
    /// All bytes the source sent beyond the application payload: headers of every segment
    /// and the whole of every retransmission.
    pub overhead_bytes: u64,
    /// Request/response flows only: the objects the client received whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objects_completed: Option<u64>,
    /// Request/response flows only: each object's completion time (its request written at
    /// the client to its last byte delivered there), mean over the objects completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_time_mean_s: Option<f64>,
    /// The median of those times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_time_median_s: Option<f64>,
    /// The longest of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_time_max_s: Option<f64>,
    /// Window reductions the source made in answer to ECN-Echo (RFC 3168 §6.1.2); 0 without
    /// ECN.
    pub tcp_ecn_reductions: u64,
}

/// An application's objects' completion times (request/response flows): count, mean,
/// median and maximum in seconds; `None` without objects.
pub fn object_times(times_s: &[f64]) -> (u64, Option<f64>, Option<f64>, Option<f64>) {
    if times_s.is_empty() {
        return (0, None, None, None);
    }
    let mut sorted = times_s.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let mean = sorted.iter().sum::<f64>() / n as f64;
    (n as u64, Some(mean), Some(median), sorted.last().copied())
}

/// Per-link, per-direction counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    pub frames_sent: u64,
    pub frames_lost: u64,
    pub bytes_sent: u64,
    pub queue_drops: u64,
    pub max_queue_packets: u64,
    /// Packets the queue's RED marked with CE instead of dropping (RFC 3168); 0 for
    /// drop-tail.
    pub ce_marks: u64,
}

/// The lossy ("wireless") hop's metrics, in its data-bound direction.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WirelessSummary {
    pub link: String,
    /// All frames transmitted in the data-bound direction.
    pub frames_sent: u64,
    /// Frames lost to the channel in that direction.
    pub frames_lost: u64,
    /// Frames carrying data transmitted in that direction.
    pub data_frames_sent: u64,
    /// Of those, frames received intact and passed up with data not passed up before.
    pub data_frames_delivered: u64,
    /// Data frames that did not arrive intact (channel errors; in a cell also collisions):
    /// `data_frames_lost / data_frames_sent` is the measured PER of TULIP's Table 1.
    pub data_frames_lost: u64,
    /// TULIP's goodput: data frames passed up (first copies only) / data frames transmitted
    /// (ideal 1 − PER; redundant copies keep it below, as no LL's 0.814 vs 0.834 in Table 1).
    pub goodput_wireless: f64,
    /// WTCP's and the survey's goodput: new bytes (header + data) sent / all bytes sent.
    pub goodput_bytes: f64,
    /// Transmissions of a data packet the receiver already had.
    pub redundant_tx: u64,
    /// Frames lost in the reverse (ACK) direction.
    pub reverse_frames_lost: u64,
}

/// One wireless cell: the medium, the MACs and the link layers, summed over its stations.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CellSummary {
    pub name: String,
    pub mac: String,
    pub link: String,
    pub stations: u64,
    /// Fraction of the run with at least one transmission on the air.
    pub airtime_busy_fraction: f64,
    /// Frames put on the air (data and control).
    pub transmissions: u64,
    /// Frames destroyed by an overlap at the station they were addressed to.
    pub collisions: u64,
    /// Frames that survived collisions but were lost to the receiver's error model.
    pub frames_errored: u64,
    /// Channel-access attempts (data or RTS) that won the medium.
    pub mac_attempts: u64,
    /// Failed attempts the MAC retried.
    pub mac_retries: u64,
    /// Frames the MAC dropped at a retry limit.
    pub mac_drops: u64,
    /// RTS, CTS and MAC ACK frames sent.
    pub control_frames_sent: u64,
    /// MAC data frames sent (link-level ACKs and LACKs included).
    pub data_frames_sent: u64,
    /// Packets dropped at full interface queues.
    pub queue_drops: u64,
    /// Link-layer retransmissions (TULIP, stop-and-wait).
    pub link_retransmissions: u64,
    /// LACKs (TULIP) or link ACKs (stop-and-wait) sent.
    pub lacks_sent: u64,
    /// Of those, not received by their peer's link layer.
    pub lacks_lost: u64,
    /// Reliable frames released in order by the receiving link layers.
    pub frames_released: u64,
    /// Reliable frames given up by a link layer at its retry limit (RLP: datagrams lost to
    /// link resets).
    pub link_drops: u64,
    /// Link frames received again though their receiver had them: the link layer's
    /// redundant retransmissions.
    pub link_duplicates: u64,
    /// TCP data segments handed to a link layer that had been given them before: TCP's own
    /// retransmissions on top of the link's (RLP; the survey §2.1's interference).
    pub tcp_duplicates_at_link: u64,
    /// Link resets (RLP after N2 unanswered polls).
    pub link_resets: u64,
    /// Bytes put on the air by every station, FEC's parity included.
    pub air_bytes: u64,
    /// Pure TCP ACK frames (no payload, no SYN/FIN/RST) put on the air, every transmission
    /// attempt counted (LLE-TCP removes them).
    pub tcp_ack_frames: u64,
}

/// The engine's own figures.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EngineSummary {
    pub events: u64,
    pub sim_time_s: f64,
    /// Wall-clock time of the run (the only figure that is not deterministic).
    pub wall_s: f64,
    /// "completed" when every flow finished (background traffic aside), "stop_time" when
    /// the run reached its `stop_time`, "interrupted" when it was stopped (Ctrl-C,
    /// SIGTERM), "budget" when it used up its event or wall-clock budget
    /// (`sim::RunOptions::max_events`, `max_wall`): then the summary covers the run so far.
    pub stop_reason: String,
}

/// Everything a run reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunSummary {
    pub name: String,
    pub seed: u64,
    pub flows: Vec<FlowSummary>,
    /// Per group of flows, by name in order of first appearance: its aggregates and
    /// fairness (absent in a run of one flow).
    #[serde(skip_serializing_if = "Groups::is_empty")]
    pub groups: Groups,
    /// Fairness over every flow of the run (absent in a run of one flow).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness: Option<FlowSetSummary>,
    /// The chain's (or the first wireless-marked link's) lossy hop, else the first cell's
    /// head-to-others direction (bs → mh, ap → mobiles, n1 → n2); absent without one.
    pub wireless: Option<WirelessSummary>,
    /// Every link direction.
    pub links: Vec<LinkSummary>,
    /// Every wireless cell (absent without one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<CellSummary>,
    /// The base-station agent's metrics; absent without an agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<AgentSummary>,
    /// Every mobile host (`[[mobile]]`, and the `cells` preset's others); absent without
    /// one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mobiles: Vec<MobileSummary>,
    /// The radios' time and energy per state (wireless links and cells); absent without a
    /// radio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<EnergySummary>,
    pub engine: EngineSummary,
    /// What ran: the scenario with every key, its defaults filled in and its units spelled
    /// out, and the run's seed (`scenario::resolved`); a scenario document that runs again
    /// to the same result.
    pub scenario: serde_json::Value,
}

/// One mobile host's handoffs (docs/mobility.md).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MobileSummary {
    pub node: String,
    /// The wireless hops it moves between (the `handoff` trace's `from` and `to` index
    /// them).
    pub cells: Vec<String>,
    /// Handoffs begun.
    pub handoffs: u64,
    /// Time out of reach of every cell, summed over the handoffs.
    pub outage_s: f64,
    /// Packets to or from the mobile lost to its handoffs: queued for a hop that stopped
    /// reaching it, on the air when it did, sent to the old base station before the
    /// routing update reached the gateway, sent by the mobile out of reach, or reaching a
    /// base station whose agent waited for the connection's state.
    pub handoff_drops: u64,
    /// Of those, packets carrying data.
    pub handoff_data_drops: u64,
}

/// The radios' energy over the run (the survey's §3.1; model and sources in
/// `wireless::energy`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergySummary {
    /// The power profile named in `[energy]` ("ns3" or "ns2"); the powers below are the
    /// ones used, overrides included.
    pub profile: String,
    pub transmit_w: f64,
    pub receive_w: f64,
    pub idle_w: f64,
    pub sleep_w: f64,
    /// Every node with a radio, by name: the end of a wireless link, a cell member.
    pub nodes: BTreeMap<String, NodeEnergy>,
    /// All radios' joules.
    pub total_j: f64,
    /// `total_j` per megabyte (10^6 bytes) delivered to the flows' receiving applications;
    /// absent when nothing was delivered.
    pub joules_per_mb: Option<f64>,
}

/// One node's radios: time and joules in each state.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NodeEnergy {
    pub transmit_s: f64,
    pub receive_s: f64,
    pub idle_s: f64,
    pub sleep_s: f64,
    pub transmit_j: f64,
    pub receive_j: f64,
    pub idle_j: f64,
    pub sleep_j: f64,
    pub total_j: f64,
    /// This node's joules per megabyte delivered to the flows' receiving applications (all
    /// flows); absent when nothing was delivered.
    pub joules_per_mb: Option<f64>,
}

/// Aggregates and fairness over a set of flows (a group, or every flow of the run).
///
/// Jain's fairness index over the flows' throughputs x₁..xₙ (Jain, Chiu & Hawe, DEC-TR-301,
/// 1984): (Σx)² / (n·Σx²), 1 when every flow gets the same, 1/n when one gets everything.
/// A flow's share is its fraction of the set's total throughput, so the mean share is 1/n
/// (the fair share) and `share_min` / `share_max` say how far the worst and best flows
/// stand from it. Index and shares are absent when no flow of the set delivered anything.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowSetSummary {
    /// Flows in the set.
    pub flows: u64,
    /// Of those, flows that delivered every byte.
    pub completed: u64,
    /// Of those, flows that `stalled` (see `FlowSummary::stalled`).
    pub stalled: u64,
    pub bytes_delivered: u64,
    /// The flows' `throughput_bps`: their sum, mean, least and greatest.
    pub throughput_bps_sum: f64,
    pub throughput_bps_mean: f64,
    pub throughput_bps_min: f64,
    pub throughput_bps_max: f64,
    /// Jain's fairness index over the flows' throughputs.
    pub jain_index: Option<f64>,
    /// The least, greatest and mean fraction of the set's total throughput a flow got.
    pub share_min: Option<f64>,
    pub share_max: Option<f64>,
    pub share_mean: Option<f64>,
    /// Retransmission timer expiries and retransmitted segments, summed over the flows.
    pub tcp_timeouts: u64,
    pub tcp_retransmits: u64,
}

impl FlowSetSummary {
    /// The aggregates of `flows`.
    pub fn of<'a>(flows: impl IntoIterator<Item = &'a FlowSummary>) -> Self {
        let mut s = FlowSetSummary {
            throughput_bps_min: f64::INFINITY,
            ..Default::default()
        };
        let mut squares = 0.0;
        for f in flows {
            let x = f.throughput_bps;
            s.flows += 1;
            s.completed += u64::from(f.completed);
            s.stalled += u64::from(f.stalled);
            s.bytes_delivered += f.bytes_delivered;
            s.throughput_bps_sum += x;
            s.throughput_bps_min = s.throughput_bps_min.min(x);
            s.throughput_bps_max = s.throughput_bps_max.max(x);
            squares += x * x;
            s.tcp_timeouts += f.tcp_timeouts;
            s.tcp_retransmits += f.tcp_retransmits;
        }
        if s.flows == 0 {
            s.throughput_bps_min = 0.0;
            return s;
        }
        let n = s.flows as f64;
        let sum = s.throughput_bps_sum;
        s.throughput_bps_mean = sum / n;
        if sum > 0.0 {
            s.jain_index = Some(sum * sum / (n * squares));
            s.share_min = Some(s.throughput_bps_min / sum);
            s.share_max = Some(s.throughput_bps_max / sum);
            s.share_mean = Some(1.0 / n);
        }
        s
    }
}

/// One group of flows.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSummary {
    pub name: String,
    /// The group is background traffic (`[[flow]]`'s `background`).
    pub background: bool,
    pub stats: FlowSetSummary,
}

/// The groups of a run, serialized as a table keyed by group name, in order of first
/// appearance: `{"background": {"background": true, "flows": 20, "jain_index": ...}}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Groups(pub Vec<GroupSummary>);

impl Groups {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The group called `name`.
    pub fn get(&self, name: &str) -> Option<&GroupSummary> {
        self.0.iter().find(|g| g.name == name)
    }
}

impl Serialize for Groups {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Entry<'a> {
            background: bool,
            #[serde(flatten)]
            stats: &'a FlowSetSummary,
        }
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for g in &self.0 {
            let entry = Entry {
                background: g.background,
                stats: &g.stats,
            };
            map.serialize_entry(&g.name, &entry)?;
        }
        map.end()
    }
}

/// The base-station agent's metrics (absent when `base_station.agent = "none"`): the
/// counters every agent keeps, and what only its kind measures (`own`).
///
/// In JSON every agent's summary has the same keys (the results store keeps them as
/// columns, `agent_<key>`): a key another kind of agent measures is null there, and
/// `notices_sent` / `dupacks_delayed` appear only for the agents that count them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentSummary {
    /// The agent's `kind`, e.g. "snoop".
    pub kind: String,
    /// Segments the agent sent again on its own (on duplicate ACKs, timers, persist).
    /// For I-TCP: the retransmissions of its TCP towards the mobile.
    pub local_retransmissions: u64,
    /// Duplicate ACKs from the mobile kept from the fixed host.
    pub suppressed_dupacks: u64,
    /// Expiries of the agent's retransmission timer that retransmitted (for I-TCP: the
    /// RTOs of its TCP towards the mobile).
    pub timer_expiries: u64,
    /// RTT samples the agent took of the wireless hop.
    pub rtt_samples: u64,
    /// Largest payload bytes held at once (Snoop: cache; WTCP: buffer; I-TCP: relay
    /// buffer), summed over connections.
    pub occupancy_max_bytes: u64,
    /// Time-weighted mean of that occupancy, from the first packet to the end of the run.
    pub occupancy_mean_bytes: f64,
    /// What only this kind of agent measures.
    pub own: AgentOwnMetrics,
}

/// The metrics only one kind of agent keeps.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AgentOwnMetrics {
    /// Nothing beyond the common counters.
    #[default]
    None,
    /// Snoop: retransmissions driven by the persist timer.
    Snoop { persist_retransmissions: u64 },
    /// WTCP: the mean time a segment spent at the base station, from its arrival to its
    /// last transmission to the mobile, and the longest.
    Wtcp {
        residence_mean_s: f64,
        residence_max_s: f64,
    },
    /// I-TCP and M-TCP: ACKs to the fixed host that advertised a zero window.
    ZeroWindows { zero_window_advertisements: u64 },
    /// LLE-TCP: the ARQ agent's and the ARQ clients' counters, summed.
    Lle(LleSummary),
    /// ELN: ACKs marked; EBSN: bad-state messages sent.
    Notices { notices_sent: u64 },
    /// DDA: duplicate ACKs held back (`suppressed_dupacks` of them were dropped when the
    /// hole filled, the others released when `d` expired).
    Dda { dupacks_delayed: u64 },
}

impl AgentSummary {
    /// Snoop's persist-timer retransmissions (`None` for the other agents).
    pub fn persist_retransmissions(&self) -> Option<u64> {
        match self.own {
            AgentOwnMetrics::Snoop {
                persist_retransmissions,
            } => Some(persist_retransmissions),
            _ => None,
        }
    }
    /// WTCP's mean residence time at the base station, in seconds.
    pub fn residence_mean_s(&self) -> Option<f64> {
        match self.own {
            AgentOwnMetrics::Wtcp {
                residence_mean_s, ..
            } => Some(residence_mean_s),
            _ => None,
        }
    }
    /// WTCP's longest residence time at the base station, in seconds.
    pub fn residence_max_s(&self) -> Option<f64> {
        match self.own {
            AgentOwnMetrics::Wtcp {
                residence_max_s, ..
            } => Some(residence_max_s),
            _ => None,
        }
    }
    /// I-TCP's and M-TCP's zero-window ACKs to the fixed host.
    pub fn zero_window_advertisements(&self) -> Option<u64> {
        match self.own {
            AgentOwnMetrics::ZeroWindows {
                zero_window_advertisements,
            } => Some(zero_window_advertisements),
            _ => None,
        }
    }
    /// LLE-TCP's counters.
    pub fn lle(&self) -> Option<&LleSummary> {
        match &self.own {
            AgentOwnMetrics::Lle(l) => Some(l),
            _ => None,
        }
    }
    /// ELN's marked ACKs, EBSN's bad-state messages.
    pub fn notices_sent(&self) -> Option<u64> {
        match self.own {
            AgentOwnMetrics::Notices { notices_sent } => Some(notices_sent),
            _ => None,
        }
    }
    /// DDA's duplicate ACKs held back.
    pub fn dupacks_delayed(&self) -> Option<u64> {
        match self.own {
            AgentOwnMetrics::Dda { dupacks_delayed } => Some(dupacks_delayed),
            _ => None,
        }
    }
}

impl Serialize for AgentSummary {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// The summary's JSON: the same keys for every kind (module notes above).
        #[derive(Serialize)]
        struct Columns<'a> {
            kind: &'a str,
            local_retransmissions: u64,
            suppressed_dupacks: u64,
            timer_expiries: u64,
            persist_retransmissions: Option<u64>,
            rtt_samples: u64,
            occupancy_max_bytes: u64,
            occupancy_mean_bytes: f64,
            residence_mean_s: Option<f64>,
            residence_max_s: Option<f64>,
            zero_window_advertisements: Option<u64>,
            lle: Option<&'a LleSummary>,
            #[serde(skip_serializing_if = "Option::is_none")]
            notices_sent: Option<u64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            dupacks_delayed: Option<u64>,
        }
        Columns {
            kind: &self.kind,
            local_retransmissions: self.local_retransmissions,
            suppressed_dupacks: self.suppressed_dupacks,
            timer_expiries: self.timer_expiries,
            persist_retransmissions: self.persist_retransmissions(),
            rtt_samples: self.rtt_samples,
            occupancy_max_bytes: self.occupancy_max_bytes,
            occupancy_mean_bytes: self.occupancy_mean_bytes,
            residence_mean_s: self.residence_mean_s(),
            residence_max_s: self.residence_max_s(),
            zero_window_advertisements: self.zero_window_advertisements(),
            lle: self.lle(),
            notices_sent: self.notices_sent(),
            dupacks_delayed: self.dupacks_delayed(),
        }
        .serialize(serializer)
    }
}

/// LLE-TCP's counters (Kliazovich et al. §3), summed over the ARQ agent and the clients.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LleSummary {
    /// Sequence-consuming segments (data, FIN) handed towards the MAC, for each of which an
    /// ACK was prepared (a retransmission counts again).
    pub acks_prepared: u64,
    /// ACKs generated locally and released on the MAC's `TxSuccess` (forwarded to the
    /// fixed host or delivered to the local TCP).
    pub acks_generated: u64,
    /// Prepared ACKs dropped because the MAC reported `TxFailure` for their segment.
    pub acks_dropped_on_failure: u64,
    /// Segments the ARQ agent handed back to the MAC after a `TxFailure`, to settle whether
    /// the receiver has them (`after_give_up = "resync"`).
    pub give_up_resends: u64,
    /// Standalone non-duplicate ACKs of the local / near-side TCP dropped (data and teardown
    /// phases).
    pub acks_suppressed: u64,
    /// Third ACKs of the three-way handshake dropped (establishment phase).
    pub handshake_acks_suppressed: u64,
    /// Standalone ACKs let through: duplicates, and zero-window or window-reopening ACKs
    /// (§3.3).
    pub acks_passed: u64,
    /// Piggybacked ACKs on data that acknowledged nothing new, set to the last generated
    /// ACK number (§3.2's suppression; `agents::lle` says why not by clearing the flag).
    pub piggybacked_acks_neutralised: u64,
    /// Pure TCP ACK frames (no payload, no SYN/FIN/RST) the cell's MACs put on the air,
    /// every transmission attempt counted, in both directions: what LLE-TCP removes.
    pub tcp_ack_frames_on_air: u64,
}

impl LleSummary {
    /// Adds another module's counters.
    pub fn add(&mut self, o: &LleSummary) {
        self.acks_prepared += o.acks_prepared;
        self.acks_generated += o.acks_generated;
        self.acks_dropped_on_failure += o.acks_dropped_on_failure;
        self.give_up_resends += o.give_up_resends;
        self.acks_suppressed += o.acks_suppressed;
        self.handshake_acks_suppressed += o.handshake_acks_suppressed;
        self.acks_passed += o.acks_passed;
        self.piggybacked_acks_neutralised += o.piggybacked_acks_neutralised;
        self.tcp_ack_frames_on_air += o.tcp_ack_frames_on_air;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flows(throughputs: &[f64]) -> Vec<FlowSummary> {
        throughputs
            .iter()
            .map(|&x| FlowSummary {
                name: String::new(),
                group: None,
                src: String::new(),
                dst: String::new(),
                variant: String::new(),
                cc: String::new(),
                rwnd_bytes: 0,
                bytes_total: 0,
                bytes_delivered: 0,
                completed: false,
                throughput_bps: x,
                completion_s: 0.0,
                last_delivery_s: None,
                longest_stall_s: 0.0,
                stalled: false,
                stall_threshold_s: 0.0,
                stall_cause: None,
                tcp_timeouts: 1,
                tcp_persist_probes: 0,
                tcp_fast_retransmits: 0,
                tcp_retransmits: 2,
                tcp_segments_sent: 0,
                delay_mean_s: 0.0,
                delay_std_s: 0.0,
                overhead_bytes: 0,
                tcp_ecn_reductions: 0,
                objects_completed: None,
                object_time_mean_s: None,
                object_time_median_s: None,
                object_time_max_s: None,
            })
            .collect()
    }

    #[test]
    fn jain_index_is_one_for_equal_shares_and_one_over_n_when_one_flow_takes_all() {
        let equal = FlowSetSummary::of(&flows(&[5.0, 5.0, 5.0, 5.0]));
        assert_eq!(equal.jain_index, Some(1.0));
        assert_eq!((equal.share_min, equal.share_max), (Some(0.25), Some(0.25)));
        let hog = FlowSetSummary::of(&flows(&[0.0, 0.0, 0.0, 8.0]));
        assert_eq!(hog.jain_index, Some(0.25));
        assert_eq!((hog.share_min, hog.share_max), (Some(0.0), Some(1.0)));
        assert_eq!(hog.share_mean, Some(0.25), "the fair share, 1/n");
    }

    #[test]
    fn jain_index_of_one_two_three_is_thirty_six_over_forty_two() {
        // (1 + 2 + 3)² / (3 · (1 + 4 + 9)) = 36 / 42 (Jain, Chiu & Hawe 1984, eq. 1).
        let s = FlowSetSummary::of(&flows(&[1.0, 2.0, 3.0]));
        assert!((s.jain_index.unwrap() - 36.0 / 42.0).abs() < 1e-15);
        assert_eq!(s.throughput_bps_sum, 6.0);
        assert_eq!(s.throughput_bps_mean, 2.0);
        assert_eq!((s.throughput_bps_min, s.throughput_bps_max), (1.0, 3.0));
        assert_eq!((s.tcp_timeouts, s.tcp_retransmits), (3, 6));
    }

    #[test]
    fn nothing_delivered_leaves_index_and_shares_absent() {
        let s = FlowSetSummary::of(&flows(&[0.0, 0.0]));
        assert_eq!((s.flows, s.jain_index, s.share_min), (2, None, None));
        let empty = FlowSetSummary::of(&flows(&[]));
        assert_eq!((empty.flows, empty.throughput_bps_min), (0, 0.0));
    }

    #[test]
    fn groups_serialize_as_a_table_keyed_by_name_in_order() {
        let g = |name: &str, background| GroupSummary {
            name: name.into(),
            background,
            stats: FlowSetSummary::of(&flows(&[1.0])),
        };
        let json =
            serde_json::to_string(&Groups(vec![g("zeta", true), g("alpha", false)])).unwrap();
        assert!(
            json.starts_with(r#"{"zeta":{"background":true,"flows":1,"#),
            "{json}"
        );
        assert!(json.find("zeta") < json.find("alpha"), "{json}");
    }
}

#[cfg(test)]
mod agent_summary_tests {
    use super::*;

    fn keys(own: AgentOwnMetrics) -> (Vec<String>, serde_json::Value) {
        let v = serde_json::to_value(AgentSummary {
            kind: "x".into(),
            own,
            ..AgentSummary::default()
        })
        .expect("serialises");
        let keys = v.as_object().expect("table").keys().cloned().collect();
        (keys, v)
    }

    /// Every kind writes the same columns (a store keeps them as `agent_<key>`): what
    /// another kind measures is null; ELN's, EBSN's and DDA's counters only where counted.
    #[test]
    fn every_kind_of_agent_summary_writes_the_same_columns() {
        let (common, none) = keys(AgentOwnMetrics::None);
        assert_eq!(common.len(), 12, "{common:?}");
        for (own, key, value) in [
            (
                AgentOwnMetrics::Snoop {
                    persist_retransmissions: 4,
                },
                "persist_retransmissions",
                serde_json::json!(4),
            ),
            (
                AgentOwnMetrics::Wtcp {
                    residence_mean_s: 0.5,
                    residence_max_s: 2.0,
                },
                "residence_max_s",
                serde_json::json!(2.0),
            ),
            (
                AgentOwnMetrics::ZeroWindows {
                    zero_window_advertisements: 7,
                },
                "zero_window_advertisements",
                serde_json::json!(7),
            ),
        ] {
            let (k, v) = keys(own);
            assert_eq!(k, common);
            assert_eq!(v[key], value);
            assert!(none[key].is_null());
        }
        let (k, v) = keys(AgentOwnMetrics::Dda { dupacks_delayed: 3 });
        assert_eq!(k.len(), common.len() + 1);
        assert_eq!(v["dupacks_delayed"], 3);
        let (_, v) = keys(AgentOwnMetrics::Notices { notices_sent: 9 });
        assert_eq!(v["notices_sent"], 9);
        assert!(v["lle"].is_null());
    }
}
