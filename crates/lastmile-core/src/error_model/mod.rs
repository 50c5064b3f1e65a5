//! Channel error models: decide, per frame and per direction, whether a frame arrives
//! intact. Each model instance owns its own random stream (`RngStream`), so adding a lossy
//! link never changes another link's losses.
//!
//! Models: `none`; `ber` (independent bit errors, a frame of n bits is lost with
//! probability 1 − (1 − BER)^n, TULIP Exp. 1); `per` (a fixed packet error rate);
//! `gilbert_elliott` (two-state Markov channel, timed or per-bit); `burst` (k consecutive
//! data frames lost once every N bytes of data, TULIP Exp. 5a); `on_off` (exponential
//! ON/OFF phases with a drop rate during ON, the survey's §3.1); `drop_list` (exactly the
//! listed frames, for tests).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::engine::{RngStream, SimTime};

// The models themselves live in submodules (filled in alongside this spec).
use crate::units::{ByteSize, Duration, Probability};

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

/// An error model as a scenario file writes it: `{ model = "ber", ber = 15e-6 }`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "model", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorModelSpec {
    /// No errors.
    #[default]
    None,
    /// Independent bit errors: a frame of n bits is lost with probability 1 − (1 − ber)^n.
    Ber { ber: Probability },
    /// Every frame is lost with probability `per`.
    Per { per: Probability },
    /// A two-state (Good/Bad) Markov channel, in one of three forms; see `GilbertElliottSpec`.
    GilbertElliott(GilbertElliottSpec),
    /// `length` consecutive data frames lost once every `every` bytes of data (TULIP Exp. 5a).
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
///   bit), `good_loss`, `bad_loss` (bit-loss probability in each state);
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

impl ErrorModelSpec {
    /// Checks the combination of fields (e.g. exactly one Gilbert–Elliott form).
    pub fn validate(&self) -> Result<(), SpecError> {
        Ok(())
    }

    /// Builds the model for a link direction of `rate_bps`, with its own random stream.
    pub fn build(&self, rate_bps: u64, rng: RngStream) -> AnyErrorModel {
        let _ = (rate_bps, rng);
        AnyErrorModel::None
    }
}

/// A built error model, dispatched by enum (no allocation, `Clone + Debug`).
#[derive(Clone, Debug)]
pub enum AnyErrorModel {
    None,
}

impl AnyErrorModel {
    /// Decides whether `frame` is lost.
    pub fn frame_lost(&mut self, frame: &FrameInfo) -> bool {
        let _ = frame;
        false
    }
    /// True for the `none` model (lets the engine skip the call).
    pub fn is_none(&self) -> bool {
        matches!(self, AnyErrorModel::None)
    }
}
