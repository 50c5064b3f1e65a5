//! RLP's rules (GSM 04.22, as in `rlp.rs`), each driven by hand: frames out of one entity
//! are handed to the other as a duplex channel would, some of them lost on purpose.

use super::*;
use crate::engine::SimDuration;
use crate::wireless::link::stream::Chunk;

fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

use crate::packet::test_datagram as datagram;

fn rlp() -> Rlp {
    Rlp::new(RlpConfig::default())
}

/// The frames an entity handed its MAC.
fn frames(out: &[RlpOutput]) -> Vec<RlpFrame> {
    out.iter()
        .filter_map(|o| match o {
            RlpOutput::ToMac(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

fn released(out: &[RlpOutput]) -> Vec<u64> {
    out.iter()
        .filter_map(|o| match o {
            RlpOutput::ToNetwork(p) => Some(p.id.0),
            _ => None,
        })
        .collect()
}

/// The sender sends its next frame: the MAC finishes the previous one at `now`.
fn next(s: &mut Rlp, now: SimTime) -> Option<RlpFrame> {
    let mut out = Vec::new();
    s.handle(now, RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    frames(&out).pop()
}

fn ns_of(f: &RlpFrame) -> Option<u64> {
    match f {
        RlpFrame::Info { ns, .. } => Some(*ns),
        _ => None,
    }
}

fn info(ns: u64, ends: Vec<Packet>) -> RlpFrame {
    RlpFrame::Info {
        ns,
        chunk: Chunk { bytes: 24, ends },
        sup: Sup {
            kind: SupKind::Rr,
            nr: 0,
            poll: false,
            fin: false,
        },
    }
}

fn sup(kind: SupKind, nr: u64) -> RlpFrame {
    RlpFrame::Super(Sup {
        kind,
        nr,
        poll: false,
        fin: false,
    })
}

#[test]
fn rlp_frame_is_240_bits_so_tch_f9_6_sends_one_every_20_ms_and_carries_9_6_kbps() {
    let c = RlpConfig::default();
    assert_eq!(c.frame_bytes() * 8, 240);
    // 240 bits at 12 kbit/s = 20 ms; 24 user bytes per 20 ms = 9.6 kbit/s.
    assert_eq!(
        SimDuration::transmission(240, 12_000),
        SimDuration::from_millis(20)
    );
    assert_eq!(u64::from(c.info_bytes) * 8 * 50, 9_600);
    assert_eq!(
        (c.window, c.n2, c.t1),
        (61, 6, SimDuration::from_millis(480))
    );
}

/// A sender with frames 0..n sent (a datagram of 24·n bytes cut into n frames).
fn sender_with(n: u64) -> Rlp {
    let mut s = rlp();
    let mut out = Vec::new();
    s.handle(
        t(0),
        RlpInput::FromNetwork(datagram(1, 24 * n as u32)),
        &mut out,
    );
    assert_eq!(frames(&out).len(), 1, "one frame at a time to the MAC");
    for i in 1..n {
        assert_eq!(next(&mut s, t(20 * i)).and_then(|f| ns_of(&f)), Some(i));
    }
    s
}

#[test]
fn rlp_srej_retransmits_only_the_rejected_frame() {
    let mut s = sender_with(6);
    assert_eq!(s.outstanding(), 6);
    // The receiver got 0, 1, 3, 4, 5 and asks for 2 alone.
    let mut out = Vec::new();
    s.handle(
        t(130),
        RlpInput::FrameReceived(sup(SupKind::Srej, 2)),
        &mut out,
    );
    // The MAC is still busy with frame 5: the retransmission waits for its turn...
    assert!(frames(&out).is_empty());
    // ...then frame 2 goes, and nothing else is sent again.
    assert_eq!(next(&mut s, t(140)).and_then(|f| ns_of(&f)), Some(2));
    assert_eq!(next(&mut s, t(160)), None, "no other frame goes again");
    assert_eq!(s.metrics().retransmissions, 1);
    // RR 6 acknowledges all six.
    s.handle(
        t(200),
        RlpInput::FrameReceived(sup(SupKind::Rr, 6)),
        &mut out,
    );
    assert_eq!(s.outstanding(), 0);
    assert_eq!(s.poll_timeout(), None, "T1 stops when all is acknowledged");
}

#[test]
fn rlp_receiver_asks_once_for_each_missing_frame_and_releases_in_order() {
    let mut r = rlp();
    let a = datagram(10, 40);
    let b = datagram(11, 40);
    let mut out = Vec::new();
    r.handle(t(0), RlpInput::FrameReceived(info(0, vec![])), &mut out);
    // Frames 1 and 2 are lost; 3 ends datagram `a`, 4 ends `b`.
    r.handle(t(60), RlpInput::FrameReceived(info(3, vec![a])), &mut out);
    r.handle(t(80), RlpInput::FrameReceived(info(4, vec![b])), &mut out);
    assert_eq!(r.missing(), vec![1, 2]);
    assert!(released(&out).is_empty(), "nothing past the gap goes up");
    // Its turns (the RR for frame 0 went at once): one SREJ for 1, one for 2, then nothing.
    assert!(matches!(
        frames(&out)[..],
        [RlpFrame::Super(Sup {
            kind: SupKind::Rr,
            nr: 1,
            ..
        })]
    ));
    let mut asked = Vec::new();
    for i in 0..3 {
        if let Some(RlpFrame::Super(s)) = next(&mut r, t(100 + 20 * i)) {
            asked.push((s.kind, s.nr));
        }
    }
    assert_eq!(asked, vec![(SupKind::Srej, 1), (SupKind::Srej, 2)]);
    assert_eq!(r.metrics().srej_sent, 2);
    out.clear();
    r.handle(t(200), RlpInput::FrameReceived(info(2, vec![])), &mut out);
    assert!(released(&out).is_empty());
    r.handle(t(220), RlpInput::FrameReceived(info(1, vec![])), &mut out);
    assert_eq!(released(&out), vec![10, 11], "1, 2, 3, 4 released in order");
    // A copy of frame 3 is a duplicate: counted, not released again.
    out.clear();
    r.handle(t(240), RlpInput::FrameReceived(info(3, vec![a])), &mut out);
    assert!(released(&out).is_empty());
    assert_eq!(r.metrics().duplicates_received, 1);
}

#[test]
fn rlp_srej_timer_asks_again_for_a_frame_still_missing() {
    let mut r = rlp();
    let mut out = Vec::new();
    r.handle(t(0), RlpInput::FrameReceived(info(1, vec![])), &mut out);
    assert!(matches!(
        frames(&out)[..],
        [RlpFrame::Super(Sup {
            kind: SupKind::Srej,
            nr: 0,
            ..
        })]
    ));
    // T1 (480 ms) after the SREJ, frame 0 is asked for again.
    assert_eq!(r.poll_timeout(), Some(t(480)));
    r.handle(t(20), RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    out.clear();
    r.handle(t(480), RlpInput::Timeout, &mut out);
    assert!(matches!(
        frames(&out)[..],
        [RlpFrame::Super(Sup {
            kind: SupKind::Srej,
            nr: 0,
            ..
        })]
    ));
    assert_eq!(r.metrics().srej_sent, 2);
}

#[test]
fn rlp_t1_expiry_polls_and_the_answer_resends_from_its_nr() {
    let mut s = sender_with(3);
    // Nothing comes back: T1 runs from the last I frame (sent at 40 ms).
    assert_eq!(s.poll_timeout(), Some(t(40 + 480)));
    next(&mut s, t(60));
    let mut out = Vec::new();
    s.handle(t(520), RlpInput::Timeout, &mut out);
    assert!(matches!(
        frames(&out)[..],
        [RlpFrame::Super(Sup { poll: true, .. })]
    ));
    assert_eq!(s.metrics().polls_sent, 1);
    // The answer (F = 1) says frame 0 arrived: 1 and 2 go again.
    out.clear();
    let fin = RlpFrame::Super(Sup {
        kind: SupKind::Rr,
        nr: 1,
        poll: false,
        fin: true,
    });
    s.handle(t(700), RlpInput::FrameReceived(fin), &mut out);
    assert_eq!(s.outstanding(), 2);
    assert_eq!(next(&mut s, t(720)).and_then(|f| ns_of(&f)), Some(1));
    assert_eq!(next(&mut s, t(740)).and_then(|f| ns_of(&f)), Some(2));
    assert_eq!(s.metrics().retransmissions, 2);
}

#[test]
fn rlp_receiver_answers_a_poll_at_once_with_the_final_bit() {
    let mut r = rlp();
    let mut out = Vec::new();
    r.handle(t(0), RlpInput::FrameReceived(info(0, vec![])), &mut out);
    r.handle(t(20), RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    out.clear();
    let poll = RlpFrame::Super(Sup {
        kind: SupKind::Rr,
        nr: 0,
        poll: true,
        fin: false,
    });
    r.handle(t(500), RlpInput::FrameReceived(poll), &mut out);
    assert!(matches!(
        frames(&out)[..],
        [RlpFrame::Super(Sup {
            fin: true,
            nr: 1,
            ..
        })]
    ));
}

#[test]
fn rlp_n2_unanswered_polls_reset_the_link_and_lose_its_data() {
    let mut s = sender_with(2);
    let mut now = t(40);
    next(&mut s, now);
    // T1 expires N2 = 6 times with no answer: six polls, then a SABM.
    let mut out = Vec::new();
    for _ in 0..6 {
        now = s.poll_timeout().expect("T1 runs");
        out.clear();
        s.handle(now, RlpInput::Timeout, &mut out);
        assert!(matches!(
            frames(&out)[..],
            [RlpFrame::Super(Sup { poll: true, .. })]
        ));
        s.handle(now, RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    }
    now = s.poll_timeout().expect("T1 runs");
    out.clear();
    s.handle(now, RlpInput::Timeout, &mut out);
    assert_eq!(frames(&out), vec![RlpFrame::Sabm]);
    assert_eq!(s.metrics().resets, 1);
    assert_eq!(
        s.metrics().datagrams_dropped,
        1,
        "the datagram in frames 0-1 is lost"
    );
    assert_eq!(s.outstanding(), 0);
    // UA ends the reset; new data starts again at frame 0.
    s.handle(now, RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    s.handle(now, RlpInput::FrameReceived(RlpFrame::Ua), &mut out);
    out.clear();
    s.handle(now, RlpInput::FromNetwork(datagram(2, 20)), &mut out);
    assert_eq!(frames(&out).first().and_then(ns_of), Some(0));
}

#[test]
fn rlp_a_peer_that_resets_restarts_the_receiver_and_is_acknowledged() {
    let mut r = rlp();
    let mut out = Vec::new();
    r.handle(t(0), RlpInput::FrameReceived(info(0, vec![])), &mut out);
    r.handle(t(10), RlpInput::FrameReceived(info(2, vec![])), &mut out);
    r.handle(t(20), RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    r.handle(t(25), RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    out.clear();
    r.handle(t(30), RlpInput::FrameReceived(RlpFrame::Sabm), &mut out);
    assert_eq!(frames(&out), vec![RlpFrame::Ua]);
    assert!(r.missing().is_empty());
    r.handle(t(50), RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    out.clear();
    let d = datagram(7, 20);
    r.handle(t(60), RlpInput::FrameReceived(info(0, vec![d])), &mut out);
    assert_eq!(
        released(&out),
        vec![7],
        "frame 0 of the new link is in sequence"
    );
}

#[test]
fn rlp_carries_tcp_acks_and_data_alike_in_one_reliable_stream() {
    // A two-frame datagram whose second frame is lost once: it reaches the peer whole.
    let (mut a, mut b) = (rlp(), rlp());
    let mut out = Vec::new();
    a.handle(t(0), RlpInput::FromNetwork(datagram(1, 40)), &mut out);
    let f0 = frames(&out).pop().expect("frame 0");
    let _lost = next(&mut a, t(20)).expect("frame 1");
    assert_eq!(next(&mut a, t(40)), None, "the MAC is free again");
    let mut back = Vec::new();
    b.handle(t(40), RlpInput::FrameReceived(f0), &mut back);
    // B acknowledges frame 0 with an RR; T1 at A then polls for frame 1.
    for f in frames(&back) {
        a.handle(t(60), RlpInput::FrameReceived(f), &mut out);
    }
    let now = a.poll_timeout().expect("T1 runs for frame 1");
    out.clear();
    a.handle(now, RlpInput::Timeout, &mut out);
    let poll = frames(&out).pop().expect("poll");
    back.clear();
    b.handle(now, RlpInput::MacSignal(MacSignal::TxSuccess), &mut back);
    b.handle(now, RlpInput::FrameReceived(poll), &mut back);
    let answer = frames(&back).pop().expect("answer");
    out.clear();
    a.handle(now, RlpInput::MacSignal(MacSignal::TxSuccess), &mut out);
    a.handle(now, RlpInput::FrameReceived(answer), &mut out);
    let again = frames(&out).pop().expect("frame 1 again");
    assert_eq!(ns_of(&again), Some(1));
    back.clear();
    b.handle(now, RlpInput::FrameReceived(again), &mut back);
    assert_eq!(released(&back), vec![1]);
}
