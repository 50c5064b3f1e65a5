//! The sender's answers to ELN-marked duplicate ACKs and to EBSN messages
//! (`tcp/sender/notices.rs`), against scripted ACKs.

use super::*;
use crate::packet::ExplicitNotice;

/// IW = 10 and one ACK: segments 1..=11 outstanding, cwnd 11000 (as `sender.rs` sets up).
fn eleven_outstanding(cfg: TcpConfig) -> Scripted {
    let mut cfg = cfg;
    cfg.initial_window = InitialWindow::Segments(10);
    let mut s = Scripted::established(cfg, ms(100));
    assert_eq!(s.write(1_000_000), new_segs(0, 10));
    assert_eq!(s.ack(1000), new_segs(10, 12));
    assert_eq!(s.cwnd(), 11_000);
    s
}

fn eln(variant: TcpVariant) -> TcpConfig {
    let mut cfg = config(variant);
    cfg.eln = true;
    cfg
}

fn eln_dupack(s: &mut Scripted, offset: u64) -> Vec<Seg> {
    s.ack_with(offset, |h| {
        h.options.notice = ExplicitNotice::LossNotification
    })
}

/// An EBSN message as the base station sends it: no ACK, no data.
fn ebsn(s: &mut Scripted) -> Vec<Seg> {
    let mut seg = peer_segment(
        SeqNumber(PEER_ISN) + 1,
        None,
        Control::None,
        s.peer_window,
        0,
    );
    seg.header.options.notice = ExplicitNotice::BadState;
    s.out.clear();
    s.conn.on_segment(s.now, &seg, s.now, &mut s.out);
    s.sent()
}

#[test]
fn eln_marked_loss_retransmitted_with_cwnd_unchanged() {
    for variant in [TcpVariant::Reno, TcpVariant::Newreno, TcpVariant::Tahoe] {
        let mut s = eleven_outstanding(eln(variant));
        let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
        // Segment 1 was corrupted on the wireless hop: the first marked dupack brings it
        // back at once, no three-dupack wait, and nothing else changes.
        assert_eq!(eln_dupack(&mut s, 1000), vec![(1, true)], "{variant:?}");
        assert_eq!((s.cwnd(), s.ssthresh()), (cwnd, ssthresh), "{variant:?}");
        assert!(!s.conn.in_fast_recovery());
        // More marked dupacks: no second retransmission, no inflation, no fast retransmit.
        for reply in (0..8).map(|_| eln_dupack(&mut s, 1000)) {
            assert_eq!(reply, vec![], "{variant:?}");
        }
        assert_eq!((s.cwnd(), s.ssthresh()), (cwnd, ssthresh), "{variant:?}");
        assert_eq!(s.conn.stats().fast_retransmits, 0);
        assert_eq!(s.conn.stats().eln_retransmits, 1);
        // The retransmission's ACK covers the window, which slides whole and grows by one
        // SMSS (slow start): the sender goes on where it was.
        assert_eq!(s.ack(12_000), new_segs(12, 24), "{variant:?}");
        assert_eq!(
            s.cwnd(),
            cwnd + 1000,
            "{variant:?}: the window was never cut"
        );
    }
}

#[test]
fn eln_retransmits_each_hole_once_and_leaves_a_lost_retransmission_to_the_timer() {
    let mut s = eleven_outstanding(eln(TcpVariant::Newreno));
    assert_eq!(eln_dupack(&mut s, 1000), vec![(1, true)]);
    // The retransmission was corrupted too: the marked dupacks that follow ask again, but
    // ELN asks once per hole (ns-2 `eln_last_rxmit_`); the timer recovers it.
    for _ in 0..10 {
        assert_eq!(eln_dupack(&mut s, 1000), vec![]);
    }
    assert_eq!(s.fire(), vec![(1, true)], "the RTO retransmits");
    assert_eq!(s.conn.stats().timeouts, 1);
    // A later hole is a new one: retransmitted on its first marked dupack.
    assert_eq!(s.ack(12_000), new_segs(12, 14));
    assert_eq!(eln_dupack(&mut s, 12_000), vec![(12, true)]);
    assert_eq!(s.conn.stats().eln_retransmits, 2);
}

#[test]
fn eln_marks_are_ordinary_dupacks_without_eln() {
    let mut s = eleven_outstanding(config(TcpVariant::Reno));
    let replies: Vec<_> = (0..3).map(|_| eln_dupack(&mut s, 1000)).collect();
    assert_eq!(
        replies,
        vec![vec![], vec![], vec![(1, true)]],
        "RFC 5681 fast retransmit"
    );
    assert_eq!(s.ssthresh(), 5500, "and the window halves");
    assert_eq!(s.conn.stats().eln_retransmits, 0);
}

#[test]
fn eln_unmarked_dupacks_still_run_fast_recovery() {
    let mut s = eleven_outstanding(eln(TcpVariant::Reno));
    let replies = s.dupacks(1000, 3);
    assert_eq!(replies[2], vec![(1, true)]);
    assert_eq!(
        s.ssthresh(),
        5500,
        "a loss ELN does not vouch for is congestion"
    );
}

#[test]
fn ebsn_resets_the_retransmission_timer_without_backoff_or_window_change() {
    let mut cfg = config(TcpVariant::Reno);
    cfg.ebsn = true;
    let mut s = eleven_outstanding(cfg);
    let rto = s.conn.rto();
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    let armed = s.conn.poll_timeout().expect("data outstanding");
    // Half an RTO later the base station reports a bad channel: the timer starts again.
    s.at(s.now + rto / 2);
    assert_eq!(ebsn(&mut s), vec![], "an EBSN sends nothing");
    assert_eq!(s.conn.poll_timeout(), Some(s.now + rto));
    assert!(s.conn.poll_timeout() > Some(armed));
    assert_eq!(s.conn.rto(), rto, "no backoff");
    assert_eq!((s.cwnd(), s.ssthresh()), (cwnd, ssthresh));
    assert_eq!(s.conn.stats().bad_state_notices, 1);
    // EBSNs keep arriving every half RTO: the sender never times out.
    for _ in 0..10 {
        let next = s.now + rto / 2;
        s.at(next);
        ebsn(&mut s);
    }
    assert_eq!(s.conn.stats().timeouts, 0);
    assert_eq!(s.conn.stats().bad_state_notices, 11);
    // Once they stop, the timer expires one RTO after the last, and backs off as usual.
    let last = s.now;
    assert_eq!(s.fire(), vec![(1, true)]);
    assert_eq!(s.now, last + rto);
    assert_eq!(s.conn.rto(), rto * 2);
}

#[test]
fn ebsn_is_ignored_without_ebsn_or_with_nothing_outstanding() {
    let mut s = eleven_outstanding(config(TcpVariant::Reno));
    let armed = s.conn.poll_timeout();
    s.at(s.now + ms(300));
    ebsn(&mut s);
    assert_eq!(
        s.conn.poll_timeout(),
        armed,
        "off: the timer keeps its deadline"
    );
    assert_eq!(s.conn.stats().bad_state_notices, 0);

    let mut cfg = config(TcpVariant::Reno);
    cfg.ebsn = true;
    let mut s = Scripted::established(cfg, ms(100));
    assert_eq!(s.write(1000), new_segs(0, 1));
    assert_eq!(s.ack(1000), vec![]);
    assert_eq!(s.conn.poll_timeout(), None);
    ebsn(&mut s);
    assert_eq!(
        s.conn.poll_timeout(),
        None,
        "nothing outstanding: no timer to restart"
    );
    assert_eq!(s.conn.stats().bad_state_notices, 0);
}
