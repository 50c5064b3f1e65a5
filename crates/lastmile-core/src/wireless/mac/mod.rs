//! Medium access control for the wireless cell. Each MAC is a pure state machine
//! (`handle(now, input, out)` + `poll_timeout()`) that talks to the link layer through
//! TULIP's / LLE-TCP's signals (`Trans`, `Wait`, `TxSuccess`, `TxFailure`).
//!
//! - `ideal`: serialization only, no contention, no MAC ACK.
//! - `dcf`: IEEE 802.11 DCF (clause 9.2), basic access and RTS/CTS.
//! - `fama`: FAMA-NCS floor acquisition with TULIP's MAC acceleration.
//!
//! [`AnyMac`] dispatches over them by enum. The DCF's input and output types are the common
//! vocabulary ([`MacInput`], [`MacOutput`]): every MAC gets frames to send, carrier-sense
//! indications, intact or corrupted receptions and timeouts, and answers with frames to put
//! on the air, signals and deliveries. FAMA's one extra input, the in-floor reply of MAC
//! acceleration, goes through [`AnyMac::reply_in_floor`]. Frame lengths on the air come from
//! [`AnyMac::frame_bytes`]: FAMA's CTS is longer than 802.11's, so [`MacFrame::bytes`] (the
//! 802.11 lengths) is not the whole story.

pub mod dcf;
pub mod fama;
pub mod ideal;

#[cfg(test)]
mod tests;

pub use dcf::{
    Dcf, DcfConfig, DcfConfigError, DcfCounters, DcfInput, DcfOutput, DcfPhase, DcfState,
    FrameKind, MacFrame, MacSignal,
};
pub use fama::{Fama, FamaConfig, FamaCounters, FamaInput};
pub use ideal::{IdealConfig, IdealMac};

use crate::engine::SimTime;
use crate::ids::NodeId;

/// What drives any MAC.
pub type MacInput<P> = DcfInput<P>;
/// What any MAC asks of the cell.
pub type MacOutput<P> = DcfOutput<P>;
/// Counters every MAC keeps (fields a MAC has no use for stay zero).
pub type MacCounters = DcfCounters;

/// One station's MAC, whichever it is.
#[derive(Clone, Debug)]
pub enum AnyMac<P> {
    Ideal(IdealMac<P>),
    Dcf(Dcf<P>),
    Fama(Fama<P>),
}

/// What became of a link layer's reply handed to [`AnyMac::reply_in_floor`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReplyDisposition {
    /// Sent SIFS after the data inside the floor: no RTS/CTS and no signals (TULIP Fig. 4(a)).
    InFloor,
    /// Put at the head of the MAC's queue with an immediate RTS (TULIP Fig. 4(b)); it then
    /// signals like any queued frame.
    HeadOfQueue,
    /// No floor was open for it: queued at the tail like any `Enqueue`.
    Queued,
}

impl<P: Clone> AnyMac<P> {
    pub fn handle(&mut self, now: SimTime, input: MacInput<P>, out: &mut Vec<MacOutput<P>>) {
        match self {
            AnyMac::Ideal(m) => m.handle(now, input, out),
            AnyMac::Dcf(m) => m.handle(now, input, out),
            AnyMac::Fama(m) => m.handle(now, input, out),
        }
    }

    /// MAC acceleration (TULIP §3.3): the link layer's reply to the data frame from `dst` just
    /// delivered, given at the instant of the `Deliver`. Only FAMA-NCS with acceleration
    /// holds a floor for it; any other MAC queues it as an ordinary frame.
    pub fn reply_in_floor(
        &mut self,
        now: SimTime,
        dst: NodeId,
        msdu_bytes: u32,
        payload: P,
        out: &mut Vec<MacOutput<P>>,
    ) -> ReplyDisposition {
        let AnyMac::Fama(m) = self else {
            let input = MacInput::Enqueue {
                dst,
                msdu_bytes,
                payload,
            };
            self.handle(now, input, out);
            return ReplyDisposition::Queued;
        };
        let disposition = if !m.is_reply_window_open(now, dst) {
            ReplyDisposition::Queued
        } else if msdu_bytes <= m.config().reply_in_floor_max_bytes {
            ReplyDisposition::InFloor
        } else {
            ReplyDisposition::HeadOfQueue
        };
        let input = FamaInput::ReplyInFloor {
            dst,
            msdu_bytes,
            payload,
        };
        m.handle(now, input, out);
        disposition
    }

    /// Length on the air of `frame`, MAC header and FCS included, in this MAC's framing.
    pub fn frame_bytes(&self, frame: &MacFrame<P>) -> u32 {
        match self {
            AnyMac::Fama(m) => m.config().frame_bytes(frame),
            AnyMac::Ideal(_) | AnyMac::Dcf(_) => frame.bytes(),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyMac::Ideal(m) => m.poll_timeout(),
            AnyMac::Dcf(m) => m.poll_timeout(),
            AnyMac::Fama(m) => m.poll_timeout(),
        }
    }

    pub fn counters(&self) -> MacCounters {
        match self {
            AnyMac::Ideal(m) => m.counters().clone(),
            AnyMac::Dcf(m) => m.counters().clone(),
            AnyMac::Fama(m) => fama_counters(m.counters()),
        }
    }

    /// The name a scenario file uses.
    pub fn name(&self) -> &'static str {
        match self {
            AnyMac::Ideal(_) => "ideal",
            AnyMac::Dcf(_) => "dcf",
            AnyMac::Fama(_) => "fama",
        }
    }
}

/// FAMA's counters as the common ones. FAMA has no MAC ACK: no ACK timeouts, no duplicates;
/// a success is a data frame sent after acquiring the floor; in-floor replies are data frames
/// on the air too.
fn fama_counters(c: &FamaCounters) -> MacCounters {
    MacCounters {
        attempts: c.attempts,
        retries: c.retries,
        drops: c.drops,
        successes: c.data_frames_sent,
        ack_timeouts: 0,
        cts_timeouts: c.cts_timeouts,
        rx_errors: c.rx_errors,
        control_frames_sent: c.control_frames_sent,
        data_frames_sent: c.data_frames_sent + c.replies_in_floor,
        delivered: c.delivered,
        duplicates: 0,
    }
}
