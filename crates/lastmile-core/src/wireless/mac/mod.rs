//! Medium access control for the wireless cell. Each MAC is a pure state machine
//! (`handle(now, input, out)` + `poll_timeout()`) that talks to the link layer through
//! TULIP's / LLE-TCP's signals (`Trans`, `Wait`, `TxSuccess`, `TxFailure`).
//!
//! - `dcf`: IEEE 802.11 DCF (clause 9.2), basic access and RTS/CTS.
//!
//! Still to come: an ideal MAC and FAMA-NCS, and the `AnyMac` enum over them.

pub mod dcf;
pub mod fama;

#[cfg(test)]
mod tests;

pub use dcf::{
    Dcf, DcfConfig, DcfConfigError, DcfCounters, DcfInput, DcfOutput, DcfPhase, DcfState,
    FrameKind, MacFrame, MacSignal,
};
