"""A profile-guided build of `lastmile-run`, checked to give the plain build's results.

    python bench/pgo.py      # or: make pgo

Profile-guided optimisation (PGO) changes how the compiler lays out and inlines the code,
never what it computes: the build is told which branches the runs take and which calls are
hot. The steps:

1. build `lastmile-run` instrumented (`-Cprofile-generate`, into `target/pgo-gen`);
2. run it on the training set: every `experiments/*.toml` (the seeds' experiments: TULIP,
   Snoop, WTCP, LLE-TCP, 802.11, FAMA-NCS, the survey's mechanisms), and one of them with
   each TCP recovery and congestion control. The benchmark scenarios
   (`bench/scenarios/*.toml`, `bench/vs_ns2.py`) are *not* trained on, so the figures
   measured on them are not the training runs';
3. merge the counts with the toolchain's `llvm-profdata` (`rustup component add
   llvm-tools-preview` installs it; it must be the rustc's own LLVM version);
4. build `lastmile-run` with them (`-Cprofile-use`, into `target/pgo`);
5. check that the optimised `lastmile-run` gives the same summaries as the plain release
   build, wall-clock fields aside, on the training set and the benchmark scenarios: the
   build fails otherwise.

The default build (`pip install .`, `cargo build --release`) does not use a profile: a
profile ages as the code changes (changed functions lose it, silently), and the profile's
format is tied to the compiler's LLVM. `bench/vs_ns2.py` times `target/pgo/release/lastmile-run`
in a column of its own when it exists.

The Python extension is not built with the profile: the core's functions are named
differently in it (another build of the crate), so `lastmile-run`'s counts do not reach
it; measured, a wheel built with them was no faster.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEN_TARGET = ROOT / "target" / "pgo-gen"
USE_TARGET = ROOT / "target" / "pgo"
PROFILE_DIR = GEN_TARGET / "profiles"
PROFILE = USE_TARGET / "lastmile.profdata"
PLAIN = ROOT / "target" / "release" / "lastmile-run"
OPTIMISED = USE_TARGET / "release" / "lastmile-run"

#: One training scenario run with each TCP recovery and congestion control (`--set`).
VARIANT_SCENARIO = "experiments/survey_table1.toml"
RECOVERIES = ("tahoe", "reno", "newreno", "sack", "fack")
CONGESTION_CONTROLS = (
    "reno",
    "vegas",
    "westwood_plus",
    "veno",
    "fast",
    "illinois",
    "cubic",
    "bbr",
    "santa_cruz",
)
#: Summary fields that measure the host, not the run.
WALL_FIELDS = frozenset({"wall_s"})


def training_runs() -> list[list[str]]:
    """The training set: `lastmile-run` arguments, relative to the checkout."""
    runs = [[str(p.relative_to(ROOT))] for p in sorted((ROOT / "experiments").glob("*.toml"))]
    runs += [[VARIANT_SCENARIO, "--set", f"flow.0.tcp.variant={v}"] for v in RECOVERIES]
    runs += [[VARIANT_SCENARIO, "--set", f"flow.0.tcp.cc={cc}"] for cc in CONGESTION_CONTROLS]
    return runs


def check_runs() -> list[list[str]]:
    """What the optimised build is checked on: the training set and the benchmarks."""
    bench = sorted((ROOT / "bench" / "scenarios").glob("*.toml"))
    return training_runs() + [[str(p.relative_to(ROOT))] for p in bench]


def llvm_profdata() -> Path:
    """The `llvm-profdata` of the rustc in use (its LLVM reads its own profiles)."""
    sysroot = subprocess.run(
        ["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True
    ).stdout.strip()
    host = next(
        line.split(":", 1)[1].strip()
        for line in subprocess.run(
            ["rustc", "-vV"], capture_output=True, text=True, check=True
        ).stdout.splitlines()
        if line.startswith("host:")
    )
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.exists():
        sys.exit(
            f"pgo: {tool} not found: install the toolchain's LLVM tools with "
            "`rustup component add llvm-tools-preview` (a system llvm-profdata reads only "
            "its own LLVM version's profiles)"
        )
    return tool


def cargo_build(target: Path, rustflags: str) -> None:
    flags = " ".join(f for f in (os.environ.get("RUSTFLAGS", ""), rustflags) if f)
    env = {**os.environ, "RUSTFLAGS": flags, "CARGO_TARGET_DIR": str(target)}
    subprocess.run(
        ["cargo", "build", "--release", "-p", "lastmile-cli"], cwd=ROOT, env=env, check=True
    )


def run(binary: Path, args: list[str]) -> dict[str, object]:
    proc = subprocess.run(
        [str(binary), *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        sys.exit(f"pgo: {binary.name} {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    summary: dict[str, object] = json.loads(proc.stdout)
    return summary


def without_wall(value: object) -> object:
    """`value` with the host's wall-clock fields taken out, at any depth."""
    if isinstance(value, dict):
        return {k: without_wall(v) for k, v in value.items() if k not in WALL_FIELDS}
    if isinstance(value, list):
        return [without_wall(v) for v in value]
    return value


def train(profdata: Path) -> None:
    print("pgo: building lastmile-run instrumented (target/pgo-gen)", flush=True)
    for old in PROFILE_DIR.glob("*.profraw"):
        old.unlink()
    cargo_build(GEN_TARGET, f"-Cprofile-generate={PROFILE_DIR}")
    runs = training_runs()
    for i, args in enumerate(runs, 1):
        print(f"pgo: training {i}/{len(runs)}: {' '.join(args)}", flush=True)
        run(GEN_TARGET / "release" / "lastmile-run", args)
    USE_TARGET.mkdir(parents=True, exist_ok=True)
    raw = sorted(PROFILE_DIR.glob("*.profraw"))
    subprocess.run([str(profdata), "merge", "-o", str(PROFILE), *map(str, raw)], check=True)


def check_same_results() -> None:
    """The optimised build's summaries equal the plain build's, wall-clock aside."""
    cargo_build(ROOT / "target", "")  # The plain build of this checkout (a no-op if built).
    runs = check_runs()
    for args in runs:
        plain, optimised = run(PLAIN, args), run(OPTIMISED, args)
        if without_wall(plain) != without_wall(optimised):
            sys.exit(f"pgo: {' '.join(args)}: the optimised build's summary differs")
    print(f"pgo: same summaries as target/release/lastmile-run on {len(runs)} runs")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    profdata = llvm_profdata()
    train(profdata)
    use = f"-Cprofile-use={PROFILE}"
    print("pgo: building lastmile-run with the profile (target/pgo)", flush=True)
    cargo_build(USE_TARGET, use)
    check_same_results()
    print(f"pgo: {OPTIMISED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
