//! WTCP driven directly with scripted segments and ACKs (WTCP §3–4).

use super::*;
use crate::agents::testkit::*;
use crate::units::ByteSize;

struct Bs {
    wtcp: WtcpAgent,
}

impl Bs {
    fn new(spec: WtcpSpec) -> Self {
        let mut bs = Bs {
            wtcp: WtcpAgent::new(spec),
        };
        bs.on_fh(ms(0), syn());
        bs
    }
    fn on_fh(&mut self, now: SimTime, p: Packet) -> AgentOutbox {
        let out = show(
            &mut |n, i, o| self.wtcp.handle(n, i, o),
            now,
            Side::Wired,
            p,
        )
        .0;
        assert!(
            out.packets.iter().all(|p| p.ip.dst == MH.0),
            "nothing goes back to the source"
        );
        out
    }
    fn on_mh(&mut self, now: SimTime, p: Packet) -> (AgentOutbox, Packet) {
        show(
            &mut |n, i, o| self.wtcp.handle(n, i, o),
            now,
            Side::Wireless,
            p,
        )
    }
    fn fire(&mut self) -> (SimTime, AgentOutbox) {
        let at = self.wtcp.poll_timeout().expect("a timer is pending");
        let mut out = AgentOutbox::default();
        self.wtcp.handle(at, AgentInput::Timer, &mut out);
        (at, out)
    }
}

fn tsval(p: &Packet) -> Option<u32> {
    p.tcp().unwrap().header.options.timestamp.map(|(v, _)| v)
}

#[test]
fn wtcp_stores_in_sequence_buffers_out_of_order_ignores_old_and_sends_within_3() {
    let mut bs = Bs::new(WtcpSpec::default());
    for i in 0..3 {
        let out = bs.on_fh(ms(0), data(i));
        assert_eq!(out.verdict, Verdict::Consume);
        assert_eq!(seqs(&out), vec![i], "sent at once within the window");
    }
    let out = bs.on_fh(ms(1), data(3));
    assert_eq!(
        (out.verdict, seqs(&out)),
        (Verdict::Consume, vec![]),
        "window of 3 full"
    );
    assert_eq!(
        bs.on_fh(ms(2), data(5)).verdict,
        Verdict::Consume,
        "out of order: buffered"
    );
    assert_eq!(
        bs.on_fh(ms(3), data(1)).verdict,
        Verdict::Drop,
        "old: ignored"
    );
    assert_eq!(bs.wtcp.held_segments(&KEY), 5);
    // End-to-end semantics: only the mobile's ACK reaches the source.
    let (out, _) = bs.on_mh(ms(30), ack(1));
    assert_eq!(out.verdict, Verdict::Forward);
    assert_eq!(seqs(&out), vec![3], "the window slides by one");
    assert_eq!(bs.wtcp.held_segments(&KEY), 4);
    let (out, _) = bs.on_mh(ms(40), ack(3));
    assert_eq!(seqs(&out), vec![5], "the out-of-order segment goes out too");
}

#[test]
fn wtcp_dupack_retransmits_once_and_its_dupacks_are_neither_acted_on_nor_forwarded() {
    let mut bs = Bs::new(WtcpSpec::default());
    for i in 0..5 {
        bs.on_fh(ms(0), data(i));
    }
    bs.on_mh(ms(30), ack(1)); // Segment 1 lost; 2 and 3 outstanding (3 sent now).
    let (out, _) = bs.on_mh(ms(31), ack(1));
    assert_eq!(out.verdict, Verdict::Drop);
    assert_eq!(seqs(&out), vec![1], "retransmitted at once");
    assert_eq!(
        bs.wtcp.window(&KEY),
        Some(3),
        "a dupack leaves the window alone"
    );
    for t in [32, 33, 34] {
        let (out, _) = bs.on_mh(ms(t), ack(1));
        assert_eq!(out.verdict, Verdict::Drop);
        assert!(out.packets.is_empty(), "once per segment");
    }
    assert_eq!(bs.wtcp.counters().suppressed_dupacks, 4);
    assert_eq!(bs.wtcp.counters().local_retransmissions, 1);
}

#[test]
fn wtcp_timeout_is_1_5_rtt_on_the_10ms_clock_shrinks_the_window_and_an_ack_reopens_it() {
    let mut bs = Bs::new(WtcpSpec::default());
    for i in 0..6 {
        bs.on_fh(ms(0), data(i));
    }
    bs.on_mh(ms(30), ack(1)); // RTT of segment 0: 3 ticks.
    assert_eq!(bs.wtcp.rtt(&KEY), Some(SimDuration::from_millis(30)));
    // A Bad period: nothing comes back. 1.5 × 30 ms = 45 ms, on the 10 ms clock: 50 ms.
    let (at, out) = bs.fire();
    assert_eq!(at, ms(80));
    assert_eq!(seqs(&out), vec![1]);
    assert_eq!(bs.wtcp.window(&KEY), Some(1));
    // Linear back-off: the next expiry is again 1.5 × RTT later.
    let (at2, out) = bs.fire();
    assert_eq!(at2, ms(130));
    assert_eq!(seqs(&out), vec![1]);
    // Any ACK reopens the window fully.
    let (out, _) = bs.on_mh(ms(150), ack(2));
    assert_eq!(bs.wtcp.window(&KEY), Some(3));
    assert_eq!(seqs(&out), vec![2, 3, 4]);
    assert_eq!(bs.wtcp.counters().timer_expiries, 2);
}

#[test]
fn wtcp_exact_timestamps_add_the_residence_time_in_source_ticks() {
    let mut bs = Bs::new(WtcpSpec::default()); // exact, source clock 100 ms
    for i in 0..3 {
        let out = bs.on_fh(ms(0), data_ts(i, 7));
        assert_eq!(tsval(&out.packets[0]), Some(7), "no residence, no change");
    }
    bs.on_fh(ms(10), data_ts(3, 7));
    // Segment 3 waits 250 ms for room: 2.5 source ticks, rounded to 3.
    let (out, _) = bs.on_mh(ms(260), ack(1));
    assert_eq!(tsval(&out.packets[0]), Some(10));
}

#[test]
fn wtcp_recent_timestamps_use_the_newest_and_are_removed_after_a_local_retransmission() {
    let mut bs = Bs::new(WtcpSpec {
        timestamps: WtcpTimestamps::Recent,
        ..WtcpSpec::default()
    });
    for i in 0..3 {
        bs.on_fh(ms(0), data_ts(i, 5));
    }
    bs.on_fh(ms(100), data_ts(3, 6));
    bs.on_fh(ms(200), data_ts(4, 7));
    let (out, _) = bs.on_mh(ms(210), ack(1));
    assert_eq!(
        tsval(&out.packets[0]),
        Some(7),
        "segment 3 carries the newest TSval"
    );
    // Segment 1 was lost: a dupack retransmits it — without the option.
    let (out, _) = bs.on_mh(ms(211), ack(1));
    assert_eq!(seqs(&out), vec![1]);
    assert_eq!(tsval(&out.packets[0]), None);
    // The mobile's ACK for it reaches the source without an echo to mislead its RTT.
    let (out, acked) = bs.on_mh(ms(230), ack(4));
    assert_eq!(out.verdict, Verdict::Forward);
    assert_eq!(acked.tcp().unwrap().header.options.timestamp, None);
    // Segment 4 (sent now) also goes without: nothing new came from the source since.
    assert_eq!(seqs(&out), vec![4]);
    assert_eq!(tsval(&out.packets[0]), None);
    // A new segment from the source re-enables stamping.
    let out = bs.on_fh(ms(240), data_ts(5, 8));
    assert_eq!(seqs(&out), vec![5]);
    assert_eq!(tsval(&out.packets[0]), Some(8));
}

/// §3: "WTCP transmits from its buffer all the segments that fall within the wireless
/// link transmission window" — the window starts at the mobile's ACK point, so the
/// source's retransmission of a segment lost on the *wired* side (the hole the mobile is
/// waiting for) is always within it and goes out at once, however many segments beyond
/// the hole are in flight.
#[test]
fn wtcp_source_retransmission_filling_a_wired_hole_goes_out_at_once() {
    let mut bs = Bs::new(WtcpSpec::default());
    bs.on_fh(ms(0), data(0));
    // Segment 1 is lost between the fixed host and the base station.
    for i in 2..5 {
        bs.on_fh(ms(1), data(i));
    }
    let (out, _) = bs.on_mh(ms(30), ack(1));
    assert_eq!(out.verdict, Verdict::Forward);
    // The mobile's dupacks for the hole reach the source: it must recover it itself.
    for t in [31, 32] {
        let (out, _) = bs.on_mh(ms(t), ack(1));
        assert_eq!(out.verdict, Verdict::Forward, "a hole WTCP does not hold");
    }
    let out = bs.on_fh(ms(250), data(1));
    assert_eq!(out.verdict, Verdict::Consume);
    assert_eq!(seqs(&out), vec![1], "the hole is filled at once");
    assert!(bs.wtcp.poll_timeout().is_some());
    assert_eq!(bs.wtcp.check(), Ok(()));
}

/// §3: "When a segment is sent to the mobile host, the base station schedules a new
/// timeout if there is no other timeout pending" — and no expiry may leave segments in
/// flight, or the one the mobile waits for, without a timer: that stalled every WTCP run
/// with wired losses (the timer fired while the mobile waited for a hole, returned without
/// re-arming, and the source's retransmission then sat in the buffer for good).
#[test]
fn wtcp_never_leaves_a_segment_it_holds_without_a_timer() {
    let mut bs = Bs::new(WtcpSpec::default());
    bs.on_fh(ms(0), data(0));
    for i in 2..5 {
        bs.on_fh(ms(1), data(i));
    }
    bs.on_mh(ms(30), ack(1));
    // The wireless timer expires while the mobile waits for the source's retransmission.
    while let Some(at) = bs.wtcp.poll_timeout() {
        if at > ms(240) {
            break;
        }
        let mut out = AgentOutbox::default();
        bs.wtcp.handle(at, AgentInput::Timer, &mut out);
        assert!(seqs(&out).is_empty(), "nothing WTCP holds is missing");
        assert_eq!(bs.wtcp.check(), Ok(()));
    }
    // The source's retransmission arrives: it goes out, under a timer.
    let out = bs.on_fh(ms(250), data(1));
    assert_eq!(seqs(&out), vec![1]);
    assert_eq!(bs.wtcp.check(), Ok(()));
    // Lost over the air: the timer recovers it, and keeps running until it is through.
    let (at, out) = bs.fire();
    assert!(at > ms(250));
    assert_eq!(seqs(&out), vec![1]);
    assert!(bs.wtcp.poll_timeout().is_some());
    let (out, _) = bs.on_mh(ms(400), ack(3));
    assert_eq!(
        seqs(&out),
        vec![3, 4],
        "the window reopens from the new ACK point"
    );
    assert_eq!(bs.wtcp.check(), Ok(()));
    bs.on_mh(ms(430), ack(5));
    assert_eq!(
        bs.wtcp.poll_timeout(),
        None,
        "all acknowledged: the timer stops"
    );
}

/// A buffer full of segments beyond a hole must not refuse the segment that fills it: with
/// a source window larger than `buffer` the overflow itself makes the hole, and refusing
/// the source's retransmission of it deadlocked the connection for good (170,800 bytes then
/// nothing for 298 s on TULIP's path with a 42 KB window and no loss at all).
#[test]
fn wtcp_full_buffer_makes_room_for_the_segment_that_fills_the_hole() {
    let spec = WtcpSpec {
        buffer: ByteSize(u64::from(4 * MSS)),
        ..WtcpSpec::default()
    };
    let mut bs = Bs::new(spec);
    bs.on_fh(ms(0), data(0));
    // Segment 1 is lost (or overflowed); 2..=4 fill the rest of the buffer.
    for i in 2..5 {
        bs.on_fh(ms(1), data(i));
    }
    assert_eq!(bs.wtcp.held_segments(&KEY), 4);
    let out = bs.on_fh(ms(2), data(5));
    assert_eq!(
        out.verdict,
        Verdict::Drop,
        "the highest segment does not fit"
    );
    // The mobile's ACK for segment 0 frees its place; new data beyond the hole takes it.
    bs.on_mh(ms(30), ack(1));
    assert_eq!(bs.on_fh(ms(31), data(5)).verdict, Verdict::Consume);
    assert_eq!(bs.wtcp.held_segments(&KEY), 4, "full again: 2, 3, 4, 5");
    let out = bs.on_fh(ms(250), data(1));
    assert_eq!(out.verdict, Verdict::Consume, "the hole is filled");
    assert_eq!(seqs(&out), vec![1], "and goes out at once");
    assert_eq!(bs.wtcp.held_segments(&KEY), 4, "segment 5 gave way");
    assert_eq!(bs.wtcp.buffer_drops(), 2);
    assert_eq!(bs.wtcp.check(), Ok(()));
}
