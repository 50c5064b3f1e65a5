//! TULIP with data in both directions (§3.2, §3.3, Figure 3): the receiver's LACK goes back
//! on the data frame its own sender has for the peer — the frame already waiting at the MAC,
//! handed again with the LACK on it, or the one Figure 2 sends next — so the two directions'
//! data frames alternate, each acknowledging the other's.

use super::*;

fn mac_frames(out: &mut TulipOutbox) -> Vec<TulipFrame> {
    frames_to_mac(out)
}

fn released(out: &TulipOutbox) -> Vec<u64> {
    out.outputs
        .iter()
        .filter_map(|o| match o {
            TulipOutput::ToNetwork(p) => Some(p.id.0),
            _ => None,
        })
        .collect()
}

/// A sends a0; B, whose b0 waits at its MAC, answers with b0 carrying the LACK for a0 (the
/// frame handed again); A takes that LACK (a0 acknowledged), releases b0 and answers with a1
/// carrying the LACK for b0 (sent fresh, Figure 2's next frame).
#[test]
fn fig3_each_side_acknowledges_the_other_on_its_own_data_frame() {
    let config = TulipConfig::default();
    let (mut a, mut b) = (
        TulipLink::new(config.clone()).unwrap(),
        TulipLink::new(config.clone()).unwrap(),
    );
    let mut out = TulipOutbox::new();
    a.handle(SimTime::ZERO, TulipInput::FromNetwork(data(10)), &mut out);
    let [a0] = &mac_frames(&mut out)[..] else {
        panic!("a0 goes to the MAC")
    };
    let a0 = a0.clone();
    a.handle(at_us(1), TulipInput::FromNetwork(data(11)), &mut out);
    assert!(
        mac_frames(&mut out).is_empty(),
        "one frame at the MAC at a time"
    );
    a.handle(
        at_us(400),
        TulipInput::MacSignal(MacSignal::Trans),
        &mut out,
    );
    b.handle(SimTime::ZERO, TulipInput::FromNetwork(data(20)), &mut out);
    let [TulipFrame::Data { lack: None, .. }] = &mac_frames(&mut out)[..] else {
        panic!("b0 goes to B's MAC, where it waits: A holds the floor")
    };

    // A's a0 reaches B: the LACK rides on b0, handed to the MAC again.
    b.handle(at_us(12_000), TulipInput::FrameReceived(a0), &mut out);
    assert_eq!(released(&out), vec![10]);
    let frames = mac_frames(&mut out);
    let [TulipFrame::Data {
        seq,
        packet,
        lack: Some(lack),
    }] = &frames[..]
    else {
        panic!("{frames:?}")
    };
    assert_eq!(
        (seq.0, packet.id.0, lack.to_string()),
        (0, 20, "0 [0000000]".into())
    );
    assert_eq!(
        frames[0].size_bytes(&config),
        TULIP_HEADER_BYTES + 1400 + config.lack_bytes
    );
    assert_eq!(b.sender().metrics().lacks_carried, 1);

    // b0 reaches A: a0 is acknowledged, b0 released, and a1 goes with the LACK for b0.
    let b0 = frames[0].clone();
    a.handle(at_us(25_000), TulipInput::FrameReceived(b0), &mut out);
    assert_eq!(released(&out), vec![20]);
    assert_eq!(a.sender().metrics().frames_acked, 1);
    let frames = mac_frames(&mut out);
    let [TulipFrame::Data {
        seq,
        packet,
        lack: Some(lack),
    }] = &frames[..]
    else {
        panic!("{frames:?}")
    };
    assert_eq!(
        (seq.0, packet.id.0, lack.to_string()),
        (1, 11, "0 [0000000]".into())
    );
    assert_eq!(a.sender().outstanding(), vec![LinkSeq(1)]);
    assert_eq!(a.receiver().metrics().lacks_sent, 1);
}

/// §3.3's first case still comes first: a queued packet of ≤ 40 bytes (a TCP ACK) rides on
/// the LACK inside the floor, and the data frame then takes its own turn.
#[test]
fn a_small_packet_waiting_rides_on_the_lack_before_any_data_frame() {
    let config = TulipConfig::default();
    let mut b = TulipLink::new(config).unwrap();
    let mut out = TulipOutbox::new();
    b.handle(
        SimTime::ZERO,
        TulipInput::FromNetwork(pkt(30, Service::Unreliable, 40)),
        &mut out,
    );
    b.handle(at_us(1), TulipInput::FromNetwork(data(31)), &mut out);
    // The TCP ACK went to the MAC; TRANS and the end of its turn let the data frame follow.
    b.handle(at_us(2), TulipInput::MacSignal(MacSignal::Trans), &mut out);
    b.handle(
        at_us(900),
        TulipInput::MacSignal(MacSignal::TxSuccess),
        &mut out,
    );
    out.drain();
    b.handle(
        at_us(950),
        TulipInput::FromNetwork(pkt(32, Service::Unreliable, 40)),
        &mut out,
    );
    let frame = TulipFrame::Data {
        seq: LinkSeq(0),
        packet: data(1),
        lack: None,
    };
    b.handle(at_us(12_000), TulipInput::FrameReceived(frame), &mut out);
    let frames = mac_frames(&mut out);
    let [TulipFrame::Lack {
        piggyback: Some(p), ..
    }] = &frames[..]
    else {
        panic!("{frames:?}")
    };
    assert_eq!(p.id.0, 32);
}

/// A TCP ACK held for a LACK to carry it (MAC acceleration) must not hold back the data
/// behind it in the interface queue: with data both ways that data frame is what brings a
/// LACK about. (Held back, each side's ACKs went one per hold, about 15 ms each, while no
/// data moved.) Another ACK still waits in the interface queue behind the first.
#[test]
fn a_tcp_ack_waiting_for_a_lack_does_not_hold_back_the_data_behind_it() {
    let config = TulipConfig {
        piggyback_hold: SimDuration::from_millis(15),
        ..TulipConfig::default()
    };
    let mut b = TulipLink::new(config).unwrap();
    let mut out = TulipOutbox::new();
    let ack = pkt(40, Service::Unreliable, 40);
    b.handle(SimTime::ZERO, TulipInput::FromNetwork(ack), &mut out);
    assert!(mac_frames(&mut out).is_empty(), "the ACK waits for a LACK");
    assert!(b.sender().can_accept(&data(41)));
    assert!(!b.sender().can_accept(&pkt(42, Service::Unreliable, 40)));
    b.handle(at_us(10), TulipInput::FromNetwork(data(41)), &mut out);
    let frames = mac_frames(&mut out);
    assert!(
        matches!(&frames[..], [TulipFrame::Data { packet, .. }] if packet.id.0 == 41),
        "{frames:?}"
    );
    // As without the ACK, one more packet may wait in TULIP beside the frame at the MAC.
    b.handle(at_us(20), TulipInput::FromNetwork(data(43)), &mut out);
    assert!(mac_frames(&mut out).is_empty());
    assert!(!b.sender().can_accept(&data(44)));
}
