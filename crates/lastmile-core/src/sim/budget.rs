//! The event budget a front end holds a run against before it starts: a run whose
//! estimate (`sim::Estimate`) is over it gets a warning, so that one that would take hours
//! is announced instead of silently started. The budget is `LASTMILE_EVENT_BUDGET` read as
//! Python's `float()` reads it (`crate::pyfmt`), 3·10^8 events (about a minute) when unset;
//! the error for a bad value and the warning are worded here once for `lastmile run` and
//! `lastmile-run`, each putting its own `<program>: ` before them.

use crate::pyfmt::{general, parse_float, str_repr};

use super::Estimate;

/// The environment variable that sets the budget.
pub const EVENT_BUDGET_VAR: &str = "LASTMILE_EVENT_BUDGET";

/// The budget when the variable is unset or blank: about a minute at the nominal rate.
pub const DEFAULT_EVENT_BUDGET: f64 = 3e8;

/// The most characters of a bad value an error quotes before "…" (Python's `QUOTE_MAX`).
const QUOTE_MAX: usize = 80;

/// The budget the variable's value `text` sets, or the error that names the variable, the
/// value and what it expects.
pub fn event_budget(text: Option<&str>) -> Result<f64, String> {
    let text = text.unwrap_or("").trim();
    if text.is_empty() {
        return Ok(DEFAULT_EVENT_BUDGET);
    }
    let quoted = clip(&str_repr(text));
    match parse_float(text) {
        None => Err(format!(
            "{EVENT_BUDGET_VAR} = {quoted}: expected a number of events, e.g. 1e9"
        )),
        // NaN is not positive either.
        Some(v) if v.is_nan() || v <= 0.0 => Err(format!(
            "{EVENT_BUDGET_VAR} = {quoted}: expected a positive number of events"
        )),
        Some(v) => Ok(v),
    }
}

/// `text` cut to `QUOTE_MAX` characters, its last one "…" when cut.
fn clip(text: &str) -> String {
    if text.chars().count() <= QUOTE_MAX {
        return text.to_string();
    }
    let kept: String = text.chars().take(QUOTE_MAX - 1).collect();
    format!("{kept}…")
}

impl Estimate {
    /// E.g. `about 2.1e+10 events (~1.2 h at 5 M events/s) over 1e+08 s simulated`.
    pub fn describe(&self) -> String {
        let wall = self.wall_s;
        let span = if wall >= 3600.0 {
            format!("{:.1} h", wall / 3600.0)
        } else if wall >= 60.0 {
            format!("{:.1} min", wall / 60.0)
        } else {
            format!("{wall:.1} s")
        };
        format!(
            "about {} events (~{span} at 5 M events/s) over {} s simulated",
            general(self.events, 2),
            general(self.sim_time_s, 3)
        )
    }
}

/// The warning for a run expected to process more than `budget` events, or None.
pub fn budget_warning(estimate: &Estimate, budget: f64) -> Option<String> {
    (estimate.events > budget).then(|| {
        format!(
            "this run looks big: {}, over the budget of {} events ({EVENT_BUDGET_VAR}); \
             Ctrl-C stops it with a summary of the run so far",
            estimate.describe(),
            general(budget, 2)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(events: f64, sim_time_s: f64) -> Estimate {
        Estimate {
            events,
            sim_time_s,
            wall_s: events / super::super::NOMINAL_EVENTS_PER_S,
        }
    }

    #[test]
    fn a_run_over_the_budget_is_described_as_python_describes_it() {
        // Python: Estimate(2.1e10, 1e8, 4200.0).describe()
        assert_eq!(
            estimate(2.1e10, 1e8).describe(),
            "about 2.1e+10 events (~1.2 h at 5 M events/s) over 1e+08 s simulated"
        );
        assert_eq!(
            estimate(1e9, 300.0).describe(),
            "about 1e+09 events (~3.3 min at 5 M events/s) over 300 s simulated"
        );
        assert_eq!(
            budget_warning(&estimate(450.0, 1.0), 10.0).as_deref(),
            Some(
                "this run looks big: about 4.5e+02 events (~0.0 s at 5 M events/s) over 1 s \
                 simulated, over the budget of 10 events (LASTMILE_EVENT_BUDGET); Ctrl-C \
                 stops it with a summary of the run so far"
            )
        );
        assert_eq!(budget_warning(&estimate(450.0, 1.0), 450.0), None);
    }

    #[test]
    fn the_budget_is_read_as_python_reads_it() {
        assert_eq!(event_budget(None), Ok(DEFAULT_EVENT_BUDGET));
        assert_eq!(event_budget(Some("  ")), Ok(DEFAULT_EVENT_BUDGET));
        assert_eq!(event_budget(Some(" 1_000 ")), Ok(1000.0));
        assert_eq!(
            event_budget(Some("abc")),
            Err("LASTMILE_EVENT_BUDGET = 'abc': expected a number of events, e.g. 1e9".into())
        );
        for not_positive in ["-1", "0", "nan"] {
            assert_eq!(
                event_budget(Some(not_positive)),
                Err(format!(
                    "LASTMILE_EVENT_BUDGET = '{not_positive}': expected a positive number of events"
                ))
            );
        }
        let long = "x".repeat(100);
        let message = event_budget(Some(&long)).unwrap_err();
        assert!(
            message.contains(&format!("'{}…", "x".repeat(78))),
            "{message}"
        );
    }
}
