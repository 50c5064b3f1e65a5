//! The WTP initiator of class 2 transactions: the mobile's side of WAP (WTP §8, the
//! initiator state table; Kannel `wap/wtp_init_states.def` for its rows on timer R and the
//! retransmission counter).
//!
//! * **Invoke** (`invoke`): a new TID; the Invoke is sent and the retry timer started;
//!   RESULT WAIT.
//! * **Timer** in RESULT WAIT, nothing heard yet: while RCR < MAX_RCR the Invoke is sent
//!   again with RID set and RCR incremented; at MAX_RCR the transaction is aborted (an
//!   Abort PDU with NORESPONSE) — the object is lost, and the flow shows it.
//! * **Ack** (the responder's "hold on"): the Invoke is confirmed; the timer stops and the
//!   initiator waits for the Result.
//! * **Result** (or any segment of it): implicitly acknowledges the Invoke. Segments are
//!   kept by PSN; when a group trailer (GTR) or the transmission trailer (TTR) has arrived
//!   and every segment up to it is here, that group is acknowledged (an Ack with the
//!   trailer's PSN); when a trailer arrives with segments of its group missing, a Negative
//!   Ack lists them. When the last group is complete, the whole result is delivered to the
//!   user and acknowledged at once (the user's TR-Result.res comes at once; timer A is not
//!   used) and the transaction waits W to acknowledge retransmitted copies again.
//! * **Abort** from the responder ends the transaction.
//!
//! Deliveries count result bytes as one stream (offset 0 = the first byte of the first
//! result), so a flow's in-order accounting holds over many transactions.
//!
//! Left out: user acknowledgement, TID verification, classes 0 and 1.

use std::collections::BTreeMap;

use super::pdu::{AbortReason, TransactionClass, WtpPdu, WtpPduKind};
use super::WtpConfig;
use crate::engine::SimTime;
use crate::packet::Transport;
use crate::tcp::Delivery;
use crate::transport::{OutPacket, TransportOutbox};

/// Counters of one initiator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WtpInitiatorStats {
    /// Transactions started.
    pub invokes: u64,
    /// Invokes sent again on the retry timer.
    pub invoke_retransmissions: u64,
    /// Results received whole.
    pub results: u64,
    /// Acks sent (group, final and repeated).
    pub acks_sent: u64,
    /// Negative Acks sent.
    pub nacks_sent: u64,
    /// Transactions aborted (by either side).
    pub aborts: u64,
    /// Result segments received that were here already.
    pub duplicate_segments: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum InitState {
    /// Waiting for the Result (the Invoke may have been acknowledged already).
    ResultWait,
    /// The Result is delivered and acknowledged; retransmitted copies are acknowledged
    /// again until W expires.
    WaitTimeout,
}

/// A result segment that arrived.
#[derive(Copy, Clone, Debug)]
struct Segment {
    bytes: u32,
    trailer: bool,
    last: bool,
    origin: SimTime,
}

#[derive(Clone, Debug)]
struct Transaction {
    state: InitState,
    request_bytes: u32,
    reply_bytes: u32,
    rcr: u32,
    /// The Invoke was acknowledged, or a result segment arrived.
    invoke_confirmed: bool,
    deadline: Option<SimTime>,
    segments: BTreeMap<u8, Segment>,
    /// The PSN of the last group trailer acknowledged.
    acked_through: Option<u8>,
    /// The PSN of the final Ack, to repeat it.
    final_ack: Option<Option<u8>>,
}

/// The mobile's WTP: class 2 transactions towards one responder.
#[derive(Clone, Debug)]
pub struct WtpInitiator {
    cfg: WtpConfig,
    local_port: u16,
    remote_port: u16,
    next_tid: u16,
    transactions: BTreeMap<u16, Transaction>,
    /// Result bytes delivered so far (the next delivery's offset).
    delivered: u64,
    stats: WtpInitiatorStats,
}

impl WtpInitiator {
    pub fn new(cfg: WtpConfig, local_port: u16, remote_port: u16) -> Self {
        WtpInitiator {
            cfg,
            local_port,
            remote_port,
            next_tid: 0,
            transactions: BTreeMap::new(),
            delivered: 0,
            stats: WtpInitiatorStats::default(),
        }
    }

    pub fn stats(&self) -> &WtpInitiatorStats {
        &self.stats
    }

    /// Transactions not yet finished at this end (RESULT WAIT).
    pub fn open_transactions(&self) -> usize {
        self.transactions
            .values()
            .filter(|t| t.state == InitState::ResultWait)
            .count()
    }

    /// No transaction is waiting for its result.
    pub fn is_idle(&self) -> bool {
        self.open_transactions() == 0
    }

    /// TR-Invoke.req: starts a class 2 transaction asking for an object of `reply_bytes`
    /// with a request of `request_bytes`; returns its TID.
    pub fn invoke(
        &mut self,
        now: SimTime,
        request_bytes: u32,
        reply_bytes: u32,
        out: &mut TransportOutbox,
    ) -> u16 {
        let tid = self.next_tid;
        self.next_tid = (self.next_tid + 1) & 0x7fff;
        self.stats.invokes += 1;
        let t = Transaction {
            state: InitState::ResultWait,
            request_bytes,
            reply_bytes,
            rcr: 0,
            invoke_confirmed: false,
            deadline: Some(now + self.cfg.initiator_retry),
            segments: BTreeMap::new(),
            acked_through: None,
            final_ack: None,
        };
        self.send_invoke(now, tid, &t, false, out);
        self.transactions.insert(tid, t);
        tid
    }

    /// A PDU from the responder arrived.
    pub fn on_pdu(
        &mut self,
        now: SimTime,
        pdu: &WtpPdu,
        origin: SimTime,
        out: &mut TransportOutbox,
    ) {
        if !pdu.from_responder {
            return;
        }
        let tid = pdu.tid;
        let Some(mut t) = self.transactions.remove(&tid) else {
            return; // A transaction we forgot (after W): nothing to answer.
        };
        let keep = match pdu.kind {
            WtpPduKind::Ack { .. } => {
                if t.state == InitState::ResultWait && !t.invoke_confirmed {
                    t.invoke_confirmed = true;
                    t.deadline = None;
                }
                true
            }
            WtpPduKind::Result {
                psn,
                gtr,
                ttr,
                bytes,
            } => {
                let seg = Segment {
                    bytes,
                    trailer: gtr || ttr,
                    last: ttr,
                    origin,
                };
                self.on_segment(now, tid, &mut t, psn, seg, out);
                true
            }
            WtpPduKind::Abort { .. } => {
                if t.state == InitState::ResultWait {
                    self.stats.aborts += 1;
                }
                false
            }
            WtpPduKind::Invoke { .. } | WtpPduKind::Nack { .. } => true,
        };
        if keep {
            self.transactions.insert(tid, t);
        }
    }

    /// The earliest deadline of any transaction.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        self.transactions.values().filter_map(|t| t.deadline).min()
    }

    /// Timers that are due: Invoke retries, and the end of W.
    pub fn on_timeout(&mut self, now: SimTime, out: &mut TransportOutbox) {
        let due: Vec<u16> = self
            .transactions
            .iter()
            .filter(|(_, t)| t.deadline.is_some_and(|d| d <= now))
            .map(|(&tid, _)| tid)
            .collect();
        for tid in due {
            let Some(mut t) = self.transactions.remove(&tid) else {
                continue;
            };
            if t.state == InitState::WaitTimeout {
                continue; // W expired: the transaction is forgotten.
            }
            if t.rcr < self.cfg.max_rcr {
                t.rcr += 1;
                self.stats.invoke_retransmissions += 1;
                self.send_invoke(now, tid, &t, true, out);
                t.deadline = Some(now + self.cfg.initiator_retry);
                self.transactions.insert(tid, t);
            } else {
                self.stats.aborts += 1;
                let kind = WtpPduKind::Abort {
                    reason: AbortReason::NoResponse,
                };
                self.send(tid, false, kind, now, out);
            }
        }
    }

    fn on_segment(
        &mut self,
        now: SimTime,
        tid: u16,
        t: &mut Transaction,
        psn: u8,
        seg: Segment,
        out: &mut TransportOutbox,
    ) {
        if t.state == InitState::WaitTimeout {
            // A retransmitted copy: our final Ack was lost.
            if let Some(psn) = t.final_ack {
                self.send_ack(now, tid, psn, out);
            }
            return;
        }
        t.invoke_confirmed = true;
        t.deadline = None;
        if t.segments.insert(psn, seg).is_some() {
            self.stats.duplicate_segments += 1;
            if seg.trailer && t.acked_through.is_some_and(|a| a >= psn) {
                // The responder resent a group trailer we acknowledged: the Ack was lost.
                self.send_ack(now, tid, Some(psn), out);
                return;
            }
        }
        self.acknowledge_groups(now, tid, t, out);
        if t.state == InitState::ResultWait && seg.trailer && !self.group_complete(t, psn) {
            self.send_nack(now, tid, t, psn, out);
        }
    }

    /// Acknowledges every group now complete, in order; delivers the result after its
    /// last group.
    fn acknowledge_groups(
        &mut self,
        now: SimTime,
        tid: u16,
        t: &mut Transaction,
        out: &mut TransportOutbox,
    ) {
        loop {
            let from = t.acked_through.map_or(0, |a| u16::from(a) + 1);
            let Ok(from) = u8::try_from(from) else {
                return;
            };
            let Some((&trailer, seg)) = t.segments.range(from..).find(|(_, s)| s.trailer) else {
                return;
            };
            if !self.group_complete(t, trailer) {
                return;
            }
            let last = seg.last;
            t.acked_through = Some(trailer);
            let segmented = !(trailer == 0 && last);
            let psn = segmented.then_some(trailer);
            if last {
                self.complete(now, tid, t, psn, out);
                return;
            }
            self.send_ack(now, tid, psn, out);
        }
    }

    /// Every segment from the last acknowledged group up to `trailer` is here.
    fn group_complete(&self, t: &Transaction, trailer: u8) -> bool {
        let from = t.acked_through.map_or(0, |a| u16::from(a) + 1);
        (from..=u16::from(trailer)).all(|p| t.segments.contains_key(&(p as u8)))
    }

    /// The whole result is here: deliver it, acknowledge it, wait W.
    fn complete(
        &mut self,
        now: SimTime,
        tid: u16,
        t: &mut Transaction,
        psn: Option<u8>,
        out: &mut TransportOutbox,
    ) {
        for seg in t.segments.values() {
            if seg.bytes > 0 {
                out.delivered.push(Delivery {
                    offset: self.delivered,
                    len: seg.bytes,
                    origin_time: seg.origin,
                });
                self.delivered += u64::from(seg.bytes);
            }
        }
        self.stats.results += 1;
        t.segments.clear();
        t.state = InitState::WaitTimeout;
        t.final_ack = Some(psn);
        t.deadline = Some(now + self.cfg.wait_timeout);
        self.send_ack(now, tid, psn, out);
    }

    fn send_nack(
        &mut self,
        now: SimTime,
        tid: u16,
        t: &Transaction,
        trailer: u8,
        out: &mut TransportOutbox,
    ) {
        let first = t.acked_through.map_or(0, |a| a.saturating_add(1));
        let mut missing = 0u32;
        for p in first..=trailer {
            let bit = u32::from(p - first);
            if bit < 32 && !t.segments.contains_key(&p) {
                missing |= 1 << bit;
            }
        }
        if missing == 0 {
            return;
        }
        self.stats.nacks_sent += 1;
        self.send(tid, false, WtpPduKind::Nack { first, missing }, now, out);
    }

    fn send_ack(&mut self, now: SimTime, tid: u16, psn: Option<u8>, out: &mut TransportOutbox) {
        self.stats.acks_sent += 1;
        let kind = WtpPduKind::Ack {
            tid_verify: false,
            psn,
        };
        self.send(tid, false, kind, now, out);
    }

    fn send_invoke(
        &self,
        now: SimTime,
        tid: u16,
        t: &Transaction,
        rid: bool,
        out: &mut TransportOutbox,
    ) {
        let kind = WtpPduKind::Invoke {
            class: TransactionClass::Class2,
            user_ack: false,
            request_bytes: t.request_bytes,
            reply_bytes: t.reply_bytes,
        };
        self.send(tid, rid, kind, now, out);
    }

    fn send(
        &self,
        tid: u16,
        rid: bool,
        kind: WtpPduKind,
        origin: SimTime,
        out: &mut TransportOutbox,
    ) {
        let pdu = WtpPdu {
            src_port: self.local_port,
            dst_port: self.remote_port,
            tid,
            from_responder: false,
            rid,
            kind,
        };
        out.packets.push(OutPacket::new(
            Transport::Wtp(pdu),
            origin,
            pdu.carries_data(),
        ));
    }
}
