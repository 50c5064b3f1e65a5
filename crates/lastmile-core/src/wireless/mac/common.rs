//! The vocabulary every MAC shares, whichever access method it runs: the frames it puts on
//! the medium ([`MacFrame`], [`FrameKind`]), what drives it ([`MacInput`]: frames from the
//! link layer, carrier-sense indications, receptions, timeouts), what it asks of the cell
//! ([`MacOutput`]: transmissions, TULIP's / LLE-TCP's signals to the link layer,
//! deliveries) and its counters ([`MacCounters`]). The signals themselves are in
//! `wireless/signals.rs` (TULIP §3.2–3.3).

use crate::engine::SimDuration;
use crate::ids::NodeId;
use crate::wireless::phy::{PhyConfig, ACK_BYTES, CTS_BYTES, RTS_BYTES};

pub use crate::wireless::signals::MacSignal;

/// The 802.11 frame types a MAC here sends (FAMA-NCS reuses RTS and CTS with its own
/// lengths and has no ACK).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Data,
    Rts,
    Cts,
    Ack,
}

/// A MAC frame as a MAC needs to see it. `ta` is filled for CTS and ACK too (the medium
/// knows who sent them); no MAC relies on it for those.
#[derive(Clone, Debug, PartialEq)]
pub struct MacFrame<P> {
    pub kind: FrameKind,
    /// Receiver address.
    pub ra: NodeId,
    /// Transmitter address.
    pub ta: NodeId,
    /// The Duration field: how long after this frame the medium stays reserved.
    pub duration: SimDuration,
    pub seq: u16,
    pub retry: bool,
    /// The carried IP datagram's bytes (data frames; 0 otherwise).
    pub msdu_bytes: u32,
    pub payload: Option<P>,
}

impl<P> MacFrame<P> {
    /// The same frame with `f` of its payload in place of the payload (a cell's MACs carry
    /// references to its frames; its capture writes the frames they name).
    pub fn map_payload<Q>(&self, f: impl FnOnce(&P) -> Q) -> MacFrame<Q> {
        MacFrame {
            kind: self.kind,
            ra: self.ra,
            ta: self.ta,
            duration: self.duration,
            seq: self.seq,
            retry: self.retry,
            msdu_bytes: self.msdu_bytes,
            payload: self.payload.as_ref().map(f),
        }
    }

    /// Length on the air in 802.11 framing, header and FCS included (FAMA's CTS is longer:
    /// `AnyMac::frame_bytes`).
    pub fn bytes(&self) -> u32 {
        match self.kind {
            FrameKind::Data => PhyConfig::data_frame_bytes(self.msdu_bytes),
            FrameKind::Rts => RTS_BYTES,
            FrameKind::Cts => CTS_BYTES,
            FrameKind::Ack => ACK_BYTES,
        }
    }
}

/// What can happen to a station: the input of every MAC.
#[derive(Clone, Debug)]
pub enum MacInput<P> {
    /// An MSDU from the link layer, for `dst`.
    Enqueue {
        dst: NodeId,
        msdu_bytes: u32,
        payload: P,
    },
    /// The link layer's reply to the data frame just delivered, given at the instant of the
    /// `Deliver` (TULIP §3.3's MAC acceleration). FAMA-NCS sends it inside the floor if small
    /// enough, else with an immediate RTS; a MAC without floors (DCF, ideal) enqueues it.
    ReplyInFloor {
        dst: NodeId,
        msdu_bytes: u32,
        payload: P,
    },
    /// Physical carrier sense: energy from another station began.
    MediumBusy,
    /// Physical carrier sense: the medium went quiet. Deliver it after the `Received` /
    /// `RxError` of the arrival that ended at the same instant.
    MediumIdle,
    /// A frame arrived intact.
    Received(MacFrame<P>),
    /// A frame arrived corrupted (collision or FCS error).
    RxError,
    /// `poll_timeout()` has been reached.
    Timeout,
}

/// The effects of one `handle` call of any MAC.
#[derive(Clone, Debug, PartialEq)]
pub enum MacOutput<P> {
    /// Put this frame on the medium now, for `airtime`.
    StartTx {
        frame: MacFrame<P>,
        airtime: SimDuration,
    },
    Signal(MacSignal),
    /// A new (non-duplicate) MSDU for the layer above.
    Deliver {
        from: NodeId,
        msdu_bytes: u32,
        payload: P,
    },
}

/// Counters every MAC keeps (fields a MAC has no use for stay zero: FAMA-NCS has no MAC
/// ACK, so no ACK timeouts and no duplicates).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacCounters {
    /// RTS or basic-access data attempts that won contention.
    pub attempts: u64,
    /// Failed attempts that were retried.
    pub retries: u64,
    /// Frames dropped at a retry limit.
    pub drops: u64,
    pub successes: u64,
    /// Missing ACKs and CTSs: the collisions this station saw as a sender.
    pub ack_timeouts: u64,
    pub cts_timeouts: u64,
    /// Frames received in error (collisions and channel errors) as a listener.
    pub rx_errors: u64,
    /// RTS, CTS and ACK frames sent.
    pub control_frames_sent: u64,
    pub data_frames_sent: u64,
    pub delivered: u64,
    pub duplicates: u64,
}
