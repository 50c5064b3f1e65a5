//! Scripted tests of the TCP endpoint, read against the RFCs.
//!
//! `Scripted` drives one endpoint with hand-written peer segments (the peer's ISN is
//! `PEER_ISN`, the peer's window is large unless a test sets it); `Pair` connects two
//! endpoints back to back through two FIFO links with a fixed rate and delay and can drop
//! chosen segments. Segment sizes are 1000 bytes so offsets read as segment numbers.

mod cc;
mod knobs;
mod mobility;
mod notices;
mod receiver;
mod sack;
mod sender;
mod timer;
mod transfer;

use std::collections::{BTreeMap, VecDeque};

use super::api::*;
use super::cc::CcOptions;
use super::connection::TcpConnection;
use super::spec::{AckPolicy, InitialWindow, RttEstimator, SsthreshRule, TcpVariant, TsEcho};
use crate::engine::{SimDuration, SimTime};
use crate::packet::{Control, Ipv4Addr, SeqNumber, TcpHeader, TcpOptions, TcpSegment};

pub const MSS: u32 = 1000;
pub const ISN: u32 = 5_000;
pub const PEER_ISN: u32 = 90_000;
pub const PEER_TSVAL: u32 = 7;

pub fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}
pub fn at_ms(n: u64) -> SimTime {
    SimTime::ZERO + ms(n)
}

/// A configuration with 1000-byte segments, IW 1, a fine 1 ms clock and RFC 6298 bounds.
pub fn config(variant: TcpVariant) -> TcpConfig {
    TcpConfig {
        local_addr: Ipv4Addr::for_node(0),
        local_port: 1000,
        remote_addr: Ipv4Addr::for_node(1),
        remote_port: 2000,
        recovery: variant.recovery(),
        cc: variant.cc(),
        cc_options: CcOptions::default(),
        mss: MSS,
        rwnd_bytes: 1_000_000,
        initial_window: InitialWindow::Segments(1),
        initial_ssthresh_bytes: None,
        dupack_threshold: 3,
        fast_retransmit_after_timeout: false,
        sack: variant.recovery().uses_sack(),
        dsack: false,
        limited_transmit: false,
        prr: false,
        rack: false,
        keep_sack_after_timeout: false,
        ecn: false,
        max_backoff: None,
        eln: false,
        ebsn: false,
        timer_granularity: ms(1),
        rtt_estimator: RttEstimator::Rfc6298,
        ssthresh_rule: SsthreshRule::Rfc5681,
        initial_rto: SimDuration::from_secs(1),
        min_rto: SimDuration::from_secs(1),
        max_rto: SimDuration::from_secs(60),
        timestamps: false,
        ts_echo: TsEcho::Recent,
        ack_policy: AckPolicy::Every,
        delack_timeout: ms(200),
        isn: ISN,
        trace: false,
    }
}

/// A segment from the scripted peer.
pub fn peer_segment(
    seq: SeqNumber,
    ack: Option<SeqNumber>,
    control: Control,
    window: u32,
    payload_len: u32,
) -> TcpSegment {
    TcpSegment {
        header: TcpHeader {
            src_port: 2000,
            dst_port: 1000,
            seq,
            ack,
            control,
            window,
            options: TcpOptions {
                mss: (control == Control::Syn).then_some(MSS as u16),
                ..TcpOptions::default()
            },
            ece: false,
            cwr: false,
            sender_in_slow_start: false,
        },
        payload_len,
    }
}

/// A data segment as the tests compare them: (segment number = offset / MSS, retransmission?).
pub type Seg = (u64, bool);

/// One endpoint driven by a scripted peer.
pub struct Scripted {
    pub conn: TcpConnection,
    pub now: SimTime,
    pub peer_window: u32,
    /// Everything the endpoint emitted on the last step.
    pub out: TcpOutbox,
    /// TSecr the peer echoes in its ACKs (timestamps in use when `Some`).
    pub ts_echo: Option<u32>,
}

impl Scripted {
    /// An active opener whose SYN is answered after `rtt`.
    pub fn established(cfg: TcpConfig, rtt: SimDuration) -> Self {
        let mut s = Scripted {
            conn: TcpConnection::new(cfg),
            now: SimTime::ZERO,
            peer_window: 1_000_000,
            out: TcpOutbox::default(),
            ts_echo: None,
        };
        s.conn.connect(s.now, &mut s.out);
        assert_eq!(s.conn.state(), TcpState::SynSent);
        let syn_ts = s.out.segments[0].segment.header.options.timestamp;
        s.now += rtt;
        let mut synack = peer_segment(
            SeqNumber(PEER_ISN),
            Some(SeqNumber(ISN) + 1),
            Control::Syn,
            s.peer_window,
            0,
        );
        if let Some((tsval, _)) = syn_ts {
            synack.header.options.timestamp = Some((PEER_TSVAL, tsval));
            s.ts_echo = Some(tsval);
        }
        // The scripted peer agrees to SACK and ECN whenever the SYN offers them.
        let syn = s.out.segments[0].segment.header;
        synack.header.options.sack_permitted = syn.options.sack_permitted;
        synack.header.ece = syn.ece && syn.cwr;
        s.deliver(synack);
        assert_eq!(s.conn.state(), TcpState::Established);
        s
    }

    pub fn at(&mut self, t: SimTime) -> &mut Self {
        self.now = t;
        self
    }

    fn deliver(&mut self, seg: TcpSegment) {
        self.out.clear();
        self.conn
            .on_segment(self.now, &seg, self.now, &mut self.out);
    }

    /// The application writes `bytes`; returns the data segments sent.
    pub fn write(&mut self, bytes: u64) -> Vec<Seg> {
        self.out.clear();
        self.conn.app_write(self.now, bytes, &mut self.out);
        self.sent()
    }

    /// A pure ACK from the peer up to stream offset `offset`; returns the data segments sent.
    pub fn ack(&mut self, offset: u64) -> Vec<Seg> {
        self.ack_with(offset, |_| {})
    }

    /// An ACK up to stream offset `offset` carrying SACK blocks `[start, end)` (stream
    /// offsets); returns the data segments sent.
    pub fn sack(&mut self, offset: u64, blocks: &[(u64, u64)]) -> Vec<Seg> {
        self.ack_with(offset, |h| {
            let first = SeqNumber(ISN) + 1;
            for &(start, end) in blocks {
                h.options
                    .sack_blocks
                    .push((first + start as u32, first + end as u32));
            }
        })
    }

    /// An ACK up to `offset` with ECN-Echo set; returns the data segments sent.
    pub fn ack_ece(&mut self, offset: u64) -> Vec<Seg> {
        self.ack_with(offset, |h| h.ece = true)
    }

    /// An ACK up to `offset`, its header adjusted by `edit`.
    pub fn ack_with(&mut self, offset: u64, edit: impl FnOnce(&mut TcpHeader)) -> Vec<Seg> {
        let ack = SeqNumber(ISN) + 1 + offset as u32;
        let mut seg = peer_segment(
            SeqNumber(PEER_ISN) + 1,
            Some(ack),
            Control::None,
            self.peer_window,
            0,
        );
        seg.header.options.timestamp = self.ts_echo.map(|ecr| (PEER_TSVAL, ecr));
        edit(&mut seg.header);
        self.deliver(seg);
        self.sent()
    }

    /// `n` duplicate ACKs for `offset`; returns what each one made the sender send.
    pub fn dupacks(&mut self, offset: u64, n: usize) -> Vec<Vec<Seg>> {
        (0..n).map(|_| self.ack(offset)).collect()
    }

    /// Advances to the next deadline and fires it; returns the data segments sent.
    pub fn fire(&mut self) -> Vec<Seg> {
        self.now = self.conn.poll_timeout().expect("a timer is armed");
        self.out.clear();
        self.conn.on_timeout(self.now, &mut self.out);
        self.sent()
    }

    /// The data segments of the last step.
    pub fn sent(&self) -> Vec<Seg> {
        self.out
            .segments
            .iter()
            .filter(|s| s.segment.payload_len > 0)
            .map(|s| {
                let off = s.segment.header.seq - (SeqNumber(ISN) + 1);
                assert_eq!(off % MSS, 0, "segments in these tests are MSS-aligned");
                (u64::from(off / MSS), s.is_retransmission)
            })
            .collect()
    }

    pub fn cwnd(&self) -> u64 {
        self.conn.congestion_window().cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.conn.congestion_window().ssthresh
    }
}

/// New segments `from..to` (segment numbers), none retransmitted.
pub fn new_segs(from: u64, to: u64) -> Vec<Seg> {
    (from..to).map(|i| (i, false)).collect()
}

/// One direction of the back-to-back harness: FIFO, `rate_bps`, fixed delay.
#[derive(Default)]
struct Wire {
    queue: VecDeque<(SimTime, OutSegment)>,
    free_at: SimTime,
}

/// Which side sent a segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

/// Decides whether a segment is lost (see `Pair::drop`).
pub type DropRule = dyn FnMut(Side, &OutSegment, u32) -> bool;

/// Two endpoints connected back to back: A connects and sends `bytes`, B listens.
pub struct Pair {
    pub a: TcpConnection,
    pub b: TcpConnection,
    pub now: SimTime,
    pub delay: SimDuration,
    pub rate_bps: u64,
    wires: [Wire; 2],
    /// Decides whether a segment is lost: (sender, the segment, how many times a segment
    /// with the same sequence number and length was sent before by that side).
    pub drop: Box<DropRule>,
    /// Transmissions so far per (side, seq, len, control).
    sent_before: BTreeMap<(u8, u32, u32, u8), u32>,
    pub delivered_to_b: Vec<Delivery>,
    pub delivered_to_a: Vec<Delivery>,
    pub states_a: Vec<TcpState>,
    pub states_b: Vec<TcpState>,
    /// Every segment sent, with the side and time.
    pub log: Vec<(SimTime, Side, OutSegment)>,
}

impl Pair {
    pub fn new(a_cfg: TcpConfig, mut b_cfg: TcpConfig) -> Self {
        b_cfg.local_port = a_cfg.remote_port;
        b_cfg.remote_port = a_cfg.local_port;
        let mut b = TcpConnection::new(b_cfg);
        b.listen();
        Pair {
            a: TcpConnection::new(a_cfg),
            b,
            now: SimTime::ZERO,
            delay: ms(20),
            rate_bps: 10_000_000,
            wires: [Wire::default(), Wire::default()],
            drop: Box::new(|_, _, _| false),
            sent_before: BTreeMap::new(),
            delivered_to_b: Vec::new(),
            delivered_to_a: Vec::new(),
            states_a: vec![TcpState::Closed],
            states_b: vec![TcpState::Listen],
            log: Vec::new(),
        }
    }

    /// Connects, writes `bytes` at A and closes A at time zero (a bulk transfer), and runs
    /// until both are finished or `limit` of simulated time has passed.
    pub fn transfer(&mut self, bytes: u64, limit: SimDuration) {
        self.connect();
        self.write(Side::A, bytes);
        self.close(Side::A);
        self.run(limit);
    }

    pub fn connect(&mut self) {
        let mut out = TcpOutbox::default();
        self.a.connect(self.now, &mut out);
        self.absorb(Side::A, &mut out);
    }
    pub fn write(&mut self, side: Side, bytes: u64) {
        let mut out = TcpOutbox::default();
        let now = self.now;
        self.endpoint(side).app_write(now, bytes, &mut out);
        self.absorb(side, &mut out);
    }
    pub fn close(&mut self, side: Side) {
        let mut out = TcpOutbox::default();
        let now = self.now;
        self.endpoint(side).app_close(now, &mut out);
        self.absorb(side, &mut out);
    }

    /// Calls into one endpoint from outside (a hook such as `send_acks`), then sends what
    /// it emitted.
    pub fn call(
        &mut self,
        side: Side,
        f: impl FnOnce(&mut TcpConnection, SimTime, &mut TcpOutbox),
    ) {
        let mut out = TcpOutbox::default();
        let now = self.now;
        f(self.endpoint(side), now, &mut out);
        self.absorb(side, &mut out);
    }

    /// Runs until both endpoints are finished.
    pub fn run(&mut self, limit: SimDuration) {
        self.run_until(|p| p.a.is_finished() && p.b.is_finished(), limit);
    }

    /// Runs until `done` holds, nothing is left to do, or `limit` has passed.
    pub fn run_until(&mut self, done: impl Fn(&Pair) -> bool, limit: SimDuration) {
        let mut out = TcpOutbox::default();
        let end = SimTime::ZERO + limit;
        while !done(self) && self.now < end {
            if !self.step(&mut out) {
                break;
            }
        }
    }

    /// Processes the earliest event; false if there is none.
    fn step(&mut self, out: &mut TcpOutbox) -> bool {
        let arrivals = [0, 1].map(|i| self.wires[i].queue.front().map(|(t, _)| *t));
        let timers = [self.a.poll_timeout(), self.b.poll_timeout()];
        let next = arrivals
            .iter()
            .chain(timers.iter())
            .flatten()
            .min()
            .copied();
        let Some(t) = next else { return false };
        self.now = t;
        for (i, side) in [(0, Side::A), (1, Side::B)] {
            if arrivals[i] == Some(t) {
                let (_, seg) = self.wires[i].queue.pop_front().expect("front");
                let to = self.endpoint(side.other());
                to.on_segment(t, &seg.segment, seg.origin_time, out);
                self.absorb(side.other(), out);
                return true;
            }
        }
        for (i, side) in [(0, Side::A), (1, Side::B)] {
            if timers[i] == Some(t) {
                self.endpoint(side).on_timeout(t, out);
                self.absorb(side, out);
                return true;
            }
        }
        unreachable!("the earliest event is an arrival or a timer")
    }

    fn endpoint(&mut self, side: Side) -> &mut TcpConnection {
        match side {
            Side::A => &mut self.a,
            Side::B => &mut self.b,
        }
    }

    /// Takes one endpoint's outbox: deliveries, states, segments onto its wire.
    fn absorb(&mut self, side: Side, out: &mut TcpOutbox) {
        let (delivered, states, state) = match side {
            Side::A => (&mut self.delivered_to_a, &mut self.states_a, self.a.state()),
            Side::B => (&mut self.delivered_to_b, &mut self.states_b, self.b.state()),
        };
        delivered.extend_from_slice(&out.delivered);
        if states.last() != Some(&state) {
            states.push(state);
        }
        for seg in out.segments.drain(..) {
            self.log.push((self.now, side, seg));
            let h = &seg.segment.header;
            let key = (
                side as u8,
                h.seq.0,
                seg.segment.payload_len,
                h.control as u8,
            );
            let count = self.sent_before.entry(key).or_insert(0);
            let times = *count;
            *count += 1;
            if (self.drop)(side, &seg, times) {
                continue;
            }
            let bytes = 20 + seg.segment.header.header_len() + seg.segment.payload_len;
            let wire = &mut self.wires[side as usize];
            let tx = SimDuration::transmission(u64::from(bytes) * 8, self.rate_bps);
            wire.free_at = wire.free_at.max(self.now) + tx;
            wire.queue.push_back((wire.free_at + self.delay, seg));
        }
        out.clear();
    }

    /// Asserts that `deliveries` cover 0..bytes exactly once, in order.
    pub fn assert_in_order_once(deliveries: &[Delivery], bytes: u64) {
        let mut next = 0;
        for d in deliveries {
            assert_eq!(d.offset, next, "delivery out of order or duplicated: {d:?}");
            assert!(d.len > 0);
            next += u64::from(d.len);
        }
        assert_eq!(next, bytes, "not every byte was delivered");
    }
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}
