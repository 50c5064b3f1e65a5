"""Classic TCP (Tahoe, Reno, NewReno, SACK, FACK, Vegas) against ns-2.35's one-way agents on
the issue's Path B: fixed host —10 Mbps, 10 ms— base station —2 Mbps, 10 ms, uniform packet
errors towards the mobile— mobile host, drop-tail queues of 50 packets, 60 s of bulk data,
PER 0 to 0.2, windows of 20 packets (below the 60 packets of BDP plus queue) and 100 (the
queue overflows), with ns-2.35's defaults matched setting by setting.

The ns-2 side is `validation/ns2/chain.tcl`. The target is 10 % of ns-2's mean goodput up to
PER 0.1 (both implement the same documents there: RFC 5681, RFC 6582, RFC 6675 / Fall &
Floyd's Sack1, Mathis & Mahdavi's FACK, Brakmo & Peterson's Vegas); PER 0.15 and 0.2 are
reported without a target.

Both simulators lose the same packets: for each (PER, seed) a list of packet ordinals on the
hop is drawn once, each lost with probability PER (`loss_list`), and handed to ns-2's
`ErrorModel/List` and to lastmile's `drop_list`, so a difference between the runs comes from
the TCPs, not from two random generators. Every agent whose window rule is Reno's runs twice
in lastmile: with its default ssthresh after a loss (RFC 5681) and with ns-2's
(`ssthresh_rule = "bsd"`, 4.4BSD's and FreeBSD's too), beside the same ns-2 runs.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from validation import harness
from validation.framework import Outcome, Point, Setting

#: ns-2 agent name → (lastmile TCP settings, limited transmit as ns-2 runs it).
AGENTS: dict[str, dict[str, Any]] = {
    "Tahoe": {"variant": "tahoe"},
    "Reno": {"variant": "reno"},
    "Newreno": {"variant": "newreno"},
    "Sack1": {"recovery": "sack"},
    "Fack": {"recovery": "fack"},
    "Vegas": {"cc": "vegas", "recovery": "reno"},
}
#: ns-2's `singledup_ 1` (RFC 3042 limited transmit) is in TcpAgent, RenoTcpAgent,
#: NewRenoTcpAgent and Sack1TcpAgent's recv(); FackTcpAgent and VegasTcpAgent have their own
#: recv() without it.
LIMITED_TRANSMIT = {"Tahoe", "Reno", "Newreno", "Sack1"}
LABELS = {
    "Tahoe": "Tahoe",
    "Reno": "Reno",
    "Newreno": "NewReno",
    "Sack1": "SACK",
    "Fack": "FACK",
    "Vegas": "Vegas",
}
PERS = (0.0, 0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2)
#: Packets on the hop a 60 s run can carry at most (2 Mb/s / 1,040 B x 60 s = 14,423), with room.
LIST_PACKETS = 30_000
#: lastmile's ssthresh rules: its default, and ns-2's (which is also 4.4BSD's and FreeBSD's).
RULES = {"rfc5681": "", "bsd": ", ssthresh_rule bsd"}
#: The agents whose window rule is Reno's, so that `ssthresh_rule` applies (not Vegas).
RENO_RULE = {"Tahoe", "Reno", "Newreno", "Sack1", "Fack"}
WINDOWS = (20, 100)
PAYLOAD_BYTES = 1000
DURATION_S = 60.0


def loss_list(per: float, seed: int) -> list[int]:
    """The packets the hop loses in run `seed` at `per`: 0-based counts of the packets it
    carries (ns-2's first, the 40 B packet that stands for the SYN, is 0), each lost with
    probability `per`, drawn from a generator seeded with the PER and the seed alone."""
    if per <= 0:
        return []
    draw = random.Random(f"classic-tcp-ns2 {per:g} {seed}")
    return [n for n in range(LIST_PACKETS) if draw.random() < per]


def scenario(
    agent: str,
    window: int,
    per: float,
    seed: int,
    duration_s: float,
    ssthresh_rule: str = "rfc5681",
) -> dict[str, Any]:
    """Path B in lastmile, ns-2's defaults written out, losing the packets of `loss_list`
    (lastmile's `drop_list` counts from 1 and its SYN is frame 1: ordinal = count + 1)."""
    tcp: dict[str, Any] = {
        **AGENTS[agent],
        "mss": f"{PAYLOAD_BYTES}B",
        "rwnd": f"{window * PAYLOAD_BYTES}B",
        "initial_ssthresh": f"{window * PAYLOAD_BYTES}B",
        "initial_window": 2,
        "timer_granularity": "10ms",
        "rtt_estimator": "ns2",
        "min_rto": "200ms",
        "max_rto": "60s",
        "initial_rto": "3s",
        "max_backoff": 64,
        "ack": "every",
        "limited_transmit": agent in LIMITED_TRANSMIT,
        "ssthresh_rule": ssthresh_rule,
    }
    lost = loss_list(per, seed)
    errors = {"model": "drop_list", "packets": [n + 1 for n in lost]} if lost else {"model": "none"}
    return {
        "name": f"classic-{agent}-w{window}-per{per}",
        "seed": seed,
        "stop_time": f"{duration_s}s",
        "topology": {
            "preset": "chain",
            "wired": {"rate": "10Mbps", "delay": "10ms", "queue": "50pkt"},
            "wireless": {"rate": "2Mbps", "delay": "10ms", "queue": "50pkt", "errors": errors},
        },
        "flow": [{"src": "fh", "dst": "mh", "tcp": tcp, "app": {"kind": "bulk", "bytes": "10GB"}}],
    }


def _point(
    agent: str, window: int, per: float, rule: str = "rfc5681", duration_s: float = DURATION_S
) -> Point:
    series = f"{LABELS[agent]}, window {window}{RULES[rule]}"
    return Point(
        label=f"{series}, PER {per:g}",
        series=series,
        x=per,
        params={
            "agent": agent,
            "window": window,
            "per": per,
            "duration_s": duration_s,
            "losses": "the same list in both",
            "ssthresh_rule": rule,
        },
        target=0.10 if per <= 0.1 else None,
    )


def panel(point: Point) -> tuple[str, str]:
    """The figure's panel for `point` (agent and window) and its lastmile curve's label."""
    rule = harness.param_str(point.params, "ssthresh_rule")
    label = "lastmile, ssthresh as ns-2 (bsd)" if rule == "bsd" else "lastmile (RFC 5681)"
    return point.series.removesuffix(RULES[rule]), label


SETTINGS = (
    Setting(
        "path",
        "chain: wired 10 Mbps 10 ms, wireless 2 Mbps 10 ms, queues 50 packets each end",
        "duplex-links 10Mb 10ms and 2Mb 10ms, DropTail, queue-limit 50 each direction",
    ),
    Setting(
        "losses",
        "wireless.errors = drop_list on bs → mh (the ordinals of `loss_list` + 1), judged "
        "after the frame's airtime",
        "ErrorModel/List, unit pkt, link-lossmodel bs → mh (after transmission and "
        "propagation), the same list: each packet on the hop lost with probability PER, the "
        "same packets in both",
    ),
    Setting(
        "segments",
        "mss 1000 B + 40 B of IP/TCP headers; ACKs 40 B",
        "packetSize_ 1000 + tcpip_base_hdr_size_ 40; ACKs 40 B (Vegas: packetSize_ 1040, since "
        "its output() adds no header; goodput counts 1000 B)",
    ),
    Setting(
        "window",
        "rwnd = W x 1000 B, initial_ssthresh = W x 1000 B (W = 20, 100)",
        "window_ W; reset() sets ssthresh_ = window_",
    ),
    Setting("initial window", "initial_window = 2", "windowInit_ 2"),
    Setting(
        "RTT estimator",
        'rtt_estimator = "ns2", timer_granularity = 10 ms',
        "tcpTick_ 10 ms, integer t_srtt_/t_rttvar_ (T_SRTT_BITS 3, T_RTTVAR_BITS 2)",
    ),
    Setting(
        "RTO bounds",
        "min_rto 200 ms, max_rto 60 s, initial_rto 3 s, max_backoff 64",
        "minrto_ 0.2, maxrto_ 60, rtxcur_init_ 3.0, back-off capped at 64",
    ),
    Setting("ACKs", 'ack = "every"', "TCPSink (Sack1 sink for SACK and FACK)"),
    Setting(
        "limited transmit",
        "limited_transmit = true for Tahoe, Reno, NewReno, SACK; false for FACK, Vegas",
        "singledup_ 1 (default since 2001): send_one() on the 1st and 2nd duplicate ACK in "
        "TcpAgent, Reno, Newreno and Sack1; Fack and Vegas have their own recv() without it",
    ),
    Setting(
        "fast retransmit guard",
        "a cumulative ACK must cover more than recover (RFC 6582's Careful variant)",
        "bugFix_ true: highest_ack_ > recover_",
    ),
    Setting(
        "Vegas",
        'cc = "vegas" (alpha 1, beta 3, gamma 1), recovery = "reno"',
        "Agent/TCP/Vegas v_alpha_ 1, v_beta_ 3, v_gamma_ 1",
    ),
    Setting(
        "Vegas's round RTT",
        "the smallest of the round's per-ACK samples (send time to ACK, Karn's rule)",
        "the mean of the round's samples (v_sumRTT_ / v_cntRTT_, tcp-vegas.cc:211); "
        "Diff rounded to whole segments, int(x + 0.5) (:239)",
        matched=False,
        note="both fine-grained; up to PER 0.02 the two agree within 5 % (table)",
    ),
    Setting(
        "Vegas's retransmission timer at a fast retransmit",
        "re-armed, not backed off (RFC 6298 §5: the timer backs off when it expires)",
        "reset_rtx_timer(1) (tcp-vegas.cc:395) with backoff = 1 by default (tcp.h:337): "
        "rtt_backoff() doubles t_backoff_ (tcp.cc:622-625) at every fast or fine-grained "
        "retransmit, until a timed segment is acknowledged (tcp.cc:1407-1414); the other "
        "agents call reset_rtx_timer(1, 0) there (tcp-reno.cc:193, tcp-newreno.cc:146)",
        matched=False,
        note="no option copies it; what it costs at PER 0.05-0.1 is measured below",
    ),
    Setting(
        "Vegas after a timeout",
        "cwnd 1 segment, ssthresh max(FlightSize / 2, 2 SMSS) (RFC 5681), Vegas's slow start",
        "cwnd_ = v_slowstart_ = 2, ssthresh_ half the window (tcp-vegas.cc:442-443)",
        matched=False,
    ),
    Setting(
        "goodput",
        "bytes delivered in order to the receiver x 8 / 60 s",
        "(ack_ + 1) x 1000 B x 8 / 60 s at the sender",
        note="sender-side against receiver-side: at most one window in flight apart",
    ),
    Setting(
        "timeouts, retransmissions",
        "tcp_timeouts, tcp_retransmits",
        "nrexmit_ (FACK: back-offs of the timer, its timeout() does not count nrexmit_), "
        "nrexmitpack_",
    ),
    Setting(
        "timer",
        "the retransmission timer fires on a 10 ms tick boundary (BSD slow timer)",
        "the timer fires exactly RTO after it was set",
        matched=False,
        note="lastmile's timeouts come up to one tick (10 ms) earlier",
    ),
    Setting(
        "ssthresh after a loss",
        'series "ssthresh_rule bsd": max(min(cwnd, peer window) / 2, 2) in whole segments at '
        "every fast retransmit and every timeout (4.4BSD, FreeBSD); the other series: "
        "max(FlightSize / 2, 2 SMSS) in bytes, kept on a repeated timeout (RFC 5681 (4), §3.1)",
        "slowdown(CLOSE_SSTHRESH_HALF): ssthresh_ = (int)(min(cwnd_, wnd_) / 2), at least 2, "
        "at every fast retransmit and every timeout (tcp.cc TcpAgent::slowdown, timeout)",
        note='matched in the "ssthresh_rule bsd" series; RFC 5681 warns against cwnd in place '
        "of FlightSize, and they differ most after a go-back-N",
    ),
    Setting(
        "cwnd after a fast retransmit",
        "ssthresh (+ DupThresh segments while recovering: RFC 5681 §3.2, RFC 6582); after "
        "NewReno's recovery min(ssthresh, FlightSize + SMSS) (RFC 6582 §3.2 step 3, option 1)",
        "precisionReduce_ true (ns-default.tcl:1004): cwnd_ = min(cwnd_, wnd_) / 2 as a "
        "fraction while ssthresh_ is truncated (slowdown, CLOSE_CWND_HALF), and Newreno leaves "
        "recovery with that cwnd_ (exit_recovery_fix_ 0)",
        matched=False,
        note="at the small windows of high loss ns-2 keeps up to a segment more after each "
        "recovery (2.96 segments where lastmile has 2)",
    ),
    Setting(
        "receive window",
        "rwnd less the bytes held out of order; the right edge never moves left",
        "window_ is a fixed cap above the cumulative ACK; the sink holds any amount out of order",
        matched=False,
        note="while a hole is open lastmile's sender cannot go past the right edge it was offered",
    ),
    Setting(
        "handshake",
        "SYN (44 B with MSS), SYN-ACK, then data",
        "a 40 B first packet (syn_ true) acknowledged like data",
        matched=False,
        note="the same timing; a lost SYN costs the same 3 s in both",
    ),
)

EXPLANATIONS: dict[str, str] = {
    "Timeouts at high loss (the issue's finding 4)": (
        "At PER 0.1 lastmile used to take about 96 RTOs in 60 s against ns-2's 55 and was "
        "6-11 % low. Two causes, found by running both simulators on the same loss pattern "
        "(ns-2's ErrorModel/List and lastmile's drop_list dropping the same frame ordinals on "
        "the hop) and comparing the send sequences until they first part. (1) ns-2.35 has "
        "limited transmit on by default: `singledup_ 1` (tcl/lib/ns-default.tcl:1002) makes "
        "TcpAgent, Reno, Newreno and Sack1 call send_one() on the first and second duplicate "
        "ACK (tcp.cc:1839, tcp-reno.cc:125, tcp-newreno.cc:273, tcp-sack1.cc:164); with "
        "windows of one or two segments that turns timeouts into fast retransmits. It is now "
        "a matched setting (limited_transmit = true; RFC 3042), not a difference: with it and "
        "nothing else lastmile took 44 RTOs against 55 and was 6 % high (NewReno, window 20, "
        "30 seeds). (2) lastmile let a fast retransmit start when the cumulative ACK equalled "
        "`recover`, RFC 2582's Less Careful variant; RFC 6582 §3.2 step 1 requires the ACK to "
        "cover *more* than recover (the Careful variant RFC 2582 recommended), as ns-2 does "
        "(`highest_ack_ > recover_`, tcp.cc:1612, tcp-newreno.cc:116). Go-back-N after a "
        "timeout resends segments the receiver holds, and their duplicate ACKs carry exactly "
        "that ACK: the old rule halved ssthresh again on them. Fixed in tcp/recovery (tests "
        "rfc6582_careful_*); now 55.3 RTOs against 54.7 for NewReno, 54.7 against 54.9 for "
        "Tahoe, 87.1 against 86.8 for Reno, 49.0 against 49.6 for SACK (window 20, PER 0.1, "
        "30 seeds), and every Tahoe, Reno, NewReno and SACK point up to PER 0.1 is within 10 %."
    ),
    "Tahoe, window 20": (
        "Within the target but 2-7 % high from PER 0.02 on: after a loss ns-2 sets ssthresh "
        "to half the window in whole packets, (int)(min(cwnd, window_) / 2) "
        "(tcp.cc slowdown(), lines 1281-1309), where lastmile follows RFC 5681 (4), "
        "max(FlightSize / 2, 2 SMSS) in bytes. In Tahoe's go-back-N the two differ most "
        "(FlightSize still counts the whole old window while cwnd restarts from one). A "
        "test-only build with ns-2's rule gave 341.5 kbps and 347 retransmissions at PER 0.1 "
        "against ns-2's 332.7 and 347 (1.03; lastmile as it is: 355.3 and 365)."
    ),
    "NewReno, window 20": (
        "Within the target but 4-5 % low at PER 0.005-0.02 (window 100 is at 1.00): at the "
        "ACK that ends fast recovery lastmile sets cwnd = min(ssthresh, max(FlightSize, SMSS) "
        "+ SMSS), RFC 6582 §3.2 step 3 option (1), while ns-2's Newreno leaves cwnd at "
        "ssthresh (exit_recovery_fix_ 0, tcp-newreno.cc:233), option (2). With a 20-segment "
        "window the receiver's right edge (which out-of-order data holds back; see the "
        "settings) keeps the flight small during recovery, so option (1) restarts from a "
        "small window. A test-only build with cwnd = ssthresh there gave 1,768 and 1,571 kbps "
        "at PER 0.005 and 0.01 against ns-2's 1,771 and 1,589."
    ),
    "FACK, window 20": (
        "ns-2's Agent/TCP/Fack is not Mathis & Mahdavi's FACK: on entering recovery it calls "
        "slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) (tcp-fack.cc:197), which sets "
        "cwnd_ to wnd_restart_ = 1 (tcp.cc:1333), so every recovery restarts from one "
        "segment and slow-starts while the holes are repaired, and a lost retransmission "
        "then costs a timeout (ns-2: 83 timeouts at PER 0.1 against lastmile's 44). The "
        "paper's sender halves the window (cwnd = ssthresh = cwnd / 2), which lastmile "
        "follows (tcp/recovery/fack.rs). The gap grows with the number of recoveries: 1.04 at "
        "PER 0.01, 1.13 at 0.02, 2.0 at 0.1. ns-2's FACK also enters recovery without the "
        "`recover` guard and its timeout() does not count nrexmit_ (its timeouts here are the "
        "timer's back-offs). Not tuned away: lastmile follows the paper. The same holds with "
        "ns-2's ssthresh (the ssthresh_rule bsd series), which matches the ssthresh and not "
        "the restart: 0.96-1.00 up to PER 0.02, then 1.11 at 0.05 and 1.5 at 0.1. Traced "
        "with the same loss list (PER 0.05, seed 1, window 20): ns-2's cwnd_ goes from 23.2 to "
        "1.0 at the first fast retransmit (0.541 s) and climbs one segment per ACK back to "
        "ssthresh 10 while the hole is repaired, and so at every recovery; lastmile's holds "
        "10 (613 against 701 kbps for that seed, before a timeout's ssthresh came from the "
        "pipe). Not a widely used variant (Linux's FACK "
        "used rate-halving, never a restart), so no option copies it."
    ),
    "Vegas (both windows): the fine-grained RTT": (
        "Fixed: lastmile's Vegas took its per-round RTT from the retransmission timer's "
        "sample, one timed segment per round counted in whole ticks of the 10 ms clock "
        "(tcpTick_), where Brakmo & Peterson §3.1-3.2 read a fine-grained clock at every "
        "send, as ns-2 does (vegastime(), the mean of each round's samples, tcp-vegas.cc:211, "
        ":317). On this 45 ms path a tick turned no queue into a Diff above gamma: with the "
        "same loss list (PER 0.02, seed 4, window 20) ns-2's slow start went on to 12 segments "
        "and left it at 10.5 (tcp-vegas.cc:246-250) while lastmile's left at 8 -> 7, and its "
        "window stayed 1.3 segments lower for the whole run (9.6 against 10.9 on average), "
        "1,347 kbps against 1,507. Vegas now reads the per-ACK send-time samples "
        "(cc/vegas.rs; test paper_vegas_rtt_is_the_fine_grained_sample_not_the_timers_ticks): "
        "PER 0.005-0.02 went from 0.86-0.98 to 1.00-1.05 of ns-2 (30 seeds). Also fixed, with "
        "no measurable effect here (PER 0.05, window 20: 957 kbps before and after, 30 "
        "seeds): a fine-grained "
        "retransmission on the first duplicate ACK inflated cwnd by DupThresh, not by the one "
        "duplicate that came (RFC 5681 §3.2 step 3; ns-2: cwnd_ = v_newcwnd_ + dupacks_, "
        "tcp-vegas.cc:390; test rfc5681_an_early_fast_retransmit_inflates_by_the_duplicates_"
        "received). PER 0.1: below."
    ),
    "Vegas, window 20, PER 0.1": (
        "ns-2's Vegas backs its retransmission timer off at every fast or fine-grained "
        "retransmit: its duplicate-ACK path calls reset_rtx_timer(1) (tcp-vegas.cc:395), "
        "whose backoff argument defaults to 1 (tcp.h:337), so rtt_backoff() doubles "
        "t_backoff_ (tcp.cc:622-625), and only the ACK of a timed segment sets it back to 1 "
        "(tcp.cc:1407-1414; reset_rtx_timer also stops the timing, tcp.cc:983). Tahoe, Reno "
        "and NewReno call reset_rtx_timer(1, 0) there (tcp-reno.cc:193, tcp-newreno.cc:146). "
        "RFC 6298 §5 backs the timer off only when it expires, and Brakmo & Peterson's "
        "fine-grained check changes when a segment is resent, not the coarse timer; lastmile "
        "follows them. At PER 0.1 recoveries come every few round trips, so ns-2's timeouts "
        "fire on a timer already doubled two or three times. Seen in a trace "
        "(validation/ns2/vegas_trace.py: seed 2, window 20, the suite's loss list, chain.tcl "
        "with VEGAS_TRACE): backoff_ doubled 152 times at fast retransmits against 60 at "
        "timeouts, and the sender was silent for 30.6 of the 60 s in pauses of 100 ms or more "
        "(0.4 s 18 times, 0.8 s 12 times, 1.6 s and 3.2 s three times) where lastmile's were "
        "16.8 s, three in four at the 200 ms minimum; ns-2 takes fewer timeouts (50 against "
        "69 in 30 seeds) because each lasts longer. Shown by a run: lastmile with ns-2's rule "
        "added for the experiment (a test-only build whose Sender::fine_grained_dupack, "
        "tcp/sender/vegas.rs, also calls rtx.cancel_timing(), rtx.back_off() and rtx.arm(now) "
        "when it resends a segment) gives 278.8 kbps and 44.4 timeouts at PER 0.1, window 20 "
        "(30 seeds, the same loss lists), against ns-2's 296 and 50.6: 0.94 of ns-2 instead "
        "of 1.44; window 100: 277.1 against 305 (0.91 instead of 1.40). At PER 0.05 the same "
        "build gives 805.5 kbps (window 20; ns-2 784) and 787.3 (window 100; ns-2 867). A "
        "second, smaller ns-2 effect, found by replaying tcp-vegas.cc's per-round code on the "
        "trace (the same script; 605 of the 621 window increases the replay decides for seed "
        "7 are in ns-2's cwnd_ trace at the same instant): when none of a round's ACKs gives "
        "a sample (v_cntRTT_ 0, all retransmitted), the round's RTT is the time since it "
        "began (:214), and a cumulative ACK that jumps past v_begseq_ ends a round one "
        "bottleneck packet (4.16 ms) after it began; that becomes v_baseRTT_ (:229), a tenth "
        "of the path's 45 ms, and Diff then holds the window at 2-3 segments until a "
        "one-packet round resets it (seed 7: from 0.34 s to 20.4 s; seeds 1-10: 0 to 4.5 s of "
        "the 60 in the others). lastmile keeps BaseRTT the smallest measured RTT (§3.1). No "
        "option copies either."
    ),
    "Vegas, window 20, PER 0.05": (
        "ns-2's fine-grained bookkeeping has a defect at the wrap of its ring: v_sendtime_ and "
        "v_transmits_ are indexed by seqno % v_maxwnd_ with v_maxwnd_ = window_ (tcp-vegas.cc:"
        "468, 482-484), and the loop that clears the slots a cumulative ACK covers, for (k = "
        "(oldack + 1) % v_maxwnd_; k <= seqno % v_maxwnd_ && range > 0; ...) (tcp-vegas.cc:"
        "307), runs not at all when the covered range wraps past the end of the ring. The "
        "slots keep their count, so the segments later sent there count as retransmitted: "
        "they give no RTT sample (:314), a loss of one halves the window instead of taking a "
        "quarter (:382) and doubles v_timeout_ (:371). With a 20-packet window a multi-packet "
        "ACK wraps one time in a few; with 100 rarely (that point is 1.10). Shown by a run: "
        "the same ns-2 with the ring made 100,000 long (window_ 100000 when the first packet "
        "is sent, set back to 20 at once, so only the ring changes: VEGAS_RING=100000 in "
        "chain.tcl's environment) gives 907 kbps against "
        "802 at PER 0.05 (window 20, seeds 1-10, the same loss lists), and lastmile's 956 is "
        "then 1.05 of it; at PER 0.1 the ring moves ns-2 only from 294 to 304 kbps. lastmile "
        "keeps its send times per segment and follows the paper; no option copies the defect. "
        "ns-2's backoff at fast retransmits (Vegas, PER 0.1) also counts here: lastmile with "
        "ns-2's rule gives 805.5 kbps at this point, 1.03 of ns-2."
    ),
}
EXPLANATIONS["Vegas, window 100, PER 0.1"] = EXPLANATIONS["Vegas, window 20, PER 0.1"]
EXPLANATIONS["FACK, window 100"] = EXPLANATIONS["FACK, window 20"]
EXPLANATIONS["FACK, window 20, ssthresh_rule bsd"] = EXPLANATIONS["FACK, window 20"]
EXPLANATIONS["FACK, window 100, ssthresh_rule bsd"] = EXPLANATIONS["FACK, window 20"]
EXPLANATIONS["Tahoe, window 100"] = EXPLANATIONS["Tahoe, window 20"]


class ClassicTcpNs2:
    """The family object (`validation.framework.Family`)."""

    name = "classic-tcp-ns2"
    title = "Classic TCP against ns-2.35 (Path B)"
    reference = "ns-2.35"
    metric = "goodput_kbps"
    extra_metrics = ("timeouts", "retransmissions")
    x_label = "packet error rate on the wireless hop"
    settings = SETTINGS
    points = tuple(
        _point(a, w, per, rule)
        for a in AGENTS
        for w in WINDOWS
        for rule in RULES
        if rule == "rfc5681" or a in RENO_RULE
        for per in PERS
    )
    #: Point parameters ns-2 does not read: the two rules share their ns-2 runs.
    lastmile_only = ("ssthresh_rule",)
    #: The issue asks for at least 10; at PER 0.1 one run's goodput varies by 10 % from seed
    #: to seed in either simulator, so 10 seeds leave each mean 3 % uncertain: 30 are run.
    seeds = 30
    smoke = _point("Newreno", 20, 0.05, duration_s=10.0)
    panel = staticmethod(panel)
    explanations: Mapping[str, str] = EXPLANATIONS
    #: `--quick`: these PERs only.
    quick_x = (0.0, 0.02, 0.1, 0.2)

    def run_lastmile(self, point: Point, seed: int) -> Outcome:
        p = point.params
        summary, wall = harness.run_lastmile(
            scenario(
                harness.param_str(p, "agent"),
                harness.param_int(p, "window"),
                harness.param_float(p, "per"),
                seed,
                harness.param_float(p, "duration_s"),
                harness.param_str(p, "ssthresh_rule"),
            )
        )
        flow = summary["flows"][0]
        return Outcome(
            metrics={
                "goodput_kbps": flow["throughput_bps"] / 1000,
                "timeouts": float(flow["tcp_timeouts"]),
                "retransmissions": float(flow["tcp_retransmits"]),
            },
            wall_s=wall,
            engine_s=float(summary["engine"]["wall_s"]),
        )

    def run_reference(self, point: Point, seed: int) -> Outcome:
        p = point.params
        per = harness.param_float(p, "per")
        lost = loss_list(per, seed)
        losses = "list:" + ",".join(map(str, lost)) if lost else "0"
        result, wall = harness.run_ns2(
            "chain.tcl", [p["agent"], p["window"], losses, seed, p["duration_s"]]
        )
        return Outcome(
            metrics={
                "goodput_kbps": float(result["goodput_kbps"]),
                "timeouts": float(result["timeouts"]),
                "retransmissions": float(result["retransmissions"]),
            },
            wall_s=wall,
            engine_s=float(result["engine_s"]),
        )


FAMILY = ClassicTcpNs2()
