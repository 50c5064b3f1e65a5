//! Medium access control for the wireless cell. Each MAC is a pure state machine
//! (`handle(now, input, out)` + `poll_timeout()`) that talks to the link layer through
//! TULIP's / LLE-TCP's signals (`Trans`, `Wait`, `TxSuccess`, `TxFailure`).
//!
//! - `ideal`: serialization only, no contention, no MAC ACK.
//! - `dcf`: IEEE 802.11 DCF (clause 9.2), basic access and RTS/CTS.
//! - `fama`: FAMA-NCS floor acquisition with TULIP's MAC acceleration (not yet in `AnyMac`).
//!
//! [`AnyMac`] dispatches over them by enum. The DCF's input and output types are the common
//! vocabulary ([`MacInput`], [`MacOutput`]): every MAC gets frames to send, carrier-sense
//! indications, intact or corrupted receptions and timeouts, and answers with frames to put
//! on the air, signals and deliveries. Adding FAMA-NCS is one variant, one constructor and
//! one arm per method below (converting its own input/output types if they differ).

pub mod dcf;
pub mod fama;
pub mod ideal;

#[cfg(test)]
mod tests;

pub use dcf::{
    Dcf, DcfConfig, DcfConfigError, DcfCounters, DcfInput, DcfOutput, DcfPhase, DcfState,
    FrameKind, MacFrame, MacSignal,
};
pub use ideal::{IdealConfig, IdealMac};

use crate::engine::SimTime;

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
}

impl<P: Clone> AnyMac<P> {
    pub fn handle(&mut self, now: SimTime, input: MacInput<P>, out: &mut Vec<MacOutput<P>>) {
        match self {
            AnyMac::Ideal(m) => m.handle(now, input, out),
            AnyMac::Dcf(m) => m.handle(now, input, out),
        }
    }

    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            AnyMac::Ideal(m) => m.poll_timeout(),
            AnyMac::Dcf(m) => m.poll_timeout(),
        }
    }

    pub fn counters(&self) -> &MacCounters {
        match self {
            AnyMac::Ideal(m) => m.counters(),
            AnyMac::Dcf(m) => m.counters(),
        }
    }

    /// The name a scenario file uses.
    pub fn name(&self) -> &'static str {
        match self {
            AnyMac::Ideal(_) => "ideal",
            AnyMac::Dcf(_) => "dcf",
        }
    }
}
