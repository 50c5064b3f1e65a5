//! GSM's non-transparent mode: the Radio Link Protocol (GSM 04.22 / 3GPP TS 24.022),
//! selective-reject ARQ over FEC, as the survey describes it ("packets are shielded from
//! corruption using FEC and an ARQ scheme assures that lost or corrupted packets will be
//! delivered", Appendix) and RFC 2757 §2.1 ("In GSM RLP, a frame is retransmitted until the
//! maximum number of retransmissions (protocol parameter) is reached", then the link is
//! reset "resulting in lost data"). One [`Rlp`] is both ends' worth for one peer: a sender
//! and a receiver on a full-duplex channel (`mac = "duplex"`).
//!
//! The procedures, as GSM 04.22's Annex A state machine has them (read through gnokii's
//! `rlp-common.c`, "based on GSM 04.22 version 7.1.0"):
//! - **Frames.** Every frame has the same length (the 240-bit frame of TCH/F9.6: a 2-byte
//!   header, 25 bytes of information with L2R's status octet, a 24-bit FCS; our
//!   `header_bytes` = 6 and `info_bytes` = 24). I+S frames carry N(S), data and the
//!   supervisory part (RR with N(R), or SREJ); S frames the supervisory part alone; U frames
//!   SABM and UA. The datagram stream is cut into the information fields (`stream.rs`).
//! - **Sender.** I frames go in order within a window of k frames (61 of modulus 62); the
//!   first frame marked for retransmission goes before any new one. RR N(R) acknowledges
//!   every frame before N(R). **SREJ N(R) marks exactly frame N(R) for retransmission**
//!   and stops T1. T1 runs from the last I frame sent while frames are unacknowledged; when
//!   it expires the sender polls (an RR command with P = 1) and restarts T1; the response
//!   (F = 1) acknowledges up to its N(R) and every frame from N(R) on is sent again. After
//!   N2 polls without a response the link is **reset** (SABM, answered by UA): both ends
//!   flush their buffers and the datagrams in them are lost.
//! - **Receiver.** An I frame with N(S) = V(R) is released with any frames buffered after it,
//!   and an RR is due. An I frame past a gap is buffered and every frame of the gap not yet
//!   asked for is marked for an **SREJ**; each SREJ sent starts its own timer (T1), on
//!   whose expiry that frame is asked for again. A poll is answered at once with F = 1 and
//!   N(R) = V(R). Frames already received are discarded (counted as duplicates).
//! - **Turn-taking.** One frame at a time goes to the MAC; at each turn: UA/SABM, a poll
//!   response, a poll, an SREJ (carrying an I frame if one is ready), an I frame (carrying
//!   RR), a lone RR.
//!
//! Defaults are TS 24.022's for the 12 kbit/s full-rate channel [design notes §11a, from
//! Qualcomm's RLP header and gnokii]: window 61, T1 480 ms, N2 6.
//!
//! Deliberate simplifications: sequence numbers are kept whole inside the simulation (the
//! window of 61 enforces what modulus 62 allows, and no stale frame is mistaken for a new
//! one); the receiver keeps its out-of-sequence frames across a poll; REJ, RNR (flow
//! control), XID negotiation, T2's reply delay, DISC/DM and version 2's T4 are left out; a
//! link that cannot be reset is retried every T1 rather than disconnected.

pub mod spec;
pub use spec::RlpSpec;

use std::collections::{BTreeMap, VecDeque};

use crate::engine::{SimDuration, SimTime};
use crate::packet::Packet;
use crate::wireless::signals::MacSignal;

use super::stream::{Chunk, SegmentWatch, Segmenter};

/// RLP's parameters; `Default` is GSM TCH/F9.6's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RlpConfig {
    /// User bytes per frame: 24 on TCH/F9.6 (25 bytes of information less L2R's status
    /// octet), so that 12 kbit/s of frames carries the survey's 9.6 kbit/s.
    pub info_bytes: u32,
    /// The rest of a frame: header 2 + L2R status 1 + FCS 3 = 6 bytes (GSM 04.22 v0/1).
    pub header_bytes: u32,
    /// k: frames sent and not yet acknowledged, at most. 61 (modulus 62).
    pub window: u32,
    /// T1, the acknowledgement timer (and the SREJ timer): 480 ms on the full-rate 12 kbit/s
    /// channel.
    pub t1: SimDuration,
    /// N2: polls without an answer before the link is reset. 6.
    pub n2: u32,
}

impl Default for RlpConfig {
    fn default() -> Self {
        RlpConfig {
            info_bytes: 24,
            header_bytes: 6,
            window: 61,
            t1: SimDuration::from_millis(480),
            n2: 6,
        }
    }
}

impl RlpConfig {
    /// Every RLP frame's length in bytes.
    pub fn frame_bytes(&self) -> u32 {
        self.header_bytes + self.info_bytes
    }
}

/// The supervisory function of an S or I+S frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SupKind {
    /// Receive Ready: every frame before N(R) arrived.
    Rr,
    /// Selective Reject: frame N(R) is missing, send it again.
    Srej,
}

/// The supervisory part: function, N(R), and the poll/final bit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sup {
    pub kind: SupKind,
    pub nr: u64,
    /// P = 1 on a command: answer at once.
    pub poll: bool,
    /// F = 1 on the response to a poll.
    pub fin: bool,
}

/// An RLP frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RlpFrame {
    /// I+S: information frame N(S), with a supervisory part.
    Info { ns: u64, chunk: Chunk, sup: Sup },
    /// S: the supervisory part alone.
    Super(Sup),
    /// U: SABM, the reset request.
    Sabm,
    /// U: UA, the reset's acknowledgement.
    Ua,
}

impl RlpFrame {
    /// The first datagram whose last byte this frame carries.
    pub fn completes(&self) -> Option<&Packet> {
        match self {
            RlpFrame::Info { chunk, .. } => chunk.ends.first(),
            _ => None,
        }
    }

    /// A line for captures and the bytes standing for the frame's RLP fields ("RLP", the
    /// kind, N(S) and N(R) as 32-bit numbers).
    pub fn describe(&self) -> (String, Vec<u8>) {
        let sup_text = |s: &Sup| {
            let bits = match (s.poll, s.fin) {
                (true, _) => " P",
                (_, true) => " F",
                _ => "",
            };
            format!("{:?} N(R) {}{bits}", s.kind, s.nr).to_uppercase()
        };
        let (kind, ns, nr, text) = match self {
            RlpFrame::Info { ns, chunk, sup } => (
                b'I',
                *ns,
                sup.nr,
                format!(
                    "RLP I+S: N(S) {ns}, {} bytes, {}",
                    chunk.bytes,
                    sup_text(sup)
                ),
            ),
            RlpFrame::Super(sup) => (b'S', 0, sup.nr, format!("RLP S: {}", sup_text(sup))),
            RlpFrame::Sabm => (b'U', 0, 0, "RLP U: SABM (link reset)".into()),
            RlpFrame::Ua => (b'U', 1, 0, "RLP U: UA".into()),
        };
        let mut fields = vec![b'R', b'L', b'P', kind];
        fields.extend_from_slice(&(ns as u32).to_be_bytes());
        fields.extend_from_slice(&(nr as u32).to_be_bytes());
        (text, fields)
    }
}

/// RLP's counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RlpMetrics {
    pub i_frames_sent: u64,
    /// I frames sent again (on SREJ or after a poll).
    pub retransmissions: u64,
    /// S frames sent (RR, SREJ, poll and its response without data).
    pub s_frames_sent: u64,
    /// S and I+S frames received (their supervisory part).
    pub s_frames_received: u64,
    pub srej_sent: u64,
    pub polls_sent: u64,
    pub resets: u64,
    /// I frames received that were already received: redundant link retransmissions.
    pub duplicates_received: u64,
    /// I frames released in order.
    pub frames_released: u64,
    /// Datagrams lost to link resets.
    pub datagrams_dropped: u64,
    /// TCP data segments handed down again (`SegmentWatch`).
    pub tcp_duplicates: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SlotState {
    /// To be sent (again) at the next turn.
    Send,
    /// Sent, not yet acknowledged.
    Sent,
}

#[derive(Clone, Debug)]
struct SendSlot {
    chunk: Chunk,
    state: SlotState,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Poll {
    Idle,
    /// T1 expired: a poll is due.
    Due,
    /// Sent; waiting for F = 1.
    Waiting,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Reset {
    None,
    /// A SABM is due.
    Due,
    /// SABM sent; waiting for UA until the deadline.
    Waiting(SimTime),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Missing {
    /// An SREJ is due.
    Ask,
    /// SREJ sent; asked again at the deadline.
    Asked(SimTime),
}

/// One RLP entity towards one peer: its sender and its receiver.
#[derive(Clone, Debug)]
pub struct Rlp {
    cfg: RlpConfig,
    stream: Segmenter,
    /// V(A): the oldest unacknowledged frame; `slots[i]` is frame V(A) + i, up to V(S).
    va: u64,
    slots: VecDeque<SendSlot>,
    t1: Option<SimTime>,
    poll: Poll,
    polls_unanswered: u32,
    reset: Reset,
    /// V(R): the next frame expected in sequence.
    vr: u64,
    buffered: BTreeMap<u64, Chunk>,
    missing: BTreeMap<u64, Missing>,
    rr_due: bool,
    final_due: bool,
    ua_due: bool,
    at_mac: bool,
    watch: SegmentWatch,
    metrics: RlpMetrics,
}

impl Rlp {
    pub fn new(cfg: RlpConfig) -> Self {
        Rlp {
            stream: Segmenter::new(cfg.info_bytes),
            cfg,
            va: 0,
            slots: VecDeque::new(),
            t1: None,
            poll: Poll::Idle,
            polls_unanswered: 0,
            reset: Reset::None,
            vr: 0,
            buffered: BTreeMap::new(),
            missing: BTreeMap::new(),
            rr_due: false,
            final_due: false,
            ua_due: false,
            at_mac: false,
            watch: SegmentWatch::default(),
            metrics: RlpMetrics::default(),
        }
    }

    pub fn config(&self) -> &RlpConfig {
        &self.cfg
    }

    pub fn metrics(&self) -> RlpMetrics {
        RlpMetrics {
            tcp_duplicates: self.watch.duplicates(),
            ..self.metrics
        }
    }

    /// V(S): the next new frame's number.
    fn vs(&self) -> u64 {
        self.va + self.slots.len() as u64
    }

    /// Frames sent and not yet acknowledged (V(S) − V(A)).
    pub fn outstanding(&self) -> u64 {
        self.slots.len() as u64
    }

    /// The frames the receiver still has to ask for or is waiting for, in order.
    pub fn missing(&self) -> Vec<u64> {
        self.missing.keys().copied().collect()
    }

    /// True while less than one frame's worth of the stream waits to be cut.
    pub fn can_accept(&self) -> bool {
        self.stream.queued_bytes() < u64::from(self.cfg.info_bytes)
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        let reset = match self.reset {
            Reset::Waiting(t) => Some(t),
            _ => None,
        };
        let srej = self.missing.values().filter_map(|m| match m {
            Missing::Asked(t) => Some(*t),
            Missing::Ask => None,
        });
        self.t1.into_iter().chain(reset).chain(srej).min()
    }

    /// Feeds one input; frames for the MAC and datagrams for the network go to `out`.
    pub fn handle(&mut self, now: SimTime, input: RlpInput, out: &mut Vec<RlpOutput>) {
        match input {
            RlpInput::FromNetwork(p) => {
                self.watch.observe(&p);
                self.stream.push(p);
            }
            RlpInput::FrameReceived(f) => self.on_frame(f, out),
            RlpInput::MacSignal(MacSignal::TxSuccess | MacSignal::TxFailure) => self.at_mac = false,
            RlpInput::MacSignal(_) => {}
            RlpInput::Timeout => self.on_timers(now),
        }
        self.try_send(now, out);
    }

    fn on_timers(&mut self, now: SimTime) {
        if self.t1.is_some_and(|t| t <= now) {
            self.t1 = None;
            if self.polls_unanswered >= self.cfg.n2 {
                self.start_reset();
            } else if self.poll != Poll::Due {
                self.poll = Poll::Due;
            }
        }
        if matches!(self.reset, Reset::Waiting(t) if t <= now) {
            self.reset = Reset::Due;
        }
        for m in self.missing.values_mut() {
            if matches!(m, Missing::Asked(t) if *t <= now) {
                *m = Missing::Ask;
            }
        }
    }

    /// N2 polls went unanswered: flush, and ask the peer to reset too (GSM 04.22's SABM).
    fn start_reset(&mut self) {
        let in_slots: usize = self.slots.iter().map(|s| s.chunk.ends.len()).sum();
        let partial = self.stream.drop_partial();
        self.metrics.datagrams_dropped += (in_slots + partial) as u64;
        self.metrics.resets += 1;
        self.slots.clear();
        self.va = 0;
        self.t1 = None;
        self.poll = Poll::Idle;
        self.polls_unanswered = 0;
        self.reset = Reset::Due;
    }

    fn on_frame(&mut self, frame: RlpFrame, out: &mut Vec<RlpOutput>) {
        match frame {
            RlpFrame::Sabm => {
                // The peer reset: start afresh at 0, and say so.
                self.vr = 0;
                self.buffered.clear();
                self.missing.clear();
                self.rr_due = false;
                self.ua_due = true;
            }
            RlpFrame::Ua => {
                if matches!(self.reset, Reset::Waiting(_)) {
                    self.reset = Reset::None;
                }
            }
            _ if self.reset != Reset::None => {} // Until UA, nothing else counts.
            RlpFrame::Super(sup) => self.on_sup(sup),
            RlpFrame::Info { ns, chunk, sup } => {
                self.on_info(ns, chunk, sup.poll, out);
                self.on_sup(Sup { poll: false, ..sup });
            }
        }
    }

    /// The sender's side of a supervisory part (and the receiver's of a poll).
    fn on_sup(&mut self, sup: Sup) {
        self.metrics.s_frames_received += 1;
        if sup.poll {
            self.final_due = true;
        }
        let (va, vs) = (self.va, self.vs());
        if sup.fin && self.poll == Poll::Waiting && (va..=vs).contains(&sup.nr) {
            // The poll's answer: acknowledged up to N(R); everything after goes again.
            self.acknowledge(sup.nr);
            for slot in &mut self.slots {
                slot.state = SlotState::Send;
            }
            self.poll = Poll::Idle;
            self.polls_unanswered = 0;
            self.t1 = None;
            return;
        }
        match sup.kind {
            SupKind::Rr if (va..=vs).contains(&sup.nr) => {
                self.acknowledge(sup.nr);
                if self.slots.is_empty() {
                    self.t1 = None;
                }
            }
            SupKind::Srej if (va..vs).contains(&sup.nr) => {
                self.slots[(sup.nr - va) as usize].state = SlotState::Send;
                self.t1 = None;
            }
            _ => {}
        }
    }

    fn acknowledge(&mut self, nr: u64) {
        while self.va < nr {
            self.slots.pop_front();
            self.va += 1;
        }
    }

    /// The receiver's side of an I frame.
    fn on_info(&mut self, ns: u64, chunk: Chunk, poll: bool, out: &mut Vec<RlpOutput>) {
        if poll {
            self.final_due = true;
        }
        let window_end = self.vr + u64::from(self.cfg.window);
        if ns < self.vr || self.buffered.contains_key(&ns) {
            self.metrics.duplicates_received += 1;
            return;
        }
        if ns >= window_end {
            return;
        }
        self.missing.remove(&ns);
        if ns != self.vr {
            for gap in self.vr..ns {
                if !self.buffered.contains_key(&gap) {
                    self.missing.entry(gap).or_insert(Missing::Ask);
                }
            }
            self.buffered.insert(ns, chunk);
            return;
        }
        self.release(chunk, out);
        while let Some(next) = self.buffered.remove(&self.vr) {
            self.release(next, out);
        }
        self.rr_due = true;
    }

    fn release(&mut self, chunk: Chunk, out: &mut Vec<RlpOutput>) {
        self.vr += 1;
        self.metrics.frames_released += 1;
        out.extend(chunk.ends.into_iter().map(RlpOutput::ToNetwork));
    }

    /// One frame to the MAC if it is free, by the turn order of the module notes.
    fn try_send(&mut self, now: SimTime, out: &mut Vec<RlpOutput>) {
        if self.at_mac {
            return;
        }
        let frame = if self.ua_due {
            self.ua_due = false;
            Some(RlpFrame::Ua)
        } else if self.reset == Reset::Due {
            self.reset = Reset::Waiting(now + self.cfg.t1);
            Some(RlpFrame::Sabm)
        } else if matches!(self.reset, Reset::Waiting(_)) {
            None
        } else {
            self.next_frame(now)
        };
        if let Some(frame) = frame {
            match &frame {
                RlpFrame::Info { .. } => self.metrics.i_frames_sent += 1,
                _ => self.metrics.s_frames_sent += 1,
            }
            self.at_mac = true;
            out.push(RlpOutput::ToMac(frame));
        }
    }

    fn next_frame(&mut self, now: SimTime) -> Option<RlpFrame> {
        let rr = Sup {
            kind: SupKind::Rr,
            nr: self.vr,
            poll: false,
            fin: false,
        };
        // (supervisory part, whether an I frame may ride with it, whether it goes alone)
        let (sup, with_data, alone) = if self.final_due {
            self.final_due = false;
            (Sup { fin: true, ..rr }, true, true)
        } else if let Some((&x, m)) = self.missing.iter_mut().find(|(_, m)| **m == Missing::Ask) {
            *m = Missing::Asked(now + self.cfg.t1);
            self.metrics.srej_sent += 1;
            let srej = Sup {
                kind: SupKind::Srej,
                nr: x,
                ..rr
            };
            (srej, true, true)
        } else if self.poll == Poll::Due {
            // An RR command with P = 1, alone; T1 runs for its answer.
            self.poll = Poll::Waiting;
            self.polls_unanswered += 1;
            self.metrics.polls_sent += 1;
            self.t1 = Some(now + self.cfg.t1);
            (Sup { poll: true, ..rr }, false, true)
        } else {
            (rr, true, self.rr_due)
        };
        let info = if with_data { self.next_info(now) } else { None };
        if info.is_none() && !alone {
            return None;
        }
        if sup.kind == SupKind::Rr {
            self.rr_due = false;
        }
        Some(match info {
            Some((ns, chunk)) => RlpFrame::Info { ns, chunk, sup },
            None => RlpFrame::Super(sup),
        })
    }

    /// The next I frame: the first marked for retransmission, else a new one if the window
    /// and the stream allow.
    fn next_info(&mut self, now: SimTime) -> Option<(u64, Chunk)> {
        let va = self.va;
        let retx = self
            .slots
            .iter_mut()
            .enumerate()
            .find(|(_, s)| s.state == SlotState::Send);
        let (ns, chunk) = if let Some((i, slot)) = retx {
            slot.state = SlotState::Sent;
            self.metrics.retransmissions += 1;
            (va + i as u64, slot.chunk.clone())
        } else if self.outstanding() < u64::from(self.cfg.window) {
            let chunk = self.stream.next_chunk()?;
            let ns = self.vs();
            self.slots.push_back(SendSlot {
                chunk: chunk.clone(),
                state: SlotState::Sent,
            });
            (ns, chunk)
        } else {
            return None;
        };
        self.t1 = Some(now + self.cfg.t1);
        Some((ns, chunk))
    }
}

/// What drives an RLP entity.
#[derive(Clone, Debug)]
pub enum RlpInput {
    FromNetwork(Packet),
    FrameReceived(RlpFrame),
    MacSignal(MacSignal),
    Timeout,
}

/// Its effects, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RlpOutput {
    ToMac(RlpFrame),
    ToNetwork(Packet),
}

#[cfg(test)]
mod tests;
