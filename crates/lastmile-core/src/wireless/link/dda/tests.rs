//! The DDA link layer driven with scripted frames and MAC signals (Pentikousis §2.1.2.2).

use super::*;
use crate::packet::PacketId;

/// A 128-byte UDP datagram (100 bytes of payload) needing `service`.
fn packet(id: u64, service: Service) -> Packet {
    Packet {
        service,
        ..crate::packet::test_datagram(id, 128)
    }
}

fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

fn link(window: u32, in_order: bool) -> DdaLink {
    DdaLink::new(DdaLinkConfig {
        window,
        ack_timeout: SimDuration::from_millis(5),
        retry_limit: 3,
        in_order,
    })
}

/// The data frames (seq) and failed attempts (packet id) of `out`.
fn sent(out: &[DdaOutput]) -> Vec<u32> {
    out.iter()
        .filter_map(|o| match o {
            DdaOutput::ToMac(DdaFrame::Data { seq, .. }) => Some(*seq),
            _ => None,
        })
        .collect()
}

fn released(out: &[DdaOutput]) -> Vec<u64> {
    out.iter()
        .filter_map(|o| match o {
            DdaOutput::ToNetwork(p) => Some(p.id.0),
            _ => None,
        })
        .collect()
}

fn acks(out: &[DdaOutput]) -> Vec<(u32, u32)> {
    out.iter()
        .filter_map(|o| match o {
            DdaOutput::ToMac(DdaFrame::Ack { next, got, .. }) => Some((*next, *got)),
            _ => None,
        })
        .collect()
}

fn failed(out: &[DdaOutput]) -> Vec<u64> {
    out.iter()
        .filter_map(|o| match o {
            DdaOutput::AttemptFailed(p) => Some(p.id.0),
            _ => None,
        })
        .collect()
}

/// A sender with `n` reliable datagrams (ids 0..n) accepted at time 0; each data frame
/// leaves the MAC 1 ms after the previous. Returns the frames sent, in order.
fn send_all(s: &mut DdaLink, n: u64) -> Vec<u32> {
    let mut out = Vec::new();
    for id in 0..n {
        s.handle(
            t(0),
            DdaInput::FromNetwork(packet(id, Service::Reliable)),
            &mut out,
        );
    }
    let mut frames = sent(&out);
    for ms in 1..=n {
        out.clear();
        s.handle(t(ms), DdaInput::MacSignal(MacSignal::TxSuccess), &mut out);
        frames.extend(sent(&out));
    }
    frames
}

fn data(seq: u32, una: u32, id: u64) -> DdaInput {
    DdaInput::FrameReceived(DdaFrame::Data {
        seq,
        una,
        packet: packet(id, Service::Reliable),
    })
}

fn ack(next: u32, got: u32) -> DdaInput {
    DdaInput::FrameReceived(DdaFrame::Ack {
        next,
        got,
        also: Vec::new(),
        piggyback: None,
    })
}

/// Link ACKs in `out` with every number they acknowledge: (next, got, also).
fn acks_merged(out: &[DdaOutput]) -> Vec<(u32, u32, Vec<u32>)> {
    out.iter()
        .filter_map(|o| match o {
            DdaOutput::ToMac(DdaFrame::Ack {
                next, got, also, ..
            }) => Some((*next, *got, also.clone())),
            _ => None,
        })
        .collect()
}

fn mac_done(l: &mut DdaLink, at: SimTime, out: &mut Vec<DdaOutput>) {
    l.handle(at, DdaInput::MacSignal(MacSignal::TxSuccess), out);
}

#[test]
fn dda_receiver_passes_frames_up_past_a_gap_and_acks_each() {
    let mut r = link(8, false);
    let mut out = Vec::new();
    for (seq, id) in [(0, 10), (2, 12), (3, 13)] {
        r.handle(t(0), data(seq, 0, id), &mut out);
    }
    // "The protocol does not attempt to deliver the packets in-order" (the survey).
    assert_eq!(released(&out), vec![10, 12, 13]);
    assert_eq!(acks(&out), vec![(1, 0)], "one frame at the MAC at a time");
    out.clear();
    mac_done(&mut r, t(0), &mut out);
    assert_eq!(
        acks_merged(&out),
        vec![(1, 3, vec![2])],
        "the ACKs that waited go as one"
    );
    out.clear();
    mac_done(&mut r, t(0), &mut out);
    r.handle(t(1), data(1, 0, 11), &mut out);
    assert_eq!(released(&out), vec![11]);
    assert_eq!(acks(&out), vec![(4, 1)], "the gap filled: cumulative to 4");
    out.clear();
    mac_done(&mut r, t(1), &mut out);
    r.handle(t(2), data(2, 0, 12), &mut out);
    assert_eq!(
        released(&out),
        Vec::<u64>::new(),
        "a duplicate goes up once"
    );
    assert_eq!(acks(&out), vec![(4, 2)], "and is acknowledged again");
    assert_eq!(r.metrics().released_out_of_order, 2);
}

#[test]
fn dda_link_ack_carries_the_tcp_ack_waiting_and_frees_every_frame_it_names() {
    // The mobile: a data frame arrives while its link ACK for the previous one is at the
    // MAC, and its TCP answers with an ACK (a best-effort datagram).
    let mut r = link(8, false);
    let mut out = Vec::new();
    r.handle(t(0), data(0, 0, 10), &mut out);
    r.handle(
        t(0),
        DdaInput::FromNetwork(packet(20, Service::Unreliable)),
        &mut out,
    );
    r.handle(t(1), data(1, 0, 11), &mut out);
    out.clear();
    mac_done(&mut r, t(1), &mut out);
    // "Each TCP ACK should be encapsulated in single LL ACK" (the survey).
    let [DdaOutput::ToMac(DdaFrame::Ack {
        next: 2,
        got: 1,
        piggyback: Some(p),
        ..
    })] = out.as_slice()
    else {
        panic!("{out:?}")
    };
    assert_eq!(p.id, PacketId(20));
    let p = *p;
    // The base station: the ACK names frames 1 and 3 (also), 2 is missing; the TCP ACK
    // goes up.
    let mut s = link(8, false);
    assert_eq!(send_all(&mut s, 4), vec![0, 1, 2, 3]);
    out.clear();
    let frame = DdaFrame::Ack {
        next: 2,
        got: 3,
        also: vec![1],
        piggyback: Some(p),
    };
    s.handle(t(5), DdaInput::FrameReceived(frame), &mut out);
    assert_eq!(released(&out), vec![20]);
    assert_eq!(
        sent(&out),
        vec![2],
        "2 went before 3 and is not named: lost"
    );
    assert_eq!(s.outstanding_frames(), 1);
}

#[test]
fn dda_in_order_holds_frames_behind_a_gap() {
    let mut r = link(8, true);
    let mut out = Vec::new();
    for (seq, id) in [(0, 10), (2, 12), (3, 13)] {
        r.handle(t(0), data(seq, 0, id), &mut out);
    }
    assert_eq!(released(&out), vec![10]);
    out.clear();
    r.handle(t(1), data(1, 0, 11), &mut out);
    assert_eq!(released(&out), vec![11, 12, 13]);
}

#[test]
fn dda_receiver_stops_waiting_for_frames_the_sender_gave_up() {
    let mut r = link(8, true);
    let mut out = Vec::new();
    r.handle(t(0), data(0, 0, 10), &mut out);
    r.handle(t(0), data(2, 0, 12), &mut out);
    out.clear();
    mac_done(&mut r, t(0), &mut out);
    out.clear();
    mac_done(&mut r, t(0), &mut out);
    // Frame 1 was given up: the next frame says una = 2.
    r.handle(t(1), data(3, 2, 13), &mut out);
    assert_eq!(released(&out), vec![12, 13]);
    assert_eq!(acks(&out), vec![(4, 3)]);
}

#[test]
fn dda_ll_duplicate_ack_retransmits_the_lost_frame_ahead_of_new_ones() {
    let mut s = link(8, false);
    assert_eq!(send_all(&mut s, 4), vec![0, 1, 2, 3]);
    let mut out = Vec::new();
    s.handle(t(5), ack(1, 0), &mut out);
    assert!(sent(&out).is_empty());
    // Frame 1 was lost on the air: the ACK for frame 2 (sent after it) says so.
    s.handle(t(5), ack(1, 2), &mut out);
    assert_eq!(sent(&out), vec![1], "retransmitted at once");
    assert_eq!(failed(&out), vec![1], "one failed attempt reported");
    assert_eq!(s.metrics().losses_by_ack, 1);
    out.clear();
    // Frame 3's ACK was sent before the retransmission: no second retransmission.
    s.handle(t(5), ack(1, 3), &mut out);
    s.handle(t(6), DdaInput::MacSignal(MacSignal::TxSuccess), &mut out);
    assert!(sent(&out).is_empty());
    s.handle(t(7), ack(4, 1), &mut out);
    assert_eq!(s.outstanding_frames(), 0);
    assert_eq!(s.metrics().retransmissions, 1);
}

#[test]
fn dda_ack_timer_retransmits_and_the_retry_limit_gives_up() {
    let mut s = link(8, false);
    assert_eq!(send_all(&mut s, 1), vec![0]);
    assert_eq!(s.poll_timeout(), Some(t(6)), "5 ms after the MAC is done");
    let mut out = Vec::new();
    for attempt in 1..=3 {
        out.clear();
        let at = s.poll_timeout().expect("an ACK is awaited");
        s.handle(at, DdaInput::Timeout, &mut out);
        assert_eq!(failed(&out), vec![0]);
        if attempt < 3 {
            assert_eq!(sent(&out), vec![0], "attempt {attempt} failed: again");
            s.handle(at, DdaInput::MacSignal(MacSignal::TxSuccess), &mut out);
        } else {
            assert!(sent(&out).is_empty(), "given up after 3 attempts");
        }
    }
    assert_eq!(s.metrics().drops, 1);
    assert_eq!(s.outstanding_frames(), 0);
    assert_eq!(s.poll_timeout(), None);
}

#[test]
fn dda_mac_failure_is_a_failed_attempt_at_once_reported_by_the_mac_alone() {
    let mut s = link(8, false);
    let mut out = Vec::new();
    s.handle(
        t(0),
        DdaInput::FromNetwork(packet(7, Service::Reliable)),
        &mut out,
    );
    out.clear();
    s.handle(t(1), DdaInput::MacSignal(MacSignal::TxFailure), &mut out);
    // Sent again at once; the station's agent hears the MAC's failure from the MAC (EBSN
    // sends one message per failed attempt, not two).
    assert_eq!((sent(&out), failed(&out)), (vec![0], vec![]));
    assert_eq!(s.metrics().losses_by_timer, 1);
}

#[test]
fn dda_window_limits_the_frames_outstanding() {
    let mut s = link(2, false);
    assert_eq!(send_all(&mut s, 4), vec![0, 1]);
    assert_eq!(s.queued_packets(), 2);
    let mut out = Vec::new();
    s.handle(t(5), ack(1, 0), &mut out);
    assert_eq!(sent(&out), vec![2]);
}

#[test]
fn dda_unreliable_datagrams_go_once_between_data_frames() {
    let mut s = link(8, false);
    let mut out = Vec::new();
    s.handle(
        t(0),
        DdaInput::FromNetwork(packet(1, Service::Unreliable)),
        &mut out,
    );
    s.handle(
        t(0),
        DdaInput::FromNetwork(packet(2, Service::Unreliable)),
        &mut out,
    );
    assert_eq!(out.len(), 1);
    s.handle(t(1), DdaInput::MacSignal(MacSignal::TxSuccess), &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(s.poll_timeout(), None);
}
