//! Checks of an error-model spec, with messages that say what was expected (conventions
//! rule 11: errors are values naming the field). `GilbertElliottSpec::form` also turns a
//! spec into its checked form for `build`.

use super::gilbert_elliott::GilbertElliottForm;
use super::{ErrorModelSpec, GilbertElliottSpec, SpecError};
use crate::units::{Duration, Probability};

const TIMED: [&str; 4] = ["mean_good", "mean_bad", "good_ber", "bad_ber"];
const PER_BIT: [&str; 4] = ["p_good_to_bad", "p_bad_to_good", "good_loss", "bad_loss"];
const PER_FRAME: [&str; 2] = ["mean_loss", "mean_burst"];

/// The three forms: a name and its fields.
const FORMS: [(&str, &[&str]); 3] = [
    ("timed", &TIMED),
    ("per-bit", &PER_BIT),
    ("per-frame", &PER_FRAME),
];

pub(crate) fn validate(spec: &ErrorModelSpec) -> Result<(), SpecError> {
    match spec {
        ErrorModelSpec::None => Ok(()),
        ErrorModelSpec::Ber { ber } => check_probability(
            "ber",
            *ber,
            "a bit error rate between 0 and 1, such as 15e-6",
        ),
        ErrorModelSpec::Per { per } => check_probability(
            "per",
            *per,
            "a packet error rate between 0 and 1, such as 0.05",
        ),
        ErrorModelSpec::GilbertElliott(ge) => ge.form().map(|_| ()),
        ErrorModelSpec::Burst { length, every } => {
            if *length < 1 {
                return Err(SpecError::new(
                    "length",
                    "a burst of at least 1 data frame, such as 4",
                ));
            }
            if every.bytes() == 0 {
                return Err(SpecError::new(
                    "every",
                    "a positive amount of data between bursts, such as \"64KB\"",
                ));
            }
            Ok(())
        }
        ErrorModelSpec::OnOff {
            mean_on,
            mean_off,
            on_loss,
        } => {
            check_positive("mean_on", *mean_on, "1s")?;
            check_positive("mean_off", *mean_off, "1s")?;
            check_probability(
                "on_loss",
                *on_loss,
                "a loss probability between 0 and 1, such as 0.2",
            )
        }
        ErrorModelSpec::DropList { packets } => match packets.iter().position(|&n| n == 0) {
            Some(i) => Err(SpecError::new(
                format!("packets[{i}]"),
                "a frame ordinal of 1 or more (frames count from 1)",
            )),
            None => Ok(()),
        },
    }
}

fn check_probability(field: &str, p: Probability, expected: &str) -> Result<(), SpecError> {
    if (0.0..=1.0).contains(&p.0) {
        Ok(())
    } else {
        Err(SpecError::new(field, expected))
    }
}

fn check_positive(field: &str, d: Duration, example: &str) -> Result<(), SpecError> {
    if d.sim().is_zero() {
        Err(SpecError::new(
            field,
            format!("a positive duration such as \"{example}\""),
        ))
    } else {
        Ok(())
    }
}

/// What a field of the Gilbert–Elliott spec should hold.
fn expected_for(field: &str) -> &'static str {
    match field {
        "mean_good" => "a positive duration such as \"1s\"",
        "mean_bad" => "a positive duration such as \"100ms\"",
        "good_ber" | "good_loss" => "a probability between 0 and 1, such as 1e-6",
        "bad_ber" | "bad_loss" => "a probability between 0 and 1, such as 1e-2",
        "p_good_to_bad" | "p_bad_to_good" => "a probability per bit between 0 and 1, such as 1e-5",
        "mean_loss" => "a fraction of frames lost, at least 0 and below 1, such as 0.05",
        _ => "a mean burst length of at least 1 frame, such as 2.5",
    }
}

impl GilbertElliottSpec {
    fn is_given(&self, field: &str) -> bool {
        match field {
            "mean_good" => self.mean_good.is_some(),
            "mean_bad" => self.mean_bad.is_some(),
            "good_ber" => self.good_ber.is_some(),
            "bad_ber" => self.bad_ber.is_some(),
            "p_good_to_bad" => self.p_good_to_bad.is_some(),
            "p_bad_to_good" => self.p_bad_to_good.is_some(),
            "good_loss" => self.good_loss.is_some(),
            "bad_loss" => self.bad_loss.is_some(),
            "mean_loss" => self.mean_loss.is_some(),
            _ => self.mean_burst.is_some(),
        }
    }

    /// Picks the form with the most fields given (ties: timed, per-bit, per-frame), refuses
    /// fields of another form and names the first missing field.
    fn chosen_form(&self) -> Result<usize, SpecError> {
        let counts = FORMS.map(|(_, fields)| fields.iter().filter(|f| self.is_given(f)).count());
        let best = (0..FORMS.len())
            .max_by_key(|&i| (counts[i], std::cmp::Reverse(i)))
            .unwrap_or(0);
        if counts[best] == 0 {
            return Err(SpecError::new(
                "",
                "the fields of one Gilbert–Elliott form: mean_good, mean_bad, good_ber, bad_ber \
                 (timed); p_good_to_bad, p_bad_to_good, good_loss, bad_loss (per-bit); or \
                 mean_loss, mean_burst (per-frame)",
            ));
        }
        let (name, fields) = FORMS[best];
        let list = fields.join(", ");
        for (i, (_, others)) in FORMS.iter().enumerate() {
            if i == best {
                continue;
            }
            if let Some(extra) = others.iter().find(|f| self.is_given(f)) {
                return Err(SpecError::new(
                    *extra,
                    format!(
                        "no {extra} alongside the {name} form's fields ({list}): give the \
                         fields of exactly one form"
                    ),
                ));
            }
        }
        if let Some(missing) = fields.iter().find(|f| !self.is_given(f)) {
            return Err(SpecError::new(
                *missing,
                format!(
                    "{} (the {name} form needs all of {list})",
                    expected_for(missing)
                ),
            ));
        }
        Ok(best)
    }

    /// The checked form of this spec, or the first field that is missing, extra or out of
    /// range.
    pub fn form(&self) -> Result<GilbertElliottForm, SpecError> {
        let form = self.chosen_form()?;
        let prob = |field: &str, p: Option<Probability>| -> Result<f64, SpecError> {
            let p = p.unwrap_or_default();
            check_probability(field, p, expected_for(field))?;
            Ok(p.0)
        };
        match form {
            0 => {
                let mean_good = self.mean_good.unwrap_or_default();
                let mean_bad = self.mean_bad.unwrap_or_default();
                check_positive("mean_good", mean_good, "1s")?;
                check_positive("mean_bad", mean_bad, "100ms")?;
                Ok(GilbertElliottForm::Timed {
                    mean_good: mean_good.sim(),
                    mean_bad: mean_bad.sim(),
                    good_ber: prob("good_ber", self.good_ber)?,
                    bad_ber: prob("bad_ber", self.bad_ber)?,
                })
            }
            1 => {
                let p_good_to_bad = prob("p_good_to_bad", self.p_good_to_bad)?;
                let p_bad_to_good = prob("p_bad_to_good", self.p_bad_to_good)?;
                if p_bad_to_good <= 0.0 {
                    return Err(SpecError::new(
                        "p_bad_to_good",
                        "a probability above 0, such as 1e-3 (a channel that never leaves \
                         Bad loses everything once it enters it)",
                    ));
                }
                Ok(GilbertElliottForm::PerBit {
                    p_good_to_bad,
                    p_bad_to_good,
                    good_loss: prob("good_loss", self.good_loss)?,
                    bad_loss: prob("bad_loss", self.bad_loss)?,
                })
            }
            _ => self.per_frame_form(),
        }
    }

    fn per_frame_form(&self) -> Result<GilbertElliottForm, SpecError> {
        let mean_loss = self.mean_loss.unwrap_or_default().0;
        let mean_burst = self.mean_burst.unwrap_or_default();
        if !(0.0..1.0).contains(&mean_loss) {
            return Err(SpecError::new("mean_loss", expected_for("mean_loss")));
        }
        if !(mean_burst.is_finite() && mean_burst >= 1.0) {
            return Err(SpecError::new("mean_burst", expected_for("mean_burst")));
        }
        // p = r·π_B/(1 − π_B) must be a probability: the Good runs must average at least
        // one frame.
        let min_burst = mean_loss / (1.0 - mean_loss);
        // Relative slack for rounding: 0.9/0.1 is 9.000000000000002 in binary.
        if mean_burst < min_burst * (1.0 - 1e-12) {
            return Err(SpecError::new(
                "mean_burst",
                format!(
                    "a mean burst length of at least mean_loss/(1 − mean_loss) = {min_burst:.4} \
                     frames: with mean_loss = {mean_loss} shorter bursts would need Good runs \
                     under one frame"
                ),
            ));
        }
        Ok(GilbertElliottForm::PerFrame {
            mean_loss,
            mean_burst,
        })
    }
}
