//! Observation without interference: per-channel accounting of new, redundant and
//! delivered data (the wireless goodput metrics of `experiments.md`), per-packet delay
//! statistics, and the opt-in column traces.
//!
//! Absent values are nulls in the traces, never sentinels: the `cwnd` trace's
//! `ssthresh_bytes` is null while ssthresh is unlimited (RFC 5681 §3.1's "arbitrarily
//! high" initial value, `u64::MAX` inside the sender), `wireless_tx`'s `offset` is null
//! for a frame that carries no stream data, and the `rtt` trace's `sample_s` is null on
//! the row a retransmission-timer backoff adds (its `rto_s` the backed-off RTO; `srtt_s`
//! and `rttvar_s` null too before the first sample), so a plotted RTO shows the backoff
//! through a long stall; the `cc` trace's estimates are null for a congestion control that
//! keeps no such quantity (`tcp::cc::CcMetrics`).

use crate::engine::{SimDuration, SimTime};
use crate::ids::FlowId;
use crate::metrics::{Column, TraceTable};
use crate::packet::{Control, Packet, SeqNumber};
use crate::ranges::RangeSet;
use crate::tcp::cc::CcMetrics;
use crate::tcp::TcpTraceEvent;

/// Maps 32-bit wire sequence numbers of one stream to 64-bit offsets (unwrapping across
/// 2^32), relative to the first sequence number seen.
#[derive(Clone, Copy, Debug, Default)]
struct Unwrapper {
    reference: Option<(SeqNumber, u64)>,
}

impl Unwrapper {
    fn offset(&mut self, seq: SeqNumber) -> u64 {
        match self.reference {
            None => {
                // Start far from zero so data a little before the first seen stays positive.
                let base = 1 << 40;
                self.reference = Some((seq, base));
                base
            }
            Some((ref_seq, ref_off)) => {
                let off = (ref_off as i64 + i64::from(seq.wrapping_diff(ref_seq))) as u64;
                if off > ref_off {
                    self.reference = Some((seq, off));
                }
                off
            }
        }
    }
}

/// What one channel knows of one flow's data: what it carried and what arrived intact.
#[derive(Clone, Debug, Default)]
struct FlowOnChannel {
    unwrap: Unwrapper,
    highest_sent: u64,
    received: RangeSet,
    passed_up: RangeSet,
}

/// Counters of the data crossing a channel, per the papers' definitions.
#[derive(Clone, Debug, Default)]
pub struct DataAccounting {
    flows: Vec<FlowOnChannel>,
    pub data_frames_sent: u64,
    pub data_frames_delivered: u64,
    /// Bytes (IP datagram + link overhead) of frames carrying nothing sent before.
    pub new_bytes_sent: u64,
    pub all_bytes_sent: u64,
    pub redundant_tx: u64,
    /// Data frames that did not reach their receiver intact (cells: collisions and errors).
    pub data_frames_lost: u64,
}

impl DataAccounting {
    pub fn new(flow_count: usize) -> Self {
        DataAccounting {
            flows: vec![FlowOnChannel::default(); flow_count],
            ..Default::default()
        }
    }

    /// Records a transmission of `packet` (`frame_bytes` on the wire) and its fate on a
    /// point-to-point link: `on_air`, then `on_received` and `on_passed_up` if it arrived,
    /// with the packet's range worked out once for the three.
    pub fn on_transmitted(&mut self, packet: &Packet, frame_bytes: u64, lost: bool) {
        let range = self.range(packet);
        self.air(packet, frame_bytes, range);
        if lost {
            if packet.tcp().is_some_and(|s| s.payload_len > 0) {
                self.data_frames_lost += 1;
            }
        } else {
            self.received(range);
            self.passed_up(packet, range);
        }
    }

    /// A transmission over the air of `packet` in a frame of `frame_bytes`.
    #[inline(never)]
    pub fn on_air(&mut self, packet: &Packet, frame_bytes: u64) {
        let range = self.range(packet);
        self.air(packet, frame_bytes, range);
    }

    /// The receiver got `packet` intact (later copies are redundant).
    pub fn on_received(&mut self, packet: &Packet) {
        let range = self.range(packet);
        self.received(range);
    }

    /// The receiving link layer passed `packet` up. Only data passed up for the first time
    /// counts as delivered: a redundant copy is not goodput (TULIP Table 1: no LL's achieved
    /// goodput, 0.814, falls short of its ideal 1 − PER, 0.834, by its redundant packets).
    #[inline(never)]
    pub fn on_passed_up(&mut self, packet: &Packet) {
        let range = self.range(packet);
        self.passed_up(packet, range);
    }

    /// `on_air` with `packet`'s range (`range`) known.
    #[inline(always)]
    fn air(&mut self, packet: &Packet, frame_bytes: u64, range: Option<Range>) {
        self.all_bytes_sent += frame_bytes;
        let Some((flow, start, end)) = range else {
            self.new_bytes_sent += frame_bytes;
            return;
        };
        let flow = &mut self.flows[flow];
        if end > flow.highest_sent {
            flow.highest_sent = end;
            self.new_bytes_sent += frame_bytes;
        }
        if packet.payload_len() > 0 {
            self.data_frames_sent += 1;
            if flow.received.contains(start, end) {
                self.redundant_tx += 1;
            }
        }
    }

    /// `on_received` with the packet's range known.
    #[inline(always)]
    fn received(&mut self, range: Option<Range>) {
        if let Some((flow, start, end)) = range {
            self.flows[flow].received.insert(start, end);
        }
    }

    /// `on_passed_up` with `packet`'s range (`range`) known.
    #[inline(always)]
    fn passed_up(&mut self, packet: &Packet, range: Option<Range>) {
        if packet.tcp().is_none_or(|s| s.payload_len == 0) {
            return;
        }
        if let Some((flow, start, end)) = range {
            let passed = &mut self.flows[flow].passed_up;
            if passed.contains(start, end) {
                return;
            }
            passed.insert(start, end);
        }
        self.data_frames_delivered += 1;
    }

    /// The flow index and unwrapped sequence range of a TCP packet occupying sequence space.
    fn range(&mut self, packet: &Packet) -> Option<Range> {
        let seg = packet.tcp()?;
        let len = u64::from(seg.seq_len());
        if len == 0 {
            return None;
        }
        let i = packet.flow.index();
        let start = self.flows.get_mut(i)?.unwrap.offset(seg.header.seq);
        Some((i, start, start + len))
    }
}

/// A TCP packet's flow index and unwrapped sequence range `[start, end)`.
type Range = (usize, u64, u64);

/// Running mean and variance (Welford), for per-packet delay.
#[derive(Clone, Copy, Debug, Default)]
pub struct Welford {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Welford {
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }
    pub fn mean(&self) -> f64 {
        self.mean
    }
    /// Population standard deviation.
    pub fn std(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            libm::sqrt(self.m2 / self.n as f64)
        }
    }
}

fn secs(d: SimDuration) -> f64 {
    d.as_secs_f64()
}

#[derive(Debug, Default)]
struct SeqColumns {
    time_s: Vec<f64>,
    flow: Vec<u32>,
    offset: Vec<u64>,
    len: Vec<u32>,
    retransmission: Vec<u8>,
    ack: Vec<u8>,
}

impl SeqColumns {
    fn push(&mut self, t: f64, flow: u32, offset: u64, len: u32, retransmission: bool, ack: bool) {
        self.time_s.push(t);
        self.flow.push(flow);
        self.offset.push(offset);
        self.len.push(len);
        self.retransmission.push(u8::from(retransmission));
        self.ack.push(u8::from(ack));
    }
}

#[derive(Debug, Default)]
struct CwndColumns {
    time_s: Vec<f64>,
    flow: Vec<u32>,
    cwnd_bytes: Vec<u64>,
    /// None while ssthresh is unlimited.
    ssthresh_bytes: Vec<Option<u64>>,
}

/// The `cc` trace: one row per change of a source's congestion-control state.
#[derive(Debug, Default)]
struct CcColumns {
    time_s: Vec<f64>,
    flow: Vec<u32>,
    cwnd_bytes: Vec<u64>,
    ssthresh_bytes: Vec<Option<u64>>,
    pacing_rate_bps: Vec<Option<u64>>,
    phase: Vec<u32>,
    bandwidth_bps: Vec<Option<u64>>,
    min_rtt_s: Vec<Option<f64>>,
    queue_segments: Vec<Option<f64>>,
    pacing_gain: Vec<Option<f64>>,
    alpha: Vec<Option<f64>>,
    beta: Vec<Option<f64>>,
    w_max_segments: Vec<Option<f64>>,
}

impl CcColumns {
    fn push(&mut self, t: f64, flow: u32, m: &CcMetrics) {
        let bps = |b: Option<u64>| b.map(|b| b.saturating_mul(8));
        self.time_s.push(t);
        self.flow.push(flow);
        self.cwnd_bytes.push(m.cwnd_bytes);
        self.ssthresh_bytes
            .push((m.ssthresh_bytes != u64::MAX).then_some(m.ssthresh_bytes));
        self.pacing_rate_bps.push(bps(m.pacing_rate_bytes_per_s));
        self.phase.push(m.phase.code());
        self.bandwidth_bps.push(bps(m.bandwidth_bytes_per_s));
        self.min_rtt_s.push(m.min_rtt.map(secs));
        self.queue_segments.push(m.queue_segments);
        self.pacing_gain.push(m.pacing_gain);
        self.alpha.push(m.alpha);
        self.beta.push(m.beta);
        self.w_max_segments.push(m.w_max_segments);
    }

    fn into_table(self) -> TraceTable {
        TraceTable::new(
            "cc",
            &[
                ("time_s", Column::F64(self.time_s)),
                ("flow", Column::U32(self.flow)),
                ("cwnd_bytes", Column::U64(self.cwnd_bytes)),
                ("ssthresh_bytes", Column::opt_u64(self.ssthresh_bytes)),
                ("pacing_rate_bps", Column::opt_u64(self.pacing_rate_bps)),
                ("phase", Column::U32(self.phase)),
                ("bandwidth_bps", Column::opt_u64(self.bandwidth_bps)),
                ("min_rtt_s", Column::opt_f64(self.min_rtt_s)),
                ("queue_segments", Column::opt_f64(self.queue_segments)),
                ("pacing_gain", Column::opt_f64(self.pacing_gain)),
                ("alpha", Column::opt_f64(self.alpha)),
                ("beta", Column::opt_f64(self.beta)),
                ("w_max_segments", Column::opt_f64(self.w_max_segments)),
            ],
        )
    }
}

#[derive(Debug, Default)]
struct RttColumns {
    time_s: Vec<f64>,
    flow: Vec<u32>,
    /// None on a backoff row.
    sample_s: Vec<Option<f64>>,
    /// None before the first sample.
    srtt_s: Vec<Option<f64>>,
    rttvar_s: Vec<Option<f64>>,
    rto_s: Vec<f64>,
}

impl RttColumns {
    fn push(
        &mut self,
        t: f64,
        flow: u32,
        sample: Option<f64>,
        srtt: Option<f64>,
        rttvar: f64,
        rto: f64,
    ) {
        self.time_s.push(t);
        self.flow.push(flow);
        self.sample_s.push(sample);
        self.srtt_s.push(srtt);
        self.rttvar_s.push(srtt.map(|_| rttvar));
        self.rto_s.push(rto);
    }
}

#[derive(Debug, Default)]
struct WirelessTxColumns {
    time_s: Vec<f64>,
    link: Vec<u32>,
    flow: Vec<u32>,
    packet_id: Vec<u64>,
    seq: Vec<u32>,
    offset: Vec<Option<u64>>,
    bytes: Vec<u32>,
    data: Vec<u8>,
    lost: Vec<u8>,
    /// Stream offsets of each (flow, sending address), for `offset`.
    streams: StreamOffsets,
}

/// The stream offset (0 = the first byte of data, as in the `seq` trace) of the TCP data a
/// frame carries, learnt per flow and sending address from the SYN seen crossing the link
/// (ISN + 1 is offset 0), or, when the SYN never crossed it, from the first data frame.
#[derive(Debug, Default)]
struct StreamOffsets {
    /// ((flow, source address), unwrapper, unwrapped position of offset 0); a short list
    /// searched in order (a handful of flows per link), so no hash order can matter.
    streams: Vec<((u32, u32), Unwrapper, Option<u64>)>,
}

impl StreamOffsets {
    fn offset(&mut self, packet: &Packet) -> Option<u64> {
        let seg = packet.tcp()?;
        let syn = seg.header.control == Control::Syn;
        if !syn && seg.payload_len == 0 {
            return None;
        }
        let key = (packet.flow.0, packet.ip.src.0);
        let i = match self.streams.iter().position(|(k, _, _)| *k == key) {
            Some(i) => i,
            None => {
                self.streams.push((key, Unwrapper::default(), None));
                self.streams.len() - 1
            }
        };
        let (_, unwrap, zero) = &mut self.streams[i];
        let at = unwrap.offset(seg.header.seq);
        if syn {
            zero.get_or_insert(at + 1);
            return None;
        }
        let zero = *zero.get_or_insert(at);
        Some(at.saturating_sub(zero))
    }
}

/// The opt-in traces of a run, as growing columns.
#[derive(Debug, Default)]
pub struct Traces {
    pub seq: bool,
    pub cwnd: bool,
    pub cc: bool,
    pub rtt: bool,
    pub wireless_tx: bool,
    /// Any of the traces the TCP endpoints feed (asked for every call into one).
    tcp: bool,
    seq_cols: SeqColumns,
    cwnd_cols: CwndColumns,
    cc_cols: CcColumns,
    rtt_cols: RttColumns,
    wtx_cols: WirelessTxColumns,
}

impl Traces {
    pub fn new(names: &[String]) -> Self {
        let has = |n: &str| names.iter().any(|x| x == n);
        Traces {
            seq: has("seq"),
            cwnd: has("cwnd"),
            cc: has("cc"),
            rtt: has("rtt"),
            wireless_tx: has("wireless_tx"),
            tcp: ["seq", "cwnd", "cc", "rtt"].iter().any(|n| has(n)),
            ..Default::default()
        }
    }

    #[inline]
    pub fn wants_tcp(&self) -> bool {
        self.tcp
    }

    pub fn on_tcp(&mut self, now: SimTime, flow: FlowId, ev: &TcpTraceEvent) {
        let t = now.as_secs_f64();
        match *ev {
            TcpTraceEvent::Send {
                offset,
                len,
                retransmission,
            } if self.seq => self
                .seq_cols
                .push(t, flow.0, offset, len, retransmission, false),
            TcpTraceEvent::Ack { offset } if self.seq => {
                self.seq_cols.push(t, flow.0, offset, 0, false, true)
            }
            TcpTraceEvent::Window { cwnd, ssthresh } if self.cwnd => {
                let c = &mut self.cwnd_cols;
                c.time_s.push(t);
                c.flow.push(flow.0);
                c.cwnd_bytes.push(cwnd);
                c.ssthresh_bytes
                    .push((ssthresh != u64::MAX).then_some(ssthresh));
            }
            TcpTraceEvent::Cc(ref m) if self.cc => self.cc_cols.push(t, flow.0, m),
            TcpTraceEvent::Rtt {
                sample,
                srtt,
                rttvar,
                rto,
            } if self.rtt => self.rtt_cols.push(
                t,
                flow.0,
                Some(secs(sample)),
                Some(secs(srtt)),
                secs(rttvar),
                secs(rto),
            ),
            TcpTraceEvent::RtoBackoff { srtt, rttvar, rto } if self.rtt => {
                self.rtt_cols
                    .push(t, flow.0, None, srtt.map(secs), secs(rttvar), secs(rto))
            }
            _ => {}
        }
    }

    /// A frame finished its transmission on a wireless-marked link.
    pub fn on_wireless_tx(&mut self, now: SimTime, link: u32, packet: &Packet, lost: bool) {
        let c = &mut self.wtx_cols;
        c.time_s.push(now.as_secs_f64());
        c.link.push(link);
        c.flow.push(packet.flow.0);
        c.packet_id.push(packet.id.0);
        c.seq
            .push(packet.tcp().map(|s| s.header.seq.0).unwrap_or(0));
        let offset = c.streams.offset(packet);
        c.offset.push(offset);
        c.bytes.push(packet.size_bytes());
        c.data.push(u8::from(packet.is_data()));
        c.lost.push(u8::from(lost));
    }

    /// The recorded traces as tables, in a fixed order.
    pub fn into_tables(self) -> Vec<TraceTable> {
        let mut out = Vec::new();
        if self.seq {
            let c = self.seq_cols;
            out.push(TraceTable::new(
                "seq",
                &[
                    ("time_s", Column::F64(c.time_s)),
                    ("flow", Column::U32(c.flow)),
                    ("offset", Column::U64(c.offset)),
                    ("len", Column::U32(c.len)),
                    ("retransmission", Column::Bool(c.retransmission)),
                    ("ack", Column::Bool(c.ack)),
                ],
            ));
        }
        if self.cwnd {
            let c = self.cwnd_cols;
            out.push(TraceTable::new(
                "cwnd",
                &[
                    ("time_s", Column::F64(c.time_s)),
                    ("flow", Column::U32(c.flow)),
                    ("cwnd_bytes", Column::U64(c.cwnd_bytes)),
                    ("ssthresh_bytes", Column::opt_u64(c.ssthresh_bytes)),
                ],
            ));
        }
        if self.cc {
            out.push(self.cc_cols.into_table());
        }
        if self.rtt {
            let c = self.rtt_cols;
            out.push(TraceTable::new(
                "rtt",
                &[
                    ("time_s", Column::F64(c.time_s)),
                    ("flow", Column::U32(c.flow)),
                    ("sample_s", Column::opt_f64(c.sample_s)),
                    ("srtt_s", Column::opt_f64(c.srtt_s)),
                    ("rttvar_s", Column::opt_f64(c.rttvar_s)),
                    ("rto_s", Column::F64(c.rto_s)),
                ],
            ));
        }
        if self.wireless_tx {
            let c = self.wtx_cols;
            out.push(TraceTable::new(
                "wireless_tx",
                &[
                    ("time_s", Column::F64(c.time_s)),
                    ("link", Column::U32(c.link)),
                    ("flow", Column::U32(c.flow)),
                    ("packet_id", Column::U64(c.packet_id)),
                    ("seq", Column::U32(c.seq)),
                    ("offset", Column::opt_u64(c.offset)),
                    ("bytes", Column::U32(c.bytes)),
                    ("data", Column::Bool(c.data)),
                    ("lost", Column::Bool(c.lost)),
                ],
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unwrapper_crosses_the_32_bit_wrap() {
        let mut u = Unwrapper::default();
        let a = u.offset(SeqNumber(u32::MAX - 99));
        let b = u.offset(SeqNumber(u32::MAX - 99) + 1000);
        assert_eq!(b - a, 1000);
        let c = u.offset(SeqNumber(u32::MAX - 99) + 500);
        assert_eq!(c - a, 500);
    }

    /// A segment of flow `flow` at sequence number `seq` with `len` payload bytes (a SYN
    /// when `syn`).
    fn segment(flow: u32, seq: u32, len: u32, syn: bool) -> Packet {
        use crate::packet::{
            Ecn, Ipv4Addr, Ipv4Header, PacketId, Service, TcpHeader, TcpOptions, TcpSegment,
            Transport, DEFAULT_TTL, PROTO_TCP,
        };
        let mut p = Packet {
            id: PacketId(0),
            origin_time: SimTime::ZERO,
            ip: Ipv4Header {
                src: Ipv4Addr(0x0A00_0001),
                dst: Ipv4Addr(0x0A00_0003),
                protocol: PROTO_TCP,
                ttl: DEFAULT_TTL,
                total_len: 0,
                ident: 0,
                ecn: Ecn::NotEct,
            },
            transport: Transport::Tcp(TcpSegment {
                header: TcpHeader {
                    src_port: 49152,
                    dst_port: 5001,
                    seq: SeqNumber(seq),
                    ack: Some(SeqNumber(1)),
                    control: if syn { Control::Syn } else { Control::None },
                    window: 64_000,
                    options: TcpOptions::default(),
                    ece: false,
                    cwr: false,
                    sender_in_slow_start: false,
                },
                payload_len: len,
            }),
            flow: FlowId(flow),
            service: Service::Reliable,
        };
        p.fix_length();
        p
    }

    fn counters(a: &DataAccounting) -> [u64; 6] {
        [
            a.data_frames_sent,
            a.data_frames_delivered,
            a.new_bytes_sent,
            a.all_bytes_sent,
            a.redundant_tx,
            a.data_frames_lost,
        ]
    }

    /// `on_transmitted` (the range worked out once) counts what `on_air`, `on_received` and
    /// `on_passed_up` count one after the other: over in-order data, losses, retransmissions
    /// of delivered and of lost data, pure ACKs, SYNs, and a flow the accounting does not
    /// know.
    #[test]
    fn on_transmitted_counts_as_its_three_steps() {
        let mut rng = crate::engine::RngStream::derive(7, "accounting");
        let (mut fused, mut steps) = (DataAccounting::new(2), DataAccounting::new(2));
        let mut sent = [u32::MAX - 5_000; 3];
        for i in 0..5_000u32 {
            let flow = (rng.next_u64() % 3) as u32;
            let len = [0, 100, 100, 40][(rng.next_u64() % 4) as usize];
            let back = (rng.next_u64() % 8) as u32 * 100;
            let seq = if rng.next_u64().is_multiple_of(3) {
                sent[flow as usize].wrapping_sub(back)
            } else {
                sent[flow as usize]
            };
            sent[flow as usize] = seq.wrapping_add(len);
            let p = segment(flow, seq, len, i.is_multiple_of(1_000));
            let lost = rng.next_u64().is_multiple_of(5);
            let frame_bytes = u64::from(p.size_bytes()) + 10;
            fused.on_transmitted(&p, frame_bytes, lost);
            steps.on_air(&p, frame_bytes);
            if lost && p.tcp().is_some_and(|s| s.payload_len > 0) {
                steps.data_frames_lost += 1;
            }
            if !lost {
                steps.on_received(&p);
                steps.on_passed_up(&p);
            }
            assert_eq!(counters(&fused), counters(&steps), "after frame {i}");
        }
        assert!(fused.redundant_tx > 0 && fused.data_frames_lost > 0);
        assert!(fused.data_frames_delivered > 0 && fused.new_bytes_sent < fused.all_bytes_sent);
    }

    #[test]
    fn welford_matches_the_textbook_formula() {
        let mut w = Welford::default();
        for x in [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0] {
            w.push(x);
        }
        assert!((w.mean() - 5.0).abs() < 1e-12);
        assert!((w.std() - 2.0).abs() < 1e-12);
    }
}
