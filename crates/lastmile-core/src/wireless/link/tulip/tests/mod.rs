//! TULIP driven by scripted inputs: the worked example of Figure 6 (§3.4), equation (1) with
//! the paper's numbers, the WAIT hold-down, the liveness rule of §3.2, and long runs through a
//! scripted channel (lossless and lossy, sequence numbers wrapping modulo 2W many times).

use super::*;
use crate::ids::NodeId;

// ---------------------------------------------------------------------------------------------
// Helpers

/// A packet of `bytes` IP bytes. UDP headers are used for every packet: TULIP must not care
/// what the transport is, only `service` and the size (§3.1).
fn pkt(id: u64, service: Service, bytes: u32) -> Packet {
    Packet {
        service,
        ..crate::packet::test_datagram(id, bytes)
    }
}

fn data(id: u64) -> Packet {
    // §5: "file transfers are 10Mbytes with 1400 byte data packets".
    pkt(id, Service::Reliable, 1400)
}

fn at_us(us: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_micros(us)
}

fn frames_to_mac(out: &mut TulipOutbox) -> Vec<TulipFrame> {
    out.drain()
        .filter_map(|o| match o {
            TulipOutput::ToMac(f) => Some(f),
            _ => None,
        })
        .collect()
}

/// Sender and receiver wired by hand, one frame in the air at a time, every loss scripted.
struct Bench {
    tx: TulipSender,
    rx: TulipReceiver,
    now: SimTime,
    in_air: Option<TulipFrame>,
    lack_in_air: Option<TulipFrame>,
    released: Vec<u64>,
}

impl Bench {
    fn new(config: TulipConfig) -> Self {
        Bench {
            tx: TulipSender::new(config.clone()).unwrap(),
            rx: TulipReceiver::new(config).unwrap(),
            now: SimTime::ZERO,
            in_air: None,
            lack_in_air: None,
            released: Vec::new(),
        }
    }

    fn feed_sender(&mut self, input: TulipInput) {
        let mut out = TulipOutbox::new();
        self.tx.handle(self.now, input, &mut out);
        let frames = frames_to_mac(&mut out);
        assert!(frames.len() <= 1, "one frame at a time to the MAC (§3.2)");
        if let Some(frame) = frames.into_iter().next() {
            assert!(self.in_air.is_none(), "a frame is already at the MAC");
            self.in_air = Some(frame);
            // The MAC captures the channel at once.
            let mut out = TulipOutbox::new();
            self.tx
                .handle(self.now, TulipInput::MacSignal(MacSignal::Trans), &mut out);
            assert!(out.is_empty());
        }
    }

    /// The sequence number of the data frame the sender just handed to the MAC.
    fn sent(&self) -> u16 {
        match &self.in_air {
            Some(TulipFrame::Data { seq, .. }) => seq.0,
            other => panic!("expected a data frame at the MAC, got {other:?}"),
        }
    }

    /// The data frame crosses the channel (or is lost); returns the LACK in paper notation.
    fn data_arrives(&mut self, lost: bool) -> Option<String> {
        let frame = self.in_air.take().expect("a frame at the MAC");
        self.now += SimDuration::from_millis(1);
        if lost {
            return None;
        }
        let mut out = TulipOutbox::new();
        self.rx
            .handle(self.now, TulipInput::FrameReceived(frame), &mut out);
        let mut lack = None;
        for o in out.drain() {
            match o {
                TulipOutput::ToNetwork(p) => self.released.push(p.id.0),
                TulipOutput::ToMac(f @ TulipFrame::Lack { .. }) => lack = Some(f),
                _ => {}
            }
        }
        let lack = lack.expect("a LACK for every data frame (§3.2)");
        let TulipFrame::Lack { lack: l, .. } = &lack else {
            unreachable!()
        };
        let text = l.to_string();
        self.lack_in_air = Some(lack);
        Some(text)
    }

    fn lack_arrives(&mut self, lost: bool) {
        let lack = self.lack_in_air.take().expect("a LACK in the air");
        self.now += SimDuration::from_millis(1);
        if !lost {
            self.feed_sender(TulipInput::FrameReceived(lack));
        }
    }

    /// T1 runs out: the LACK did not come.
    fn t1_expires(&mut self) {
        let deadline = self.tx.poll_timeout().expect("T1 running");
        assert!(deadline >= self.now);
        self.now = deadline;
        self.feed_sender(TulipInput::Timeout);
    }

    fn list(&self) -> String {
        self.tx.retransmission_list_notation()
    }

    fn take_released(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.released)
    }
}

// ---------------------------------------------------------------------------------------------
// Figure 6

/// The example of §3.4 / Figure 6 (W = 8, numbers modulo 16), transcribed from the paper's
/// narrative step by step. The slides (Figure 6 legend) give the notation: `R[9*, 11]` for the
/// retransmission list (star: already retransmitted) and `CumACK [bit vector]` at the receiver,
/// bit `i` standing for `CumACK + 1 + i` ("CumACK N [0100…0]: N+1 NACK'ed").
#[test]
fn fig6_lack_bitvector_rebuilds_retransmission_list() {
    let mut b = Bench::new(TulipConfig::default());
    for id in 0..14 {
        b.feed_sender(TulipInput::FromNetwork(data(id)));
    }
    // Before time t: frames 0..6 go through without loss.
    for seq in 0..7 {
        assert_eq!(b.sent(), seq);
        b.data_arrives(false);
        b.lack_arrives(false);
    }
    assert_eq!(b.take_released(), (0..7).collect::<Vec<_>>());

    // t: "packet #7 is transmitted successfully. The receiver returns a cumulative
    // acknowledgment of 7 and a one byte bit vector indicating no holes".
    assert_eq!(b.sent(), 7);
    assert_eq!(b.data_arrives(false).unwrap(), "7 [0000000]");
    assert_eq!(b.take_released(), [7]);
    b.lack_arrives(false);
    // t+1: packet #8 goes through the same way.
    assert_eq!(b.sent(), 8);
    assert_eq!(b.data_arrives(false).unwrap(), "8 [0000000]");
    assert_eq!(b.take_released(), [8]);
    b.lack_arrives(false);
    assert_eq!(b.list(), "R[]");

    // t+2: "Packet #9 is transmitted ... and it is lost on the channel."
    assert_eq!(b.sent(), 9);
    b.data_arrives(true);
    // t+3: "the transmission timer expires ... packet #10 is transmitted".
    b.t1_expires();
    assert_eq!(b.sent(), 10);
    assert_eq!(b.data_arrives(false).unwrap(), "8 [0100000]");
    assert!(b.take_released().is_empty(), "#10 waits for #9");
    // t+4: "the bit vector indicates that packet #9 is missing. Therefore, the sender creates
    // a retransmission list and retransmits packet #9; however, this packet is again dropped".
    b.lack_arrives(false);
    assert_eq!(b.sent(), 9);
    assert_eq!(b.list(), "R[9*]");
    b.data_arrives(true);
    // t+5: "the entire list has been retransmitted and a new packet, #11, is selected,
    // transmitted, and subsequently lost."
    b.t1_expires();
    assert_eq!(b.sent(), 11);
    assert_eq!(b.list(), "R[9*]");
    b.data_arrives(true);
    // t+6: "Packet #12 is transmitted ...; this packet is successful".
    b.t1_expires();
    assert_eq!(b.sent(), 12);
    assert_eq!(b.data_arrives(false).unwrap(), "8 [0101000]");
    assert!(b.take_released().is_empty());
    // t+7: "an acknowledgment is received ... which indicates packet #9 is still missing and
    // also #11. A new retransmission list is created".
    b.lack_arrives(false);
    assert_eq!(b.list(), "R[9*, 11]");
    assert_eq!(b.sent(), 9);
    // "the data packets are received correctly, however the corresponding acknowledgment
    // packets are lost. Once packet #9 is received, the receiver can now pass packet #9 and
    // #10 up".
    assert_eq!(b.data_arrives(false).unwrap(), "10 [0100000]");
    assert_eq!(b.take_released(), [9, 10]);
    b.lack_arrives(true);
    // t+8: #11 from the list; "when packet #11 arrives, packets #11 and #12 can be released".
    b.t1_expires();
    assert_eq!(b.sent(), 11);
    assert_eq!(b.list(), "R[9*, 11*]");
    assert_eq!(b.data_arrives(false).unwrap(), "12 [0000000]");
    assert_eq!(b.take_released(), [11, 12]);
    b.lack_arrives(true);
    // t+9: "the current retransmission list has been completed so a new packet (#13) is
    // selected".
    b.t1_expires();
    assert_eq!(b.sent(), 13);
    assert_eq!(b.data_arrives(false).unwrap(), "13 [0000000]");
    assert_eq!(b.take_released(), [13]);
    // t+10: "the bit vector indicates that all packets have been received correctly."
    b.lack_arrives(false);
    assert_eq!(b.list(), "R[]");
    assert!(b.tx.outstanding().is_empty());
    assert!(b.in_air.is_none(), "nothing left to send");
    assert_eq!(b.tx.poll_timeout(), None);

    let m = b.tx.metrics();
    assert_eq!(m.new_frames_sent, 14);
    assert_eq!(m.retransmissions, 3, "#9 twice, #11 once");
    assert_eq!(m.liveness_retransmissions, 0);
    let r = b.rx.metrics();
    assert_eq!(r.frames_released, 14);
    assert_eq!(r.duplicates_discarded, 0);
}

// ---------------------------------------------------------------------------------------------
// Timers: equation (1) and WAIT

/// Equation (1) with the paper's set-up (§5: 1 Mbps 802.11 radio, 1400-byte packets, MAC
/// acceleration): t_PKT = 1402 B · 8 / 1 Mbps = 11 216 µs; 2τ = 2 µs; t_ACK = (3 B LACK + 40 B
/// piggyback) · 8 = 344 µs; 2t_TR = 10 µs; 2t_c = 384 µs; t_p = 10 µs.
#[test]
fn eq1_delta_t1_paces_the_next_frame_from_trans() {
    let config = TulipConfig::default();
    assert_eq!(config.window, 8);
    assert_eq!(config.lack_bytes, 3);
    let frame = TulipFrame::Data {
        seq: LinkSeq(0),
        packet: data(0),
        lack: None,
    };
    assert_eq!(frame.size_bytes(&config), 1402);
    let dt1 = SimDuration::from_micros(11_216 + 2 + 344 + 10 + 384 + 10);
    assert_eq!(config.delta_t1(1402), dt1);
    let plain = TulipConfig {
        mac_acceleration: false,
        ..TulipConfig::default()
    };
    assert_eq!(
        plain.delta_t1(1402),
        SimDuration::from_micros(11_216 + 2 + 24 + 10 + 384 + 10)
    );

    let mut tx = TulipSender::new(config).unwrap();
    let mut out = TulipOutbox::new();
    let t0 = at_us(1_000);
    tx.handle(t0, TulipInput::FromNetwork(data(0)), &mut out);
    tx.handle(t0, TulipInput::FromNetwork(data(1)), &mut out);
    assert_eq!(frames_to_mac(&mut out).len(), 1);
    assert_eq!(
        tx.poll_timeout(),
        None,
        "T1 starts on TRANS, not on hand-over"
    );
    let trans_at = t0 + SimDuration::from_micros(300);
    tx.handle(trans_at, TulipInput::MacSignal(MacSignal::Trans), &mut out);
    assert_eq!(tx.poll_timeout(), Some(trans_at + dt1));
    // Woken early: nothing goes.
    tx.handle(trans_at + dt1 / 2, TulipInput::Timeout, &mut out);
    assert!(frames_to_mac(&mut out).is_empty());
    tx.handle(trans_at + dt1, TulipInput::Timeout, &mut out);
    let frames = frames_to_mac(&mut out);
    assert!(
        matches!(
            frames[..],
            [TulipFrame::Data {
                seq: LinkSeq(1),
                ..
            }]
        ),
        "{frames:?}"
    );
}

/// §3.2 / Figure 2: WAIT cancels T1 and holds the sender for Δt2; a LACK during the
/// hold-down is processed but sends nothing until T2 runs out.
#[test]
fn wait_holds_the_sender_for_delta_t2() {
    let mut tx = TulipSender::new(TulipConfig::default()).unwrap();
    let mut out = TulipOutbox::new();
    for id in 0..3 {
        tx.handle(SimTime::ZERO, TulipInput::FromNetwork(data(id)), &mut out);
    }
    tx.handle(
        SimTime::ZERO,
        TulipInput::MacSignal(MacSignal::Trans),
        &mut out,
    );
    assert_eq!(frames_to_mac(&mut out).len(), 1);
    let dt2 = SimDuration::from_millis(15);
    let wait_at = at_us(12_500);
    let wait = MacSignal::Wait {
        sender: NodeId(7),
        duration: dt2,
    };
    tx.handle(wait_at, TulipInput::MacSignal(wait), &mut out);
    assert_eq!(
        tx.poll_timeout(),
        Some(wait_at + dt2),
        "T1 cancelled, T2 set"
    );

    // The LACK for frame 0 arrives during the hold-down.
    let lack = Lack {
        cum_ack: LinkSeq(0),
        bits: 0,
        window: 8,
    };
    let lack = TulipFrame::Lack {
        lack,
        piggyback: None,
    };
    tx.handle(at_us(13_000), TulipInput::FrameReceived(lack), &mut out);
    assert!(tx.outstanding().is_empty());
    assert!(frames_to_mac(&mut out).is_empty(), "held down by WAIT");
    tx.handle(
        wait_at + (dt2 - SimDuration::from_nanos(1)),
        TulipInput::Timeout,
        &mut out,
    );
    assert!(frames_to_mac(&mut out).is_empty());
    tx.handle(wait_at + dt2, TulipInput::Timeout, &mut out);
    let frames = frames_to_mac(&mut out);
    assert!(
        matches!(
            frames[..],
            [TulipFrame::Data {
                seq: LinkSeq(1),
                ..
            }]
        ),
        "{frames:?}"
    );

    // The configured floor lengthens a shorter WAIT.
    let config = TulipConfig {
        delta_t2_min: SimDuration::from_millis(4),
        ..TulipConfig::default()
    };
    let mut tx = TulipSender::new(config).unwrap();
    let short = MacSignal::Wait {
        sender: NodeId(7),
        duration: SimDuration::from_millis(1),
    };
    tx.handle(SimTime::ZERO, TulipInput::MacSignal(short), &mut out);
    assert_eq!(tx.poll_timeout(), Some(at_us(4_000)));
}

// ---------------------------------------------------------------------------------------------
// Liveness and service classes

/// §3.2: "The worst case is when there is no retransmission list available and there is no
/// room in the transmission window to send new packets. At this point, in order to preserve
/// liveness, the sender retransmits the oldest unacknowledged packet".
#[test]
fn liveness_every_lack_lost_retransmits_oldest_unacknowledged() {
    let mut b = Bench::new(TulipConfig::default());
    for id in 0..10 {
        b.feed_sender(TulipInput::FromNetwork(data(id)));
    }
    let mut sent = Vec::new();
    for _ in 0..11 {
        sent.push(b.sent());
        b.data_arrives(false);
        b.lack_arrives(true);
        b.t1_expires();
    }
    // W = 8 new frames while the window allows, then the oldest (#0) again and again; the
    // receiver answers each duplicate with a LACK, which is lost too.
    assert_eq!(sent, [0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0]);
    // ... and a fourth #0 is at the MAC after the last T1 expiry.
    assert_eq!(b.tx.metrics().liveness_retransmissions, 4);
    assert_eq!(b.rx.metrics().duplicates_discarded, 3);
    assert_eq!(b.take_released(), (0..8).collect::<Vec<_>>());
    // One LACK gets through: the window slides and #8, #9 go out.
    assert_eq!(b.sent(), 0);
    assert_eq!(b.data_arrives(false).unwrap(), "7 [0000000]");
    b.lack_arrives(false);
    assert_eq!(b.sent(), 8);
    assert_eq!(b.tx.outstanding(), [LinkSeq(8)]);
}

/// §3.1: ULPs are sent once, never numbered nor retransmitted; their turn ends when the MAC
/// is done with them (no LACK is coming).
#[test]
fn unreliable_packets_are_sent_once_without_numbers() {
    let mut tx = TulipSender::new(TulipConfig::default()).unwrap();
    let mut out = TulipOutbox::new();
    let ack = pkt(100, Service::Unreliable, 40);
    tx.handle(SimTime::ZERO, TulipInput::FromNetwork(ack), &mut out);
    tx.handle(SimTime::ZERO, TulipInput::FromNetwork(data(1)), &mut out);
    let frames = frames_to_mac(&mut out);
    assert!(matches!(&frames[..], [TulipFrame::Unreliable { packet }] if packet.id.0 == 100));
    assert_eq!(frames[0].size_bytes(tx.config()), 42);
    tx.handle(at_us(10), TulipInput::MacSignal(MacSignal::Trans), &mut out);
    tx.handle(
        at_us(400),
        TulipInput::MacSignal(MacSignal::TxSuccess),
        &mut out,
    );
    let frames = frames_to_mac(&mut out);
    assert!(matches!(
        frames[..],
        [TulipFrame::Data {
            seq: LinkSeq(0),
            ..
        }]
    ));
    assert!(tx.outstanding() == [LinkSeq(0)]);
    assert_eq!(tx.metrics().unreliable_sent, 1);
}

/// §3.3: with MAC acceleration, the receiver's LACK carries a queued packet of ≤ 40 bytes (a
/// TCP ACK going back); a larger one waits for its own turn.
#[test]
fn mac_acceleration_piggybacks_small_packet_on_lack() {
    let config = TulipConfig::default();
    let mut b = TulipLink::new(config.clone()).unwrap();
    let mut out = TulipOutbox::new();
    // B's sender is waiting for TRANS of its own frame, so its queue holds the TACK.
    b.handle(SimTime::ZERO, TulipInput::FromNetwork(data(50)), &mut out);
    b.handle(
        SimTime::ZERO,
        TulipInput::FromNetwork(pkt(51, Service::Unreliable, 40)),
        &mut out,
    );
    b.handle(
        SimTime::ZERO,
        TulipInput::FromNetwork(pkt(52, Service::Unreliable, 41)),
        &mut out,
    );
    out.drain();
    let frame = TulipFrame::Data {
        seq: LinkSeq(0),
        packet: data(1),
        lack: None,
    };
    b.handle(at_us(5), TulipInput::FrameReceived(frame.clone()), &mut out);
    let frames = frames_to_mac(&mut out);
    let [TulipFrame::Lack { lack, piggyback }] = &frames[..] else {
        panic!("{frames:?}")
    };
    assert_eq!(lack.to_string(), "0 [0000000]");
    assert_eq!(piggyback.as_ref().map(|p| p.id.0), Some(51));
    assert_eq!(frames[0].size_bytes(&config), 43);
    // The next LACK finds only the 41-byte packet, too big to ride along: it goes on the
    // data frame waiting at the MAC instead, handed again (Figure 4(b)).
    b.handle(at_us(6), TulipInput::FrameReceived(frame), &mut out);
    let frames = frames_to_mac(&mut out);
    let [TulipFrame::Data {
        packet,
        lack: Some(lack),
        ..
    }] = &frames[..]
    else {
        panic!("{frames:?}")
    };
    assert_eq!((packet.id.0, lack.to_string()), (50, "0 [0000000]".into()));
    assert_eq!(frames[0].size_bytes(&config), 1405);
    assert_eq!(b.receiver().metrics().piggybacked, 1);
    assert_eq!(b.receiver().metrics().duplicates_discarded, 1);
}

/// A frame the MAC gives up on (tx-failure) ends the turn at once; the bit vector of the next
/// LACK shows it missing and it is retransmitted first (Figure 2).
#[test]
fn tx_failure_ends_the_turn_and_the_lack_recovers_the_frame() {
    let mut b = Bench::new(TulipConfig::default());
    for id in 0..3 {
        b.feed_sender(TulipInput::FromNetwork(data(id)));
    }
    assert_eq!(b.sent(), 0);
    b.in_air = None;
    b.feed_sender(TulipInput::MacSignal(MacSignal::TxFailure));
    assert_eq!(b.sent(), 1, "no waiting for Δt1 after a MAC failure");
    assert_eq!(b.data_arrives(false).unwrap(), "15 [0100000]");
    b.lack_arrives(false);
    assert_eq!(b.tx.retransmission_list_notation(), "R[0*]");
    assert_eq!(b.sent(), 0);
    assert_eq!(b.data_arrives(false).unwrap(), "1 [0000000]");
    assert_eq!(b.take_released(), [0, 1]);
}

/// A T1 shorter than the frame on the air (a MAC header eq. (1)'s t_PKT does not count, a
/// small t_ACK) hands the MAC the next frame while the previous one is still being sent. The
/// MAC's TxSuccess at the end of that transmission is for the frame on the air, not for the
/// one queued behind it: the sender must keep waiting for the queued frame's TRANS (Figure 2's
/// macState = 1), start T1 on it, and hand over nothing more meanwhile. Taking the TxSuccess
/// for the queued frame left the MAC holding it while the sender, believing the MAC free,
/// queued another frame on every T1 or LACK: a near-livelock of the MAC's FIFO over FAMA.
#[test]
fn tx_success_of_the_frame_on_the_air_is_not_taken_for_the_frame_queued_behind_it() {
    let config = TulipConfig {
        t_ack: Some(SimDuration::from_micros(1)),
        ..TulipConfig::default()
    };
    let mut tx = TulipSender::new(config.clone()).unwrap();
    let mut out = TulipOutbox::new();
    tx.handle(SimTime::ZERO, TulipInput::FromNetwork(data(0)), &mut out);
    assert_eq!(frames_to_mac(&mut out).len(), 1);
    tx.handle(
        SimTime::ZERO,
        TulipInput::MacSignal(MacSignal::Trans),
        &mut out,
    );
    let t1 = tx.poll_timeout().expect("T1 running");
    // The frame with a 36-byte MAC header lasts longer than Δt1.
    let frame_end = SimTime::ZERO + config.airtime(1402 + 36) + config.t_c;
    assert!(t1 < frame_end);
    // T1 runs out mid-frame: the liveness rule hands #0 over again (window not full, no new
    // packet), while #0 is still on the air.
    tx.handle(t1, TulipInput::Timeout, &mut out);
    let frames = frames_to_mac(&mut out);
    assert!(matches!(
        frames[..],
        [TulipFrame::Data {
            seq: LinkSeq(0),
            ..
        }]
    ));
    tx.handle(t1, TulipInput::FromNetwork(data(1)), &mut out);
    assert!(frames_to_mac(&mut out).is_empty(), "the MAC holds a frame");
    // The first copy of #0 ends; its LACK comes back in the floor.
    tx.handle(
        frame_end,
        TulipInput::MacSignal(MacSignal::TxSuccess),
        &mut out,
    );
    assert!(frames_to_mac(&mut out).is_empty());
    let lack = Lack {
        cum_ack: LinkSeq(0),
        bits: 0,
        window: config.window,
    };
    let lack = TulipInput::FrameReceived(TulipFrame::Lack {
        lack,
        piggyback: None,
    });
    tx.handle(frame_end + SimDuration::from_micros(900), lack, &mut out);
    assert!(
        frames_to_mac(&mut out).is_empty(),
        "the second copy of #0 still waits for TRANS: nothing else goes to the MAC"
    );
    assert_eq!(tx.poll_timeout(), None);
    // The second copy gets its floor: TRANS starts T1 for it, and only then does #1 follow.
    let trans = frame_end + SimDuration::from_millis(2);
    tx.handle(trans, TulipInput::MacSignal(MacSignal::Trans), &mut out);
    assert_eq!(tx.poll_timeout(), Some(trans + config.delta_t1(1402)));
    tx.handle(trans + config.delta_t1(1402), TulipInput::Timeout, &mut out);
    let frames = frames_to_mac(&mut out);
    assert!(matches!(
        frames[..],
        [TulipFrame::Data {
            seq: LinkSeq(1),
            ..
        }]
    ));
    assert_eq!(tx.metrics().retransmissions, 1);
}

/// A LACK whose CumACK is neither in S nor just before it cannot come from this receiver's
/// current state; the sender ignores it rather than misreading its bit vector (§3.2: SN_min
/// moves only "if pkt.CumAck ∈ S").
#[test]
fn lack_outside_the_window_is_ignored() {
    let mut b = Bench::new(TulipConfig::default());
    b.feed_sender(TulipInput::FromNetwork(data(0)));
    assert_eq!(b.sent(), 0);
    let stray = Lack {
        cum_ack: LinkSeq(9),
        bits: 0,
        window: 8,
    };
    let mut out = TulipOutbox::new();
    b.tx.handle(
        b.now,
        TulipInput::FrameReceived(TulipFrame::Lack {
            lack: stray,
            piggyback: None,
        }),
        &mut out,
    );
    assert_eq!(b.tx.outstanding(), [LinkSeq(0)]);
    assert_eq!(b.tx.metrics().stale_lacks, 1);
    assert!(
        frames_to_mac(&mut out).is_empty(),
        "T1 keeps running: {out:?}"
    );
    assert!(b.tx.poll_timeout().is_some());
    assert_eq!(b.tx.retransmission_list_notation(), "R[]");
}

#[test]
fn config_rejects_windows_the_bit_vector_cannot_carry() {
    for w in [0, 1, W_MAX + 1] {
        let config = TulipConfig {
            window: w,
            ..TulipConfig::default()
        };
        assert_eq!(
            TulipSender::new(config).unwrap_err(),
            TulipConfigError::Window(w)
        );
    }
    assert_eq!(TulipConfig::lack_bytes_for_window(8), 3);
    assert_eq!(TulipConfig::lack_bytes_for_window(128), 18);
}

mod bidirectional;
mod long_runs;

/// §3.2: the retransmission list holds the packets that are "apparently lost". A LACK tells
/// the state of the receiver when it was made; when it waits for a floor of its own (no MAC
/// acceleration), the sender may meanwhile have sent the next frame, whose zero bit then says
/// nothing: it is not resent. A zero bit is a loss once the LACK reports a frame sent after it
/// received. (Taking every zero for a loss resent nearly every frame over FAMA-NCS without
/// MAC acceleration at BER 0: 6,792 retransmissions for 7,143 frames.)
#[test]
fn lack_made_before_a_frame_was_sent_does_not_mark_it_lost() {
    let mut tx = TulipSender::new(TulipConfig::default()).unwrap();
    let mut out = TulipOutbox::new();
    let seqs = |frames: Vec<TulipFrame>| -> Vec<u16> {
        frames
            .iter()
            .map(|f| match f {
                TulipFrame::Data { seq, .. } => seq.0,
                other => panic!("expected data, got {other:?}"),
            })
            .collect()
    };
    let lack = |cum: u16, bits: u128| {
        TulipInput::FrameReceived(TulipFrame::Lack {
            lack: Lack {
                cum_ack: LinkSeq(cum),
                bits,
                window: 8,
            },
            piggyback: None,
        })
    };
    let trans = TulipInput::MacSignal(MacSignal::Trans);
    for id in 0..4 {
        tx.handle(SimTime::ZERO, TulipInput::FromNetwork(data(id)), &mut out);
    }
    tx.handle(SimTime::ZERO, trans.clone(), &mut out);
    assert_eq!(seqs(frames_to_mac(&mut out)), [0]);
    // T1 runs out before the LACK of frame 0 comes: frame 1 goes.
    let t1 = tx.poll_timeout().unwrap();
    tx.handle(t1, TulipInput::Timeout, &mut out);
    tx.handle(t1, trans.clone(), &mut out);
    assert_eq!(seqs(frames_to_mac(&mut out)), [1]);
    // The LACK of frame 0, made before frame 1 arrived: "0 [0000000]".
    let later = t1 + SimDuration::from_millis(1);
    tx.handle(later, lack(0, 0b000_0000), &mut out);
    assert_eq!(tx.retransmission_list_notation(), "R[]");
    tx.handle(later, trans.clone(), &mut out);
    assert_eq!(
        seqs(frames_to_mac(&mut out)),
        [2],
        "a new frame, not #1 again"
    );
    // The LACK of frame 2 with frame 1 missing, "0 [0100000]": now #1 is lost.
    tx.handle(
        later + SimDuration::from_millis(1),
        lack(0, 0b000_0010),
        &mut out,
    );
    assert_eq!(tx.retransmission_list_notation(), "R[1*]");
    assert_eq!(seqs(frames_to_mac(&mut out)), [1]);
    assert_eq!(tx.metrics().retransmissions, 1);
}
