//! `ScenarioError`: what was wrong with a scenario, as one line.

use std::fmt;

/// A problem with a scenario file or an override: the file, the field path
/// (`flow[0].tcp.rwnd`, empty for the file as a whole), the bad value and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub path: String,
    pub value: Option<String>,
    pub expected: String,
    pub hint: Option<String>,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file)?;
        if !self.path.is_empty() {
            write!(f, "{}: ", self.path)?;
        }
        if let Some(v) = &self.value {
            write!(f, "got {v}, ")?;
        }
        write!(f, "expected {}", self.expected)?;
        if let Some(h) = &self.hint {
            write!(f, " ({h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}
