//! The output half of a `TcpConnection`: what goes out after each input (data the window
//! allows, then a pure ACK if one is due), the SYN and SYN-ACK with the options they
//! negotiate, and every segment's header: our ACK, window and timestamps, the sending
//! half's CWR and DAASS flag, the receiving half's SACK blocks (RFC 2018 §3: four, three
//! beside timestamps) and ECE. The plain header is built in place; SACK and ECN take a
//! path of their own so that a connection without them pays nothing for them.

use super::*;

/// What the sending half sets on a segment it sends.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Marks {
    /// Congestion Window Reduced (RFC 3168 §6.1.2).
    cwr: bool,
    /// Sent in slow start (read by a DAASS receiver).
    slow_start: bool,
}

/// A segment to build: where it sits and what the sending half marks on it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Outgoing {
    seq: SeqNumber,
    control: Control,
    len: u32,
    marks: Marks,
}

impl Outgoing {
    /// A segment without data, SYN or FIN at `seq`.
    fn pure_ack(seq: SeqNumber) -> Self {
        Outgoing {
            seq,
            control: Control::None,
            len: 0,
            marks: Marks::default(),
        }
    }
}

impl TcpConnection {
    /// Sends whatever the window allows, then a pure ACK if one is still due.
    pub(super) fn output(&mut self, now: SimTime, out: &mut TcpOutbox) {
        if !self.can_send() {
            return;
        }
        while let Some(d) = self.sender.next_segment(now) {
            self.emit_data(now, d, out);
        }
        if self.should_close_passively() {
            self.request_close();
            self.update_state();
            while let Some(d) = self.sender.next_segment(now) {
                self.emit_data(now, d, out);
            }
        }
        self.sender.update_persist(now);
        if self.receiver.ack_due() {
            // 4.4BSD: a pure ACK carries SND.MAX, so it never looks older than our data.
            let seq = self.send_seq(self.sender.snd_max());
            let segment = self.build(now, Outgoing::pure_ack(seq));
            self.stats.acks_sent += 1;
            self.push(out, segment, now, false, false);
        }
    }

    pub(super) fn send_syn(&mut self, now: SimTime, retransmission: bool, out: &mut TcpOutbox) {
        let syn = Outgoing {
            control: Control::Syn,
            ..Outgoing::pure_ack(self.iss)
        };
        let mut segment = self.build(now, syn);
        let h = &mut segment.header;
        h.options.mss = Some(self.cfg.mss.min(u32::from(u16::MAX)) as u16);
        h.options.sack_blocks = Default::default();
        if self.state == TcpState::SynSent {
            h.ack = None;
            h.options.sack_permitted = self.cfg.sack;
            (h.ece, h.cwr) = (self.cfg.ecn, self.cfg.ecn);
            if self.cfg.timestamps {
                let tsval = self.sender.rtx.ts_now(now);
                h.options.timestamp = Some((tsval, 0));
            }
        } else {
            // RFC 2018 §2: SACK-permitted only on a SYN-ACK answering one.
            h.options.sack_permitted = self.sack;
            (h.ece, h.cwr) = (self.ecn, false);
        }
        if retransmission {
            self.stats.retransmits += 1;
            self.sender.rtx.cancel_timing();
        } else {
            self.sender.rtx.start_timing_syn(now);
        }
        self.sender.rtx.arm(now);
        self.push(out, segment, now, retransmission, false);
    }

    pub(super) fn emit_data(&mut self, now: SimTime, d: DataSegment, out: &mut TcpOutbox) {
        let control = if d.fin { Control::Fin } else { Control::None };
        let data = Outgoing {
            seq: self.send_seq(d.offset),
            control,
            len: d.len,
            marks: Marks {
                cwr: d.cwr,
                slow_start: d.slow_start,
            },
        };
        let segment = self.build(now, data);
        if d.len > 0 {
            self.stats.data_segments_sent += 1;
            self.stats.payload_bytes_sent += u64::from(d.len);
        }
        if d.retransmission {
            self.stats.retransmits += 1;
        }
        if self.cfg.trace && d.len > 0 {
            out.trace.push(TcpTraceEvent::Send {
                offset: d.offset,
                len: d.len,
                retransmission: d.retransmission,
            });
        }
        let origin_time = if d.len > 0 { d.origin_time } else { now };
        self.push(out, segment, origin_time, d.retransmission, d.ect);
    }

    /// Counts the segment's IP and TCP header bytes and hands it to the engine.
    fn push(
        &mut self,
        out: &mut TcpOutbox,
        segment: TcpSegment,
        origin_time: SimTime,
        is_retransmission: bool,
        ect: bool,
    ) {
        self.stats.header_bytes_sent += u64::from(IPV4_HEADER_LEN + segment.header.header_len());
        out.segments.push(OutSegment {
            segment,
            origin_time,
            is_retransmission,
            ect,
        });
    }

    /// A segment carrying our current ACK, window and timestamps and the sending half's
    /// marks; SACK blocks and ECE when those are in use.
    #[inline(always)]
    fn build(&mut self, now: SimTime, o: Outgoing) -> TcpSegment {
        if self.sack || self.ecn {
            return self.build_reporting(now, o);
        }
        self.segment(now, o, (SackBlocks::default(), false))
    }

    /// `build` with the receiving half's SACK blocks and ECE.
    #[inline(never)]
    fn build_reporting(&mut self, now: SimTime, o: Outgoing) -> TcpSegment {
        let reports = self.receiver_reports(self.timestamps);
        self.segment(now, o, reports)
    }

    #[inline(always)]
    fn segment(
        &mut self,
        now: SimTime,
        o: Outgoing,
        (sack_blocks, ece): (SackBlocks, bool),
    ) -> TcpSegment {
        let ack = self.recv_seq(self.receiver.ack_offset());
        let timestamp = self
            .timestamps
            .then(|| (self.sender.rtx.ts_now(now), self.ts_recent));
        if self.state != TcpState::SynSent {
            self.receiver.on_ack_sent();
            self.last_ack_sent = ack;
        }
        TcpSegment {
            header: TcpHeader {
                src_port: self.cfg.local_port,
                dst_port: self.cfg.remote_port,
                seq: o.seq,
                ack: Some(ack),
                control: o.control,
                window: self.receiver.advertise_window(),
                options: TcpOptions {
                    timestamp,
                    sack_blocks,
                    ..TcpOptions::default()
                },
                ece,
                cwr: o.marks.cwr,
                sender_in_slow_start: o.marks.slow_start,
            },
            payload_len: o.len,
        }
    }

    /// What the receiving half reports beyond the ACK: its SACK blocks as sequence numbers
    /// (four fit, three beside timestamps, RFC 2018 §3) and ECE (RFC 3168 §6.1.3).
    #[inline(never)]
    fn receiver_reports(&mut self, timestamps: bool) -> (SackBlocks, bool) {
        let ece = self.ecn && self.receiver.ece();
        let mut out = SackBlocks::default();
        if !self.sack {
            return (out, ece);
        }
        if self.receiver.dsack_reported() {
            self.stats.dsacks_sent += 1;
        }
        let (blocks, n) = self.receiver.sack_blocks(if timestamps { 3 } else { 4 });
        for &(start, end) in &blocks[..n] {
            out.push((self.recv_seq(start), self.recv_seq(end)));
        }
        (out, ece)
    }

    /// Stream offset → sequence number, send side (offset 0 = ISS + 1).
    pub(super) fn send_seq(&self, offset: u64) -> SeqNumber {
        self.iss + 1 + offset as u32
    }
    /// Stream offset → sequence number, receive side (offset 0 = IRS + 1).
    pub(super) fn recv_seq(&self, offset: u64) -> SeqNumber {
        self.irs + 1 + offset as u32
    }

    pub(super) fn trace_window(&mut self, out: &mut TcpOutbox) {
        if !self.cfg.trace || !self.can_send() {
            return;
        }
        let w = self.sender.window();
        if self.traced_window != Some(w) {
            self.traced_window = Some(w);
            out.trace.push(TcpTraceEvent::Window {
                cwnd: w.cwnd,
                ssthresh: w.ssthresh,
            });
        }
        self.trace_cc(out);
    }

    /// The congestion control's state, when it changed (the `cc` trace).
    #[inline(never)]
    fn trace_cc(&mut self, out: &mut TcpOutbox) {
        let m = self.cc_metrics();
        if self.traced_cc != Some(m) {
            self.traced_cc = Some(m);
            out.trace.push(TcpTraceEvent::Cc(m));
        }
    }
}
