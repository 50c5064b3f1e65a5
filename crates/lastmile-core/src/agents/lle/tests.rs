//! LLE-TCP's ARQ agent and client driven with scripted packets and MAC signals, as the
//! paper's Figs. 2-4 tell it: the fixed host FH sends to the mobile MH (testkit numbering).

use super::*;
use crate::agents::testkit::{ack, data, data_ts, ms, show, syn, FH, ISS, MH, MSS};
use crate::agents::{AgentInput, AgentOutbox, Side, Verdict};
use crate::packet::{Control, Packet, SeqNumber};
use crate::wireless::signals::MacSignal;

const KEY: LleKey = LleKey { near: FH, far: MH };
/// The mobile's first sequence number after its SYN.
const MH_NXT: u32 = 1;

fn agent() -> LleAgent {
    LleAgent::new(LleRole::Agent, LleSpec::default())
}

fn syn_ack() -> Packet {
    let mut p = ack(0);
    let h = &mut p.tcp_mut().unwrap().header;
    h.control = Control::Syn;
    h.seq = SeqNumber(MH_NXT - 1);
    h.window = 32_000;
    p
}

fn fin(i: u32) -> Packet {
    let mut p = data(i);
    let seg = p.tcp_mut().unwrap();
    seg.header.control = Control::Fin;
    seg.payload_len = 0;
    p.fix_length();
    p
}

/// FH's ACK of MH's SYN-ACK: the handshake's third ACK.
fn third_ack() -> Packet {
    let mut p = fin(0);
    let seg = p.tcp_mut().unwrap();
    seg.header.control = Control::None;
    seg.header.ack = Some(SeqNumber(MH_NXT));
    p
}

fn wired(a: &mut LleAgent, p: Packet) -> (AgentOutbox, Packet) {
    show(&mut |n, i, o| a.handle(n, i, o), ms(0), Side::Wired, p)
}

fn wireless(a: &mut LleAgent, p: Packet) -> (AgentOutbox, Packet) {
    show(&mut |n, i, o| a.handle(n, i, o), ms(0), Side::Wireless, p)
}

fn local(a: &mut LleAgent, dir: LocalDir, mut p: Packet) -> (AgentOutbox, Packet) {
    let mut out = AgentOutbox::default();
    a.handle(
        ms(0),
        AgentInput::Local {
            dir,
            packet: &mut p,
        },
        &mut out,
    );
    (out, p)
}

fn signal(a: &mut LleAgent, signal: MacSignal, p: &Packet) -> AgentOutbox {
    let mut out = AgentOutbox::default();
    a.handle(
        ms(1),
        AgentInput::Link {
            signal,
            packet: Some(p),
        },
        &mut out,
    );
    out
}

/// The acknowledgement numbers (in segments from ISS) of the ACKs released.
fn released(out: &AgentOutbox) -> Vec<u32> {
    out.packets
        .iter()
        .filter(|p| p.payload_len() == 0)
        .map(|p| (p.tcp().unwrap().header.ack.unwrap().0 - ISS) / MSS)
        .collect()
}

/// SYN from FH, SYN-ACK from MH, FH's third ACK (suppressed).
fn established() -> LleAgent {
    let mut a = agent();
    assert_eq!(wired(&mut a, syn()).0.verdict, Verdict::Forward);
    assert_eq!(wireless(&mut a, syn_ack()).0.verdict, Verdict::Forward);
    assert_eq!(wired(&mut a, third_ack()).0.verdict, Verdict::Drop);
    a
}

#[test]
fn fig3_ack_released_on_tx_success_dropped_on_tx_failure() {
    let mut a = established();
    for i in 0..2 {
        assert_eq!(wired(&mut a, data(i)).0.verdict, Verdict::Forward);
    }
    let out = signal(&mut a, MacSignal::TxSuccess, &data(0));
    assert_eq!(released(&out), vec![1]);
    // Exactly the header MH would send: addresses, ports, seq, ack, window.
    let p = out.packets[0];
    let h = p.tcp().unwrap().header;
    assert_eq!((p.ip.src, p.ip.dst), (MH.0, FH.0));
    assert_eq!((h.src_port, h.dst_port), (MH.1, FH.1));
    assert_eq!(h.seq, SeqNumber(MH_NXT));
    assert_eq!(h.window, 32_000);
    assert_eq!(h.control, Control::None);
    assert!(p.tcp().unwrap().is_pure_ack());
    let out = signal(&mut a, MacSignal::TxFailure, &data(1));
    assert!(released(&out).is_empty(), "the prepared ACK is dropped");
    assert_eq!(a.counters().acks_dropped_on_failure, 1);
    assert_eq!(a.counters().acks_generated, 1);
    // Trans and Wait never release anything.
    assert!(signal(&mut a, MacSignal::Trans, &data(1))
        .packets
        .is_empty());
}

#[test]
fn generated_acks_stop_at_the_hole_until_it_is_filled() {
    let mut a = established();
    for i in 0..5 {
        wired(&mut a, data(i));
    }
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(0))),
        vec![1]
    );
    assert!(released(&signal(&mut a, MacSignal::TxFailure, &data(1))).is_empty());
    // Segments 2 and 3 reach MH above the hole: no generated ACK may cover them yet.
    for i in [2, 3] {
        assert!(signal(&mut a, MacSignal::TxSuccess, &data(i))
            .packets
            .is_empty());
    }
    assert_eq!(a.modeled_rcv_nxt(&KEY), Some(SeqNumber(ISS + MSS)));
    // MH's own duplicate ACKs cross the air untouched.
    assert_eq!(wireless(&mut a, ack(1)).0.verdict, Verdict::Forward);
    // The retransmission fills the hole: one cumulative ACK over everything MH holds.
    wired(&mut a, data(1));
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(1))),
        vec![4]
    );
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(4))),
        vec![5]
    );
    // A late duplicate success of an old segment acknowledges nothing.
    assert!(signal(&mut a, MacSignal::TxSuccess, &data(2))
        .packets
        .is_empty());
    assert_eq!(a.last_generated(&KEY), Some(SeqNumber(ISS + 5 * MSS)));
}

#[test]
fn a_passing_receiver_ack_moves_the_model_past_a_failed_frame_it_got_anyway() {
    let mut a = established();
    for i in 0..3 {
        wired(&mut a, data(i));
    }
    signal(&mut a, MacSignal::TxFailure, &data(0)); // MAC ACKs lost, data arrived.
    assert!(signal(&mut a, MacSignal::TxSuccess, &data(1))
        .packets
        .is_empty());
    // MH re-acknowledges after a duplicate: ack 2 passes and tells the truth.
    assert_eq!(wireless(&mut a, ack(2)).0.verdict, Verdict::Forward);
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(2))),
        vec![3]
    );
}

#[test]
fn fig4_handshake_third_ack_suppressed_syn_and_syn_ack_pass() {
    let mut a = agent();
    assert_eq!(wired(&mut a, syn()).0.verdict, Verdict::Forward);
    // No ACK is ever generated for a SYN: MH's SYN-ACK negotiates the connection.
    assert!(signal(&mut a, MacSignal::TxSuccess, &syn())
        .packets
        .is_empty());
    assert_eq!(wireless(&mut a, syn_ack()).0.verdict, Verdict::Forward);
    assert_eq!(wired(&mut a, third_ack()).0.verdict, Verdict::Drop);
    assert_eq!(a.counters().handshake_acks_suppressed, 1);
    // MH repeats its SYN-ACK (it never got data): FH's repeated ACK is a duplicate, passes.
    assert_eq!(wired(&mut a, third_ack()).0.verdict, Verdict::Forward);
    assert_eq!(a.counters().acks_passed, 1);
}

#[test]
fn fig4_teardown_fin_acknowledged_by_the_agent_and_the_receivers_fin_by_the_client() {
    let mut a = established();
    wired(&mut a, data(0));
    signal(&mut a, MacSignal::TxSuccess, &data(0));
    wired(&mut a, fin(1));
    let out = signal(&mut a, MacSignal::TxSuccess, &fin(1));
    let h = out.packets[0].tcp().unwrap().header;
    assert_eq!(
        h.ack,
        Some(SeqNumber(ISS + MSS + 1)),
        "the FIN's sequence number counted"
    );
    // MH's FIN crosses the air; FH's ACK of it is suppressed (the client generates it).
    let mut mh_fin = ack(1);
    mh_fin.tcp_mut().unwrap().header.control = Control::Fin;
    assert_eq!(wireless(&mut a, mh_fin).0.verdict, Verdict::Forward);
    let mut fh_ack = third_ack();
    let seg = fh_ack.tcp_mut().unwrap();
    seg.header.seq = SeqNumber(ISS + MSS + 1);
    seg.header.ack = Some(SeqNumber(MH_NXT + 1));
    assert_eq!(wired(&mut a, fh_ack).0.verdict, Verdict::Drop);
    assert_eq!(a.counters().acks_suppressed, 1);

    // The client on MH, the same teardown from its side.
    let mut c = LleAgent::new(LleRole::Client, LleSpec::default());
    let (sent, delivered) = (LocalDir::Sent, LocalDir::Delivered);
    assert_eq!(local(&mut c, delivered, syn()).0.verdict, Verdict::Forward);
    assert_eq!(local(&mut c, sent, syn_ack()).0.verdict, Verdict::Forward);
    local(&mut c, delivered, data(0));
    assert_eq!(local(&mut c, sent, ack(1)).0.verdict, Verdict::Drop);
    local(&mut c, delivered, fin(1));
    let mut mh_fin = ack(1);
    let h = &mut mh_fin.tcp_mut().unwrap().header;
    h.control = Control::Fin;
    h.ack = Some(SeqNumber(ISS + MSS + 1));
    assert_eq!(local(&mut c, sent, mh_fin).0.verdict, Verdict::Forward);
    let out = signal(&mut c, MacSignal::TxSuccess, &mh_fin);
    let p = out.packets[0];
    let h = p.tcp().unwrap().header;
    assert_eq!(
        (p.ip.src, p.ip.dst),
        (FH.0, MH.0),
        "FH's ACK, for MH's own TCP"
    );
    assert_eq!(h.ack, Some(SeqNumber(MH_NXT + 1)));
    assert_eq!(h.seq, SeqNumber(ISS + MSS + 1));
}

#[test]
fn client_drops_standalone_new_acks_never_a_duplicate_nor_a_window_alarm() {
    let mut c = LleAgent::new(LleRole::Client, LleSpec::default());
    let (sent, delivered) = (LocalDir::Sent, LocalDir::Delivered);
    local(&mut c, delivered, syn());
    local(&mut c, sent, syn_ack());
    assert_eq!(local(&mut c, sent, ack(1)).0.verdict, Verdict::Drop);
    assert_eq!(local(&mut c, sent, ack(2)).0.verdict, Verdict::Drop);
    // Segment 3 lost, 4 arrived: MH repeats ack 2 — a duplicate, never suppressed.
    for _ in 0..3 {
        assert_eq!(local(&mut c, sent, ack(2)).0.verdict, Verdict::Forward);
    }
    assert_eq!(local(&mut c, sent, ack(5)).0.verdict, Verdict::Drop);
    // §3.3: buffer exhaustion (window 0) and its end are not blocked.
    let mut zero = ack(6);
    zero.tcp_mut().unwrap().header.window = 0;
    assert_eq!(local(&mut c, sent, zero).0.verdict, Verdict::Forward);
    assert_eq!(local(&mut c, sent, ack(6)).0.verdict, Verdict::Forward);
    assert_eq!(c.counters().acks_suppressed, 3);
    assert_eq!(c.counters().acks_passed, 5);
    // A connection MH opened itself is not the client's: nothing is dropped.
    let mut other = LleAgent::new(LleRole::Client, LleSpec::default());
    let mut mh_syn = ack(0);
    let h = &mut mh_syn.tcp_mut().unwrap().header;
    h.control = Control::Syn;
    h.ack = None;
    local(&mut other, sent, mh_syn);
    assert_eq!(local(&mut other, sent, ack(1)).0.verdict, Verdict::Forward);
}

#[test]
fn piggybacked_ack_that_acknowledges_nothing_new_is_set_to_the_last_generated_ack() {
    let mut a = established();
    for i in 0..2 {
        wired(&mut a, data(i));
        signal(&mut a, MacSignal::TxSuccess, &data(i));
    }
    // MH's data acknowledging segment 1 only (already generated up to 2): it acknowledges
    // nothing new, but keeps its ACK flag (a TCP drops data without one).
    let mut mh_data = ack(1);
    mh_data.tcp_mut().unwrap().payload_len = 50;
    mh_data.fix_length();
    let (out, p) = wireless(&mut a, mh_data);
    assert_eq!(out.verdict, Verdict::Forward);
    assert_eq!(p.tcp().unwrap().header.ack, Some(SeqNumber(ISS + 2 * MSS)));
    assert_eq!(a.counters().piggybacked_acks_neutralised, 1);
    // One acknowledging more than was generated keeps its flag.
    let mut ahead = ack(3);
    ahead.tcp_mut().unwrap().payload_len = 50;
    let (_, p) = wireless(&mut a, ahead);
    assert_eq!(p.tcp().unwrap().header.ack, Some(SeqNumber(ISS + 3 * MSS)));
    // A pure duplicate ACK is never touched.
    let (_, p) = wireless(&mut a, ack(2));
    assert_eq!(p.tcp().unwrap().header.ack, Some(SeqNumber(ISS + 2 * MSS)));
}

#[test]
fn generated_ack_echoes_the_segments_timestamp_and_the_receivers_latest_tsval() {
    let mut a = agent();
    let mut s = syn();
    s.tcp_mut().unwrap().header.options.timestamp = Some((100, 0));
    wired(&mut a, s);
    let mut sa = syn_ack();
    sa.tcp_mut().unwrap().header.options.timestamp = Some((7, 100));
    wireless(&mut a, sa);
    wired(&mut a, data_ts(0, 105));
    let out = signal(&mut a, MacSignal::TxSuccess, &data_ts(0, 105));
    let h = out.packets[0].tcp().unwrap().header;
    assert_eq!(h.options.timestamp, Some((7, 105)));
}

#[test]
fn section_3_3_window_is_the_free_part_of_the_base_station_buffer() {
    let spec = LleSpec {
        advertise_buffer: true,
        buffer: crate::units::ByteSize(u64::from(4 * MSS)),
        ..LleSpec::default()
    };
    let mut a = LleAgent::new(LleRole::Agent, spec);
    wired(&mut a, syn());
    wireless(&mut a, syn_ack());
    for i in 0..3 {
        wired(&mut a, data(i));
    }
    // Segments 1 and 2 still wait for the air: 2 of 4 segments' room is free.
    let out = signal(&mut a, MacSignal::TxSuccess, &data(0));
    assert_eq!(out.packets[0].tcp().unwrap().header.window, 2 * MSS);
    let out = signal(&mut a, MacSignal::TxSuccess, &data(1));
    assert_eq!(out.packets[0].tcp().unwrap().header.window, 3 * MSS);
    // Nothing waits any more: the whole buffer (less than the receiver's 32 000 B).
    let out = signal(&mut a, MacSignal::TxSuccess, &data(2));
    assert_eq!(out.packets[0].tcp().unwrap().header.window, 4 * MSS);
}

/// The data of the packets an outbox sends (in segments from ISS).
fn probes(out: &AgentOutbox) -> Vec<u32> {
    out.packets
        .iter()
        .filter(|p| p.payload_len() > 0)
        .map(|p| (p.tcp().unwrap().header.seq.0 - ISS) / MSS)
        .collect()
}

/// The MAC gave up on segment 0 although MH got it (only its MAC ACKs were lost). The
/// agent cannot tell that from a real loss, so it hands the segment back to the MAC once
/// more (`after_give_up = "resync"`): MH ends up holding it either way, and the copy's
/// `TxSuccess` acknowledges everything delivered above — no phantom hole, no sender timeout,
/// and nothing acknowledged that MH does not hold.
#[test]
fn after_a_give_up_the_agent_resends_the_segment_and_resynchronises_on_its_success() {
    let mut a = established();
    for i in 0..3 {
        wired(&mut a, data(i));
    }
    let out = signal(&mut a, MacSignal::TxFailure, &data(0));
    assert!(
        released(&out).is_empty(),
        "nothing is acknowledged on a failure"
    );
    assert_eq!(probes(&out), vec![0], "the segment goes back to the MAC");
    for i in [1, 2] {
        assert!(signal(&mut a, MacSignal::TxSuccess, &data(i))
            .packets
            .is_empty());
    }
    // The copy gets through: MH holds 0..3, and one cumulative ACK says so.
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(0))),
        vec![3]
    );
    assert_eq!(a.counters().give_up_resends, 1);
    // MH's own ACK drawn by the duplicate passes its client (a duplicate, §3.2) and tells
    // the agent nothing new.
    let (out, _) = wireless(&mut a, ack(3));
    assert_eq!(out.verdict, Verdict::Forward);
    assert_eq!(a.modeled_rcv_nxt(&KEY), Some(SeqNumber(ISS + 3 * MSS)));
}

/// A give-up of a segment MH really lacks: the resent copy fills the hole; until then the
/// generated ACKs stop at it. If the copy fails too, it is resent again, a bounded number
/// of times, after which the sender's own recovery takes over.
#[test]
fn resending_after_a_give_up_is_bounded() {
    let mut a = established();
    wired(&mut a, data(0));
    let mut resent = 0;
    for _ in 0..10 {
        let out = signal(&mut a, MacSignal::TxFailure, &data(0));
        resent += probes(&out).len();
        assert!(released(&out).is_empty());
    }
    assert_eq!(resent as u32, MAX_GIVE_UP_RESENDS);
    // The sender's retransmission gets through: acknowledged.
    wired(&mut a, data(0));
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(0))),
        vec![1]
    );
}

/// `after_give_up = "paper"`: §3.1 literally — the ACK released on `TxSuccess`
/// "acknowledges the packet just transmitted", so a segment the MAC gave up on is covered
/// by the next success whether MH got it or not.
#[test]
fn paper_rule_acknowledges_the_packet_just_transmitted_across_a_failure() {
    let spec = LleSpec {
        after_give_up: LleAfterGiveUp::Paper,
        ..LleSpec::default()
    };
    let mut a = LleAgent::new(LleRole::Agent, spec);
    wired(&mut a, syn());
    wireless(&mut a, syn_ack());
    wired(&mut a, third_ack());
    for i in 0..3 {
        wired(&mut a, data(i));
    }
    let out = signal(&mut a, MacSignal::TxFailure, &data(0));
    assert!(out.packets.is_empty(), "dropped, nothing resent (Fig. 3)");
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(1))),
        vec![2]
    );
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(2))),
        vec![3]
    );
}

/// §4.4, Scenario 2 ("LLE-TCP enabled for 5 out of 10 evaluated flows"): an agent serving
/// other mobiles only (`mobiles`) leaves MH's connection alone, as a base station without
/// LLE-TCP would: its third ACK passes, its frames' `TxSuccess` release nothing.
#[test]
fn an_agent_serving_other_mobiles_leaves_the_connection_alone() {
    let other = Ipv4Addr(MH.0 .0 + 1);
    let mut a = agent().serving_only([other].into());
    assert_eq!(wired(&mut a, syn()).0.verdict, Verdict::Forward);
    assert_eq!(wireless(&mut a, syn_ack()).0.verdict, Verdict::Forward);
    assert_eq!(wired(&mut a, third_ack()).0.verdict, Verdict::Forward);
    assert_eq!(wired(&mut a, data(0)).0.verdict, Verdict::Forward);
    assert!(signal(&mut a, MacSignal::TxSuccess, &data(0))
        .packets
        .is_empty());
    assert_eq!(a.counters().acks_generated, 0);
    assert_eq!(a.last_generated(&KEY), None);
    // Serving MH as well, the same exchange is LLE-TCP's.
    let mut a = agent().serving_only([other, MH.0].into());
    wired(&mut a, syn());
    wireless(&mut a, syn_ack());
    assert_eq!(wired(&mut a, third_ack()).0.verdict, Verdict::Drop);
    wired(&mut a, data(0));
    assert_eq!(
        released(&signal(&mut a, MacSignal::TxSuccess, &data(0))),
        vec![1]
    );
}
