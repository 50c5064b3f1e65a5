"""lastmile against ns-2.35, whole process, on the same scenarios: `make bench-ns2`.

Each scenario runs in both simulators as a process of its own (`lastmile run --json ...`,
the native `lastmile-run ...` when it is built, and `ns bench/ns2/<name>.tcl`), several
times, interleaved; the figure is the median of
the process's CPU time (user + system, from `wait4`), which on a shared machine leaves
out the time other processes held the core. Beside it: the median wall time; the core's
own time for the same run (`examples/bench_run.rs`: building the world, the events and
the summary, CPU time in-process, median of the runs), its events per second; the
`lastmile run --json` process's time outside its own run (interpreter, imports, loading,
the summary's JSON: the process's CPU time less the run's `engine.wall_s` from its own
summary, so that it holds whichever build of the extension is installed, the profiled
one of `make pgo` included); and the events per data segment sent (each with its ACK).

A second table checks that both did the same work: bytes delivered, data segments sent
and retransmitted, retransmission timeouts and the simulated time, from lastmile's summary
and from the line each ns-2 script prints. Their random streams differ, so counts agree to
within the loss process's spread; each script's header says what cannot match.

    python bench/vs_ns2.py [-n 5] [--only chain wifi] [--check 5.0]

`--check R` exits 1 if lastmile's whole process (`lastmile run --json`) is not at least
R times faster than ns-2's on every scenario ns-2 has; `--check-native R` the same for
`lastmile-run`. Needs ns-2 (`ns`, Debian's `ns2`), a release build of the Python
extension (`maturin develop --release`), of the example (`cargo build --release -p
lastmile-core --example bench_run`) and, for the native column, of `lastmile-run`
(`cargo build --release -p lastmile-cli`); the PGO column, of `bench/pgo.py`'s build
(`make pgo`). `--check-native` holds the plain build. Python runs with its bytecode cache on
(`PYTHONDONTWRITEBYTECODE` unset), as an installed package does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_RUN = ROOT / "target" / "release" / "examples" / "bench_run"
#: The native run command (`crates/lastmile-cli`): the same run and JSON, no interpreter.
NATIVE = ROOT / "target" / "release" / "lastmile-run"
#: The same, built with a profile of the seeds' experiments (`bench/pgo.py`, `make pgo`).
NATIVE_PGO = ROOT / "target" / "pgo" / "release" / "lastmile-run"
#: The native builds timed, each in its columns when it is built.
NATIVES = (("lastmile-run", NATIVE), ("lastmile-run PGO", NATIVE_PGO))
#: The children's environment: Python's bytecode cache on, as for an installed package.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

#: ns-2.35's default Agent/TCP settings (ns-default.tcl), for a lastmile scenario whose
#: file does not set them (bench/scenarios/*.toml do).
NS2_TCP = (
    "flow.0.tcp.initial_window=2",
    "flow.0.tcp.initial_rto=3s",
    "flow.0.tcp.min_rto=200ms",
    "flow.0.tcp.max_backoff=64",
    "flow.0.tcp.rtt_estimator=ns2",
)


@dataclass(frozen=True)
class Case:
    """A scenario in both simulators: lastmile's file and overrides, ns-2's script."""

    name: str
    file: str
    overrides: tuple[str, ...]
    ns2: str | None
    what: str

    def lastmile_args(self) -> list[str]:
        return [self.file, *(a for o in self.overrides for a in ("--set", o))]


CASES = [
    Case(
        "chain",
        "bench/scenarios/chain.toml",
        (),
        "bench/ns2/chain.tcl",
        "10 Mbps/10 ms wire, 2 Mbps/10 ms hop at PER 0.02, NewReno, 100 x 1000 B, 1000 s",
    ),
    Case(
        "wifi",
        "bench/scenarios/wifi.toml",
        (),
        "bench/ns2/wifi.tcl",
        "802.11b DCF, two stations, 11 Mbps, PER 0.1, Reno 1460 B, window 20, 300 s",
    ),
    Case(
        "snoop",
        "python/lastmile/examples/tulip-basic.toml",
        ("base_station.agent=snoop", *NS2_TCP),
        "bench/ns2/snoop.tcl",
        "TULIP's chain with Snoop at BER 15e-6, Reno 1400 B, 42 KB, 10 MB",
    ),
    Case(
        "tulip-fama",
        "python/lastmile/examples/tulip-fama.toml",
        (),
        None,
        "TULIP with MAC acceleration over FAMA-NCS, BER 15e-6, Reno, 10 MB (not in ns-2)",
    ),
]


@dataclass
class Runs:
    """The measurements of one command, one entry per run."""

    cpu_s: list[float] = field(default_factory=list)
    wall_s: list[float] = field(default_factory=list)
    stdouts: list[str] = field(default_factory=list)

    @property
    def last_stdout(self) -> str:
        return self.stdouts[-1]

    def add(self, cpu: float, wall: float, stdout: str) -> None:
        self.cpu_s.append(cpu)
        self.wall_s.append(wall)
        self.stdouts.append(stdout)

    def outside_run_s(self) -> float:
        """The median of each run's CPU time less its own run's time (`engine.wall_s` of
        its summary: planning, building the world and the events): what a `lastmile run
        --json` process spends around the run, whichever build of the extension it has."""
        return statistics.median(
            cpu - float(json.loads(out)["engine"]["wall_s"])
            for cpu, out in zip(self.cpu_s, self.stdouts, strict=True)
        )


@dataclass(frozen=True)
class Work:
    """What one simulator did in a run, to check both did the same."""

    delivered_bytes: int
    segments_sent: int
    retransmitted: int
    timeouts: int
    sim_time_s: float

    def cells(self) -> list[str]:
        return [
            f"{self.delivered_bytes:,}",
            f"{self.segments_sent:,}",
            f"{self.retransmitted:,}",
            f"{self.timeouts:,}",
            f"{self.sim_time_s:g}",
        ]


def timed(command: list[str]) -> tuple[float, float, str]:
    """Runs `command`, waiting with `wait4` for its own CPU time; returns (cpu, wall,
    stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({proc.returncode})")
    return usage.ru_utime + usage.ru_stime, wall, out


def lastmile_command() -> list[str]:
    script = Path(sys.executable).with_name("lastmile")
    if script.exists():
        return [str(script)]
    found = shutil.which("lastmile")
    return [found] if found else [sys.executable, "-m", "lastmile"]


def engine_cpu_s(case: Case, n: int) -> float | None:
    """The core's own median CPU time for the run (`bench_run`), if it is built."""
    if not BENCH_RUN.exists():
        return None
    out = subprocess.run(
        [str(BENCH_RUN), case.file, str(n), *case.overrides],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    fields = dict(word.split("=", 1) for word in out.split())
    return float(fields["median_cpu_s"])


def measure(case: Case, n: int, ns: str | None) -> tuple[Runs, Runs | None, dict[str, Runs]]:
    """`lastmile run --json`, the native builds that are built and ns-2, interleaved."""
    lm, ref = Runs(), (Runs() if ns and case.ns2 else None)
    natives = {label: Runs() for label, path in NATIVES if path.exists()}
    command = [*lastmile_command(), "run", "--json", *case.lastmile_args()]
    timed(command)  # Writes the bytecode cache, if it was not there.
    for _ in range(n):
        lm.add(*timed(command))
        for label, path in NATIVES:
            if label in natives:
                natives[label].add(*timed([str(path), *case.lastmile_args()]))
        if ref is not None and ns is not None and case.ns2 is not None:
            ref.add(*timed([ns, case.ns2]))
    return lm, ref, natives


def lastmile_work(summary: dict[str, object]) -> Work:
    flows = summary["flows"]
    engine = summary["engine"]
    assert isinstance(flows, list) and isinstance(engine, dict)
    return Work(
        delivered_bytes=sum(f["bytes_delivered"] for f in flows),
        segments_sent=sum(f["tcp_segments_sent"] for f in flows),
        retransmitted=sum(f["tcp_retransmits"] for f in flows),
        timeouts=sum(f["tcp_timeouts"] for f in flows),
        sim_time_s=float(engine["sim_time_s"]),
    )


def ns2_work(stdout: str) -> Work | None:
    """The line the ns-2 scripts print: `delivered_bytes D segments_sent S ...`."""
    for line in stdout.splitlines():
        if line.startswith("delivered_bytes"):
            words = line.split()
            fields = dict(zip(words[::2], words[1::2], strict=True))
            return Work(
                delivered_bytes=int(fields["delivered_bytes"]),
                segments_sent=int(fields["segments_sent"]),
                retransmitted=int(fields["retransmitted"]),
                timeouts=int(fields["timeouts"]),
                sim_time_s=float(fields["sim_time_s"]),
            )
    return None


def table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="runs of each (median is reported)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run only these cases")
    parser.add_argument(
        "--check", type=float, metavar="R", help="fail below ratio R (lastmile run --json)"
    )
    parser.add_argument(
        "--check-native", type=float, metavar="R", help="fail below ratio R (lastmile-run)"
    )
    args = parser.parse_args()

    ns = shutil.which("ns")
    if ns is None:
        print("ns-2 (`ns`) not found: lastmile's side only", file=sys.stderr)
    cases = [c for c in CASES if args.only is None or c.name in args.only]
    speed: list[list[str]] = []
    work: list[list[str]] = []
    failed = []
    for case in cases:
        lm, ref, natives = measure(case, args.n, ns)
        engine = engine_cpu_s(case, args.n)
        summary = json.loads(lm.last_stdout)
        events = summary["engine"]["events"]
        done = lastmile_work(summary)
        cpu = statistics.median(lm.cpu_s)
        row = [
            case.name,
            f"{events:,}",
            f"{events / max(done.segments_sent, 1):.2f}",
            f"{cpu:.3f}",
            f"{statistics.median(lm.wall_s):.3f}",
            "-" if engine is None else f"{engine:.3f}",
            "-" if engine is None else f"{events / engine / 1e6:.1f} M",
            f"{lm.outside_run_s():.3f}",
        ]
        work.append([case.name, "lastmile", *done.cells()])
        if ref is not None:
            ref_cpu = statistics.median(ref.cpu_s)
            ratio = ref_cpu / cpu
            row += [f"{ref_cpu:.3f}", f"{statistics.median(ref.wall_s):.3f}", f"{ratio:.2f}x"]
            theirs = ns2_work(ref.last_stdout)
            work.append([case.name, "ns-2", *(theirs.cells() if theirs else ["?"] * 5)])
            if args.check is not None and ratio < args.check:
                failed.append(f"{case.name}: lastmile run {ratio:.2f}x < {args.check}x")
        else:
            row += ["-", "-", "-"]
        for label, _ in NATIVES:
            native = natives.get(label)
            if native is None:
                row += ["-", "-"]
                continue
            native_cpu = statistics.median(native.cpu_s)
            same = json.loads(native.last_stdout)["engine"]["events"] == events
            row.append(f"{native_cpu:.3f}" + ("" if same else " (other events!)"))
            if ref is None:
                row.append("-")
                continue
            native_ratio = statistics.median(ref.cpu_s) / native_cpu
            row.append(f"{native_ratio:.2f}x")
            check = args.check_native if label == "lastmile-run" else None
            if check is not None and native_ratio < check:
                failed.append(f"{case.name}: lastmile-run {native_ratio:.2f}x < {check}x")
        speed.append(row)
        print(f"{case.name}: done", file=sys.stderr, flush=True)
    table(
        [
            "scenario",
            "events",
            "events/segment",
            "lastmile CPU (s)",
            "lastmile wall (s)",
            "core CPU (s)",
            "core events/s",
            "outside the run (s)",
            "ns-2 CPU (s)",
            "ns-2 wall (s)",
            "ns-2 / lastmile",
            *(h for label, _ in NATIVES for h in (f"{label} CPU (s)", f"ns-2 / {label}")),
        ],
        speed,
    )
    print()
    table(
        [
            "scenario",
            "simulator",
            "delivered (B)",
            "segments sent",
            "retransmitted",
            "timeouts",
            "simulated (s)",
        ],
        work,
    )
    print(f"\nmedian of {args.n} runs each; CPU = user + system time of the process")
    for case in cases:
        print(f"- {case.name}: {case.what}")
    if failed:
        print("below the ratio: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
