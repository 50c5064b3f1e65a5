//! Channel error models: decide, per frame and per direction, whether a frame arrives
//! intact. Each model instance owns its own random stream (`RngStream`), so adding a lossy
//! link never changes another link's losses.
//!
//! The engine calls `AnyErrorModel::frame_lost` once per frame per direction, in
//! transmission order (non-decreasing `tx_start`). The models:
//! - `none`: no losses.
//! - `ber` (`ber.rs`): independent bit errors; a frame of n bits is lost with probability
//!   1 − (1 − BER)^n (TULIP Exp. 1: "bit errors are exponentially distributed").
//! - `per` (`ber.rs`): every frame lost with a fixed probability (survey Table 1, LLE-TCP
//!   Fig. 7).
//! - `gilbert_elliott` (`gilbert_elliott.rs`): the two-state Good/Bad Markov channel in three
//!   forms: timed in real time (WTCP Table I), per bit (TULIP Exp. 5b) and per frame
//!   (a Gilbert chain from a mean loss rate and a mean burst length).
//! - `burst` (`burst.rs`): `length` consecutive data frames lost once every `every` bytes
//!   of data (TULIP Exp. 5a).
//! - `on_off` (`on_off.rs`): exponential ON/OFF error phases in real time (the survey's
//!   §3.1).
//! - `drop_list` (`drop_list.rs`): exactly the listed frames, for tests and scripted
//!   scenarios.
//!
//! `ErrorModelSpec::validate` is the gate for user input; `build` assumes a validated spec
//! and never panics: on an invalid one it clamps values into range, and it builds the
//! `none` model for a Gilbert–Elliott spec that names no complete form.
//!
//! Random draws use `libm` only (through `RngStream` and the helpers in `ber.rs`), so the
//! decisions are bit-identical on every machine.

mod ber;
mod burst;
mod drop_list;
pub mod fec;
mod gilbert_elliott;
mod on_off;
mod schema;
mod timeline;
mod validate;

#[cfg(test)]
mod tests;

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, SimTime};
use crate::units::{ByteSize, Duration, Probability};

pub use ber::{per_from_ber, BerModel, PerModel};
pub use burst::BurstModel;
pub use drop_list::DropListModel;
pub use fec::{BitRuns, BlockCode, BlockErrors, FecSpec};
pub use gilbert_elliott::{
    GilbertElliottForm, PerBitGilbertElliott, PerFrameGilbertElliott, TimedGilbertElliott,
};
pub use on_off::OnOffModel;
pub use timeline::ChannelState;

/// What an error model may know about a frame.
#[derive(Copy, Clone, Debug)]
pub struct FrameInfo {
    /// When the frame's first bit leaves the sender.
    pub tx_start: SimTime,
    /// When its last bit leaves the sender.
    pub tx_end: SimTime,
    /// Its length on the wire, link-layer overhead included.
    pub bits: u64,
    /// Transport payload bytes it carries (0 for pure ACKs and control frames).
    pub payload_bytes: u32,
}

impl FrameInfo {
    pub fn is_data(&self) -> bool {
        self.payload_bytes > 0
    }
}

/// An error model as a scenario file writes it: `{ model = "ber", ber = 15e-6 }`. Its JSON
/// Schema is written out form by form in `schema.rs`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorModelSpec {
    /// No errors.
    #[default]
    None,
    /// Independent bit errors: a frame of n bits is lost with probability 1 − (1 − ber)^n.
    Ber { ber: Probability },
    /// Every frame is lost with probability `per`.
    Per { per: Probability },
    /// A two-state (Good/Bad) Markov channel, in one of three forms: timed, per bit, per
    /// frame (the fields of `GilbertElliottSpec`).
    GilbertElliott(GilbertElliottSpec),
    /// `length` consecutive data frames lost once every `every` bytes of data (TULIP Exp. 5a).
    /// Only frames with payload count and can be lost; see `BurstModel` for the exact rule.
    Burst { length: u32, every: ByteSize },
    /// Alternating exponential ON/OFF phases; during ON each frame is lost with probability
    /// `on_loss`. The channel starts OFF (error-free).
    OnOff {
        mean_on: Duration,
        mean_off: Duration,
        on_loss: Probability,
    },
    /// Exactly the listed frames are lost: 1-based ordinals of the frames sent in this
    /// direction of the link.
    DropList { packets: Vec<u64> },
}

/// The Gilbert–Elliott channel, in one of three forms (give the fields of exactly one):
/// - timed (WTCP Table I): `mean_good`, `mean_bad` (exponential sojourns in real time),
///   `good_ber`, `bad_ber`;
/// - per-bit (TULIP Exp. 5b): `p_good_to_bad`, `p_bad_to_good` (transition probabilities per
///   transmitted bit), `good_loss`, `bad_loss` (bit-loss probability in each state);
/// - per-frame: `mean_loss` (the long-run fraction of frames lost) and `mean_burst` (the mean
///   number of consecutive frames lost).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GilbertElliottSpec {
    pub mean_good: Option<Duration>,
    pub mean_bad: Option<Duration>,
    pub good_ber: Option<Probability>,
    pub bad_ber: Option<Probability>,
    pub p_good_to_bad: Option<Probability>,
    pub p_bad_to_good: Option<Probability>,
    pub good_loss: Option<Probability>,
    pub bad_loss: Option<Probability>,
    pub mean_loss: Option<Probability>,
    pub mean_burst: Option<f64>,
}

/// A field of an error-model spec that does not make sense, with what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    /// The field within the spec, e.g. "mean_bad" (empty for the spec as a whole).
    pub field: String,
    pub expected: String,
}

impl SpecError {
    pub(crate) fn new(field: impl Into<String>, expected: impl Into<String>) -> Self {
        SpecError {
            field: field.into(),
            expected: expected.into(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "expected {}", self.expected)
        } else {
            write!(f, "{}: expected {}", self.field, self.expected)
        }
    }
}

impl std::error::Error for SpecError {}

impl ErrorModelSpec {
    /// Checks the combination of fields (e.g. exactly one Gilbert–Elliott form) and their
    /// ranges; the error names the first offending field.
    pub fn validate(&self) -> Result<(), SpecError> {
        validate::validate(self)
    }

    /// Builds the model for a link direction of `rate_bps`, with its own random stream.
    /// Call `validate` first: an invalid spec builds a clamped (or, for an incomplete
    /// Gilbert–Elliott spec, the `none`) model rather than panicking.
    pub fn build(&self, rate_bps: u64, rng: RngStream) -> AnyErrorModel {
        match self {
            ErrorModelSpec::None => AnyErrorModel::None,
            ErrorModelSpec::Ber { ber } => AnyErrorModel::Ber(BerModel::new(ber.0, rng)),
            ErrorModelSpec::Per { per } => AnyErrorModel::Per(PerModel::new(per.0, rng)),
            ErrorModelSpec::GilbertElliott(ge) => match ge.form() {
                Ok(form) => gilbert_elliott::build(form, rate_bps, rng),
                Err(_) => AnyErrorModel::None,
            },
            ErrorModelSpec::Burst { length, every } => {
                AnyErrorModel::Burst(BurstModel::new(*length, every.bytes()))
            }
            ErrorModelSpec::OnOff {
                mean_on,
                mean_off,
                on_loss,
            } => AnyErrorModel::OnOff(OnOffModel::new(
                mean_on.sim(),
                mean_off.sim(),
                on_loss.0,
                rng,
            )),
            ErrorModelSpec::DropList { packets } => {
                AnyErrorModel::DropList(DropListModel::new(packets))
            }
        }
    }
}

/// A built error model, dispatched by enum (no allocation, `Clone + Debug`).
#[derive(Clone, Debug)]
pub enum AnyErrorModel {
    None,
    Ber(BerModel),
    Per(PerModel),
    GilbertElliottTimed(TimedGilbertElliott),
    GilbertElliottPerBit(PerBitGilbertElliott),
    GilbertElliottPerFrame(PerFrameGilbertElliott),
    Burst(BurstModel),
    OnOff(OnOffModel),
    DropList(DropListModel),
}

impl AnyErrorModel {
    /// Decides whether `frame` is lost.
    pub fn frame_lost(&mut self, frame: &FrameInfo) -> bool {
        match self {
            AnyErrorModel::None => false,
            AnyErrorModel::Ber(m) => m.frame_lost(frame),
            AnyErrorModel::Per(m) => m.frame_lost(frame),
            AnyErrorModel::GilbertElliottTimed(m) => m.frame_lost(frame),
            AnyErrorModel::GilbertElliottPerBit(m) => m.frame_lost(frame),
            AnyErrorModel::GilbertElliottPerFrame(m) => m.frame_lost(frame),
            AnyErrorModel::Burst(m) => m.frame_lost(frame),
            AnyErrorModel::OnOff(m) => m.frame_lost(frame),
            AnyErrorModel::DropList(m) => m.frame_lost(frame),
        }
    }
    /// True for the `none` model (lets the engine skip the call).
    pub fn is_none(&self) -> bool {
        matches!(self, AnyErrorModel::None)
    }

    /// The symbol errors in each block of `code` of a coded frame (`frame.bits` are its
    /// coded bits on the air): drawn bit by bit for the bit-level models, all blocks lost or
    /// none for the frame-level ones (`fec.rs`).
    pub fn block_errors(&mut self, frame: &FrameInfo, code: &BlockCode) -> BlockErrors {
        let blocks = frame.bits.div_ceil(code.block_bits());
        let erasure = |lost: bool| match lost {
            true => BlockErrors::erased(blocks, code),
            false => BlockErrors::clean(blocks),
        };
        match self {
            AnyErrorModel::None => BlockErrors::clean(blocks),
            AnyErrorModel::Ber(m) => m.block_errors(frame, code),
            AnyErrorModel::GilbertElliottTimed(m) => m.block_errors(frame, code),
            AnyErrorModel::GilbertElliottPerBit(m) => m.block_errors(frame, code),
            AnyErrorModel::Per(m) => erasure(m.frame_lost(frame)),
            AnyErrorModel::GilbertElliottPerFrame(m) => erasure(m.frame_lost(frame)),
            AnyErrorModel::Burst(m) => erasure(m.frame_lost(frame)),
            AnyErrorModel::OnOff(m) => erasure(m.frame_lost(frame)),
            AnyErrorModel::DropList(m) => erasure(m.frame_lost(frame)),
        }
    }

    /// Decides whether `frame` is lost on a hop with link FEC `code` (none: `frame_lost`,
    /// draw for draw): lost when some block has more symbol errors than the code corrects.
    pub fn frame_lost_coded(&mut self, frame: &FrameInfo, code: Option<&BlockCode>) -> bool {
        match code {
            None => self.frame_lost(frame),
            Some(code) => !code.decodes(&self.block_errors(frame, code)),
        }
    }
}
