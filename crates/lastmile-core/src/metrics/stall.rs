//! The warning a run gives for a flow that stopped making progress, from the summary's
//! liveness figures (`stalled`, `stall_cause`, `longest_stall_s`, `stall_threshold_s`):
//! whether the stall is the scenario's own back-off (its timeouts and zero-window probes,
//! each doubling its interval, can span it) or a lockup (they cannot). One wording for
//! every front end (`lastmile run`, `lastmile-run`), so a stall is never silent in either.

use super::summary::FlowSummary;

/// What the warning says of a flow: the summary's figures for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StallFacts<'a> {
    pub name: &'a str,
    pub longest_stall_s: f64,
    pub stall_threshold_s: f64,
    pub last_delivery_s: Option<f64>,
    /// "backoff" or "lockup".
    pub stall_cause: Option<&'a str>,
    pub tcp_timeouts: u64,
    pub tcp_persist_probes: u64,
}

impl<'a> From<&'a FlowSummary> for StallFacts<'a> {
    fn from(f: &'a FlowSummary) -> Self {
        StallFacts {
            name: &f.name,
            longest_stall_s: f.longest_stall_s,
            stall_threshold_s: f.stall_threshold_s,
            last_delivery_s: f.last_delivery_s,
            stall_cause: f.stall_cause.as_deref(),
            tcp_timeouts: f.tcp_timeouts,
            tcp_persist_probes: f.tcp_persist_probes,
        }
    }
}

/// The warning for a stalled flow (the front end puts its own `<program>: warning: `
/// before it).
pub fn stall_warning(f: &StallFacts<'_>) -> String {
    let (timeouts, probes) = (thousands(f.tcp_timeouts), thousands(f.tcp_persist_probes));
    let why = match (f.stall_cause, f.tcp_persist_probes) {
        (Some("backoff"), p) if p > 0 => format!(
            "the scenario's own back-off: {timeouts} retransmission timeouts and {probes} \
             zero-window probes in the run, each doubling its interval, can span it; the path \
             kept losing or the receiver kept its window closed"
        ),
        (Some("backoff"), _) => format!(
            "the scenario's own back-off: a run of retransmission timeouts ({timeouts} in the \
             run), each doubling the RTO, can span it; the channel kept losing"
        ),
        _ => format!(
            "a lockup: the source's {timeouts} retransmission timeouts and {probes} zero-window \
             probes cannot span it; data was outstanding that no timer resent"
        ),
    };
    let last = f
        .last_delivery_s
        .map_or_else(|| "-".to_string(), |s| format!("{s:.3}"));
    format!(
        "flow '{}' stalled: no progress for {:.1} s with data outstanding (threshold {:.1} s; \
         last delivery at {last} s): {why}",
        f.name, f.longest_stall_s, f.stall_threshold_s
    )
}

/// `n` with a comma every three digits (`1,234,567`).
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped_in_threes() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn each_cause_is_worded() {
        let mut f = StallFacts {
            name: "fh-mh-0",
            longest_stall_s: 61.25,
            stall_threshold_s: 30.0,
            last_delivery_s: Some(12.3456),
            stall_cause: Some("backoff"),
            tcp_timeouts: 1234,
            tcp_persist_probes: 0,
        };
        assert_eq!(
            stall_warning(&f),
            "flow 'fh-mh-0' stalled: no progress for 61.2 s with data outstanding (threshold \
             30.0 s; last delivery at 12.346 s): the scenario's own back-off: a run of \
             retransmission timeouts (1,234 in the run), each doubling the RTO, can span it; \
             the channel kept losing"
        );
        f.tcp_persist_probes = 3;
        assert!(stall_warning(&f).contains("1,234 retransmission timeouts and 3 zero-window"));
        f.stall_cause = Some("lockup");
        f.last_delivery_s = None;
        let lockup = stall_warning(&f);
        assert!(lockup.contains("last delivery at - s): a lockup: the source's 1,234"));
    }
}
