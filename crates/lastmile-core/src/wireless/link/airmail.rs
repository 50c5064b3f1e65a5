//! AIRMAIL, the AsymmetrIc Reliable Mobile Access In Link-layer (Ayanoglu, Paul, LaPorta,
//! Sabnani, Gitlin, ACM/Baltzer Wireless Networks 1:47–60, 1995), over link FEC.
//!
//! From the paper's abstract: the protocol "is asymmetric to reduce the processing load at
//! the mobile", "reliability is established by a combination of automatic repeat request and
//! forward error correction"; the key ideas are "placing bulk of the intelligence in the base
//! station", "requiring the mobile terminal to combine several acknowledgments into a single
//! acknowledgment to conserve power", and "designing the base stations to send periodic
//! status messages, while making the acknowledgment from the mobile terminal event-driven".
//! From TULIP §2: "the base station sends an entire window of data before an acknowledgment
//! is returned by the mobile receiver ... there is no opportunity to correct errors until the
//! end of an entire window". The rules (design notes §10, AIR-R1..R3):
//! - **AIR-R1, base station sending.** Blocks go within a window of W; the block that fills
//!   the window asks for the mobile's status (a poll, carrying how far the base has sent),
//!   and so does the base when it has nothing more to send and blocks out that no poll has
//!   covered. If no status answers a poll within the ack timeout, it polls again.
//! - **AIR-R2, mobile acknowledging.** The mobile answers on events only: a poll, a window of
//!   blocks received since its last status, or data of its own to send (the status rides on
//!   its block) — one status for many blocks.
//! - **AIR-R3, retransmission.** A status is a cumulative number and a bit-map of the blocks
//!   after it, up to how far the receiver knows the sender went; exactly the blocks it marks
//!   missing are sent again (the last of them polling).
//! - **Uplink.** The base station, as receiver, sends its status every `status_period` while
//!   mobile data is arriving or missing; the mobile sends blocks again that a status marks
//!   missing, and those no status has covered after `block_timeout`.
//!
//! The datagram stream is cut into blocks of `info_bytes` (`stream.rs`), released in order.
//! FEC is the hop's (`fec` on the link): AIRMAIL runs over it.
//!
//! Not in the sources we could read (NF in the design notes, so our documented defaults):
//! the block and header sizes, W = 32, the status period (the time to send one window), the
//! ack timeout (two status periods and a round trip), the mobile's block timeout (the same).
//! Left out: the three adaptive FEC levels (AIR-R4: the code here is the hop's, fixed) and
//! the handoff state transfer (AIR-R5).

pub mod spec;
pub use spec::AirmailSpec;

use std::collections::{BTreeMap, VecDeque};

use crate::engine::{SimDuration, SimTime};
use crate::packet::Packet;
use crate::wireless::signals::MacSignal;

use super::stream::{Chunk, SegmentWatch, Segmenter};

/// The largest window: the bit-map is a `u128`.
pub const AIRMAIL_WINDOW_MAX: u32 = 128;

/// Which end of the asymmetric link this is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// The base station: polls its downlink, sends periodic status for the uplink.
    Base,
    /// The mobile: acknowledges on events, retransmits what statuses and its timer say.
    Mobile,
}

/// AIRMAIL's parameters (our defaults, see the module notes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AirmailConfig {
    /// User bytes per block. Default 64.
    pub info_bytes: u32,
    /// Block header (sequence number, flags). Default 4.
    pub header_bytes: u32,
    /// W: blocks outstanding at most. Default 32.
    pub window: u32,
    /// The base station's status period for the uplink. Default: one window's airtime.
    pub status_period: SimDuration,
    /// How long the base waits for the mobile's status after a poll before polling again.
    pub ack_timeout: SimDuration,
    /// How long a mobile's block may go uncovered by any status before it is sent again.
    pub block_timeout: SimDuration,
}

impl AirmailConfig {
    /// Bytes of a status: cumulative number 2, extent 2, and the bit-map.
    pub fn status_bytes(&self) -> u32 {
        4 + self.window.div_ceil(8)
    }
    /// Bytes of a frame with or without a block, status and poll.
    pub fn frame_bytes(&self, frame: &AirFrame) -> u32 {
        self.header_bytes
            + if frame.block.is_some() {
                self.info_bytes
            } else {
                0
            }
            + if frame.status.is_some() {
                self.status_bytes()
            } else {
                0
            }
            + if frame.poll.is_some() { 2 } else { 0 }
    }
}

/// A block: its number and its share of the datagram stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub seq: u64,
    pub chunk: Chunk,
}

/// A receiver's status: every block before `cum` arrived; bit i of `bits` says whether block
/// `cum + i` did, for the blocks before `upto` (how far the receiver knows the sender went).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub cum: u64,
    pub upto: u64,
    pub bits: u128,
}

impl Status {
    /// The blocks this status marks missing.
    pub fn missing(&self) -> Vec<u64> {
        (self.cum..self.upto)
            .filter(|&s| self.bits & (1u128 << (s - self.cum)) == 0)
            .collect()
    }
}

/// An AIRMAIL frame: a block, a status, a poll, or several of them together.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AirFrame {
    pub block: Option<Block>,
    pub status: Option<Status>,
    /// A poll (base to mobile): report on every block before this number.
    pub poll: Option<u64>,
}

impl AirFrame {
    /// The first datagram whose last byte this frame's block carries.
    pub fn completes(&self) -> Option<&Packet> {
        self.block.as_ref().and_then(|b| b.chunk.ends.first())
    }

    /// A line for captures and the bytes standing for the frame's AIRMAIL fields ("AIRM",
    /// then the block number, the status's cumulative number and bit-map, as 32-bit words).
    pub fn describe(&self) -> (String, Vec<u8>) {
        let mut parts = Vec::new();
        if let Some(b) = &self.block {
            parts.push(format!("block {} ({} bytes)", b.seq, b.chunk.bytes));
        }
        if let Some(s) = &self.status {
            parts.push(format!(
                "status cum {} upto {} missing {:?}",
                s.cum,
                s.upto,
                s.missing()
            ));
        }
        if let Some(p) = self.poll {
            parts.push(format!("poll upto {p}"));
        }
        let mut fields = b"AIRM".to_vec();
        let word = |v: u64| (v as u32).to_be_bytes();
        fields.extend_from_slice(&word(self.block.as_ref().map_or(0, |b| b.seq)));
        fields.extend_from_slice(&word(self.status.map_or(0, |s| s.cum)));
        fields.extend_from_slice(&word(self.status.map_or(0, |s| s.bits as u64)));
        (format!("AIRMAIL: {}", parts.join(", ")), fields)
    }
}

/// AIRMAIL's counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AirmailMetrics {
    pub blocks_sent: u64,
    pub retransmissions: u64,
    /// Statuses sent (the base's periodic ones, the mobile's event-driven ones).
    pub statuses_sent: u64,
    pub statuses_received: u64,
    /// Polls sent by the base (with a block or alone).
    pub polls_sent: u64,
    pub duplicates_received: u64,
    pub blocks_released: u64,
    pub tcp_duplicates: u64,
}

#[derive(Clone, Debug)]
struct Outstanding {
    chunk: Chunk,
    /// Marked missing by a status (or its timer): goes at the next turn.
    resend: bool,
    sent_at: SimTime,
}

/// One AIRMAIL end towards one peer: sender and receiver, by its role.
#[derive(Clone, Debug)]
pub struct Airmail {
    cfg: AirmailConfig,
    role: Role,
    stream: Segmenter,
    // Sender.
    base: u64,
    out: VecDeque<Outstanding>,
    /// Base: the deadline for the status a poll asked for; a poll is due when `poll_due`.
    ack_deadline: Option<SimTime>,
    poll_due: bool,
    /// Base: blocks sent since the last poll.
    unpolled: bool,
    // Receiver.
    next: u64,
    buffered: BTreeMap<u64, Chunk>,
    /// How far the peer is known to have sent.
    known_upto: u64,
    /// Blocks received since the last status sent.
    since_status: u32,
    status_due: bool,
    /// Base: the next periodic status.
    status_at: Option<SimTime>,
    at_mac: bool,
    watch: SegmentWatch,
    metrics: AirmailMetrics,
}

impl Airmail {
    pub fn new(cfg: AirmailConfig, role: Role) -> Self {
        Airmail {
            stream: Segmenter::new(cfg.info_bytes),
            cfg,
            role,
            base: 0,
            out: VecDeque::new(),
            ack_deadline: None,
            poll_due: false,
            unpolled: false,
            next: 0,
            buffered: BTreeMap::new(),
            known_upto: 0,
            since_status: 0,
            status_due: false,
            status_at: None,
            at_mac: false,
            watch: SegmentWatch::default(),
            metrics: AirmailMetrics::default(),
        }
    }

    pub fn config(&self) -> &AirmailConfig {
        &self.cfg
    }
    pub fn role(&self) -> Role {
        self.role
    }
    pub fn metrics(&self) -> AirmailMetrics {
        AirmailMetrics {
            tcp_duplicates: self.watch.duplicates(),
            ..self.metrics
        }
    }
    /// Blocks sent and not yet acknowledged.
    pub fn outstanding(&self) -> u64 {
        self.out.len() as u64
    }
    pub fn can_accept(&self) -> bool {
        self.stream.queued_bytes() < u64::from(self.cfg.info_bytes)
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        let block_timer = match self.role {
            Role::Mobile => self
                .out
                .iter()
                .filter(|o| !o.resend)
                .map(|o| o.sent_at + self.cfg.block_timeout)
                .min(),
            Role::Base => None,
        };
        [self.ack_deadline, self.status_at, block_timer]
            .into_iter()
            .flatten()
            .min()
    }

    pub fn handle(&mut self, now: SimTime, input: AirmailInput, out: &mut Vec<AirmailOutput>) {
        match input {
            AirmailInput::FromNetwork(p) => {
                self.watch.observe(&p);
                self.stream.push(p);
            }
            AirmailInput::FrameReceived(f) => self.on_frame(now, f, out),
            AirmailInput::MacSignal(MacSignal::TxSuccess | MacSignal::TxFailure) => {
                self.at_mac = false
            }
            AirmailInput::MacSignal(_) => {}
            AirmailInput::Timeout => self.on_timers(now),
        }
        self.try_send(now, out);
    }

    fn on_timers(&mut self, now: SimTime) {
        if self.ack_deadline.is_some_and(|t| t <= now) {
            self.ack_deadline = None;
            self.poll_due = true;
        }
        if self.status_at.is_some_and(|t| t <= now) {
            self.status_at = None;
            if self.since_status > 0 || self.next < self.known_upto {
                self.status_due = true;
            }
        }
        if self.role == Role::Mobile {
            let timeout = self.cfg.block_timeout;
            for o in self.out.iter_mut().filter(|o| o.sent_at + timeout <= now) {
                o.resend = true;
            }
        }
    }

    fn on_frame(&mut self, now: SimTime, frame: AirFrame, out: &mut Vec<AirmailOutput>) {
        if let Some(status) = frame.status {
            self.on_status(status);
        }
        if let Some(block) = frame.block {
            self.on_block(now, block, out);
        }
        if let Some(upto) = frame.poll {
            // AIR-R2: a poll is an event the mobile answers.
            self.known_upto = self.known_upto.max(upto);
            self.status_due = true;
        }
    }

    /// AIR-R3: a status acknowledges up to `cum` and marks exactly its missing blocks.
    fn on_status(&mut self, s: Status) {
        self.metrics.statuses_received += 1;
        if self.role == Role::Base {
            self.ack_deadline = None;
        }
        let end = self.base + self.out.len() as u64;
        while self.base < s.cum.min(end) {
            self.out.pop_front();
            self.base += 1;
        }
        for seq in s.missing() {
            if (self.base..end).contains(&seq) {
                self.out[(seq - self.base) as usize].resend = true;
            }
        }
        // Blocks the status says arrived are done with even if not yet cumulative: keep them
        // (the window slides on `cum`) but never send them again.
        for seq in s.cum.max(self.base)..s.upto.min(end) {
            if s.bits & (1u128 << (seq - s.cum)) != 0 {
                self.out[(seq - self.base) as usize].resend = false;
            }
        }
    }

    fn on_block(&mut self, now: SimTime, block: Block, out: &mut Vec<AirmailOutput>) {
        let seq = block.seq;
        self.known_upto = self.known_upto.max(seq + 1);
        if seq < self.next || self.buffered.contains_key(&seq) {
            self.metrics.duplicates_received += 1;
            return;
        }
        if seq >= self.next + u64::from(self.cfg.window) {
            return;
        }
        self.since_status += 1;
        self.buffered.insert(seq, block.chunk);
        while let Some(chunk) = self.buffered.remove(&self.next) {
            self.next += 1;
            self.metrics.blocks_released += 1;
            out.extend(chunk.ends.into_iter().map(AirmailOutput::ToNetwork));
        }
        match self.role {
            // AIR-R2: a whole window received since the last status is an event.
            Role::Mobile if self.since_status >= self.cfg.window => self.status_due = true,
            Role::Mobile => {}
            // The uplink's periodic status runs while blocks arrive.
            Role::Base => {
                if self.status_at.is_none() {
                    self.status_at = Some(now + self.cfg.status_period);
                }
            }
        }
    }

    fn status(&self) -> Status {
        let upto = self
            .known_upto
            .min(self.next + u64::from(self.cfg.window.min(AIRMAIL_WINDOW_MAX)));
        let bits = self
            .buffered
            .keys()
            .filter(|&&s| s < upto)
            .fold(0u128, |b, &s| b | 1u128 << (s - self.next));
        Status {
            cum: self.next,
            upto: upto.max(self.next),
            bits,
        }
    }

    fn try_send(&mut self, now: SimTime, out: &mut Vec<AirmailOutput>) {
        if self.at_mac {
            return;
        }
        let mut frame = AirFrame::default();
        if let Some((block, polls)) = self.next_block(now) {
            frame.block = Some(block);
            self.unpolled = true;
            if polls {
                frame.poll = Some(self.sent_upto());
            }
        }
        // AIR-R1: a base with blocks out that nothing has polled for, and nothing more to
        // send, asks for the mobile's status; so does one whose poll went unanswered.
        let idle_with_unpolled = frame.block.is_none() && self.unpolled && !self.out.is_empty();
        if self.role == Role::Base && (self.poll_due || idle_with_unpolled) {
            frame.poll = Some(self.sent_upto());
        }
        // AIR-R2: the mobile's status goes on an event, and rides on any block it sends.
        let send_status = match self.role {
            Role::Mobile => self.status_due || (frame.block.is_some() && self.since_status > 0),
            Role::Base => self.status_due,
        };
        if send_status {
            frame.status = Some(self.status());
            self.status_due = false;
            self.since_status = 0;
            self.metrics.statuses_sent += 1;
            if self.role == Role::Base && self.next < self.known_upto {
                self.status_at = Some(now + self.cfg.status_period);
            }
        }
        if frame == AirFrame::default() {
            return;
        }
        if frame.poll.is_some() {
            self.poll_due = false;
            self.unpolled = false;
            self.metrics.polls_sent += 1;
            self.ack_deadline = Some(now + self.cfg.ack_timeout);
        }
        self.at_mac = true;
        out.push(AirmailOutput::ToMac(frame));
    }

    /// The number after the last block sent.
    fn sent_upto(&self) -> u64 {
        self.base + self.out.len() as u64
    }

    /// The next block and whether it polls: a block marked missing first (the last of them
    /// polls, at the base), else a new one within the window (polling when it fills it).
    fn next_block(&mut self, now: SimTime) -> Option<(Block, bool)> {
        let base = self.base;
        let is_base = self.role == Role::Base;
        if let Some(i) = self.out.iter().position(|o| o.resend) {
            let o = &mut self.out[i];
            o.resend = false;
            o.sent_at = now;
            let chunk = o.chunk.clone();
            self.metrics.retransmissions += 1;
            self.metrics.blocks_sent += 1;
            let last = !self.out.iter().any(|o| o.resend);
            let seq = base + i as u64;
            return Some((Block { seq, chunk }, is_base && last));
        }
        if self.out.len() as u64 >= u64::from(self.cfg.window) {
            return None;
        }
        let chunk = self.stream.next_chunk()?;
        let seq = self.sent_upto();
        self.out.push_back(Outstanding {
            chunk: chunk.clone(),
            resend: false,
            sent_at: now,
        });
        self.metrics.blocks_sent += 1;
        let fills = self.out.len() as u64 >= u64::from(self.cfg.window);
        Some((Block { seq, chunk }, is_base && fills))
    }
}

/// What drives an AIRMAIL end.
#[derive(Clone, Debug)]
pub enum AirmailInput {
    FromNetwork(Packet),
    FrameReceived(AirFrame),
    MacSignal(MacSignal),
    Timeout,
}

/// Its effects, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AirmailOutput {
    ToMac(AirFrame),
    ToNetwork(Packet),
}

#[cfg(test)]
mod tests;
