//! The receiver hooks mobility uses and the sender's side of them: a window shrunk to zero
//! with data outstanding (RFC 9293 §3.8.6.2.1, as 4.4BSD's `tcp_output`), Freeze-TCP's zero
//! window and its copies of the last ACK (Goff et al., INFOCOM 2000), and Cáceres & Iftode's
//! duplicate ACKs when a handoff completes (the survey §2.4.4.5).

use super::*;

fn sender(variant: TcpVariant, iw: u32) -> Scripted {
    let mut cfg = config(variant);
    cfg.initial_window = InitialWindow::Segments(iw);
    Scripted::established(cfg, ms(100))
}

#[test]
fn rfc9293_a_window_shrunk_to_zero_with_data_outstanding_persists_without_a_timeout() {
    let mut s = sender(TcpVariant::Reno, 6);
    assert_eq!(s.write(100_000), new_segs(0, 6));
    // The receiver acknowledges two segments and shuts its window (M-TCP's supervisor host
    // on disconnection; Freeze-TCP's zero window advertisement).
    s.peer_window = 0;
    assert_eq!(s.ack(2000), vec![]);
    let cwnd = s.cwnd();
    let persist = s.conn.poll_timeout().expect("the persist timer");
    assert!(
        s.conn.rto() <= persist - s.now,
        "the persist timer starts from the RTO"
    );
    // Long past any RTO: only one-byte probes at SND.UNA, never a timeout.
    for _ in 0..4 {
        s.fire();
        let probes: Vec<(u32, u32)> = s
            .out
            .segments
            .iter()
            .map(|o| (o.segment.payload_len, o.segment.header.seq.0))
            .collect();
        assert_eq!(probes, [(1, ISN + 1 + 2000)]);
        s.ack(2000);
    }
    assert!(s.now > at_ms(10_000));
    assert_eq!(s.conn.stats().timeouts, 0);
    assert_eq!(s.cwnd(), cwnd, "no window cut while persisting");
    // The window opens: the sender resumes at SND.UNA (SND.NXT was pulled back) with the
    // window it had.
    s.peer_window = 100_000;
    let sent = s.ack(2000);
    assert_eq!(sent[..4], [(2, true), (3, true), (4, true), (5, true)]);
    assert_eq!(s.cwnd(), cwnd);
    assert_eq!(s.conn.stats().timeouts, 0);
}

/// A sender `a` and a receiver `b` 20 ms apart; `a` sends `segments` of 1000 bytes.
fn pair(segments: u64) -> Pair {
    let mut p = Pair::new(config(TcpVariant::Newreno), config(TcpVariant::Newreno));
    p.connect();
    p.write(Side::A, segments * u64::from(MSS));
    p
}

/// The pure ACKs `side` sent from entry `from` of the log on: (ack, window).
fn acks_of(p: &Pair, side: Side, from: usize) -> Vec<(u32, u32)> {
    p.log[from..]
        .iter()
        .filter(|(_, s, o)| *s == side && o.segment.payload_len == 0)
        .map(|(_, _, o)| {
            (
                o.segment.header.ack.map_or(0, |a| a.0),
                o.segment.header.window,
            )
        })
        .collect()
}

#[test]
fn freeze_zero_window_then_three_copies_of_the_last_ack_reopen_without_a_timeout() {
    let mut p = pair(200);
    p.run_until(|p| p.delivered_to_b.len() >= 20, SimDuration::from_secs(5));
    let cwnd = p.a.congestion_window().cwnd;
    let (t_freeze, logged) = (p.now, p.log.len());
    p.call(Side::B, |b, now, out| b.freeze(now, out));
    assert!(p.b.is_frozen());
    let zwa = acks_of(&p, Side::B, logged);
    assert_eq!(zwa.len(), 1);
    assert_eq!(zwa[0].1, 0, "the zero window advertisement");
    // Two seconds frozen: the sender persists (probes, no timeout, no window cut).
    p.run_until(
        |p| p.now >= t_freeze + SimDuration::from_secs(2),
        SimDuration::from_secs(10),
    );
    assert_eq!(p.a.stats().timeouts, 0);
    // What was in flight was still acknowledged (and grew the window); nothing cut it.
    assert!(p.a.congestion_window().cwnd >= cwnd);
    assert_eq!(p.a.peer_window(), 0);
    let logged = p.log.len();
    p.call(Side::B, |b, now, out| b.unfreeze(now, 3, out));
    let tr = acks_of(&p, Side::B, logged);
    assert_eq!(tr.len(), 3, "three copies of the last ACK");
    assert!(tr.iter().all(|&(ack, w)| ack == tr[0].0 && w > 0));
    p.run(SimDuration::from_secs(30));
    assert_eq!(p.a.stats().timeouts, 0);
    Pair::assert_in_order_once(&p.delivered_to_b, 200 * u64::from(MSS));
}

#[test]
fn fast_retransmit_after_handoff_sends_exactly_the_dupacks_asked_and_the_sender_retransmits_at_once(
) {
    // Segments 5..8 are lost in a handoff (first transmissions only); nothing after them is
    // sent, so the receiver has no reason to send duplicate ACKs of its own.
    let mut p = pair(8);
    p.drop = Box::new(|side, o, times| {
        let first_lost = SeqNumber(ISN) + 1 + 5 * MSS;
        side == Side::A
            && times == 0
            && o.segment.payload_len > 0
            && o.segment.header.seq >= first_lost
    });
    // Everything is sent by 163 ms; then the link is quiet until the RTO.
    p.run_until(|p| p.now >= at_ms(160), SimDuration::from_secs(1));
    assert!(p.now < at_ms(400));
    p.now = at_ms(400); // The handoff completes.
    assert_eq!(
        p.delivered_to_b
            .iter()
            .map(|d| u64::from(d.len))
            .sum::<u64>(),
        5000
    );
    assert!(
        p.a.poll_timeout().is_some_and(|t| t > p.now),
        "the RTO has not fired"
    );
    let acks_before = p.b.stats().acks_sent;
    let logged = p.log.len();
    p.call(Side::B, |b, now, out| b.send_acks(now, 3, out));
    assert_eq!(p.b.stats().acks_sent - acks_before, 3);
    let sent = acks_of(&p, Side::B, logged);
    assert_eq!(sent.len(), 3);
    assert!(sent.iter().all(|&(ack, _)| ack == ISN + 1 + 5000));
    p.run_until(
        |p| {
            p.delivered_to_b
                .iter()
                .map(|d| u64::from(d.len))
                .sum::<u64>()
                == 8000
        },
        SimDuration::from_secs(5),
    );
    assert_eq!(p.a.stats().fast_retransmits, 1);
    assert_eq!(p.a.stats().timeouts, 0);
    assert!(
        p.now < at_ms(1000),
        "recovered before the first RTO would have fired"
    );
    Pair::assert_in_order_once(&p.delivered_to_b, 8000);
}
