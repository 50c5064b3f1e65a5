//! The checks of a TCP's settings (`TcpSpec`) that its types cannot express: `variant`
//! agreeing with `recovery` and `cc`, each congestion control's constants, RFC 6298's
//! ordering of timers, a segment that fits an IPv4 datagram. A flow's TCP and the TCP an
//! agent keeps of its own (I-TCP's, a gateway's wired half) are checked alike; paths name
//! the field under the table the caller gives.

use crate::errors::ScenarioError;

use super::spec::{AckPolicy, CcKind, InitialWindow, RecoveryKind, SsthreshRule, TcpSpec};

/// The largest MSS: a 65535-byte IPv4 datagram less 20 bytes of IP and 20 of TCP header
/// (RFC 791, RFC 9293).
const MSS_MAX: u64 = 65_495;

/// TCP settings at `path` (a flow's `tcp`, or an agent's own TCP).
pub fn check_tcp(path: &str, t: &TcpSpec) -> Result<(), ScenarioError> {
    let bad = |field: &str, value: String, expected: String| {
        Err(ScenarioError::bad_value(
            format!("{path}.{field}"),
            value,
            expected,
        ))
    };
    let q = |v: &dyn std::fmt::Display| format!("\"{v}\"");
    if let Err(c) = t.check_names() {
        return bad(c.field, c.value, c.expected);
    }
    if let Err(c) = t.check_cc_settings() {
        return bad(&c.field, c.value, c.expected);
    }
    if t.ssthresh_rule == SsthreshRule::Bsd && t.cc_kind() != CcKind::Reno {
        return bad(
            "ssthresh_rule",
            q(&"bsd"),
            format!(
                "\"rfc5681\" with cc = \"{}\" (the BSD rule is Reno's window rule: set \
                 cc = \"reno\" or remove ssthresh_rule)",
                t.cc_kind().name()
            ),
        );
    }
    if t.mss.bytes() == 0 || t.mss.bytes() > MSS_MAX {
        return bad(
            "mss",
            q(&t.mss),
            format!("a segment size from 1B to {MSS_MAX}B"),
        );
    }
    if t.rwnd < t.mss {
        return bad(
            "rwnd",
            q(&t.rwnd),
            format!("at least one segment (mss = {})", t.mss),
        );
    }
    if t.initial_window == InitialWindow::Segments(0) {
        return bad(
            "initial_window",
            "0".into(),
            "at least 1 segment, or \"rfc3390\" / \"rfc6928\"".into(),
        );
    }
    if t.max_backoff == Some(0) {
        return bad("max_backoff", "0".into(), "a factor of at least 1".into());
    }
    if t.prr && t.recovery_kind() != RecoveryKind::Sack {
        return bad(
            "prr",
            "true".into(),
            format!(
                "false with recovery = \"{}\" (PRR drives RFC 6675's recovery: set \
                 recovery = \"sack\")",
                t.recovery_kind().name()
            ),
        );
    }
    if t.initial_ssthresh.is_some_and(|s| s.bytes() == 0) {
        return bad(
            "initial_ssthresh",
            "\"0B\"".into(),
            "a size greater than zero".into(),
        );
    }
    if t.dupack_threshold == 0 {
        return bad(
            "dupack_threshold",
            "0".into(),
            "at least 1 duplicate ACK".into(),
        );
    }
    if t.timer_granularity.sim().is_zero() {
        return bad(
            "timer_granularity",
            q(&t.timer_granularity),
            "a time greater than zero".into(),
        );
    }
    if t.initial_rto.sim().is_zero() {
        return bad(
            "initial_rto",
            q(&t.initial_rto),
            "a time greater than zero".into(),
        );
    }
    if t.min_rto > t.max_rto {
        return bad(
            "min_rto",
            q(&t.min_rto),
            format!("at most max_rto ({})", t.max_rto),
        );
    }
    if matches!(t.ack, AckPolicy::Delayed | AckPolicy::Daass) && t.delack_timeout.sim().is_zero() {
        return bad(
            "delack_timeout",
            q(&t.delack_timeout),
            format!("a time greater than zero with ack = \"{}\"", t.ack.name()),
        );
    }
    Ok(())
}
