"""Every congestion control lastmile shares with ns-3.44, with SACK, against ns-3 on two paths
whose bandwidth-delay product is 40 packets or more and whose queues overflow, over packet
error rates from 0 to 0.05: the regime where the algorithms differ ("every
congestion control ns-3 also implements").

The algorithms: NewReno (ns-3 `TcpNewReno`), CUBIC (`TcpCubic`), BBR v1 (`TcpBbr`), Vegas
(`TcpVegas`), Westwood+ (`TcpWestwoodPlus`), Veno (`TcpVeno`) and Illinois (`TcpIllinois`).
ns-3.44's other controllers (HighSpeed, BIC, Hybla, H-TCP, Scalable, YeAH, LP, LEDBAT,
DCTCP, `TcpLinuxReno`) have no counterpart in lastmile; lastmile's FAST and Santa Cruz none
in ns-3.

The paths (fh —wire— bs —hop— mh; drop-tail queues at both ends of both hops; packet
errors on the hop towards the mobile host, data only; segments of 1400 B, IW 1, an ACK per
segment, no timestamps, SACK with PRR and limited transmit, minimum RTO 1 s, rwnd 4 MB,
20 MB bulk transfer):

* **Path A** (the issue's): 100 Mb/s, 20 ms wire; 10 Mb/s, 5 ms hop; queues of 100 packets.
  BDP ≈ 10 Mb/s x 52 ms ≈ 45 packets of 1442 B, so a queue of ≈ 2.2 BDP.
* **Path B** (a long path with a queue below the BDP): 100 Mb/s, 40 ms wire; 20 Mb/s,
  10 ms hop; queues of 50 packets. BDP ≈ 20 Mb/s x 101 ms ≈ 175 packets, a queue of
  ≈ 0.29 BDP: after a halving Reno-like controllers leave the link idle, and BBR's startup
  overflows the queue.

ns-3 runs in its own interpreter (`$NS3_PYTHON`, default `/work/ns3-venv/bin/python`)
through `validation/ns3/cc_path.py`, one worker process that imports ns-3 once and forks a
child per run. The two simulators draw different losses: compare means over the seeds.

The suite (`python -m validation.suite --family cc_ns3`) runs it; alone,

    python -m validation.families.cc_ns3 [--seeds N] [--only LABEL-SUBSTRING] [--smoke]

runs the same points, keeps them in `validation/results/cc_ns3.json` in the suite's format
and prints the table (`--table`: the table of what is kept, nothing run).
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import json
import os
import queue
import statistics
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validation import harness
from validation.framework import Outcome, Point, Setting

NS3_PYTHON = os.environ.get("NS3_PYTHON", "/work/ns3-venv/bin/python")
HERE = Path(__file__).resolve().parent.parent
NS3_SCRIPT = HERE / "ns3" / "cc_path.py"
RESULTS = HERE / "results" / "cc_ns3.json"

MSS_BYTES = 1400
RWND_BYTES = 4_000_000
TRANSFER_BYTES = 20_000_000
#: Long enough for the slowest run (NewReno on path B at PER 0.05, about 0.5 Mb/s).
STOP_S = 3000.0
PERS = (0.0, 0.001, 0.005, 0.02, 0.05)
TARGET = 0.20


@dataclass(frozen=True)
class Path_:
    """One of the family's two paths."""

    name: str
    wired_rate: str
    wired_delay: str
    hop_rate: str
    hop_delay: str
    queue_packets: int


PATHS = (
    Path_("A", "100Mbps", "20ms", "10Mbps", "5ms", 100),
    Path_("B", "100Mbps", "40ms", "20Mbps", "10ms", 50),
)


@dataclass(frozen=True)
class Algo:
    """One congestion control in both simulators."""

    label: str
    #: lastmile's `tcp` settings beyond the common ones (`cc` and its table).
    lastmile_tcp: Mapping[str, object]
    #: ns-3's `TcpCongestionOps` type, without `ns3::`.
    ns3: str
    #: ns-3 attribute defaults.
    ns3_attrs: Mapping[str, str] = field(default_factory=dict)


ALGOS = (
    Algo("NewReno", {"cc": "reno"}, "TcpNewReno"),
    Algo("CUBIC", {"cc": "cubic"}, "TcpCubic"),
    Algo("BBR", {"cc": "bbr"}, "TcpBbr"),
    # ns-3's and Linux's constants alpha = 2, beta = 4, gamma = 1 and Reno's loss handling, as their
    # Vegas runs (lastmile's defaults are the paper's alpha = 1, beta = 3 and Brakmo & Peterson's
    # fine-grained retransmission). With alpha = 1 ns-3's Diff, cwnd - ⌊cwnd · BaseRTT/RTT⌋ in
    # whole segments (tcp-vegas.cc:198, :206), is never below 1 while any queue exists, so
    # its window never grows in congestion avoidance (docs/congestion-control.md).
    Algo(
        "Vegas",
        {"cc": {"kind": "vegas", "alpha": 2.0, "beta": 4.0, "fine_grained_retransmission": False}},
        "TcpVegas",
    ),
    Algo("Westwood+", {"cc": "westwood_plus"}, "TcpWestwoodPlus"),
    Algo("Veno", {"cc": "veno"}, "TcpVeno"),
    # ns-3 compares WinThresh with cwnd in bytes (tcp-illinois.cc:178 passes m_cWnd to
    # RecalcParam, which tests it against m_winThresh = 15): 15 segments in bytes, so that
    # its small-window Reno mode engages as Linux's and the paper's do.
    Algo(
        "Illinois",
        {"cc": "illinois"},
        "TcpIllinois",
        {"ns3::TcpIllinois::WinThresh": str(15 * MSS_BYTES)},
    ),
)
ALGO_BY_LABEL = {a.label: a for a in ALGOS}
PATH_BY_NAME = {p.name: p for p in PATHS}


def _point(algo: Algo, path: Path_, per: float, transfer: int = TRANSFER_BYTES) -> Point:
    """A point; its parameters carry every setting either side reads, so that a changed
    setting makes the suite run it again."""
    return Point(
        label=f"{algo.label}, path {path.name}, PER {per:g}",
        series=f"{algo.label}, path {path.name}",
        x=per,
        params={
            "algo": algo.label,
            "path": path.name,
            "per": per,
            "bytes": transfer,
            "lastmile_tcp": dict(algo.lastmile_tcp),
            "ns3_cc": algo.ns3,
            "ns3_attrs": dict(algo.ns3_attrs),
        },
        target=TARGET,
    )


def lastmile_scenario(point: Point, seed: int) -> dict[str, Any]:
    """The point as a lastmile scenario."""
    p = point.params
    path = PATH_BY_NAME[str(p["path"])]
    per = float(str(p["per"]))
    lastmile_tcp = p["lastmile_tcp"]
    assert isinstance(lastmile_tcp, Mapping)
    tcp: dict[str, object] = {
        "recovery": "sack",
        "prr": True,
        "limited_transmit": True,
        "keep_sack_after_timeout": True,
        "mss": f"{MSS_BYTES}B",
        "rwnd": f"{RWND_BYTES}B",
        "initial_window": 1,
        "min_rto": "1s",
        **lastmile_tcp,
    }
    errors = {"model": "per", "per": per} if per > 0 else {"model": "none"}
    queue = f"{path.queue_packets}pkt"
    return {
        "name": f"cc-ns3-{p['ns3_cc']}-{path.name}",
        "seed": seed,
        "stop_time": f"{STOP_S:g}s",
        "topology": {
            "preset": "chain",
            "wired": {
                "rate": path.wired_rate,
                "delay": path.wired_delay,
                "queue": queue,
                "overhead": "2B",
            },
            "wireless": {
                "rate": path.hop_rate,
                "delay": path.hop_delay,
                "queue": queue,
                "overhead": "2B",
                "errors": errors,
            },
        },
        "flow": [
            {
                "src": "fh",
                "dst": "mh",
                "tcp": tcp,
                "app": {"kind": "bulk", "bytes": f"{int(str(p['bytes']))}B"},
            }
        ],
    }


def ns3_request(point: Point, seed: int) -> dict[str, Any]:
    """The point as a run of `validation/ns3/cc_path.py`."""
    p = point.params
    path = PATH_BY_NAME[str(p["path"])]
    attrs = p["ns3_attrs"]
    assert isinstance(attrs, Mapping)
    return {
        "cc": str(p["ns3_cc"]),
        "attrs": dict(attrs),
        "recovery": "TcpPrrRecovery",
        "per": float(str(p["per"])),
        "seed": seed,
        "mss": MSS_BYTES,
        "iw": 1,
        "rwnd": RWND_BYTES,
        "min_rto_s": 1.0,
        "queue": path.queue_packets,
        "wired_rate": path.wired_rate,
        "wired_delay": path.wired_delay,
        "hop_rate": path.hop_rate,
        "hop_delay": path.hop_delay,
        "bytes": int(str(p["bytes"])),
        "stop_s": STOP_S,
    }


class Ns3RunFailed(ValueError):
    """An ns-3 run that gave no result (the suite reports it and goes on)."""


class _Ns3Worker:
    """One `cc_path.py --worker` process, started on first use and kept for its runs."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[str] | None = None
        self.import_s: float | None = None

    def _start(self) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [NS3_PYTHON, str(NS3_SCRIPT), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("READY "):
            raise Ns3RunFailed(f"ns-3 worker did not start ({NS3_PYTHON} {NS3_SCRIPT})")
        self.import_s = float(json.loads(line[len("READY ") :])["import_s"])
        atexit.register(self.close)
        return proc

    def run(self, request: Mapping[str, Any]) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        while line := self.proc.stdout.readline():
            if line.startswith("RESULT "):
                result: dict[str, Any] = json.loads(line[len("RESULT ") :])
                if "error" in result:
                    raise Ns3RunFailed(f"ns-3 run failed: {result['error']}")
                return result
        raise Ns3RunFailed("ns-3 worker exited")

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        self.proc = None


class _Ns3Pool:
    """Idle ns-3 workers: a run takes one (or starts one), so that runs from several threads
    (the suite's `--jobs`) never share a worker's pipes."""

    def __init__(self) -> None:
        self.idle: queue.SimpleQueue[_Ns3Worker] = queue.SimpleQueue()
        self.import_s: float | None = None

    def run(self, request: Mapping[str, Any]) -> dict[str, Any]:
        try:
            worker = self.idle.get_nowait()
        except queue.Empty:
            worker = _Ns3Worker()
        try:
            result = worker.run(request)
            self.import_s = worker.import_s
        except Ns3RunFailed:
            worker.close()
            raise
        self.idle.put(worker)
        return result


_WORKERS = _Ns3Pool()


def _flow_and_bottleneck(summary: Mapping[str, Any]) -> tuple[Mapping[str, Any], int]:
    flow = summary["flows"][0]
    drops = sum(
        int(link["queue_drops"])
        for link in summary["links"]
        if link["name"] == "wireless" and link["from"] == "bs"
    )
    return flow, drops


#: Why a series or point differs, with its evidence. Traces: `validation/ns3/cc_path.py`'s
#: run with the CongestionWindow, SlowStartThreshold, BytesInFlight and CongState traces
#: connected; lastmile's `cwnd`, `cc` and `seq` traces of the same point.
EXPLANATIONS: dict[str, str] = {
    "NewReno, path B, PER 0": (
        "One loss episode, the slow-start overshoot of a 50-packet queue (64 and 65 drops). "
        "ns-3 ends its recovery at 1.2226 s and starts another at 1.2249 s for a 65th drop, "
        "a segment of new data sent during the first recovery at 1.134 s (TcDrop trace, seq "
        "708401): its PRR takes RecoverFS from BytesInFlight (tcp-prr-recovery.cc:64), not "
        "snd.nxt - snd.una (RFC 6937), so it sends more while pipe > ssthresh. Its ssthresh "
        "goes 158,200 → 77,700 B and the 100 ms path then runs at half its BDP; lastmile's "
        "stays at 159,600 B (seed 1; every seed alike)."
    ),
    "Veno, path B, PER 0": (
        "The same second reduction in ns-3 as NewReno's (see NewReno, path B, PER 0)."
    ),
    "Veno, path A": (
        "ns-3 cuts 4/5 of BytesInFlight (tcp-socket-base.cc:1714-1716 passes the pipe, "
        "tcp-veno.cc GetSsThresh scales it), which at these small windows is 2 segments "
        "below cwnd: seed 1 at PER 0.05 cuts cwnd 8 → ssthresh 4.8, 15 → 10.4, 10 → 4.5 "
        "segments where the paper's 4/5·cwnd gives 6.4, 12, 8. lastmile follows the paper "
        "(and Linux's tcp_veno.c) in cutting cwnd, so its Veno keeps 1.8 times its NewReno at "
        "PER 0.05, ns-3's 1.25 times its own."
    ),
    "Veno, path B": "As on path A: ns-3 cuts from BytesInFlight, lastmile from cwnd.",
    "Westwood+, path A": (
        "ns-3 credits a segment for every duplicate ACK (tcp-socket-base.cc:2038) and, on the "
        "ACK that ends recovery, every segment it covers again ((ackNumber - oldHead)/SMSS, "
        "tcp-socket-base.cc:2206-2209), so each loss adds its window twice to Westwood+'s "
        "bandwidth sample (tcp-westwood-plus.cc PktsAcked/EstimateBW, one sample per SRTT "
        "from the first ACK). Its BWE · minRtt, the ssthresh of the next loss, runs above the "
        "rate achieved and the window climbs: ssthresh 8 → 35 KB over 6 s at PER 0.02 "
        "(seed 1), 7.4 Mb/s. lastmile counts each segment once (Linux's westwood_acked_count): "
        "BWE 2.2-3.4 Mb/s, ssthresh 14-23 KB, 3.8 Mb/s."
    ),
    "Westwood+, path B": "As on path A (the double count in ns-3's bandwidth samples).",
    "Illinois, path A, PER 0.02": (
        "Illinois is bistable here: below win_thresh (15 segments) it is Reno, whose window at "
        "PER 0.02 settles near 9 segments; above it, with no queueing delay, alpha rises to 10 and "
        "beta falls to 1/8 and the window grows to 30-60 segments. Every ns-3 seed stays in Reno "
        "mode (ssthresh ≤ 8 segments after 4 s, seed 1, cut from BytesInFlight); lastmile's "
        "seeds spend 47-98 % of the run at or above win_thresh (cc trace: median cwnd 30-40 "
        "segments, alpha 0.9-10, beta 1/8-1/2), 4.0-7.4 Mb/s per seed."
    ),
    "Illinois, path B, PER 0.02": (
        "The bistability of path A at PER 0.02: lastmile's seeds spend 49-98 % of the run at or "
        "above win_thresh (cc trace: median cwnd 34-43 segments, alpha 1-10), 2.3-4.3 Mb/s per "
        "seed, ns-3's 2.0-2.6 Mb/s. ns-3 measures its delays from SRTT in whole milliseconds "
        "(tcp-illinois.cc RecalcParam) and cuts from BytesInFlight; its side not traced further."
    ),
    "Illinois, path B, PER 0.05": (
        "Below win_thresh, where Illinois is Reno in both simulators: lastmile's window stays "
        "under 15 segments for 97-100 % of every run (cc trace: median cwnd 6 segments, alpha "
        "1, beta 1/2), and its Illinois delivers what its NewReno does (0.44 and 0.42 Mb/s). "
        "ns-3's Illinois delivers 1.43 times ns-3's NewReno (0.60 and 0.42 Mb/s, 37.4 and "
        "43.0 timeouts): the difference lies between ns-3's two Reno-like controllers; not "
        "traced further."
    ),
    "BBR, path A, PER 0.05": (
        "Timeouts: a retransmission lost again (5 % of them) is found only by the "
        "retransmission timer in both simulators (neither runs RACK here), but lastmile keeps "
        "RFC 6298's backoff until a valid RTT sample, which a go-back-N of retransmissions "
        "never gives, while ns-3 recomputes the RTO without backoff on every new ACK "
        "(tcp-socket-base.cc:3828): 15.6 against 9.4 timeouts. With rack = true (RFC 8985) "
        "lastmile's BBR reaches 8.8 Mb/s with no timeout (seed 1)."
    ),
    "BBR, path B, PER 0.05": (
        "As on path A, and worse: seed 1 retransmits one segment at 9.1, 17.1, 33.1 and "
        "65.1 s (backoff 8 → 60 s) while the hole blocks the window. With rack = true "
        "lastmile's BBR reaches 15.8, 14.9, 15.5 Mb/s on seeds 1-3 with no timeout."
    ),
    "Vegas, path A": (
        "ns-3's Vegas answers a loss with ssthresh = max(min(ssthresh, cwnd - 1 segment), 2 "
        "segments) (tcp-vegas.cc:282, GetSsThresh, also used on fast retransmit): one segment "
        "per loss, where the paper's Reno-based Vegas and Linux's tcp_vegas.c halve (lastmile "
        "with fine_grained_retransmission = false). Evidence: ns-3's ssthresh trace at PER "
        "0.005 (seed 1) steps 43,400 -> 42,000 -> 40,600 -> 39,200 B, 1,400 B per loss; so it "
        "keeps about twice lastmile's window at PER 0.005-0.05. Without losses the two agree "
        "(9.40 / 9.47 Mb/s)."
    ),
    "Vegas, path B": "As on path A.",
}


class CcNs3Family:
    """The family (`validation.framework.Family`)."""

    name = "cc_ns3"
    title = "Congestion controls with SACK vs ns-3.44 (two paths, PER 0-0.05)"
    reference = "ns-3.44"
    metric = "throughput_mbps"
    extra_metrics: Sequence[str] = ("timeouts", "retransmissions", "queue_drops")
    x_label = "packet error rate on the hop"
    seeds = 5
    #: Parameters only lastmile reads: points differing only in them share reference runs.
    lastmile_only: Sequence[str] = ("lastmile_tcp",)

    settings: Sequence[Setting] = (
        Setting(
            "paths",
            "A: 100 Mb/s 20 ms + 10 Mb/s 5 ms, 100 pkt; B: 100 Mb/s 40 ms + 20 Mb/s 10 ms, 50 pkt",
            "the same point-to-point links",
        ),
        Setting(
            "queues",
            "drop-tail, the packet in transmission not counted",
            "DropTailQueue "
            "on the device, no queue disc (a packet finding the device queue stopped is "
            "dropped by TrafficControlLayer: counted as a queue drop)",
        ),
        Setting("link framing", 'overhead = "2B" per frame', "PPP header, 2 B"),
        Setting(
            "errors",
            "per on bs→mh, after transmission",
            "RateErrorModel (packet) as the mobile host's ReceiveErrorModel",
        ),
        Setting(
            "segment, window",
            "mss 1400 B, IW 1, rwnd 4,000,000 B, initial ssthresh unlimited",
            "SegmentSize 1400, InitialCwnd 1, RcvBufSize 4,000,000, window scaling",
        ),
        Setting("ACKs", "an ACK per segment", "DelAckCount 1"),
        Setting("options", "SACK, no timestamps", "Sack true, Timestamp false"),
        Setting(
            "loss recovery",
            'recovery = "sack" (RFC 6675), prr = true, limited_transmit = true, DupThresh 3',
            "TcpPrrRecovery, LimitedTransmit "
            "true, ReTxThreshold 3; ns-3 marks losses with its scoreboard "
            "(tcp-tx-buffer.cc UpdateLostCount) and has no rescue retransmission",
        ),
        Setting("timer", "min_rto 1 s, 1 ms clock, RFC 6298", "MinRto 1 s, ClockGranularity 1 ms"),
        Setting(
            "Vegas",
            "alpha 2, beta 4, gamma 1, fine_grained_retransmission = false (Reno's loss handling)",
            "TcpVegas defaults (Alpha 2, Beta 4, Gamma 1), which has no "
            "fine-grained retransmission",
        ),
        Setting(
            "Illinois",
            "win_thresh 15 segments",
            "WinThresh 21000 (set: ns-3 compares it with cwnd in bytes, tcp-illinois.cc:178)",
        ),
        Setting(
            "after a timeout",
            "keep_sack_after_timeout = true",
            "ns-3 keeps its SACK "
            "scoreboard across a timeout (RFC 2018 §8, lastmile's default, forgets it)",
        ),
        Setting(
            "CUBIC slow start",
            "HyStart++ (RFC 9406), the default",
            "HyStart (Ha & Rhee's, as Linux), the default",
            matched=False,
            note="each simulator's default exit from slow start, both delay-based",
        ),
        Setting(
            "the window a reduction starts from",
            "FlightSize (RFC 5681 (4), RFC 6675 "
            "(4.2)), at a timeout the pipe if smaller; cwnd for CUBIC, Veno, Illinois (their "
            "documents, Linux)",
            "BytesInFlight, the pipe once the head is marked lost (tcp-socket-base.cc:"
            "1714-1716; at a timeout, ReTxTimeout's inFlightBeforeRto), for every congestion "
            "control",
            matched=False,
            note="at the small windows of PER 0.02-0.05, 2-4 segments lower in ns-3 at a fast "
            "retransmit",
        ),
        Setting(
            "PRR's RecoverFS",
            "snd.nxt - snd.una (RFC 6937)",
            "BytesInFlight at entry (tcp-prr-recovery.cc:64)",
            matched=False,
            note="ns-3 sends more during recovery while pipe > ssthresh",
        ),
        Setting(
            "RTO backoff",
            "kept until a valid RTT sample (RFC 6298 §5, Karn)",
            "reset on every new ACK (tcp-socket-base.cc:3828, NewAck)",
            matched=False,
            note="matters when retransmissions are lost (BBR at PER 0.05)",
        ),
        Setting(
            "RTT samples",
            "one timed segment per RTT for the timer; every ACK's newest "
            "segment for HyStart++ and BBR",
            "per ACK (RttHistory); congestion controls get SRTT",
            matched=False,
        ),
        Setting(
            "SYN loss",
            "initial RTO 1 s",
            "ConnTimeout 3 s",
            matched=False,
            note="only when the SYN itself is lost",
        ),
        Setting(
            "seeds",
            "5 per point; lastmile's seed",
            "RngRun = seed; error stream 7·seed + 3",
            note="different loss draws: means are compared",
        ),
    )

    points: Sequence[Point] = tuple(_point(a, p, per) for a in ALGOS for p in PATHS for per in PERS)
    smoke = _point(ALGOS[0], PATHS[0], 0.02, transfer=1_000_000)
    explanations: Mapping[str, str] = EXPLANATIONS

    def run_lastmile(self, point: Point, seed: int) -> Outcome:
        summary, wall_s = harness.run_lastmile(lastmile_scenario(point, seed))
        flow, drops = _flow_and_bottleneck(summary)
        last = float(flow["last_delivery_s"] or 0.0)
        metrics = {
            "throughput_mbps": float(flow["bytes_delivered"]) * 8 / last / 1e6 if last else 0.0,
            "timeouts": float(flow["tcp_timeouts"]),
            "retransmissions": float(flow["tcp_retransmits"]),
            "queue_drops": float(drops),
            "completed": float(bool(flow["completed"])),
        }
        engine_s = float(summary["engine"]["wall_s"])
        return Outcome(metrics, wall_s, engine_s)

    def run_reference(self, point: Point, seed: int) -> Outcome:
        r = _WORKERS.run(ns3_request(point, seed))
        metrics = {
            "throughput_mbps": float(r["throughput_mbps"]),
            "timeouts": float(r["timeouts"]),
            "retransmissions": float(r["retransmissions"]),
            "queue_drops": float(r["queue_drops"]),
            "completed": float(bool(r["completed"])),
        }
        return Outcome(metrics, float(r["wall_s"]), float(r["engine_s"]))


FAMILY = CcNs3Family()


# ---------------------------------------------------------------------------------------------
# Running the family alone, where `validation/suite.py` is not there: the same runs, kept in
# the suite's format (`validation/results/cc_ns3.json`: per point its parameters'
# fingerprint and per simulator and seed the outcome, lastmile's stamped with its sources),
# so that the suite reuses them.


def _fingerprint(params: Mapping[str, object]) -> str:
    text = json.dumps(dict(params), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _reference_fingerprint(point: Point) -> str:
    only = set(FAMILY.lastmile_only)
    return _fingerprint({k: v for k, v in point.params.items() if k not in only})


def _lastmile_stamp() -> str:
    """lastmile's sources as git knows them (the suite's `lastmile_stamp`)."""
    try:
        trees = [
            subprocess.run(
                ["git", "rev-parse", f"HEAD:{path}"],
                cwd=HERE.parent,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()[:12]
            for path in ("crates", "python/lastmile")
        ]
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "crates", "python/lastmile"],
            cwd=HERE.parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return "-".join(trees) + ("-dirty" if dirty else "")


def _outcome_json(o: Outcome, stamp: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"metrics": dict(o.metrics), "wall_s": o.wall_s, "engine_s": o.engine_s}
    if stamp is not None:
        out["lastmile"] = stamp
    return out


def run_points(points: Sequence[Point], seeds: int, cache: dict[str, Any]) -> None:
    """Every (point, seed) in both simulators into `cache`; a reference outcome already kept
    for the same reference set-up (ns-3 is deterministic) is reused."""
    stamp = _lastmile_stamp()
    known: dict[tuple[str, str], Any] = {}
    for point in FAMILY.points:
        entry = cache["points"].get(point.label, {})
        if entry.get("fingerprint") == _fingerprint(point.params):
            for seed, o in entry.get("reference", {}).items():
                known[(_reference_fingerprint(point), seed)] = o
    for point in points:
        entry = cache["points"].setdefault(point.label, {})
        if entry.get("fingerprint") != _fingerprint(point.params):
            entry.clear()
            entry["fingerprint"] = _fingerprint(point.params)
        entry["params"] = dict(point.params)
        for seed in range(1, seeds + 1):
            key = str(seed)
            lm = FAMILY.run_lastmile(point, seed)
            entry.setdefault("lastmile", {})[key] = _outcome_json(lm, stamp)
            ref = known.get((_reference_fingerprint(point), key))
            if ref is None:
                ref = _outcome_json(FAMILY.run_reference(point, seed))
                known[(_reference_fingerprint(point), key)] = ref
            entry.setdefault("reference", {})[key] = ref
        lm_mean = statistics.fmean(o["metrics"][FAMILY.metric] for o in entry["lastmile"].values())
        ref_mean = statistics.fmean(
            o["metrics"][FAMILY.metric] for o in entry["reference"].values()
        )
        print(
            f"{point.label:40s} lastmile {lm_mean:6.2f}  ns-3 {ref_mean:6.2f}  "
            f"ratio {lm_mean / ref_mean:5.2f}",
            file=sys.stderr,
            flush=True,
        )


def table(cache: Mapping[str, Any]) -> str:
    """A Markdown table of the kept outcomes: per point the means, their ratio, the verdict."""
    lines = [
        "| point | lastmile Mb/s | ns-3 Mb/s | ratio | verdict | timeouts lm / ns-3 | "
        "queue drops lm / ns-3 |",
        "|---|---|---|---|---|---|---|",
    ]
    for point in FAMILY.points:
        entry = cache["points"].get(point.label)
        if not entry or not entry.get("lastmile") or not entry.get("reference"):
            continue

        def mean(side: str, key: str, entry: Mapping[str, Any] = entry) -> float:
            return statistics.fmean(o["metrics"][key] for o in entry[side].values())

        lm, ref = mean("lastmile", FAMILY.metric), mean("reference", FAMILY.metric)
        ratio = lm / ref if ref else float("nan")
        verdict = "pass" if abs(ratio - 1) <= TARGET else "FAIL"
        lines.append(
            f"| {point.label} | {lm:.2f} | {ref:.2f} | {ratio:.2f} | {verdict} | "
            f"{mean('lastmile', 'timeouts'):.1f} / {mean('reference', 'timeouts'):.1f} | "
            f"{mean('lastmile', 'queue_drops'):.0f} / {mean('reference', 'queue_drops'):.0f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=FAMILY.seeds)
    p.add_argument("--only", nargs="*", help="run only points whose label contains one of these")
    p.add_argument("--smoke", action="store_true", help="run the smoke point only, 1 seed")
    p.add_argument("--table", action="store_true", help="print the table of the kept runs")
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args()
    cache: dict[str, Any] = (
        json.loads(args.out.read_text())
        if args.out.exists()
        else {"family": FAMILY.name, "reference": FAMILY.reference, "points": {}}
    )
    if args.smoke:
        smoke: dict[str, Any] = {"points": {}}
        run_points([FAMILY.smoke], 1, smoke)
        print(json.dumps(smoke, indent=1))
        return
    if not args.table:
        points = [
            pt for pt in FAMILY.points if not args.only or any(s in pt.label for s in args.only)
        ]
        run_points(points, args.seeds, cache)
        cache["reference"] = FAMILY.reference
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    print(table(cache))


if __name__ == "__main__":
    main()
