//! TULIP through a scripted channel for long runs: lossless and lossy, sequence numbers
//! wrapping modulo 2W many times, and random losses of data frames and LACKs (proptest):
//! every reliable packet is released once and in order.

use proptest::prelude::*;

use super::*;

/// A tiny deterministic generator for scripted losses.
struct XorShift(u64);

impl XorShift {
    fn percent(&mut self, p: u32) -> bool {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % 100) < u64::from(p)
    }
}

#[derive(Debug)]
enum Ev {
    Frame(TulipFrame),
    Signal(MacSignal),
}

/// Two TULIP ends, `A` (0) and `B` (1), over an ideal full-duplex channel with scripted loss:
/// TRANS at hand-over, arrival after airtime + τ, loss drawn per frame.
struct Pair {
    ends: [TulipLink; 2],
    config: TulipConfig,
    events: Vec<(SimTime, u64, usize, Ev)>,
    next_id: u64,
    rng: XorShift,
    data_loss_pct: u32,
    lack_loss_pct: u32,
    delivered: [Vec<Packet>; 2],
    /// How many times each packet id was handed to the MAC as a ULP or a piggyback.
    unreliable_sends: std::collections::BTreeMap<u64, u32>,
}

impl Pair {
    fn new(config: TulipConfig, seed: u64, data_loss_pct: u32, lack_loss_pct: u32) -> Self {
        Pair {
            ends: [
                TulipLink::new(config.clone()).unwrap(),
                TulipLink::new(config.clone()).unwrap(),
            ],
            config,
            events: Vec::new(),
            next_id: 0,
            rng: XorShift(seed | 1),
            data_loss_pct,
            lack_loss_pct,
            delivered: [Vec::new(), Vec::new()],
            unreliable_sends: Default::default(),
        }
    }

    fn schedule(&mut self, at: SimTime, end: usize, ev: Ev) {
        self.events.push((at, self.next_id, end, ev));
        self.next_id += 1;
    }

    fn input(&mut self, now: SimTime, end: usize, input: TulipInput) {
        let mut out = TulipOutbox::new();
        self.ends[end].handle(now, input, &mut out);
        for o in out.drain() {
            match o {
                TulipOutput::ToNetwork(p) => self.delivered[end].push(p),
                TulipOutput::ToMac(frame) => self.transmit(now, end, frame),
                TulipOutput::Event(_) => {}
            }
        }
    }

    fn transmit(&mut self, now: SimTime, end: usize, frame: TulipFrame) {
        let airtime = self.config.airtime(frame.size_bytes(&self.config));
        let arrival = now + airtime + self.config.tau;
        let lost_pct = if frame.is_lack() {
            self.lack_loss_pct
        } else {
            self.data_loss_pct
        };
        match &frame {
            TulipFrame::Unreliable { packet } => {
                *self.unreliable_sends.entry(packet.id.0).or_default() += 1
            }
            TulipFrame::Lack {
                piggyback: Some(p), ..
            } => *self.unreliable_sends.entry(p.id.0).or_default() += 1,
            _ => {}
        }
        if !frame.is_lack() {
            self.schedule(now, end, Ev::Signal(MacSignal::Trans));
            self.schedule(now + airtime, end, Ev::Signal(MacSignal::TxSuccess));
        }
        if !self.rng.percent(lost_pct) {
            self.schedule(arrival, 1 - end, Ev::Frame(frame));
        }
    }

    /// Runs until both ends are idle; panics if that takes more than `max_steps`.
    fn run(&mut self, max_steps: usize) -> SimTime {
        let mut now = SimTime::ZERO;
        for _ in 0..max_steps {
            let next_ev = self
                .events
                .iter()
                .enumerate()
                .min_by_key(|(_, (t, id, _, _))| (*t, *id))
                .map(|(i, (t, ..))| (i, *t));
            let next_timer = (0..2)
                .filter_map(|e| self.ends[e].poll_timeout().map(|t| (t, e)))
                .min();
            let take_event = match (next_ev, next_timer) {
                (Some((_, t)), Some((tt, _))) => t <= tt,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return now,
            };
            if let (true, Some((i, _))) = (take_event, next_ev) {
                let (t, _, end, ev) = self.events.swap_remove(i);
                now = t;
                let input = match ev {
                    Ev::Frame(f) => TulipInput::FrameReceived(f),
                    Ev::Signal(s) => TulipInput::MacSignal(s),
                };
                self.input(now, end, input);
            } else if let Some((t, end)) = next_timer {
                now = t;
                self.input(now, end, TulipInput::Timeout);
            }
        }
        panic!("no quiescence after {max_steps} steps");
    }

    fn delivered_ids(&self, end: usize, service: Service) -> Vec<u64> {
        self.delivered[end]
            .iter()
            .filter(|p| p.service == service)
            .map(|p| p.id.0)
            .collect()
    }
}

fn wraparound_run(data_loss_pct: u32, lack_loss_pct: u32) -> Pair {
    const FRAMES: u64 = 10_000;
    let mut pair = Pair::new(TulipConfig::default(), 42, data_loss_pct, lack_loss_pct);
    for id in 0..FRAMES {
        pair.input(SimTime::ZERO, 0, TulipInput::FromNetwork(data(id)));
    }
    pair.run(2_000_000);
    assert_eq!(
        pair.delivered_ids(1, Service::Reliable),
        (0..FRAMES).collect::<Vec<_>>(),
        "every frame released once, in order, across {} wraps of 2W",
        FRAMES / 16
    );
    assert!(pair.ends[0].sender().is_idle());
    assert_eq!(pair.ends[1].receiver().metrics().frames_released, FRAMES);
    pair
}

#[test]
fn tulip_wraparound_lossless_10000_frames() {
    let pair = wraparound_run(0, 0);
    let m = pair.ends[0].sender().metrics();
    assert_eq!(m.new_frames_sent, 10_000);
    assert_eq!(
        m.retransmissions, 0,
        "no loss, no retransmission (ideal goodput, §5.1.2)"
    );
    assert_eq!(pair.ends[1].receiver().metrics().duplicates_discarded, 0);
}

#[test]
fn tulip_wraparound_lossy_10000_frames() {
    let pair = wraparound_run(20, 20);
    let s = pair.ends[0].sender().metrics();
    let r = pair.ends[1].receiver().metrics();
    assert!(s.retransmissions > 1_000, "{s:?}");
    assert_eq!(
        r.data_frames_received,
        r.frames_released + r.duplicates_discarded
    );
}

proptest! {
    // No regression files: a failure prints its minimal input.
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random loss of data frames and LACKs in both directions, reliable and unreliable
    /// traffic mixed, small TACK-like packets going back: every reliable packet is released
    /// exactly once and in order (§3.1); unreliable packets are handed to the MAC exactly once.
    #[test]
    fn tulip_random_loss_releases_each_reliable_packet_once_in_order(
        seed in any::<u64>(),
        window in 2u16..=16,
        data_loss in 0u32..60,
        lack_loss in 0u32..60,
        kinds in proptest::collection::vec(0u8..4, 1..120),
        acks_back in 0u64..30,
        mac_acceleration in any::<bool>(),
    ) {
        let config = TulipConfig {
            window,
            lack_bytes: TulipConfig::lack_bytes_for_window(window),
            mac_acceleration,
            ..TulipConfig::default()
        };
        let mut pair = Pair::new(config, seed, data_loss, lack_loss);
        let mut reliable = Vec::new();
        let mut unreliable = Vec::new();
        for (i, k) in kinds.iter().enumerate() {
            let id = i as u64;
            let p = if *k == 0 {
                unreliable.push(id);
                pkt(id, Service::Unreliable, 200)
            } else {
                reliable.push(id);
                pkt(id, Service::Reliable, 600)
            };
            pair.input(SimTime::ZERO, 0, TulipInput::FromNetwork(p));
        }
        for j in 0..acks_back {
            let p = pkt(10_000 + j, Service::Unreliable, 40);
            pair.input(SimTime::ZERO, 1, TulipInput::FromNetwork(p));
        }
        pair.run(400_000);

        prop_assert_eq!(pair.delivered_ids(1, Service::Reliable), reliable);
        let got = pair.delivered_ids(1, Service::Unreliable);
        prop_assert!(got.windows(2).all(|w| w[0] < w[1]), "ULPs at most once: {:?}", got);
        prop_assert!(got.iter().all(|id| unreliable.contains(id)));
        for id in unreliable.iter().copied().chain(10_000..10_000 + acks_back) {
            prop_assert_eq!(pair.unreliable_sends.get(&id).copied(), Some(1), "ULP {}", id);
        }
        let back = pair.delivered_ids(0, Service::Unreliable);
        prop_assert!(back.windows(2).all(|w| w[0] < w[1]));
        if data_loss == 0 && lack_loss == 0 {
            prop_assert_eq!(got, unreliable);
            prop_assert_eq!(back, (10_000..10_000 + acks_back).collect::<Vec<_>>());
        }
    }
}
