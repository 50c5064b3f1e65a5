//! The signals a MAC gives the link layer above it (TULIP §3.2 and §3.3, Figure 2).
//!
//! TULIP asks only two things of its MAC: `TRANS` ("the MAC layer has captured the channel and
//! the data packet received from the link layer is about to be transmitted") and `WAIT` ("the
//! MAC layer has received an RTS, and passes the sender address and the size of the packet
//! which will occupy the channel"). We add the outcome of a transmission attempt,
//! `TxSuccess` / `TxFailure`, as LLE-TCP-style link layers need it and it lets TULIP end the
//! turn of an unreliable frame that will never be acknowledged.

use crate::engine::SimDuration;
use crate::ids::NodeId;

/// A signal from the MAC to the link layer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MacSignal {
    /// TRANS: the MAC has the channel and is about to transmit the frame it was given (§3.2).
    Trans,
    /// WAIT: an RTS from `sender` was heard; its packet will occupy the channel, so hold down
    /// the next transmission for `duration` (Δt2 in Figure 1; "T2 = Δt2(RTS.data.length)" in
    /// Figure 2 — the MAC converts the announced length into time).
    Wait {
        sender: NodeId,
        duration: SimDuration,
    },
    /// The frame given to the MAC was transmitted (for MACs with a MAC-level ACK: and
    /// acknowledged).
    TxSuccess,
    /// The MAC gave up on the frame it was given (retry limit, no CTS).
    TxFailure,
}
