"""Every congestion control lastmile shares with ns-3.44, with SACK, against ns-3 on two paths
whose bandwidth-delay product is 40 packets or more and whose queues overflow, over packet
error rates from 0 to 0.05: the regime where the algorithms differ (issue 22, "every
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
  BDP ≈ 10 Mb/s × 52 ms ≈ 45 packets of 1442 B, so a queue of ≈ 2.2 BDP.
* **Path B** (a long path with a queue below the BDP): 100 Mb/s, 40 ms wire; 20 Mb/s,
  10 ms hop; queues of 50 packets. BDP ≈ 20 Mb/s × 101 ms ≈ 175 packets, a queue of
  ≈ 0.29 BDP: after a halving Reno-like controllers leave the link idle, and BBR's startup
  overflows the queue.

ns-3 runs in its own interpreter (`$NS3_PYTHON`, default `/work/ns3-venv/bin/python`)
through `validation/ns3/cc_path.py`, one worker process that imports ns-3 once and forks a
child per run. The two simulators draw different losses: compare means over the seeds.

Run it alone (without the suite runner) with

    python -m validation.families.cc_ns3 [--seeds N] [--only LABEL-SUBSTRING] [--smoke]

which writes `validation/results/cc_ns3.json` and prints the table.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lastmile

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
    # The paper's constants, α = 1, β = 3, γ = 1 (ns-3's defaults are 2, 4, 1), and Reno's
    # loss handling, as ns-3's and Linux's Vegas (without Brakmo & Peterson's fine-grained
    # retransmission, which lastmile runs by default).
    Algo(
        "Vegas",
        {"cc": "vegas", "vegas": {"fine_grained_retransmission": False}},
        "TcpVegas",
        {"ns3::TcpVegas::Alpha": "1", "ns3::TcpVegas::Beta": "3", "ns3::TcpVegas::Gamma": "1"},
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
    return Point(
        label=f"{algo.label}, path {path.name}, PER {per:g}",
        series=f"{algo.label}, path {path.name}",
        x=per,
        params={"algo": algo.label, "path": path.name, "per": per, "bytes": transfer},
        target=TARGET,
    )


def lastmile_scenario(point: Point, seed: int) -> dict[str, Any]:
    """The point as a lastmile scenario."""
    p = point.params
    algo = ALGO_BY_LABEL[str(p["algo"])]
    path = PATH_BY_NAME[str(p["path"])]
    per = float(str(p["per"]))
    tcp: dict[str, object] = {
        "recovery": "sack",
        "prr": True,
        "limited_transmit": True,
        "keep_sack_after_timeout": True,
        "mss": f"{MSS_BYTES}B",
        "rwnd": f"{RWND_BYTES}B",
        "initial_window": 1,
        "min_rto": "1s",
        **algo.lastmile_tcp,
    }
    errors = {"model": "per", "per": per} if per > 0 else {"model": "none"}
    queue = f"{path.queue_packets}pkt"
    return {
        "name": f"cc-ns3-{algo.ns3}-{path.name}",
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
    algo = ALGO_BY_LABEL[str(p["algo"])]
    path = PATH_BY_NAME[str(p["path"])]
    return {
        "cc": algo.ns3,
        "attrs": dict(algo.ns3_attrs),
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


class _Ns3Worker:
    """One `cc_path.py --worker` process, started on first use and kept for every run."""

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
            raise RuntimeError(f"ns-3 worker did not start ({NS3_PYTHON} {NS3_SCRIPT})")
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
                    raise RuntimeError(f"ns-3 run failed: {result['error']}")
                return result
        raise RuntimeError("ns-3 worker exited")

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        self.proc = None


_WORKER = _Ns3Worker()


def _flow_and_bottleneck(summary: Mapping[str, Any]) -> tuple[Mapping[str, Any], int]:
    flow = summary["flows"][0]
    drops = sum(
        int(link["queue_drops"])
        for link in summary["links"]
        if link["name"] == "wireless" and link["from"] == "bs"
    )
    return flow, drops


class CcNs3Family:
    """The family (`validation.framework.Family`)."""

    name = "cc_ns3"
    title = "Congestion controls with SACK vs ns-3.44 (two paths, PER 0–0.05)"
    reference = "ns-3.44"
    metric = "throughput_mbps"
    extra_metrics: Sequence[str] = ("timeouts", "retransmissions", "queue_drops")
    x_label = "packet error rate on the hop"
    seeds = 5

    settings: Sequence[Setting] = (
        Setting("paths", "A: 100 Mb/s 20 ms + 10 Mb/s 5 ms, 100 pkt; B: 100 Mb/s 40 ms + "
                "20 Mb/s 10 ms, 50 pkt", "the same point-to-point links"),
        Setting("queues", "drop-tail, the packet in transmission not counted", "DropTailQueue "
                "on the device, no queue disc (a packet finding the device queue stopped is "
                "dropped by TrafficControlLayer: counted as a queue drop)"),
        Setting("link framing", "overhead = \"2B\" per frame", "PPP header, 2 B"),
        Setting("errors", "per on bs→mh, after transmission", "RateErrorModel (packet) as the "
                "mobile host's ReceiveErrorModel"),
        Setting("segment, window", "mss 1400 B, IW 1, rwnd 4,000,000 B, initial ssthresh "
                "unlimited", "SegmentSize 1400, InitialCwnd 1, RcvBufSize 4,000,000, "
                "window scaling"),
        Setting("ACKs", "an ACK per segment", "DelAckCount 1"),
        Setting("options", "SACK, no timestamps", "Sack true, Timestamp false"),
        Setting("loss recovery", "recovery = \"sack\" (RFC 6675), prr = true, "
                "limited_transmit = true, DupThresh 3", "TcpPrrRecovery, LimitedTransmit "
                "true, ReTxThreshold 3; ns-3 marks losses with its scoreboard "
                "(tcp-tx-buffer.cc UpdateLostCount) and has no rescue retransmission"),
        Setting("timer", "min_rto 1 s, 1 ms clock, RFC 6298", "MinRto 1 s, ClockGranularity "
                "1 ms"),
        Setting("Vegas constants", "α 1, β 3, γ 1 (the paper's)", "Alpha 1, Beta 3, Gamma 1 "
                "(set; ns-3's defaults are 2, 4, 1)"),
        Setting("CUBIC slow start", "HyStart++ (RFC 9406), the default", "HyStart (Ha & "
                "Rhee's, as Linux), the default", matched=False,
                note="each simulator's default exit from slow start, both delay-based"),
        Setting("NewReno ssthresh", "FlightSize/2 (RFC 5681 (4), RFC 6675 (4.2))",
                "TcpNewReno: BytesInFlight/2, ns-3's pipe after the head is marked lost",
                matched=False, note="a few segments lower in ns-3"),
        Setting("SYN loss", "initial RTO 1 s", "ConnTimeout 3 s", matched=False,
                note="only when the SYN itself is lost"),
        Setting("seeds", "5 per point; lastmile's seed", "RngRun = seed; error stream "
                "7·seed + 3", note="different loss draws: means are compared"),
    )

    points: Sequence[Point] = tuple(
        _point(a, p, per) for a in ALGOS for p in PATHS for per in PERS
    )
    smoke = _point(ALGOS[0], PATHS[0], 0.02, transfer=1_000_000)
    explanations: Mapping[str, str] = {}

    def run_lastmile(self, point: Point, seed: int) -> Outcome:
        t0 = time.perf_counter()
        scenario = lastmile.Scenario.from_text(
            json.dumps(lastmile_scenario(point, seed)), "json"
        )
        result = lastmile.run(scenario)
        flow, drops = _flow_and_bottleneck(result.summary)
        last = float(flow["last_delivery_s"] or 0.0)
        metrics = {
            "throughput_mbps": float(flow["bytes_delivered"]) * 8 / last / 1e6 if last else 0.0,
            "timeouts": float(flow["tcp_timeouts"]),
            "retransmissions": float(flow["tcp_retransmits"]),
            "queue_drops": float(drops),
            "completed": float(bool(flow["completed"])),
        }
        engine_s = float(result.summary["engine"]["wall_s"])
        return Outcome(metrics, time.perf_counter() - t0, engine_s)

    def run_reference(self, point: Point, seed: int) -> Outcome:
        r = _WORKER.run(ns3_request(point, seed))
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
# Running the family alone (the suite runner does the same for every family).


def _outcome_json(o: Outcome) -> dict[str, Any]:
    return {"metrics": dict(o.metrics), "wall_s": o.wall_s, "engine_s": o.engine_s}


def run_points(
    points: Sequence[Point], seeds: int, reuse: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Every (point, seed) in both simulators, as the JSON the results file holds. ns-3 is
    deterministic: with `reuse` (an earlier results file's points), a reference outcome
    recorded for the same ns-3 request is taken from it instead of run again."""
    out: dict[str, Any] = {}
    known: dict[str, Any] = {}
    for entry in (reuse or {}).values():
        for o in entry["reference"]:
            if "request" in o:
                known[json.dumps(o["request"], sort_keys=True)] = o
    for point in points:
        entry = {"lastmile": [], "reference": []}
        for seed in range(1, seeds + 1):
            entry["lastmile"].append(_outcome_json(FAMILY.run_lastmile(point, seed)))
            request = ns3_request(point, seed)
            cached = known.get(json.dumps(request, sort_keys=True))
            if cached is None:
                cached = _outcome_json(FAMILY.run_reference(point, seed))
                cached["request"] = request
            entry["reference"].append(cached)
        out[point.label] = entry
        lm = statistics.fmean(r["metrics"][FAMILY.metric] for r in entry["lastmile"])
        ref = statistics.fmean(r["metrics"][FAMILY.metric] for r in entry["reference"])
        print(f"{point.label:40s} lastmile {lm:6.2f}  ns-3 {ref:6.2f}  ratio {lm / ref:5.2f}",
              file=sys.stderr, flush=True)
    return out


def table(results: Mapping[str, Any]) -> str:
    """A Markdown table of the results: per point the means, their ratio and the verdict."""
    lines = [
        "| point | lastmile Mb/s | ns-3 Mb/s | ratio | verdict | timeouts lm / ns-3 | "
        "queue drops lm / ns-3 |",
        "|---|---|---|---|---|---|---|",
    ]
    for point in FAMILY.points:
        entry = results.get(point.label)
        if entry is None:
            continue

        def mean(side: str, key: str) -> float:
            return statistics.fmean(r["metrics"][key] for r in entry[side])

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
    p.add_argument("--smoke", action="store_true", help="run the smoke point only")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument(
        "--reuse-ns3",
        action="store_true",
        help="take ns-3 outcomes of identical requests from the results file (ns-3 is "
        "deterministic) instead of running them again",
    )
    args = p.parse_args()
    if args.smoke:
        print(json.dumps(run_points([FAMILY.smoke], 1), indent=1))
        return
    points = [
        pt for pt in FAMILY.points if not args.only or any(s in pt.label for s in args.only)
    ]
    old = json.loads(args.out.read_text()) if args.out.exists() else {}
    results = dict(old.get("points", {}))
    results.update(run_points(points, args.seeds, results if args.reuse_ns3 else None))
    ordered = {pt.label: results[pt.label] for pt in FAMILY.points if pt.label in results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"family": FAMILY.name, "seeds": args.seeds, "ns3_import_s": _WORKER.import_s,
           "points": ordered}
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(table(ordered))


if __name__ == "__main__":
    main()
