//! Error-model specs: the scenario file's forms parse, validate and build; validation names
//! the missing, extra or bad field; building never panics on an invalid spec.

use super::super::*;
use super::{frame_at, on_off, rng};

#[derive(serde::Deserialize)]
struct Link {
    errors: ErrorModelSpec,
}

fn parse(toml_value: &str) -> ErrorModelSpec {
    toml::from_str::<Link>(&format!("errors = {toml_value}"))
        .unwrap_or_else(|e| panic!("{toml_value}: {e}"))
        .errors
}

/// Recognises the variant a spec should build.
type BuildsAs = fn(&AnyErrorModel) -> bool;

#[test]
fn scenario_file_forms_parse_validate_and_build() {
    let cases: [(&str, BuildsAs); 9] = [
        (r#"{ model = "none" }"#, |m| m.is_none()),
        (r#"{ model = "ber", ber = 15e-6 }"#, |m| {
            matches!(m, AnyErrorModel::Ber(_))
        }),
        (r#"{ model = "per", per = 0.05 }"#, |m| {
            matches!(m, AnyErrorModel::Per(_))
        }),
        (
            r#"{ model = "gilbert_elliott", mean_good = "1s", mean_bad = "100ms", good_ber = 1e-6, bad_ber = 1e-2 }"#,
            |m| matches!(m, AnyErrorModel::GilbertElliottTimed(_)),
        ),
        (
            r#"{ model = "gilbert_elliott", p_good_to_bad = 1e-5, p_bad_to_good = 1e-3, good_loss = 1e-6, bad_loss = 0.5 }"#,
            |m| matches!(m, AnyErrorModel::GilbertElliottPerBit(_)),
        ),
        (
            r#"{ model = "gilbert_elliott", mean_loss = 0.05, mean_burst = 3 }"#,
            |m| matches!(m, AnyErrorModel::GilbertElliottPerFrame(_)),
        ),
        (r#"{ model = "burst", length = 4, every = "64KB" }"#, |m| {
            matches!(m, AnyErrorModel::Burst(_))
        }),
        (
            r#"{ model = "on_off", mean_on = "1s", mean_off = "1s", on_loss = 0.2 }"#,
            |m| matches!(m, AnyErrorModel::OnOff(_)),
        ),
        (r#"{ model = "drop_list", packets = [3, 7] }"#, |m| {
            matches!(m, AnyErrorModel::DropList(_))
        }),
    ];
    for (text, is_expected) in cases {
        let spec = parse(text);
        assert_eq!(spec.validate(), Ok(()), "{text}");
        let model = spec.build(1_000_000, rng(1));
        assert!(is_expected(&model), "{text} built {model:?}");
    }
    assert_eq!(
        parse(r#"{ model = "burst", length = 4, every = "64KB" }"#),
        ErrorModelSpec::Burst {
            length: 4,
            every: ByteSize(64_000)
        }
    );
}

fn ge(text: &str) -> ErrorModelSpec {
    parse(&format!(r#"{{ model = "gilbert_elliott", {text} }}"#))
}

fn error_of(spec: &ErrorModelSpec) -> SpecError {
    match spec.validate() {
        Err(e) => e,
        Ok(()) => panic!("{spec:?} validated"),
    }
}

#[test]
fn validate_names_the_missing_extra_or_bad_gilbert_elliott_field() {
    let e = error_of(&ge(r#"mean_good = "1s", good_ber = 1e-6, bad_ber = 1e-2"#));
    assert_eq!(e.field, "mean_bad");
    assert!(
        e.expected.contains("positive duration such as \"100ms\""),
        "{e}"
    );
    assert!(e.expected.contains("timed form"), "{e}");

    let e = error_of(&ge(
        r#"mean_good = "1s", mean_bad = "100ms", good_ber = 1e-6, bad_ber = 1e-2, mean_loss = 0.1"#,
    ));
    assert_eq!(e.field, "mean_loss");
    assert!(e.expected.contains("exactly one form"), "{e}");

    let e = error_of(&ErrorModelSpec::GilbertElliott(
        GilbertElliottSpec::default(),
    ));
    assert_eq!(e.field, "");
    assert!(
        e.expected.contains("mean_loss, mean_burst (per-frame)"),
        "{e}"
    );

    let e = error_of(&ge(
        r#"p_good_to_bad = 1e-5, p_bad_to_good = 1e-3, good_loss = 1e-6"#,
    ));
    assert_eq!(e.field, "bad_loss");

    let e = error_of(&ge(
        r#"mean_good = "0s", mean_bad = "100ms", good_ber = 1e-6, bad_ber = 1e-2"#,
    ));
    assert_eq!(e.field, "mean_good");
    assert!(e.expected.contains("positive duration"), "{e}");

    let e = error_of(&ge(
        r#"p_good_to_bad = 1e-5, p_bad_to_good = 0, good_loss = 1e-6, bad_loss = 0.5"#,
    ));
    assert_eq!(e.field, "p_bad_to_good");

    let e = error_of(&ge("mean_loss = 0.05, mean_burst = 0.5"));
    assert_eq!(e.field, "mean_burst");
    assert!(e.expected.contains("at least 1"), "{e}");

    let e = error_of(&ge("mean_loss = 1.0, mean_burst = 3"));
    assert_eq!(e.field, "mean_loss");
    assert!(e.expected.contains("below 1"), "{e}");

    // π_B = 0.9 needs bursts of at least 0.9/0.1 = 9 frames for Good runs of one frame.
    let e = error_of(&ge("mean_loss = 0.9, mean_burst = 2"));
    assert_eq!(e.field, "mean_burst");
    assert!(e.expected.contains("9.0000"), "{e}");
    assert_eq!(ge("mean_loss = 0.9, mean_burst = 9").validate(), Ok(()));

    let e = error_of(&ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
        mean_loss: Some(Probability(0.1)),
        mean_burst: Some(f64::NAN),
        ..Default::default()
    }));
    assert_eq!(e.field, "mean_burst");
}

#[test]
fn validate_checks_every_other_model() {
    let cases = [
        (
            ErrorModelSpec::Ber {
                ber: Probability(1.5),
            },
            "ber",
        ),
        (
            ErrorModelSpec::Per {
                per: Probability(f64::NAN),
            },
            "per",
        ),
        (
            ErrorModelSpec::Burst {
                length: 0,
                every: ByteSize(64_000),
            },
            "length",
        ),
        (
            ErrorModelSpec::Burst {
                length: 4,
                every: ByteSize(0),
            },
            "every",
        ),
        (on_off(0, 1_000, 0.2), "mean_on"),
        (on_off(1_000, 0, 0.2), "mean_off"),
        (on_off(1_000, 1_000, -0.1), "on_loss"),
        (
            ErrorModelSpec::DropList {
                packets: vec![1, 0],
            },
            "packets[1]",
        ),
    ];
    for (spec, field) in cases {
        let e = error_of(&spec);
        assert_eq!(e.field, field, "{spec:?}");
        assert!(!e.expected.is_empty());
    }
    assert_eq!(
        error_of(&on_off(0, 1_000, 0.2)).to_string(),
        "mean_on: expected a positive duration such as \"1s\""
    );
    // Probabilities out of range never reach validate from a file: serde refuses them.
    assert!(toml::from_str::<Link>(r#"errors = { model = "per", per = 1.5 }"#).is_err());
}

#[test]
fn build_never_panics_on_an_invalid_spec() {
    let specs = [
        ErrorModelSpec::GilbertElliott(GilbertElliottSpec::default()),
        ErrorModelSpec::GilbertElliott(GilbertElliottSpec {
            mean_loss: Some(Probability(1.0)),
            mean_burst: Some(0.0),
            ..Default::default()
        }),
        ErrorModelSpec::Ber {
            ber: Probability(f64::NAN),
        },
        ErrorModelSpec::Burst {
            length: 3,
            every: ByteSize(0),
        },
        on_off(0, 0, 2.0),
        ErrorModelSpec::DropList {
            packets: vec![0, 0, 2],
        },
    ];
    for spec in specs {
        let mut model = spec.build(0, rng(1));
        for k in 0..100u64 {
            let _ = model.frame_lost(&frame_at(k * 1_000, 800, 1_000_000, 100));
        }
    }
    // An incomplete Gilbert–Elliott spec builds the error-free model.
    assert!(
        ErrorModelSpec::GilbertElliott(GilbertElliottSpec::default())
            .build(1_000_000, rng(1))
            .is_none()
    );
}
