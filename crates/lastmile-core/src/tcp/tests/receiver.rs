//! The receiver: reassembly, duplicates, the delayed-ACK policy and the advertised window.

use super::*;

/// A passive endpoint after the handshake, fed data by a scripted client.
struct Rx {
    conn: TcpConnection,
    now: SimTime,
    out: TcpOutbox,
    /// The TSval the client puts on its segments (timestamps in use when `Some`).
    tsval: Option<u32>,
}

impl Rx {
    fn new(cfg: TcpConfig) -> Self {
        let cfg_timestamps = cfg.timestamps;
        let (cfg_sack, cfg_ecn) = (cfg.sack, cfg.ecn);
        let mut rx = Rx {
            conn: TcpConnection::new(cfg),
            now: SimTime::ZERO,
            out: TcpOutbox::default(),
            tsval: cfg_timestamps.then_some(1),
        };
        rx.conn.listen();
        assert_eq!(rx.conn.state(), TcpState::Listen);
        let mut syn = peer_segment(SeqNumber(PEER_ISN), None, Control::Syn, 1_000_000, 0);
        syn.header.options.timestamp = rx.tsval.map(|v| (v, 0));
        // The scripted client offers SACK and ECN when the endpoint does.
        syn.header.options.sack_permitted = cfg_sack;
        (syn.header.ece, syn.header.cwr) = (cfg_ecn, cfg_ecn);
        rx.feed(syn);
        assert_eq!(rx.conn.state(), TcpState::SynReceived);
        let synack = rx.out.segments[0].segment.header;
        assert_eq!(synack.control, Control::Syn);
        assert_eq!(synack.ack, Some(SeqNumber(PEER_ISN) + 1));
        assert_eq!(synack.options.mss, Some(MSS as u16));
        rx.now = at_ms(10);
        rx.bytes(0, 0, SimTime::ZERO);
        assert_eq!(rx.conn.state(), TcpState::Established);
        rx
    }

    fn feed(&mut self, seg: TcpSegment) {
        self.out.clear();
        let origin = self.now;
        self.conn.on_segment(self.now, &seg, origin, &mut self.out);
    }

    /// Client bytes [offset, offset + len) with the given origin time; returns the ACK
    /// (as a stream offset) if one was sent.
    fn bytes(&mut self, offset: u64, len: u32, origin: SimTime) -> Option<u64> {
        let seq = SeqNumber(PEER_ISN) + 1 + offset as u32;
        let mut seg = peer_segment(seq, Some(SeqNumber(ISN) + 1), Control::None, 1_000_000, len);
        seg.header.options.timestamp = self.tsval.map(|v| (v, 0));
        self.out.clear();
        self.conn.on_segment(self.now, &seg, origin, &mut self.out);
        self.ack_sent()
    }

    /// Segment `i` with the IP header's CE (`ce`) and the TCP CWR flag (`cwr`); the ACK's
    /// ECE flag, if one was sent.
    fn seg_marked(&mut self, i: u64, ce: bool, cwr: bool) -> Option<bool> {
        self.data(i, ce, |h| h.cwr = cwr);
        self.out.segments.last().map(|s| s.segment.header.ece)
    }

    /// Segment `i` (MSS bytes, origin now), CE as given, its header edited by `edit`.
    fn data(&mut self, i: u64, ce: bool, edit: impl FnOnce(&mut TcpHeader)) {
        let seq = SeqNumber(PEER_ISN) + 1 + (i * 1000) as u32;
        let mut seg = peer_segment(
            seq,
            Some(SeqNumber(ISN) + 1),
            Control::None,
            1_000_000,
            1000,
        );
        edit(&mut seg.header);
        self.out.clear();
        self.conn
            .on_segment_marked(self.now, &seg, ce, self.now, &mut self.out);
    }

    /// Segment `i` (MSS bytes), its origin time = now.
    fn seg(&mut self, i: u64) -> Option<u64> {
        self.bytes(i * u64::from(MSS), MSS, self.now)
            .map(|a| a / u64::from(MSS))
    }

    fn ack_sent(&self) -> Option<u64> {
        let acks: Vec<_> = self.out.segments.iter().map(|s| s.segment.header).collect();
        assert!(acks.len() <= 1, "one ACK per event at most");
        acks.first()
            .map(|h| u64::from(h.ack.expect("ACK flag") - (SeqNumber(PEER_ISN) + 1)))
    }

    /// The SACK blocks of the ACK sent, in segments of the client's stream.
    fn blocks(&self) -> Vec<(u64, u64)> {
        let first = SeqNumber(PEER_ISN) + 1;
        let h = self.out.segments.last().expect("an ACK").segment.header;
        h.options
            .sack_blocks
            .as_slice()
            .iter()
            .map(|&(l, r)| (u64::from(l - first) / 1000, u64::from(r - first) / 1000))
            .collect()
    }

    fn window_sent(&self) -> u32 {
        self.out.segments[0].segment.header.window
    }

    fn fire(&mut self) -> Option<u64> {
        self.now = self.conn.poll_timeout().expect("a timer");
        self.out.clear();
        self.conn.on_timeout(self.now, &mut self.out);
        self.ack_sent().map(|a| a / u64::from(MSS))
    }
}

fn delayed() -> TcpConfig {
    let mut cfg = config(TcpVariant::Reno);
    cfg.ack_policy = AckPolicy::Delayed;
    cfg
}

#[test]
fn ack_every_segment_policy_acks_each_arrival() {
    let mut rx = Rx::new(config(TcpVariant::Reno));
    assert_eq!(rx.seg(0), Some(1));
    assert_eq!(rx.seg(1), Some(2));
    assert_eq!(
        rx.conn.stats().acks_sent,
        2,
        "the SYN-ACK is not counted as a pure ACK"
    );
    assert_eq!(rx.conn.poll_timeout(), None);
}

#[test]
fn rfc5681_delayed_ack_one_per_two_full_segments_and_a_timer_for_one() {
    let mut rx = Rx::new(delayed());
    rx.now = at_ms(100);
    assert_eq!(rx.seg(0), None, "the first segment waits");
    assert_eq!(rx.conn.poll_timeout(), Some(at_ms(300)));
    rx.now = at_ms(110);
    assert_eq!(
        rx.seg(1),
        Some(2),
        "the second is ACKed at once, covering both"
    );
    assert_eq!(rx.conn.poll_timeout(), None);
    rx.now = at_ms(200);
    assert_eq!(rx.seg(2), None);
    assert_eq!(
        rx.fire(),
        Some(3),
        "a lone segment is ACKed when the timer expires"
    );
    assert_eq!(rx.now, at_ms(400));
}

#[test]
fn rfc5681_delayed_ack_is_immediate_out_of_order_and_when_a_hole_fills() {
    let mut rx = Rx::new(delayed());
    assert_eq!(rx.seg(0), None);
    assert_eq!(
        rx.seg(2),
        Some(1),
        "out of order: an immediate duplicate ACK"
    );
    assert_eq!(
        rx.conn.poll_timeout(),
        None,
        "that ACK covered segment 0 too"
    );
    assert_eq!(rx.seg(1), Some(3), "filling the hole: an immediate ACK");
    assert_eq!(rx.seg(3), None, "in order again: delayed");
    assert_eq!(rx.seg(3), Some(4), "a duplicate: immediate");
}

#[test]
fn reassembly_releases_held_segments_in_order_exactly_once() {
    let mut rx = Rx::new(config(TcpVariant::Reno));
    let at = |i: u64| at_ms(100 + i);
    rx.now = at(0);
    assert_eq!(rx.seg(0), Some(1));
    for (i, expected_ack) in [(2, 1), (4, 1), (2, 1), (3, 1)] {
        rx.now = at(i);
        assert_eq!(rx.seg(i), Some(expected_ack));
        assert!(rx.out.delivered.is_empty());
    }
    assert_eq!(rx.conn.bytes_held_out_of_order(), 3000);
    rx.now = at(1);
    assert_eq!(rx.seg(1), Some(5));
    let delivered: Vec<_> = rx
        .out
        .delivered
        .iter()
        .map(|d| (d.offset, d.len, d.origin_time))
        .collect();
    assert_eq!(
        delivered,
        vec![
            (1000, 1000, at(1)),
            (2000, 1000, at(2)),
            (3000, 1000, at(3)),
            (4000, 1000, at(4)),
        ],
        "each held segment keeps the origin time it arrived with"
    );
    assert_eq!(rx.conn.bytes_held_out_of_order(), 0);
    assert_eq!(rx.seg(0), Some(5), "old data: re-ACKed, not delivered");
    assert!(rx.out.delivered.is_empty());
    assert_eq!(rx.conn.stats().bytes_delivered, 5000);
}

#[test]
fn overlapping_segments_are_trimmed_and_each_byte_delivered_once() {
    let mut rx = Rx::new(config(TcpVariant::Reno));
    let (o1, o2, o3) = (at_ms(1), at_ms(2), at_ms(3));
    rx.bytes(0, 1000, SimTime::ZERO);
    assert_eq!(rx.bytes(2000, 1000, o1), Some(1000));
    assert_eq!(
        rx.bytes(2500, 1500, o2),
        Some(1000),
        "only [3000, 4000) is new"
    );
    assert_eq!(rx.conn.bytes_held_out_of_order(), 2000);
    assert_eq!(rx.bytes(1000, 1600, o3), Some(4000));
    let delivered: Vec<_> = rx
        .out
        .delivered
        .iter()
        .map(|d| (d.offset, d.len, d.origin_time))
        .collect();
    assert_eq!(
        delivered,
        vec![(1000, 1600, o3), (2600, 400, o1), (3000, 1000, o2)]
    );
}

#[test]
fn rfc9293_advertised_window_never_shrinks_while_a_hole_is_open() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.rwnd_bytes = 10_000;
    let mut rx = Rx::new(cfg);
    assert_eq!(rx.seg(0), Some(1));
    assert_eq!(rx.window_sent(), 10_000);
    // Segment 1 is missing; 2..=10 are held: the right edge stays at 11000, so every
    // duplicate ACK carries the same window.
    for i in 2..=10 {
        assert_eq!(rx.seg(i), Some(1));
        assert_eq!(rx.window_sent(), 10_000);
    }
    assert_eq!(rx.conn.bytes_held_out_of_order(), 9000);
    // Segment 11 is beyond the buffer: dropped and answered.
    assert_eq!(rx.seg(11), Some(1));
    // The hole fills: everything held goes up, rwnd is free again.
    assert_eq!(rx.seg(1), Some(11));
    assert_eq!(rx.window_sent(), 10_000);
    assert_eq!(rx.conn.stats().bytes_delivered, 11_000);
}

#[test]
fn the_window_after_a_partial_fill_is_rwnd_less_the_held_bytes_or_the_old_edge() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.rwnd_bytes = 10_000;
    let mut rx = Rx::new(cfg);
    rx.seg(0);
    for i in 3..=9 {
        rx.seg(i);
    }
    // Segment 1 arrives, 2 is still missing: RCV.NXT 2000, 7000 bytes held; rwnd - held
    // would put the edge at 5000, but the edge advertised before (11000) is kept.
    assert_eq!(rx.seg(1), Some(2));
    assert_eq!(rx.window_sent(), 9000);
    assert_eq!(rx.seg(2), Some(10));
    assert_eq!(rx.window_sent(), 10_000);
}

#[test]
fn rfc7323_ts_recent_echoes_the_earliest_unacknowledged_in_order_segment() {
    let mut cfg = delayed();
    cfg.timestamps = true;
    let mut rx = Rx::new(cfg);
    let echoed = |rx: &Rx| {
        rx.out.segments[0]
            .segment
            .header
            .options
            .timestamp
            .unwrap()
            .1
    };
    rx.tsval = Some(10);
    assert_eq!(rx.seg(0), None);
    rx.tsval = Some(20);
    assert_eq!(rx.seg(1), Some(2));
    assert_eq!(
        echoed(&rx),
        10,
        "the delayed ACK echoes the first of the two segments"
    );
    // Out of order: a segment beyond Last.ACK.sent does not update TS.Recent (rule (2)),
    // so the duplicate ACK still echoes 10.
    rx.tsval = Some(30);
    assert_eq!(rx.seg(3), Some(2));
    assert_eq!(echoed(&rx), 10);
    // The segment that fills the hole starts at Last.ACK.sent: its TSval is echoed.
    rx.tsval = Some(40);
    assert_eq!(rx.seg(2), Some(4));
    assert_eq!(echoed(&rx), 40);
}

/// A segment a base station held back arrives in order after a newer one (WTCP §3.1): RFC
/// 7323 keeps the newer TS.Recent; ns's TCPSink echoes the held segment's own TSval.
#[test]
fn ts_echo_segment_echoes_an_older_in_order_segment_that_rfc7323_ignores() {
    let echoes = |ts_echo: TsEcho| {
        let mut cfg = config(TcpVariant::Reno);
        cfg.timestamps = true;
        cfg.ts_echo = ts_echo;
        let mut rx = Rx::new(cfg);
        let mut echoed = Vec::new();
        for (i, tsval) in [(0, 50), (1, 10)] {
            rx.tsval = Some(tsval);
            assert_eq!(rx.seg(i), Some(i + 1));
            echoed.push(
                rx.out.segments[0]
                    .segment
                    .header
                    .options
                    .timestamp
                    .unwrap()
                    .1,
            );
        }
        echoed
    };
    assert_eq!(
        echoes(TsEcho::Recent),
        vec![50, 50],
        "TS.Recent never goes back"
    );
    assert_eq!(
        echoes(TsEcho::Segment),
        vec![50, 10],
        "each ACK echoes the segment that made it"
    );
}

fn sack_receiver(dsack: bool, timestamps: bool) -> Rx {
    let mut cfg = config(TcpVariant::Sack);
    cfg.dsack = dsack;
    cfg.timestamps = timestamps;
    let rx = Rx::new(cfg);
    assert!(rx.conn.sack_in_use());
    rx
}

/// RFC 2018 §4: the first block holds the segment that triggered the ACK; the others repeat
/// the most recently reported blocks, as many as fit (four without timestamps).
#[test]
fn rfc2018_first_block_is_the_newest_then_the_most_recent_ones() {
    let mut rx = sack_receiver(false, false);
    assert_eq!(rx.seg(0), Some(1));
    assert!(rx.blocks().is_empty(), "nothing held: no SACK option");
    rx.seg(2);
    assert_eq!(rx.blocks(), [(2, 3)]);
    rx.seg(4);
    assert_eq!(rx.blocks(), [(4, 5), (2, 3)]);
    rx.seg(6);
    rx.seg(8);
    assert_eq!(rx.blocks(), [(8, 9), (6, 7), (4, 5), (2, 3)]);
    rx.seg(10);
    assert_eq!(rx.blocks(), [(10, 11), (8, 9), (6, 7), (4, 5)], "four fit");
    // Segment 3 joins blocks 2 and 4: the first block is the contiguous one holding it.
    rx.seg(3);
    assert_eq!(rx.blocks(), [(2, 5), (10, 11), (8, 9), (6, 7)]);
    // Segment 1 advances the ACK: no block for it; the rest repeat, newest first.
    assert_eq!(rx.seg(1), Some(5));
    assert_eq!(rx.blocks(), [(10, 11), (8, 9), (6, 7)]);
}

#[test]
fn rfc2018_three_blocks_fit_beside_timestamps() {
    let mut rx = sack_receiver(false, true);
    rx.seg(0);
    for i in [2, 4, 6, 8] {
        rx.seg(i);
    }
    assert_eq!(rx.blocks(), [(8, 9), (6, 7), (4, 5)]);
}

/// RFC 2883 §4: a duplicate below the cumulative ACK is reported alone in the first block,
/// with its own edges, in the ACK for that segment only.
#[test]
fn rfc2883_a_duplicate_below_the_ack_is_the_first_block() {
    let mut rx = sack_receiver(true, false);
    rx.seg(0);
    rx.seg(1);
    assert_eq!(rx.seg(0), Some(2));
    assert_eq!(rx.blocks(), [(0, 1)]);
    assert_eq!(rx.conn.stats().dsacks_sent, 1);
    rx.seg(2);
    assert!(rx.blocks().is_empty(), "reported once");
}

/// RFC 2883 §4 rule 4: a duplicate of held data is the first block and the block that
/// holds it the second.
#[test]
fn rfc2883_a_duplicate_of_held_data_lies_inside_the_second_block() {
    let mut rx = sack_receiver(true, false);
    rx.seg(0);
    rx.seg(2);
    rx.seg(3);
    rx.seg(5);
    rx.seg(3);
    assert_eq!(rx.blocks(), [(3, 4), (2, 4), (5, 6)]);
    let mut plain = sack_receiver(false, false);
    for i in [0, 2, 3, 5, 3] {
        plain.seg(i);
    }
    assert_eq!(
        plain.blocks(),
        [(2, 4), (5, 6)],
        "without D-SACK the block holding the segment comes first (RFC 2018 §4)"
    );
}

/// RFC 3168 §6.1.3: after a CE-marked data segment every ACK carries ECE until a segment
/// with CWR arrives.
#[test]
fn rfc3168_receiver_echoes_ce_until_cwr() {
    let mut cfg = config(TcpVariant::Newreno);
    cfg.ecn = true;
    let mut rx = Rx::new(cfg);
    assert!(rx.conn.ecn_in_use());
    assert_eq!(rx.seg_marked(0, false, false), Some(false));
    assert_eq!(rx.seg_marked(1, true, false), Some(true));
    assert_eq!(rx.seg_marked(2, false, false), Some(true), "still echoing");
    assert_eq!(rx.seg_marked(3, false, true), Some(false), "CWR ends it");
    assert_eq!(
        rx.seg_marked(4, true, true),
        Some(true),
        "a marked CWR segment"
    );
    assert_eq!(rx.conn.stats().ce_received, 2);
    // Without ECN negotiated a CE mark is not echoed.
    let mut plain = Rx::new(config(TcpVariant::Newreno));
    assert_eq!(plain.seg_marked(0, true, false), Some(false));
}

/// DAASS (Allman 1998): every segment sent in slow start is ACKed at once, the others by
/// the delayed-ACK rule.
#[test]
fn daass_acks_every_slow_start_segment_and_delays_the_others() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.ack_policy = AckPolicy::Daass;
    let mut rx = Rx::new(cfg);
    let in_slow_start = |rx: &mut Rx, i: u64, ss: bool| {
        rx.data(i, false, |h| h.sender_in_slow_start = ss);
        rx.ack_sent().map(|a| a / 1000)
    };
    assert_eq!(in_slow_start(&mut rx, 0, true), Some(1));
    assert_eq!(in_slow_start(&mut rx, 1, true), Some(2));
    assert_eq!(in_slow_start(&mut rx, 2, false), None, "delayed");
    assert_eq!(in_slow_start(&mut rx, 3, false), Some(4), "every second");
}
