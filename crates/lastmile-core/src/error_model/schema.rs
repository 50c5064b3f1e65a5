//! The JSON Schema of `ErrorModelSpec`, written out form by form so that `lastmile schema`
//! (and the scenario reference generated from it) spells out every way to write an error
//! model: one `oneOf` entry per form — `none`, `ber`, `per`, the three Gilbert–Elliott
//! forms, `burst`, `on_off`, `drop_list` — each with its required fields, their meaning and
//! units, the source of the model, and an example that the tests read back through serde
//! and `validate`. (serde's derived schema would show one Gilbert–Elliott object with ten
//! optional fields.)

use schemars::gen::SchemaGenerator;
use schemars::schema::{
    InstanceType, Metadata, ObjectValidation, Schema, SchemaObject, SingleOrVec,
    SubschemaValidation,
};
use schemars::JsonSchema;
use serde_json::{json, Value};

use super::ErrorModelSpec;
use crate::units::{ByteSize, Duration, Probability};

/// One field of a form: (name, schema, description).
type Field = (&'static str, Schema, &'static str);

/// One form: (model tag, title, description, fields, example).
type Form = (&'static str, &'static str, &'static str, Vec<Field>, Value);

fn described(schema: Schema, description: &str) -> Schema {
    SchemaObject {
        metadata: Some(Box::new(Metadata {
            description: Some(description.to_string()),
            ..Default::default()
        })),
        subschemas: Some(Box::new(SubschemaValidation {
            all_of: Some(vec![schema]),
            ..Default::default()
        })),
        ..Default::default()
    }
    .into()
}

fn form_schema((tag, title, description, fields, example): Form) -> Schema {
    let mut object = ObjectValidation {
        additional_properties: Some(Box::new(Schema::Bool(false))),
        ..Default::default()
    };
    let tag_schema = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        enum_values: Some(vec![Value::String(tag.to_string())]),
        ..Default::default()
    };
    object.properties.insert("model".into(), tag_schema.into());
    object.required.insert("model".into());
    for (name, schema, text) in fields {
        object
            .properties
            .insert(name.into(), described(schema, text));
        object.required.insert(name.into());
    }
    SchemaObject {
        instance_type: Some(SingleOrVec::Single(Box::new(InstanceType::Object))),
        object: Some(Box::new(object)),
        metadata: Some(Box::new(Metadata {
            title: Some(title.to_string()),
            description: Some(description.to_string()),
            examples: vec![example],
            ..Default::default()
        })),
        ..Default::default()
    }
    .into()
}

/// Every form, in the order the reference lists them.
pub(super) fn forms(gen: &mut SchemaGenerator) -> Vec<Form> {
    let mut out = memoryless_forms(gen);
    out.extend(gilbert_elliott_forms(gen));
    out.extend(scripted_forms(gen));
    out
}

/// `none`, `ber` and `per`.
fn memoryless_forms(gen: &mut SchemaGenerator) -> Vec<Form> {
    let p = gen.subschema_for::<Probability>();
    vec![
        (
            "none",
            "none",
            "No errors: every frame arrives intact (the default).",
            vec![],
            json!({"model": "none"}),
        ),
        (
            "ber",
            "ber: independent bit errors",
            "Each bit is in error independently (TULIP Exp. 1: \"bit errors are exponentially \
          distributed\"): a frame of n bits, link overhead included, is lost with probability \
          1 − (1 − ber)^n. At BER 15e-6 a 1440-byte packet is lost with probability 0.159 \
          (TULIP Table 1).",
            vec![("ber", p.clone(), "The bit error rate.")],
            json!({"model": "ber", "ber": 15e-6}),
        ),
        (
            "per",
            "per: fixed packet error rate",
            "Every frame is lost with the same probability whatever its length (the survey's \
          Table 1 random segment drops; LLE-TCP Fig. 7).",
            vec![("per", p, "The probability that a frame is lost.")],
            json!({"model": "per", "per": 0.05}),
        ),
    ]
}

/// The Gilbert–Elliott channel's three forms.
fn gilbert_elliott_forms(gen: &mut SchemaGenerator) -> Vec<Form> {
    let p = gen.subschema_for::<Probability>();
    let d = gen.subschema_for::<Duration>();
    let burst_len = f64::json_schema(gen);
    vec![
        (
            "gilbert_elliott",
            "gilbert_elliott, timed (WTCP Table I)",
            "The two-state Good/Bad channel in real time (Gilbert 1960, Elliott 1963, as WTCP \
          Table I runs it): the channel stays in Good and in Bad for exponentially distributed \
          times, idle time included, and each bit of a frame is in error with the state's bit \
          error rate (a frame spanning a change of state sees both).",
            vec![
                (
                    "mean_good",
                    d.clone(),
                    "Mean time in Good (WTCP Table I: 1 s).",
                ),
                (
                    "mean_bad",
                    d.clone(),
                    "Mean time in Bad (WTCP Table I: 10 to 100 ms).",
                ),
                (
                    "good_ber",
                    p.clone(),
                    "Bit error rate in Good (WTCP Table I: 1e-6).",
                ),
                (
                    "bad_ber",
                    p.clone(),
                    "Bit error rate in Bad (WTCP Table I: 1e-2).",
                ),
            ],
            json!({"model": "gilbert_elliott", "mean_good": "1s", "mean_bad": "100ms",
                "good_ber": 1e-6, "bad_ber": 1e-2}),
        ),
        (
            "gilbert_elliott",
            "gilbert_elliott, per bit (TULIP Exp. 5b)",
            "The Good/Bad Markov chain clocked by transmitted bits (TULIP Exp. 5b): after each \
          bit the chain leaves Good with probability p_good_to_bad and Bad with probability \
          p_bad_to_good; each bit is lost with the current state's loss probability. Time \
          does not move the chain while the channel is idle.",
            vec![
                ("p_good_to_bad", p.clone(), "P(Good → Bad) after a bit."),
                (
                    "p_bad_to_good",
                    p.clone(),
                    "P(Bad → Good) after a bit (above 0).",
                ),
                ("good_loss", p.clone(), "Bit-loss probability in Good."),
                ("bad_loss", p.clone(), "Bit-loss probability in Bad."),
            ],
            json!({"model": "gilbert_elliott", "p_good_to_bad": 1e-6, "p_bad_to_good": 1e-3,
                "good_loss": 0.0, "bad_loss": 0.5}),
        ),
        (
            "gilbert_elliott",
            "gilbert_elliott, per frame",
            "Gilbert's channel clocked per frame, from the two numbers usually published: every \
          frame in Bad is lost, none in Good; P(Bad → Good) = 1/mean_burst and P(Good → Bad) \
          is set so that the long-run loss is mean_loss.",
            vec![
                (
                    "mean_loss",
                    p.clone(),
                    "Long-run fraction of frames lost (below 1).",
                ),
                (
                    "mean_burst",
                    burst_len,
                    "Mean number of consecutive frames lost (at least 1).",
                ),
            ],
            json!({"model": "gilbert_elliott", "mean_loss": 0.05, "mean_burst": 3.0}),
        ),
    ]
}

/// `burst`, `on_off` and `drop_list`.
fn scripted_forms(gen: &mut SchemaGenerator) -> Vec<Form> {
    let p = gen.subschema_for::<Probability>();
    let d = gen.subschema_for::<Duration>();
    let size = gen.subschema_for::<ByteSize>();
    let count = u32::json_schema(gen);
    let ordinals = Vec::<u64>::json_schema(gen);
    vec![
        (
            "burst",
            "burst: k frames every N bytes (TULIP Exp. 5a)",
            "Bursts of data-frame losses spread evenly over the run (TULIP Exp. 5a: bursts of 2, \
          4 and 6 packets every 64 KB of data). Only frames with payload count and can be \
          lost; once the payload sent outside bursts reaches `every`, the next `length` data \
          frames are lost and the count keeps its remainder. The run does not start with a \
          burst.",
            vec![
                ("length", count.clone(), "Data frames lost per burst."),
                (
                    "every",
                    size,
                    "Payload bytes between bursts (\"64KB\" is 64,000 bytes).",
                ),
            ],
            json!({"model": "burst", "length": 4, "every": "64KB"}),
        ),
        (
            "on_off",
            "on_off: ON/OFF error phases (the survey §3.1)",
            "Exponentially distributed OFF and ON phases alternate in real time, starting OFF; \
          during ON each frame (judged by its first bit) is lost with probability on_loss, \
          during OFF none (the survey's one-second and ten-second dropping phases).",
            vec![
                ("mean_on", d.clone(), "Mean length of an ON (lossy) phase."),
                ("mean_off", d, "Mean length of an OFF (error-free) phase."),
                ("on_loss", p, "The loss probability of a frame during ON."),
            ],
            json!({"model": "on_off", "mean_on": "1s", "mean_off": "1s", "on_loss": 0.1}),
        ),
        (
            "drop_list",
            "drop_list: exactly these frames",
            "Exactly the listed frames are lost: 1-based ordinals among every frame sent in this \
          direction (data, ACKs and control frames alike). For tests and for replaying a \
          published loss pattern.",
            vec![(
                "packets",
                ordinals,
                "The ordinals of the frames to lose, in any order.",
            )],
            json!({"model": "drop_list", "packets": [5, 6, 12]}),
        ),
    ]
}

impl JsonSchema for ErrorModelSpec {
    fn schema_name() -> String {
        "ErrorModelSpec".into()
    }

    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        let one_of = forms(gen).into_iter().map(form_schema).collect();
        SchemaObject {
            metadata: Some(Box::new(Metadata {
                description: Some(
                    "An error model: a table whose `model` names the form, e.g. \
                     `{ model = \"ber\", ber = 15e-6 }`. Each link direction has its own \
                     model instance and random stream. Default `{ model = \"none\" }`."
                        .into(),
                ),
                ..Default::default()
            })),
            subschemas: Some(Box::new(SubschemaValidation {
                one_of: Some(one_of),
                ..Default::default()
            })),
            ..Default::default()
        }
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_example_reads_back_and_validates() {
        let mut gen = SchemaGenerator::default();
        let forms = forms(&mut gen);
        assert_eq!(forms.len(), 9);
        for (tag, title, _, fields, example) in forms {
            let keys: Vec<&str> = example
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            for (name, _, _) in &fields {
                assert!(keys.contains(name), "{title}: example lacks {name}");
            }
            assert_eq!(keys.len(), fields.len() + 1, "{title}: {keys:?}");
            assert_eq!(example["model"], tag);
            let spec: ErrorModelSpec =
                serde_json::from_value(example.clone()).unwrap_or_else(|e| panic!("{title}: {e}"));
            spec.validate().unwrap_or_else(|e| panic!("{title}: {e}"));
        }
    }

    #[test]
    fn the_three_gilbert_elliott_forms_are_spelled_out() {
        let schema = serde_json::to_value(schemars::schema_for!(ErrorModelSpec)).unwrap();
        let forms = schema["oneOf"].as_array().unwrap();
        let ge: Vec<&Value> = forms
            .iter()
            .filter(|f| f["properties"]["model"]["enum"][0] == "gilbert_elliott")
            .collect();
        assert_eq!(ge.len(), 3);
        let required: Vec<Vec<&str>> = ge
            .iter()
            .map(|f| {
                let mut r: Vec<&str> = f["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                r.sort_unstable();
                r
            })
            .collect();
        assert_eq!(
            required[0],
            ["bad_ber", "good_ber", "mean_bad", "mean_good", "model"]
        );
        assert_eq!(
            required[1],
            [
                "bad_loss",
                "good_loss",
                "model",
                "p_bad_to_good",
                "p_good_to_bad"
            ]
        );
        assert_eq!(required[2], ["mean_burst", "mean_loss", "model"]);
    }
}
