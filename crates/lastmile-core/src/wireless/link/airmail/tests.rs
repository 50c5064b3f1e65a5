//! AIRMAIL's rules (AIR-R1..R3, `airmail.rs`), driven by hand between a base station and a
//! mobile, with frames lost on purpose.

use super::*;

fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

fn cfg(window: u32) -> AirmailConfig {
    AirmailConfig {
        info_bytes: 64,
        header_bytes: 4,
        window,
        status_period: SimDuration::from_millis(100),
        ack_timeout: SimDuration::from_millis(300),
        block_timeout: SimDuration::from_millis(300),
    }
}

use crate::packet::test_datagram as datagram;

fn frames(out: &[AirmailOutput]) -> Vec<AirFrame> {
    out.iter()
        .filter_map(|o| match o {
            AirmailOutput::ToMac(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

fn released(out: &[AirmailOutput]) -> Vec<u64> {
    out.iter()
        .filter_map(|o| match o {
            AirmailOutput::ToNetwork(p) => Some(p.id.0),
            _ => None,
        })
        .collect()
}

/// Everything `end` sends until it has nothing more, one frame per MAC turn, 10 ms apart
/// from `from`.
fn drain(end: &mut Airmail, mut now: SimTime, first: Vec<AirFrame>) -> Vec<AirFrame> {
    let mut sent = first;
    loop {
        let mut out = Vec::new();
        now += SimDuration::from_millis(10);
        end.handle(now, AirmailInput::MacSignal(MacSignal::TxSuccess), &mut out);
        let f = frames(&out);
        if f.is_empty() {
            return sent;
        }
        sent.extend(f);
    }
}

/// A base station with `blocks` blocks of 64 bytes sent in one burst.
fn base_sending(blocks: u32, window: u32) -> (Airmail, Vec<AirFrame>) {
    let mut base = Airmail::new(cfg(window), Role::Base);
    let mut out = Vec::new();
    base.handle(
        t(0),
        AirmailInput::FromNetwork(datagram(1, 64 * blocks)),
        &mut out,
    );
    let sent = drain(&mut base, t(0), frames(&out));
    (base, sent)
}

fn seqs(frames: &[AirFrame]) -> Vec<u64> {
    frames
        .iter()
        .filter_map(|f| f.block.as_ref().map(|b| b.seq))
        .collect()
}

#[test]
fn airmail_base_sends_a_whole_window_and_polls_with_the_block_that_fills_it() {
    let (base, sent) = base_sending(12, 8);
    assert_eq!(
        seqs(&sent),
        (0..8).collect::<Vec<_>>(),
        "a window, then it waits"
    );
    let polls: Vec<Option<u64>> = sent.iter().map(|f| f.poll).collect();
    assert_eq!(polls[..7], [None; 7]);
    assert_eq!(
        polls[7],
        Some(8),
        "block 7 fills the window: it asks for status"
    );
    assert_eq!(base.outstanding(), 8);
}

#[test]
fn airmail_status_bitmap_triggers_exactly_the_missing_blocks() {
    let (mut base, sent) = base_sending(8, 8);
    let mut mobile = Airmail::new(cfg(8), Role::Mobile);
    // Blocks 2 and 5 are lost; the mobile answers the poll on block 7 with one status.
    let mut back = Vec::new();
    for f in sent
        .into_iter()
        .filter(|f| !matches!(&f.block, Some(b) if b.seq == 2 || b.seq == 5))
    {
        mobile.handle(t(100), AirmailInput::FrameReceived(f), &mut back);
    }
    let status = frames(&back)
        .into_iter()
        .find_map(|f| f.status)
        .expect("the poll is answered");
    assert_eq!(status.missing(), vec![2, 5]);
    assert_eq!((status.cum, status.upto), (2, 8));
    // The base sends exactly blocks 2 and 5 again, the last of them polling.
    let mut out = Vec::new();
    let answer = AirFrame {
        status: Some(status),
        ..AirFrame::default()
    };
    base.handle(t(150), AirmailInput::FrameReceived(answer), &mut out);
    let again = drain(&mut base, t(150), frames(&out));
    assert_eq!(seqs(&again), vec![2, 5]);
    assert_eq!(again.last().and_then(|f| f.poll), Some(8));
    assert_eq!(base.metrics().retransmissions, 2);
    // Delivered, the mobile releases the whole datagram once.
    let mut up = Vec::new();
    for f in again {
        mobile.handle(t(200), AirmailInput::FrameReceived(f), &mut up);
    }
    assert_eq!(released(&back).len() + released(&up).len(), 1);
}

#[test]
fn airmail_mobile_sends_one_status_per_window_not_per_block() {
    // 64 blocks, window 16: four windows, each answered by one status.
    let mut base = Airmail::new(cfg(16), Role::Base);
    let mut mobile = Airmail::new(cfg(16), Role::Mobile);
    let mut out = Vec::new();
    base.handle(
        t(0),
        AirmailInput::FromNetwork(datagram(1, 64 * 64)),
        &mut out,
    );
    let mut now = t(0);
    let mut to_mobile = frames(&out);
    let mut statuses = 0;
    for _ in 0..400 {
        now += SimDuration::from_millis(5);
        let mut up = Vec::new();
        for f in to_mobile.drain(..) {
            mobile.handle(now, AirmailInput::FrameReceived(f), &mut up);
        }
        mobile.handle(now, AirmailInput::MacSignal(MacSignal::TxSuccess), &mut up);
        let mut down = Vec::new();
        for f in frames(&up) {
            statuses += usize::from(f.status.is_some());
            base.handle(now, AirmailInput::FrameReceived(f), &mut down);
        }
        base.handle(
            now,
            AirmailInput::MacSignal(MacSignal::TxSuccess),
            &mut down,
        );
        to_mobile = frames(&down);
    }
    assert_eq!(mobile.metrics().blocks_released, 64);
    assert_eq!(base.outstanding(), 0);
    assert_eq!(statuses, 4, "one status per window of 16 blocks");
}

#[test]
fn airmail_unanswered_poll_is_repeated_after_the_ack_timeout() {
    let (mut base, sent) = base_sending(4, 8);
    // The burst ended short of a window: the base polled when it had nothing more to send.
    assert_eq!(seqs(&sent), vec![0, 1, 2, 3]);
    assert_eq!(sent.last().and_then(|f| f.poll), Some(4));
    assert_eq!(sent.iter().filter(|f| f.poll.is_some()).count(), 1);
    // No status comes back: after the ack timeout (300 ms), it polls again.
    let deadline = base.poll_timeout().expect("the ack timer runs");
    let mut out = Vec::new();
    base.handle(deadline, AirmailInput::Timeout, &mut out);
    let f = frames(&out);
    assert_eq!(f.len(), 1);
    assert_eq!((f[0].block.is_none(), f[0].poll), (true, Some(4)));
    assert_eq!(base.metrics().polls_sent, 2);
}

#[test]
fn airmail_base_sends_periodic_status_for_the_uplink_and_the_mobile_fills_the_gaps() {
    let mut mobile = Airmail::new(cfg(8), Role::Mobile);
    let mut base = Airmail::new(cfg(8), Role::Base);
    let mut out = Vec::new();
    mobile.handle(
        t(0),
        AirmailInput::FromNetwork(datagram(9, 64 * 4)),
        &mut out,
    );
    let sent = drain(&mut mobile, t(0), frames(&out));
    assert_eq!(seqs(&sent), vec![0, 1, 2, 3]);
    assert!(
        sent.iter().all(|f| f.poll.is_none()),
        "the mobile never polls"
    );
    // Block 1 is lost. The base's status goes one period (100 ms) after the first arrival.
    let mut down = Vec::new();
    for f in sent
        .into_iter()
        .filter(|f| f.block.as_ref().is_some_and(|b| b.seq != 1))
    {
        base.handle(t(50), AirmailInput::FrameReceived(f), &mut down);
    }
    assert!(frames(&down).iter().all(|f| f.status.is_none()), "not yet");
    assert_eq!(base.poll_timeout(), Some(t(150)));
    down.clear();
    base.handle(t(150), AirmailInput::Timeout, &mut down);
    let status = frames(&down)
        .pop()
        .and_then(|f| f.status)
        .expect("the periodic status");
    assert_eq!(status.missing(), vec![1]);
    // The mobile sends exactly block 1 again.
    let mut up = Vec::new();
    let frame = AirFrame {
        status: Some(status),
        ..AirFrame::default()
    };
    mobile.handle(t(160), AirmailInput::FrameReceived(frame), &mut up);
    let again = drain(&mut mobile, t(160), frames(&up));
    assert_eq!(seqs(&again), vec![1]);
    let mut delivered = Vec::new();
    for f in again {
        base.handle(t(200), AirmailInput::FrameReceived(f), &mut delivered);
    }
    assert_eq!(released(&delivered), vec![9]);
}
