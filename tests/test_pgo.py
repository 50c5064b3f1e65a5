"""`bench/pgo.py` (`make pgo`): its training set stays runnable and apart from the
benchmarks it is measured on, and its check of the optimised build sees a changed result.

The profile-guided build itself takes two release builds (minutes); it is run by hand and
measured in docs/performance.md, not here.
"""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_pgo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pgo", ROOT / "bench" / "pgo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


pgo = load_pgo()


def test_the_training_set_is_every_experiment_and_no_benchmark() -> None:
    runs = pgo.training_runs()
    files = {args[0] for args in runs}
    experiments = {str(p.relative_to(ROOT)) for p in (ROOT / "experiments").glob("*.toml")}
    assert experiments <= files
    assert not any(f.startswith("bench/") for f in files)
    # Every TCP variant and named congestion control of the core, read from its schema.
    variants, controls = pgo.tcp_names()
    assert {"tahoe", "sack", "fack"} <= set(variants) and {"cubic", "bbr"} <= set(controls)
    assert len(runs) == len(experiments) + len(variants) + len(controls)
    # The check covers the benchmarks the figures are measured on.
    checked = {args[0] for args in pgo.check_runs()}
    assert {"bench/scenarios/chain.toml", "bench/scenarios/wifi.toml"} <= checked


def test_every_training_run_is_accepted(native: Path) -> None:
    # A renamed experiment or a dropped congestion control would end the build's training;
    # a short budget (exit status 3) shows each run's arguments are still taken.
    for args in pgo.training_runs():
        proc = subprocess.run(
            [str(native), *args, "--max-events", "2000"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode in (0, 3), (args, proc.stderr)


def test_the_check_ignores_only_the_wall_clock() -> None:
    summary = {"engine": {"events": 10, "wall_s": 0.5}, "flows": [{"bytes_delivered": 7}]}
    later = {"engine": {"events": 10, "wall_s": 0.4}, "flows": [{"bytes_delivered": 7}]}
    assert pgo.without_wall(summary) == pgo.without_wall(later)
    moved = {"engine": {"events": 10, "wall_s": 0.5}, "flows": [{"bytes_delivered": 8}]}
    assert pgo.without_wall(summary) != pgo.without_wall(moved)
    # The extension's check also sets aside the command line typed.
    typed = {**summary, "command": "lastmile-run x.toml"}
    assert pgo.without_wall(typed, frozenset({"command"})) == pgo.without_wall(summary)
