"""Profile-guided builds of `lastmile-run` and the Python extension, checked to give the
plain build's results.

    python bench/pgo.py [--python]      # make pgo: both

Profile-guided optimisation (PGO) changes how the compiler lays out and inlines the code,
never what it computes: the build is told which branches the runs take and which calls are
hot. The steps:

1. build `lastmile-run` instrumented (`-Cprofile-generate`, into `target/pgo-gen`);
2. run it on the training set: every `experiments/*.toml` (the seeds' experiments: TULIP,
   Snoop, WTCP, LLE-TCP, 802.11, FAMA-NCS, the survey's mechanisms), and one of them with
   each TCP variant and congestion control the scenario schema names. The benchmark scenarios
   (`bench/scenarios/*.toml`, `bench/vs_ns2.py`) are *not* trained on, so the figures
   measured on them are not the training runs';
3. merge the counts with the toolchain's `llvm-profdata` (`rustup component add
   llvm-tools-preview` installs it; it must be the rustc's own LLVM version);
4. build `lastmile-run` with them (`-Cprofile-use`, into `target/pgo`; both profiled builds
   in one codegen unit);
5. check that the optimised `lastmile-run` gives the same summaries as the plain release
   build, wall-clock fields aside, on the training set and the benchmark scenarios: the
   build fails otherwise.

The default build (`pip install .`, `cargo build --release`) does not use a profile: a
profile ages as the code changes (changed functions lose it, silently), and the profile's
format is tied to the compiler's LLVM. `bench/vs_ns2.py` times `target/pgo/release/lastmile-run`
in a column of its own when it exists.

With `--python`, the same for the Python extension, into the active virtual environment
(`maturin develop --release`): its own instrumented wheel is trained through `python -m
lastmile run --json` (the core's functions are named differently in the extension's build
of the crate, so `lastmile-run`'s counts do not reach it: a wheel built with them was no
faster), and its summaries are checked against the plain `lastmile-run`'s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GEN_TARGET = ROOT / "target" / "pgo-gen"
USE_TARGET = ROOT / "target" / "pgo"
PROFILE_DIR = GEN_TARGET / "profiles"
PROFILE = USE_TARGET / "lastmile.profdata"
PLAIN = ROOT / "target" / "release" / "lastmile-run"
OPTIMISED = USE_TARGET / "release" / "lastmile-run"
#: The extension's instrumented build, its unpacked wheel and counts; its optimised build.
PY_GEN_TARGET = ROOT / "target" / "pgo-gen-py"
PY_SITE = PY_GEN_TARGET / "site"
PY_PROFILE_DIR = PY_GEN_TARGET / "profiles"
PY_PROFILE = USE_TARGET / "lastmile-py.profdata"
PY_USE_TARGET = ROOT / "target" / "pgo-py"

#: One training scenario run with each TCP variant and congestion control (`--set`).
VARIANT_SCENARIO = "experiments/survey_table1.toml"
#: Summary fields that measure the host, not the run.
WALL_FIELDS = frozenset({"wall_s"})


def tcp_names() -> tuple[list[str], list[str]]:
    """The TCP variants and congestion-control names the core takes, from its scenario
    schema (`lastmile schema`), so that a new one is trained on without editing this file."""
    import lastmile

    definitions = json.loads(lastmile.schema())["definitions"]
    variants = [v for choice in definitions["TcpVariant"]["oneOf"] for v in choice["enum"]]
    named_cc = definitions["TcpSpec"]["properties"]["cc"]["anyOf"]
    controls = [c for choice in named_cc if "enum" in choice for c in choice["enum"]]
    return variants, controls


def training_runs() -> list[list[str]]:
    """The training set: `lastmile-run` arguments, relative to the checkout."""
    variants, controls = tcp_names()
    runs = [[str(p.relative_to(ROOT))] for p in sorted((ROOT / "experiments").glob("*.toml"))]
    runs += [[VARIANT_SCENARIO, "--set", f"flow.0.tcp.variant={v}"] for v in variants]
    runs += [[VARIANT_SCENARIO, "--set", f"flow.0.tcp.cc={cc}"] for cc in controls]
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


def build_env(target: Path, rustflags: str) -> dict[str, str]:
    """The environment of a build into `target` with `rustflags` added to the user's. The
    release profile is in one codegen unit (`Cargo.toml`), which with the profile took a
    further 7-8 % off the cell and TULIP over FAMA-NCS (the chain the same)."""
    flags = " ".join(f for f in (os.environ.get("RUSTFLAGS", ""), rustflags) if f)
    return {**os.environ, "RUSTFLAGS": flags, "CARGO_TARGET_DIR": str(target)}


def cargo_build(target: Path, rustflags: str) -> None:
    env = build_env(target, rustflags)
    subprocess.run(
        ["cargo", "build", "--release", "-p", "lastmile-cli"], cwd=ROOT, env=env, check=True
    )


def summary_of(command: list[str], env: dict[str, str] | None = None) -> dict[str, object]:
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.exit(f"pgo: {' '.join(command)} failed ({proc.returncode}):\n{proc.stderr}")
    summary: dict[str, object] = json.loads(proc.stdout)
    return summary


def run(binary: Path, args: list[str]) -> dict[str, object]:
    return summary_of([str(binary), *args])


def run_python(args: list[str], site: Path | None = None) -> dict[str, object]:
    """`python -m lastmile run --json`, with the package in `site` first if given."""
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH")) if p)
    return summary_of([sys.executable, "-m", "lastmile", "run", "--json", *args], env)


def without_wall(value: object, also: frozenset[str] = frozenset()) -> object:
    """`value` with the host's wall-clock fields (and the keys `also`) taken out, at any
    depth."""
    if isinstance(value, dict):
        drop = WALL_FIELDS | also
        return {k: without_wall(v, also) for k, v in value.items() if k not in drop}
    if isinstance(value, list):
        return [without_wall(v, also) for v in value]
    return value


def merge(profdata: Path, raw_dir: Path, into: Path) -> None:
    into.parent.mkdir(parents=True, exist_ok=True)
    raw = sorted(raw_dir.glob("*.profraw"))
    subprocess.run([str(profdata), "merge", "-o", str(into), *map(str, raw)], check=True)


def fresh(raw_dir: Path) -> None:
    """Counts of an earlier training are not summed into this one's."""
    for old in raw_dir.glob("*.profraw"):
        old.unlink()


def train(profdata: Path) -> None:
    print("pgo: building lastmile-run instrumented (target/pgo-gen)", flush=True)
    fresh(PROFILE_DIR)
    cargo_build(GEN_TARGET, f"-Cprofile-generate={PROFILE_DIR}")
    runs = training_runs()
    for i, args in enumerate(runs, 1):
        print(f"pgo: training {i}/{len(runs)}: {' '.join(args)}", flush=True)
        run(GEN_TARGET / "release" / "lastmile-run", args)
    merge(profdata, PROFILE_DIR, PROFILE)


def check_same_results() -> None:
    """The optimised build's summaries equal the plain build's, wall-clock aside."""
    cargo_build(ROOT / "target", "")  # The plain build of this checkout (a no-op if built).
    runs = check_runs()
    for args in runs:
        plain, optimised = run(PLAIN, args), run(OPTIMISED, args)
        if without_wall(plain) != without_wall(optimised):
            sys.exit(f"pgo: {' '.join(args)}: the optimised build's summary differs")
    print(f"pgo: same summaries as target/release/lastmile-run on {len(runs)} runs")


def maturin() -> str:
    found = shutil.which("maturin")
    if found is None or not os.environ.get("VIRTUAL_ENV"):
        sys.exit(
            "pgo: --python installs the extension into the active virtual environment, with "
            "maturin: activate it first (`. .venv/bin/activate`, after `make venv`)"
        )
    return found


def train_python(profdata: Path, maturin_bin: str) -> None:
    print("pgo: building the extension instrumented (target/pgo-gen-py)", flush=True)
    fresh(PY_PROFILE_DIR)
    wheels = PY_GEN_TARGET / "wheels"
    shutil.rmtree(wheels, ignore_errors=True)
    env = build_env(PY_GEN_TARGET, f"-Cprofile-generate={PY_PROFILE_DIR}")
    build = [maturin_bin, "build", "--release", "--out", str(wheels)]
    subprocess.run(build, cwd=ROOT, env=env, check=True)
    shutil.rmtree(PY_SITE, ignore_errors=True)
    (wheel,) = wheels.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(PY_SITE)
    runs = training_runs()
    for i, args in enumerate(runs, 1):
        print(f"pgo: training the extension {i}/{len(runs)}: {' '.join(args)}", flush=True)
        run_python(args, PY_SITE)
    merge(profdata, PY_PROFILE_DIR, PY_PROFILE)


def build_python(maturin_bin: str) -> None:
    print("pgo: installing the extension built with its profile (target/pgo-py)", flush=True)
    env = build_env(PY_USE_TARGET, f"-Cprofile-use={PY_PROFILE}")
    subprocess.run([maturin_bin, "develop", "--release"], cwd=ROOT, env=env, check=True)
    runs = check_runs()
    for args in runs:
        plain, optimised = run(PLAIN, args), run_python(args)
        command = frozenset({"command"})  # `lastmile-run ...` against `lastmile run ...`.
        if without_wall(plain, command) != without_wall(optimised, command):
            sys.exit(
                f"pgo: {' '.join(args)}: the optimised extension's summary differs; put the "
                "plain build back with `maturin develop --release`"
            )
    print(f"pgo: the extension gives lastmile-run's summaries on {len(runs)} runs")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--python",
        action="store_true",
        help="also the Python extension, into the active virtual environment",
    )
    args = parser.parse_args()
    profdata = llvm_profdata()
    maturin_bin = maturin() if args.python else None
    train(profdata)
    print("pgo: building lastmile-run with the profile (target/pgo)", flush=True)
    cargo_build(USE_TARGET, f"-Cprofile-use={PROFILE}")
    check_same_results()
    if maturin_bin is not None:
        train_python(profdata, maturin_bin)
        build_python(maturin_bin)
    print(f"pgo: {OPTIMISED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
