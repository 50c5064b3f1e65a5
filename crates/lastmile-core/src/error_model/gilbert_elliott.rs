//! The Gilbert–Elliott channel: a two-state (Good/Bad) Markov chain with an error
//! probability in each state (protocol-notes §3.3), in the three forms the seeds need.
//!
//! **Timed** (WTCP §4, Table I: mean Good period 1 s, mean Bad period 10–100 ms, both
//! exponential; BER 1e-6 in Good, 1e-2 in Bad). The chain runs in real time, idle time
//! included, starting in Good (`timeline.rs`). A frame on [tx_start, tx_end] is exposed τ_G
//! to Good and τ_B to Bad; at link rate R it survives with probability
//! (1 − good_ber)^(R·τ_G) · (1 − bad_ber)^(R·τ_B), decided with one draw. A frame of zero
//! duration takes all its bits in the state at its start.
//!
//! **Per bit** (TULIP Exp. 5b, §5.3.2, after Lettieri et al.): "As bits arrive on the
//! channel, the error probability for the given state is first applied to the bit, and then
//! a decision is made as to whether or not a change of state should occur. Thus, it is
//! possible to change states many times within one packet." The chain is clocked by the
//! bits that arrive, so it advances only with transmitted bits: idle time does not move it
//! (the same clock as ns-2's TwoState model in bit units, protocol-notes §3.2). Each bit is
//! judged in the current state, then the chain may move; it starts in Good. A channel that
//! should fade in real time whatever the traffic is the timed form with
//! mean_good = 1/(p_good_to_bad·R) and mean_bad = 1/(p_bad_to_good·R). The simulation never
//! walks bit by bit: a sojourn lasts 1 + Geometric(p_leave) bits, a frame is cut into the
//! runs it meets, and its survival probability Π (1 − e_s)^(run bits) is drawn once.
//!
//! **Per frame** (Gilbert's channel, e_G = 0 and e_B = 1, clocked by frames): from the
//! long-run loss fraction π_B = `mean_loss` and the mean burst `mean_burst` = 1/r, the
//! chain leaves Bad with r = 1/mean_burst and leaves Good with p = r·π_B/(1 − π_B), so that
//! p/(p + r) = π_B. Every frame passed to the model (data or not) is judged in the current
//! state, then the chain moves; it starts in Good. Bursts of lost frames are geometric with
//! mean `mean_burst`.

use super::ber::{clamp_probability, log_survival, loss_from_log_survival};
use super::fec::{BitRuns, BlockCode, BlockErrors};
use super::timeline::{ChannelState, TwoStateTimeline};
use super::{AnyErrorModel, FrameInfo};
use crate::engine::{RngStream, SimDuration};

const NANOS_PER_SEC: f64 = 1e9;

/// A complete, checked Gilbert–Elliott spec (see `GilbertElliottSpec::form`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum GilbertElliottForm {
    /// Exponential sojourns in real time; bit error rates per state.
    Timed {
        mean_good: SimDuration,
        mean_bad: SimDuration,
        good_ber: f64,
        bad_ber: f64,
    },
    /// Transition and loss probabilities per transmitted bit.
    PerBit {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        good_loss: f64,
        bad_loss: f64,
    },
    /// A Gilbert chain clocked per frame, from the mean loss fraction and mean burst length.
    PerFrame { mean_loss: f64, mean_burst: f64 },
}

pub(crate) fn build(form: GilbertElliottForm, rate_bps: u64, rng: RngStream) -> AnyErrorModel {
    match form {
        GilbertElliottForm::Timed {
            mean_good,
            mean_bad,
            good_ber,
            bad_ber,
        } => AnyErrorModel::GilbertElliottTimed(TimedGilbertElliott::new(
            mean_good, mean_bad, good_ber, bad_ber, rate_bps, rng,
        )),
        GilbertElliottForm::PerBit {
            p_good_to_bad,
            p_bad_to_good,
            good_loss,
            bad_loss,
        } => AnyErrorModel::GilbertElliottPerBit(PerBitGilbertElliott::new(
            p_good_to_bad,
            p_bad_to_good,
            good_loss,
            bad_loss,
            rng,
        )),
        GilbertElliottForm::PerFrame {
            mean_loss,
            mean_burst,
        } => AnyErrorModel::GilbertElliottPerFrame(PerFrameGilbertElliott::new(
            mean_loss, mean_burst, rng,
        )),
    }
}

/// The timed channel (WTCP Table I).
#[derive(Clone, Debug)]
pub struct TimedGilbertElliott {
    timeline: TwoStateTimeline,
    /// Bit error rate in Good and in Bad.
    ber: [f64; 2],
    rate_bps: u64,
    rng: RngStream,
}

impl TimedGilbertElliott {
    pub fn new(
        mean_good: SimDuration,
        mean_bad: SimDuration,
        good_ber: f64,
        bad_ber: f64,
        rate_bps: u64,
        mut rng: RngStream,
    ) -> Self {
        TimedGilbertElliott {
            timeline: TwoStateTimeline::new(mean_good, mean_bad, &mut rng),
            ber: [clamp_probability(good_ber), clamp_probability(bad_ber)],
            rate_bps,
            rng,
        }
    }

    /// The state at the end of the last frame judged (Good before any frame).
    pub fn state(&self) -> ChannelState {
        self.timeline.state()
    }

    pub fn frame_lost(&mut self, frame: &FrameInfo) -> bool {
        self.timeline.advance_to(frame.tx_start, &mut self.rng);
        let log_ok = if frame.tx_end > frame.tx_start {
            let exposure = self.timeline.expose(frame.tx_end, &mut self.rng);
            let rate = self.rate_bps as f64;
            log_survival(self.ber[0], rate * exposure[0] as f64 / NANOS_PER_SEC)
                + log_survival(self.ber[1], rate * exposure[1] as f64 / NANOS_PER_SEC)
        } else {
            log_survival(self.ber[self.state().index()], frame.bits as f64)
        };
        self.rng.bernoulli(loss_from_log_survival(log_ok))
    }

    /// The frame's bits as the Good and Bad stretches it meets, for FEC (`fec.rs`): the
    /// frame's `bits` spread evenly over [tx_start, tx_end] (all in the state at the start
    /// for a frame of zero duration), each stretch at its state's BER.
    pub fn bit_runs(&mut self, frame: &FrameInfo) -> BitRuns {
        self.timeline.advance_to(frame.tx_start, &mut self.rng);
        let mut runs = BitRuns::default();
        let total_ns = frame.tx_end.saturating_since(frame.tx_start).as_nanos();
        if total_ns == 0 {
            runs.push(frame.bits, self.ber[self.state().index()]);
            return runs;
        }
        let (bits, ber) = (frame.bits, self.ber);
        let (mut elapsed_ns, mut placed) = (0u64, 0u64);
        self.timeline
            .walk(frame.tx_end, &mut self.rng, |state, ns| {
                elapsed_ns += ns;
                // Cumulative rounding: the stretches' bits add up to the frame's exactly.
                let upto =
                    (u128::from(bits) * u128::from(elapsed_ns) / u128::from(total_ns)) as u64;
                runs.push(upto - placed, ber[state.index()]);
                placed = upto;
            });
        runs
    }

    /// Symbol errors per block of `code` over the frame's coded bits (`fec.rs`).
    pub fn block_errors(&mut self, frame: &FrameInfo, code: &BlockCode) -> BlockErrors {
        let runs = self.bit_runs(frame);
        runs.block_errors(code, &mut self.rng)
    }
}

/// The per-bit channel (TULIP Exp. 5b).
#[derive(Clone, Debug)]
pub struct PerBitGilbertElliott {
    /// Probability of leaving Good and of leaving Bad after a bit.
    p_leave: [f64; 2],
    /// Bit-loss probability in Good and in Bad.
    loss: [f64; 2],
    state: ChannelState,
    /// Bits still to be sent in the current sojourn (0: the chain moves before the next bit).
    bits_left: u64,
    rng: RngStream,
}

impl PerBitGilbertElliott {
    pub fn new(
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        good_loss: f64,
        bad_loss: f64,
        rng: RngStream,
    ) -> Self {
        let mut model = PerBitGilbertElliott {
            p_leave: [
                clamp_probability(p_good_to_bad),
                clamp_probability(p_bad_to_good),
            ],
            loss: [clamp_probability(good_loss), clamp_probability(bad_loss)],
            state: ChannelState::Good,
            bits_left: 0,
            rng,
        };
        model.bits_left = model.sojourn_bits();
        model
    }

    /// The state the next bit will be judged in (or the one before a pending move).
    pub fn state(&self) -> ChannelState {
        self.state
    }

    /// Bits in a sojourn of the current state: the chain leaves after each bit with
    /// probability p_leave, so the count is 1 + Geometric(p_leave) on {0, 1, ...}.
    fn sojourn_bits(&mut self) -> u64 {
        let p = self.p_leave[self.state.index()];
        self.rng.geometric(p).saturating_add(1)
    }

    pub fn frame_lost(&mut self, frame: &FrameInfo) -> bool {
        let mut remaining = frame.bits;
        let mut log_ok = 0.0;
        while remaining > 0 {
            if self.bits_left == 0 {
                self.state = self.state.other();
                self.bits_left = self.sojourn_bits();
            }
            let run = remaining.min(self.bits_left);
            log_ok += log_survival(self.loss[self.state.index()], run as f64);
            remaining -= run;
            self.bits_left -= run;
        }
        self.rng.bernoulli(loss_from_log_survival(log_ok))
    }

    /// The frame's bits as the sojourns of the chain it meets, for FEC (`fec.rs`); the chain
    /// moves exactly as `frame_lost` moves it.
    pub fn bit_runs(&mut self, frame: &FrameInfo) -> BitRuns {
        let mut runs = BitRuns::default();
        let mut remaining = frame.bits;
        while remaining > 0 {
            if self.bits_left == 0 {
                self.state = self.state.other();
                self.bits_left = self.sojourn_bits();
            }
            let run = remaining.min(self.bits_left);
            runs.push(run, self.loss[self.state.index()]);
            remaining -= run;
            self.bits_left -= run;
        }
        runs
    }

    /// Symbol errors per block of `code` over the frame's coded bits (`fec.rs`).
    pub fn block_errors(&mut self, frame: &FrameInfo, code: &BlockCode) -> BlockErrors {
        let runs = self.bit_runs(frame);
        runs.block_errors(code, &mut self.rng)
    }
}

/// Gilbert's channel clocked per frame, from a mean loss fraction and a mean burst length.
#[derive(Clone, Debug)]
pub struct PerFrameGilbertElliott {
    /// p: P(Good → Bad) per frame.
    p_good_to_bad: f64,
    /// r = 1/mean_burst: P(Bad → Good) per frame.
    p_bad_to_good: f64,
    state: ChannelState,
    rng: RngStream,
}

impl PerFrameGilbertElliott {
    /// `mean_loss` is clamped below 1 and `mean_burst` to at least 1; p is capped at 1.
    pub fn new(mean_loss: f64, mean_burst: f64, rng: RngStream) -> Self {
        let pi_bad = clamp_probability(mean_loss).min(1.0 - f64::EPSILON);
        let mean_burst = if mean_burst.is_nan() {
            1.0
        } else {
            mean_burst.max(1.0)
        };
        let r = 1.0 / mean_burst;
        let p = (r * pi_bad / (1.0 - pi_bad)).min(1.0);
        PerFrameGilbertElliott {
            p_good_to_bad: p,
            p_bad_to_good: r,
            state: ChannelState::Good,
            rng,
        }
    }

    /// (p, r): the per-frame probabilities of leaving Good and of leaving Bad.
    pub fn transition_probabilities(&self) -> (f64, f64) {
        (self.p_good_to_bad, self.p_bad_to_good)
    }

    /// The state the next frame will be judged in.
    pub fn state(&self) -> ChannelState {
        self.state
    }

    pub fn frame_lost(&mut self, _frame: &FrameInfo) -> bool {
        let lost = self.state == ChannelState::Bad;
        let p_leave = match self.state {
            ChannelState::Good => self.p_good_to_bad,
            ChannelState::Bad => self.p_bad_to_good,
        };
        if self.rng.bernoulli(p_leave) {
            self.state = self.state.other();
        }
        lost
    }
}
