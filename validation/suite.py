"""The validation suite: every family's points run in lastmile and in its reference simulator,
the raw outcomes kept, and `docs/validation.md` written from them.

    python -m validation.suite                       # every family, every point (hours)
    python -m validation.suite --family classic-tcp-ns2 --jobs 2
    python -m validation.suite --quick               # a few points per family, 3 seeds
    python -m validation.suite --smoke               # each family's smoke point, 1 seed
    python -m validation.suite --report-only         # docs/validation.md from the cache

Families are the modules of `validation/families/` that define `FAMILY`
(`validation.framework.Family`). Each (point, seed) runs once in each simulator, as a
process of its own, `--jobs` at a time, with a progress line on stderr. Outcomes are kept
in `validation/results/<family>.json` (committed, so the report can be rebuilt without
running anything), keyed by point and seed, together with the point's parameters: a point
whose parameters changed is run again. A reference outcome is reused as long as its
parameters are unchanged (the references do not change); a lastmile outcome is reused
only while lastmile's sources (`crates/`, `python/lastmile/`) are those it was recorded
with, and `--rerun lastmile|reference|all` forces runs. References that are missing are
installed when that is possible (`validation/refs.py`); otherwise their runs are skipped
with one line saying why.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import validation.families
from validation import refs
from validation.framework import Family, Outcome, Point

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "validation" / "results"
SIMULATORS = ("lastmile", "reference")
#: What a failed run raises (a family's `RunFailed`, a timeout, a result it cannot read): the
#: suite reports the run and goes on.
RUN_ERRORS = (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError, KeyError)


def families() -> list[Family]:
    """Every family in `validation/families/`, in module-name order."""
    found: list[Family] = []
    for module in sorted(pkgutil.iter_modules(validation.families.__path__), key=lambda m: m.name):
        loaded = importlib.import_module(f"validation.families.{module.name}")
        family = getattr(loaded, "FAMILY", None)
        if family is not None:
            found.append(family)
    return found


def fingerprint(point: Point) -> str:
    """What identifies a point's runs: its parameters."""
    text = json.dumps(dict(point.params), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def reference_fingerprint(family: Family, point: Point) -> str:
    """What identifies a point's reference runs: its parameters less those only lastmile
    reads (a family's optional `lastmile_only` names), so that points differing only in a
    lastmile option share their reference runs."""
    only = set(getattr(family, "lastmile_only", ()))
    text = json.dumps(
        {k: v for k, v in point.params.items() if k not in only}, sort_keys=True, default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def lastmile_stamp() -> str:
    """lastmile's sources as git knows them: the tree of `crates` and `python/lastmile`, with
    `-dirty` when they have uncommitted changes; "unknown" outside a git checkout."""
    try:
        trees = [
            subprocess.run(
                ["git", "rev-parse", f"HEAD:{path}"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()[:12]
            for path in ("crates", "python/lastmile")
        ]
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "crates", "python/lastmile"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return "-".join(trees) + ("-dirty" if dirty else "")


# ---- the cache ----


def cache_path(family: Family) -> Path:
    return RESULTS / f"{family.name}.json"


def load_cache(family: Family) -> dict[str, Any]:
    path = cache_path(family)
    if path.exists():
        data: dict[str, Any] = json.loads(path.read_text())
        return data
    return {"family": family.name, "reference": family.reference, "points": {}}


def save_cache(family: Family, cache: Mapping[str, Any]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = cache_path(family)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def outcome_json(outcome: Outcome, stamp: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "metrics": dict(outcome.metrics),
        "wall_s": outcome.wall_s,
        "engine_s": outcome.engine_s,
    }
    if stamp is not None:
        out["lastmile"] = stamp
    return out


def outcome_from_json(data: Mapping[str, Any]) -> Outcome:
    return Outcome(
        metrics={k: float(v) for k, v in data["metrics"].items()},
        wall_s=float(data["wall_s"]),
        engine_s=None if data.get("engine_s") is None else float(data["engine_s"]),
    )


def cached_outcomes(cache: Mapping[str, Any], point: Point, simulator: str) -> dict[int, Outcome]:
    """The outcomes kept for `point` in `simulator`, by seed (only if its parameters match)."""
    entry = cache.get("points", {}).get(point.label)
    if not entry or entry.get("fingerprint") != fingerprint(point):
        return {}
    return {int(s): outcome_from_json(o) for s, o in entry.get(simulator, {}).items()}


# ---- the runs ----


@dataclass(frozen=True)
class Task:
    family: Family
    point: Point
    seed: int
    simulator: str


def _needed(
    family: Family,
    cache: dict[str, Any],
    points: Sequence[Point],
    seeds: int,
    simulators: Iterable[str],
    rerun: set[str],
    stamp: str,
) -> list[Task]:
    tasks = []
    scheduled: set[tuple[str, int]] = set()
    # Reference outcomes already kept for each reference set-up, from any point having it.
    known: dict[tuple[str, int], Any] = {}
    for point in family.points:
        entry = cache.get("points", {}).get(point.label, {})
        if entry.get("fingerprint") == fingerprint(point):
            for seed, outcome in entry.get("reference", {}).items():
                known[(reference_fingerprint(family, point), int(seed))] = outcome
    for point in points:
        entry = cache.get("points", {}).get(point.label, {})
        same = entry.get("fingerprint") == fingerprint(point)
        for simulator in simulators:
            kept = entry.get(simulator, {}) if same else {}
            for seed in range(1, seeds + 1):
                old = kept.get(str(seed))
                fresh = old is not None and simulator not in rerun
                if old is not None and simulator == "lastmile" and old.get("lastmile") != stamp:
                    fresh = False
                if fresh:
                    continue
                if simulator == "reference" and "reference" not in rerun:
                    shared_outcome = known.get((reference_fingerprint(family, point), seed))
                    if shared_outcome is not None:
                        entry = cache.setdefault("points", {}).setdefault(point.label, {})
                        if entry.get("fingerprint") != fingerprint(point):
                            entry.clear()
                            entry["fingerprint"] = fingerprint(point)
                        entry["params"] = dict(point.params)
                        entry.setdefault("reference", {})[str(seed)] = shared_outcome
                        continue
                if simulator == "reference":
                    # One run per reference set-up, shared by the points that have it.
                    shared = (reference_fingerprint(family, point), seed)
                    if shared in scheduled:
                        continue
                    scheduled.add(shared)
                tasks.append(Task(family, point, seed, simulator))
    return tasks


def _store(
    cache: dict[str, Any],
    family: Family,
    points: Sequence[Point],
    task: Task,
    outcome: Outcome,
    stamp: str,
) -> None:
    """Keeps `outcome` for the task's point, and for a reference run for every point that
    shares its reference set-up."""
    targets = [task.point]
    if task.simulator == "reference":
        ref = reference_fingerprint(family, task.point)
        targets = [p for p in points if reference_fingerprint(family, p) == ref]
    for point in targets:
        entry = cache.setdefault("points", {}).setdefault(point.label, {})
        if entry.get("fingerprint") != fingerprint(point):
            entry.clear()
            entry["fingerprint"] = fingerprint(point)
        entry["params"] = dict(point.params)
        entry.setdefault(task.simulator, {})[str(task.seed)] = outcome_json(
            outcome, stamp if task.simulator == "lastmile" else None
        )


def _execute(task: Task) -> Outcome:
    if task.simulator == "lastmile":
        return task.family.run_lastmile(task.point, task.seed)
    return task.family.run_reference(task.point, task.seed)


class Progress:
    """One line on stderr: runs done of all, failures, elapsed and remaining time."""

    def __init__(self, total: int, label: str) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.label = label
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.last_print = 0.0

    def step(self, failed: bool) -> None:
        self.done += 1
        self.failed += int(failed)
        now = time.monotonic()
        if self.tty or now - self.last_print > 10 or self.done == self.total:
            self.last_print = now
            self.show()

    def show(self) -> None:
        elapsed = time.monotonic() - self.start
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        bar = "#" * filled + "." * (width - filled)
        line = (
            f"{self.label} [{bar}] {self.done}/{self.total} runs"
            f"{f', {self.failed} failed' if self.failed else ''}, "
            f"{elapsed:.0f} s, about {left:.0f} s left"
        )
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        if self.tty and self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run_family(
    family: Family,
    points: Sequence[Point],
    seeds: int,
    jobs: int,
    rerun: set[str],
    reference_ok: bool,
) -> list[str]:
    """Runs what `family`'s cache lacks; returns the failures, one line each."""
    stamp = lastmile_stamp()
    cache = load_cache(family)
    cache["reference"] = family.reference
    simulators = [s for s in SIMULATORS if s == "lastmile" or reference_ok]
    tasks = _needed(family, cache, points, seeds, simulators, rerun, stamp)
    if not tasks:
        print(f"{family.name}: every run is in {cache_path(family).relative_to(ROOT)}")
        return []
    failures: list[str] = []
    lock = threading.Lock()
    progress = Progress(len(tasks), family.name)
    last_save = time.monotonic()
    # References first: they are the slow ones, so the pool's tail is lastmile's short runs.
    tasks.sort(key=lambda t: (t.simulator != "reference", t.point.label, t.seed))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures: dict[Future[Outcome], Task] = {pool.submit(_execute, t): t for t in tasks}
        try:
            for future in as_completed(futures):
                task = futures[future]
                try:
                    outcome = future.result()
                except (
                    RuntimeError,
                    OSError,
                    subprocess.TimeoutExpired,
                    ValueError,
                    KeyError,
                ) as err:
                    failures.append(
                        f"{family.name}: {task.point.label}, seed {task.seed}, "
                        f"{task.simulator}: {str(err).splitlines()[0] if str(err) else err!r}"
                    )
                    progress.step(failed=True)
                    continue
                with lock:
                    _store(cache, family, points, task, outcome, stamp)
                    cache["updated"] = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
                    if time.monotonic() - last_save > 5:
                        save_cache(family, cache)
                        last_save = time.monotonic()
                progress.step(failed=False)
        except KeyboardInterrupt:
            for f in futures:
                f.cancel()
            save_cache(family, cache)
            raise
    save_cache(family, cache)
    return failures


def smoke(family: Family, reference_ok: bool) -> list[str]:
    """Runs the family's smoke point once in each simulator; returns failures."""
    failures = []
    for simulator in SIMULATORS:
        if simulator == "reference" and not reference_ok:
            continue
        try:
            outcome = _execute(Task(family, family.smoke, 1, simulator))
        except RUN_ERRORS as err:
            failures.append(f"{family.name} smoke, {simulator}: {err}")
            continue
        value = outcome.metrics.get(family.metric)
        print(
            f"{family.name} smoke ({family.smoke.label}), {simulator}: "
            f"{family.metric} = {value}, {outcome.wall_s:.1f} s"
        )
    return failures


def selected_points(family: Family, quick: bool) -> list[Point]:
    if not quick:
        return list(family.points)
    quick_x = getattr(family, "quick_x", None)
    if quick_x is None:
        return list(family.points)
    return [p for p in family.points if p.x in quick_x]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m validation.suite", description=(__doc__ or "").split("\n\n")[0]
    )
    p.add_argument("--family", nargs="*", metavar="NAME", help="only these families")
    p.add_argument("--seeds", type=int, help="seeds per point (default: each family's)")
    p.add_argument("--quick", action="store_true", help="a few points per family, 3 seeds")
    p.add_argument("--smoke", action="store_true", help="each family's smoke point, 1 seed")
    p.add_argument("--report-only", action="store_true", help="no runs: the report from cache")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs at a time")
    p.add_argument(
        "--rerun",
        choices=("lastmile", "reference", "all"),
        help="run these again even where outcomes are kept",
    )
    p.add_argument("--no-install", action="store_true", help="do not install missing references")
    args = p.parse_args(argv)

    every = families()
    names = {f.name for f in every}
    if args.family:
        unknown = sorted(set(args.family) - names)
        if unknown:
            p.error(f"unknown family {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    chosen = [f for f in every if not args.family or f.name in args.family]
    rerun: set[str] = set()
    if args.rerun == "all":
        rerun = {"lastmile", "reference"}
    elif args.rerun:
        rerun = {args.rerun}

    failures: list[str] = []
    if not args.report_only:
        status: dict[str, refs.Status] = {}
        for family in chosen:
            if family.reference not in status:
                status[family.reference] = (
                    refs.status(family.reference)
                    if args.no_install
                    else refs.ensure(family.reference)
                )
                print(status[family.reference].line)
        for family in chosen:
            ok = status[family.reference].ok
            if not ok:
                print(f"{family.name}: its reference is not available; lastmile runs only")
            if args.smoke:
                failures += smoke(family, ok)
                continue
            seeds = args.seeds or (min(3, family.seeds) if args.quick else family.seeds)
            points = selected_points(family, args.quick)
            failures += run_family(family, points, seeds, args.jobs, rerun, ok)
    if not args.smoke:
        from validation import report

        written = report.write(every)
        for path in written:
            print(f"wrote {path.relative_to(ROOT)}")
    for line in failures:
        print(f"FAILED {line}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
