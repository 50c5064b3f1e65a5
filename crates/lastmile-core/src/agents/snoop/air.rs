//! What Snoop learns from its interface's reports of the frames it sends towards the mobile
//! (`Agent::wants_departures`: `Trans` when a datagram leaves the interface queue for the
//! link — on a point-to-point link its transmission starts, in a cell it goes to the MAC —
//! and `TxSuccess` / `TxFailure` when its frame has gone). Snoop only observes, never
//! commands, the interface (TULIP §5: it "has no access to the MAC layer").
//!
//! * **Activity**: any frame of the connection starting or ending means the link is busy,
//!   not idle (the persist timer), and re-arms the retransmission timer ("measured from the
//!   last (re)transmission", protocol-notes §1.6).
//! * **RTT clock**: the timed segment's clock starts when it leaves the queue, so a sample
//!   is its channel access and airtime, the mobile's answer and the ACK's way back — the
//!   link's round trip — and not the interface queue in front of it. A local
//!   retransmission of a hole before it restarts the clock when it leaves: the ACK covering
//!   the timed segment waits for that copy.
//! * **Where each copy is**: when a segment last left the queue (`sent_at`), and whether
//!   Snoop's retransmission of it is still queued, on its way out, or gone — the order the
//!   burst-loss rule and the dupack count rely on once retransmissions overtake the queue
//!   (a retransmission put ahead of the queue still follows a frame already handed to the
//!   MAC).

use super::*;

impl SnoopConn {
    /// A frame carrying `seg` started (`started`) or finished on the base station's
    /// interface.
    pub(super) fn on_frame(
        &mut self,
        spec: &SnoopSpec,
        now: SimTime,
        started: bool,
        seg: &TcpSegment,
    ) {
        let timeout = self.timeout(spec);
        self.sees_link = true;
        let seq = seg.header.seq;
        let mut rxmit_started = false;
        if let Some(x) = self.cache.iter_mut().find(|x| x.seq == seq) {
            match (started, x.rxmit) {
                (true, RxmitState::Queued) => {
                    x.rxmit = RxmitState::OnAir;
                    rxmit_started = true;
                }
                (false, RxmitState::OnAir) => x.rxmit = RxmitState::Left,
                _ => {}
            }
            if started {
                x.sent_at = Some(now);
            }
        }
        let end = seq + seg.seq_len();
        if let Some(t) = self.timed.as_mut().filter(|_| started) {
            if t.end == end && t.start.is_none() {
                t.start = Some(now);
            } else if rxmit_started && t.start.is_some() && end < t.end {
                // A retransmission of a hole before the timed segment: the ACK covering the
                // timed segment now waits for it. A retransmission of the timed segment
                // itself cancels the timing with the fix and, without it, leaves the clock
                // running: TULIP §5.2's inflation.
                t.start = Some(now);
            }
        }
        self.active = true;
        if self.rtx_at.is_some() {
            self.rtx_at = Some(now + timeout);
        }
    }
}
