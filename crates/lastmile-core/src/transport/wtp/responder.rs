//! The WTP responder of class 2 transactions: the WAP gateway's side (WTP §8, the
//! responder state table as Kannel implements it, `wap/wtp_resp_states.def`, with its SAR
//! from `wap/wtp_resp.c`).
//!
//! * **Invoke** in LISTEN: TR-Invoke.ind to the user (the gateway), which answers at once
//!   (TR-Invoke.res); RESULT WAIT with timer A. A repeated Invoke (RID set) is answered
//!   with the Ack again if one was sent, otherwise ignored; an Invoke of a transaction that
//!   finished less than W ago is ignored.
//! * **Timer A** in RESULT WAIT: while AEC < AEC_MAX, a "hold on" Ack (so the initiator
//!   stops retrying its Invoke) and AEC incremented; at AEC_MAX the transaction is
//!   aborted (NORESPONSE).
//! * **TR-Result.req** (`result`): the result is cut into segments of `sar_segment_bytes`
//!   (more than 256 segments: aborted with MESSAGETOOLARGE) and the first group of
//!   `sar_group` is sent — the last of a group with GTR, the last of all with TTR; RCR = 0,
//!   timer R; RESULT RESP WAIT.
//! * **Ack** in RESULT RESP WAIT: for the last segment (or an unsegmented result) the
//!   transaction is done (TR-Result.cnf); for a group trailer, the next group is sent and
//!   timer R restarted.
//! * **Negative Ack**: the segments it lists are sent again (RID set) and timer R
//!   restarted.
//! * **Timer R**: while RCR < MAX_RCR the current group's trailer (or the whole result) is
//!   sent again with RID set and RCR incremented; at MAX_RCR the transaction is aborted
//!   (NORESPONSE).
//!
//! One deviation from Kannel, which never resets RCR during a segmented result: RCR
//! restarts at 0 when a group is acknowledged, so MAX_RCR bounds the retries of one group
//! (the spec's counter is per message; with many groups Kannel's would abort a long
//! transfer after eight losses in all).
//!
//! Left out: TID validation and verification, user acknowledgement, classes 0 and 1.

use std::collections::BTreeMap;

use super::pdu::{AbortReason, WtpPdu, WtpPduKind};
use super::{WtpConfig, MAX_SEGMENTS};
use crate::engine::SimTime;
use crate::packet::Transport;
use crate::transport::{OutPacket, TransportOutbox};

/// What the responder tells its user.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ResponderEvent {
    /// TR-Invoke.ind: a new transaction asking for an object of `reply_bytes`.
    Invoke {
        tid: u16,
        request_bytes: u32,
        reply_bytes: u32,
    },
    /// TR-Result.cnf: the initiator acknowledged the whole result.
    Confirmed { tid: u16 },
    /// TR-Abort.ind: the transaction ended without its result acknowledged.
    Aborted { tid: u16 },
}

/// Counters of one responder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WtpResponderStats {
    pub invokes: u64,
    /// "Hold on" Acks sent on timer A (and repeated for retried Invokes).
    pub acks_sent: u64,
    /// Result segments sent, first copies.
    pub segments_sent: u64,
    /// Result segments sent again (timer R or Negative Ack).
    pub retransmissions: u64,
    /// Expiries of timer R that resent something.
    pub timer_expiries: u64,
    /// Results acknowledged whole.
    pub confirmed: u64,
    pub aborts: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RespState {
    ResultWait,
    ResultRespWait,
}

#[derive(Clone, Debug)]
struct Transaction {
    state: RespState,
    deadline: SimTime,
    aec: u32,
    rcr: u32,
    ack_sent: bool,
    /// The result, once requested.
    bytes: u64,
    segments: u32,
    /// The last segment of the group in flight.
    group_end: u32,
    origin: SimTime,
}

/// The gateway's WTP towards one initiator (one mobile's port).
#[derive(Clone, Debug)]
pub struct WtpResponder {
    cfg: WtpConfig,
    local_port: u16,
    remote_port: u16,
    transactions: BTreeMap<u16, Transaction>,
    /// Transactions finished, remembered until W expires (TID → expiry).
    finished: BTreeMap<u16, SimTime>,
    stats: WtpResponderStats,
}

impl WtpResponder {
    pub fn new(cfg: WtpConfig, local_port: u16, remote_port: u16) -> Self {
        WtpResponder {
            cfg,
            local_port,
            remote_port,
            transactions: BTreeMap::new(),
            finished: BTreeMap::new(),
            stats: WtpResponderStats::default(),
        }
    }

    pub fn stats(&self) -> &WtpResponderStats {
        &self.stats
    }

    /// Result bytes handed to WTP and not yet acknowledged whole.
    pub fn held_bytes(&self) -> u64 {
        self.transactions.values().map(|t| t.bytes).sum()
    }

    /// Transactions in progress.
    pub fn open_transactions(&self) -> usize {
        self.transactions.len()
    }

    /// The earliest timer: A or R of a transaction, or the end of W of a finished one.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let running = self.transactions.values().map(|t| t.deadline).min();
        let waits = self.finished.values().copied().min();
        running.into_iter().chain(waits).min()
    }

    /// A PDU from the initiator arrived.
    pub fn on_pdu(
        &mut self,
        now: SimTime,
        pdu: &WtpPdu,
        out: &mut TransportOutbox,
        events: &mut Vec<ResponderEvent>,
    ) {
        if pdu.from_responder {
            return;
        }
        let tid = pdu.tid;
        match pdu.kind {
            WtpPduKind::Invoke {
                request_bytes,
                reply_bytes,
                ..
            } => self.on_invoke(now, tid, pdu.rid, request_bytes, reply_bytes, out, events),
            WtpPduKind::Ack { psn, .. } => self.on_ack(now, tid, psn, out, events),
            WtpPduKind::Nack { first, missing } => self.on_nack(now, tid, first, missing, out),
            WtpPduKind::Abort { .. } => {
                if self.transactions.remove(&tid).is_some() {
                    self.stats.aborts += 1;
                    events.push(ResponderEvent::Aborted { tid });
                }
            }
            WtpPduKind::Result { .. } => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn on_invoke(
        &mut self,
        now: SimTime,
        tid: u16,
        rid: bool,
        request_bytes: u32,
        reply_bytes: u32,
        out: &mut TransportOutbox,
        events: &mut Vec<ResponderEvent>,
    ) {
        if let Some(t) = self.transactions.get(&tid) {
            // A retried Invoke: our hold-on Ack was lost (Kannel: RESULT_WAIT, RID = 1).
            if rid && t.state == RespState::ResultWait && t.ack_sent {
                self.send_ack(now, tid, out);
            }
            return;
        }
        if self.finished.contains_key(&tid) {
            return;
        }
        self.stats.invokes += 1;
        self.transactions.insert(
            tid,
            Transaction {
                state: RespState::ResultWait,
                deadline: now + self.cfg.ack_interval,
                aec: 0,
                rcr: 0,
                ack_sent: false,
                bytes: 0,
                segments: 0,
                group_end: 0,
                origin: now,
            },
        );
        events.push(ResponderEvent::Invoke {
            tid,
            request_bytes,
            reply_bytes,
        });
    }

    /// TR-Result.req: the user's result for transaction `tid`, `bytes` long, its data
    /// first sent by the origin server at `origin`. False if there is no such
    /// transaction waiting for its result.
    pub fn result(
        &mut self,
        now: SimTime,
        tid: u16,
        bytes: u64,
        origin: SimTime,
        out: &mut TransportOutbox,
        events: &mut Vec<ResponderEvent>,
    ) -> bool {
        let Some(t) = self.transactions.get_mut(&tid) else {
            return false;
        };
        if t.state != RespState::ResultWait {
            return false;
        }
        let segments = self.cfg.segments(bytes);
        if segments > u64::from(MAX_SEGMENTS) {
            self.transactions.remove(&tid);
            self.abort(now, tid, AbortReason::MessageTooLarge, out, events);
            return true;
        }
        t.state = RespState::ResultRespWait;
        t.bytes = bytes;
        t.segments = segments as u32;
        t.origin = origin;
        t.rcr = 0;
        t.deadline = now + self.cfg.responder_retry;
        self.send_group(tid, 0, out);
        true
    }

    fn on_ack(
        &mut self,
        now: SimTime,
        tid: u16,
        psn: Option<u8>,
        out: &mut TransportOutbox,
        events: &mut Vec<ResponderEvent>,
    ) {
        let Some(t) = self.transactions.get(&tid) else {
            return;
        };
        if t.state != RespState::ResultRespWait {
            return;
        }
        let acked = u32::from(psn.unwrap_or(0));
        if psn.is_none() || acked + 1 >= t.segments {
            self.transactions.remove(&tid);
            self.stats.confirmed += 1;
            self.finished.insert(tid, now + self.cfg.wait_timeout);
            events.push(ResponderEvent::Confirmed { tid });
            return;
        }
        if acked < t.group_end {
            return; // An old Ack.
        }
        let deadline = now + self.cfg.responder_retry;
        if let Some(t) = self.transactions.get_mut(&tid) {
            t.rcr = 0;
            t.deadline = deadline;
        }
        self.send_group(tid, acked + 1, out);
    }

    fn on_nack(
        &mut self,
        now: SimTime,
        tid: u16,
        first: u8,
        missing: u32,
        out: &mut TransportOutbox,
    ) {
        let Some(t) = self.transactions.get_mut(&tid) else {
            return;
        };
        if t.state != RespState::ResultRespWait {
            return;
        }
        t.deadline = now + self.cfg.responder_retry;
        let t = t.clone();
        for bit in 0..32u32 {
            let psn = u32::from(first) + bit;
            if missing & (1 << bit) != 0 && psn < t.segments {
                self.stats.retransmissions += 1;
                self.send_segment(tid, &t, psn, true, out);
            }
        }
    }

    /// Timers that are due: A (hold-on Acks), R (retransmissions), W (forgetting).
    pub fn on_timeout(
        &mut self,
        now: SimTime,
        out: &mut TransportOutbox,
        events: &mut Vec<ResponderEvent>,
    ) {
        self.finished.retain(|_, &mut until| until > now);
        let due: Vec<u16> = self
            .transactions
            .iter()
            .filter(|(_, t)| t.deadline <= now)
            .map(|(&tid, _)| tid)
            .collect();
        for tid in due {
            let Some(mut t) = self.transactions.remove(&tid) else {
                continue;
            };
            match t.state {
                RespState::ResultWait if t.aec < self.cfg.aec_max => {
                    t.aec += 1;
                    t.ack_sent = true;
                    t.deadline = now + self.cfg.ack_interval;
                    self.send_ack(now, tid, out);
                    self.transactions.insert(tid, t);
                }
                RespState::ResultRespWait if t.rcr < self.cfg.max_rcr => {
                    t.rcr += 1;
                    t.deadline = now + self.cfg.responder_retry;
                    self.stats.timer_expiries += 1;
                    self.stats.retransmissions += 1;
                    self.send_segment(tid, &t, t.group_end, true, out);
                    self.transactions.insert(tid, t);
                }
                _ => self.abort(now, tid, AbortReason::NoResponse, out, events),
            }
        }
    }

    fn abort(
        &mut self,
        now: SimTime,
        tid: u16,
        reason: AbortReason,
        out: &mut TransportOutbox,
        events: &mut Vec<ResponderEvent>,
    ) {
        self.stats.aborts += 1;
        events.push(ResponderEvent::Aborted { tid });
        self.send(tid, false, WtpPduKind::Abort { reason }, now, out);
    }

    /// Sends the group starting at segment `first`; it ends after `sar_group` segments or
    /// at the last one.
    fn send_group(&mut self, tid: u16, first: u32, out: &mut TransportOutbox) {
        let Some(t) = self.transactions.get_mut(&tid) else {
            return;
        };
        let group = u32::from(self.cfg.sar_group.max(1));
        t.group_end = (first + group).min(t.segments) - 1;
        let t = t.clone();
        for psn in first..=t.group_end {
            self.stats.segments_sent += 1;
            self.send_segment(tid, &t, psn, false, out);
        }
    }

    fn send_segment(
        &self,
        tid: u16,
        t: &Transaction,
        psn: u32,
        rid: bool,
        out: &mut TransportOutbox,
    ) {
        let seg = u64::from(self.cfg.sar_segment_bytes.max(1));
        let start = u64::from(psn) * seg;
        let bytes = t.bytes.saturating_sub(start).min(seg) as u32;
        let ttr = psn + 1 == t.segments;
        let kind = WtpPduKind::Result {
            psn: psn as u8,
            gtr: !ttr && psn == t.group_end,
            ttr,
            bytes,
        };
        self.send(tid, rid, kind, t.origin, out);
    }

    fn send_ack(&mut self, now: SimTime, tid: u16, out: &mut TransportOutbox) {
        self.stats.acks_sent += 1;
        let kind = WtpPduKind::Ack {
            tid_verify: false,
            psn: None,
        };
        self.send(tid, false, kind, now, out);
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
            from_responder: true,
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
