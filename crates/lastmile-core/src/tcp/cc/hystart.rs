//! HyStart++ (RFC 9406, "HyStart++: Modified Slow Start for TCP", 2023), in bytes: the
//! initial slow start leaves for Conservative Slow Start (CSS) when the round's smallest RTT
//! rises by a threshold over the previous round's, and CSS leaves for congestion avoidance
//! after a few rounds, before the window has overshot the path by a whole window.
//!
//! * **Rounds** (§4.2): a round ends when SND.UNA passes the SND.NXT of its start
//!   (`estimators::Rounds`). At each round's start lastRoundMinRTT = currentRoundMinRTT,
//!   currentRoundMinRTT = ∞, rttSampleCount = 0.
//! * **Slow start**: each ACK adds min(N, L·SMSS) (N the bytes it newly acknowledges;
//!   L = 8, or unlimited when the sender paces) and records its RTT sample. Once a round has
//!   N_RTT_SAMPLE = 8 samples and both minima exist, RttThresh = clamp(lastRoundMinRTT /
//!   MIN_RTT_DIVISOR (8), MIN_RTT_THRESH (4 ms), MAX_RTT_THRESH (16 ms)); if
//!   currentRoundMinRTT ≥ lastRoundMinRTT + RttThresh, cssBaselineMinRtt =
//!   currentRoundMinRTT and CSS begins.
//! * **CSS**: each ACK adds min(N, L·SMSS) / CSS_GROWTH_DIVISOR (4). With N_RTT_SAMPLE
//!   samples in a round and currentRoundMinRTT < cssBaselineMinRtt the exit was spurious:
//!   back to slow start. After CSS_ROUNDS = 5 rounds (the partial round CSS began in
//!   counts), congestion avoidance: ssthresh = cwnd.
//! * **Only the initial slow start** (§4.3's SHOULD): a loss, an ECN echo or a timeout at
//!   any time ends it, and later slow starts are the congestion control's own.
//!
//! RTT samples are `AckSample::latest_rtt`: one per ACK of new data, from the newest
//! segment it acknowledges when that was never retransmitted (Karn), as Linux feeds its
//! HyStart. Left out: nothing of §4.2; ns-3 and Linux ship the original HyStart (Ha &
//! Rhee, 2011: ACK trains and a delay threshold of clamp(minRTT/8, 4 ms, 16 ms) on 8
//! samples) instead, which `docs/congestion-control.md` compares.

use crate::engine::SimDuration;

use super::estimators::Rounds;
use super::{AckSample, CongestionWindow};

/// RFC 9406 §4.2's constants.
const MIN_RTT_THRESH: SimDuration = SimDuration::from_millis(4);
const MAX_RTT_THRESH: SimDuration = SimDuration::from_millis(16);
const MIN_RTT_DIVISOR: u64 = 8;
const N_RTT_SAMPLE: u32 = 8;
const CSS_GROWTH_DIVISOR: u64 = 4;
const CSS_ROUNDS: u32 = 5;
/// L for a sender that does not pace, segments.
const L_NON_PACED: u64 = 8;

/// Where the initial slow start is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum HyStartPhase {
    /// Standard slow start, watching the RTT.
    SlowStart,
    /// Conservative Slow Start since the RTT rose to `baseline`; `rounds` ended since.
    Css { baseline: SimDuration, rounds: u32 },
    /// HyStart++ is over (congestion avoidance was entered, or a loss ended slow start).
    Done,
}

/// HyStart++'s state for one connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HyStartPp {
    phase: HyStartPhase,
    rounds: Rounds,
    last_round_min: Option<SimDuration>,
    current_round_min: Option<SimDuration>,
    samples: u32,
    /// L in segments; `None` = unlimited (a paced sender).
    limit_segments: Option<u64>,
}

impl HyStartPp {
    pub fn new(paced: bool) -> Self {
        HyStartPp {
            phase: HyStartPhase::SlowStart,
            rounds: Rounds::default(),
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            limit_segments: (!paced).then_some(L_NON_PACED),
        }
    }

    pub fn phase(&self) -> HyStartPhase {
        self.phase
    }

    /// True while HyStart++ governs slow start.
    pub fn is_active(&self) -> bool {
        self.phase != HyStartPhase::Done
    }

    /// Slow start ended another way (a loss, an ECN echo, a timeout).
    pub fn finish(&mut self) {
        self.phase = HyStartPhase::Done;
    }

    /// An ACK of new data in slow start: grows `w` (and sets ssthresh = cwnd when CSS ends).
    pub fn on_ack(&mut self, w: &mut CongestionWindow, ack: &AckSample) {
        if self.rounds.on_ack(ack) {
            self.start_round();
            if let HyStartPhase::Css { rounds, .. } = &mut self.phase {
                *rounds += 1;
                if *rounds >= CSS_ROUNDS {
                    self.phase = HyStartPhase::Done;
                    w.ssthresh = w.cwnd;
                    return;
                }
            }
        }
        let limit = self
            .limit_segments
            .map_or(u64::MAX, |l| l.saturating_mul(ack.mss));
        let grow = ack.acked_bytes.min(limit);
        w.cwnd += match self.phase {
            HyStartPhase::Css { .. } => grow / CSS_GROWTH_DIVISOR,
            _ => grow,
        };
        if let Some(rtt) = ack.latest_rtt {
            self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        self.check_phase();
    }

    fn start_round(&mut self) {
        self.last_round_min = self.current_round_min;
        self.current_round_min = None;
        self.samples = 0;
    }

    /// The delay test of slow start, and the spurious-exit test of CSS.
    fn check_phase(&mut self) {
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        let Some(current) = self.current_round_min else {
            return;
        };
        match self.phase {
            HyStartPhase::SlowStart => {
                let Some(last) = self.last_round_min else {
                    return;
                };
                let thresh = SimDuration::from_nanos(last.as_nanos() / MIN_RTT_DIVISOR)
                    .clamp(MIN_RTT_THRESH, MAX_RTT_THRESH);
                if current >= last + thresh {
                    self.phase = HyStartPhase::Css {
                        baseline: current,
                        rounds: 0,
                    };
                }
            }
            HyStartPhase::Css { baseline, .. } if current < baseline => {
                self.phase = HyStartPhase::SlowStart;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::test_support::*;

    /// One round of `acks` ACKs of one segment each with the RTT `rtt_ms`: the first passes
    /// the SND.MAX the previous round began with, and begins the next round.
    struct Driver {
        end: u64,
        t_ms: u64,
    }

    impl Driver {
        fn round(&mut self, h: &mut HyStartPp, w: &mut CongestionWindow, acks: u64, rtt_ms: u64) {
            let start = self.end + SMSS;
            self.end = start + 1_000_000;
            for k in 0..acks {
                self.t_ms += 1;
                let una = start + k * SMSS;
                let max = if k == 0 { self.end } else { una + w.cwnd };
                let mut a = new_ack(at_ms(self.t_ms), SMSS, Some(ms(rtt_ms)), una, max);
                a.latest_rtt = Some(ms(rtt_ms));
                h.on_ack(w, &a);
            }
        }
    }

    fn start() -> (HyStartPp, CongestionWindow, Driver) {
        (
            HyStartPp::new(false),
            window(10, u64::MAX),
            Driver { end: 0, t_ms: 0 },
        )
    }

    /// RFC 9406 §4.2: RttThresh = clamp(100 ms / 8, 4, 16) = 12.5 ms. A round whose minimum
    /// rose by 12 ms stays in slow start; one that rose by 13 ms enters CSS.
    #[test]
    fn rfc9406_css_starts_when_the_round_minimum_rises_by_rtt_over_8() {
        let (mut h, mut w, mut d) = start();
        d.round(&mut h, &mut w, 10, 100);
        d.round(&mut h, &mut w, 10, 112);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
        let (mut h, mut w, mut d) = start();
        d.round(&mut h, &mut w, 10, 100);
        d.round(&mut h, &mut w, 10, 113);
        assert!(
            matches!(h.phase(), HyStartPhase::Css { baseline, .. } if baseline == ms(113)),
            "{:?}",
            h.phase()
        );
    }

    /// The threshold is clamped: on a 10 ms path a 3 ms rise is not enough (4 ms floor).
    #[test]
    fn rfc9406_threshold_is_at_least_4_ms() {
        let (mut h, mut w, mut d) = start();
        d.round(&mut h, &mut w, 10, 10);
        d.round(&mut h, &mut w, 10, 13);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
        d.round(&mut h, &mut w, 10, 17);
        assert!(matches!(h.phase(), HyStartPhase::Css { .. }));
    }

    /// Fewer than N_RTT_SAMPLE = 8 samples in a round decide nothing.
    #[test]
    fn rfc9406_needs_eight_samples_in_the_round() {
        let (mut h, mut w, mut d) = start();
        d.round(&mut h, &mut w, 10, 100);
        d.round(&mut h, &mut w, 7, 200);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
    }

    /// CSS grows by a quarter of slow start's rate, and after CSS_ROUNDS = 5 rounds (the
    /// partial one included) sets ssthresh = cwnd: congestion avoidance.
    #[test]
    fn rfc9406_css_grows_a_quarter_as_fast_and_ends_after_five_rounds() {
        let (mut h, mut w, mut d) = start();
        d.round(&mut h, &mut w, 10, 100);
        d.round(&mut h, &mut w, 20, 120);
        assert!(matches!(h.phase(), HyStartPhase::Css { .. }));
        let before = w.cwnd;
        d.round(&mut h, &mut w, 8, 120);
        assert_eq!(
            w.cwnd - before,
            8 * SMSS / 4,
            "a quarter of a segment per ACK"
        );
        for _ in 0..3 {
            d.round(&mut h, &mut w, 8, 120);
            assert!(w.in_slow_start());
        }
        d.round(&mut h, &mut w, 1, 120);
        assert_eq!(h.phase(), HyStartPhase::Done);
        assert_eq!(w.ssthresh, w.cwnd, "congestion avoidance from here");
    }

    /// A round in CSS whose minimum falls below the baseline means the exit was spurious.
    #[test]
    fn rfc9406_a_lower_rtt_in_css_resumes_slow_start() {
        let (mut h, mut w, mut d) = start();
        d.round(&mut h, &mut w, 10, 100);
        d.round(&mut h, &mut w, 20, 120);
        assert!(matches!(h.phase(), HyStartPhase::Css { .. }));
        d.round(&mut h, &mut w, 10, 105);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
    }

    /// L = 8 caps what one ACK adds (RFC 9406 §4.2), unlimited when paced.
    #[test]
    fn rfc9406_an_ack_adds_at_most_l_segments_unless_paced() {
        for (paced, expected) in [(false, 8 * SMSS), (true, 20 * SMSS)] {
            let mut h = HyStartPp::new(paced);
            let mut w = window(10, u64::MAX);
            h.on_ack(
                &mut w,
                &new_ack(at_ms(1), 20 * SMSS, None, 20 * SMSS, 30 * SMSS),
            );
            assert_eq!(w.cwnd, 10 * SMSS + expected, "paced {paced}");
        }
    }
}
