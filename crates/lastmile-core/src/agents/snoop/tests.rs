//! Snoop driven directly with scripted segments and ACKs (TULIP §4, §5.2).

use super::*;
use crate::agents::testkit::*;

struct Bs {
    snoop: SnoopAgent,
}

impl Bs {
    fn new(spec: SnoopSpec) -> Self {
        Bs {
            snoop: SnoopAgent::new(spec),
        }
    }
    fn on_fh(&mut self, now: SimTime, p: Packet) -> AgentOutbox {
        show(
            &mut |n, i, o| self.snoop.handle(n, i, o),
            now,
            Side::Wired,
            p,
        )
        .0
    }
    fn on_mh(&mut self, now: SimTime, p: Packet) -> AgentOutbox {
        show(
            &mut |n, i, o| self.snoop.handle(n, i, o),
            now,
            Side::Wireless,
            p,
        )
        .0
    }
    /// Data segment `i` goes on the air at `start` and its last bit leaves at `end` (the
    /// base station's interface reports both: `Agent::wants_departures`).
    fn on_air(&mut self, start: SimTime, end: SimTime, i: u32) {
        let p = data(i);
        for (at, signal) in [(start, MacSignal::Trans), (end, MacSignal::TxSuccess)] {
            let mut out = AgentOutbox::default();
            let input = AgentInput::Link {
                signal,
                packet: Some(&p),
            };
            self.snoop.handle(at, input, &mut out);
            assert!(out.packets.is_empty() && out.ahead.is_empty());
        }
    }
    /// Fires the agent's timers until one retransmits; returns when and what.
    fn wait_for_retransmission(&mut self) -> (SimTime, Vec<u32>) {
        for _ in 0..100 {
            let at = self.snoop.poll_timeout().expect("a timer is pending");
            let mut out = AgentOutbox::default();
            self.snoop.handle(at, AgentInput::Timer, &mut out);
            if !seqs(&out).is_empty() {
                return (at, seqs(&out));
            }
        }
        panic!("no retransmission");
    }
}

/// Balakrishnan et al. §2.1: Snoop suppresses exactly the duplicate ACKs the segments
/// already sent after the lost one will bring. One more (here brought by segment 6, which
/// left after the local retransmission) is not one of them: FIFO delivery says the
/// retransmission was lost, and the hole goes again (ns-2's "one more retransmission").
#[test]
fn snoop_suppresses_exactly_the_expected_dupacks_and_no_more() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..6 {
        bs.on_fh(ms(i as u64), data(i));
    }
    bs.on_mh(ms(20), ack(1));
    bs.on_mh(ms(21), ack(1));
    assert_eq!(
        seqs(&bs.on_mh(ms(22), ack(1))),
        vec![1],
        "local retransmission"
    );
    // Segments 2..5 bring four dupacks: two came before the retransmission, two are expected.
    for t in [23, 24] {
        let out = bs.on_mh(ms(t), ack(1));
        assert_eq!(out.verdict, Verdict::Drop);
        assert!(out.packets.is_empty());
    }
    assert_eq!(bs.snoop.counters().local_retransmissions, 1);
    // The source sends segment 6; its arrival brings one more dupack, not an expected one.
    bs.on_fh(ms(25), data(6));
    let extra = bs.on_mh(ms(26), ack(1));
    assert_eq!(
        seqs(&extra),
        vec![1],
        "the retransmission was lost: the hole goes again"
    );
    assert_eq!(bs.snoop.counters().local_retransmissions, 2);
}

#[test]
fn snoop_second_dupack_triggers_local_retransmit_and_expected_dupacks_are_suppressed() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..6 {
        let out = bs.on_fh(ms(i as u64), data(i));
        assert_eq!(
            out.verdict,
            Verdict::Forward,
            "data is cached and forwarded"
        );
    }
    assert_eq!(bs.snoop.cached_segments(&KEY), 6);
    // Segment 0 arrives; segment 1 is lost on the wireless hop; 2..5 bring dupacks.
    assert_eq!(bs.on_mh(ms(20), ack(1)).verdict, Verdict::Forward);
    assert_eq!(bs.snoop.cached_segments(&KEY), 5);
    let first = bs.on_mh(ms(21), ack(1));
    assert_eq!(
        first.verdict,
        Verdict::Forward,
        "ns-2 forwards the 1st dupack"
    );
    assert!(first.packets.is_empty());
    let second = bs.on_mh(ms(22), ack(1));
    assert_eq!(
        second.verdict,
        Verdict::Drop,
        "the 2nd dupack is suppressed ..."
    );
    assert_eq!(
        seqs(&second),
        vec![1],
        "... and segment 1 is retransmitted locally"
    );
    // Four segments followed the lost one; two dupacks came already: two more expected.
    for t in [23, 24] {
        let out = bs.on_mh(ms(t), ack(1));
        assert_eq!(out.verdict, Verdict::Drop);
        assert!(
            out.packets.is_empty(),
            "no second retransmission on expected dupacks"
        );
    }
    assert_eq!(bs.snoop.counters().suppressed_dupacks, 3);
    assert_eq!(bs.snoop.counters().local_retransmissions, 1);
    // The retransmission fills the hole: the cumulative ACK goes through.
    assert_eq!(bs.on_mh(ms(30), ack(6)).verdict, Verdict::Forward);
    assert_eq!(bs.snoop.cached_segments(&KEY), 0);
    assert_eq!(bs.snoop.poll_timeout(), None, "nothing cached, no timers");
}

#[test]
fn snoop_lost_local_retransmission_is_recovered_by_the_timer() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..5 {
        bs.on_fh(ms(0), data(i));
    }
    bs.on_mh(ms(20), ack(1));
    bs.on_mh(ms(21), ack(1));
    assert_eq!(seqs(&bs.on_mh(ms(22), ack(1))), vec![1]);
    // The retransmission is lost too: no ACK comes back. The retransmission timer is
    // max(40 ms, 2·rtt) after the last sign of life.
    let rtt = bs.snoop.rtt_estimate(&KEY).expect("segment 0 was timed");
    assert_eq!(rtt, SimDuration::from_millis(20));
    let dupack = bs.on_mh(ms(23), ack(1));
    assert_eq!(dupack.verdict, Verdict::Drop, "the one expected dupack");
    let (at, sent) = bs.wait_for_retransmission();
    assert_eq!(sent, vec![1]);
    assert_eq!(at, ms(23) + SimDuration::from_millis(40));
    assert_eq!(bs.snoop.counters().timer_expiries, 1);
    assert_eq!(bs.snoop.counters().local_retransmissions, 2);
    assert_eq!(
        bs.on_mh(at + SimDuration::from_millis(15), ack(5)).verdict,
        Verdict::Forward
    );
    assert_eq!(bs.snoop.cached_segments(&KEY), 0);
}

/// TULIP §5.2: "when many losses occurred in succession ... it would inadvertently update
/// its link rtt estimate to ... a value during which time one or more retransmissions
/// occurred. This caused the rtt estimate to grow to very large values", and retransmission
/// became driven by the persist timer. Each round here loses the timed segment once; the
/// timer (or persist timer) recovers it and the ACK comes 20 ms after the retransmission.
/// Without the fix each sample is the timer's wait plus 20 ms, and each moves the 1/8-gain
/// estimate up by an eighth of that: 24 rounds take it past the persist period.
fn rtt_after_successive_losses(fix: bool) -> (SimDuration, SimDuration, u64) {
    let mut bs = Bs::new(SnoopSpec {
        fix,
        ..SnoopSpec::default()
    });
    bs.on_fh(ms(0), syn());
    bs.on_fh(ms(0), data(0));
    bs.on_mh(ms(20), ack(1)); // A clean sample: the wireless rtt is 20 ms.
    let mut now = ms(20);
    for i in 1..=24 {
        bs.on_fh(now, data(i));
        let (at, sent) = bs.wait_for_retransmission();
        assert_eq!(sent, vec![i]);
        now = at + SimDuration::from_millis(20);
        bs.on_mh(now, ack(i + 1));
    }
    (
        bs.snoop.rtt_estimate(&KEY).expect("sampled"),
        bs.snoop.current_timeout(&KEY).expect("known connection"),
        bs.snoop.persist_retransmissions(),
    )
}

#[test]
fn tulip_5_2_rtt_estimate_inflates_without_the_fix() {
    let (rtt, timeout, persist) = rtt_after_successive_losses(false);
    assert!(
        rtt > SimDuration::from_millis(200),
        "rtt {rtt} should have grown far beyond the 20 ms wireless rtt"
    );
    assert!(
        timeout > SimDuration::from_millis(200),
        "timer beyond the persist period"
    );
    assert!(
        persist > 0,
        "the persist timer ends up driving retransmissions"
    );
}

#[test]
fn tulip_5_2_snoop_with_fix_keeps_the_rtt_estimate() {
    let (rtt, timeout, persist) = rtt_after_successive_losses(true);
    assert_eq!(rtt, SimDuration::from_millis(20));
    assert_eq!(timeout, SimDuration::from_millis(40), "max(40 ms, 2·20 ms)");
    assert_eq!(persist, 0);
}

#[test]
fn snoop_drops_data_the_mobile_has_and_regenerates_its_ack() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    bs.on_fh(ms(0), data(0));
    bs.on_mh(ms(20), ack(1));
    // The fixed host times out and sends segment 0 again.
    let out = bs.on_fh(ms(900), data(0));
    assert_eq!(out.verdict, Verdict::Drop);
    assert_eq!(out.packets.len(), 1);
    assert_eq!(
        out.packets[0].tcp().unwrap().header.ack,
        Some(SeqNumber(ISS + MSS))
    );
}

#[test]
fn snoop_leaves_dupacks_for_a_sender_retransmission_to_the_sender() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..4 {
        bs.on_fh(ms(0), data(i));
    }
    bs.on_mh(ms(20), ack(1));
    bs.on_fh(ms(25), data(1)); // The sender retransmits segment 1 itself.
    for t in [26, 27, 28] {
        let out = bs.on_mh(ms(t), ack(1));
        assert_eq!(out.verdict, Verdict::Forward);
        assert!(out.packets.is_empty());
    }
}

/// The mobile's duplicate ACK for segment `i` with SACK blocks over segments `[from, to)`.
fn sack_ack(i: u32, blocks: &[(u32, u32)]) -> Packet {
    let mut p = ack(i);
    let seq = |n: u32| SeqNumber(ISS + n * MSS);
    for &(from, to) in blocks {
        p.tcp_mut()
            .expect("tcp")
            .header
            .options
            .sack_blocks
            .push((seq(from), seq(to)));
    }
    p.fix_length();
    p
}

#[test]
fn snoop_sack_retransmits_the_holes_sack_names_and_again_only_once_a_later_segment_passed_them() {
    let mut bs = Bs::new(SnoopSpec {
        sack: true,
        ..SnoopSpec::default()
    });
    bs.on_fh(ms(0), syn());
    for i in 0..8 {
        bs.on_fh(ms(i as u64), data(i));
    }
    assert_eq!(bs.on_mh(ms(20), ack(1)).verdict, Verdict::Forward);
    // Segments 1, 3 and 4 were lost on the air; 2, 5 and 6 arrived (7 is still on its way).
    let out = bs.on_mh(ms(21), sack_ack(1, &[(2, 3), (5, 7)]));
    assert_eq!(
        seqs(&out),
        vec![1, 3, 4],
        "every hole below the highest SACKed byte"
    );
    assert_eq!(
        out.verdict,
        Verdict::Drop,
        "Snoop repairs: the dupack is suppressed"
    );
    // The next dupack names the same holes: their retransmissions are on the way.
    let out = bs.on_mh(ms(22), sack_ack(1, &[(2, 3), (5, 8)]));
    assert!(seqs(&out).is_empty());
    assert_eq!(out.verdict, Verdict::Drop);
    assert_eq!(bs.snoop.counters().local_retransmissions, 3);
    // Long after any timeout, blocks naming only segments forwarded before the
    // retransmissions say nothing about them: they may wait in a full interface queue.
    let later = ms(22) + bs.snoop.current_timeout(&KEY).expect("tracked") * 4;
    let out = bs.on_mh(later, sack_ack(1, &[(2, 3), (5, 8)]));
    assert!(seqs(&out).is_empty());
    // A segment forwarded after them arrived while they did not (FIFO): they were lost.
    bs.on_fh(later, data(8));
    let out = bs.on_mh(
        later + SimDuration::from_millis(1),
        sack_ack(1, &[(2, 3), (5, 9)]),
    );
    assert_eq!(seqs(&out), vec![1, 3, 4]);
}

#[test]
fn snoop_without_sack_retransmits_only_the_oldest_hole() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..8 {
        bs.on_fh(ms(i as u64), data(i));
    }
    bs.on_mh(ms(20), ack(1));
    let first = bs.on_mh(ms(21), sack_ack(1, &[(2, 3), (5, 7)]));
    assert!(seqs(&first).is_empty(), "the 1st dupack is forwarded");
    let second = bs.on_mh(ms(22), sack_ack(1, &[(2, 3), (5, 7)]));
    assert_eq!(
        seqs(&second),
        vec![1],
        "plain Snoop: the blocks are not read"
    );
}

#[test]
fn snoop_sack_remembers_blocks_a_later_ack_no_longer_carries() {
    let mut bs = Bs::new(SnoopSpec {
        sack: true,
        ..SnoopSpec::default()
    });
    bs.on_fh(ms(0), syn());
    for i in 0..12 {
        bs.on_fh(ms(i as u64), data(i));
    }
    bs.on_mh(ms(20), ack(1));
    // Segments 1, 3, 5 and 7 lost: four holes, four blocks.
    let out = bs.on_mh(ms(21), sack_ack(1, &[(8, 9), (6, 7), (4, 5), (2, 3)]));
    assert_eq!(seqs(&out), vec![1, 3, 5, 7]);
    // Segment 12 arrives (forwarded after the retransmissions): an ACK carries at most four
    // blocks, the most recent first, so [2, 3) drops out; segment 2 is still the mobile's.
    bs.on_fh(ms(22), data(12));
    let out = bs.on_mh(ms(23), sack_ack(1, &[(12, 13), (8, 9), (6, 7), (4, 5)]));
    assert_eq!(
        seqs(&out),
        vec![1, 3, 5, 7, 9, 10, 11],
        "the holes again (a later segment passed them) and 9-11, never 2"
    );
}

/// Balakrishnan et al. (1995), Fig. 2 (`snoop_ack`): "Retransmit lost packet with high
/// priority"; the BSD code handed its retransmissions `IPTOS_LOWDELAY` (Click's port,
/// `snooptcp.cc`). A local retransmission goes ahead of the data waiting in the base
/// station's interface queue, not behind it (TULIP Exp. 5a: offset 960,400 lost at 10.589 s
/// waited 433 ms behind 28 new segments).
#[test]
fn snoop_retransmits_a_lost_segment_ahead_of_the_data_queued_at_the_base_station() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..6 {
        bs.on_fh(ms(0), data(i));
    }
    bs.on_mh(ms(20), ack(1));
    bs.on_mh(ms(21), ack(1));
    let out = bs.on_mh(ms(22), ack(1));
    assert_eq!(seqs(&out), vec![1]);
    assert_eq!(out.ahead.len(), 1, "sent ahead of the queue: {out:?}");
    assert!(out.packets.is_empty());
}

/// The BSD burst-loss rule (Click's port of it, `mh_new_ack`: "check for burst loss"): a new
/// ACK that frees the locally retransmitted segment and stops at the next one, which went on
/// the air before that retransmission, says the next one was lost too: it is retransmitted at
/// once, whatever drove the first retransmission. TULIP Exp. 1, BER 15 per million, seed 1:
/// offset 338,800 was retransmitted by the timer (no segment after it was left to bring a
/// dupack); the ACK for it stopped at 343,000, which then waited for the persist timer
/// (6.303, 6.703, 7.015 s, the link idle in between) and the source timed out.
#[test]
fn snoop_ack_for_a_timer_retransmission_that_stops_at_the_next_segment_retransmits_it_at_once() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..3 {
        bs.on_fh(ms(0), data(i));
    }
    for i in 0..3u64 {
        bs.on_air(ms(14 * i), ms(14 * (i + 1)), i as u32);
    }
    // Segment 0 arrives; 1 and 2 are lost: nothing after them brings a dupack.
    bs.on_mh(ms(20), ack(1));
    let (at, sent) = bs.wait_for_retransmission();
    assert_eq!(sent, vec![1], "the timer resends the oldest");
    bs.on_air(at, at + SimDuration::from_millis(14), 1);
    let out = bs.on_mh(at + SimDuration::from_millis(20), ack(2));
    assert_eq!(
        seqs(&out),
        vec![2],
        "segment 2 went on the air before the retransmission the ACK answers: lost too"
    );
}

/// With retransmissions ahead of the queue, a segment the base station has not sent yet is
/// not lost when the ACK for a retransmission stops at it: the retransmission overtook it.
#[test]
fn snoop_burst_loss_rule_leaves_a_segment_still_queued_behind_the_retransmission() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    for i in 0..6 {
        bs.on_fh(ms(0), data(i));
    }
    for i in 0..4u64 {
        bs.on_air(ms(14 * i), ms(14 * (i + 1)), i as u32);
    }
    // 0 arrives, 1 is lost, 2 and 3 bring two dupacks: 1 goes again, ahead of 4 and 5.
    bs.on_mh(ms(20), ack(1));
    bs.on_mh(ms(48), ack(1));
    assert_eq!(seqs(&bs.on_mh(ms(62), ack(1))), vec![1]);
    bs.on_air(ms(62), ms(76), 1);
    let out = bs.on_mh(ms(82), ack(4));
    assert!(seqs(&out).is_empty(), "4 is still queued: {out:?}");
    assert_eq!(out.verdict, Verdict::Forward);
}

/// Snoop's rtt is the link's: from the frame going on the air to the ACK covering it, its
/// own airtime included (14 ms here, as a 1440-byte frame at 1 Mbps is 11.5 ms). Timing from
/// the end of the transmission left it out, and on a slow link the 2·rtt timer then fired
/// while the retransmission itself was still on the air.
#[test]
fn snoop_rtt_sample_includes_the_frames_own_airtime() {
    let mut bs = Bs::new(SnoopSpec::default());
    bs.on_fh(ms(0), syn());
    bs.on_fh(ms(0), data(0));
    bs.on_air(ms(0), ms(14), 0);
    bs.on_mh(ms(20), ack(1));
    // Segment 1 waits 10 ms in the interface queue, then takes 14 ms on the air.
    bs.on_fh(ms(20), data(1));
    bs.on_air(ms(30), ms(44), 1);
    bs.on_mh(ms(50), ack(2));
    assert_eq!(
        bs.snoop.rtt_estimate(&KEY),
        Some(SimDuration::from_millis(20)),
        "both samples 20 ms: from the start of the transmission to the ACK"
    );
}

// ---- variant = "ns2": ns-2.35's tcp/snoop.cc ----------------------------------------------

fn ns2() -> SnoopSpec {
    SnoopSpec {
        variant: SnoopVariant::Ns2,
        ..SnoopSpec::default()
    }
}

/// ns-2's `snoop_ack`: the 1st dupack is forwarded, the 2nd retransmits the hole —
/// through `sendDown`, behind the queued data ("Ideally, would like to schedule snoop
/// retransmissions at higher priority") — and (cached segments from the tail to the head)
/// − 2 more are expected and suppressed; the next one is forwarded again.
#[test]
fn ns2_snoop_retransmits_on_the_second_dupack_behind_the_queue() {
    let mut bs = Bs::new(ns2());
    bs.on_fh(ms(0), syn());
    for i in 0..6 {
        bs.on_fh(ms(0), data(i));
    }
    assert_eq!(bs.on_mh(ms(20), ack(1)).verdict, Verdict::Forward);
    assert_eq!(bs.on_mh(ms(21), ack(1)).verdict, Verdict::Forward);
    let second = bs.on_mh(ms(22), ack(1));
    assert_eq!(second.verdict, Verdict::Drop);
    assert!(second.ahead.is_empty(), "no priority in ns-2");
    assert_eq!(seqs(&second), vec![1]);
    // Five cached (1..5): 5 − 2 = 3 more expected.
    for t in 23..26 {
        assert_eq!(bs.on_mh(ms(t), ack(1)).verdict, Verdict::Drop);
    }
    assert_eq!(bs.on_mh(ms(26), ack(1)).verdict, Verdict::Forward);
}

/// ns-2's `thresh` is a function-static: never reset by a new ACK, so a lone dupack before
/// one loss makes Snoop act on the very first dupack of the next (protocol-notes §1.3).
#[test]
fn ns2_snoop_dupack_counter_carries_over_to_the_next_loss() {
    let mut bs = Bs::new(ns2());
    bs.on_fh(ms(0), syn());
    for i in 0..4 {
        bs.on_fh(ms(0), data(i));
    }
    bs.on_mh(ms(20), ack(1));
    // Segment 1 was only late: one dupack, then the ACK that covers everything.
    assert_eq!(bs.on_mh(ms(21), ack(1)).verdict, Verdict::Forward);
    bs.on_mh(ms(22), ack(4));
    for i in 4..8 {
        bs.on_fh(ms(23), data(i));
    }
    bs.on_mh(ms(40), ack(5));
    let first = bs.on_mh(ms(41), ack(5));
    assert_eq!(
        seqs(&first),
        vec![5],
        "the first dupack of this loss retransmits"
    );
}

/// ns-2's timer: max(srtt + 4·rttvar, 100 ms) from srtt 100 ms and rttvar 250 ms (1.1 s
/// before any sample); `snoop_rtt` gives the new sample 7/8, and the sample runs from the
/// send time of the *last* segment an ACK frees — cached long before a stall, it measures
/// the stall (TULIP §5.2).
#[test]
fn ns2_snoop_timer_and_the_sample_of_the_last_segment_freed() {
    let mut bs = Bs::new(ns2());
    bs.on_fh(ms(0), syn());
    bs.on_fh(ms(0), data(0));
    assert_eq!(
        bs.snoop.current_timeout(&KEY),
        Some(SimDuration::from_millis(1100))
    );
    bs.on_mh(ms(20), ack(1));
    // srtt = 100/8 + 20·7/8 = 30 ms; rttvar = |20 − 30|/8 + 250·7/8 = 220 ms.
    assert_eq!(
        bs.snoop.rtt_estimate(&KEY),
        Some(SimDuration::from_millis(30))
    );
    assert_eq!(
        bs.snoop.current_timeout(&KEY),
        Some(SimDuration::from_millis(30 + 4 * 220))
    );
    // Segments 1 and 2 cached at 100 ms; 1 is lost and comes back by the timer, and the ACK
    // for both frees 2, whose send time is still 100 ms: a 1 s sample.
    bs.on_fh(ms(100), data(1));
    bs.on_fh(ms(100), data(2));
    let (at, sent) = bs.wait_for_retransmission();
    assert_eq!(sent, vec![1]);
    assert_eq!(
        at,
        ms(100 + 910),
        "armed when the cache was no longer empty"
    );
    bs.on_mh(ms(1100), ack(3));
    let rtt = bs.snoop.rtt_estimate(&KEY).expect("sampled");
    assert_eq!(
        rtt,
        (SimDuration::from_millis(30) + SimDuration::from_secs(1) * 7) / 8
    );
}
