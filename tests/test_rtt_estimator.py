"""``tcp.rtt_estimator = "ns2"``: ns-2's integer-tick RTT estimator in a whole run.

The estimator's arithmetic is unit-tested in ``crates/lastmile-core/src/tcp/rtt.rs``; here a
whole run (WTCP Fig. 5's path: 100 ms source clock, 200 ms minimum RTO) is replayed through
an independent transcription of ns-2's ``TcpAgent::rtt_update`` / ``rtt_backoff``
(protocol-notes §2.2: 8·SRTT and 4·RTTVAR as integers in ticks, RTO = ⌊SRTT + 4·RTTVAR⌋
ticks, SRTT folded into RTTVAR past a backoff factor of 8), and every RTO the ``rtt`` trace
records must be the replay's.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import lastmile
from lastmile.reproduce.framework import EXPERIMENTS_DIR

TICK_S = 0.1
MIN_RTO_S = 0.2


def _run(estimator: str) -> Any:
    overrides: dict[str, Any] = {
        "base_station.agent": "wtcp",
        "base_station.wtcp.timestamps": "none",
        "flow.0.tcp.timestamps": True,
        "flow.0.tcp.timer_granularity": "100ms",
        "flow.0.tcp.min_rto": "200ms",
        "flow.0.tcp.rtt_estimator": estimator,
        "stop_time": "60s",
    }
    result = lastmile.run(
        EXPERIMENTS_DIR / "wtcp.toml", seed=1, overrides=overrides, traces=["rtt"]
    )
    return result.trace("rtt")


def _ns2_replay(samples_s: list[float]) -> list[float]:
    """ns-2's RTO after each trace row (a NaN sample is a backoff), in seconds."""
    srtt8 = rttvar4 = 0
    backoff = 1
    out = []
    for sample in samples_s:
        if math.isnan(sample):
            backoff *= 2
            if backoff > 8:
                rttvar4 += srtt8 >> 3
                srtt8 = 0
            out.append(math.nan)
            continue
        backoff = 1
        rtt = max(1, round(sample / TICK_S))
        if srtt8 != 0:
            delta = rtt - (srtt8 >> 3)
            srtt8 = max(1, srtt8 + delta)
            rttvar4 = max(1, rttvar4 + abs(delta) - (rttvar4 >> 2))
        else:
            srtt8, rttvar4 = rtt << 3, rtt << 1
        rtxcur = ((rttvar4 << 3) + srtt8) >> 3
        out.append(max(rtxcur * TICK_S, MIN_RTO_S, 2 * TICK_S))
    return out


def test_every_rto_of_a_run_is_ns2s_arithmetic_on_its_samples() -> None:
    trace = _run("ns2")
    expected = _ns2_replay(trace["sample_s"].tolist())
    got = trace["rto_s"].tolist()
    rows = [(g, e) for g, e in zip(got, expected, strict=True) if not math.isnan(e)]
    assert len(rows) > 1000
    assert [g for g, _ in rows] == pytest.approx([e for _, e in rows], abs=1e-9)


def test_ns2s_rto_stays_three_ticks_above_srtt_where_rfc6298_comes_closer() -> None:
    """The first sample here is 2 ticks (4·RTTVAR = 4); once 4·RTTVAR is 3, ⌊RTTVAR⌋ is 0 and
    |δ| - 0 can only raise it, so ns-2's RTO never falls below ⌊SRTT⌋ + 3 ticks. RFC 6298's
    RTTVAR decays freely (RTO down to SRTT + G, rounded up)."""

    def below(trace: Any) -> int:
        rows = trace[trace["sample_s"].notna()]
        assert rows["sample_s"].iloc[0] == pytest.approx(2 * TICK_S)
        floor = (rows["srtt_s"] / TICK_S + 1e-9).apply(math.floor) * TICK_S + 3 * TICK_S
        return int((rows["rto_s"] < floor - 1e-9).sum())

    assert below(_run("ns2")) == 0
    assert below(_run("rfc6298")) > 0


def test_an_unknown_estimator_is_refused_with_its_path() -> None:
    with pytest.raises(lastmile.ScenarioError) as info:
        _run("bsd")
    assert "rtt_estimator" in str(info.value) and "ns2" in str(info.value)
