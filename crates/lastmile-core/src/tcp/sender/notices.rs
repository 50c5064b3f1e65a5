//! The sender's answers to the wireless hop's explicit notifications (Pentikousis §2.4.4.4,
//! `packet::ExplicitNotice`), kept apart from the ACK paths of `sender.rs`, which call in
//! here only when the connection has `eln` or `ebsn` on.
//!
//! * **ELN** (Balakrishnan & Katz; ns-2 `TcpAgent::tcp_eln`, read in `hbatmit/ns2.35`
//!   `tcp/tcp.cc`): a duplicate ACK marked ELN says the segment at SND.UNA was lost to
//!   corruption on the wireless hop. The first such duplicate for a SND.UNA names that
//!   segment for retransmission (ns-2's `eln_rxmit_thresh_` = 1, the comparison paper's
//!   "E2E-ELN-RXMT"); cwnd, ssthresh and the retransmission timer are left as they are, no
//!   fast recovery starts, and the marked duplicates are not counted towards DupThresh. A
//!   segment is ELN-retransmitted once per SND.UNA: if the retransmission is lost too, the
//!   timer recovers it (ns-2's `eln_last_rxmit_` guard). ns-2 compares the ACK with the last
//!   ELN-retransmitted *packet number*, which also leaves the hole right after a just
//!   retransmitted segment to the timer; we retransmit that one (a quirk not kept).
//! * **EBSN** (Bakshi, Krishna, Vaidya & Pradhan, ICDCS 1997; the paper itself was not
//!   reachable, the rule is the one `mechanism-notes.md` §7c and protocol-notes §4.6 give):
//!   a bad-state message restarts the retransmission timer from now with the current RTO —
//!   backoff, cwnd and ssthresh unchanged — if data is outstanding, so the sender does not
//!   time out (and back off) while the base station keeps retrying over a bad channel.

use super::*;

impl Sender {
    /// ELN answers are on (`TcpConfig::eln`).
    pub fn set_eln(&mut self, on: bool) {
        self.eln = on.then_some(ElnState::default());
    }

    /// True when `a` is an ELN-marked duplicate ACK this sender answers (`on_eln_dupack`).
    #[inline]
    pub(super) fn is_eln_dupack(&self, a: &AckInput, same_window: bool) -> bool {
        a.eln && self.eln.is_some() && self.is_dupack(a, same_window)
    }

    /// An ELN-marked duplicate ACK: the segment at SND.UNA again, once, window unchanged.
    #[inline(never)]
    pub(super) fn on_eln_dupack(&mut self) {
        let una = self.snd_una;
        let Some(eln) = self.eln.as_mut() else {
            return;
        };
        if eln.retransmitted_at != Some(una) {
            eln.retransmitted_at = Some(una);
            eln.retransmissions += 1;
            self.recovery.name_for_retransmission(una);
        }
    }

    /// Retransmissions ELN asked for so far.
    pub fn eln_retransmissions(&self) -> u64 {
        self.eln.map_or(0, |e| e.retransmissions)
    }

    /// An EBSN message arrived: true if it restarted the retransmission timer.
    pub fn on_bad_state(&mut self, now: SimTime) -> bool {
        if self.snd_max == self.snd_una || !self.rtx.is_armed() {
            return false;
        }
        self.rtx.arm(now);
        true
    }
}

/// What the ELN answer remembers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ElnState {
    /// SND.UNA when ELN last asked for a retransmission (the segment retransmitted).
    retransmitted_at: Option<u64>,
    retransmissions: u64,
}
