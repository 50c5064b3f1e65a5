//! The congestion controls inside a connection: loss recovery asks them for ssthresh, and
//! a pacing controller (BBR) holds segments back to its release times.

use super::*;
use crate::tcp::cc::{BbrConfig, CcSpec, CubicConfig};
use crate::tcp::spec::RecoveryKind;

fn with_cc(cc: CcSpec, iw: u32) -> Scripted {
    let mut cfg = config(TcpVariant::Newreno);
    cfg.recovery = RecoveryKind::Newreno;
    cfg.cc = cc;
    cfg.initial_window = crate::tcp::spec::InitialWindow::Segments(iw);
    Scripted::established(cfg, ms(100))
}

/// RFC 9438 §4.6 through NewReno: the third duplicate ACK sets ssthresh = 0.7 × the flight
/// and recovery inflates cwnd from it (RFC 6582).
#[test]
fn rfc9438_cubic_cuts_to_seven_tenths_of_the_flight_on_fast_retransmit() {
    let mut s = with_cc(CcSpec::Cubic(CubicConfig::default()), 10);
    assert_eq!(s.write(100_000), new_segs(0, 10));
    let replies = s.dupacks(0, 3);
    assert_eq!(
        replies[2].first(),
        Some(&(0, true)),
        "fast retransmit of segment 0"
    );
    let w = s.conn.congestion_window();
    assert_eq!(w.ssthresh, 7000);
    assert_eq!(w.cwnd, 7000 + 3 * 1000);
    assert_eq!(s.conn.cc_name(), "cubic");
}

/// draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.1: before BtlBw is known BBR paces
/// at high_gain × the initial window / SRTT (2.885 × 10,000 B / 100 ms); the segments the
/// first ACK releases leave one wire-size gap apart at that rate.
#[test]
fn draft_bbr_paces_the_first_flight_at_high_gain_times_initial_window_over_srtt() {
    let mut s = with_cc(CcSpec::Bbr(BbrConfig::default()), 10);
    // No ACK yet, no rate: the initial window leaves at once.
    assert_eq!(s.write(1_000_000), new_segs(0, 10));
    s.at(at_ms(200));
    // cwnd grows by the 1000 bytes delivered: two segments may go, the second held back.
    assert_eq!(s.ack(1000), new_segs(10, 11));
    let rate = s
        .conn
        .cc_metrics()
        .pacing_rate_bytes_per_s
        .expect("BBR paces");
    assert!((rate as f64 - 288_500.0).abs() <= 1.0, "{rate} B/s");
    let gap = SimDuration::transmission(8 * 1040, 8 * rate);
    assert_eq!(s.conn.poll_timeout(), Some(at_ms(200) + gap));
    assert_eq!(s.fire(), new_segs(11, 12));
    assert_eq!(s.conn.cc_name(), "bbr");
}
