//! WTP, the Wireless Transaction Protocol of WAP 1.x (WAP-224-WTP; the survey's §2.3 puts
//! "transfer reliability ... on top of an unreliable datagram service"), class 2
//! transactions: an Invoke answered by one Result, each acknowledged, with retransmission
//! timers and counters, and segmentation and reassembly (SAR) of large results in groups.
//!
//! * `pdu`: the PDUs (Invoke, Result / Segmented Result, Ack, Negative Ack, Abort).
//! * `initiator`: the mobile's side — `WtpInitiator`, a flow endpoint: it invokes, retries
//!   the Invoke on timer R, reassembles the Result, acknowledges each group and the whole.
//! * `responder`: the WAP gateway's side — `WtpResponder`: indicates each Invoke to its
//!   user (the gateway), acknowledges it on timer A while the result is fetched (the "hold
//!   on"), sends the Result in groups and retransmits on timer R up to MAX_RCR.
//!
//! The state machines follow the WTP state tables as Kannel implements them
//! (`wap/wtp_resp_states.def`, `wap/wtp_init_states.def`), with its timer values and
//! counters (`wap/wtp.h`, citing "WTP, Appendix A"; in seconds, Kannel's default tick):
//! initiator retry interval 3 s, responder retry interval R 7 s, acknowledgement interval
//! A 4 s, wait timeout W 30 s, AEC_MAX 6, MAX_RCR 8; SAR segments of 576 bytes ("Nokia wap
//! gw uses the size of 576") in groups of 3 (`wtp_resp.h`).
//!
//! Left out: classes 0 and 1 (their PDUs exist, nothing sends them), TID verification and
//! TID caching (WTP §8.8), user acknowledgement (U/P is always off: the provider
//! acknowledges), segmented Invokes, concatenation, WTLS, and WSP itself (its header bytes
//! are part of the request and object sizes).

pub mod initiator;
/// The PDUs are wire formats: `packet::wtp`.
pub use crate::packet::wtp as pdu;
pub mod responder;

#[cfg(test)]
mod tests;

pub use initiator::{WtpInitiator, WtpInitiatorStats};
pub use pdu::{AbortReason, TransactionClass, WtpPdu, WtpPduKind, RESPONDER_TID_BIT, WTP_PORT};
pub use responder::{ResponderEvent, WtpResponder, WtpResponderStats};

use crate::engine::SimDuration;

/// Kannel's `MAX_RCR`: retransmissions of an Invoke or a Result before the transaction is
/// aborted (`wap/wtp.h`).
pub const MAX_RCR: u32 = 8;
/// Kannel's `AEC_MAX`: expiries of timer A while waiting for the result before the
/// responder aborts (`wap/wtp.h`).
pub const AEC_MAX: u32 = 6;

/// WTP's timers, counters and SAR sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WtpConfig {
    /// The initiator's retry interval for its Invoke: 3 s (Kannel
    /// `S_R_WITHOUT_USER_ACK`).
    pub initiator_retry: SimDuration,
    /// R, the responder's retry interval for its Result: 7 s (Kannel
    /// `L_R_WITH_USER_ACK`).
    pub responder_retry: SimDuration,
    /// A, the acknowledgement interval: the responder sends a "hold on" Ack when its
    /// result is not ready by then: 4 s (Kannel `L_A_WITH_USER_ACK`).
    pub ack_interval: SimDuration,
    /// W, how long a finished transaction is remembered to answer retransmissions: 30 s
    /// (Kannel `W_WITH_USER_ACK`).
    pub wait_timeout: SimDuration,
    /// MAX_RCR (8).
    pub max_rcr: u32,
    /// AEC_MAX (6).
    pub aec_max: u32,
    /// User data bytes per result segment: 576 (Kannel `SAR_SEGM_SIZE`).
    pub sar_segment_bytes: u32,
    /// Segments per group, each group acknowledged before the next is sent: 3 (Kannel
    /// `SAR_GROUP_LEN`).
    pub sar_group: u8,
}

impl Default for WtpConfig {
    fn default() -> Self {
        WtpConfig {
            initiator_retry: SimDuration::from_secs(3),
            responder_retry: SimDuration::from_secs(7),
            ack_interval: SimDuration::from_secs(4),
            wait_timeout: SimDuration::from_secs(30),
            max_rcr: MAX_RCR,
            aec_max: AEC_MAX,
            sar_segment_bytes: 576,
            sar_group: 3,
        }
    }
}

/// The most segments a result may have: the PSN is 8 bits (WTP §9.3.3).
pub const MAX_SEGMENTS: u32 = 256;

impl WtpConfig {
    /// The number of segments a result of `bytes` takes (at least one).
    pub fn segments(&self, bytes: u64) -> u64 {
        bytes
            .div_ceil(u64::from(self.sar_segment_bytes.max(1)))
            .max(1)
    }
}
