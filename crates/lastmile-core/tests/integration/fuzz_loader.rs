//! Fuzzing the scenario loader: mutated scenario files never panic, and
//! every refusal is one bounded line naming the file and the field.
//!
//! The corpus is `tests/fuzz_corpus/` (every example, fixture and experiment file, plus
//! seeds covering each agent, cell MAC, link layer and error model), committed with the
//! code. Each case takes one corpus file, applies a few structural mutations (a value
//! replaced by a hostile one: huge or negative quantities, path-like names, control
//! characters, every enum name, extreme numbers, wrong types; a key deleted, an unknown key
//! added, an array entry repeated), writes it out as TOML, YAML or JSON, sometimes damages
//! the text itself (truncated, a character inserted or deleted), sometimes adds `--set`
//! overrides, and loads it. Then:
//! - loading returns, never panics;
//! - a refusal is one line, at most `LINE_MAX` characters, starts with the file name and
//!   names the field (or is a whole-file problem: syntax, empty file);
//! - a scenario that loads also passes `sim::check` (the world builds: `validate` refuses
//!   everything `run` would refuse at start), and runs, for up to two progress periods,
//!   without a panic or an error.
//!
//! `LASTMILE_FUZZ_CASES` sets the number of cases (default 256, a few seconds in a debug
//! build, which CI runs); proptest keeps any failing case in `proptest-regressions/`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::OnceLock;

use lastmile_core::scenario::{load_path, load_str, Format, ScenarioError};
use lastmile_core::sim::{
    check, run_observed, Control, Progress, RunObserver, RunOptions, SimError,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use serde_json::{json, Value};

/// The longest error line accepted.
const LINE_MAX: usize = 1500;

/// The corpus as documents: each file read by the loader itself (TOML 1.1 inline tables
/// included) and written back in its normalised form, every default spelled out, so that
/// every key is there to be mutated.
fn corpus() -> &'static [(String, Value)] {
    static CORPUS: OnceLock<Vec<(String, Value)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("the fuzz corpus")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                let s = load_path(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
                (name, serde_json::to_value(&s).expect("serializable"))
            })
            .collect()
    })
}

/// Hostile and boundary values: quantities out of range, names that are paths, every enum
/// name the schema knows, extreme numbers, wrong types.
fn hostile() -> Vec<Value> {
    let words = [
        "",
        " ",
        "0",
        "-1",
        "1e308s",
        "2e10s",
        "100000000s",
        "100000001s",
        "1e-300s",
        "0s",
        "-5ms",
        "1us",
        "1e400MB",
        "1e16B",
        "1000000GB",
        "0B",
        "1B",
        "1500B",
        "65495B",
        "65496B",
        "1e400Mbps",
        "0.1bps",
        "1bps",
        "1000Gbps",
        "1001Gbps",
        "10Mbps",
        "0pkt",
        "1e400pkt",
        "100pkt",
        "NaN",
        "inf",
        "../../x",
        "/abs/x",
        "a/b",
        ".hidden",
        "\u{0}",
        "x\ny",
        "🦀",
        "stopandwait",
        "stop_and_wait",
        "tulip",
        "none",
        "dcf",
        "fama",
        "ideal",
        "p2p",
        "snoop",
        "wtcp",
        "itcp",
        "lle",
        "bulk",
        "poisson",
        "udp_saturate",
        "ber",
        "per",
        "gilbert_elliott",
        "burst",
        "on_off",
        "drop_list",
        "chain",
        "wlan",
        "adhoc",
        "802.11",
        "802.11b",
        "long",
        "short",
        "fh",
        "bs",
        "mh",
        "ap",
        "n1",
        "n2",
        "mh1",
        "delayed",
        "every",
        "tahoe",
        "reno",
        "newreno",
        "exact",
        "recent",
    ];
    let mut out: Vec<Value> = words.iter().map(|w| json!(w)).collect();
    out.push(json!("x".repeat(5000)));
    for n in [
        json!(0),
        json!(1),
        json!(-1),
        json!(2),
        json!(3),
        json!(8),
        json!(64),
        json!(128),
        json!(129),
        json!(1000),
        json!(1001),
        json!(16384),
        json!(16385),
        json!(65536),
        json!(i64::MAX),
        json!(i64::MIN),
        json!(4_294_967_296u64),
        json!(0.5),
        json!(1.5),
        json!(1e-300),
        json!(1e300),
        json!(0.05),
        json!(true),
        json!(null),
        json!([]),
        json!({}),
        json!([1, 2]),
        json!({ "model": "none" }),
        json!({ "kind": "bulk", "bytes": "1KB" }),
    ] {
        out.push(n);
    }
    out
}

/// Every path in `doc`, depth first.
fn paths(doc: &Value) -> Vec<Vec<PathStep>> {
    fn walk(v: &Value, at: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
        out.push(at.clone());
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    at.push(PathStep::Key(k.clone()));
                    walk(child, at, out);
                    at.pop();
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    at.push(PathStep::Index(i));
                    walk(child, at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, &mut Vec::new(), &mut out);
    out
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn node_mut<'a>(doc: &'a mut Value, path: &[PathStep]) -> Option<&'a mut Value> {
    path.iter().try_fold(doc, |v, step| match (step, v) {
        (PathStep::Key(k), Value::Object(m)) => m.get_mut(k),
        (PathStep::Index(i), Value::Array(a)) => a.get_mut(*i),
        _ => None,
    })
}

/// One structural change: `which` picks the node (modulo the number of nodes).
#[derive(Clone, Debug)]
enum Mutation {
    Replace {
        which: usize,
        value: usize,
    },
    Delete {
        which: usize,
    },
    AddKey {
        which: usize,
        key: String,
        value: usize,
    },
    Repeat {
        which: usize,
        times: usize,
    },
}

fn mutate(doc: &mut Value, m: &Mutation, values: &[Value]) {
    let all = paths(doc);
    let pick = |which: usize| all[which % all.len()].clone();
    match m {
        Mutation::Replace { which, value } => {
            if let Some(node) = node_mut(doc, &pick(*which)) {
                *node = values[value % values.len()].clone();
            }
        }
        Mutation::Delete { which } => {
            let path = pick(*which);
            if let Some((last, parent)) = path.split_last() {
                match (node_mut(doc, parent), last) {
                    (Some(Value::Object(m)), PathStep::Key(k)) => {
                        m.remove(k);
                    }
                    (Some(Value::Array(a)), PathStep::Index(i)) if *i < a.len() => {
                        a.remove(*i);
                    }
                    _ => {}
                }
            }
        }
        Mutation::AddKey { which, key, value } => {
            if let Some(Value::Object(m)) = node_mut(doc, &pick(*which)) {
                m.insert(key.clone(), values[value % values.len()].clone());
            }
        }
        Mutation::Repeat { which, times } => {
            if let Some(Value::Array(a)) = node_mut(doc, &pick(*which)) {
                if let Some(first) = a.first().cloned() {
                    a.extend(std::iter::repeat_n(first, *times));
                }
            }
        }
    }
}

fn mutations() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), any::<usize>()).prop_map(|(which, value)| Mutation::Replace { which, value }),
        1 => any::<usize>().prop_map(|which| Mutation::Delete { which }),
        1 => (any::<usize>(), "[a-z_]{1,12}", any::<usize>())
            .prop_map(|(which, key, value)| Mutation::AddKey { which, key, value }),
        1 => (any::<usize>(), prop_oneof![1usize..4, Just(16_384usize)])
            .prop_map(|(which, times)| Mutation::Repeat { which, times }),
    ]
}

/// A damage to the text itself: truncate, insert a character, delete a span.
#[derive(Clone, Debug)]
enum TextDamage {
    None,
    Truncate(usize),
    Insert(usize, char),
    Delete(usize, usize),
}

fn damage(text: &str, d: &TextDamage) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| if chars.is_empty() { 0 } else { i % chars.len() };
    match d {
        TextDamage::None => text.to_string(),
        TextDamage::Truncate(i) => chars[..at(*i)].iter().collect(),
        TextDamage::Insert(i, c) => {
            let mut c2 = chars.clone();
            c2.insert(at(*i), *c);
            c2.into_iter().collect()
        }
        TextDamage::Delete(i, n) => {
            let start = at(*i);
            let end = (start + n).min(chars.len());
            chars[..start].iter().chain(&chars[end..]).collect()
        }
    }
}

fn text_damage() -> impl Strategy<Value = TextDamage> {
    prop_oneof![
        6 => Just(TextDamage::None),
        1 => any::<usize>().prop_map(TextDamage::Truncate),
        1 => (any::<usize>(), prop_oneof![Just('{'), Just('"'), Just('\n'), Just('['), Just('='), Just(':'), any::<char>()])
            .prop_map(|(i, c)| TextDamage::Insert(i, c)),
        1 => (any::<usize>(), 1usize..40).prop_map(|(i, n)| TextDamage::Delete(i, n)),
    ]
}

/// The document written in `format`; None when the format cannot hold it (TOML has no
/// null, and needs a table at the top).
fn write(doc: &Value, format: Format) -> Option<String> {
    match format {
        Format::Toml => toml::to_string(doc).ok(),
        Format::Yaml => serde_yaml::to_string(doc).ok(),
        Format::Json => serde_json::to_string_pretty(doc).ok(),
    }
}

/// Whole-file problems have no field to name.
fn is_whole_file(e: &ScenarioError) -> bool {
    e.path.is_empty()
        && (e.expected.starts_with("invalid ")
            || e.expected.starts_with("the file is empty")
            || e.expected.starts_with("the file holds ")
            || e.expected.starts_with("the scenario is larger than ")
            || e.expected.starts_with("brackets nested more than ")
            || e.file.contains("(--set "))
}

fn check_refusal(e: &ScenarioError, origin: &str) -> Result<(), TestCaseError> {
    let line = e.to_string();
    prop_assert!(!line.contains(['\n', '\r']), "not one line: {line:?}");
    prop_assert!(
        line.chars().count() <= LINE_MAX,
        "{} chars: {line}",
        line.len()
    );
    prop_assert!(line.starts_with(origin), "does not name the file: {line}");
    prop_assert!(
        !e.path.is_empty() || is_whole_file(e),
        "names no field: {line}"
    );
    Ok(())
}

/// Stops a run after two progress periods.
struct Brief(usize);
impl RunObserver for Brief {
    fn on_progress(&mut self, _: &Progress) -> Control {
        self.0 += 1;
        if self.0 >= 2 {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

/// A scenario text cut for a failure message.
fn short(text: &str) -> String {
    text.chars().take(3000).collect()
}

fn cases() -> u32 {
    std::env::var("LASTMILE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(Config {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    })]

    #[test]
    fn mutated_scenarios_never_panic_and_refusals_are_one_line_naming_file_and_field(
        file in any::<usize>(),
        changes in prop::collection::vec(mutations(), 1..5),
        format in prop_oneof![Just(Format::Toml), Just(Format::Yaml), Just(Format::Json)],
        text_hurt in text_damage(),
        sets in prop::collection::vec((any::<usize>(), any::<usize>()), 0..2),
    ) {
        let corpus = corpus();
        let (_name, original) = &corpus[file % corpus.len()];
        let values = hostile();
        let mut doc = original.clone();
        for m in &changes {
            mutate(&mut doc, m, &values);
        }
        let Some(text) = write(&doc, format) else { return Ok(()); };
        let text = damage(&text, &text_hurt);
        // Overrides on paths of the original document, with hostile values.
        let keys: Vec<String> = paths(original)
            .into_iter()
            .filter(|p| !p.is_empty())
            .map(|p| p.iter().map(|s| match s {
                PathStep::Key(k) => k.clone(),
                PathStep::Index(i) => i.to_string(),
            }).collect::<Vec<_>>().join("."))
            .collect();
        let overrides: Vec<String> = sets
            .iter()
            .map(|(k, v)| {
                let value = &values[v % values.len()];
                let literal = match value { Value::String(s) => s.clone(), other => other.to_string() };
                format!("{}={literal}", keys[k % keys.len()])
            })
            .collect();
        let origin = "fuzz.scenario";
        let loaded = catch_unwind(AssertUnwindSafe(|| load_str(&text, format, origin, &overrides)));
        let scenario = match loaded {
            Err(_) => return Err(TestCaseError::fail(format!("panic loading:\n{}\n{overrides:?}", short(&text)))),
            Ok(Err(e)) => return check_refusal(&e, origin),
            Ok(Ok(s)) => s,
        };
        let options = RunOptions::default();
        let checked = catch_unwind(AssertUnwindSafe(|| check(&scenario, &options)));
        match checked {
            Err(_) => return Err(TestCaseError::fail(format!("panic in check:\n{}", short(&text)))),
            Ok(Err(e)) => return Err(TestCaseError::fail(format!("loads but check refuses: {e}\n{}", short(&text)))),
            Ok(Ok(_)) => {}
        }
        let ran = catch_unwind(AssertUnwindSafe(|| run_observed(&scenario, &options, &mut Brief(0))));
        match ran {
            Err(_) => Err(TestCaseError::fail(format!("panic in run:\n{}", short(&text)))),
            Ok(Err(SimError::Io(_)) | Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(TestCaseError::fail(format!("run failed: {e}\n{}", short(&text)))),
        }?;
    }
}

/// Size and nesting bounds are whole-file refusals: one line naming the file, no field
/// (a mutation that repeats a value 16,384 times makes a JSON file over the 16 MiB bound).
#[test]
fn an_oversized_or_too_deeply_nested_file_is_a_whole_file_refusal() {
    let origin = "fuzz.scenario";
    let huge = format!("{{\"pad\": \"{}\"}}", "x".repeat(17 << 20));
    let deep = format!("{{\"a\": {}{}}}", "[".repeat(100), "]".repeat(100));
    for text in [huge, deep] {
        let e = load_str(&text, Format::Json, origin, &[]).unwrap_err();
        check_refusal(&e, origin).unwrap_or_else(|f| panic!("{f}"));
    }
}

#[test]
fn the_corpus_loads_as_committed() {
    for (name, doc) in corpus() {
        let text = serde_json::to_string(doc).unwrap();
        let s = load_str(&text, Format::Json, name, &[]).unwrap_or_else(|e| panic!("{e}"));
        check(&s, &RunOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
