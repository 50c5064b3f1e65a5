//! ON/OFF error phases (the survey's §3.1, after Pentikousis' experiments [63]: "one
//! second" and "ten second ON/OFF dropping phases", with the "mean time for the ON/OFF
//! dropping phases" and a per-segment error rate of 1 to 50 %).
//!
//! OFF and ON phases alternate in real time, idle time included, with exponentially
//! distributed lengths of means `mean_off` and `mean_on`; the channel starts OFF at time
//! zero. During ON each frame is lost independently with probability `on_loss`; during OFF
//! nothing is lost. A frame belongs to the phase in force at its `tx_start` (the survey
//! drops whole segments during a phase and says nothing of frames straddling a boundary;
//! judging by the first bit keeps the long-run loss exactly on_loss·mean_on/(mean_on +
//! mean_off) for any frame length). The timeline is the same continuous-time two-state
//! chain as the timed Gilbert–Elliott channel (`timeline.rs`), with OFF as Good and ON as
//! Bad.

use super::ber::clamp_probability;
use super::timeline::{ChannelState, TwoStateTimeline};
use super::FrameInfo;
use crate::engine::{RngStream, SimDuration};

#[derive(Clone, Debug)]
pub struct OnOffModel {
    timeline: TwoStateTimeline,
    on_loss: f64,
    rng: RngStream,
}

impl OnOffModel {
    pub fn new(
        mean_on: SimDuration,
        mean_off: SimDuration,
        on_loss: f64,
        mut rng: RngStream,
    ) -> Self {
        OnOffModel {
            timeline: TwoStateTimeline::new(mean_off, mean_on, &mut rng),
            on_loss: clamp_probability(on_loss),
            rng,
        }
    }

    /// True if the last frame judged started in an ON (error) phase; false before any frame.
    pub fn is_on(&self) -> bool {
        self.timeline.state() == ChannelState::Bad
    }

    pub fn frame_lost(&mut self, frame: &FrameInfo) -> bool {
        self.timeline.advance_to(frame.tx_start, &mut self.rng);
        self.is_on() && self.rng.bernoulli(self.on_loss)
    }
}
