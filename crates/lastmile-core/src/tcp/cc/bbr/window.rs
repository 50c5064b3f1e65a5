//! BBR's control parameters (draft-cardwell-iccrg-bbr-congestion-control-00 §4.2:
//! `BBRSetPacingRate`, `BBRSetCwnd`, `BBRModulateCwndForRecovery`,
//! `BBRModulateCwndForProbeRTT`, `BBRSaveCwnd` / `BBRRestoreCwnd`) and the
//! `CongestionControl` entry points that run the model update and then set them.

use crate::engine::SimTime;

use super::super::{AckSample, CcMetrics, CcPhase, CongestionControl, CongestionWindow};
use super::{Bbr, BbrMode, Recovery};

impl Bbr {
    /// `BBRSaveCwnd`: the cwnd to come back to after recovery or ProbeRTT.
    pub(super) fn save_cwnd(&mut self) {
        self.prior_cwnd = if self.recovery.is_none() && self.mode != BbrMode::ProbeRtt {
            self.cwnd
        } else {
            self.prior_cwnd.max(self.cwnd)
        };
    }

    /// `BBRRestoreCwnd`.
    pub(super) fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// Fast recovery begins (its first ACK) or ends; a timeout's recovery ends.
    fn track_recovery(&mut self, ack: &AckSample, delivered: u64) {
        // `BBRModulateCwndForRecovery`: packets newly lost leave the window.
        if ack.lost_bytes > 0 {
            self.cwnd = self.cwnd.saturating_sub(ack.lost_bytes).max(ack.mss);
        }
        if self.entering_recovery {
            self.entering_recovery = false;
            self.cwnd = self.in_flight(ack) + delivered.max(ack.mss);
            self.packet_conservation = true;
            // Start a new round now: conservation lasts one round trip.
            self.next_round_delivered = ack.rate.total_delivered;
            self.recovery = Some(Recovery {
                point: Some(ack.snd_max),
            });
            return;
        }
        let Some(r) = self.recovery.as_mut() else {
            return;
        };
        let point = *r.point.get_or_insert(ack.snd_max);
        if ack.acked_bytes > 0 && ack.snd_una >= point {
            self.recovery = None;
            self.packet_conservation = false;
            self.restore_cwnd();
        }
    }

    /// Without SACK: counts duplicate ACKs (each a segment delivered) and keeps the rate
    /// samples an ACK that fills holes inflates out of the BtlBw filter; the bytes this ACK
    /// delivered.
    fn note_dupack_without_sack(&mut self, ack: &AckSample) -> u64 {
        // An ACK in loss recovery or right after duplicate ACKs reports at once data the
        // receiver got over the round trip before: its rate sample would overstate the
        // bandwidth, so it does not enter the BtlBw filter. So would a segment sent before
        // such an ACK: its sample spans the jump.
        let jump = self.recovery.is_some()
            || self.entering_recovery
            || (!ack.duplicate && self.dupacks > 0);
        self.sample_inflated = jump || ack.rate.prior_delivered < self.inflation_mark;
        if jump {
            self.inflation_mark = ack.rate.total_delivered;
        }
        if ack.duplicate {
            self.dupacks += 1;
            ack.mss
        } else {
            if ack.acked_bytes > 0 {
                self.dupacks = 0;
            }
            ack.acked_bytes
        }
    }

    /// `BBRSetPacingRate` (and `BBRInitPacingRate` once SRTT exists).
    fn set_pacing_rate(&mut self, ack: &AckSample) {
        if self.pacing_rate.is_none() {
            if let (Some(srtt), Some(initial)) = (ack.srtt, self.initial_cwnd) {
                let nominal = initial as f64 / srtt.as_secs_f64().max(1e-9);
                self.pacing_rate = Some((self.config.high_gain * nominal) as u64);
            }
        }
        let rate = (self.pacing_gain * self.btlbw as f64) as u64;
        if rate > 0 && (self.filled_pipe || self.pacing_rate.is_none_or(|p| rate > p)) {
            self.pacing_rate = Some(rate);
        }
    }

    /// `BBRSetCwnd` with the recovery and ProbeRTT modulations.
    fn set_cwnd(&mut self, ack: &AckSample, delivered: u64) {
        let min_pipe = u64::from(self.config.min_pipe_cwnd) * ack.mss;
        if self.packet_conservation {
            if self.round_start {
                self.packet_conservation = false;
            } else {
                self.cwnd = self.cwnd.max(self.in_flight(ack) + delivered);
            }
        }
        if !self.packet_conservation {
            let target = self.inflight(self.cwnd_gain);
            let initial = self.initial_cwnd.unwrap_or(ack.mss);
            if self.filled_pipe {
                self.cwnd = (self.cwnd + delivered).min(target);
            } else if self.cwnd < target || ack.rate.total_delivered < initial {
                self.cwnd += delivered;
            }
            self.cwnd = self.cwnd.max(min_pipe);
        }
        if self.mode == BbrMode::ProbeRtt {
            self.cwnd = self.cwnd.min(min_pipe);
        }
    }
}

impl CongestionControl for Bbr {
    fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        self.mss = ack.mss;
        if self.initial_cwnd.is_none() {
            self.initial_cwnd = Some(w.cwnd);
            self.cwnd = w.cwnd;
        }
        let delivered = if ack.pipe.is_some() {
            // With SACK the samples count SACKed data as it arrives: none is inflated.
            self.sample_inflated = false;
            ack.delivered_bytes
        } else {
            self.note_dupack_without_sack(ack)
        };
        self.track_recovery(ack, delivered);
        // BBRUpdateModelAndState.
        self.update_btlbw(ack);
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(ack) {
            self.advance_cycle_phase(ack.now);
        }
        self.check_full_pipe(ack);
        self.check_drain(ack);
        self.update_rtprop(ack);
        self.check_probe_rtt(ack);
        // BBRUpdateControlParameters.
        self.set_pacing_rate(ack);
        self.set_cwnd(ack, delivered);
        self.loss_seen = false;
        w.cwnd = self.cwnd + self.dupacks * ack.mss;
    }

    fn ssthresh_on_loss(
        &mut self,
        _now: SimTime,
        w: &CongestionWindow,
        _flight: u64,
        mss: u64,
    ) -> u64 {
        if self.initial_cwnd.is_none() {
            self.cwnd = w.cwnd;
        }
        self.loss_seen = true;
        if self.recovery.is_none() {
            self.save_cwnd();
            self.entering_recovery = true;
        }
        self.prior_cwnd.max(2 * mss)
    }

    fn on_rto(
        &mut self,
        _now: SimTime,
        w: &mut CongestionWindow,
        _flight: u64,
        mss: u64,
        _first: bool,
    ) {
        if self.initial_cwnd.is_none() {
            self.cwnd = w.cwnd;
        }
        self.save_cwnd();
        self.loss_seen = true;
        self.entering_recovery = false;
        self.packet_conservation = false;
        self.recovery = Some(Recovery { point: None });
        self.dupacks = 0;
        self.cwnd = mss;
        w.ssthresh = self.prior_cwnd.max(2 * mss);
        w.cwnd = mss;
    }

    fn on_ecn_echo(&mut self, _now: SimTime, _w: &mut CongestionWindow, _flight: u64, _mss: u64) {}

    fn pacing_rate(&self) -> Option<u64> {
        self.pacing_rate
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn metrics(&self, w: &CongestionWindow) -> CcMetrics {
        CcMetrics {
            phase: match self.mode {
                BbrMode::Startup => CcPhase::Startup,
                BbrMode::Drain => CcPhase::Drain,
                BbrMode::ProbeBw => CcPhase::ProbeBw,
                BbrMode::ProbeRtt => CcPhase::ProbeRtt,
            },
            bandwidth_bytes_per_s: (self.btlbw > 0).then_some(self.btlbw),
            min_rtt: self.rtprop,
            pacing_gain: Some(self.pacing_gain),
            ..CcMetrics::of_window(w, self.pacing_rate)
        }
    }
}
