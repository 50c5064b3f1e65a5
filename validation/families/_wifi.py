"""What the IEEE 802.11 families share: the lastmile scenario of two stations in one cell, one
bulk TCP transfer between them, frame errors at each receiver, and the metrics read from
its summary. Not a family itself (no `FAMILY`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from validation.framework import Outcome
from validation.harness import RunFailed


def cell_scenario(
    *,
    name: str,
    per: float,
    seed: int,
    duration_s: float,
    tcp: Mapping[str, Any],
    queue_packets: int,
    rts_threshold_bytes: int = 2347,
    cw_rule: str = "dcf",
) -> dict[str, Any]:
    """n1 → n2 over one 802.11b cell (DCF, 11 Mbps data, 1 Mbps control frames, long
    preamble, 1 µs apart), every frame each station receives lost with probability `per`."""
    errors = {"model": "per", "per": per} if per > 0 else {"model": "none"}
    return {
        "name": name,
        "seed": seed,
        "stop_time": f"{duration_s}s",
        "topology": {
            "preset": "adhoc",
            "wireless": {
                "mac": {
                    "kind": "dcf",
                    "phy": "802.11b",
                    "basic_rate": "1Mbps",
                    "preamble": "long",
                    "retry_limit_short": 7,
                    "retry_limit_long": 4,
                    "rts_threshold": f"{rts_threshold_bytes}B",
                    "cw_rule": cw_rule,
                },
                "rate": "11Mbps",
                "delay": "1us",
                "queue": f"{queue_packets}pkt",
                "errors": errors,
                "reverse_errors": errors,
            },
        },
        "flow": [
            {"src": "n1", "dst": "n2", "tcp": dict(tcp), "app": {"kind": "bulk", "bytes": "10GB"}}
        ],
    }


def lastmile_outcome(summary: Mapping[str, Any], wall_s: float) -> Outcome:
    """Throughput, MAC attempts per frame (both stations: attempts over frames finished,
    acknowledged or dropped) and frames dropped at the retry limit."""
    flow = summary["flows"][0]
    cell = summary["cells"][0]
    attempts = float(cell["mac_attempts"])
    finished = attempts - float(cell["mac_retries"])
    return Outcome(
        metrics={
            "throughput_kbps": flow["throughput_bps"] / 1000,
            "attempts_per_frame": attempts / finished if finished else 0.0,
            "retry_drops": float(cell["mac_drops"]),
            "timeouts": float(flow["tcp_timeouts"]),
        },
        wall_s=wall_s,
        engine_s=float(summary["engine"]["wall_s"]),
    )


def reference_outcome(result: Mapping[str, Any], wall_s: float) -> Outcome:
    """The same metrics from an ns-2 or ns-3 RESULT line (ns-3's must show that its MAC
    ACKs went at the 1 Mbps basic rate)."""
    if result.get("mac_acks") and result.get("mac_ack_rate_bps") != 1_000_000:
        raise RunFailed(
            f"ns-3 sent MAC ACKs at up to {result.get('mac_ack_rate_bps')} bps, not 1 Mbps: "
            "the basic rate set was not cut to DsssRate1Mbps"
        )
    metrics = {
        "throughput_kbps": float(result["throughput_kbps"]),
        "attempts_per_frame": float(result["attempts_per_frame"]),
        "retry_drops": float(result["retry_drops"]),
    }
    if "timeouts" in result:
        metrics["timeouts"] = float(result["timeouts"])
    return Outcome(metrics=metrics, wall_s=wall_s, engine_s=float(result["engine_s"]))
