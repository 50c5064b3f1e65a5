//! WTP class 2 transactions, driven PDU by PDU between an initiator (the mobile) and a
//! responder (the gateway), with the timers of Kannel's `wtp.h`: the initiator retries its
//! Invoke every 3 s, the responder sends a hold-on Ack after A = 4 s and retries its Result
//! every R = 7 s, up to MAX_RCR = 8; results go in segments of 576 bytes, three to a group.

use super::*;
use crate::engine::{SimDuration, SimTime};
use crate::packet::Transport;
use crate::transport::TransportOutbox;

const MOBILE_PORT: u16 = 5001;
const SERVER_PORT: u16 = 49152;

fn s(secs: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_secs_f64(secs)
}

fn pair() -> (WtpInitiator, WtpResponder) {
    let cfg = WtpConfig::default();
    (
        WtpInitiator::new(cfg, MOBILE_PORT, SERVER_PORT),
        WtpResponder::new(cfg, SERVER_PORT, MOBILE_PORT),
    )
}

fn pdus(out: &TransportOutbox) -> Vec<WtpPdu> {
    out.packets
        .iter()
        .map(|p| match p.transport {
            Transport::Wtp(pdu) => pdu,
            other => panic!("not WTP: {other:?}"),
        })
        .collect()
}

/// Hands `pdu` to the responder; returns its PDUs and events.
fn to_responder(
    r: &mut WtpResponder,
    now: SimTime,
    pdu: &WtpPdu,
) -> (Vec<WtpPdu>, Vec<ResponderEvent>) {
    let mut out = TransportOutbox::default();
    let mut events = Vec::new();
    r.on_pdu(now, pdu, &mut out, &mut events);
    (pdus(&out), events)
}

/// Hands `pdu` to the initiator; returns its PDUs and the bytes it delivered.
fn to_initiator(i: &mut WtpInitiator, now: SimTime, pdu: &WtpPdu) -> (Vec<WtpPdu>, u64) {
    let mut out = TransportOutbox::default();
    i.on_pdu(now, pdu, now, &mut out);
    let bytes = out.delivered.iter().map(|d| u64::from(d.len)).sum();
    (pdus(&out), bytes)
}

fn result_of(r: &mut WtpResponder, now: SimTime, tid: u16, bytes: u64) -> Vec<WtpPdu> {
    let mut out = TransportOutbox::default();
    let mut events = Vec::new();
    assert!(r.result(now, tid, bytes, now, &mut out, &mut events));
    pdus(&out)
}

fn responder_timeout(r: &mut WtpResponder, now: SimTime) -> (Vec<WtpPdu>, Vec<ResponderEvent>) {
    let mut out = TransportOutbox::default();
    let mut events = Vec::new();
    r.on_timeout(now, &mut out, &mut events);
    (pdus(&out), events)
}

fn psns(pdus: &[WtpPdu]) -> Vec<(u8, bool, bool)> {
    pdus.iter()
        .filter_map(|p| match p.kind {
            WtpPduKind::Result { psn, gtr, ttr, .. } => Some((psn, gtr, ttr)),
            _ => None,
        })
        .collect()
}

#[test]
fn wtp_invoke_retransmitted_on_timer_and_its_result_acknowledged() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 300, 400, &mut out);
    let first = pdus(&out)[0];
    assert!(matches!(
        first.kind,
        WtpPduKind::Invoke {
            class: TransactionClass::Class2,
            request_bytes: 300,
            reply_bytes: 400,
            ..
        }
    ));
    assert!(!first.rid && !first.from_responder);
    // The Invoke is lost; the retry timer (3 s) sends it again, with RID set.
    assert_eq!(mobile.poll_timeout(), Some(s(3.0)));
    let mut out = TransportOutbox::default();
    mobile.on_timeout(s(3.0), &mut out);
    let again = pdus(&out);
    assert_eq!(again.len(), 1);
    assert!(again[0].rid && again[0].tid == tid);
    assert_eq!(mobile.stats().invoke_retransmissions, 1);
    // The responder indicates it; its result (one segment) carries TTR.
    let (_, events) = to_responder(&mut gateway, s(3.5), &again[0]);
    assert_eq!(
        events,
        [ResponderEvent::Invoke {
            tid,
            request_bytes: 300,
            reply_bytes: 400
        }]
    );
    let result = result_of(&mut gateway, s(3.6), tid, 400);
    assert_eq!(psns(&result), [(0, false, true)]);
    assert!(result[0].from_responder);
    // The result arrives whole: delivered, and acknowledged (no PSN: unsegmented).
    let (replies, bytes) = to_initiator(&mut mobile, s(4.0), &result[0]);
    assert_eq!(bytes, 400);
    assert_eq!(replies.len(), 1);
    assert!(matches!(
        replies[0].kind,
        WtpPduKind::Ack {
            psn: None,
            tid_verify: false
        }
    ));
    assert!(mobile.is_idle());
    // The Ack ends the transaction at the responder (TR-Result.cnf).
    let (_, events) = to_responder(&mut gateway, s(4.5), &replies[0]);
    assert_eq!(events, [ResponderEvent::Confirmed { tid }]);
    assert_eq!(gateway.open_transactions(), 0);
}

#[test]
fn wtp_class2_result_retransmitted_every_r_until_acknowledged() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 100, 200, &mut out);
    to_responder(&mut gateway, s(0.5), &pdus(&out)[0]);
    let result = result_of(&mut gateway, s(1.0), tid, 200);
    assert_eq!(
        gateway.poll_timeout(),
        Some(s(8.0)),
        "R = 7 s after the Result"
    );
    // The Result is lost: at R it is sent again with RID set.
    let (again, _) = responder_timeout(&mut gateway, s(8.0));
    assert_eq!(psns(&again), psns(&result));
    assert!(again[0].rid);
    assert_eq!(gateway.stats().retransmissions, 1);
    let (ack, bytes) = to_initiator(&mut mobile, s(8.5), &again[0]);
    assert_eq!(bytes, 200);
    let (_, events) = to_responder(&mut gateway, s(9.0), &ack[0]);
    assert_eq!(events, [ResponderEvent::Confirmed { tid }]);
    // Only W's expiry (forgetting the TID) is left.
    assert_eq!(gateway.poll_timeout(), Some(s(39.0)));
}

#[test]
fn wtp_result_aborted_after_max_rcr_retransmissions() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 100, 200, &mut out);
    to_responder(&mut gateway, s(0.0), &pdus(&out)[0]);
    result_of(&mut gateway, s(0.0), tid, 200);
    for k in 1..=MAX_RCR {
        let (again, events) = responder_timeout(&mut gateway, s(7.0 * f64::from(k)));
        assert_eq!(again.len(), 1, "retransmission {k}");
        assert!(events.is_empty());
    }
    let (last, events) = responder_timeout(&mut gateway, s(7.0 * 9.0));
    assert_eq!(events, [ResponderEvent::Aborted { tid }]);
    assert!(matches!(
        last[0].kind,
        WtpPduKind::Abort {
            reason: AbortReason::NoResponse
        }
    ));
    assert_eq!(gateway.stats().retransmissions, u64::from(MAX_RCR));
    // The mobile learns the transaction is over.
    to_initiator(&mut mobile, s(64.0), &last[0]);
    assert!(mobile.is_idle());
    assert_eq!(mobile.stats().aborts, 1);
}

#[test]
fn wtp_invoke_aborted_after_max_rcr_retries_without_an_answer() {
    let (mut mobile, _) = pair();
    let mut out = TransportOutbox::default();
    mobile.invoke(s(0.0), 100, 200, &mut out);
    for k in 1..=MAX_RCR + 1 {
        out.clear();
        mobile.on_timeout(s(3.0 * f64::from(k)), &mut out);
    }
    assert_eq!(mobile.stats().invoke_retransmissions, u64::from(MAX_RCR));
    assert!(matches!(pdus(&out)[0].kind, WtpPduKind::Abort { .. }));
    assert!(mobile.is_idle());
    assert_eq!(mobile.poll_timeout(), None);
}

#[test]
fn wtp_hold_on_ack_at_a_stops_the_invoke_retries() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 100, 200, &mut out);
    to_responder(&mut gateway, s(0.5), &pdus(&out)[0]);
    // The origin server is slow: at A = 4 s the gateway says "hold on".
    assert_eq!(gateway.poll_timeout(), Some(s(4.5)));
    let (hold_on, _) = responder_timeout(&mut gateway, s(4.5));
    assert!(matches!(hold_on[0].kind, WtpPduKind::Ack { psn: None, .. }));
    assert_eq!(mobile.poll_timeout(), Some(s(3.0)));
    to_initiator(&mut mobile, s(5.0), &hold_on[0]);
    assert_eq!(
        mobile.poll_timeout(),
        None,
        "the Invoke is confirmed: no more retries"
    );
    // A retried Invoke (RID set) that crossed the Ack is answered with the Ack again.
    let retried = WtpPdu {
        rid: true,
        ..pdus(&out)[0]
    };
    let (again, events) = to_responder(&mut gateway, s(5.0), &retried);
    assert!(events.is_empty());
    assert_eq!(again, hold_on);
    let result = result_of(&mut gateway, s(6.0), tid, 200);
    let (_, bytes) = to_initiator(&mut mobile, s(6.5), &result[0]);
    assert_eq!(bytes, 200);
}

#[test]
fn wtp_sar_result_sent_in_groups_of_three_each_group_acknowledged() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 100, 7 * 576, &mut out);
    to_responder(&mut gateway, s(0.1), &pdus(&out)[0]);
    let group = result_of(&mut gateway, s(0.2), tid, 7 * 576);
    assert_eq!(
        psns(&group),
        [(0, false, false), (1, false, false), (2, true, false)]
    );
    let mut delivered = 0;
    let mut acks = Vec::new();
    for p in &group {
        let (replies, bytes) = to_initiator(&mut mobile, s(0.5), p);
        delivered += bytes;
        acks.extend(replies);
    }
    assert_eq!(delivered, 0, "nothing is delivered before the whole result");
    assert_eq!(acks.len(), 1);
    assert!(matches!(acks[0].kind, WtpPduKind::Ack { psn: Some(2), .. }));
    let (group, _) = to_responder(&mut gateway, s(0.8), &acks[0]);
    assert_eq!(
        psns(&group),
        [(3, false, false), (4, false, false), (5, true, false)]
    );
    let mut acks = Vec::new();
    for p in &group {
        acks.extend(to_initiator(&mut mobile, s(1.0), p).0);
    }
    assert!(matches!(acks[0].kind, WtpPduKind::Ack { psn: Some(5), .. }));
    let (group, _) = to_responder(&mut gateway, s(1.3), &acks[0]);
    assert_eq!(psns(&group), [(6, false, true)]);
    let (acks, bytes) = to_initiator(&mut mobile, s(1.5), &group[0]);
    assert_eq!(bytes, 7 * 576);
    assert!(matches!(acks[0].kind, WtpPduKind::Ack { psn: Some(6), .. }));
    let (_, events) = to_responder(&mut gateway, s(1.8), &acks[0]);
    assert_eq!(events, [ResponderEvent::Confirmed { tid }]);
}

#[test]
fn wtp_negative_ack_names_the_missing_segment_and_it_is_sent_again() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 100, 3 * 576, &mut out);
    to_responder(&mut gateway, s(0.1), &pdus(&out)[0]);
    let group = result_of(&mut gateway, s(0.2), tid, 3 * 576);
    // Segment 1 is lost; the trailer (2, TTR) reveals it.
    to_initiator(&mut mobile, s(0.5), &group[0]);
    let (nack, _) = to_initiator(&mut mobile, s(0.6), &group[2]);
    assert_eq!(nack.len(), 1);
    assert!(matches!(
        nack[0].kind,
        WtpPduKind::Nack {
            first: 0,
            missing: 0b010
        }
    ));
    let (resent, _) = to_responder(&mut gateway, s(0.9), &nack[0]);
    assert_eq!(psns(&resent), [(1, false, false)]);
    assert!(resent[0].rid);
    let (ack, bytes) = to_initiator(&mut mobile, s(1.2), &resent[0]);
    assert_eq!(bytes, 3 * 576);
    assert!(matches!(ack[0].kind, WtpPduKind::Ack { psn: Some(2), .. }));
}

#[test]
fn wtp_lost_group_trailer_is_sent_again_on_timer_r() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 100, 5 * 576, &mut out);
    to_responder(&mut gateway, s(0.1), &pdus(&out)[0]);
    let group = result_of(&mut gateway, s(0.2), tid, 5 * 576);
    // The trailer (segment 2) is lost: the mobile says nothing until R.
    for p in &group[..2] {
        assert!(to_initiator(&mut mobile, s(0.5), p).0.is_empty());
    }
    let (again, _) = responder_timeout(&mut gateway, s(7.2));
    assert_eq!(psns(&again), [(2, true, false)]);
    let (ack, _) = to_initiator(&mut mobile, s(7.5), &again[0]);
    assert!(matches!(ack[0].kind, WtpPduKind::Ack { psn: Some(2), .. }));
}

#[test]
fn wtp_result_repeated_after_the_final_ack_is_acknowledged_again() {
    let (mut mobile, mut gateway) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 100, 200, &mut out);
    to_responder(&mut gateway, s(0.1), &pdus(&out)[0]);
    let result = result_of(&mut gateway, s(0.2), tid, 200);
    let (ack, bytes) = to_initiator(&mut mobile, s(0.5), &result[0]);
    assert_eq!(bytes, 200);
    // The Ack is lost; R resends the Result; the mobile acknowledges again, delivers nothing.
    let (again, _) = responder_timeout(&mut gateway, s(7.2));
    let (ack2, bytes) = to_initiator(&mut mobile, s(7.5), &again[0]);
    assert_eq!(bytes, 0);
    assert_eq!(ack2, ack);
    assert_eq!(mobile.stats().results, 1);
}

#[test]
fn wtp_tid_direction_bit_and_header_sizes() {
    let (mut mobile, _) = pair();
    let mut out = TransportOutbox::default();
    let tid = mobile.invoke(s(0.0), 300, 400, &mut out);
    let invoke = pdus(&out)[0];
    assert_eq!(invoke.wire_tid(), tid);
    let reply = WtpPdu {
        from_responder: true,
        ..invoke
    };
    assert_eq!(reply.wire_tid(), tid | RESPONDER_TID_BIT);
    // UDP 8 + Invoke header 4 + 300 bytes of request.
    assert_eq!(invoke.datagram_len(), 312);
    let seg = WtpPdu {
        kind: WtpPduKind::Result {
            psn: 3,
            gtr: false,
            ttr: false,
            bytes: 576,
        },
        ..reply
    };
    assert_eq!(seg.header_len(), 4);
}
