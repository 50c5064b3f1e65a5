//! DCF unit tests: one station driven by scripted medium indications, as in 802.11-1999
//! clause 9.2 (timings of the 802.11b preset: slot 20 µs, SIFS 10 µs, DIFS 50 µs, control
//! frames at 1 Mbps, ACK 304 µs, RTS 352 µs, CTS 304 µs).

use super::*;
use crate::engine::{RngStream, SimDuration, SimTime};
use crate::ids::NodeId;
use crate::wireless::phy::PhyConfig;

const ME: NodeId = NodeId(0);
const PEER: NodeId = NodeId(1);
const OTHER: NodeId = NodeId(2);
const MSDU: u32 = 1500;

fn at(us: u64) -> SimTime {
    SimTime::from_nanos(us * 1000)
}
fn us(d: u64) -> SimDuration {
    SimDuration::from_micros(d)
}

fn cfg() -> DcfConfig {
    DcfConfig::with_phy(PhyConfig::preset("802.11b").expect("preset"))
}

struct Sta {
    mac: Dcf<u32>,
}

impl Sta {
    fn new(cfg: DcfConfig, seed: u64) -> Self {
        Sta {
            mac: Dcf::new(ME, cfg, RngStream::derive(seed, "test/dcf")),
        }
    }
    fn step(&mut self, now: SimTime, input: MacInput<u32>) -> Vec<MacOutput<u32>> {
        let mut out = Vec::new();
        self.mac.handle(now, input, &mut out);
        out
    }
    fn enqueue(&mut self, now: SimTime, payload: u32) -> Vec<MacOutput<u32>> {
        self.step(
            now,
            MacInput::Enqueue {
                dst: PEER,
                msdu_bytes: MSDU,
                payload,
            },
        )
    }
    fn slots(&self, now: SimTime) -> Option<u32> {
        self.mac.state(now).backoff_slots
    }
}

fn frame(kind: FrameKind, ra: NodeId, ta: NodeId, duration: SimDuration) -> MacFrame<u32> {
    MacFrame {
        kind,
        ra,
        ta,
        duration,
        seq: 0,
        retry: false,
        msdu_bytes: 0,
        payload: None,
    }
}

fn sent(out: &[MacOutput<u32>]) -> Vec<(FrameKind, SimDuration)> {
    out.iter()
        .filter_map(|o| match o {
            MacOutput::StartTx { frame, airtime } => Some((frame.kind, *airtime)),
            _ => None,
        })
        .collect()
}

fn signals(out: &[MacOutput<u32>]) -> Vec<MacSignal> {
    out.iter()
        .filter_map(|o| match o {
            MacOutput::Signal(s) => Some(*s),
            _ => None,
        })
        .collect()
}

/// A station that found the medium busy and drew a backoff of at least `min` slots.
fn backed_off_station(min: u32) -> (Sta, u32) {
    for seed in 0..1000 {
        let mut s = Sta::new(cfg(), seed);
        s.step(at(0), MacInput::MediumBusy);
        s.enqueue(at(0), 1);
        let k = s.slots(at(0)).expect("busy medium: a backoff is drawn");
        if k >= min {
            return (s, k);
        }
    }
    unreachable!("some seed draws a long backoff");
}

#[test]
fn backoff_freezes_while_another_station_transmits_and_resumes_after_difs() {
    let (mut s, k) = backed_off_station(5);
    assert!(k <= 31, "initial draw in [0, CWmin]");
    // The medium goes idle at 100 µs: the countdown starts after DIFS, at 150 µs.
    s.step(at(100), MacInput::MediumIdle);
    assert_eq!(s.mac.poll_timeout(), Some(at(150) + us(20) * u64::from(k)));
    assert_eq!(s.slots(at(149)), Some(k), "nothing counts during DIFS");
    // Another station's frame arrives mid-slot 3: two idle slots were counted.
    s.step(at(195), MacInput::MediumBusy);
    assert_eq!(s.slots(at(195)), Some(k - 2));
    assert_eq!(s.mac.poll_timeout(), None, "frozen: no access while busy");
    assert_eq!(
        s.slots(at(900)),
        Some(k - 2),
        "still frozen during the other frame"
    );
    // The frame ends at 1000 µs; DIFS again, then the remaining k − 2 slots.
    let out = s.step(at(1000), MacInput::MediumIdle);
    assert!(sent(&out).is_empty());
    assert_eq!(
        s.slots(at(1049)),
        Some(k - 2),
        "no counting in the new DIFS"
    );
    assert_eq!(s.slots(at(1050 + 20)), Some(k - 3));
    let go = at(1050) + us(20) * u64::from(k - 2);
    assert_eq!(s.mac.poll_timeout(), Some(go));
    let out = s.step(go, MacInput::Timeout);
    assert_eq!(signals(&out), vec![MacSignal::Trans]);
    assert_eq!(sent(&out).len(), 1);
    assert_eq!(sent(&out)[0].0, FrameKind::Data);
}

#[test]
fn frame_on_a_medium_idle_for_difs_goes_at_once_then_post_backoff() {
    let mut s = Sta::new(cfg(), 1);
    let out = s.enqueue(at(1000), 9);
    let data = sent(&out);
    assert_eq!(data.len(), 1, "immediate access (9.2.5.1)");
    let (kind, airtime) = data[0];
    assert_eq!(kind, FrameKind::Data);
    assert_eq!(airtime, cfg().phy.data_airtime(MSDU));
    if let Some(MacOutput::StartTx { frame, .. }) =
        out.iter().find(|o| matches!(o, MacOutput::StartTx { .. }))
    {
        assert_eq!(frame.duration, us(10 + 304), "DATA Duration = SIFS + ACK");
        assert!(!frame.retry);
    }
    let end = at(1000) + airtime;
    let ack_at = end + us(10 + 304);
    s.step(end + us(10), MacInput::MediumBusy);
    let out = s.step(
        ack_at,
        MacInput::Received(frame(FrameKind::Ack, ME, PEER, us(0))),
    );
    assert_eq!(signals(&out), vec![MacSignal::TxSuccess]);
    s.step(ack_at, MacInput::MediumIdle);
    let st = s.mac.state(ack_at);
    assert_eq!(st.cw, 31);
    assert!(
        st.backoff_slots.is_some(),
        "post-backoff drawn after success"
    );
    assert_eq!(s.mac.counters().successes, 1);
}

#[test]
fn frame_on_a_medium_idle_less_than_difs_waits_out_the_difs() {
    let mut s = Sta::new(cfg(), 1);
    s.step(at(0), MacInput::MediumBusy);
    s.step(at(500), MacInput::MediumIdle);
    assert!(sent(&s.enqueue(at(520), 1)).is_empty());
    assert_eq!(s.mac.poll_timeout(), Some(at(550)));
    assert_eq!(sent(&s.step(at(550), MacInput::Timeout)).len(), 1);
}

/// Drives a station whose data frames are never acknowledged until it gives up; returns the
/// CW after each failed attempt and the frames it sent.
fn never_acked(mut s: Sta, answer_rts: bool) -> (Vec<u32>, Vec<MacFrame<u32>>, Vec<MacSignal>) {
    let mut cws = Vec::new();
    let mut frames = Vec::new();
    let mut sigs = Vec::new();
    for _ in 0..200 {
        let Some(t) = s.mac.poll_timeout() else { break };
        let failures = |m: &Dcf<u32>| m.counters().ack_timeouts + m.counters().cts_timeouts;
        let before = failures(&s.mac);
        let out = s.step(t, MacInput::Timeout);
        sigs.extend(signals(&out));
        for o in &out {
            if let MacOutput::StartTx { frame: f, airtime } = o {
                frames.push(f.clone());
                if f.kind == FrameKind::Rts && answer_rts {
                    let cts_end = t + *airtime + us(10 + 304);
                    let cts = frame(FrameKind::Cts, ME, PEER, us(0));
                    s.step(t + *airtime + us(10), MacInput::MediumBusy);
                    let out = s.step(cts_end, MacInput::Received(cts));
                    s.step(cts_end, MacInput::MediumIdle);
                    assert!(out.is_empty());
                }
            }
        }
        if failures(&s.mac) != before {
            cws.push(s.mac.state(t).cw);
        }
        if sigs.contains(&MacSignal::TxFailure) {
            return (cws, frames, sigs);
        }
    }
    panic!("the station never gave up");
}

#[test]
fn short_retry_limit_drops_after_seven_attempts_and_resets_cw() {
    let mut s = Sta::new(cfg(), 3);
    s.enqueue(at(0), 1);
    let (cws, frames, sigs) = never_acked(s, false);
    assert_eq!(frames.len(), 7, "dot11ShortRetryLimit = 7 attempts");
    assert!(frames
        .iter()
        .all(|f| f.kind == FrameKind::Data && f.seq == 0));
    assert!(!frames[0].retry && frames[1..].iter().all(|f| f.retry));
    // CW = min(2(CW+1) − 1, CWmax) per failure, then CWmin after the drop.
    assert_eq!(cws, vec![63, 127, 255, 511, 1023, 1023, 31]);
    assert_eq!(
        sigs.iter().filter(|s| **s == MacSignal::TxFailure).count(),
        1
    );
    assert_eq!(sigs.iter().filter(|s| **s == MacSignal::Trans).count(), 7);
}

#[test]
fn qsrc_rule_leaves_cwmax_after_a_drop_until_the_next_failure() {
    // 802.11-2020 §10.23.2.2 as ns-3.44 runs the DCF: the same doubling and the same seven
    // attempts, but the drop leaves CW at CWmax (QSRC = 7); the next frame's first failure
    // sets QSRC = 0 and CW = CWmin, its second doubles again.
    let mut c = cfg();
    c.cw_rule = CwRule::Qsrc;
    let mut s = Sta::new(c, 3);
    s.enqueue(at(0), 1);
    s.enqueue(at(0), 2);
    let mut cws = Vec::new();
    let mut drop_after = None;
    for _ in 0..400 {
        let Some(t) = s.mac.poll_timeout() else { break };
        let failures = s.mac.counters().ack_timeouts;
        let out = s.step(t, MacInput::Timeout);
        if s.mac.counters().ack_timeouts != failures {
            cws.push(s.mac.state(t).cw);
        }
        if signals(&out).contains(&MacSignal::TxFailure) {
            drop_after = Some(cws.len());
        }
        if cws.len() == 9 {
            break;
        }
    }
    assert_eq!(
        drop_after,
        Some(7),
        "dot11ShortRetryLimit = 7 attempts, as with the DCF rule"
    );
    assert_eq!(cws, vec![63, 127, 255, 511, 1023, 1023, 1023, 31, 63]);
}

#[test]
fn long_frames_use_rts_and_the_long_retry_limit() {
    let mut c = cfg();
    c.rts_threshold_bytes = 0;
    let mut s = Sta::new(c, 3);
    s.enqueue(at(0), 1);
    let (_, frames, _) = never_acked(s, true);
    let kinds: Vec<FrameKind> = frames.iter().map(|f| f.kind).collect();
    // Every CTS arrives, every ACK is missing: 4 = dot11LongRetryLimit data attempts.
    assert_eq!(kinds.iter().filter(|k| **k == FrameKind::Data).count(), 4);
    assert_eq!(kinds.iter().filter(|k| **k == FrameKind::Rts).count(), 4);
    let rts = &frames[0];
    let phy = cfg().phy;
    assert_eq!(
        rts.duration,
        phy.sifs * 3 + phy.cts_airtime() + phy.data_airtime(MSDU) + phy.ack_airtime(),
        "RTS Duration = 3·SIFS + CTS + DATA + ACK"
    );
}

#[test]
fn rts_failures_count_against_the_short_limit() {
    let mut c = cfg();
    c.rts_threshold_bytes = 0;
    let mut s = Sta::new(c, 3);
    s.enqueue(at(0), 1);
    let (cws, frames, _) = never_acked(s, false);
    assert_eq!(frames.len(), 7);
    assert!(frames.iter().all(|f| f.kind == FrameKind::Rts));
    assert_eq!(cws.last(), Some(&31));
}

#[test]
fn overheard_rts_sets_the_nav_signals_wait_and_defers_access() {
    let (mut s, k) = backed_off_station(0);
    let reservation = us(3 * 10 + 304 + 1309 + 304);
    let rts = frame(FrameKind::Rts, PEER, OTHER, reservation);
    let out = s.step(at(352), MacInput::Received(rts));
    assert_eq!(
        signals(&out),
        vec![MacSignal::Wait {
            sender: OTHER,
            duration: reservation
        }]
    );
    s.step(at(352), MacInput::MediumIdle);
    let nav_end = at(352) + reservation;
    assert_eq!(s.mac.state(at(400)).nav_until, nav_end);
    assert!(s.mac.state(at(400)).medium_busy, "virtual carrier sense");
    // Physically idle from 352 µs, but no slot counts until NAV end + DIFS.
    assert_eq!(s.slots(nav_end), Some(k));
    assert!(sent(&s.step(at(1000), MacInput::Timeout)).is_empty());
    assert_eq!(
        s.mac.poll_timeout(),
        Some(nav_end + us(50) + us(20) * u64::from(k))
    );
}

#[test]
fn cts_only_when_the_nav_is_zero() {
    let mut s = Sta::new(cfg(), 1);
    let phy = cfg().phy;
    let d = us(3 * 10 + 304 + 1309 + 304);
    // With no NAV: CTS SIFS after the RTS, Duration = RTS's − SIFS − CTS.
    s.step(
        at(352),
        MacInput::Received(frame(FrameKind::Rts, ME, PEER, d)),
    );
    assert_eq!(s.mac.poll_timeout(), Some(at(362)));
    let out = s.step(at(362), MacInput::Timeout);
    let cts = out
        .iter()
        .find_map(|o| match o {
            MacOutput::StartTx { frame, .. } => Some(frame.clone()),
            _ => None,
        })
        .expect("CTS sent");
    assert_eq!(cts.kind, FrameKind::Cts);
    assert_eq!(cts.ra, PEER);
    assert_eq!(cts.duration, d - phy.sifs - phy.cts_airtime());
    // Under someone else's reservation, an RTS for us gets no CTS.
    let mut s = Sta::new(cfg(), 1);
    s.step(
        at(0),
        MacInput::Received(frame(FrameKind::Rts, PEER, OTHER, d)),
    );
    s.step(
        at(500),
        MacInput::Received(frame(FrameKind::Rts, ME, OTHER, d)),
    );
    assert_eq!(s.mac.poll_timeout(), None);
    assert!(sent(&s.step(at(510), MacInput::Timeout)).is_empty());
}

#[test]
fn data_is_acked_after_sifs_even_on_a_busy_medium_and_duplicates_are_not_delivered() {
    let mut s = Sta::new(cfg(), 1);
    let mut data = frame(FrameKind::Data, ME, PEER, us(314));
    data.seq = 42;
    data.msdu_bytes = MSDU;
    data.payload = Some(7);
    let out = s.step(at(1000), MacInput::Received(data.clone()));
    assert!(out.contains(&MacOutput::Deliver {
        from: PEER,
        msdu_bytes: MSDU,
        payload: 7
    }));
    s.step(at(1005), MacInput::MediumBusy); // someone else starts: the ACK goes anyway
    let out = s.step(at(1010), MacInput::Timeout);
    assert_eq!(sent(&out), vec![(FrameKind::Ack, us(304))]);
    s.step(at(1400), MacInput::MediumIdle);
    // Our ACK was lost: the retransmission (retry bit, same seq) is ACKed, not delivered.
    data.retry = true;
    let out = s.step(at(3000), MacInput::Received(data.clone()));
    assert!(!out.iter().any(|o| matches!(o, MacOutput::Deliver { .. })));
    assert_eq!(sent(&s.step(at(3010), MacInput::Timeout)).len(), 1);
    assert_eq!(s.mac.counters().duplicates, 1);
    assert_eq!(s.mac.counters().delivered, 1);
    // A new sequence number is delivered even with the retry bit.
    data.seq = 43;
    let out = s.step(at(5000), MacInput::Received(data));
    assert!(out.iter().any(|o| matches!(o, MacOutput::Deliver { .. })));
}

#[test]
fn corrupted_reception_defers_eifs_and_a_good_one_returns_to_difs() {
    let (mut s, k) = backed_off_station(0);
    s.step(at(500), MacInput::RxError);
    s.step(at(500), MacInput::MediumIdle);
    assert_eq!(
        s.mac.poll_timeout(),
        Some(at(500 + 364) + us(20) * u64::from(k))
    );
    s.step(at(600), MacInput::MediumBusy);
    s.step(
        at(900),
        MacInput::Received(frame(FrameKind::Ack, OTHER, PEER, us(0))),
    );
    s.step(at(900), MacInput::MediumIdle);
    assert_eq!(s.mac.poll_timeout(), Some(at(950) + us(20) * u64::from(k)));
}

#[test]
fn ack_that_starts_before_the_timeout_is_awaited_to_its_end() {
    let mut s = Sta::new(cfg(), 1);
    let out = s.enqueue(at(1000), 9);
    let (_, airtime) = sent(&out)[0];
    let end = at(1000) + airtime;
    // ACKTimeout = SIFS + slot + PLCP = 222 µs; the 304-µs ACK starts at +11 µs.
    s.step(end + us(11), MacInput::MediumBusy);
    let out = s.step(end + us(222), MacInput::Timeout);
    assert!(
        signals(&out).is_empty(),
        "reception under way: keep waiting"
    );
    let out = s.step(
        end + us(315),
        MacInput::Received(frame(FrameKind::Ack, ME, PEER, us(0))),
    );
    assert_eq!(signals(&out), vec![MacSignal::TxSuccess]);
    assert_eq!(s.mac.counters().ack_timeouts, 0);
}

#[test]
fn backoff_expiring_as_the_medium_turns_busy_still_transmits() {
    // aCCATime: a busy indication at the slot boundary where our counter hits 0 comes too
    // late to stop us; both stations collide, as in Bianchi's slotted model.
    let (mut s, k) = backed_off_station(1);
    s.step(at(100), MacInput::MediumIdle);
    let go = at(150) + us(20) * u64::from(k);
    let out = s.step(go, MacInput::MediumBusy);
    assert_eq!(sent(&out).len(), 1);
}

#[test]
fn config_validation_names_the_field() {
    assert_eq!(cfg().validate(), Ok(()));
    let mut c = cfg();
    c.cw_min = 30;
    assert_eq!(c.validate().unwrap_err().field, "cw_min/cw_max");
    let mut c = cfg();
    c.phy.data_rate_bps = 54_000_000;
    assert_eq!(c.validate().unwrap_err().field, "phy");
    let mut c = cfg();
    c.short_retry_limit = 0;
    assert!(c
        .validate()
        .unwrap_err()
        .to_string()
        .contains("retry_limit"));
}
