"""A deterministic stand-in for `lastmile.run`, for testing sweeps without the simulator.

`fake_run` returns a summary shaped like the core's (one flow, a wireless hop, two links,
engine figures) whose numbers are a pure function of (overrides, seed): a hash seeds a
`random.Random`. It sleeps ``LASTMILE_FAKE_SLEEP`` seconds (default 0) to look like work,
raises for ``flow.0.tcp.variant = "boom"`` (a run that fails), and `fake_validate`
rejects a packet error rate outside [0, 1] the way the core does (an error with ``path``).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from collections.abc import Mapping
from typing import Any


class FakeScenarioError(ValueError):
    """Like `lastmile.ScenarioError`: names the field path and value."""

    def __init__(self, path: str, value: object, expected: str) -> None:
        super().__init__(f"chain.toml: {path} = {value!r}: expected {expected}")
        self.path = path
        self.value = value
        self.expected = expected


PER = "topology.wireless.errors.per"


def fake_validate(scenario: Any, overrides: Mapping[str, Any]) -> None:
    per = overrides.get(PER, 0.05)
    if not isinstance(per, int | float) or not 0 <= per <= 1:
        raise FakeScenarioError(PER, per, "a probability in [0, 1]")


def fake_run(scenario: Any, seed: int, overrides: Mapping[str, Any]) -> dict[str, Any]:
    time.sleep(float(os.environ.get("LASTMILE_FAKE_SLEEP", "0")))
    if overrides.get("flow.0.tcp.variant") == "boom":
        raise RuntimeError("the simulator broke an invariant")
    digest = hashlib.sha256(json.dumps([dict(overrides), seed], sort_keys=True).encode())
    rng = random.Random(digest.digest())
    per = float(overrides.get(PER, 0.05))
    sent = 80 + rng.randrange(40)
    lost = int(sent * per)
    flow = {
        "name": "flow0",
        "src": "fh",
        "dst": "mh",
        "variant": str(overrides.get("flow.0.tcp.variant", "newreno")),
        "bytes_total": 100_000,
        "bytes_delivered": 100_000,
        "completed": True,
        "throughput_bps": 800_000 * (1 - per) * rng.uniform(0.9, 1.0),
        "completion_s": rng.uniform(1.0, 2.0),
        "tcp_timeouts": rng.randrange(3),
        "tcp_fast_retransmits": lost,
        "tcp_retransmits": lost,
        "tcp_segments_sent": sent,
        "delay_mean_s": rng.uniform(0.05, 0.2),
        "delay_std_s": rng.uniform(0.0, 0.05),
        "overhead_bytes": 40 * sent,
    }
    link = {
        "name": "wireless",
        "from": "bs",
        "to": "mh",
        "frames_sent": sent,
        "frames_lost": lost,
        "bytes_sent": 1440 * sent,
        "queue_drops": 0,
        "max_queue_packets": rng.randrange(30),
    }
    return {
        "name": "chain",
        "seed": seed,
        "flows": [flow],
        "wireless": {
            "link": "wireless",
            "frames_sent": sent,
            "frames_lost": lost,
            "data_frames_sent": sent,
            "data_frames_delivered": sent - lost,
            "goodput_wireless": (sent - lost) / sent,
            "goodput_bytes": 0.97,
            "redundant_tx": 0,
            "reverse_frames_lost": 0,
        },
        "links": [link],
        "engine": {
            "events": 1000 + rng.randrange(1000),
            "sim_time_s": 1.5,
            "wall_s": time.perf_counter() % 0.001,
            "stop_reason": "completed",
        },
    }


def flaky_run(scenario: Any, seed: int, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Fails every run with seed 2, as a transient problem would."""
    if seed == 2:
        raise RuntimeError("transient failure")
    return fake_run(scenario, seed, overrides)


def crash_run(scenario: Any, seed: int, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Kills its worker process outright for the run with seed 3 (a segfault, say)."""
    if seed == 3:
        os._exit(17)
    return fake_run(scenario, seed, overrides)


def seed_run(scenario: Any, seed: int, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Throughput equal to the seed: a known sample for confidence intervals."""
    summary = fake_run(scenario, seed, overrides)
    summary["flows"][0]["throughput_bps"] = float(seed)
    return summary


def die_once_run(scenario: Any, seed: int, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Kills its worker the first time any run reaches seed 2 (``LASTMILE_FAKE_MARKER``).

    The marker file makes it happen once per campaign: a worker lost mid-sweep, whose runs
    must be redone elsewhere and stored exactly once.
    """
    marker = os.environ["LASTMILE_FAKE_MARKER"]
    if seed == 2:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.close(fd)
            os._exit(9)
    return fake_run(scenario, seed, overrides)
