//! WTP PDUs as header structs (WAP-224-WTP §9, the field layout as Kannel's `wtp_pdu.def`
//! gives it): Invoke, Result and Segmented Result, Ack (with the PSN of a group trailer
//! as a TPI), Negative Ack and Abort. Payload bytes are never stored, only their length;
//! WTP rides on UDP (WAP-200-WDP: "If the network supports IP, then UDP is used", survey
//! §2.3), so a PDU's datagram is 8 bytes of UDP header, the WTP header and the user data.
//!
//! **The TID** is 16 bits; its top bit tells the direction (WTP §10.4.3: a responder sends
//! the initiator's TID with the top bit flipped, Kannel `rcv_tid`). Here `tid` is the
//! transaction's 15-bit number and `from_responder` carries the bit.
//!
//! **The request's content.** lastmile's payloads have no content, but a WAP gateway must
//! know when the origin server's response is complete before it can send the Result (an
//! HTTP response says so in its Content-Length header). lastmile's request/response
//! application asks for an object of a stated size, so an Invoke carries, as the content
//! of its user data, `reply_bytes`: the size of the object requested. Nothing else reads it.
//!
//! Left out: the TPIs other than the PSN (version, TIDnew, info), concatenated PDUs, and
//! segmented Invokes (requests travel in one PDU; `transport::check` refuses a larger one).

use crate::packet::UDP_HEADER_LEN;

/// The WSP/WTP connection-oriented port (IANA; Wireshark `packet-wap.h`).
pub const WTP_PORT: u16 = 9201;

/// The top bit of the TID: set in PDUs the responder sends (WTP §10.4.3).
pub const RESPONDER_TID_BIT: u16 = 0x8000;

/// WTP transaction classes (WTP §5.2; Kannel `wtp.h`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TransactionClass {
    /// Unreliable invoke, no result.
    Class0,
    /// Reliable invoke, no result.
    Class1,
    /// Reliable invoke with one reliable result: the class WSP's methods use.
    Class2,
}

/// Why a transaction was aborted (WTP §9.3.4; Kannel `wtp.h`, provider abort codes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AbortReason {
    /// The peer did not answer within the retransmission limit (NORESPONSE).
    NoResponse,
    /// The result needs more segments than the 8-bit PSN numbers (MESSAGETOOLARGE).
    MessageTooLarge,
}

/// What a PDU is, with the fields of its type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WtpPduKind {
    /// Starts a transaction. `request_bytes` of user data; `reply_bytes` is the size of
    /// the object the request asks for (module notes).
    Invoke {
        class: TransactionClass,
        /// U/P: the responder waits for its user's acknowledgement (false: the provider
        /// acknowledges).
        user_ack: bool,
        request_bytes: u32,
        reply_bytes: u32,
    },
    /// The result, or one segment of it (`psn` > 0: a Segmented Result PDU). `gtr`: the
    /// last segment of a group (group trailer); `ttr`: the last segment of the message
    /// (transmission trailer).
    Result {
        psn: u8,
        gtr: bool,
        ttr: bool,
        bytes: u32,
    },
    /// Acknowledges an Invoke (the "hold on" before the result) or a Result; `psn` (a TPI)
    /// names the group trailer acknowledged in a segmented result. `tid_verify` marks a
    /// TID-verification Ack (never sent here; WTP §8.8).
    Ack { tid_verify: bool, psn: Option<u8> },
    /// Asks for the segments of a group that did not arrive: bit `i` of `missing` set
    /// means segment `first + i`.
    Nack { first: u8, missing: u32 },
    /// Ends the transaction.
    Abort { reason: AbortReason },
}

/// One WTP PDU in its UDP datagram.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WtpPdu {
    pub src_port: u16,
    pub dst_port: u16,
    /// The transaction's 15-bit TID.
    pub tid: u16,
    /// Sent by the responder: the TID's top bit set on the wire.
    pub from_responder: bool,
    /// RID, the retransmission indicator: set on every copy after the first.
    pub rid: bool,
    pub kind: WtpPduKind,
}

impl WtpPdu {
    /// The TID as it is on the wire, direction bit included.
    pub fn wire_tid(&self) -> u16 {
        if self.from_responder {
            self.tid | RESPONDER_TID_BIT
        } else {
            self.tid & !RESPONDER_TID_BIT
        }
    }

    /// The WTP header's length in bytes (WTP §9.2: 4 for an Invoke, 3 for a Result, 4 for
    /// a Segmented Result, 3 for an Ack plus a 2-byte PSN TPI, 4 plus one per missing PSN
    /// for a Negative Ack, 4 for an Abort).
    pub fn header_len(&self) -> u32 {
        match self.kind {
            WtpPduKind::Invoke { .. } | WtpPduKind::Abort { .. } => 4,
            WtpPduKind::Result { psn: 0, .. } => 3,
            WtpPduKind::Result { .. } => 4,
            WtpPduKind::Ack { psn, .. } => 3 + if psn.is_some() { 2 } else { 0 },
            WtpPduKind::Nack { missing, .. } => 4 + missing.count_ones(),
        }
    }

    /// User data bytes.
    pub fn payload_len(&self) -> u32 {
        match self.kind {
            WtpPduKind::Invoke { request_bytes, .. } => request_bytes,
            WtpPduKind::Result { bytes, .. } => bytes,
            _ => 0,
        }
    }

    /// The UDP datagram's length: UDP header, WTP header and user data.
    pub fn datagram_len(&self) -> u32 {
        UDP_HEADER_LEN + self.header_len() + self.payload_len()
    }

    /// True for the PDUs whose loss WTP repairs (they carry user data).
    pub fn carries_data(&self) -> bool {
        self.payload_len() > 0
    }
}
