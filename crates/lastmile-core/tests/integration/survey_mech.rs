//! The survey's §2 mechanisms in whole runs (Pentikousis §2.1.1, §2.1.2.2, §2.4.4.4; EBSN as
//! the design notes describe it): delayed duplicate ACKs over DDA's link layer, ELN, EBSN and Snoop
//! reading SACK blocks, each on the path of `experiments/survey_mech.toml` (10 Mbps / 20 ms
//! wire, 2 Mbps radio under the ideal MAC, Reno, 1460-byte segments), and each checked for
//! the effect its rule is for.

use lastmile_core::metrics::RunSummary;
use lastmile_core::scenario::{load_str, Format};
use lastmile_core::sim::{run, RunOptions};

/// One run of the survey path: `radio` is the wireless table's extra keys, `base_station`
/// the `[[base_station]]` entries, `tcp` the flow's extra TCP keys.
fn survey_run(seed: u64, bytes: &str, radio: &str, base_station: &str, tcp: &str) -> RunSummary {
    let text = format!(
        r#"
name = "survey-mech"
seed = {seed}
stop_time = "600s"
[topology]
preset = "chain"
wired = {{ rate = "10Mbps", delay = "20ms", queue = "100pkt" }}
wireless = {{ rate = "2Mbps", delay = "1us", queue = "100pkt", mac = "ideal", {radio} }}
{base_station}
[[flow]]
src = "fh"
dst = "mh"
tcp = {{ variant = "reno", mss = "1460B", rwnd = "64KiB" {tcp} }}
app = {{ kind = "bulk", bytes = "{bytes}" }}
"#
    );
    let s = load_str(&text, Format::Toml, "survey_mech.toml", &[]).expect("valid scenario");
    let out = run(&s, &RunOptions::default()).expect("run succeeds");
    let f = &out.summary.flows[0];
    assert!(f.completed && !f.stalled, "seed {seed}: {f:?}");
    out.summary
}

fn per(p: f64) -> String {
    format!("errors = {{ model = \"per\", per = {p} }}")
}

fn dda_run(seed: u64, p: f64, d: &str) -> RunSummary {
    survey_run(
        seed,
        "1MB",
        &format!("link = \"dda\", {}", per(p)),
        &format!("[[base_station]]\nnode = \"mh\"\nagent = {{ kind = \"dda\", d = \"{d}\" }}"),
        "",
    )
}

/// Regression: DDA's link ACKs once queued behind the mobile's TCP ACKs past the link's
/// ACK timer, and the base station resent nearly every frame (5,706 link retransmissions
/// for 1,370 frames, a third of the throughput) on an error-free radio.
#[test]
fn dda_link_sends_nothing_twice_on_an_error_free_radio() {
    let plain = survey_run(1, "1MB", &format!("link = \"none\", {}", per(0.0)), "", "");
    let dda = dda_run(1, 0.0, "100ms");
    assert_eq!(dda.cells[0].link_retransmissions, 0);
    let (a, b) = (plain.flows[0].completion_s, dda.flows[0].completion_s);
    assert!(b < a * 1.02, "DDA {b:.3} s, no link layer {a:.3} s");
}

/// The survey: the third and later duplicate ACKs are held for d; "if an ACK arrives
/// indicating that the retransmitted packet has been received, then the duplicate
/// acknowledgments are not sent on", and "if the timer d expires then all duplicate ACKs are
/// released and, probably, the TCP sender goes into Fast Retransmit". A d longer than the
/// link layer's repair (a few frame times here) keeps every held duplicate from the source;
/// a d of 5 ms expires first.
#[test]
fn dda_duplicates_held_past_the_link_repair_never_reach_the_source() {
    let (mut held, mut dropped, mut fr_long, mut fr_short, mut expiries) = (0, 0, 0, 0, 0);
    for seed in 1..=4 {
        let long = dda_run(seed, 0.1, "500ms");
        let a = long.agent.as_ref().expect("dda agent");
        held += a.dupacks_delayed().expect("dda counts");
        dropped += a.suppressed_dupacks;
        assert_eq!(a.timer_expiries, 0, "seed {seed}: d = 500 ms never expires");
        fr_long += long.flows[0].tcp_fast_retransmits;
        let short = dda_run(seed, 0.1, "5ms");
        expiries += short.agent.as_ref().expect("dda agent").timer_expiries;
        fr_short += short.flows[0].tcp_fast_retransmits;
    }
    assert!(held > 20, "{held} duplicates held over 4 seeds");
    assert_eq!(
        dropped, held,
        "every held duplicate dropped: the link filled each hole"
    );
    assert_eq!(fr_long, 0, "no fast retransmit reaches the source");
    assert!(expiries > 10, "d = 5 ms expired {expiries} times");
    assert!(
        fr_short >= expiries / 2,
        "{fr_short} fast retransmits for {expiries} releases"
    );
}

/// ELN (survey §2.4.4.4): with the wireless losses marked, the sender "refrain[s] from going
/// into congestion avoidance": no fast retransmit answers a corruption (the marked
/// duplicates retransmit once without touching the window), so the window cuts left are
/// the timeouts of retransmissions corrupted again; plain Reno halves for every loss.
#[test]
fn eln_marked_corruption_losses_cost_no_window_cuts() {
    let (mut eln_cuts, mut reno_cuts, mut marked) = (0, 0, 0);
    let (mut eln_s, mut reno_s) = (0.0, 0.0);
    for seed in 1..=4 {
        let radio = format!("link = \"none\", {}", per(0.03));
        let eln = survey_run(
            seed,
            "1MB",
            &radio,
            "[[base_station]]\nnode = \"mh\"\nagent = { kind = \"eln\" }",
            ", eln = true",
        );
        let reno = survey_run(seed, "1MB", &radio, "", "");
        let f = &eln.flows[0];
        eln_cuts += f.tcp_fast_retransmits + f.tcp_timeouts;
        reno_cuts += reno.flows[0].tcp_fast_retransmits + reno.flows[0].tcp_timeouts;
        marked += eln
            .agent
            .as_ref()
            .and_then(|a| a.notices_sent())
            .expect("eln counts");
        eln_s += f.completion_s;
        reno_s += reno.flows[0].completion_s;
    }
    assert!(marked > 100, "{marked} ACKs marked");
    assert!(
        eln_cuts * 5 < reno_cuts,
        "window cuts: ELN {eln_cuts}, Reno {reno_cuts}"
    );
    assert!(eln_s < reno_s, "ELN {eln_s:.1} s, Reno {reno_s:.1} s");
}

/// EBSN (Bakshi et al.): while the base station's link layer keeps retrying
/// through a bad period longer than the source's RTO, each failed attempt tells the source,
/// which restarts its timer instead of timing out and backing off.
#[test]
fn ebsn_keeps_the_source_from_timing_out_while_the_base_station_retries() {
    let radio = "link = { kind = \"dda\", in_order = true, retry_limit = 100, ack_timeout = \
                 \"50ms\" }, errors = { model = \"gilbert_elliott\", mean_good = \"5s\", \
                 mean_bad = \"2s\", good_ber = 0.0, bad_ber = 1e-3 }";
    let bs = "[[base_station]]\nnode = \"bs\"\nagent = { kind = \"ebsn\" }";
    let (mut with, mut without, mut notices) = (0, 0, 0);
    for seed in 1..=4 {
        let on = survey_run(seed, "5MB", radio, bs, ", ebsn = true");
        let off = survey_run(seed, "5MB", radio, bs, ", ebsn = false");
        with += on.flows[0].tcp_timeouts;
        without += off.flows[0].tcp_timeouts;
        notices += on
            .agent
            .as_ref()
            .and_then(|a| a.notices_sent())
            .expect("ebsn");
    }
    assert!(notices > 100, "{notices} bad-state messages");
    assert!(without >= 4, "{without} timeouts without EBSN over 4 seeds");
    assert!(
        with * 4 <= without,
        "timeouts: EBSN {with}, without {without}"
    );
}

/// Snoop reading SACK blocks (survey §2.1.1: "the use of a selective acknowledgement scheme
/// improves performance"): every hole named is repaired locally, none twice unless its
/// retransmission was lost, so Snoop sends no more local retransmissions than frames were
/// lost on the air, and the source never has to fast-retransmit. At 20 % of frames lost a
/// 64 KiB window holds ~9 holes: plain Snoop repairs them one ACK after another (its
/// burst-loss rule), SACK Snoop all on the first dupack. (At 10 % plain Snoop, its
/// retransmissions ahead of the queue, finishes within 1 % of SACK Snoop.)
#[test]
fn snoop_with_sack_repairs_holes_once_each_and_spares_the_source() {
    let radio = format!("link = \"none\", {}", per(0.2));
    let (mut local, mut lost, mut source_fr, mut plain_fr) = (0, 0, 0, 0);
    let (mut sack_s, mut plain_s) = (0.0, 0.0);
    for seed in 1..=4 {
        let sack = survey_run(
            seed,
            "1MB",
            &radio,
            "[[base_station]]\nnode = \"bs\"\nagent = { kind = \"snoop\", sack = true }",
            ", sack = true",
        );
        let plain = survey_run(
            seed,
            "1MB",
            &radio,
            "[[base_station]]\nnode = \"bs\"\nagent = { kind = \"snoop\" }",
            "",
        );
        local += sack.agent.as_ref().expect("snoop").local_retransmissions;
        lost += sack.wireless.as_ref().expect("cell").data_frames_lost;
        source_fr += sack.flows[0].tcp_fast_retransmits;
        plain_fr += plain.flows[0].tcp_fast_retransmits;
        sack_s += sack.flows[0].completion_s;
        plain_s += plain.flows[0].completion_s;
    }
    assert!(
        local <= lost,
        "{local} local retransmissions, {lost} frames lost"
    );
    assert_eq!(source_fr, 0, "plain Snoop's source: {plain_fr}");
    assert!(
        sack_s < plain_s,
        "with SACK {sack_s:.2} s, without {plain_s:.2} s"
    );
}

/// EBSN's rule is one message per failed attempt. Over the ideal MAC (no MAC retries)
/// every failure is one the link layer finds by its ACKs or its timer, and each failed
/// frame is sent again or given up: messages = link retransmissions + frames given up.
/// (Over 802.11's DCF a MAC give-up is heard from the MAC, once; a frame the link layer
/// wrongly thought lost and then saw acknowledged is a failed attempt with no
/// retransmission, so that count is not in the summary.)
#[test]
fn ebsn_sends_one_message_per_failed_link_attempt() {
    let bs = "[[base_station]]\nnode = \"bs\"\nagent = { kind = \"ebsn\" }";
    let radio = format!("link = {{ kind = \"dda\", in_order = true }}, {}", per(0.3));
    let out = survey_run(1, "200KB", &radio, bs, ", ebsn = true");
    let notices = out
        .agent
        .as_ref()
        .and_then(|a| a.notices_sent())
        .expect("ebsn");
    let cell = &out.cells[0];
    assert!(notices > 20, "{notices}");
    assert_eq!(
        notices,
        cell.link_retransmissions + cell.link_drops,
        "{cell:?}"
    );
}
