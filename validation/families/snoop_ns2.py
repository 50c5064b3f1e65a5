"""Snoop against ns-2.35's `LL/LLSnoop` (tcp/snoop.cc).

The path: fixed host —10 Mbps— base station —2 Mbps LAN— mobile host, one bulk Reno flow for
60 s, uniform per-packet losses on the frames the mobile receives, PER 0 to 0.2. In ns-2 the
hop is a two-node LAN whose base-station interface runs `LL/LLSnoop` and whose MAC is the
plain, contention-free `Mac` (a 64-byte MAC header, no collisions: the only ns-2 MAC that is
not a different protocol than lastmile's full-duplex hop); `validation/ns2/snoop_lan.tcl`.
In lastmile it is the chain's point-to-point hop with `overhead = "64B"`.

Three series, the same path and seeds in both simulators:

* **ns-2's Snoop** — lastmile's `variant = "ns2"` (`agents/snoop/ns2.rs`, snoop.cc rule by
  rule) beside `LL/LLSnoop`: like with like; target 10 %.
* **TCP alone** — no Snoop in either (`LL` in ns-2): the control that the path and the TCP
  are matched; target 10 %.
* **lastmile's default Snoop** — the BSD code as the TULIP paper ran it (retransmissions
  ahead of the queue, the burst-loss rule, TULIP's 2·rtt timer) beside ns-2's: reported, no
  target, every difference explained in `EXPLANATIONS`.

Run alone: ``python -m validation.families.snoop_ns2 [--seeds N] [--only SERIES]`` prints the
table (lastmile, ns-2, ratio per point).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validation import harness
from validation.framework import Outcome, Point, Setting

HERE = Path(__file__).resolve().parent.parent
TCL = HERE / "ns2" / "snoop_lan.tcl"

PERS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2)
DURATION_S = 60.0
PAYLOAD_BYTES = 1000
WINDOW_PACKETS = 20
#: ns-2's LAN delivers a frame to the receiver's MAC when its *first* bit is sent and adds
#: `make-lan`'s delay in each LL (down at the sender, up at the receiver); Snoop sits in the
#: base station's LL, so the data's down delay is inside its rtt and the ACK's up delay
#: outside. With 5 ms per LL: path rtt 40.872 ms, Snoop's sample 15 ms + queueing (measured:
#: 62.456 ms at PER 0 in both, `EXPLANATIONS`).
NS2_LAN_DELAY_S = 0.005
#: lastmile's delays that give the same path rtt (10 ms + 2.5 ms each way on the wire, the
#: ACK's LL-up delay moved outside Snoop's view) and Snoop the same sample: 2 x 5.088 ms +
#: 4.416 ms (1104 B at 2 Mbps) + 0.416 ms (104 B) = 15 ms.
WIRED_DELAY = "12.5ms"
WIRELESS_DELAY = "5.088ms"

SERIES = {
    "ns2": ('ns-2\'s Snoop (variant = "ns2")', "LL/LLSnoop", {"variant": "ns2"}),
    "none": ("TCP alone (no Snoop)", "LL", None),
    "tulip": ("lastmile's default Snoop (TULIP's) vs ns-2's", "LL/LLSnoop", {}),
}
TARGETS = {"ns2": 0.10, "none": 0.10, "tulip": None}


def scenario(series: str, per: float, seed: int, duration_s: float) -> dict[str, Any]:
    """The path in lastmile, ns-2.35's TCP defaults written out (`validation-notes.md`)."""
    tcp: dict[str, Any] = {
        "variant": "reno",
        "mss": f"{PAYLOAD_BYTES}B",
        "rwnd": f"{WINDOW_PACKETS * PAYLOAD_BYTES}B",
        "initial_ssthresh": f"{WINDOW_PACKETS * PAYLOAD_BYTES}B",
        "initial_window": 2,
        "timer_granularity": "10ms",
        "rtt_estimator": "ns2",
        "min_rto": "200ms",
        "max_rto": "60s",
        "initial_rto": "3s",
        "max_backoff": 64,
        "ack": "every",
        "limited_transmit": True,
    }
    errors = {"model": "per", "per": per} if per > 0 else {"model": "none"}
    snoop = SERIES[series][2]
    base_station: dict[str, Any] = (
        {"agent": "none"} if snoop is None else {"agent": "snoop", "snoop": snoop}
    )
    return {
        "name": f"snoop-ns2-{series}-per{per}",
        "seed": seed,
        "stop_time": f"{duration_s}s",
        "topology": {
            "preset": "chain",
            "wired": {"rate": "10Mbps", "delay": WIRED_DELAY, "queue": "50pkt"},
            "wireless": {
                "rate": "2Mbps",
                "delay": WIRELESS_DELAY,
                "queue": "50pkt",
                "overhead": "64B",
                "errors": errors,
            },
        },
        "base_station": base_station,
        "flow": [{"src": "fh", "dst": "mh", "tcp": tcp, "app": {"kind": "bulk", "bytes": "10GB"}}],
    }


def _point(series: str, per: float, duration_s: float = DURATION_S) -> Point:
    label = SERIES[series][0]
    return Point(
        label=f"{label}, PER {per:g}",
        series=label,
        x=per,
        params={"series": series, "ll": SERIES[series][1], "per": per, "duration_s": duration_s},
        target=TARGETS[series],
    )


def _param(params: Mapping[str, object], key: str) -> Any:
    if key not in params:
        raise KeyError(f"point parameter {key!r} missing")
    return params[key]


SETTINGS = (
    Setting(
        "path",
        f"chain: wired 10 Mbps {WIRED_DELAY}, queue 50 packets; wireless point-to-point 2 Mbps "
        f"{WIRELESS_DELAY}, overhead 64 B, queue 50 packets",
        "duplex-link 10Mb 10ms DropTail (queue-limit 50); make-lan 2Mb 5ms, Queue/DropTail "
        "(limit 50), Mac, Channel; LL/LLSnoop on the base station, LL on the mobile",
    ),
    Setting(
        "rtts",
        "path 40.872 ms; Snoop's sample 15.008 ms + queueing",
        "path 40.872 ms (10.832 + 5 + 0 + 5 | 5 + 0 + 5 + 10.032: each LL adds 5 ms, a frame "
        "reaches the receiver with its first bit); Snoop's sample 15 ms + queueing (the ACK's "
        "LL-up delay at the base station is after Snoop)",
        note="matched by moving 2.5 ms of each direction onto the wire",
    ),
    Setting(
        "frame timing",
        "a frame arrives when its last bit has crossed the hop",
        "the base Mac hands a frame to the receiver when its first bit is sent; the 4.416 ms "
        "of a data frame's serialisation only holds the sender's queue",
        matched=False,
        note="equal path and Snoop rtts (above); the receiver sees each frame 4.4 ms earlier "
        "relative to the frames behind it",
    ),
    Setting(
        "losses",
        "wireless.errors = per on bs → mh (data; ACKs and the SYN-ACK never lost)",
        "ErrorModel (unit pkt, Uniform on $defaultRNG) spliced between the mobile's Mac and LL "
        "(LanIface add-receive-filter fails in 2.35): every frame the mobile receives",
    ),
    Setting(
        "TCP",
        "Reno, mss 1000 B (+40 B headers), rwnd = initial_ssthresh = 20 packets, initial "
        "window 2, rtt_estimator ns2 with a 10 ms clock, min RTO 200 ms, initial RTO 3 s, "
        "back-off ≤ 64, an ACK per segment, limited transmit",
        "Agent/TCP/Reno + TCPSink, packetSize_ 1000, window_ 20, windowInit_ 2, tcpTick_ 10 ms, "
        "minrto_ 0.2, rtxcur_init_ 3, singledup_ 1 (ns-default.tcl)",
    ),
    Setting(
        "TCP after a timeout",
        "ssthresh = max(FlightSize/2, 2 segments), held on a repeated timeout (RFC 5681 §3.1)",
        "ssthresh = min(cwnd, window)/2, at least 2, on every timeout (tcp.cc slowdown, "
        "CLOSE_SSTHRESH_HALF)",
        matched=False,
        note="lastmile's TCP follows RFC 5681; a TCP matter (classic-tcp-ns2), amplified here",
    ),
    Setting(
        "Snoop (ns2 series)",
        'variant = "ns2": timer max(srtt + 4·rttvar, 100 ms), srtt 100 ms, rttvar 250 ms, '
        "g 1/8 on the old value, thresh shared, expDupacks, FIFO retransmissions, 100-packet "
        "cache, 10 retransmissions",
        "ns-ll.tcl: snoopTick_ 0.1, srtt_ 0.1, rttvar_ 0.25, g_ 0.125, maxbufs_ 0 (100), "
        "integrate_ 0, lru_ 0; snoop.cc SNOOP_MAX_RXMIT 10",
    ),
    Setting(
        "Snoop: the SYN",
        "not cached (the TCP retransmits a lost SYN after its 3 s initial RTO)",
        "ns-2's one-way TCP sends the SYN as packet 0 and Snoop caches it (1.1 s first timeout)",
        matched=False,
        note="a start-up difference, once per run",
    ),
    Setting(
        "Snoop: caching condition",
        "every segment while the cache has room",
        "only while the interface queue holds fewer than limit - 1 packets",
        matched=False,
        note="never binding here: the 20-packet window cannot fill the 50-packet queue",
    ),
)

EXPLANATIONS = {
    SERIES["ns2"][0]: (
        "Measured (8 seeds, 60 s): ratio 1.00 at PER 0 and 0.01, 0.98 at 0.02, 0.90 at 0.05, "
        "0.91 at 0.1, 1.11 at 0.15, 1.53 at 0.2. Snoop's own behaviour matches ns-2's: with "
        "the same loss list (ErrorModel/List in ns-2, drop_list in lastmile; lastmile ordinal "
        "= ns-2 count + 1) losing data packets 50 and 51, both send the same frames in the "
        "same order — the first dupack forwarded, the 2nd retransmitting 50 behind 11-12 "
        "queued packets, the ACK for it stopping at 51, whose 2nd dupack retransmits it — and "
        "Snoop's rtt sample at PER 0 is 62.456 ms in both once the delays sit as in SETTINGS "
        "(split evenly, lastmile's sample was 5 ms longer and its goodput 17 % low at PER "
        "0.05). Under random losses the runs part first at a TCP decision, not a Snoop one: "
        "with loss list seed 7 at PER 0.1 the first different frame follows the source's "
        "first timeout, after which ns-2's Reno sets ssthresh to 2 packets (min(cwnd, "
        "window)/2 = 5/2, tcp.cc slowdown) and lastmile's to 3.5 (FlightSize/2, RFC 5681 "
        "(4)), and ns-2 halves it again on the backed-off second timeout (0.72 s) where RFC "
        "5681 §3.1 holds it. Snoop's timer follows every later rtt sample (ns-2's estimator "
        "measures its own stalls, TULIP §5.2), so the two runs drift apart from there. At "
        "PER 0.15 and 0.2 the TCP-alone control is off by the same factor (1.11, 1.49): the "
        "gap is the TCP's timeout behaviour (classic-tcp-ns2), not Snoop's; ns-2's Snoop also "
        "caches the SYN (1.1 s first timeout against the TCP's 3 s initial RTO)."
    ),
    SERIES["none"][0]: (
        "Measured (8 seeds): ratio 1.00, 1.02, 1.03, 1.04 at PER 0-0.05, then 1.22, 1.11, "
        "1.49 at 0.1, 0.15, 0.2, where 60-90 timeouts a minute dominate. The high-PER excess "
        "is limited transmit: with lastmile's limited_transmit = false the same runs give "
        "270 kbps against ns-2's 272 at PER 0.1 (0.99). ns-2's singledup_ (tcp.cc send_one: "
        "a new packet while t_seqno_ <= highest_ack_ + cwnd_ + dupacks_) sends less than "
        "RFC 3042 after a timeout's go-back-N; a TCP matter for the classic-tcp-ns2 family. "
        "singledup_ 1 is ns-2.35's default, so the matched setting stays on."
    ),
    SERIES["tulip"][0]: (
        "Measured (8 seeds): ratio 1.00 at PER 0, 1.05 at 0.01, 1.09 at 0.02, 1.30 at 0.05, "
        "2.07 at 0.1, 4.36 at 0.15, 8.51 at 0.2 — lastmile's default is the BSD Snoop as the "
        "TULIP paper ran it, not ns-2's: (1) its retransmissions go ahead of the base "
        "station's queue (Balakrishnan et al. 1995, Fig. 2: 'Retransmit lost packet with "
        "high priority'); ns-2's sendDown puts them behind up to 12 queued packets (snoop.cc: "
        "'Ideally, would like to schedule snoop retransmissions at higher priority'); (2) its "
        "burst-loss rule retransmits the next hole when the ACK for a retransmission stops at "
        "it; ns-2 waits for two more dupacks or its timer; (3) its timer is max(40 ms, 2·rtt) "
        "from one timed segment, with the rtt sample measured on the link; ns-2's max(srtt + "
        "4·rttvar, 100 ms) takes a sample on every new ACK from the send time of the last "
        "segment freed and weighs it 7/8, so it measures its own stalls (TULIP §5.2's bug): at "
        "PER 0.2, seed 1, ns-2's Snoop sat 6.06 s (12.35-18.41 s) waiting for its own timer "
        "with the link idle, 53.6 of its 60 s in gaps over 0.3 s. Before these rules were "
        "corrected lastmile's default was 1.41x ns-2 at PER 0.1 and 4.98x at 0.2 ("
        "finding 6); the ns2 series is the like-for-like comparison."
    ),
}


@dataclass(frozen=True)
class SnoopNs2Family:
    """The family (`validation/framework.py`'s contract)."""

    name: str = "snoop-ns2"
    title: str = "Snoop vs ns-2.35's LL/LLSnoop"
    reference: str = "ns-2.35"
    metric: str = "goodput_kbps"
    extra_metrics: tuple[str, ...] = ("timeouts", "source_retransmissions")
    x_label: str = "packet error rate on the hop to the mobile"
    settings: tuple[Setting, ...] = SETTINGS
    points: tuple[Point, ...] = field(
        default_factory=lambda: tuple(_point(s, p) for s in SERIES for p in PERS)
    )
    seeds: int = 8
    #: Point parameters ns-2 does not read: the two Snoop series share their LL/LLSnoop runs.
    lastmile_only: tuple[str, ...] = ("series",)
    smoke: Point = field(default_factory=lambda: _point("ns2", 0.05, duration_s=10.0))
    explanations: Mapping[str, str] = field(default_factory=lambda: dict(EXPLANATIONS))

    def run_lastmile(self, point: Point, seed: int) -> Outcome:
        series = str(_param(point.params, "series"))
        per = float(_param(point.params, "per"))
        duration_s = float(_param(point.params, "duration_s"))
        summary, wall_s = harness.run_lastmile(scenario(series, per, seed, duration_s))
        flow = summary["flows"][0]
        return Outcome(
            metrics={
                "goodput_kbps": float(flow["bytes_delivered"]) * 8.0 / duration_s / 1e3,
                "timeouts": float(flow["tcp_timeouts"]),
                "source_retransmissions": float(flow["tcp_retransmits"]),
            },
            wall_s=wall_s,
            engine_s=float(summary["engine"]["wall_s"]),
        )

    def run_reference(self, point: Point, seed: int) -> Outcome:
        ll = str(_param(point.params, "ll"))
        per = float(_param(point.params, "per"))
        duration_s = float(_param(point.params, "duration_s"))
        args = [
            "ns",
            str(TCL),
            "Reno",
            str(WINDOW_PACKETS),
            f"{per:g}",
            str(seed),
            f"{duration_s:g}",
            f"{NS2_LAN_DELAY_S:g}",
            ll,
        ]
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, check=False, timeout=600)
        wall_s = time.perf_counter() - start
        match = re.search(r"^RESULT (\{.*\})$", done.stdout, re.MULTILINE)
        if done.returncode != 0 or match is None:
            raise RuntimeError(
                f"ns-2 failed for {point.label}, seed {seed} (exit {done.returncode}): "
                f"{done.stderr.strip()[-400:]}"
            )
        r = json.loads(match.group(1))
        return Outcome(
            metrics={
                "goodput_kbps": float(r["goodput_kbps"]),
                "timeouts": float(r["timeouts"]),
                "source_retransmissions": float(r["retransmissions"]),
            },
            wall_s=wall_s,
            engine_s=float(r["engine_s"]),
        )


FAMILY = SnoopNs2Family()


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=FAMILY.seeds)
    parser.add_argument("--only", choices=sorted(SERIES), help="one series")
    args = parser.parse_args()
    print("| point | lastmile kbps | ns-2 kbps | ratio | timeouts (lastmile / ns-2) |")
    print("|---|---|---|---|---|")
    for point in FAMILY.points:
        if args.only and point.params["series"] != args.only:
            continue
        ours = [FAMILY.run_lastmile(point, s) for s in range(1, args.seeds + 1)]
        ref = [FAMILY.run_reference(point, s) for s in range(1, args.seeds + 1)]
        m = statistics.mean(o.metrics["goodput_kbps"] for o in ours)
        r = statistics.mean(o.metrics["goodput_kbps"] for o in ref)
        t_m = statistics.mean(o.metrics["timeouts"] for o in ours)
        t_r = statistics.mean(o.metrics["timeouts"] for o in ref)
        ratio = m / r if r else float("nan")
        print(f"| {point.label} | {m:.0f} | {r:.0f} | {ratio:.2f} | {t_m:.1f} / {t_r:.1f} |")


if __name__ == "__main__":
    _main()
