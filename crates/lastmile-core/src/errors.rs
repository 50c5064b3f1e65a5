//! `ScenarioError`: what was wrong with a scenario, as one line naming the file, the field
//! path, the bad value and what was expected; plus the field-path type and the
//! "did you mean" helper the loader and the checks share.
//!
//! The ground floor of the crate: the components (agents, applications, TCP, the MACs and
//! link layers, error models) check their own settings and report with `ScenarioError`
//! without knowing the scenario layer above them, which places the errors under the file
//! and the field path.
//!
//! The line is always one line of bounded length, whatever the file holds: control
//! characters are escaped, a bad value is quoted up to `QUOTE_MAX` characters and then
//! "…", and lists of allowed names stop after `LIST_MAX` entries.

use std::fmt;

/// The most characters of a bad value an error quotes before "…".
pub const QUOTE_MAX: usize = 80;
/// The most names a list in an error shows before "… (N more)".
pub(crate) const LIST_MAX: usize = 12;
/// Bounds on the other parts of the line (field path, expectation, hint, file).
const PATH_MAX: usize = 160;
const EXPECTED_MAX: usize = 600;
const HINT_MAX: usize = 160;
const FILE_MAX: usize = 300;

/// A problem with a scenario file or an override.
///
/// Displayed on one line:
/// - `tulip.toml: flow[0].tcp.rwnd: got "42", expected a size with a unit, e.g. "42KB"`
/// - `tulip.toml: flow[0].tcp.rwind: unknown key, expected one of variant, mss, rwnd, ... (did you mean "rwnd"?)`
/// - `tulip.toml: invalid TOML at line 3, column 7: ...` (whole-file problems: empty `path`)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or other origin) the text came from; for a bad `--set`, the file followed
    /// by `(--set key=value)`.
    pub file: String,
    /// The field path as the file writes it, e.g. `flow[0].tcp.rwnd`; empty for the whole
    /// file.
    pub path: String,
    /// The offending value as written (strings quoted), when there is one.
    pub value: Option<String>,
    /// What was expected. When `value` is `None` this is the whole description of the
    /// problem, e.g. `unknown key, expected one of ...` or `missing required key`.
    pub expected: String,
    /// A suggestion, e.g. `did you mean "rwnd"?`.
    pub hint: Option<String>,
}

impl ScenarioError {
    /// An error at `path` for a bad `value`.
    pub(crate) fn bad_value(path: impl ToString, value: String, expected: impl ToString) -> Self {
        ScenarioError {
            file: String::new(),
            path: path.to_string(),
            value: Some(value),
            expected: expected.to_string(),
            hint: None,
        }
    }

    /// An error at `path` described by one clause (no single bad value).
    pub(crate) fn problem(path: impl ToString, description: impl ToString) -> Self {
        ScenarioError {
            file: String::new(),
            path: path.to_string(),
            value: None,
            expected: description.to_string(),
            hint: None,
        }
    }

    pub(crate) fn with_hint(mut self, hint: Option<String>) -> Self {
        self.hint = hint;
        self
    }

    /// The same error with its path placed under `prefix` (a check that knows only its own
    /// table's keys reports `bytes`; its caller makes that `flow[0].app.bytes`).
    pub(crate) fn under(mut self, prefix: &str) -> Self {
        self.path = match (self.path.is_empty(), self.path.starts_with('[')) {
            (true, _) => prefix.to_string(),
            (false, true) => format!("{prefix}{}", self.path),
            (false, false) => format!("{prefix}.{}", self.path),
        };
        self
    }

    pub(crate) fn in_file(mut self, file: &str) -> Self {
        self.file = file.to_string();
        self
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.file.is_empty() {
            write!(f, "{}: ", clip(&self.file, FILE_MAX))?;
        }
        if !self.path.is_empty() {
            write!(f, "{}: ", clip(&self.path, PATH_MAX))?;
        }
        let expected = clip(&self.expected, EXPECTED_MAX);
        match &self.value {
            Some(v) => write!(f, "got {}, expected {expected}", clip_value(v))?,
            None => f.write_str(&expected)?,
        }
        if let Some(h) = &self.hint {
            write!(f, " ({})", clip(h, HINT_MAX))?;
        }
        Ok(())
    }
}

/// `s` on one line (control characters escaped as `\n`, `\t`, `\u{..}`) and at most `max`
/// characters, the last of them "…" when it was cut.
pub fn clip(s: &str, max: usize) -> String {
    let escaped = |c: char| match c {
        '\n' => "\\n".to_string(),
        '\r' => "\\r".to_string(),
        '\t' => "\\t".to_string(),
        c if c.is_control() => c.escape_unicode().to_string(),
        c => c.to_string(),
    };
    let pieces: Vec<String> = s.chars().map(escaped).collect();
    let width: usize = pieces.iter().map(|p| p.chars().count()).sum();
    if width <= max {
        return pieces.concat();
    }
    let mut out = String::new();
    let mut used = 0;
    for piece in pieces {
        let w = piece.chars().count();
        if used + w > max.saturating_sub(1) {
            break;
        }
        used += w;
        out.push_str(&piece);
    }
    out.push('…');
    out
}

/// A value as quoted in an error: a quoted string keeps its quotes around the clipped text.
pub(crate) fn clip_value(v: &str) -> String {
    match v.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) if v.len() >= 2 => format!("\"{}\"", clip(inner, QUOTE_MAX)),
        _ => clip(v, QUOTE_MAX + 2),
    }
}

impl std::error::Error for ScenarioError {}

/// One step of a field path: a table key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    Key(String),
    Index(usize),
}

/// Formats a path as the file writes it: `flow[0].tcp.rwnd`. A key that is not a bare
/// TOML key (ASCII letters, digits, `-`, `_`) is quoted, as TOML quotes it:
/// `flow[0].tcp."rw:nd"`, so the path stays readable whatever the key holds.
pub(crate) fn path_string(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                let bare = !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
                if bare {
                    out.push_str(k);
                } else {
                    out.push_str(&format!("{k:?}"));
                }
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// `did you mean "x"?` for the candidate closest to `got`, if one is close enough: a small
/// edit distance (transpositions count once) or a high Jaro–Winkler similarity.
pub(crate) fn did_you_mean<'a>(
    got: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let got_lower = got.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for cand in candidates {
        let cand_lower = cand.to_lowercase();
        let dist = strsim::damerau_levenshtein(&got_lower, &cand_lower);
        let allowed = (cand.chars().count() / 3).clamp(1, 3);
        let close = dist <= allowed || strsim::jaro_winkler(&got_lower, &cand_lower) >= 0.9;
        if close && best.is_none_or(|(d, _)| dist < d) {
            best = Some((dist, cand));
        }
    }
    best.map(|(_, c)| format!("did you mean \"{c}\"?"))
}

/// `a, b, c` from a list of names; after a dozen, `… (N more)`.
pub fn join_names<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    join(names)
}

/// `a, b, c` from a list of names; after `LIST_MAX` names, `… (N more)`.
pub(crate) fn join<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut shown = Vec::new();
    let mut more = 0usize;
    for name in names {
        if shown.len() < LIST_MAX {
            shown.push(clip(name, 40));
        } else {
            more += 1;
        }
    }
    let mut out = shown.join(", ");
    if more > 0 {
        out.push_str(&format!(", … ({more} more)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_error_displays_on_one_line() {
        let e = ScenarioError::bad_value("flow[0].tcp.rwnd", "\"42\"".into(), "a size")
            .in_file("tulip.toml");
        assert_eq!(
            e.to_string(),
            "tulip.toml: flow[0].tcp.rwnd: got \"42\", expected a size"
        );
        let e = ScenarioError::problem("", "the file is empty").in_file("x.toml");
        assert_eq!(e.to_string(), "x.toml: the file is empty");
    }

    #[test]
    fn scenario_error_is_one_bounded_line_whatever_the_value() {
        let long = "x".repeat(10_000);
        let e = ScenarioError::bad_value("name", format!("\"{long}\""), "an identifier")
            .in_file("t.toml");
        let line = e.to_string();
        assert!(line.len() < 200, "{} chars", line.len());
        assert!(
            line.contains(&format!("got \"{}…\"", "x".repeat(79))),
            "{line}"
        );
        let e = ScenarioError::bad_value("flow[0].name", "\"a\nb\u{0}\"".into(), "one line")
            .in_file("t.toml");
        assert_eq!(
            e.to_string(),
            "t.toml: flow[0].name: got \"a\\nb\\u{0}\", expected one line"
        );
        // A short value is not cut.
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "ab…");
        let many: Vec<String> = (0..100).map(|i| format!("n{i}")).collect();
        let listed = join(many.iter().map(String::as_str));
        assert!(listed.ends_with("n11, … (88 more)"), "{listed}");
    }

    #[test]
    fn scenario_did_you_mean_finds_typos_and_transpositions() {
        let keys = ["variant", "mss", "rwnd", "timestamps"];
        assert_eq!(
            did_you_mean("rwind", keys).as_deref(),
            Some("did you mean \"rwnd\"?")
        );
        assert_eq!(
            did_you_mean("bre", ["none", "ber", "per"]).as_deref(),
            Some("did you mean \"ber\"?")
        );
        assert_eq!(did_you_mean("zzzzzz", keys), None);
        assert_eq!(
            path_string(&[
                Seg::Key("flow".into()),
                Seg::Index(0),
                Seg::Key("tcp".into())
            ]),
            "flow[0].tcp"
        );
        assert_eq!(
            path_string(&[Seg::Key("a:b".into()), Seg::Key("".into())]),
            "\"a:b\".\"\""
        );
    }
}
