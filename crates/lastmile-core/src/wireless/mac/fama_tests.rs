//! FAMA-NCS tests: scripted inputs for one station, and a small event loop over the shared
//! `Medium` (after `wireless/harness.rs`) for exchanges between stations. All at TULIP's
//! set-up: 1 Mbps, long PLCP (192 µs), SIFS 10 µs, slot 20 µs, τ = 1 µs.

use std::collections::BTreeMap;

use super::*;
use crate::engine::EventQueue;
use crate::wireless::link::tulip::{
    TulipConfig, MAC_ACCEL_PIGGYBACK_MAX_BYTES, TULIP_HEADER_BYTES,
};
use crate::wireless::medium::{FrameMeta, Medium, RxOutcome, TxId};

const A: NodeId = NodeId(0);
const B: NodeId = NodeId(1);
const C: NodeId = NodeId(2);

fn us(n: u64) -> SimTime {
    SimTime::from_nanos(n * 1000)
}
fn d(n: u64) -> SimDuration {
    SimDuration::from_micros(n)
}
/// TULIP's framing over FAMA-NCS (§3.3, §5): a 2-byte header on every data frame, and an
/// in-floor reply of at most a 3-byte LACK (W = 8) plus a 40-byte TCP ACK.
fn tulip_framing() -> LinkFraming {
    LinkFraming {
        header_bytes: TULIP_HEADER_BYTES,
        reply_in_floor_max_bytes: TulipConfig::default().lack_bytes + MAC_ACCEL_PIGGYBACK_MAX_BYTES,
    }
}
fn cfg(accel: bool) -> FamaConfig {
    FamaConfig {
        mac_acceleration: accel,
        ..FamaConfig::default().with_link(tulip_framing())
    }
}
fn station(me: NodeId, accel: bool) -> Fama<u32> {
    Fama::new(
        me,
        cfg(accel),
        RngStream::derive(7, &format!("fama/{}", me.index())),
    )
}
fn control(kind: FrameKind, ta: NodeId, ra: NodeId, duration: SimDuration) -> MacFrame<u32> {
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
fn tx_kinds(out: &[MacOutput<u32>]) -> Vec<FrameKind> {
    out.iter()
        .filter_map(|o| match o {
            MacOutput::StartTx { frame, .. } => Some(frame.kind),
            _ => None,
        })
        .collect()
}
fn step(m: &mut Fama<u32>, now: SimTime, input: MacInput<u32>) -> Vec<MacOutput<u32>> {
    let mut out = Vec::new();
    m.handle(now, input, &mut out);
    out
}
fn enqueue(dst: NodeId, bytes: u32) -> MacInput<u32> {
    MacInput::Enqueue {
        dst,
        msdu_bytes: bytes,
        payload: bytes,
    }
}

// ---- the constants ----

#[test]
fn constants_at_1_mbps_give_a_dominant_cts() {
    let c = cfg(true);
    assert_eq!(c.validate(), Ok(()));
    assert_eq!(c.rts_airtime(), d(352)); // 192 + 20·8
    assert_eq!(c.cts_bytes, 21);
    assert_eq!(c.cts_airtime(), d(360)); // 192 + 21·8 ≥ 352 + 2·1 + 5 = 359
    assert_eq!(c.data_airtime(1000), d(8480)); // 192 + (1000 + 36)·8
    assert_eq!(c.reply_in_floor_max_bytes, 43); // LACK 3 + TCP ACK 40
    assert_eq!(c.data_airtime(43), d(824)); // 192 + 79·8
    assert_eq!(c.reply_window(), d(10 + 2 + 824));
    assert_eq!(c.rts_deferral(), d(10 + 360 + 2));
    assert_eq!(c.data_airtime(1502), d(12496)); // 192 + 1538·8
    assert_eq!(c.cts_deferral(), d(10 + 2 + 12496 + 836));
    assert_eq!(c.cts_timeout(), d(10 + 2 + 360 + 5));
    let not_dominant = FamaConfig {
        cts_bytes: 20,
        ..c.clone()
    };
    assert_eq!(not_dominant.validate().unwrap_err().field, "cts_bytes");
    // At an 11 Mbps basic rate the 7 µs margin is 77 bits: 10 bytes more than the RTS.
    let fast = PhyConfig {
        basic_rate_bps: 11_000_000,
        data_rate_bps: 11_000_000,
        ..PhyConfig::default()
    };
    assert_eq!(FamaConfig::with_phy(fast).cts_bytes, 30);
}

#[test]
fn without_a_link_layer_floors_cover_a_bare_datagram_and_no_reply() {
    let bare = FamaConfig::default();
    assert_eq!(bare.max_data_msdu_bytes, 1500);
    assert!(!bare.mac_acceleration);
    assert_eq!(bare.reply_window(), SimDuration::ZERO);
    let tulip = bare.with_link(tulip_framing());
    assert_eq!(tulip.max_data_msdu_bytes, 1502);
    assert!(tulip.mac_acceleration);
    assert_eq!(tulip.reply_in_floor_max_bytes, 43);
}

// ---- a small cell driver over the medium ----

#[derive(Clone, Copy, Debug)]
enum Ev {
    Timeout(usize),
    ArrivalStart(usize),
    ArrivalEnd(TxId, usize),
}

#[derive(Clone, Debug, PartialEq)]
struct Sent {
    at: SimTime,
    from: usize,
    kind: FrameKind,
    ra: NodeId,
    msdu_bytes: u32,
    airtime: SimDuration,
}

struct Cell {
    medium: Medium,
    macs: Vec<Fama<u32>>,
    queue: EventQueue<Ev>,
    scheduled: Vec<Option<SimTime>>,
    reported_busy: Vec<bool>,
    in_flight: BTreeMap<TxId, (MacFrame<u32>, usize)>,
    sent: Vec<Sent>,
    signals: Vec<(SimTime, usize, MacSignal)>,
    delivered: Vec<(SimTime, usize, NodeId, u32)>,
    /// Per station: the size of the link-layer reply to every delivered frame.
    reply_bytes: Vec<Option<u32>>,
    /// Per station: the destination it keeps saturated (a new frame on every outcome).
    saturate: Vec<Option<(NodeId, u32)>>,
    /// Data frames that reached their addressee destroyed.
    data_collisions: u64,
}

impl Cell {
    fn new(n: usize, cfg: FamaConfig, seed: u64) -> Cell {
        let mut medium = Medium::new(cfg.tau);
        let macs = (0..n)
            .map(|i| {
                let node = NodeId(i as u32);
                medium.join(SimTime::ZERO, node);
                Fama::new(
                    node,
                    cfg.clone(),
                    RngStream::derive(seed, &format!("fama/{i}")),
                )
            })
            .collect();
        Cell {
            medium,
            macs,
            queue: EventQueue::new(),
            scheduled: vec![None; n],
            reported_busy: vec![false; n],
            in_flight: BTreeMap::new(),
            sent: Vec::new(),
            signals: Vec::new(),
            delivered: Vec::new(),
            reply_bytes: vec![None; n],
            saturate: vec![None; n],
            data_collisions: 0,
        }
    }

    fn run_until(&mut self, end: SimTime) {
        while let Some(t) = self.queue.peek_time() {
            if t > end {
                break;
            }
            let (now, ev) = self.queue.pop().expect("peeked");
            match ev {
                Ev::Timeout(i) => {
                    if self.scheduled[i] == Some(now) {
                        self.scheduled[i] = None;
                        self.dispatch(now, i, MacInput::Timeout);
                    }
                }
                Ev::ArrivalStart(i) => {
                    if !self.reported_busy[i] && self.medium.is_busy(NodeId(i as u32), now) {
                        self.reported_busy[i] = true;
                        self.dispatch(now, i, MacInput::MediumBusy);
                    }
                }
                Ev::ArrivalEnd(tx, i) => self.on_arrival_end(now, tx, i),
            }
        }
    }

    fn on_arrival_end(&mut self, now: SimTime, tx: TxId, i: usize) {
        let node = NodeId(i as u32);
        let outcome = self.medium.finish_rx(tx, node);
        let Some((frame, left)) = self.in_flight.get_mut(&tx) else {
            return;
        };
        *left -= 1;
        let frame = frame.clone();
        if *left == 0 {
            self.in_flight.remove(&tx);
        }
        if frame.kind == FrameKind::Data && frame.ra == node && outcome != RxOutcome::Intact {
            self.data_collisions += 1;
        }
        match outcome {
            RxOutcome::Intact => self.dispatch(now, i, MacInput::Received(frame)),
            RxOutcome::Collided | RxOutcome::Errored => self.dispatch(now, i, MacInput::RxError),
            RxOutcome::Missed => {}
        }
        if self.reported_busy[i] && !self.medium.is_busy(node, now) {
            self.reported_busy[i] = false;
            self.dispatch(now, i, MacInput::MediumIdle);
        }
    }

    fn dispatch(&mut self, now: SimTime, i: usize, input: MacInput<u32>) {
        let mut out = Vec::new();
        self.macs[i].handle(now, input, &mut out);
        let mut follow_ups = Vec::new();
        for effect in out {
            self.apply(now, i, effect, &mut follow_ups);
        }
        if let Some(t) = self.macs[i].poll_timeout() {
            let t = t.max(now);
            if self.scheduled[i] != Some(t) {
                self.scheduled[i] = Some(t);
                self.queue
                    .schedule(t, Ev::Timeout(i))
                    .expect("not in the past");
            }
        }
        for input in follow_ups {
            self.dispatch(now, i, input);
        }
    }

    fn apply(
        &mut self,
        now: SimTime,
        i: usize,
        effect: MacOutput<u32>,
        next: &mut Vec<MacInput<u32>>,
    ) {
        match effect {
            MacOutput::StartTx { frame, airtime } => {
                let bits = 8 * u64::from(self.macs[i].config().frame_bytes(&frame));
                let meta = FrameMeta {
                    bits,
                    payload_bytes: frame.msdu_bytes,
                };
                let (tx, arrivals) = self.medium.start_tx(now, NodeId(i as u32), airtime, meta);
                self.sent.push(Sent {
                    at: now,
                    from: i,
                    kind: frame.kind,
                    ra: frame.ra,
                    msdu_bytes: frame.msdu_bytes,
                    airtime,
                });
                self.in_flight.insert(tx, (frame, arrivals.len()));
                for a in arrivals {
                    let r = a.receiver.index();
                    self.queue
                        .schedule(a.start, Ev::ArrivalStart(r))
                        .expect("future");
                    self.queue
                        .schedule(a.end, Ev::ArrivalEnd(tx, r))
                        .expect("future");
                }
            }
            MacOutput::Signal(s) => {
                self.signals.push((now, i, s));
                if matches!(s, MacSignal::TxSuccess | MacSignal::TxFailure) {
                    if let Some((dst, bytes)) = self.saturate[i] {
                        next.push(enqueue(dst, bytes));
                    }
                }
            }
            MacOutput::Deliver {
                from, msdu_bytes, ..
            } => {
                self.delivered.push((now, i, from, msdu_bytes));
                if let Some(bytes) = self.reply_bytes[i] {
                    next.push(MacInput::ReplyInFloor {
                        dst: from,
                        msdu_bytes: bytes,
                        payload: bytes,
                    });
                }
            }
        }
    }

    fn sent_by(&self, i: usize) -> Vec<&Sent> {
        self.sent.iter().filter(|s| s.from == i).collect()
    }
}

fn sent(at: u64, from: usize, kind: FrameKind, ra: NodeId, msdu: u32, air: u64) -> Sent {
    Sent {
        at: us(at),
        from,
        kind,
        ra,
        msdu_bytes: msdu,
        airtime: d(air),
    }
}

// ---- one exchange ----

#[test]
fn single_exchange_rts_cts_data_timeline() {
    let mut cell = Cell::new(2, cfg(false), 1);
    cell.dispatch(SimTime::ZERO, 0, enqueue(B, 1000));
    cell.run_until(us(50_000));
    // RTS at 0 (352 µs) reaches B at 353; CTS SIFS later at 363 (360 µs) reaches A at 724;
    // DATA SIFS later at 734 (8480 µs), ends at 9214 and is delivered at 9215.
    assert_eq!(
        cell.sent,
        vec![
            sent(0, 0, FrameKind::Rts, B, 0, 352),
            sent(363, 1, FrameKind::Cts, A, 0, 360),
            sent(734, 0, FrameKind::Data, B, 1000, 8480),
        ]
    );
    assert_eq!(cell.delivered, vec![(us(9215), 1, A, 1000)]);
    let floor = d(10 + 10 + 2 + 360 + 8480); // announced by the RTS
    assert_eq!(
        cell.signals,
        vec![
            (
                us(353),
                1,
                MacSignal::Wait {
                    sender: A,
                    duration: floor
                }
            ),
            (us(734), 0, MacSignal::Trans),
            (us(9214), 0, MacSignal::TxSuccess),
        ]
    );
    let a = cell.macs[0].counters();
    assert_eq!((a.attempts, a.data_frames_sent, a.cts_timeouts), (1, 1, 0));
    assert_eq!(cell.macs[0].state(us(50_000)).phase, FamaPhase::Contend);
}

// ---- overhearing stations ----

#[test]
fn overhearer_of_an_rts_defers_for_the_cts_then_backs_off() {
    let mut c = station(C, true);
    let rts = control(FrameKind::Rts, A, B, d(9999));
    let out = step(&mut c, us(353), MacInput::Received(rts));
    assert_eq!(
        out,
        vec![MacOutput::Signal(MacSignal::Wait {
            sender: A,
            duration: d(9999)
        })]
    );
    // SIFS + CTS + 2τ = 372 µs after the RTS ends.
    assert_eq!(c.state(us(353)).defer_until, us(725));
    // A frame arriving during the deferral is not sent; sensing resumes a random number of
    // slots after the deferral ends.
    assert!(tx_kinds(&step(&mut c, us(400), enqueue(B, 100))).is_empty());
    let next = c.poll_timeout().unwrap();
    assert!(
        next >= us(725 + 20) && next <= us(725 + 32 * 20),
        "{next:?}"
    );
    assert_eq!((next - us(725)).as_nanos() % 20_000, 0);
    assert_eq!(
        tx_kinds(&step(&mut c, next, MacInput::Timeout)),
        vec![FrameKind::Rts]
    );
}

#[test]
fn overhearer_of_a_cts_defers_for_a_maximum_data_packet() {
    let mut c = station(C, true);
    step(&mut c, us(400), enqueue(B, 100));
    assert_eq!(c.counters().attempts, 1); // clear channel: RTS at once
    let mut c = station(C, true);
    let out = step(
        &mut c,
        us(724),
        MacInput::Received(control(FrameKind::Cts, B, A, d(1))),
    );
    assert!(out.is_empty());
    // SIFS + 2τ + max data (1502 B: 12496 µs) + reply window (836 µs).
    let until = us(724 + 10 + 2 + 12496 + 836);
    assert_eq!(c.state(us(724)).defer_until, until);
    assert!(tx_kinds(&step(&mut c, us(800), enqueue(B, 100))).is_empty());
    let mut t = c.poll_timeout().unwrap();
    assert!(t > until);
    let out = step(&mut c, t, MacInput::Timeout);
    assert_eq!(tx_kinds(&out), vec![FrameKind::Rts]);
    // Without MAC acceleration the deferral has no reply window.
    let mut c = station(C, false);
    step(
        &mut c,
        us(724),
        MacInput::Received(control(FrameKind::Cts, B, A, d(1))),
    );
    assert_eq!(c.state(us(724)).defer_until, us(724 + 10 + 2 + 12496));
    t = us(724 + 10 + 2 + 12496 - 1);
    assert!(tx_kinds(&step(&mut c, t, enqueue(B, 1))).is_empty());
}

#[test]
fn noise_where_a_cts_was_expected_defers_like_a_cts_other_noise_like_an_rts() {
    let mut c = station(C, true);
    step(
        &mut c,
        us(353),
        MacInput::Received(control(FrameKind::Rts, A, B, d(1))),
    );
    step(&mut c, us(724), MacInput::RxError);
    assert_eq!(
        c.state(us(724)).defer_until,
        us(724) + c.config().cts_deferral()
    );
    let mut c = station(C, true);
    step(&mut c, us(5000), MacInput::RxError);
    assert_eq!(c.state(us(5000)).defer_until, us(5000 + 372));
}

#[test]
fn overheard_data_frame_ends_the_cts_deferral_at_its_real_end_plus_reply_window() {
    let mut c = station(C, true);
    step(
        &mut c,
        us(724),
        MacInput::Received(control(FrameKind::Cts, B, A, d(1))),
    );
    let data = MacFrame {
        msdu_bytes: 1000,
        payload: Some(1),
        ..control(FrameKind::Data, A, B, d(836))
    };
    step(&mut c, us(9215), MacInput::Received(data));
    assert_eq!(c.state(us(9215)).defer_until, us(9215 + 836));
}

// ---- non-persistent sensing ----

#[test]
fn busy_channel_draws_backoffs_and_never_transmits_while_busy() {
    let mut m = station(A, false);
    step(&mut m, us(0), MacInput::MediumBusy);
    assert!(tx_kinds(&step(&mut m, us(10), enqueue(B, 100))).is_empty());
    let mut senses = vec![];
    let idle_at = us(5000);
    let mut t = m.poll_timeout().unwrap();
    while t < idle_at {
        senses.push(t);
        assert!(
            tx_kinds(&step(&mut m, t, MacInput::Timeout)).is_empty(),
            "sent while busy at {t:?}"
        );
        t = m.poll_timeout().unwrap();
    }
    // It sensed again and again during the busy period (1 + U[0, 31] slots apart), rather
    // than waiting for its end.
    assert!(senses.len() >= 5000 / (32 * 20), "{senses:?}");
    for w in senses.windows(2) {
        let gap = (w[1] - w[0]).as_nanos();
        assert!(gap % 20_000 == 0 && (20_000..=640_000).contains(&gap));
    }
    assert_eq!(m.counters().busy_senses, senses.len() as u64 + 1);
    // The medium goes idle; the RTS goes at the next sense instant, not at the idle instant.
    assert!(tx_kinds(&step(&mut m, idle_at, MacInput::MediumIdle)).is_empty());
    assert!(t > idle_at);
    assert_eq!(
        tx_kinds(&step(&mut m, t, MacInput::Timeout)),
        vec![FrameKind::Rts]
    );
}

#[test]
fn no_cts_backs_off_with_a_doubled_window_retries_and_gives_up_at_the_limit() {
    let mut m = station(A, false);
    let out = step(&mut m, us(0), enqueue(B, 1000));
    assert_eq!(tx_kinds(&out), vec![FrameKind::Rts]);
    let mut rts_at = us(0);
    let mut failures = 0;
    let mut cw = 31;
    loop {
        // No CTS by RTS end + SIFS + 2τ + CTS + ξ = 352 + 377 µs after the RTS starts.
        let deadline = rts_at + d(352 + 377);
        assert_eq!(m.poll_timeout(), Some(deadline));
        let out = step(&mut m, deadline, MacInput::Timeout);
        failures += 1;
        assert_eq!(m.counters().cts_timeouts, failures);
        if failures == 7 {
            assert_eq!(out, vec![MacOutput::Signal(MacSignal::TxFailure)]);
            break;
        }
        assert!(out.is_empty());
        cw = (2 * (cw + 1) - 1).min(1023);
        let s = m.state(deadline);
        assert_eq!((s.cw, s.retry_count), (cw, failures as u32));
        let next = m.poll_timeout().unwrap();
        let slots = (next - deadline).as_nanos() / 20_000;
        assert!(
            (1..=u64::from(cw) + 1).contains(&slots),
            "{slots} slots, cw {cw}"
        );
        assert_eq!(
            tx_kinds(&step(&mut m, next, MacInput::Timeout)),
            vec![FrameKind::Rts]
        );
        rts_at = next;
    }
    let s = m.state(rts_at);
    assert_eq!((s.queue_len, s.cw, s.retry_count), (0, 31, 0));
    assert_eq!((m.counters().attempts, m.counters().drops), (7, 1));
}

// ---- MAC acceleration (TULIP §3.3, Figure 4) ----

#[test]
fn fig4a_lack_with_tcp_ack_returns_inside_the_floor_without_rts() {
    let mut cell = Cell::new(2, cfg(true), 1);
    cell.reply_bytes[1] = Some(43); // LACK (3 B) + a 40-byte TCP ACK
    cell.dispatch(SimTime::ZERO, 0, enqueue(B, 1000));
    cell.run_until(us(50_000));
    // The data announces the reply window (SIFS + 2τ + 824 µs); B's reply goes SIFS after
    // the data reaches it: 9215 + 10.
    assert_eq!(
        cell.sent,
        vec![
            sent(0, 0, FrameKind::Rts, B, 0, 352),
            sent(363, 1, FrameKind::Cts, A, 0, 360),
            sent(734, 0, FrameKind::Data, B, 1000, 8480),
            sent(9225, 1, FrameKind::Data, A, 43, 824),
        ]
    );
    assert_eq!(
        cell.delivered,
        vec![(us(9215), 1, A, 1000), (us(10050), 0, B, 43)]
    );
    // B's reply is not an exchange of its own: no TRANS, no TX-SUCCESS at B.
    assert!(cell
        .signals
        .iter()
        .all(|(_, i, s)| *i == 0 || matches!(s, MacSignal::Wait { .. })));
    assert_eq!(cell.macs[1].counters().replies_in_floor, 1);
    assert_eq!(cell.macs[1].counters().attempts, 0);
    // A held the floor for the reply: TX-SUCCESS at the end of its data, then the window.
    assert!(cell.signals.contains(&(us(9214), 0, MacSignal::TxSuccess)));
    let mut a = station(A, true);
    step(&mut a, us(0), enqueue(B, 1000));
    step(
        &mut a,
        us(724),
        MacInput::Received(control(FrameKind::Cts, B, A, d(1))),
    );
    step(&mut a, us(734), MacInput::Timeout);
    step(&mut a, us(9214), MacInput::Timeout);
    let holding = FamaPhase::AwaitReply {
        until: us(10050),
        peer: B,
    };
    assert_eq!(a.state(us(9214)).phase, holding);
    // It answers nobody else's RTS while holding the floor...
    step(
        &mut a,
        us(9600),
        MacInput::Received(control(FrameKind::Rts, C, A, d(1))),
    );
    assert_eq!(a.poll_timeout(), Some(us(10050)));
    assert!(tx_kinds(&step(&mut a, us(9610), MacInput::Timeout)).is_empty());
    assert_eq!(a.state(us(9610)).phase, holding);
    // ...and releases it at the end of the window, with a backoff before sensing again.
    step(&mut a, us(10050), MacInput::Timeout);
    assert_eq!(a.state(us(10050)).phase, FamaPhase::Contend);
}

#[test]
fn fig4b_a_100_byte_reply_triggers_an_immediate_rts_in_the_floor() {
    let mut cell = Cell::new(2, cfg(true), 1);
    cell.reply_bytes[1] = Some(100);
    cell.dispatch(SimTime::ZERO, 0, enqueue(B, 1000));
    cell.run_until(us(50_000));
    // B's RTS goes SIFS after the data (no sensing, no backoff): 9225; A answers with a CTS
    // at 9225 + 352 + 1 + 10 = 9588; B's data at 9588 + 360 + 1 + 10 = 9959 (1280 µs).
    assert_eq!(
        cell.sent[3..],
        [
            sent(9225, 1, FrameKind::Rts, A, 0, 352),
            sent(9588, 0, FrameKind::Cts, B, 0, 360),
            sent(9959, 1, FrameKind::Data, A, 100, 1280),
        ]
    );
    assert_eq!(cell.sent.len(), 6);
    assert_eq!(cell.delivered[1], (us(11_240), 0, B, 100));
    let b = cell.macs[1].counters();
    assert_eq!((b.immediate_rts, b.attempts, b.replies_in_floor), (1, 1, 0));
    // The larger reply is an exchange of B's like any other.
    assert!(cell.signals.contains(&(us(9959), 1, MacSignal::Trans)));
    assert!(cell
        .signals
        .contains(&(us(11_239), 1, MacSignal::TxSuccess)));
}

#[test]
fn reply_without_an_open_floor_is_an_ordinary_enqueue() {
    // Acceleration off: the reply contends like any frame (an RTS after sensing).
    let mut cell = Cell::new(2, cfg(false), 1);
    cell.reply_bytes[1] = Some(43);
    cell.dispatch(SimTime::ZERO, 0, enqueue(B, 1000));
    cell.run_until(us(50_000));
    let b: Vec<_> = cell.sent_by(1).iter().map(|s| s.kind).collect();
    assert_eq!(b, vec![FrameKind::Cts, FrameKind::Rts, FrameKind::Data]);
    assert_eq!(cell.macs[1].counters().replies_in_floor, 0);
    let b_rts = cell.sent_by(1)[1].at;
    assert!(b_rts > us(9215), "{b_rts:?}");
}

// ---- two saturated stations ----

/// Two saturated stations send 1000-byte datagrams to a third for `secs`; returns the cell.
/// TULIP §3.3, Figure 4(b): a frame still backing off can be taken back (its link layer
/// sends it again with a LACK on it as a reply); once its RTS is out it cannot.
#[test]
fn withdraw_takes_back_a_waiting_frame_but_not_one_whose_rts_is_out() {
    let mut m = station(A, true);
    step(&mut m, us(0), MacInput::MediumBusy);
    step(&mut m, us(10), enqueue(B, 1000));
    step(&mut m, us(11), enqueue(B, 1001));
    assert_eq!(m.withdraw(|p| *p == 1001), Some(1001));
    assert_eq!(m.state(us(12)).queue_len, 1);
    step(&mut m, us(13), MacInput::MediumIdle);
    let t = m.poll_timeout().expect("a sense pending");
    assert_eq!(
        tx_kinds(&step(&mut m, t, MacInput::Timeout)),
        vec![FrameKind::Rts]
    );
    assert_eq!(m.withdraw(|p| *p == 1000), None, "its RTS is on the air");
    assert_eq!(m.state(t).queue_len, 1);
}

fn saturated(accel: bool, ap_reply: Option<u32>, seed: u64, secs: u64) -> Cell {
    let mut cell = Cell::new(3, cfg(accel), seed);
    cell.reply_bytes[2] = ap_reply;
    for i in 0..2 {
        cell.saturate[i] = Some((C, 1000));
        for _ in 0..2 {
            cell.dispatch(SimTime::ZERO, i, enqueue(C, 1000));
        }
    }
    cell.run_until(us(secs * 1_000_000));
    cell
}

#[test]
fn two_saturated_stations_share_the_floor_without_data_collisions() {
    let secs = 4;
    let cell = saturated(false, None, 11, secs);
    let data: Vec<_> = cell
        .sent
        .iter()
        .filter(|s| s.kind == FrameKind::Data)
        .collect();
    let rts = cell
        .sent
        .iter()
        .filter(|s| s.kind == FrameKind::Rts)
        .count() as u64;
    // Once a floor is acquired its data is never hit; RTSs may collide (equal backoffs).
    assert_eq!(cell.data_collisions, 0);
    let cts_timeouts: u64 = cell.macs.iter().map(|m| m.counters().cts_timeouts).sum();
    assert!(cts_timeouts > 0, "no RTS collision at all is implausible");
    // Every RTS either got its data out or timed out (the last may still be under way).
    assert!((0..=1).contains(&(rts - data.len() as u64 - cts_timeouts)));
    let delivered = cell.delivered.len() as u64;
    assert!(delivered + 1 >= data.len() as u64); // the last may still be in the air
    for w in data.windows(2) {
        assert!(w[1].at >= w[0].at + w[0].airtime, "data frames overlap");
    }
    let per: Vec<u64> = (0..2)
        .map(|i| cell.delivered.iter().filter(|x| x.2 == NodeId(i)).count() as u64)
        .collect();
    assert!(
        per.iter().all(|&n| 10 * n >= 4 * delivered),
        "unfair shares {per:?}"
    );

    // Hand arithmetic for one packet, at the receiver:
    //   RTS 352 + τ + SIFS 10 + CTS 360 + τ + SIFS 10 + DATA 8480 + τ      = 9215 µs
    //   + the winning backoff: the sender draws 1 + U[0,31] slots at the end of its data, the
    //     other station counts its own from the same instant (+τ), so the winner waits
    //     E[min of two U{1..32}] = Σ_{j=1..32} j²/32² = 11 440 / 1 024 ≈ 11.17 slots
    //                                                                    ≈ 223 µs
    //   + RTS collisions: equal draws, p = 1/32 per floor, each costing an RTS and the CTS
    //     timeout (352 + 377 = 729 µs) plus a redraw from cw = 63 (E[min] ≈ 22 slots,
    //     440 µs):  (729 + 440) / 32                                      ≈  37 µs
    //   ≈ 9 475 µs per 1000-byte packet: 8 000 bits / 9 475 µs ≈ 844 kbit/s, a utilisation
    //   of 8 480 / 9 475 ≈ 89.5 % of the air for data frames.
    let cycle_us = (secs * 1_000_000) as f64 / delivered as f64;
    eprintln!("cycle {cycle_us:.0} µs, {cts_timeouts} CTS timeouts, shares {per:?}");
    assert!(
        (cycle_us - 9_475.0).abs() < 0.02 * 9_475.0,
        "mean cycle {cycle_us:.0} µs over {delivered} packets"
    );
    assert!(cycle_us > 9_215.0 + 20.0); // never better than the handshake plus one slot
    let throughput_bps = 8.0 * 1000.0 * delivered as f64 / secs as f64;
    assert!(
        (throughput_bps - 844_000.0).abs() < 0.02 * 844_000.0,
        "{throughput_bps}"
    );
}

#[test]
fn saturated_stations_with_lack_replies_in_the_floor_never_collide_with_them() {
    let secs = 2;
    let cell = saturated(true, Some(43), 12, secs);
    assert_eq!(cell.data_collisions, 0);
    let ap = cell.macs[2].counters();
    let delivered_at_ap = cell.delivered.iter().filter(|x| x.1 == 2).count() as u64;
    // Every delivered datagram got its LACK inside the floor, and the AP never sent an RTS.
    assert_eq!(ap.replies_in_floor, delivered_at_ap);
    assert_eq!(ap.attempts, 0);
    let lacks_back = cell.delivered.iter().filter(|x| x.1 < 2).count() as u64;
    assert!(lacks_back + 1 >= delivered_at_ap);
    // The cycle grows by the reply window: 9 475 + SIFS + 2τ + 824 ≈ 10 311 µs; the sender
    // draws its backoff at the end of the window and the other station counts from the
    // end of the reply (≤ 2τ earlier), so the backoff term is unchanged.
    let cycle_us = (secs * 1_000_000) as f64 / delivered_at_ap as f64;
    eprintln!("cycle with LACKs {cycle_us:.0} µs");
    assert!(
        (cycle_us - 10_311.0).abs() < 0.03 * 10_311.0,
        "{cycle_us:.0} µs"
    );
}
