//! The warnings `lastmile run` prints on stderr for a flow that stopped making progress
//! (the summary's liveness figures: `stalled`, `stall_cause`, `longest_stall_s`), worded
//! as the Python CLI words them, so that a stall is never silent in either.

use lastmile_core::metrics::FlowSummary;

/// One line per stalled flow, saying whether the stall is the scenario's own back-off
/// (its timeouts can span it) or a lockup.
pub fn warnings(flows: &[FlowSummary]) -> Vec<String> {
    flows.iter().filter(|f| f.stalled).map(warning).collect()
}

fn warning(f: &FlowSummary) -> String {
    let (timeouts, probes) = (f.tcp_timeouts, f.tcp_persist_probes);
    let why = match (f.stall_cause.as_deref(), probes) {
        (Some("backoff"), p) if p > 0 => format!(
            "the scenario's own back-off: {} retransmission timeouts and {} zero-window \
             probes in the run, each doubling its interval, can span it; the path kept \
             losing or the receiver kept its window closed",
            thousands(timeouts),
            thousands(probes)
        ),
        (Some("backoff"), _) => format!(
            "the scenario's own back-off: a run of retransmission timeouts ({} in the run), \
             each doubling the RTO, can span it; the channel kept losing",
            thousands(timeouts)
        ),
        _ => format!(
            "a lockup: the source's {} retransmission timeouts and {} zero-window probes \
             cannot span it; data was outstanding that no timer resent",
            thousands(timeouts),
            thousands(probes)
        ),
    };
    let last = f
        .last_delivery_s
        .map_or_else(|| "-".to_string(), |s| format!("{s:.3}"));
    format!(
        "lastmile-run: warning: flow '{}' stalled: no progress for {:.1} s with data outstanding \
         (threshold {:.1} s; last delivery at {last} s): {why}",
        f.name, f.longest_stall_s, f.stall_threshold_s
    )
}

/// `n` with a comma every three digits, as Python's `{:,}`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
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
    fn thousands_are_grouped_as_python_groups_them() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
