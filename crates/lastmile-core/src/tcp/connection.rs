//! One TCP endpoint: RFC 9293 states, the three-way handshake, FIN teardown, and the
//! dispatch of each arriving segment to the sending half (`sender.rs`, the ACK fields) and
//! the receiving half (`receiver.rs`, the data and FIN). Both directions are symmetric:
//! either side may send data.
//!
//! * **Handshake** (RFC 9293 §3.5): SYN with the MSS option (and timestamps when
//!   enabled), SYN-ACK, ACK. SYN and SYN-ACK are retransmitted by the retransmission timer
//!   with exponential backoff, without limit; a repeated SYN in SYN-RECEIVED is answered
//!   by resending the SYN-ACK, a repeated SYN-ACK by an ACK. The SYN is timed (one RTT
//!   sample unless it was retransmitted, Karn). The effective SMSS is min(our MSS, the
//!   peer's MSS option, 536 if absent) (RFC 9293 §3.7.1). Timestamps are used only if both
//!   SYNs carry them (RFC 7323 §3.2), SACK only if both carry SACK-permitted (RFC 2018 §2).
//!   ECN (RFC 3168 §6.1.1): an ECN-setup SYN carries ECE and CWR, an ECN-setup SYN-ACK ECE
//!   alone; ECN is in use when both were sent. IW is `initial_window` (a number of
//!   segments, RFC 3390's or RFC 6928's rule), or 1·SMSS if the SYN or SYN-ACK had to be
//!   retransmitted (RFC 5681 §3.1).
//! * **SACK blocks** travel as stream offsets inside the endpoint: the receiving half's
//!   blocks become sequence numbers on every segment we send (3 beside timestamps, else 4),
//!   and the blocks of an arriving ACK become offsets for the sending half (a block outside
//!   [SND.UNA − 2^31, SND.MAX] is dropped).
//! * **ECN marks** arrive with the segment (`on_segment_marked`: CE in its IP header);
//!   ECE goes on every segment we send while the receiving half echoes, CWR and ECT on
//!   the data segments the sending half marks.
//! * **Sequence numbers** appear only here: the stream is counted in `u64` offsets
//!   (0 = ISN + 1) and converted with wrapping arithmetic relative to SND.UNA / RCV.NXT.
//! * **Teardown** (RFC 9293 §3.6): `app_close` enters FIN-WAIT-1 (or LAST-ACK from
//!   CLOSE-WAIT) at once, and the FIN is sent after all written data (`sender.rs`) and
//!   retransmitted like data. A passive endpoint (`listen`) closes its own half by itself
//!   (CLOSE-WAIT → LAST-ACK) once the peer's FIN has arrived and all the data it was given
//!   has been sent once, since lastmile's applications are one-way. TIME-WAIT is entered
//!   but never left (no 2·MSL timer): `is_finished()` is true once our FIN is acknowledged
//!   and the peer's FIN received, and an endpoint in TIME-WAIT still re-acknowledges a
//!   retransmitted FIN, so the engine should keep feeding it segments.
//! * **Window updates** follow RFC 9293 §3.10.7.4 (SND.WL1 / SND.WL2). An ACK beyond
//!   SND.MAX is answered with an ACK and the segment dropped; an ACK below SND.UNA is
//!   ignored but the segment's data is processed.
//! * **Timestamps** (RFC 7323 §4.3): TS.Recent takes the TSval of a segment starting at or
//!   before the last ACK we sent, so a delayed ACK echoes the earliest unacknowledged
//!   segment and an ACK for a retransmission echoes the retransmission. With `ts_echo =
//!   "segment"` every segment's TSval becomes the one echoed, however old (ns's TCPSink):
//!   a segment a base station held back behind a newer one then shows its age to the
//!   sender (WTCP §3.1).
//!
//! Left out: simultaneous open, RST generation (a received RST just closes), PAWS,
//! urgent data, keep-alives, window scaling, the 2·MSL timer, user timeouts.

mod output;

use super::api::*;
use super::cc::{CcMetrics, CongestionControl, CongestionWindow};
use super::receiver::Receiver;
use super::recovery::{LossRecovery, RecoveryOptions};
use super::rtt::{RetransmitTimer, RttSample};
use super::sender::{AckInput, DataSegment, Negotiated, Sender};
use super::spec::TsEcho;
use crate::engine::{SimDuration, SimTime};
use crate::packet::{
    Control, ExplicitNotice, SackBlocks, SeqNumber, TcpHeader, TcpOptions, TcpSegment,
    IPV4_HEADER_LEN,
};

/// RFC 9293 §3.7.1: the send MSS when the peer sends no MSS option.
const DEFAULT_PEER_MSS: u64 = 536;

/// The earlier of two optional deadlines.
#[inline]
fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Where an arriving ACK number falls relative to the send sequence space.
enum AckPosition {
    /// Below SND.UNA: an old duplicate.
    Old,
    /// In [SND.UNA, SND.MAX]: the stream offset it acknowledges up to.
    Valid(u64),
    /// Beyond anything sent.
    Future,
}

/// One TCP connection endpoint.
#[derive(Clone, Debug)]
pub struct TcpConnection {
    cfg: TcpConfig,
    state: TcpState,
    /// Opened with `listen`: closes automatically after the peer's FIN.
    passive: bool,
    iss: SeqNumber,
    irs: SeqNumber,
    sender: Sender,
    receiver: Receiver,
    stats: TcpStats,
    close_requested: bool,
    /// We closed before the peer's FIN arrived (FIN-WAIT / CLOSING rather than LAST-ACK).
    closed_first: bool,
    syn_retransmitted: bool,
    peer_mss: Option<u64>,
    timestamps: bool,
    /// Both SYNs carried SACK-permitted.
    sack: bool,
    /// ECN setup completed on the SYNs.
    ecn: bool,
    ts_recent: u32,
    last_ack_sent: SeqNumber,
    snd_wl1: SeqNumber,
    snd_wl2: SeqNumber,
    traced_window: Option<CongestionWindow>,
    pub(super) traced_cc: Option<CcMetrics>,
}

impl TcpConnection {
    /// A closed endpoint; `connect` or `listen` opens it.
    pub fn new(cfg: TcpConfig) -> Self {
        let mss = u64::from(cfg.mss.max(1));
        let mut rtx = RetransmitTimer::new(
            cfg.timer_granularity,
            cfg.initial_rto,
            cfg.min_rto,
            cfg.max_rto,
        );
        rtx.set_max_backoff(cfg.max_backoff);
        rtx.set_estimator(cfg.rtt_estimator);
        let ssthresh = cfg.initial_ssthresh_bytes.map_or(u64::MAX, u64::from);
        let options = RecoveryOptions {
            limited_transmit: cfg.limited_transmit,
            prr: cfg.prr,
            rack: cfg.rack,
            keep_sack_after_timeout: cfg.keep_sack_after_timeout,
            ssthresh_rule: cfg.ssthresh_rule,
        };
        let recovery = LossRecovery::with_options(cfg.recovery, cfg.dupack_threshold, options)
            .with_fast_retransmit_after_timeout(cfg.fast_retransmit_after_timeout);
        let cc = cfg.cc.build(cfg.cc_options);
        let mut sender = Sender::new(mss, ssthresh, cc, recovery, rtx);
        sender.tracing = cfg.trace;
        sender.set_eln(cfg.eln);
        let receiver = Receiver::new(
            u64::from(cfg.rwnd_bytes),
            cfg.ack_policy,
            cfg.delack_timeout,
        );
        let iss = SeqNumber(cfg.isn);
        TcpConnection {
            cfg,
            state: TcpState::Closed,
            passive: false,
            iss,
            irs: SeqNumber(0),
            sender,
            receiver,
            stats: TcpStats::default(),
            close_requested: false,
            closed_first: false,
            syn_retransmitted: false,
            peer_mss: None,
            timestamps: false,
            sack: false,
            ecn: false,
            ts_recent: 0,
            last_ack_sent: SeqNumber(0),
            snd_wl1: SeqNumber(0),
            snd_wl2: iss,
            traced_window: None,
            traced_cc: None,
        }
    }

    /// Active open now: emits the SYN.
    pub fn connect(&mut self, now: SimTime, out: &mut TcpOutbox) {
        if self.state == TcpState::Closed {
            self.state = TcpState::SynSent;
            self.send_syn(now, false, out);
        }
    }

    /// Passive open.
    pub fn listen(&mut self) {
        if self.state == TcpState::Closed {
            self.state = TcpState::Listen;
            self.passive = true;
        }
    }

    /// A segment from the peer arrived; `origin_time` is the one the packet carried.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        origin_time: SimTime,
        out: &mut TcpOutbox,
    ) {
        self.on_segment_marked(now, seg, false, origin_time, out);
    }

    /// A segment arrived whose IP header says congestion experienced (`ce`, RFC 3168 §5).
    pub fn on_segment_marked(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        ce: bool,
        origin_time: SimTime,
        out: &mut TcpOutbox,
    ) {
        if seg.header.options.notice == ExplicitNotice::BadState {
            self.on_bad_state(now);
            return;
        }
        if self.ecn {
            self.note_ecn(seg, ce);
        }
        if seg.header.control == Control::Rst {
            self.on_reset();
            return;
        }
        match self.state {
            TcpState::Closed => {}
            TcpState::Listen => self.on_segment_listen(now, seg, out),
            TcpState::SynSent => self.on_segment_syn_sent(now, seg, out),
            _ => self.on_segment_synchronized(now, seg, origin_time, out),
        }
        self.trace_window(out);
    }

    /// The deadline returned by `poll_timeout` was reached.
    pub fn on_timeout(&mut self, now: SimTime, out: &mut TcpOutbox) {
        if self.sender.rtx.deadline().is_some_and(|t| t <= now) {
            self.on_retransmit_timer(now, out);
        }
        if self.sender.persist_deadline().is_some_and(|t| t <= now) {
            if let Some(probe) = self.sender.on_persist(now) {
                self.stats.persist_probes += 1;
                self.emit_data(now, probe, out);
            }
        }
        if self.sender.recovery_deadline().is_some_and(|t| t <= now) {
            self.sender.on_recovery_timer(now);
        }
        self.receiver.on_delack_timer(now);
        self.sender.on_pacing_deadline(now);
        self.output(now, out);
        self.trace_window(out);
    }

    /// The earliest time at which `on_timeout` must be called: a timer, or the release
    /// time of a segment held back by pacing.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let timers = earliest(
            earliest(self.sender.rtx.deadline(), self.sender.persist_deadline()),
            earliest(
                self.receiver.delack_deadline(),
                self.sender.recovery_deadline(),
            ),
        );
        earliest(timers, self.sender.pacing_deadline())
    }

    /// The application makes `bytes` more bytes available to send.
    pub fn app_write(&mut self, now: SimTime, bytes: u64, out: &mut TcpOutbox) {
        self.sender.write(bytes);
        self.output(now, out);
    }

    /// The application will write nothing more: send FIN once all data is out.
    pub fn app_close(&mut self, now: SimTime, out: &mut TcpOutbox) {
        match self.state {
            TcpState::Closed | TcpState::Listen => self.state = TcpState::Closed,
            _ if self.close_requested => {}
            _ => {
                self.request_close();
                self.update_state();
                self.output(now, out);
            }
        }
    }

    pub fn state(&self) -> TcpState {
        self.state
    }
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    /// True once our FIN is acknowledged and the peer's FIN received (TIME-WAIT, or
    /// CLOSED after LAST-ACK).
    pub fn is_finished(&self) -> bool {
        self.sender.fin_acked() && self.receiver.fin_received()
    }

    /// cwnd and ssthresh in bytes (ssthresh `u64::MAX` = unlimited).
    pub fn congestion_window(&self) -> CongestionWindow {
        self.sender.window()
    }
    /// The congestion control's state: cwnd, ssthresh, pacing rate, its estimates.
    pub fn cc_metrics(&self) -> CcMetrics {
        self.sender
            .congestion_control()
            .metrics(&self.sender.window())
    }
    /// The congestion control's name, as a scenario writes it (`tcp.cc`).
    pub fn cc_name(&self) -> &'static str {
        self.sender.congestion_control().name()
    }

    /// The current RTO, backoff included.
    pub fn rto(&self) -> SimDuration {
        self.sender.rtx.current_rto()
    }
    /// The largest RTO without backoff the connection has used, the initial one included.
    pub fn largest_base_rto(&self) -> SimDuration {
        self.sender.rtx.largest_base_rto()
    }
    /// The smoothed RTT, once there is a sample.
    pub fn srtt(&self) -> Option<SimDuration> {
        self.sender.rtx.srtt()
    }
    pub fn rttvar(&self) -> SimDuration {
        self.sender.rtx.rttvar()
    }
    /// True while in Reno / NewReno fast recovery (SACK and FACK: loss recovery).
    pub fn in_fast_recovery(&self) -> bool {
        self.sender.recovery().in_recovery()
    }
    /// The loss recovery's state: its variant, the scoreboard, RFC 6675's pipe, PRR.
    pub fn loss_recovery(&self) -> &LossRecovery {
        self.sender.recovery()
    }
    /// True once SACK-permitted was exchanged on the SYNs (RFC 2018 §2).
    pub fn sack_in_use(&self) -> bool {
        self.sack
    }
    /// True once ECN setup completed on the SYNs (RFC 3168 §6.1.1).
    pub fn ecn_in_use(&self) -> bool {
        self.ecn
    }
    /// Bytes sent and not yet acknowledged (RFC 5681 FlightSize).
    pub fn bytes_in_flight(&self) -> u64 {
        self.sender.snd_max() - self.sender.snd_una()
    }
    /// The peer's advertised window as last accepted (SND.WND).
    pub fn peer_window(&self) -> u64 {
        self.sender.snd_wnd()
    }
    /// The application has not yet consumed `bytes` of the data delivered to it (a relay's
    /// buffer, e.g. I-TCP's base station): the advertised window is the buffer's free
    /// space, zero until a full segment fits (`receiver.rs`), and a window update is sent
    /// when it reopens.
    pub fn set_receive_backlog(&mut self, now: SimTime, bytes: u64, out: &mut TcpOutbox) {
        let mss = u64::from(self.cfg.mss.max(1));
        if self.receiver.set_backlog(bytes, mss) && self.can_send() {
            self.receiver.request_ack();
            self.output(now, out);
        }
    }
    /// Bytes the application wrote that the peer has not acknowledged yet.
    pub fn unacknowledged_bytes(&self) -> u64 {
        self.sender.written().saturating_sub(self.sender.snd_una())
    }
    /// True once the peer's FIN has been received.
    pub fn peer_closed(&self) -> bool {
        self.receiver.fin_received()
    }
    /// Bytes held out of order by the receiving half.
    pub fn bytes_held_out_of_order(&self) -> u64 {
        self.receiver.held().bytes()
    }

    // ---- receiver hooks for mobility (docs/mobility.md) --------------------------------

    /// Sends `copies` pure ACKs now, each with the current ACK number and window: Cáceres &
    /// Iftode's duplicate ACKs when a handoff completes (the survey §2.4.4.5), Freeze-TCP's
    /// copies of the last ACK on reconnection. Nothing before the connection is
    /// established.
    pub fn send_acks(&mut self, now: SimTime, copies: u32, out: &mut TcpOutbox) {
        if !self.can_send() {
            return;
        }
        for _ in 0..copies {
            self.receiver.request_ack();
            self.output(now, out);
        }
    }

    /// Freeze-TCP (Goff et al., INFOCOM 2000): from now on advertise a zero window, and say
    /// so at once (the zero window advertisement), so that the sender persists instead of
    /// timing out while the mobile is out of reach.
    pub fn freeze(&mut self, now: SimTime, out: &mut TcpOutbox) {
        self.receiver.set_frozen(true);
        self.send_acks(now, 1, out);
    }

    /// Freeze-TCP on reconnection: the real window again, announced by `copies` copies of
    /// the ACK for the last segment received.
    pub fn unfreeze(&mut self, now: SimTime, copies: u32, out: &mut TcpOutbox) {
        self.receiver.set_frozen(false);
        self.send_acks(now, copies, out);
    }

    /// True while advertising a zero window on purpose (`freeze`).
    pub fn is_frozen(&self) -> bool {
        self.receiver.is_frozen()
    }

    // ---- arriving segments -------------------------------------------------------------

    /// An EBSN message (Bakshi et al.): with `ebsn` on, and data outstanding in a
    /// synchronized state, the retransmission timer restarts (`sender/notices.rs`). It is
    /// no segment of the peer's: nothing else reads it.
    fn on_bad_state(&mut self, now: SimTime) {
        if self.cfg.ebsn && self.can_send() && self.sender.on_bad_state(now) {
            self.stats.bad_state_notices += 1;
        }
    }

    fn on_reset(&mut self) {
        if !matches!(self.state, TcpState::Closed | TcpState::Listen) {
            self.state = TcpState::Closed;
            self.sender.rtx.stop();
        }
    }

    fn on_segment_listen(&mut self, now: SimTime, seg: &TcpSegment, out: &mut TcpOutbox) {
        let h = &seg.header;
        if h.control != Control::Syn || h.ack.is_some() {
            return;
        }
        self.learn_peer_syn(seg);
        self.state = TcpState::SynReceived;
        self.send_syn(now, false, out);
    }

    fn on_segment_syn_sent(&mut self, now: SimTime, seg: &TcpSegment, out: &mut TcpOutbox) {
        let h = &seg.header;
        if h.control != Control::Syn || h.ack != Some(self.iss + 1) {
            return;
        }
        self.learn_peer_syn(seg);
        self.snd_wl1 = h.seq;
        self.snd_wl2 = self.iss + 1;
        self.take_syn_sample(now, seg, out);
        self.establish(u64::from(h.window));
        self.receiver.request_ack();
        self.output(now, out);
    }

    /// RFC 3168 §6.1.3 at the receiving half: a CE-marked data segment starts the echo, CWR
    /// ends it.
    #[inline(never)]
    fn note_ecn(&mut self, seg: &TcpSegment, ce: bool) {
        let marked = ce && seg.payload_len > 0;
        self.stats.ce_received += u64::from(marked);
        self.receiver.on_ecn(marked, seg.header.cwr);
    }

    /// Records what the peer's SYN says: IRS, MSS, timestamps, SACK-permitted, ECN setup.
    fn learn_peer_syn(&mut self, seg: &TcpSegment) {
        let h = &seg.header;
        self.irs = h.seq;
        self.last_ack_sent = h.seq + 1;
        self.peer_mss = h.options.mss.map(u64::from);
        self.timestamps = self.cfg.timestamps && h.options.timestamp.is_some();
        self.sack = self.cfg.sack && h.options.sack_permitted;
        // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR, the SYN-ACK ECE only.
        let setup = match h.ack {
            None => h.ece && h.cwr,
            Some(_) => h.ece && !h.cwr,
        };
        self.ecn = self.cfg.ecn && setup;
        if let Some((tsval, _)) = h.options.timestamp {
            self.ts_recent = tsval;
        }
    }

    fn take_syn_sample(&mut self, now: SimTime, seg: &TcpSegment, out: &mut TcpOutbox) {
        let echo = seg.header.options.timestamp.map(|(_, ecr)| ecr);
        let sample: Option<RttSample> = match (self.timestamps, echo) {
            (true, Some(ecr)) => self.sender.rtx.sample_from_echo(now, ecr),
            _ => self.sender.rtx.sample_on_ack(now, 0),
        };
        if let Some(s) = sample {
            self.sender.on_sample(s, &mut out.trace);
        }
        self.sender.rtx.stop();
    }

    /// The handshake completed.
    fn establish(&mut self, peer_window: u64) {
        let mss = u64::from(self.cfg.mss.max(1)).min(self.peer_mss.unwrap_or(DEFAULT_PEER_MSS));
        let initial_window = if self.syn_retransmitted {
            mss
        } else {
            self.cfg.initial_window.bytes(mss)
        };
        self.sender.on_established(&Negotiated {
            mss,
            initial_window,
            peer_window,
            timestamps: self.timestamps,
            sack: self.sack,
            ecn: self.ecn,
        });
        if self.sack {
            self.receiver.enable_sack(self.cfg.dsack);
        }
        self.state = TcpState::Established;
        self.update_state();
    }

    fn on_segment_synchronized(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        origin_time: SimTime,
        out: &mut TcpOutbox,
    ) {
        let h = &seg.header;
        if h.control == Control::Syn {
            self.on_repeated_syn(now, seg, out);
            return;
        }
        self.update_ts_recent(seg);
        let Some(ack) = h.ack else { return };
        if self.state == TcpState::SynReceived {
            if ack != self.iss + 1 {
                return;
            }
            self.snd_wl1 = h.seq;
            self.snd_wl2 = ack;
            self.take_syn_sample(now, seg, out);
            self.establish(u64::from(h.window));
        }
        match self.ack_position(ack) {
            AckPosition::Future => {
                self.receiver.request_ack();
                self.output(now, out);
                return;
            }
            AckPosition::Old => {}
            AckPosition::Valid(offset) => self.process_ack(now, seg, offset, out),
        }
        self.process_data(now, seg, origin_time, out);
        self.update_state();
        self.output(now, out);
    }

    /// A SYN in a synchronized state: our SYN-ACK or our ACK of theirs was lost.
    fn on_repeated_syn(&mut self, now: SimTime, seg: &TcpSegment, out: &mut TcpOutbox) {
        if self.state == TcpState::SynReceived && seg.header.ack.is_none() {
            self.send_syn(now, true, out);
        } else {
            self.receiver.request_ack();
            self.output(now, out);
        }
    }

    /// RFC 7323 §4.3 (2): TS.Recent from a segment at or before Last.ACK.sent.
    fn update_ts_recent(&mut self, seg: &TcpSegment) {
        let Some((tsval, _)) = seg.header.options.timestamp else {
            return;
        };
        if self.timestamps && self.cfg.ts_echo == TsEcho::Segment {
            self.ts_recent = tsval;
            return;
        }
        let newer = tsval.wrapping_sub(self.ts_recent) as i32 >= 0;
        if self.timestamps && newer && seg.header.seq <= self.last_ack_sent {
            self.ts_recent = tsval;
        }
    }

    fn ack_position(&self, ack: SeqNumber) -> AckPosition {
        let una = self.sender.snd_una();
        let d = i64::from(ack.wrapping_diff(self.send_seq(una)));
        if d < 0 {
            return AckPosition::Old;
        }
        let offset = una + d as u64;
        if offset > self.sender.snd_max() {
            AckPosition::Future
        } else {
            AckPosition::Valid(offset)
        }
    }

    fn process_ack(&mut self, now: SimTime, seg: &TcpSegment, offset: u64, out: &mut TcpOutbox) {
        let h = &seg.header;
        let ack = h.ack.unwrap_or(self.snd_wl2);
        // RFC 9293 §3.10.7.4: only a newer segment updates the send window.
        let window_update = self.snd_wl1 < h.seq || (self.snd_wl1 == h.seq && self.snd_wl2 <= ack);
        if window_update {
            self.snd_wl1 = h.seq;
            self.snd_wl2 = ack;
        }
        let input = AckInput {
            ack: offset,
            window: u64::from(h.window),
            window_update,
            occupies_sequence: seg.seq_len() > 0,
            ts_ecr: h.options.timestamp.map(|(_, ecr)| ecr),
            sack: &[],
            ece: h.ece,
            eln: h.options.notice == ExplicitNotice::LossNotification,
        };
        if self.cfg.trace {
            out.trace.push(TcpTraceEvent::Ack { offset });
        }
        let fast_retransmit = if self.sack && !h.options.sack_blocks.is_empty() {
            self.on_ack_with_sack(now, h, input, out)
        } else {
            self.sender.on_ack(now, &input, &mut out.trace)
        };
        if fast_retransmit {
            self.stats.fast_retransmits += 1;
        }
        self.stats.eln_retransmits = self.sender.eln_retransmissions();
        if self.ecn {
            self.stats.ecn_reductions = self.sender.ecn_reductions;
        }
    }

    /// The sending half takes an ACK with its SACK blocks as stream offsets of our data:
    /// each edge taken relative to SND.UNA; blocks reaching below SND.UNA − 2^31 or beyond
    /// SND.MAX are dropped.
    #[inline(never)]
    fn on_ack_with_sack(
        &mut self,
        now: SimTime,
        h: &TcpHeader,
        input: AckInput,
        out: &mut TcpOutbox,
    ) -> bool {
        let una = self.sender.snd_una();
        let una_seq = self.send_seq(una);
        let snd_max = self.sender.snd_max();
        let to_offset = |s: SeqNumber| -> Option<u64> {
            let o = una as i64 + i64::from(s.wrapping_diff(una_seq));
            (o >= 0 && o as u64 <= snd_max).then_some(o as u64)
        };
        let mut blocks = [(0, 0); SackBlocks::MAX];
        let mut n = 0;
        for &(left, right) in h.options.sack_blocks.as_slice() {
            if let (Some(l), Some(r)) = (to_offset(left), to_offset(right)) {
                if l < r {
                    blocks[n] = (l, r);
                    n += 1;
                }
            }
        }
        let input = AckInput {
            sack: &blocks[..n],
            ..input
        };
        self.sender.on_ack(now, &input, &mut out.trace)
    }

    fn process_data(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        origin_time: SimTime,
        out: &mut TcpOutbox,
    ) {
        let fin = seg.header.control == Control::Fin;
        if seg.payload_len == 0 && !fin {
            // A pure ACK carries nothing for the receiving half.
            return;
        }
        let rcv_nxt = self.receiver.rcv_nxt();
        let start =
            rcv_nxt as i64 + i64::from(seg.header.seq.wrapping_diff(self.recv_seq(rcv_nxt)));
        self.receiver
            .note_sender_state(seg.header.sender_in_slow_start);
        let delivered = self.receiver.on_segment(
            now,
            start,
            seg.payload_len,
            fin,
            origin_time,
            &mut out.delivered,
        );
        self.stats.bytes_delivered += delivered;
    }

    // ---- state -------------------------------------------------------------------------

    fn request_close(&mut self) {
        self.close_requested = true;
        self.closed_first = !self.receiver.fin_received();
        self.sender.close();
    }

    /// Derives the RFC 9293 state of a synchronized connection from who has closed and
    /// which FINs have been acknowledged.
    fn update_state(&mut self) {
        use TcpState::*;
        if matches!(self.state, Closed | Listen | SynSent | SynReceived) {
            return;
        }
        let peer_fin = self.receiver.fin_received();
        if !self.close_requested && !peer_fin {
            self.state = Established;
            return;
        }
        self.state = match (self.close_requested, self.sender.fin_acked(), peer_fin) {
            (false, _, false) => Established,
            (false, _, true) => CloseWait,
            (true, false, false) => FinWait1,
            (true, true, false) => FinWait2,
            (true, false, true) if self.closed_first => Closing,
            (true, false, true) => LastAck,
            (true, true, true) if self.closed_first => TimeWait,
            (true, true, true) => Closed,
        };
    }

    /// A passive endpoint closes its half once the peer's FIN has arrived and all its own
    /// data has been sent (lastmile's applications are one-way).
    fn should_close_passively(&self) -> bool {
        self.passive
            && !self.close_requested
            && self.receiver.fin_received()
            && self.sender.snd_max() >= self.sender.written()
    }

    fn can_send(&self) -> bool {
        !matches!(
            self.state,
            TcpState::Closed | TcpState::Listen | TcpState::SynSent | TcpState::SynReceived
        )
    }

    // ---- timers ------------------------------------------------------------------------

    fn on_retransmit_timer(&mut self, now: SimTime, out: &mut TcpOutbox) {
        match self.state {
            TcpState::SynSent | TcpState::SynReceived => {
                self.stats.timeouts += 1;
                self.syn_retransmitted = true;
                self.sender.rtx.back_off();
                if self.cfg.trace {
                    out.trace.push(self.sender.rtx.backoff_trace());
                }
                self.send_syn(now, true, out);
            }
            _ if self.can_send() => {
                if self.sender.on_rto(now, &mut out.trace) {
                    self.stats.timeouts += 1;
                }
            }
            _ => self.sender.rtx.stop(),
        }
    }
}
