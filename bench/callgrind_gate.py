"""The instruction-count gate of `make bench`: a run that costs more than its baseline fails.

Two runs of the release core, each under valgrind's callgrind, which counts the
instructions executed; unlike a time, the count does not depend on what else the machine
is doing, so a small tolerance catches a real regression on a shared machine:

- **reference**: the 10 MB NewReno transfer over the TULIP chain with a 5 % PER hop
  (`examples/whole_run.rs 10MB 1`), 58,623 events;
- **cell**: the 802.11b two-station cell of the ns-2 comparison, 30 simulated seconds
  (`examples/bench_run.rs bench/scenarios/wifi.toml 1 stop_time=30s`), 191,502 events.

Each count covers the whole process (loading the scenario, building the world, the events
and the summary). The baseline, `bench/callgrind_baseline.json`, holds each count and the
tolerance; the gate fails if a count exceeds its baseline by more than the tolerance, and
says so when a count fell by more than it (a gain to lock in).

    python bench/callgrind_gate.py              # compare (exit 1 above the tolerance)
    python bench/callgrind_gate.py --update     # record the current counts as the baseline
    python bench/callgrind_gate.py --examples OTHER/target/release/examples   # another build

Counts depend on the compiler: the baseline records `rustc --version` and the gate warns
when it differs. Update the baseline in the commit that changes the cost on purpose (a
new feature on the hot path, a faster queue, a new compiler), saying why and the counts
before and after in the commit message. Needs valgrind and the examples' release
build (`cargo build --release -p lastmile-core --example whole_run --example bench_run`;
`make bench` builds them), which is in one codegen unit (`Cargo.toml`). In several units,
how the crate is split moves the inlining, and with it the counts, by up to 3 % on changes
that do not touch the gated path: commit `f8b9c8d` (a prefetch the cell never runs) moved
the cell by +1.56 % in four units and by -0.18 % in one, while the chain and the
reference, which do run it, moved by +0.8 % in both. (Until 2026-11-29 the release build
had four units and the gate counted a `gate` profile of its own in one.)
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "target" / "release" / "examples"
BASELINE = ROOT / "bench" / "callgrind_baseline.json"
#: A count above its baseline by more than this fraction fails the gate.
TOLERANCE = 0.01


@dataclass(frozen=True)
class Case:
    """A gated run: its name and its command (relative to the repository)."""

    name: str
    args: tuple[str, ...]

    def command(self, examples: Path) -> list[str]:
        return [str(examples / self.args[0]), *self.args[1:]]


CASES = (
    Case("reference", ("whole_run", "10MB", "1")),
    Case("cell", ("bench_run", "bench/scenarios/wifi.toml", "1", "stop_time=30s")),
)


def instructions(case: Case, examples: Path) -> int:
    """The instructions the case executes, counted by callgrind."""
    command = case.command(examples)
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{case.name}: {' '.join(command)} failed:\n{proc.stderr}")
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if found is None:
        raise RuntimeError(f"{case.name}: no instruction count in valgrind's output")
    return int(found.group(1))


def rustc_version() -> str:
    return subprocess.run(
        ["rustc", "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="record the counts as baseline")
    parser.add_argument(
        "--examples",
        type=Path,
        default=EXAMPLES,
        help="the folder of the built examples (another build's, to compare commits)",
    )
    args = parser.parse_args()

    counts = {case.name: instructions(case, args.examples) for case in CASES}
    rustc = rustc_version()
    if args.update:
        record = {
            "rustc": rustc,
            "tolerance": TOLERANCE,
            "cases": {
                case.name: {"command": " ".join(case.args), "instructions": counts[case.name]}
                for case in CASES
            },
        }
        BASELINE.write_text(json.dumps(record, indent=2) + "\n")
        for name, count in counts.items():
            print(f"{name}: {count:,} instructions recorded")
        return 0

    baseline = json.loads(BASELINE.read_text())
    if baseline["rustc"] != rustc:
        print(f"warning: baseline from {baseline['rustc']}, this is {rustc}", file=sys.stderr)
    tolerance = float(baseline["tolerance"])
    failed = []
    for name, count in counts.items():
        base = int(baseline["cases"][name]["instructions"])
        change = count / base - 1
        verdict = "ok"
        if change > tolerance:
            verdict = "OVER"
            failed.append(name)
        elif change < -tolerance:
            verdict = "cheaper: update the baseline (--update) to keep the gain"
        print(f"{name}: {count:,} instructions, baseline {base:,} ({change:+.2%}): {verdict}")
    if failed:
        print(
            f"callgrind gate: {', '.join(failed)} over the baseline by more than "
            f"{tolerance:.0%} (bench/callgrind_gate.py says how to update it)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
