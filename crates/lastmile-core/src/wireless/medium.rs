//! A wireless cell as one shared, half-duplex broadcast channel: pure bookkeeping of who is
//! transmitting and what each member hears, with no events of its own.
//!
//! The model (the usual single-collision-domain assumption of Bianchi 2000 §II and of ns-2's
//! `WirelessChannel` within carrier-sense range):
//! - every member hears every other member's transmission after one propagation delay, for
//!   the transmission's whole duration (`start_tx` returns the arrival intervals);
//! - carrier sense (`is_busy`) is physical: energy from any other member's transmission;
//! - a frame is received intact at a receiver only if no other arrival overlapped it there
//!   and the receiver did not transmit during any part of it (half duplex). There is no
//!   capture effect and no SINR: any overlap destroys both frames;
//! - an arrival that overlapped the receiver's own transmission is `Missed` (the receiver
//!   never synchronised to it), an arrival destroyed by another arrival is `Collided`;
//! - a frame that survived collisions may still be lost to the receiver's error model
//!   (`AnyErrorModel::frame_lost`, consulted once per intact frame per receiver, in
//!   transmission order since intact frames at one receiver never overlap).
//!
//! Members may `leave` and `join` at any time: a member that leaves stops hearing at once
//! (what was arriving at it is forgotten, and `finish_rx` for it says `Missed`), while its
//! own transmission already on the air still reaches the others.
//!
//! A full-duplex medium (`Medium::full_duplex`, under `mac = "duplex"`) gives every member
//! a channel of its own: its frames neither collide with others' nor are missed while it
//! transmits, and no member senses another's carrier; only the error model can lose them.
//! Each member's radio time per state (transmit, receive, idle; asleep after it leaves) is
//! kept by a `RadioMeter` (`wireless::energy`): its own transmissions, and every arrival at
//! it, whatever its fate. A member that leaves keeps its meter for when it joins again.
//!
//! Left out: hidden terminals and ranges (every member hears every other), capture, per-pair
//! propagation delays.

use std::collections::BTreeMap;

use crate::engine::{SimDuration, SimTime};
use crate::error_model::{AnyErrorModel, BlockCode, FrameInfo};
use crate::ids::NodeId;
use crate::wireless::energy::{RadioMeter, StateTimes};

/// A transmission on the medium, unique among those on the air (numbered from 0, wrapping
/// after 2^32: no frame is on the air that long).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TxId(pub u32);

/// What the error model may know of a frame: its length and the payload it carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FrameMeta {
    pub bits: u64,
    pub payload_bytes: u32,
}

/// When a transmission is heard at one receiver.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub tx: TxId,
    pub receiver: NodeId,
    pub start: SimTime,
    pub end: SimTime,
}

/// The fate of one arrival at one receiver, decided when it ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RxOutcome {
    /// Received intact: hand it to the MAC.
    Intact,
    /// Overlapped another arrival: the PHY saw a corrupted frame (the MAC uses EIFS).
    Collided,
    /// Survived collisions but the error model dropped it (an FCS error: EIFS as well).
    Errored,
    /// Overlapped the receiver's own transmission: never received at all.
    Missed,
}

#[derive(Clone, Debug)]
struct Pending {
    tx: TxId,
    start: SimTime,
    end: SimTime,
    collided: bool,
    missed: bool,
    meta: FrameMeta,
    tx_start: SimTime,
    tx_end: SimTime,
}

#[derive(Clone, Debug)]
struct Member {
    node: NodeId,
    /// The end of this member's latest transmission.
    tx_until: SimTime,
    tx_from: SimTime,
    arrivals: Vec<Pending>,
    errors: AnyErrorModel,
    radio: RadioMeter,
}

/// One cell's shared channel.
#[derive(Clone, Debug)]
pub struct Medium {
    propagation: SimDuration,
    members: Vec<Member>,
    index: BTreeMap<NodeId, usize>,
    next_tx: u32,
    /// The radios of members that left, asleep until they join again.
    departed: BTreeMap<NodeId, RadioMeter>,
    /// Every member on its own channel (no collisions, no half-duplex misses, no carrier).
    full_duplex: bool,
    /// Link FEC of the hop: frames are judged block by block (`error_model/fec.rs`).
    code: Option<BlockCode>,
}

impl Medium {
    pub fn new(propagation: SimDuration) -> Self {
        Medium {
            propagation,
            members: Vec::new(),
            index: BTreeMap::new(),
            next_tx: 0,
            departed: BTreeMap::new(),
            full_duplex: false,
            code: None,
        }
    }

    /// Puts link FEC on the hop: every frame's bits become its coded bits, and a frame is
    /// lost only if some block has more errors than the code corrects.
    pub fn set_code(&mut self, code: Option<BlockCode>) {
        self.code = code;
    }

    /// A medium where every member transmits on a channel of its own (FDD).
    pub fn full_duplex(propagation: SimDuration) -> Self {
        Medium {
            full_duplex: true,
            ..Medium::new(propagation)
        }
    }

    pub fn propagation(&self) -> SimDuration {
        self.propagation
    }

    /// Adds `node` to the cell at `now` (no-op if it is already a member); its radio wakes.
    pub fn join(&mut self, now: SimTime, node: NodeId) {
        if self.index.contains_key(&node) {
            return;
        }
        let radio = match self.departed.remove(&node) {
            Some(mut radio) => {
                radio.attach(now);
                radio
            }
            None => RadioMeter::attached_at(now),
        };
        self.index.insert(node, self.members.len());
        self.members.push(Member {
            node,
            tx_until: SimTime::ZERO,
            tx_from: SimTime::ZERO,
            arrivals: Vec::new(),
            errors: AnyErrorModel::None,
            radio,
        });
    }

    /// Removes `node` from the cell at `now` (no-op if it is not a member): it neither hears
    /// nor is heard from now on, the arrivals pending at it are forgotten, and its radio
    /// sleeps. The others keep their order.
    pub fn leave(&mut self, now: SimTime, node: NodeId) {
        let Some(i) = self.index.remove(&node) else {
            return;
        };
        let mut gone = self.members.remove(i);
        gone.radio.detach(now);
        self.departed.insert(node, gone.radio);
        for m in &self.members[i..] {
            if let Some(at) = self.index.get_mut(&m.node) {
                *at -= 1;
            }
        }
    }

    pub fn members(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.members.iter().map(|m| m.node)
    }

    /// Sets the error model applied to intact frames arriving at `node`.
    pub fn set_error_model(&mut self, node: NodeId, errors: AnyErrorModel) {
        if let Some(&i) = self.index.get(&node) {
            self.members[i].errors = errors;
        }
    }

    /// `node` starts transmitting for `duration`. Returns the arrival interval at every other
    /// member; the caller reports each arrival's end through `finish_rx`.
    pub fn start_tx(
        &mut self,
        now: SimTime,
        node: NodeId,
        duration: SimDuration,
        meta: FrameMeta,
    ) -> (TxId, Vec<Arrival>) {
        let mut arrivals = Vec::new();
        let tx = self.start_tx_into(now, node, duration, meta, &mut arrivals);
        (tx, arrivals)
    }

    /// `start_tx` with the arrivals appended to `arrivals` (a buffer the caller reuses).
    pub fn start_tx_into(
        &mut self,
        now: SimTime,
        node: NodeId,
        duration: SimDuration,
        meta: FrameMeta,
        arrivals: &mut Vec<Arrival>,
    ) -> TxId {
        let tx = TxId(self.next_tx);
        self.next_tx = self.next_tx.wrapping_add(1);
        let Some(&sender) = self.index.get(&node) else {
            return tx;
        };
        let end = now + duration;
        if self.full_duplex {
            self.start_duplex_tx(tx, sender, now, end, meta, arrivals);
            return tx;
        }
        {
            let me = &mut self.members[sender];
            me.tx_from = now;
            me.tx_until = end;
            me.radio.transmit(now, now, end);
            // Half duplex: whatever this node was (or was about to be) receiving is lost.
            for a in me.arrivals.iter_mut().filter(|a| a.end > now) {
                a.missed = true;
            }
        }
        let (start, stop) = (now + self.propagation, end + self.propagation);
        for (i, m) in self.members.iter_mut().enumerate() {
            if i == sender {
                continue;
            }
            let mut p = Pending {
                tx,
                start,
                end: stop,
                collided: false,
                missed: m.tx_until > start && m.tx_from < stop,
                meta,
                tx_start: now,
                tx_end: end,
            };
            for other in m.arrivals.iter_mut() {
                if other.start < stop && start < other.end {
                    other.collided = true;
                    p.collided = true;
                }
            }
            m.arrivals.push(p);
            m.radio.receive(now, start, stop);
            arrivals.push(Arrival {
                tx,
                receiver: m.node,
                start,
                end: stop,
            });
        }
        tx
    }

    /// Every radio that has been a member (present or departed) with its time per state up
    /// to `end`, in node order.
    pub fn radio_times(&self, end: SimTime) -> Vec<(NodeId, StateTimes)> {
        let mut out: Vec<(NodeId, StateTimes)> = self
            .members
            .iter()
            .map(|m| (m.node, m.radio.times(end)))
            .chain(self.departed.iter().map(|(&n, r)| (n, r.times(end))))
            .collect();
        out.sort_by_key(|(n, _)| *n);
        out
    }

    /// `start_tx` on a full-duplex medium: an arrival at every other member, never marked.
    fn start_duplex_tx(
        &mut self,
        tx: TxId,
        sender: usize,
        now: SimTime,
        end: SimTime,
        meta: FrameMeta,
        arrivals: &mut Vec<Arrival>,
    ) {
        let (start, stop) = (now + self.propagation, end + self.propagation);
        self.members[sender].radio.transmit(now, now, end);
        for (i, m) in self.members.iter_mut().enumerate() {
            if i == sender {
                continue;
            }
            m.radio.receive(now, start, stop);
            m.arrivals.push(Pending {
                tx,
                start,
                end: stop,
                collided: false,
                missed: false,
                meta,
                tx_start: now,
                tx_end: end,
            });
            arrivals.push(Arrival {
                tx,
                receiver: m.node,
                start,
                end: stop,
            });
        }
    }

    /// Physical carrier sense: is energy from another member arriving at `node` at `now`?
    /// Never on a full-duplex medium (the others send on their own channels).
    pub fn is_busy(&self, node: NodeId, now: SimTime) -> bool {
        !self.full_duplex
            && self.index.get(&node).is_some_and(|&i| {
                self.members[i]
                    .arrivals
                    .iter()
                    .any(|a| a.start <= now && now < a.end)
            })
    }

    /// Whether `node` is itself transmitting at `now`.
    pub fn is_transmitting(&self, node: NodeId, now: SimTime) -> bool {
        self.index
            .get(&node)
            .is_some_and(|&i| self.members[i].tx_from <= now && now < self.members[i].tx_until)
    }

    /// The arrival of `tx` at `receiver` has ended: decides and forgets it.
    pub fn finish_rx(&mut self, tx: TxId, receiver: NodeId) -> RxOutcome {
        let code = self.code;
        let Some(&i) = self.index.get(&receiver) else {
            return RxOutcome::Missed;
        };
        let m = &mut self.members[i];
        let Some(pos) = m.arrivals.iter().position(|a| a.tx == tx) else {
            return RxOutcome::Missed;
        };
        let p = m.arrivals.swap_remove(pos);
        if p.missed {
            RxOutcome::Missed
        } else if p.collided {
            RxOutcome::Collided
        } else {
            let info = FrameInfo {
                tx_start: p.tx_start,
                tx_end: p.tx_end,
                bits: code.map_or(p.meta.bits, |c| c.coded_bits(p.meta.bits)),
                payload_bytes: p.meta.payload_bytes,
            };
            if m.errors.frame_lost_coded(&info, code.as_ref()) {
                RxOutcome::Errored
            } else {
                RxOutcome::Intact
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: FrameMeta = FrameMeta {
        bits: 8000,
        payload_bytes: 1000,
    };

    fn t(us: u64) -> SimTime {
        SimTime::from_nanos(us * 1000)
    }
    fn d(us: u64) -> SimDuration {
        SimDuration::from_micros(us)
    }
    fn cell(n: u32) -> Medium {
        let mut m = Medium::new(d(1));
        for i in 0..n {
            m.join(t(0), NodeId(i));
        }
        m
    }

    #[test]
    fn lone_frame_arrives_intact_after_propagation_and_busies_the_others() {
        let mut m = cell(3);
        let (tx, arr) = m.start_tx(t(0), NodeId(0), d(100), META);
        assert_eq!(arr.len(), 2);
        assert_eq!((arr[0].start, arr[0].end), (t(1), t(101)));
        assert!(!m.is_busy(NodeId(1), t(0)));
        assert!(m.is_busy(NodeId(1), t(1)));
        assert!(m.is_busy(NodeId(2), t(100)));
        assert!(
            !m.is_busy(NodeId(0), t(50)),
            "a sender does not hear itself"
        );
        assert!(m.is_transmitting(NodeId(0), t(50)));
        assert_eq!(m.finish_rx(tx, NodeId(1)), RxOutcome::Intact);
        assert_eq!(m.finish_rx(tx, NodeId(2)), RxOutcome::Intact);
        assert!(!m.is_busy(NodeId(1), t(101)));
    }

    #[test]
    fn overlapping_frames_collide_at_every_receiver_and_senders_miss_each_other() {
        let mut m = cell(3);
        let (a, _) = m.start_tx(t(0), NodeId(0), d(100), META);
        let (b, _) = m.start_tx(t(50), NodeId(1), d(100), META);
        assert_eq!(m.finish_rx(a, NodeId(2)), RxOutcome::Collided);
        assert_eq!(m.finish_rx(b, NodeId(2)), RxOutcome::Collided);
        // Node 1 transmitted while a's frame was arriving; node 0 while b's was.
        assert_eq!(m.finish_rx(a, NodeId(1)), RxOutcome::Missed);
        assert_eq!(m.finish_rx(b, NodeId(0)), RxOutcome::Missed);
    }

    #[test]
    fn back_to_back_frames_do_not_collide() {
        let mut m = cell(3);
        let (a, _) = m.start_tx(t(0), NodeId(0), d(100), META);
        assert_eq!(m.finish_rx(a, NodeId(2)), RxOutcome::Intact);
        let (b, _) = m.start_tx(t(101), NodeId(1), d(100), META);
        assert_eq!(m.finish_rx(b, NodeId(2)), RxOutcome::Intact);
        assert_eq!(m.finish_rx(b, NodeId(0)), RxOutcome::Intact);
    }

    #[test]
    fn a_member_that_left_misses_what_was_arriving_and_is_not_heard_again() {
        let mut m = cell(3);
        let (a, arr) = m.start_tx(t(0), NodeId(0), d(100), META);
        assert_eq!(arr.len(), 2);
        m.leave(t(50), NodeId(1));
        // The pending arrival's end comes after the member left: harmless, and lost to it.
        assert_eq!(m.finish_rx(a, NodeId(1)), RxOutcome::Missed);
        assert!(!m.is_busy(NodeId(1), t(50)));
        assert_eq!(m.finish_rx(a, NodeId(2)), RxOutcome::Intact);
        assert_eq!(m.members().collect::<Vec<_>>(), [NodeId(0), NodeId(2)]);
        // It no longer hears others, and its own frames reach no one.
        let (_, arr) = m.start_tx(t(200), NodeId(0), d(100), META);
        assert_eq!(
            arr.iter().map(|a| a.receiver).collect::<Vec<_>>(),
            [NodeId(2)]
        );
        let (_, arr) = m.start_tx(t(400), NodeId(1), d(100), META);
        assert!(arr.is_empty());
        m.leave(t(500), NodeId(1)); // Twice: a no-op.
                                    // Joining again: it hears the next frame.
        m.join(t(550), NodeId(1));
        let (b, arr) = m.start_tx(t(600), NodeId(2), d(100), META);
        assert_eq!(arr.len(), 2);
        assert_eq!(m.finish_rx(b, NodeId(1)), RxOutcome::Intact);
    }

    #[test]
    fn a_member_that_left_while_sending_still_reaches_the_others() {
        let mut m = cell(3);
        let (a, _) = m.start_tx(t(0), NodeId(0), d(100), META);
        m.leave(t(50), NodeId(0));
        assert!(m.is_busy(NodeId(2), t(50)));
        assert_eq!(m.finish_rx(a, NodeId(2)), RxOutcome::Intact);
    }

    #[test]
    fn radios_transmit_their_own_frames_and_receive_every_arrival_collided_or_not() {
        let mut m = cell(3);
        let (a, _) = m.start_tx(t(0), NodeId(0), d(100), META);
        let (b, _) = m.start_tx(t(50), NodeId(1), d(100), META);
        for (tx, rx) in [(a, 1), (a, 2), (b, 0), (b, 2)] {
            m.finish_rx(tx, NodeId(rx));
        }
        let times = m.radio_times(t(1000));
        let of = |n: u32| times.iter().find(|(id, _)| *id == NodeId(n)).unwrap().1;
        // Node 0 sends 0-100 us; b arrives 51-151 us, of which 100-151 is receive only.
        assert_eq!((of(0).transmit, of(0).receive), (d(100), d(51)));
        // Node 1 sends 50-150 us; a arrived 1-101 us, receive only until 50.
        assert_eq!((of(1).transmit, of(1).receive), (d(100), d(49)));
        // Node 2 hears both, collided: one stretch 1-151 us.
        assert_eq!((of(2).transmit, of(2).receive), (d(0), d(150)));
        assert_eq!(of(2).idle, d(850));
        // A member that leaves sleeps from then on, and keeps its meter when it returns.
        m.leave(t(1000), NodeId(2));
        let times = m.radio_times(t(3000));
        let two = times.iter().find(|(id, _)| *id == NodeId(2)).unwrap().1;
        assert_eq!((two.idle, two.sleep), (d(850), d(2000)));
        m.join(t(2000), NodeId(2));
        let times = m.radio_times(t(3000));
        let two = times.iter().find(|(id, _)| *id == NodeId(2)).unwrap().1;
        assert_eq!((two.idle, two.sleep), (d(1850), d(1000)));
    }

    #[test]
    fn full_duplex_radios_transmit_their_frames_and_receive_the_others_outside_them() {
        let mut m = Medium::full_duplex(d(1));
        for i in 0..2 {
            m.join(t(0), NodeId(i));
        }
        let (a, _) = m.start_tx(t(0), NodeId(0), d(100), META);
        let (b, _) = m.start_tx(t(50), NodeId(1), d(100), META);
        m.finish_rx(a, NodeId(1));
        m.finish_rx(b, NodeId(0));
        let times = m.radio_times(t(1000));
        let of = |n: u32| times.iter().find(|(id, _)| *id == NodeId(n)).unwrap().1;
        // Node 0 sends 0-100 us and hears b 51-151 us: receive only after its own frame.
        assert_eq!((of(0).transmit, of(0).receive), (d(100), d(51)));
        // Node 1 hears a 1-101 us and sends 50-150 us: receive only before its own frame.
        assert_eq!((of(1).transmit, of(1).receive), (d(100), d(49)));
        assert_eq!(of(0).idle, d(849));
    }

    #[test]
    fn error_model_drops_only_intact_frames_of_its_receiver() {
        let mut m = cell(3);
        m.set_error_model(
            NodeId(2),
            crate::error_model::ErrorModelSpec::Per {
                per: crate::units::Probability(1.0),
            }
            .build(1_000_000, crate::engine::RngStream::derive(1, "t")),
        );
        let (a, _) = m.start_tx(t(0), NodeId(0), d(100), META);
        assert_eq!(m.finish_rx(a, NodeId(2)), RxOutcome::Errored);
        assert_eq!(m.finish_rx(a, NodeId(1)), RxOutcome::Intact);
    }
}
