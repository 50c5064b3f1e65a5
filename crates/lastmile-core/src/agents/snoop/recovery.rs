//! Snoop's local recovery: duplicate ACKs (ns-2 `snoop_ack`), the BSD burst-loss rule, the
//! retransmission and persist timers, and how a retransmission is sent.
//!
//! * **Sending a retransmission**: ahead of the data waiting in the base station's
//!   interface queue (`AgentOutbox::ahead`; Balakrishnan et al. 1995, Fig. 2: "Retransmit lost
//!   packet with high priority", the BSD code's `IPTOS_LOWDELAY`), or with `retransmit_ahead =
//!   false` behind it, as ns-2's `snoop_rxmit` does (tcp/snoop.cc: "Ideally, would like to
//!   schedule snoop retransmissions at higher priority").
//! * **Duplicate ACKs**: below `dupack_threshold` forwarded; the threshold-th retransmits the
//!   hole and Snoop expects one dupack from each cached segment after the hole already on
//!   its way (where the interface reports its frames: those that went on the air; the ones
//!   still queued arrive after the retransmission, which went ahead of them — "since
//!   retransmission happens at higher priority, we might not see total number of expected
//!   duplicate ACKs"), and suppresses them. More dupacks than that, from segments that went
//!   on the air after the retransmission had gone, mean it was lost too: sent again, up to
//!   `max_local_retransmits`. Later dupacks are forwarded.
//! * **Burst-loss rule** (the BSD code, as Click's port `mh_new_ack` keeps it: "check for
//!   burst loss"): a new ACK that answers a local retransmission and stops at the next cached
//!   segment, which left before that retransmission, says the next one was lost too: it is
//!   retransmitted at once, whatever drove the first retransmission (dupacks, the timer, the
//!   rule itself). An ACK answers a retransmission only once it has left the interface
//!   (Karn's ambiguity: one arriving before answers an earlier copy). BSD also asked for a
//!   segment cached after the next one; lastmile does not: the order on the air already
//!   says the next one is missing.

use super::*;

impl SnoopConn {
    /// The burst-loss rule (module notes): the ACK just taken answered a retransmission that
    /// left at `answered`.
    pub(super) fn on_partial_ack(&mut self, cx: &mut Cx<'_>, now: SimTime, answered: SimTime) {
        let sees_link = self.sees_link;
        let Some(tail) = self.cache.front() else {
            return;
        };
        let lost = Some(tail.seq) == self.last_ack
            && tail.num_rxmit == 0
            && !tail.sender_rxmit
            && tail.left_at(sees_link).is_some_and(|t| t < answered);
        if !lost {
            return;
        }
        // The segments that left after the answered retransmission reach the mobile
        // without the tail: each brings a dupack.
        let behind = self
            .cache
            .iter()
            .skip(1)
            .filter(|x| x.left_at(sees_link).is_some_and(|t| t > answered))
            .count() as u32;
        if self.retransmit_tail(cx, now) {
            self.exp_dupacks = behind;
        }
    }

    pub(super) fn on_dupack(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        let threshold = cx.spec.dupack_threshold;
        let timeout = self.timeout(cx.spec);
        let sees_link = self.sees_link;
        let Some(tail) = self.cache.front() else {
            return;
        };
        if Some(tail.seq) != self.last_ack {
            return; // The missing segment is not cached: the sender must recover it.
        }
        let (sender_rxmit, rxmit) = (tail.sender_rxmit, tail.num_rxmit > 0);
        let rxmit_left = (tail.rxmit == RxmitState::Left)
            .then(|| tail.left_at(sees_link))
            .flatten();
        if self.rtx_at.is_some() {
            // The ACK clock still runs: the pipe ahead of a retransmission is draining.
            self.rtx_at = Some(now + timeout);
        }
        if self.exp_dupacks > 0 {
            self.exp_dupacks -= 1;
            cx.counters.common.suppressed_dupacks += 1;
            cx.out.verdict = Verdict::Drop;
            return;
        }
        self.dupacks += 1;
        if sender_rxmit {
            return; // The sender is on it: forwarded.
        }
        if rxmit {
            // More dupacks than expected: if they come from segments that left after our
            // retransmission, FIFO delivery says it was lost (ns-2's and Click's "one more
            // retransmission", repeated up to `max_local_retransmits`).
            let Some(t) = rxmit_left else {
                return; // Still queued or on the air: forwarded.
            };
            let behind = self.left_after(t);
            if behind > 0 && self.retransmit_tail(cx, now) {
                self.exp_dupacks = behind - 1;
                cx.counters.common.suppressed_dupacks += 1;
                cx.out.verdict = Verdict::Drop;
            }
            return;
        }
        if self.dupacks != threshold {
            return; // Forwarded: below the threshold.
        }
        // Every segment after the lost one already on its way brings a dupack; `threshold`
        // of them have come.
        let after = if sees_link {
            self.cache
                .iter()
                .skip(1)
                .filter(|x| x.sent_at.is_some())
                .count() as u32
        } else {
            self.cache.len() as u32 - 1
        };
        if self.retransmit_tail(cx, now) {
            self.exp_dupacks = after.saturating_sub(threshold);
            cx.counters.common.suppressed_dupacks += 1;
            cx.out.verdict = Verdict::Drop;
        }
    }

    /// Cached segments after the tail that left after `t`.
    fn left_after(&self, t: SimTime) -> u32 {
        let sees_link = self.sees_link;
        self.cache
            .iter()
            .skip(1)
            .filter(|x| x.left_at(sees_link).is_some_and(|l| l > t))
            .count() as u32
    }

    /// Sends the oldest cached segment again (ns-2 `snoop_rxmit`); false at the limit.
    pub(super) fn retransmit_tail(&mut self, cx: &mut Cx<'_>, now: SimTime) -> bool {
        let timeout = self.timeout(cx.spec);
        let sees_link = self.sees_link;
        let Some(tail) = self.cache.front_mut() else {
            return false;
        };
        if tail.num_rxmit >= cx.spec.max_local_retransmits {
            self.rtx_at = None;
            return false;
        }
        send_again(tail, cx, now, sees_link);
        let (seq, end) = (tail.seq, tail.end);
        if cx.spec.fix && self.timed.is_some_and(|t| seq < t.end && t.end <= end) {
            self.timed = None;
        }
        self.rtx_at = Some(now + timeout);
        self.active = true;
        true
    }

    /// The retransmission or the persist timer of this connection is due.
    pub(super) fn on_timer(&mut self, cx: &mut Cx<'_>, now: SimTime) {
        let expects_tail = self
            .cache
            .front()
            .is_some_and(|t| self.last_ack.is_none_or(|a| t.seq == a));
        if self.rtx_at.is_some_and(|t| t <= now) {
            self.rtx_at = None;
            if expects_tail && self.retransmit_tail(cx, now) {
                cx.counters.common.timer_expiries += 1;
            }
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            if self.cache.is_empty() {
                self.persist_at = None;
                return;
            }
            let idle = !self.active;
            self.active = false;
            self.persist_at = Some(now + cx.spec.persist.sim());
            if idle && expects_tail && self.retransmit_tail(cx, now) {
                cx.counters.persist_retransmissions += 1;
            }
        }
    }
}

/// Sends a copy of cached segment `x` (module notes, "Sending a retransmission").
pub(super) fn send_again(x: &mut Cached, cx: &mut Cx<'_>, now: SimTime, sees_link: bool) {
    x.num_rxmit += 1;
    x.rxmit_at = Some(now);
    x.rxmit = if sees_link {
        RxmitState::Queued
    } else {
        RxmitState::Left
    };
    if cx.spec.retransmit_ahead.unwrap_or(true) {
        cx.out.ahead.push(x.packet);
    } else {
        cx.out.packets.push(x.packet);
    }
    cx.counters.common.local_retransmissions += 1;
}
