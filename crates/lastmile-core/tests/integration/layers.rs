//! The crate's layers stand one above the other (`src/lib.rs`): read from the source, each
//! module imports only modules of its own floor or below. The floors, bottom up:
//!
//! 1. `engine`, `ids`, `units`, `ranges`, `pyfmt`, `errors` (the validation error every component
//!    reports its settings' problems with), `short_form` (a family member by name or as
//!    its table);
//! 2. `packet` (every wire format: IPv4, TCP, UDP, WTP's PDUs, WTCP-Sinha's packets);
//! 3. `net`, `error_model`, `metrics`;
//! 4. the components: `wireless`, `tcp`, `transport`, `apps`, `mobility`;
//! 5. `agents` (on a node's forwarding path, using TCP and the transports);
//! 6. `scenario` (composes the components' settings into a checked scenario);
//! 7. `sim` (builds and runs the world).
//!
//! Test code (`tests.rs`, `tests/`, `testkit.rs`, `*_tests.rs` and what follows
//! `#[cfg(test)]` in a file) may use any floor.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each top-level module and its floor.
const FLOORS: &[(&str, u8)] = &[
    ("engine", 1),
    ("ids", 1),
    ("units", 1),
    ("ranges", 1),
    ("errors", 1),
    ("short_form", 1),
    ("pyfmt", 1),
    ("packet", 2),
    ("net", 3),
    ("error_model", 3),
    ("metrics", 3),
    ("wireless", 4),
    ("tcp", 4),
    ("transport", 4),
    ("apps", 4),
    ("mobility", 4),
    ("agents", 5),
    ("scenario", 6),
    ("sim", 7),
];

fn floor(module: &str) -> Option<u8> {
    FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn is_test_file(rel: &Path) -> bool {
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    name == "tests.rs"
        || name == "testkit.rs"
        || name.ends_with("_tests.rs")
        || rel.components().any(|c| c.as_os_str() == "tests")
}

/// The code of a file that is not test code.
fn production_code(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod ")
        .map_or(text, |at| &text[..at])
}

/// The top-level modules `code` names as `crate::<module>`.
fn crate_modules(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue; // `lastmile_core::` or `some_crate::`
        }
        let rest = &code[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    out
}

/// Every import that reaches a higher floor, as "file: module (floor) -> target (floor)".
fn upward_imports() -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let mut found = BTreeMap::new();
    for path in files {
        let rel = path.strip_prefix(src()).expect("under src").to_path_buf();
        if is_test_file(&rel) {
            continue;
        }
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .unwrap_or_default()
            .trim_end_matches(".rs")
            .to_string();
        let Some(own) = floor(&top) else { continue };
        let text = std::fs::read_to_string(&path).expect("readable");
        for target in crate_modules(production_code(&text)) {
            if let Some(theirs) = floor(&target).filter(|&f| f > own) {
                found.insert(
                    format!("{}: {top} ({own}) -> {target} ({theirs})", rel.display()),
                    (),
                );
            }
        }
    }
    found.into_keys().collect()
}

#[test]
fn every_top_level_module_has_a_floor() {
    let mut unknown = Vec::new();
    for entry in std::fs::read_dir(src()).expect("src") {
        let name = entry.expect("entry").file_name();
        let name = name.to_string_lossy();
        let module = name.trim_end_matches(".rs");
        if module != "lib" && floor(module).is_none() {
            unknown.push(module.to_string());
        }
    }
    unknown.sort();
    unknown.dedup();
    assert!(
        unknown.is_empty(),
        "modules without a floor in FLOORS: {unknown:?}"
    );
}

#[test]
fn no_module_imports_from_a_floor_above_its_own() {
    let upward = upward_imports();
    assert!(
        upward.is_empty(),
        "{} imports from a higher floor:\n{}",
        upward.len(),
        upward.join("\n")
    );
}

#[test]
fn the_reader_finds_crate_paths_and_skips_test_code() {
    let code = "use crate::scenario::X;\nfn f() { crate::sim::run(); lastmile_core::sim::y(); }\n\
                #[cfg(test)]\nmod tests { use crate::sim::Z; }\n";
    assert_eq!(crate_modules(production_code(code)), ["scenario", "sim"]);
    assert!(is_test_file(Path::new("wireless/mac/fama_tests.rs")));
    assert!(is_test_file(Path::new("error_model/tests/spec.rs")));
    assert!(!is_test_file(Path::new("agents/snoop.rs")));
}
