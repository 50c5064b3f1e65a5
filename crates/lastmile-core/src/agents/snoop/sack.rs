//! Snoop reading SACK (`sack = true`): the selective-acknowledgment variant of the
//! comparison in which "the use of a selective acknowledgement scheme improves performance"
//! (Pentikousis §2.1.1, citing Balakrishnan et al., SIGCOMM '96 / ToN 1997, whose
//! LL-SMART-TCP-AWARE gave Snoop selective acknowledgments at the link layer). Here the
//! selective information is the mobile TCP's own SACK blocks (RFC 2018; both ends need
//! SACK), read as the Linux netfilter Snoop does (protocol-notes §1.8, [LNX]).
//!
//! * On a duplicate ACK that carries SACK blocks, every cached segment below the highest
//!   SACKed byte that no block has covered (the blocks are remembered per segment: an ACK
//!   carries at most four, the most recent first) is a hole the mobile lacks; each is retransmitted
//!   locally at once — not only the oldest, as plain Snoop does — at most
//!   `max_local_retransmits` times. A hole Snoop has retransmitted already is sent again
//!   only when the blocks cover a segment forwarded after that retransmission: over the
//!   FIFO hop the retransmission was then lost (the rule plain Snoop applies to its expected
//!   duplicate ACKs). Until then its answer may still be on the way — behind a full
//!   interface queue that can take longer than any timeout — and the holes are left alone.
//! * The duplicate ACK is suppressed when the oldest hole is cached (Snoop is repairing it),
//!   and forwarded when it is not (the sender must). Duplicate ACKs without blocks, and
//!   every other ACK, follow plain Snoop's rules.

use super::*;
use crate::packet::SackBlock;

impl SnoopConn {
    /// A duplicate ACK from the mobile with SACK blocks (`sack = true`).
    pub(super) fn on_sack_dupack(&mut self, cx: &mut Cx<'_>, now: SimTime, blocks: &[SackBlock]) {
        let Some(highest) = blocks.iter().map(|&(_, end)| end).max() else {
            return;
        };
        let timeout = self.timeout(cx.spec);
        let last_ack = self.last_ack;
        // Remember what the blocks cover; the latest forwarding time among those segments.
        let sees_link = self.sees_link;
        let mut newest_sacked = None;
        for x in self.cache.iter_mut() {
            if blocks.iter().any(|&(l, r)| l <= x.seq && x.end <= r) {
                x.sacked = true;
                newest_sacked = newest_sacked.max(x.left_at(sees_link));
            }
        }
        let tail_is_hole = self.cache.front().is_some_and(|t| Some(t.seq) == last_ack);
        let mut sent = 0;
        for x in self.cache.iter_mut() {
            if x.end > highest {
                break;
            }
            let answer_may_come = x.num_rxmit > 0
                && (x.rxmit != RxmitState::Left
                    || x.left_at(sees_link)
                        .is_some_and(|t| newest_sacked.is_none_or(|n| n <= t)));
            if x.sacked || answer_may_come || x.num_rxmit >= cx.spec.max_local_retransmits {
                continue;
            }
            recovery::send_again(x, cx, now, sees_link);
            sent += 1;
        }
        if sent > 0 {
            self.rtx_at = Some(now + timeout);
            self.active = true;
            if cx.spec.fix && self.timed.is_some() {
                self.timed = None; // A retransmission may answer for the timed segment.
            }
        }
        if tail_is_hole {
            cx.counters.common.suppressed_dupacks += 1;
            cx.out.verdict = Verdict::Drop;
        }
    }
}
