//! SACK (RFC 2018, RFC 6675), FACK (Mathis & Mahdavi 1996), PRR (RFC 6937) and limited
//! transmit (RFC 3042) at the sender, against scripted ACKs in segment units (MSS 1000), and
//! in back-to-back transfers against NewReno.

use super::*;
use crate::tcp::recovery::AnyRecovery;

const SEG: u64 = MSS as u64;

/// A sender of `variant` with IW `iw` segments that has written plenty and sent its IW.
fn sending(variant: TcpVariant, iw: u32, edit: impl FnOnce(&mut TcpConfig)) -> Scripted {
    let mut cfg = config(variant);
    cfg.initial_window = InitialWindow::Segments(iw);
    edit(&mut cfg);
    let mut s = Scripted::established(cfg, ms(100));
    assert_eq!(s.write(1_000_000), new_segs(0, u64::from(iw)));
    s
}

/// Segments `from..to` as SACK blocks in offsets.
fn segs(from: u64, to: u64) -> (u64, u64) {
    (from * SEG, to * SEG)
}

#[test]
fn rfc2018_sack_permitted_is_offered_on_the_syn_and_used_only_if_both_agree() {
    let s = sending(TcpVariant::Sack, 1, |_| {});
    assert!(s.conn.sack_in_use());
    let mut cfg = config(TcpVariant::Sack);
    cfg.sack = true;
    let mut p = Pair::new(cfg, config(TcpVariant::Newreno));
    p.transfer(20_000, SimDuration::from_secs(10));
    let syn = p.log[0].2.segment.header;
    assert!(syn.options.sack_permitted, "the SYN offers SACK");
    let synack = p.log[1].2.segment.header;
    assert!(
        !synack.options.sack_permitted,
        "a peer without SACK does not answer it"
    );
    assert!(!p.a.sack_in_use() && !p.b.sack_in_use());
    assert!(
        matches!(p.a.loss_recovery().variant, AnyRecovery::NewReno { .. }),
        "SACK recovery without SACK falls back to NewReno"
    );
}

/// RFC 6675 §5 step (4): the third duplicate ACK (each reporting new SACKed data) starts
/// recovery: ssthresh = cwnd = FlightSize/2 and the segment at HighACK + 1 goes at once.
#[test]
fn rfc6675_third_sack_duplicate_retransmits_highack_plus_one_and_halves_the_window() {
    let mut s = sending(TcpVariant::Sack, 10, |_| {});
    assert_eq!(s.sack(0, &[segs(1, 2)]), vec![]);
    assert_eq!(s.sack(0, &[segs(1, 3)]), vec![]);
    assert!(!s.conn.in_fast_recovery());
    assert_eq!(s.sack(0, &[segs(1, 4)]), vec![(0, true)]);
    assert!(s.conn.in_fast_recovery());
    assert_eq!((s.cwnd(), s.ssthresh()), (5 * SEG, 5 * SEG));
    // An ACK repeating known SACK information is not a duplicate in RFC 6675's sense.
    let r = s.loss_recovery_pipe();
    assert_eq!(s.sack(0, &[segs(1, 4)]), vec![]);
    assert_eq!(s.loss_recovery_pipe(), r);
}

/// RFC 6675 step (2): one ACK that SACKs three segments above the hole is enough
/// (`IsLost(HighACK + 1)`), e.g. after two lost ACKs.
#[test]
fn rfc6675_is_lost_starts_recovery_on_the_first_duplicate_ack() {
    let mut s = sending(TcpVariant::Sack, 10, |_| {});
    assert_eq!(s.sack(0, &[segs(1, 4)]), vec![(0, true)]);
    assert_eq!(s.conn.stats().fast_retransmits, 1);
}

/// RFC 6675 `SetPipe` counts an un-SACKed segment once unless lost, once more if
/// retransmitted; `NextSeg` rule (1) then sends every lost hole as cwnd − pipe allows, in
/// one round trip.
#[test]
fn rfc6675_next_seg_retransmits_each_lost_hole_as_pipe_allows() {
    let mut s = sending(TcpVariant::Sack, 10, |_| {});
    // Segments 0, 3 and 6 lost; 1, 2, 4, 5, 7, 8, 9 arrive.
    s.sack(0, &[segs(1, 2)]);
    s.sack(0, &[segs(1, 3)]);
    assert_eq!(s.sack(0, &[segs(4, 5), segs(1, 3)]), vec![(0, true)]);
    // Pipe: 3 (not lost: 5..=9 minus SACKed) … the sender holds until pipe falls.
    let mut sent = Vec::new();
    for b in [
        vec![segs(4, 6), segs(1, 3)],
        vec![segs(7, 8), segs(4, 6), segs(1, 3)],
        vec![segs(7, 9), segs(4, 6), segs(1, 3)],
        vec![segs(7, 10), segs(4, 6), segs(1, 3)],
    ] {
        sent.extend(s.sack(0, &b));
    }
    let retransmitted: Vec<Seg> = sent.iter().copied().filter(|&(_, r)| r).collect();
    assert_eq!(
        retransmitted,
        vec![(3, true), (6, true)],
        "both further holes, once each, before new data would wait: {sent:?}"
    );
    assert_eq!(
        sent[0],
        (3, true),
        "rule (1) comes before new data (rule 2)"
    );
    assert_eq!(s.conn.stats().timeouts, 0);
}

/// RFC 6675 `NextSeg` rule (4): with the tail lost and no new data, one rescue segment
/// holding the highest un-SACKed byte is sent once HighACK passes RescueRxt, HighRxt
/// unchanged; then rule (3) repairs the rest, with no timeout.
#[test]
fn rfc6675_rescue_retransmission_sends_the_highest_unsacked_segment_once() {
    let mut cfg = config(TcpVariant::Sack);
    cfg.initial_window = InitialWindow::Segments(10);
    let mut s = Scripted::established(cfg, ms(100));
    assert_eq!(s.write(10 * SEG), new_segs(0, 10), "all the data there is");
    // Segments 0, 8 and 9 lost; 1..=7 arrive.
    let mut sent = Vec::new();
    for k in 2..=8 {
        sent.push(s.sack(0, &[segs(1, k)]));
    }
    assert_eq!(sent[2], vec![(0, true)], "fast retransmit on the third");
    assert!(
        sent.iter().skip(3).all(Vec::is_empty),
        "no rule applies while HighACK ≤ RescueRxt: {sent:?}"
    );
    // The retransmission of 0 arrives: ACK 8. Rules (1)–(3) find nothing; the rescue holds
    // the highest outstanding un-SACKed byte (in segment 9).
    assert_eq!(s.ack(8 * SEG), vec![(9, true)]);
    assert_eq!(s.ack(8 * SEG), vec![], "one rescue per recovery");
    // The rescue arrives: segment 8 is now the only hole below a SACKed byte: rule (3).
    assert_eq!(s.sack(8 * SEG, &[segs(9, 10)]), vec![(8, true)]);
    s.ack(10 * SEG);
    assert!(!s.conn.in_fast_recovery());
    assert_eq!(s.conn.stats().timeouts, 0);
    assert_eq!(s.conn.stats().retransmits, 3);
}

/// Limited transmit through pipe (RFC 6675 step 3): the first two SACK duplicates each let
/// one new segment out; the third starts recovery with FlightSize not counting them.
#[test]
fn rfc6675_step_3_limited_transmit_sends_new_data_on_the_first_two_duplicates() {
    let mut s = sending(TcpVariant::Sack, 10, |c| c.limited_transmit = true);
    assert_eq!(s.sack(0, &[segs(1, 2)]), new_segs(10, 11));
    assert_eq!(s.sack(0, &[segs(1, 3)]), new_segs(11, 12));
    assert_eq!(s.sack(0, &[segs(1, 4)]), vec![(0, true)]);
    assert_eq!(
        s.ssthresh(),
        5 * SEG,
        "FlightSize 12 minus the 2 sent by limited transmit"
    );
    let mut without = sending(TcpVariant::Sack, 10, |_| {});
    assert_eq!(without.sack(0, &[segs(1, 2)]), vec![]);
    assert_eq!(without.sack(0, &[segs(1, 3)]), vec![]);
}

/// RFC 3042 for NewReno: one new segment on each of the first two duplicate ACKs if the
/// receiver's window allows, none on the third (the fast retransmit), cwnd unchanged.
#[test]
fn rfc3042_limited_transmit_sends_one_new_segment_per_early_dupack() {
    let mut s = sending(TcpVariant::Newreno, 10, |c| c.limited_transmit = true);
    let replies = s.dupacks(0, 3);
    assert_eq!(
        replies,
        vec![new_segs(10, 11), new_segs(11, 12), vec![(0, true)]]
    );
    assert_eq!(
        s.ssthresh(),
        5 * SEG,
        "RFC 5681 §3.2: FlightSize without them"
    );
    let mut without = sending(TcpVariant::Newreno, 10, |_| {});
    assert_eq!(without.dupacks(0, 3), vec![vec![], vec![], vec![(0, true)]]);
    assert_eq!(without.ssthresh(), 5 * SEG);
    // The receiver's window still rules.
    let mut tight = sending(TcpVariant::Newreno, 10, |c| c.limited_transmit = true);
    tight.peer_window = 10_000;
    assert_eq!(tight.dupacks(0, 2), vec![vec![], vec![]]);
}

/// FACK (Mathis & Mahdavi §3): recovery starts when snd.fack − SND.UNA > 3 MSS, so one ACK
/// whose SACK reaches five segments past a hole starts it, where RFC 6675 (two segments
/// SACKed, one duplicate) still waits.
#[test]
fn fack_enters_recovery_before_three_duplicate_acks_on_a_multi_loss_window() {
    let mut fack = sending(TcpVariant::Fack, 10, |_| {});
    // Segments 0, 1 and 2 lost; 3 and 4 arrive.
    assert_eq!(fack.sack(0, &[segs(3, 5)]), vec![(0, true)]);
    assert!(fack.conn.in_fast_recovery());
    assert_eq!((fack.cwnd(), fack.ssthresh()), (5 * SEG, 5 * SEG));
    let mut sack = sending(TcpVariant::Sack, 10, |_| {});
    assert_eq!(sack.sack(0, &[segs(3, 5)]), vec![]);
    assert!(!sack.conn.in_fast_recovery());
}

/// FACK retransmits the holes below snd.fack in order while awnd = snd.nxt − snd.fack +
/// retran_data stays below cwnd.
#[test]
fn fack_retransmits_holes_below_the_forward_ack_under_awnd() {
    let mut s = sending(TcpVariant::Fack, 10, |_| {});
    // 0, 1, 2 lost; 3..=9 arrive one by one.
    assert_eq!(s.sack(0, &[segs(3, 5)]), vec![(0, true)]);
    // awnd = 10 − 5 + 1 = 6 > cwnd 5: wait.
    assert_eq!(s.sack(0, &[segs(3, 6)]), vec![], "awnd 10 − 6 + 1 = 5");
    assert_eq!(
        s.sack(0, &[segs(3, 7)]),
        vec![(1, true)],
        "awnd 4 + 1: hole 1"
    );
    assert_eq!(s.sack(0, &[segs(3, 8)]), vec![(2, true)]);
    assert_eq!(
        s.sack(0, &[segs(3, 9)]),
        new_segs(10, 11),
        "holes done: new data"
    );
    assert_eq!(s.conn.stats().retransmits, 3);
}

/// FACK's awnd before any recovery: data SACKed above a hole leaves the network, so new
/// data may go out though SND.UNA has not moved (the paper's sender).
#[test]
fn fack_awnd_shrinks_as_sacks_arrive_and_lets_new_data_out() {
    let mut s = sending(TcpVariant::Fack, 10, |_| {});
    assert_eq!(
        s.sack(0, &[segs(1, 2)]),
        new_segs(10, 12),
        "awnd 10 − 2 = 8"
    );
    assert!(!s.conn.in_fast_recovery());
}

/// RFC 6937 PRR: while pipe > ssthresh one segment leaves per two delivered, prr_out never
/// exceeds ⌈prr_delivered · ssthresh / RecoverFS⌉, and recovery ends with cwnd = ssthresh
/// after sending about ssthresh in all. RFC 6675 alone sends nothing for half a window.
#[test]
fn rfc6937_prr_spreads_the_reduction_over_the_recovery() {
    let run = |prr: bool| {
        let mut s = sending(TcpVariant::Sack, 20, |c| c.prr = prr);
        let mut per_ack = Vec::new();
        for k in 2..=20 {
            per_ack.push(s.sack(0, &[segs(1, k)]).len());
            if let Some(p) = s.conn.loss_recovery().prr() {
                let bound = (p.prr_delivered * s.ssthresh()).div_ceil(p.recover_fs);
                if s.conn.loss_recovery().pipe() > s.ssthresh() {
                    assert!(p.prr_out <= bound + SEG, "{p:?}");
                }
            }
        }
        let out = s.conn.loss_recovery().prr();
        s.ack(20 * SEG);
        assert!(!s.conn.in_fast_recovery());
        (per_ack, out, s.cwnd(), s.ssthresh())
    };
    let (with, prr, cwnd, ssthresh) = run(true);
    assert_eq!(ssthresh, 10 * SEG);
    assert_eq!(cwnd, ssthresh, "RFC 6937: cwnd = ssthresh at the end");
    let prr = prr.expect("PRR ran");
    assert_eq!(prr.recover_fs, 20 * SEG);
    assert!(
        (9 * SEG..=11 * SEG).contains(&prr.prr_out),
        "about ssthresh sent during recovery: {prr:?}"
    );
    let (without, _, _, _) = run(false);
    assert_eq!(with[2], 1, "the fast retransmit: {with:?}");
    assert_eq!(
        without[3..10],
        [0; 7],
        "RFC 6675 waits for pipe to fall below cwnd: {without:?}"
    );
    // In bytes: after the fast retransmit (prr_out = 1 segment, prr_delivered = 1), the
    // next segment is earned when ⌈prr_delivered · 10/20⌉ reaches 2 segments.
    assert_eq!(
        with[3..10],
        [0, 0, 1, 0, 1, 0, 1],
        "PRR: one per two delivered from the start: {with:?}"
    );
}

/// One loss window from the RFC 6675 motivation: three holes in one window. SACK repairs
/// them all within one round trip; NewReno needs one round trip per hole (a partial ACK
/// names the next one). Neither times out.
#[test]
fn rfc6675_repairs_several_losses_in_one_window_in_one_rtt_where_newreno_needs_one_per_hole() {
    let transfer = |variant| {
        let mut cfg = config(variant);
        cfg.rwnd_bytes = 64_000;
        cfg.initial_window = InitialWindow::Segments(10);
        let mut peer = config(variant);
        peer.isn = 777_777;
        let mut p = Pair::new(cfg, peer);
        let first_byte = SeqNumber(ISN) + 1;
        p.drop = Box::new(move |side, seg, times| {
            side == Side::A
                && seg.segment.payload_len > 0
                && matches!((seg.segment.header.seq - first_byte) / MSS, 30 | 33 | 36)
                && times == 0
        });
        p.transfer(100_000, SimDuration::from_secs(600));
        Pair::assert_in_order_once(&p.delivered_to_b, 100_000);
        let rtx: Vec<SimTime> = p
            .log
            .iter()
            .filter(|(_, side, s)| *side == Side::A && s.is_retransmission)
            .map(|(t, _, _)| *t)
            .collect();
        (p.a.stats().clone(), rtx, p.now)
    };
    // One round trip: 2 × 20 ms of propagation plus serialisation.
    let rtt = ms(40);
    let (sack, sack_rtx, sack_done) = transfer(TcpVariant::Sack);
    assert_eq!((sack.fast_retransmits, sack.timeouts), (1, 0));
    assert_eq!(sack.retransmits, 3);
    let sack_span = sack_rtx[2] - sack_rtx[0];
    assert!(
        sack_span < rtt,
        "all three holes within one RTT: {sack_span:?}"
    );
    let (newreno, nr_rtx, nr_done) = transfer(TcpVariant::Newreno);
    assert_eq!((newreno.fast_retransmits, newreno.timeouts), (1, 0));
    assert_eq!(newreno.retransmits, 3);
    let nr_span = nr_rtx[2] - nr_rtx[0];
    assert!(nr_span >= rtt * 2, "one RTT per hole: {nr_span:?}");
    assert!(sack_done < nr_done, "{sack_done:?} vs {nr_done:?}");
}

/// RFC 6675 as written repairs a burst of losses in one window without a timeout: ten
/// consecutive segments and then every other segment of the next twenty (the pattern of a
/// slow-start overshoot) are lost once each; one recovery retransmits all twenty holes
/// under cwnd − pipe, none twice, and the timer never fires.
#[test]
fn rfc6675_repairs_a_burst_of_losses_in_one_window_without_a_timeout() {
    let mut cfg = config(TcpVariant::Sack);
    cfg.rwnd_bytes = 200_000;
    cfg.initial_window = InitialWindow::Segments(100);
    let mut peer = config(TcpVariant::Sack);
    peer.isn = 777_777;
    let mut p = Pair::new(cfg, peer);
    let first_byte = SeqNumber(ISN) + 1;
    let lost = |n: u32| (30..40).contains(&n) || ((40..60).contains(&n) && n.is_multiple_of(2));
    p.drop = Box::new(move |side, seg, times| {
        side == Side::A
            && seg.segment.payload_len > 0
            && lost((seg.segment.header.seq - first_byte) / MSS)
            && times == 0
    });
    p.transfer(200_000, SimDuration::from_secs(600));
    Pair::assert_in_order_once(&p.delivered_to_b, 200_000);
    let rtx: Vec<u32> = p
        .log
        .iter()
        .filter(|(_, side, s)| *side == Side::A && s.is_retransmission)
        .map(|(_, _, s)| (s.segment.header.seq - first_byte) / MSS)
        .collect();
    let s = p.a.stats();
    assert_eq!((s.fast_retransmits, s.timeouts), (1, 0), "{s:?}");
    let holes: Vec<u32> = (30..60).filter(|&n| lost(n)).collect();
    assert_eq!(rtx[..20], holes[..], "each hole once, in order");
    // The data ran out during recovery: rule (4)'s one rescue of the highest segment.
    assert_eq!(rtx[20..], [199]);
}

impl Scripted {
    fn loss_recovery_pipe(&self) -> u64 {
        self.conn.loss_recovery().pipe()
    }
}

/// A SACK sender with RACK-TLP (RFC 8985), IW `iw`, RTT 100 ms, everything written.
/// RFC 5681 (4) sets ssthresh at a timeout to *no more than* max(FlightSize/2, 2·SMSS). While
/// a retransmission lost again holds SND.UNA, RFC 6675 recovery keeps sending new data as
/// SACKs come, so SND.MAX − SND.UNA grows by about a window per round trip until the timer
/// fires: halving all of it would slow-start far past the window the path carried. The
/// sender halves what it estimates in the network instead (the pipe, as ns-3 passes
/// BytesInFlight to `GetSsThresh`; Linux halves cwnd).
#[test]
fn rfc5681_a_timeout_after_a_long_sack_recovery_halves_the_pipe_not_all_data_sent_since() {
    let mut s = sending(TcpVariant::Sack, 10, |_| {});
    s.at(at_ms(200));
    s.sack(0, &[segs(1, 2)]);
    s.sack(0, &[segs(1, 3)]);
    assert!(s.sack(0, &[segs(1, 4)]).contains(&(0, true)));
    assert_eq!(s.ssthresh(), 5 * SEG);
    // The retransmission of segment 0 is lost; everything sent after it arrives, for 60
    // segments, each SACK letting new data out.
    for k in 4..64 {
        s.at(at_ms(300 + 2 * k));
        s.sack(0, &[segs(1, k + 1)]);
    }
    let sent_since = s.conn.bytes_in_flight();
    assert!(sent_since >= 60 * SEG, "{sent_since}");
    assert!(s.fire().contains(&(0, true)), "the timer resends segment 0");
    assert_eq!(s.conn.stats().timeouts, 1);
    assert_eq!(s.cwnd(), SEG);
    // The pipe at the timeout: the segments sent but neither SACKed nor lost (at most
    // cwnd = 5), not the 60-odd segments above the hole.
    assert!(
        (2 * SEG..=3 * SEG).contains(&s.ssthresh()),
        "ssthresh {} for a pipe of at most 5 segments ({sent_since} bytes outstanding)",
        s.ssthresh()
    );
}

fn rack_sending(iw: u32, edit: impl FnOnce(&mut TcpConfig)) -> Scripted {
    sending(TcpVariant::Sack, iw, |c| {
        c.rack = true;
        edit(c);
    })
}

/// RFC 8985 §6.2: a retransmission lost again is judged lost once segments sent after it
/// are SACKed and RACK.rtt has passed since it went out, and sent a third time — where
/// RFC 6675, whose `NextSeg` only looks above HighRxt, waits for the retransmission timer.
#[test]
fn rfc8985_rack_retransmits_a_lost_retransmission_without_a_timeout() {
    for rack in [false, true] {
        let mut s = sending(TcpVariant::Sack, 10, |c| c.rack = rack);
        s.at(at_ms(200));
        // Segment 0 lost; 1, 2, 3 SACKed: recovery retransmits it (and sends new data).
        s.sack(0, &[segs(1, 2)]);
        s.sack(0, &[segs(1, 3)]);
        let first = s.sack(0, &[segs(1, 4)]);
        assert!(first.contains(&(0, true)), "rack {rack}: {first:?}");
        // The retransmission is lost too; the rest of the window and what recovery sent
        // after the retransmission arrive over the next 100 ms.
        let mut later = Vec::new();
        for k in 4..14 {
            s.at(at_ms(300 + k));
            later.extend(s.sack(0, &[segs(1, k + 1)]));
        }
        let again = later.iter().filter(|&&seg| seg == (0, true)).count();
        assert_eq!(
            again,
            usize::from(rack),
            "rack {rack}: segment 0 sent a third time within recovery: {later:?}"
        );
        assert_eq!(s.conn.stats().timeouts, 0);
    }
}

/// RFC 8985 §7: when the tail of a flight is lost and no ACK comes, a probe 2·SRTT later
/// sends new data beyond cwnd; its SACK then shows the tail lost and recovery repairs it,
/// before the retransmission timer (1 s) would have.
#[test]
fn rfc8985_tail_loss_probe_turns_a_tail_loss_into_fast_recovery() {
    let mut s = rack_sending(4, |_| {});
    // Segments 0 and 1 arrive; 2 and 3 are lost. ACKs at 100 ms: new data 4..7 goes.
    s.at(at_ms(200));
    s.ack(SEG);
    s.ack(2 * SEG);
    let cwnd_before = s.cwnd();
    // Nothing more arrives: the probe timer fires at 2·SRTT, before the RTO.
    let probe = s.fire();
    assert!(s.now < at_ms(200) + ms(1000), "probe at {:?}", s.now);
    assert_eq!(probe.len(), 1, "one probe segment: {probe:?}");
    assert!(!probe[0].1, "new data, beyond cwnd {cwnd_before}");
    assert_eq!(s.conn.stats().timeouts, 0);
}
