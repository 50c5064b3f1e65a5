//! Whole runs where the comparisons with the reference simulators found lastmile departing
//! from the algorithms' documents. Most run on ns-3.44's path A
//! (`validation/families/cc_ns3.py`): fh —100 Mb/s,
//! 20 ms— bs —10 Mb/s, 5 ms, random packet errors on data— mh, drop-tail queues of 100
//! packets, segments of 1400 B, IW 1, an ACK per segment, SACK with PRR and limited
//! transmit, minimum RTO 1 s, 20 MB. The bandwidth-delay product is about 45 packets
//! (10 Mb/s × 52 ms over 1442-byte frames), so the queue holds about 2.2 BDP. Vegas runs on
//! ns-2.35's path B (the classic-TCP family's: ns-2's defaults).

use lastmile_core::metrics::RunSummary;
use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};

/// Payload bits per second the hop carries: 1400 B of every 1442 B frame (IP, TCP and the
/// 2-byte PPP framing).
const PAYLOAD_BPS: f64 = 10e6 * 1400.0 / 1442.0;
/// The path's bandwidth-delay product in packets (10 Mb/s × ~52 ms / 1442 B).
const BDP_PACKETS: u64 = 45;

fn path_a(tcp: &str, per: f64, seed: u64, bytes: &str) -> RunSummary {
    let errors = if per > 0.0 {
        format!(r#"{{ model = "per", per = {per} }}"#)
    } else {
        r#"{ model = "none" }"#.to_string()
    };
    let text = format!(
        r#"
name = "path-a"
seed = {seed}
stop_time = "600s"
[topology]
preset = "chain"
wired = {{ rate = "100Mbps", delay = "20ms", queue = "100pkt", overhead = "2B" }}
wireless = {{ rate = "10Mbps", delay = "5ms", queue = "100pkt", overhead = "2B", errors = {errors} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ mss = "1400B", rwnd = "4000000B", initial_window = 1, min_rto = "1s", recovery = "sack", prr = true, limited_transmit = true, {tcp} }}
app = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    );
    let s = load_str(&text, Format::Toml, "path-a.toml", &[]).expect("valid scenario");
    run(&s, &RunOptions::default()).expect("run").summary
}

/// Drops at the base station's queue onto the hop.
fn bottleneck_drops(s: &RunSummary) -> u64 {
    s.links
        .iter()
        .filter(|l| l.name == "wireless" && l.from == "bs")
        .map(|l| l.queue_drops)
        .sum()
}

/// Cardwell et al. (draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.3): outside
/// Startup BBR keeps at most cwnd_gain · BDP + 3 quanta ≈ 2.1 BDP in flight, which a queue
/// of 2.2 BDP absorbs, and loss recovery only bounds cwnd by packet conservation. So the
/// queue overflows at most in Startup (cwnd 2.89 BDP: about 0.7 BDP too much, once), and
/// with 0.5 % random loss BBR keeps the hop near its payload rate. With SACK BBR's window
/// used to grow by a segment per duplicate ACK on top of a pipe that already left the SACKed
/// segments out: 6.8 Mb/s and 2,151 queue drops in the issue's run.
#[test]
fn bbr_with_sack_keeps_its_flight_within_the_queue_and_the_hop_busy() {
    let s = path_a(r#"cc = "bbr""#, 0.005, 1, "20MB");
    let f = &s.flows[0];
    assert!(f.completed, "{f:?}");
    let drops = bottleneck_drops(&s);
    assert!(
        drops <= BDP_PACKETS,
        "{drops} drops at the bottleneck, more than Startup's one overshoot"
    );
    assert!(
        f.throughput_bps > 0.9 * PAYLOAD_BPS,
        "BBR {:.0} b/s of {PAYLOAD_BPS:.0}",
        f.throughput_bps
    );
}

/// RFC 9406 (HyStart++) leaves slow start once the round's minimum RTT rises by
/// clamp(RTT/8, 4 ms, 16 ms) — a queue of about 6 packets here — so CUBIC with SACK and no
/// random loss never overshoots the 100-packet queue by a whole window. Without it, a
/// window of 2·(BDP + queue) lost every other segment and CUBIC's 0.7 cut left more in
/// flight than the path holds: retransmissions were lost again and only timeouts repaired
/// them (15 in the issue's run).
#[test]
fn cubic_with_sack_leaves_slow_start_by_hystart_without_timeouts() {
    let s = path_a(r#"cc = "cubic""#, 0.0, 1, "20MB");
    let f = &s.flows[0];
    assert!(f.completed, "{f:?}");
    assert_eq!(f.tcp_timeouts, 0, "{f:?}");
    assert!(
        f.throughput_bps > 0.95 * PAYLOAD_BPS,
        "CUBIC {:.0} b/s of {PAYLOAD_BPS:.0}",
        f.throughput_bps
    );
}

/// The same without HyStart++ (`cc = { kind = "cubic", hystart = false }`, RFC 9438 §4.10's Reno slow
/// start) still overshoots: the option turns it off.
#[test]
fn cubic_without_hystart_overshoots_slow_start() {
    let with = path_a(r#"cc = "cubic""#, 0.0, 1, "20MB");
    let without = path_a(
        r#"cc = { kind = "cubic", hystart = false }"#,
        0.0,
        1,
        "20MB",
    );
    assert!(
        bottleneck_drops(&without) > 10 * bottleneck_drops(&with).max(1),
        "drops without {} vs with {}",
        bottleneck_drops(&without),
        bottleneck_drops(&with)
    );
}

/// RFC 8985 §6: a retransmission lost again is detected once a segment sent after it is
/// SACKed and RACK.rtt + reo_wnd have passed since it was sent, not by the retransmission
/// timer. In this run (seed 1, PER 0.005) one retransmission is lost; RFC 6675 alone has to
/// wait for the timer (one timeout), RACK-TLP repairs it within recovery.
#[test]
fn rack_repairs_a_lost_retransmission_without_a_timeout() {
    let rfc6675 = path_a(r#"cc = "reno""#, 0.005, 1, "20MB");
    assert_eq!(
        rfc6675.flows[0].tcp_timeouts, 1,
        "the run has its lost retransmission"
    );
    let rack = path_a(r#"cc = "reno", rack = true"#, 0.005, 1, "20MB");
    let f = &rack.flows[0];
    assert!(f.completed, "{f:?}");
    assert_eq!(f.tcp_timeouts, 0, "{f:?}");
}

/// ns-2.35's path B for the classic TCPs (its defaults matched: 1000 B of payload, window
/// 20 with `initial_ssthresh` equal to it, IW 2, a 10 ms clock with ns-2's estimator,
/// minimum RTO 200 ms, initial RTO 3 s, backoff up to 64, DropTail 50): fh —10 Mb/s,
/// 10 ms— bs —2 Mb/s, 10 ms, PER on bs→mh— mh, 60 s.
fn ns2_path_b(tcp: &str, per: f64, seed: u64) -> RunSummary {
    let text = format!(
        r#"
name = "ns2-path-b"
seed = {seed}
stop_time = "60s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "10ms", queue = "50pkt" }}
wireless = {{ rate = "2Mbps", delay = "10ms", queue = "50pkt", errors = {{ model = "per", per = {per} }} }}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ mss = "1000B", rwnd = "20000B", initial_window = 2, initial_ssthresh = "20000B", timer_granularity = "10ms", rtt_estimator = "ns2", min_rto = "200ms", initial_rto = "3s", max_backoff = 64, {tcp} }}
app = {{ kind = "bulk", bytes = "100MB" }}
"#
    );
    let s = load_str(&text, Format::Toml, "ns2-path-b.toml", &[]).expect("valid scenario");
    run(&s, &RunOptions::default()).expect("run").summary
}

/// Brakmo & Peterson §3.1: Vegas resends a segment on a duplicate ACK once it is older than
/// the fine-grained timeout, and checks the two new ACKs after a retransmission, so a loss
/// in a window of 20 segments with 2 % random loss is repaired from duplicate ACKs, not by
/// the retransmission timer (ns-2.35's `Agent/TCP/Vegas`: 1 to 5 timeouts in 60 s over
/// seeds 1–3). Without it lastmile's Vegas took 21 to 32.
#[test]
fn vegas_fine_grained_retransmission_repairs_losses_without_timeouts() {
    for seed in 1..=3 {
        let s = ns2_path_b(r#"recovery = "reno", cc = "vegas""#, 0.02, seed);
        let f = &s.flows[0];
        assert!(f.tcp_timeouts <= 6, "seed {seed}: {f:?}");
    }
}
