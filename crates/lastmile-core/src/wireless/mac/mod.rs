//! Medium access control for the wireless cell. Each MAC is a pure state machine
//! (`handle(now, input, out)` + `poll_timeout()`) that talks to the link layer through
//! TULIP's / LLE-TCP's signals (`Trans`, `Wait`, `TxSuccess`, `TxFailure`).
//!
//! - `common`: the vocabulary every MAC shares ([`MacInput`], [`MacOutput`], [`MacFrame`],
//!   [`MacCounters`]).
//! - `ideal`: serialization only, no contention, no MAC ACK.
//! - `dcf`: IEEE 802.11 DCF (clause 9.2), basic access and RTS/CTS.
//! - `fama`: FAMA-NCS floor acquisition with TULIP's MAC acceleration.
//! - `duplex`: a full-duplex radio channel per station (FDD): no contention, no MAC ACK.
//!
//! [`AnyMac`] dispatches over them by enum. FAMA's one extra input, the in-floor reply of
//! MAC acceleration, goes through [`AnyMac::reply_in_floor`]; frame lengths on the air come
//! from [`AnyMac::frame_bytes`] (FAMA's CTS is longer than 802.11's, so [`MacFrame::bytes`]
//! is not the whole story); [`AnyMac::reply_budget`] and [`AnyMac::piggyback_hold`] give
//! the link layers' timers what this MAC takes to carry a reply.
//!
//! `spec` holds the one list of MACs (`macs!`): the scenario's `mac` table (`MacSpec`) and
//! how each station's MAC is built from it. Adding a MAC: its module here with its settings
//! in `<mac>/spec.rs`, a variant and its arms in `AnyMac`, one line of `macs!`.

pub mod common;
pub mod dcf;
pub mod duplex;
pub mod fama;
pub mod ideal;
pub mod spec;

#[cfg(test)]
mod tests;

pub use common::{FrameKind, MacCounters, MacFrame, MacInput, MacOutput, MacSignal};
pub use dcf::{CwRule, CwRuleKind, Dcf, DcfConfig, DcfConfigError, DcfPhase, DcfSpec, DcfState};
pub use duplex::{DuplexConfig, DuplexMac, DuplexSpec};
pub use fama::{Fama, FamaConfig, FamaCounters, FamaSpec};
pub use ideal::{IdealConfig, IdealMac, IdealSpec};
pub use spec::{MacSettings, MacSpec, PhyPreset, PhySettings, PreambleKind, StationSetup};

use crate::engine::{SimDuration, SimTime};
use crate::ids::NodeId;

/// One station's MAC, whichever it is.
#[derive(Clone, Debug)]
pub enum AnyMac<P> {
    Ideal(IdealMac<P>),
    Dcf(Dcf<P>),
    Fama(Fama<P>),
    Duplex(DuplexMac<P>),
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
    #[inline]
    pub fn handle(&mut self, now: SimTime, input: MacInput<P>, out: &mut Vec<MacOutput<P>>) {
        match self {
            AnyMac::Ideal(m) => m.handle(now, input, out),
            AnyMac::Dcf(m) => m.handle(now, input, out),
            AnyMac::Fama(m) => m.handle(now, input, out),
            AnyMac::Duplex(m) => m.handle(now, input, out),
        }
    }

    /// Takes back a queued frame `matches` accepts before any exchange for it has started
    /// (FAMA-NCS: TULIP's LACK rides on it as a reply, §3.3); other MACs keep their frames.
    pub fn withdraw(&mut self, matches: impl Fn(&P) -> bool) -> Option<P> {
        match self {
            AnyMac::Fama(m) => m.withdraw(matches),
            AnyMac::Ideal(_) | AnyMac::Dcf(_) | AnyMac::Duplex(_) => None,
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
        let input = MacInput::ReplyInFloor {
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
            AnyMac::Duplex(m) => m.config().frame_bytes(frame.msdu_bytes),
            AnyMac::Ideal(_) | AnyMac::Dcf(_) => frame.bytes(),
        }
    }

    #[inline]
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyMac::Ideal(m) => m.poll_timeout(),
            AnyMac::Dcf(m) => m.poll_timeout(),
            AnyMac::Fama(m) => m.poll_timeout(),
            AnyMac::Duplex(m) => m.poll_timeout(),
        }
    }

    pub fn counters(&self) -> MacCounters {
        match self {
            AnyMac::Ideal(m) => m.counters().clone(),
            AnyMac::Dcf(m) => m.counters().clone(),
            AnyMac::Fama(m) => fama_counters(m.counters()),
            AnyMac::Duplex(m) => m.counters().clone(),
        }
    }

    /// How long after the end of a data frame the peer's link-level reply of `reply_msdu`
    /// bytes has been received over this MAC, uncontended: the link layers' ACK timeouts
    /// (TULIP's t_ACK of eq. (1), stop-and-wait's) are built from it.
    pub fn reply_budget(&self, reply_msdu: u32) -> SimDuration {
        match self {
            AnyMac::Ideal(m) => {
                let c = m.config();
                c.max_gap() + c.phy.data_airtime(reply_msdu) + c.propagation
            }
            AnyMac::Dcf(d) => {
                let c = d.config();
                let phy = &c.phy;
                phy.sifs
                    + phy.ack_airtime()
                    + phy.difs()
                    + phy.slot * u64::from(c.cw_min)
                    + phy.data_airtime(reply_msdu)
            }
            // MAC acceleration: the reply goes SIFS after the data, inside the floor.
            AnyMac::Fama(f) if f.config().mac_acceleration => {
                let c = f.config();
                c.phy.sifs + c.tau * 2 + c.data_airtime(reply_msdu)
            }
            // Otherwise the reply acquires a floor of its own: the sender's reply window is
            // none, the longest backoff (1 + cw_min slots), RTS, CTS, the reply.
            AnyMac::Fama(f) => {
                let c = f.config();
                c.phy.slot * u64::from(c.cw_min + 1)
                    + c.rts_airtime()
                    + c.cts_airtime()
                    + c.phy.sifs * 2
                    + c.tau * 4
                    + c.data_airtime(reply_msdu)
            }
            // The reply has a channel of its own: the data's way there and decoding, the
            // reply's airtime, its way back and decoding.
            AnyMac::Duplex(m) => {
                let c = m.config();
                (c.propagation + c.decode_delay) * 2 + c.airtime(reply_msdu)
            }
        }
    }

    /// How long a small unreliable packet (a TCP ACK) may wait for a link-level reply to
    /// carry it under MAC acceleration: until the peer's next data frame has arrived,
    /// uncontended (its reply window, its longest post-exchange backoff, the RTS/CTS
    /// handshake and a maximum-length data frame). Zero for a MAC without floors.
    pub fn piggyback_hold(&self) -> SimDuration {
        let AnyMac::Fama(f) = self else {
            return SimDuration::ZERO;
        };
        let c = f.config();
        c.reply_window()
            + c.phy.slot * u64::from(c.cw_min + 1)
            + c.rts_airtime()
            + c.rts_deferral()
            + c.cts_deferral()
    }

    /// The name a scenario file uses.
    pub fn name(&self) -> &'static str {
        match self {
            AnyMac::Ideal(_) => "ideal",
            AnyMac::Dcf(_) => "dcf",
            AnyMac::Fama(_) => "fama",
            AnyMac::Duplex(_) => "duplex",
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
