//! TULIP's sender, Figure 2 ("Complete Sender Algorithm") and §3.2: a window of W frames
//! numbered modulo 2W, a retransmission list rebuilt from every LACK, transmissions paced by
//! timer T1 = Δt1 (equation (1)) from TRANS, and a hold-down T2 = Δt2 on WAIT.
//!
//! Unreliable packets (ULPs, §3.1) are never numbered nor buffered: each takes one sending
//! turn, after pending retransmissions and before new reliable frames (so a TCP ACK is not
//! stuck behind a full window), and is forgotten once handed to the MAC.
//!
//! Like the paper, the sender has no retry limit: with a peer gone it keeps forcing a LACK
//! every Δt1 (the liveness rule). Giving up is for a later link-failure signal.

use std::collections::VecDeque;
use std::fmt::Write as _;

use super::{
    is_reliable, Lack, LinkSeq, SeqSpace, TulipConfig, TulipConfigError, TulipEvent, TulipFrame,
    TulipInput, TulipOutbox, TulipOutput, MAC_ACCEL_PIGGYBACK_MAX_BYTES,
};
use crate::engine::{SimDuration, SimTime};
use crate::packet::Packet;
use crate::wireless::signals::MacSignal;

/// One entry of the retransmission list; `retransmitted` is the paper's star (§3.4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RetxEntry {
    pub seq: LinkSeq,
    pub retransmitted: bool,
}

/// Counters of a sender.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TulipSenderMetrics {
    /// Reliable frames sent for the first time.
    pub new_frames_sent: u64,
    /// Reliable frames sent again, by any rule.
    pub retransmissions: u64,
    /// Of those, by the liveness rule ("retransmit oldest unacknowledged packet", Figure 2).
    pub liveness_retransmissions: u64,
    /// Times a completed retransmission list was started over (Figure 2).
    pub list_restarts: u64,
    pub unreliable_sent: u64,
    pub lacks_received: u64,
    /// LACKs whose CumACK fit neither the window nor its left edge (ignored).
    pub stale_lacks: u64,
    /// Reliable frames acknowledged (cumulatively) and removed from the window.
    pub frames_acked: u64,
    /// Data frames that carried the receiver's LACK (Figure 3, bidirectional traffic).
    pub lacks_carried: u64,
}

#[derive(Clone, Debug)]
struct Outstanding {
    seq: LinkSeq,
    /// When this frame was last handed to the MAC, in the sender's count of reliable
    /// transmissions (see `process_received_ack`).
    last_tx: u64,
    /// Freed once the bit vector reports the frame received (`free_received_packets`).
    packet: Option<Packet>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FrameKind {
    Reliable(LinkSeq),
    Unreliable,
}

/// Our frames at the MAC, oldest first: at most one on the air (TRANS given, the MAC not yet
/// done with it) and at most one waiting for TRANS. Figure 2's `macState` is 1 exactly while
/// `awaiting` is set: TRANS clears it, so a T1 shorter than the frame on the air may hand the
/// MAC the next frame while the previous one is still being sent. A MAC's TxSuccess /
/// TxFailure concern its oldest frame of ours, the one on the air if there is one: taking them
/// for the frame waiting behind it would leave the MAC holding a frame the sender believes
/// gone (its TRANS then ignored, and every later T1 or LACK queueing yet another frame).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct MacState {
    on_air: Option<FrameKind>,
    awaiting: Option<(FrameKind, u32)>,
}

/// The sending half of a TULIP link.
#[derive(Clone, Debug)]
pub struct TulipSender {
    config: TulipConfig,
    space: SeqSpace,
    /// S = {SN_min, …}: the transmission buffer, oldest first; `|S| ≤ W`.
    window: VecDeque<Outstanding>,
    /// The sequence number the next new frame gets (SN_max + 1).
    next_seq: LinkSeq,
    reliable_queue: VecDeque<Packet>,
    unreliable_queue: VecDeque<Packet>,
    retx_list: Vec<RetxEntry>,
    /// The next entry of `retx_list` to send.
    retx_pos: usize,
    mac: MacState,
    t1: Option<SimTime>,
    t2: Option<SimTime>,
    /// MAC acceleration: the head ULP waits for a LACK to carry it until then.
    piggyback_hold: Option<SimTime>,
    /// Reliable transmissions handed to the MAC so far (the clock of `Outstanding::last_tx`).
    tx_count: u64,
    /// The receiver's LACK for the next data frame to carry (`send_with_lack`).
    attach: Option<Lack>,
    /// The latest `last_tx` of a frame some LACK reported received: the receiver had it after
    /// every frame sent before it was, so a zero bit for one of those is a loss. (A frame
    /// resent by the liveness rule may have arrived as its earlier copy: then this runs ahead
    /// and a frame still on its way can be resent; rare.)
    newest_received_tx: u64,
    metrics: TulipSenderMetrics,
}

impl TulipSender {
    pub fn new(config: TulipConfig) -> Result<Self, TulipConfigError> {
        config.validate()?;
        let space = SeqSpace::new(config.window);
        Ok(TulipSender {
            config,
            space,
            window: VecDeque::new(),
            next_seq: LinkSeq(0),
            reliable_queue: VecDeque::new(),
            unreliable_queue: VecDeque::new(),
            retx_list: Vec::new(),
            retx_pos: 0,
            mac: MacState::default(),
            t1: None,
            t2: None,
            piggyback_hold: None,
            tx_count: 0,
            attach: None,
            newest_received_tx: 0,
            metrics: TulipSenderMetrics::default(),
        })
    }

    pub fn config(&self) -> &TulipConfig {
        &self.config
    }
    pub fn metrics(&self) -> TulipSenderMetrics {
        self.metrics
    }
    /// The sequence numbers in the window S, oldest first.
    pub fn outstanding(&self) -> Vec<LinkSeq> {
        self.window.iter().map(|o| o.seq).collect()
    }
    /// The current retransmission list.
    pub fn retransmission_list(&self) -> &[RetxEntry] {
        &self.retx_list
    }
    /// The list in the paper's notation (§3.4): `R[9*, 11]`, or `R[]`.
    pub fn retransmission_list_notation(&self) -> String {
        let mut s = String::from("R[");
        for (i, e) in self.retx_list.iter().enumerate() {
            let sep = if i > 0 { ", " } else { "" };
            let star = if e.retransmitted { "*" } else { "" };
            let _ = write!(s, "{sep}{}{star}", e.seq);
        }
        s.push(']');
        s
    }
    /// Packets waiting for a sending turn (reliable and unreliable).
    pub fn queued_packets(&self) -> usize {
        self.reliable_queue.len() + self.unreliable_queue.len()
    }
    /// True when the sender takes `next` from the interface queue now: when nothing is
    /// queued, and also for a reliable packet when the only one queued is an unreliable
    /// packet waiting for a LACK to carry it (MAC acceleration). That one must not hold
    /// back the data behind it: with data both ways, the next data frame is what brings a
    /// LACK about.
    pub fn can_accept(&self, next: &Packet) -> bool {
        let held_alone = self.reliable_queue.is_empty()
            && self.unreliable_queue.len() == 1
            && self.piggyback_hold.is_some();
        self.queued_packets() == 0 || (held_alone && is_reliable(next))
    }
    /// True when nothing is queued or unacknowledged.
    pub fn is_idle(&self) -> bool {
        self.window.is_empty() && self.queued_packets() == 0
    }

    /// The earliest of T1 (Δt1 pacing), T2 (Δt2 hold-down) and the piggyback hold.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        [self.t1, self.t2, self.piggyback_hold]
            .into_iter()
            .flatten()
            .min()
    }

    pub fn handle(&mut self, now: SimTime, input: TulipInput, out: &mut TulipOutbox) {
        match input {
            TulipInput::FromNetwork(packet) => self.on_from_network(now, packet, out),
            TulipInput::FrameReceived(TulipFrame::Lack { lack, piggyback }) => {
                if let Some(p) = piggyback {
                    out.push(TulipOutput::ToNetwork(p));
                }
                self.on_lack(lack, out);
            }
            // Data frames belong to the receiver (see `TulipLink`).
            TulipInput::FrameReceived(_) => {}
            TulipInput::MacSignal(signal) => self.on_mac_signal(now, signal, out),
            TulipInput::Timeout => self.on_timeout(now, out),
        }
    }

    /// With MAC acceleration (§3.3): the queued packet a LACK can carry, if it is ≤ 40 bytes.
    pub fn take_piggyback(&mut self) -> Option<Packet> {
        let fits = self
            .unreliable_queue
            .front()
            .is_some_and(|p| p.size_bytes() <= MAC_ACCEL_PIGGYBACK_MAX_BYTES);
        if fits {
            self.piggyback_hold = None;
            self.unreliable_queue.pop_front()
        } else {
            None
        }
    }

    /// A LACK that came on the peer's data frame (Figure 3): Figure 2's LACK, but the
    /// sending turn it gives goes to the reply (`send_with_lack`, then `resume`).
    pub fn on_piggybacked_lack(&mut self, lack: Lack, out: &mut TulipOutbox) {
        self.metrics.lacks_received += 1;
        if self.process_received_ack(lack, out) {
            self.t1 = None;
        }
    }

    /// Figure 3's `send_PiggyBack_ACK_pkt`: the data frame waiting to go to the peer carries
    /// `lack`, in answer to the peer's data frame (§3.3: "if the packet is larger than 40
    /// bytes, FAMA is instructed to immediately send an RTS", Figure 4(b)). That is the
    /// reliable frame of ours already at the MAC and not yet on the air (handed again with
    /// the LACK: the MAC gives the first copy back, `AnyMac::withdraw`), else the one Figure
    /// 2's `send_packet` would send now (a WAIT hold, T2, for the peer's frame is over, as
    /// it has arrived). Returns `lack` when no frame takes it (T1 running, an unreliable
    /// frame next, or nothing to send).
    pub fn send_with_lack(&mut self, lack: Lack, out: &mut TulipOutbox) -> Option<Lack> {
        if let Some((kind, bytes)) = self.mac.awaiting {
            let FrameKind::Reliable(seq) = kind else {
                return Some(lack);
            };
            let packet = self
                .window
                .iter()
                .find(|o| o.seq == seq)
                .and_then(|o| o.packet);
            let Some(packet) = packet else {
                return Some(lack);
            };
            self.metrics.lacks_carried += 1;
            self.mac.awaiting = Some((kind, bytes + self.config.lack_bytes));
            let lack = Some(lack);
            out.push(TulipOutput::ToMac(TulipFrame::Data { seq, packet, lack }));
            return None;
        }
        if self.t1.is_some() || !self.next_is_reliable() {
            return Some(lack);
        }
        self.t2 = None;
        self.attach = Some(lack);
        self.send_packet(out);
        self.attach.take()
    }

    /// Takes the sending turn a LACK gave (Figure 2, LACK: "if (data to send)
    /// send_packet()"), if the pacing allows.
    pub fn resume(&mut self, out: &mut TulipOutbox) {
        self.try_send(out);
    }

    /// True when `send_packet` would now hand the MAC a reliable frame.
    fn next_is_reliable(&self) -> bool {
        let listed = self.retx_list[self.retx_pos.min(self.retx_list.len())..]
            .iter()
            .any(|e| self.is_missing(e.seq));
        if listed {
            return true;
        }
        if self.piggyback_hold.is_none() && !self.unreliable_queue.is_empty() {
            return false;
        }
        let room = self.window.len() < usize::from(self.space.window());
        (room && !self.reliable_queue.is_empty()) || self.window.iter().any(|o| o.packet.is_some())
    }

    fn fits_piggyback(&self, packet: &Packet) -> bool {
        self.config.mac_acceleration && packet.size_bytes() <= MAC_ACCEL_PIGGYBACK_MAX_BYTES
    }

    fn on_from_network(&mut self, now: SimTime, packet: Packet, out: &mut TulipOutbox) {
        if is_reliable(&packet) {
            self.reliable_queue.push_back(packet);
        } else {
            let hold = self.config.piggyback_hold;
            if self.unreliable_queue.is_empty() && !hold.is_zero() && self.fits_piggyback(&packet) {
                self.piggyback_hold = Some(now + hold);
            }
            self.unreliable_queue.push_back(packet);
        }
        self.try_send(out);
    }

    /// Figure 2, LACK: "cancel Timer T1; process_received_ack(); if (data to send)
    /// send_packet()". A stale LACK (see `process_received_ack`) changes nothing, T1 included.
    fn on_lack(&mut self, lack: Lack, out: &mut TulipOutbox) {
        self.metrics.lacks_received += 1;
        if self.process_received_ack(lack, out) {
            self.t1 = None;
            self.try_send(out);
        }
    }

    fn on_mac_signal(&mut self, now: SimTime, signal: MacSignal, out: &mut TulipOutbox) {
        match signal {
            MacSignal::Trans => self.on_trans(now),
            MacSignal::Wait { duration, .. } => self.on_wait(now, duration),
            MacSignal::TxSuccess => self.on_tx_success(now, out),
            MacSignal::TxFailure => self.on_tx_failure(out),
        }
    }

    /// Figure 2, TRANS: "set timer T1 = Δt1(my packet.length); macState = 0". TRANS concerns
    /// the frame waiting for it; a frame still on the air then is one the MAC never reported
    /// done (a MAC without TxSuccess): it is over.
    fn on_trans(&mut self, now: SimTime) {
        if let Some((kind, bytes)) = self.mac.awaiting.take() {
            self.mac.on_air = Some(kind);
            self.t1 = Some(now + self.config.delta_t1(bytes));
        }
    }

    /// Figure 2, WAIT: "cancel Timer T1; set timer T2 = Δt2(RTS.data.length)".
    fn on_wait(&mut self, now: SimTime, duration: SimDuration) {
        self.t1 = None;
        let until = now + duration.max(self.config.delta_t2_min);
        self.t2 = Some(self.t2.map_or(until, |t| t.max(until)));
    }

    /// The MAC is done with our oldest frame at it: the one on the air, else the one that
    /// never got TRANS. A ULP expects no LACK: its turn ends here. A reliable frame keeps T1
    /// running for its LACK.
    fn on_tx_success(&mut self, now: SimTime, out: &mut TulipOutbox) {
        let kind = match (self.mac.on_air.take(), self.mac.awaiting) {
            (Some(kind), _) => kind,
            (None, Some((FrameKind::Reliable(_), _))) => {
                // A MAC that never sent TRANS: start T1 now.
                self.on_trans(now);
                self.mac.on_air = None;
                return;
            }
            (None, Some((FrameKind::Unreliable, _))) => {
                self.mac.awaiting = None;
                FrameKind::Unreliable
            }
            (None, None) => return,
        };
        // T1 still belongs to this ULP unless a later frame is already at the MAC.
        if kind == FrameKind::Unreliable && self.mac.awaiting.is_none() {
            self.t1 = None;
            self.try_send(out);
        }
    }

    /// The MAC gave up on our oldest frame at it: its turn is over. A reliable frame stays in
    /// the window and is recovered through the LACK bit vector or the liveness rule.
    fn on_tx_failure(&mut self, out: &mut TulipOutbox) {
        if self.mac.on_air.take().is_none() && self.mac.awaiting.take().is_none() {
            return;
        }
        if self.mac.awaiting.is_none() {
            self.t1 = None;
            self.try_send(out);
        }
    }

    /// Figure 2, `process_timer_expire`: T1 or T2 ran out.
    fn on_timeout(&mut self, now: SimTime, out: &mut TulipOutbox) {
        if self.t1.is_some_and(|t| t <= now) {
            self.t1 = None;
        }
        if self.t2.is_some_and(|t| t <= now) {
            self.t2 = None;
        }
        if self.piggyback_hold.is_some_and(|t| t <= now) {
            self.piggyback_hold = None;
        }
        self.try_send(out);
    }

    /// Figure 2, `process_received_ack`: advance SN_min to CumACK + 1, free the frames the bit
    /// vector reports received, and create a new retransmission list from its zeros. Returns
    /// false for a stale LACK, whose CumACK is neither in S nor just before it.
    fn process_received_ack(&mut self, lack: Lack, out: &mut TulipOutbox) -> bool {
        let left_edge = self.window.front().map_or(self.next_seq, |o| o.seq);
        let in_window = self
            .space
            .in_range(left_edge, self.window.len() as u16, lack.cum_ack);
        if !in_window && lack.cum_ack != self.space.prev(left_edge) {
            self.metrics.stale_lacks += 1;
            return false;
        }
        if in_window {
            while let Some(o) = self.window.pop_front() {
                self.metrics.frames_acked += 1;
                self.newest_received_tx = self.newest_received_tx.max(o.last_tx);
                if o.seq == lack.cum_ack {
                    break;
                }
            }
        }
        let first = self.space.add(lack.cum_ack, 1);
        let mut zeros = Vec::new();
        for o in self.window.iter_mut() {
            let i = self.space.distance(first, o.seq);
            if i + 1 >= self.space.window() {
                // Beyond the W − 1 bits: unknown, not lost.
                continue;
            }
            if lack.is_received(i) {
                o.packet = None;
                self.newest_received_tx = self.newest_received_tx.max(o.last_tx);
            } else if o.packet.is_some() {
                zeros.push((o.seq, o.last_tx));
            }
        }
        let mut list = Vec::new();
        for (seq, last_tx) in zeros {
            // A zero for a frame sent after every frame known received may only mean the LACK
            // was made before the frame arrived (a LACK waiting for a floor of its own): not
            // "apparently lost" (§3.2) yet.
            if last_tx < self.newest_received_tx {
                list.push(RetxEntry {
                    seq,
                    retransmitted: false,
                });
            }
        }
        out.push(TulipOutput::Event(TulipEvent::RetransmissionListBuilt {
            len: list.len(),
        }));
        self.retx_list = list;
        self.retx_pos = 0;
        true
    }

    /// Send if the pacing allows: no T1 or T2 running and the MAC not holding a frame.
    fn try_send(&mut self, out: &mut TulipOutbox) {
        let mac_busy = self.mac.awaiting.is_some();
        if self.t1.is_some() || self.t2.is_some() || mac_busy {
            return;
        }
        self.send_packet(out);
    }

    /// Figure 2, `send_packet`, in its order: the retransmission list; then (our choice) a
    /// queued ULP; then a new RLP while |S| < W; else start the list over; else retransmit the
    /// oldest unacknowledged frame to force a LACK (liveness, §3.2).
    fn send_packet(&mut self, out: &mut TulipOutbox) {
        if self.send_from_list(out) {
            return;
        }
        // A ULP waiting for a LACK to carry it (MAC acceleration) keeps its place.
        let next_ulp = match self.piggyback_hold {
            Some(_) => None,
            None => self.unreliable_queue.pop_front(),
        };
        if let Some(packet) = next_ulp {
            self.metrics.unreliable_sent += 1;
            self.hand_to_mac(
                FrameKind::Unreliable,
                TulipFrame::Unreliable { packet },
                out,
            );
            return;
        }
        if self.window.len() < usize::from(self.space.window()) {
            if let Some(packet) = self.reliable_queue.pop_front() {
                self.send_new(packet, out);
                return;
            }
        }
        if self.retx_list.iter().any(|e| self.is_missing(e.seq)) {
            self.metrics.list_restarts += 1;
            self.retx_pos = 0;
            self.send_from_list(out);
            return;
        }
        if let Some(seq) = self
            .window
            .iter()
            .find(|o| o.packet.is_some())
            .map(|o| o.seq)
        {
            self.metrics.liveness_retransmissions += 1;
            self.retransmit(seq, out);
        }
    }

    /// Sends the next entry of the list still missing; false when the list is done.
    fn send_from_list(&mut self, out: &mut TulipOutbox) -> bool {
        while self.retx_pos < self.retx_list.len() {
            let pos = self.retx_pos;
            self.retx_pos += 1;
            let seq = self.retx_list[pos].seq;
            if self.is_missing(seq) {
                self.retx_list[pos].retransmitted = true;
                self.retransmit(seq, out);
                return true;
            }
        }
        false
    }

    fn is_missing(&self, seq: LinkSeq) -> bool {
        self.window
            .iter()
            .any(|o| o.seq == seq && o.packet.is_some())
    }

    fn send_new(&mut self, packet: Packet, out: &mut TulipOutbox) {
        let seq = self.next_seq;
        self.next_seq = self.space.add(seq, 1);
        self.window.push_back(Outstanding {
            seq,
            last_tx: 0,
            packet: Some(packet),
        });
        self.metrics.new_frames_sent += 1;
        out.push(TulipOutput::Event(TulipEvent::DataSent { seq }));
        self.hand_to_mac(
            FrameKind::Reliable(seq),
            TulipFrame::Data {
                seq,
                packet,
                lack: None,
            },
            out,
        );
    }

    fn retransmit(&mut self, seq: LinkSeq, out: &mut TulipOutbox) {
        let packet = self
            .window
            .iter()
            .find(|o| o.seq == seq)
            .and_then(|o| o.packet)
            .expect("retransmit only frames still buffered");
        self.metrics.retransmissions += 1;
        out.push(TulipOutput::Event(TulipEvent::Retransmission { seq }));
        self.hand_to_mac(
            FrameKind::Reliable(seq),
            TulipFrame::Data {
                seq,
                packet,
                lack: None,
            },
            out,
        );
    }

    fn hand_to_mac(&mut self, kind: FrameKind, mut frame: TulipFrame, out: &mut TulipOutbox) {
        if let (Some(l), TulipFrame::Data { lack, .. }) = (self.attach, &mut frame) {
            *lack = Some(l);
            self.attach = None;
            self.metrics.lacks_carried += 1;
        }
        if let FrameKind::Reliable(seq) = kind {
            self.tx_count += 1;
            let tx = self.tx_count;
            if let Some(o) = self.window.iter_mut().find(|o| o.seq == seq) {
                o.last_tx = tx;
            }
        }
        let bytes = frame.size_bytes(&self.config);
        self.mac.awaiting = Some((kind, bytes));
        out.push(TulipOutput::ToMac(frame));
    }
}
