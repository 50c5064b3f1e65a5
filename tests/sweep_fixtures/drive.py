"""Runs a sweep with the fake runner, as `lastmile sweep` would: for the kill tests.

Usage: ``python drive.py SWEEP STORE JOBS``. Exit status as the CLI's: 0 done, 1 failed
runs, 130 interrupted. Progress goes to stderr (plain lines: stderr is a pipe).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_runner import fake_run, fake_validate

from lastmile.sweep import run_campaign


def main() -> int:
    sweep, store, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    outcome = run_campaign(
        sweep, jobs=jobs, store=store, runner=fake_run, validator=fake_validate, chunk_size=4
    )
    if outcome.interrupted:
        return 130
    return 1 if outcome.failed else 0


if __name__ == "__main__":
    sys.exit(main())
