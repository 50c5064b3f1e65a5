//! The base station's half of EBSN driven with scripted failed attempts.

use super::*;
use crate::agents::testkit::*;

fn signal(a: &mut EbsnAgent, signal: MacSignal, p: &Packet) -> AgentOutbox {
    let mut out = AgentOutbox::default();
    a.handle(
        ms(0),
        AgentInput::Link {
            signal,
            packet: Some(p),
        },
        &mut out,
    );
    out
}

#[test]
fn ebsn_sent_to_the_source_for_each_failed_attempt_at_its_data() {
    let mut a = EbsnAgent::new(EbsnSpec::default());
    let seg = data(3);
    for n in 1..=3 {
        let out = signal(&mut a, MacSignal::TxFailure, &seg);
        assert_eq!(out.packets.len(), 1, "attempt {n}");
        let m = &out.packets[0];
        assert_eq!(
            (m.ip.src, m.ip.dst),
            (MH.0, FH.0),
            "from the mobile to the source"
        );
        let t = m.tcp().expect("tcp");
        assert_eq!((t.header.src_port, t.header.dst_port), (MH.1, FH.1));
        assert_eq!(t.header.options.notice, ExplicitNotice::BadState);
        assert_eq!((t.header.ack, t.payload_len), (None, 0));
        assert_eq!(m.size_bytes(), 40);
    }
    assert_eq!(a.notices_sent(), 3);
    assert_eq!(a.summary(ms(1)).notices_sent(), Some(3));
}

#[test]
fn ebsn_ignores_successes_and_failed_acks() {
    let mut a = EbsnAgent::new(EbsnSpec::default());
    assert!(signal(&mut a, MacSignal::TxSuccess, &data(1))
        .packets
        .is_empty());
    assert!(signal(&mut a, MacSignal::TxFailure, &ack(1))
        .packets
        .is_empty());
    assert_eq!(a.notices_sent(), 0);
}
