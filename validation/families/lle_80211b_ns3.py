"""TCP over 802.11b with LLE-TCP's Table 3 parameters (Kliazovich, Granelli & Gerla, seed
`004_*`, §4.1: slot 20 µs, SIFS 10 µs, DIFS 50 µs, PLCP preamble and header 192 µs, data
at 11 Mbps, basic rate 1 Mbps) against ns-3.44: the single-hop scenario of §4.3, one station
sending bulk TCP to the other, as the baseline of the paper's Figs. 5 and 7 (LLE-TCP itself
has no ns-3 counterpart).

- Fig. 5's axis: TCP/IP datagrams of 100 to 1500 B with RTS/CTS off and before every frame,
  no errors. Small datagrams make the TCP ACKs (and their MAC exchanges) a large share of
  the airtime, RTS/CTS adds two control frames at 1 Mbps to every exchange.
- Fig. 7's axis: 1000 B datagrams at PER 0 to 0.3 on every frame each station receives,
  with an ACK per segment and with delayed ACKs (RFC 1122: every second segment, 200 ms).

ns-2's defaults that the paper kept are kept in both simulators: a TCP window of 20
segments and an interface queue of 50 packets. The ns-3 side is `validation/ns3/dcf.py`;
lastmile runs ns-3's contention-window rule after a drop (`cw_rule = "qsrc"`) so that like
is compared with like (`dcf_ns3` has both rules). Runs last 20 s (steady state within the
first second at this RTT); the target is 10 % of ns-3's mean throughput.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from validation import harness
from validation.families import _wifi
from validation.framework import Outcome, Point, Setting

DATAGRAMS = (100, 250, 500, 1000, 1500)
PERS = (0.0, 0.1, 0.2, 0.3)
DURATION_S = 20.0
WINDOW = 20
QUEUE = 50
RTS_ALWAYS = 0
RTS_NEVER = 2347
NS3_RTS_NEVER = 65535

SIZE_SERIES = {
    "off": "Fig. 5 axis, RTS/CTS off",
    "on": "Fig. 5 axis, RTS/CTS before every frame",
}
PER_SERIES = {
    "every": "Fig. 7 axis, 1000 B, an ACK per segment",
    "delayed": "Fig. 7 axis, 1000 B, delayed ACKs",
}


def _size_point(rts: str, datagram: int, duration_s: float = DURATION_S) -> Point:
    series = SIZE_SERIES[rts]
    return Point(
        label=f"{series}, {datagram} B",
        series=series,
        x=float(datagram),
        params={
            "datagram": datagram,
            "rts": rts == "on",
            "per": 0.0,
            "ack": "every",
            "duration_s": duration_s,
        },
        target=0.10,
    )


def _per_point(ack: str, per: float) -> Point:
    series = PER_SERIES[ack]
    return Point(
        label=f"{series}, PER {per:g}",
        series=series,
        x=per,
        params={"datagram": 1000, "rts": False, "per": per, "ack": ack, "duration_s": DURATION_S},
        target=0.10,
    )


SETTINGS = (
    Setting(
        "Table 3",
        'phy "802.11b": slot 20 µs, SIFS 10 µs, DIFS 50 µs, PLCP 192 µs, 11 Mbps data, '
        "1 Mbps basic rate",
        "WIFI_STANDARD_80211b (the same DSSS timing), DsssRate11Mbps data, basic rate set cut "
        "to DsssRate1Mbps, long preamble",
    ),
    Setting(
        "propagation",
        "two stations 1 µs apart, no PHY errors",
        "300 m apart (1 µs), FixedRssLossModel -50 dBm",
        note="the paper's two-ray ground model only sets the range (22.5 m) there",
    ),
    Setting(
        "RTS/CTS",
        'rts_threshold "2347B" (off) or "0B" (every frame)',
        "RtsCtsThreshold 65535 or 0",
    ),
    Setting(
        "retry limits",
        "7 short, 4 long",
        "FrameRetryLimit 7 for every frame",
        matched=False,
        note="with RTS/CTS on, a data frame whose CTS came is retried 4 times in lastmile, up "
        "to 7 in ns-3; it matters only under errors, and the RTS series have none",
    ),
    Setting(
        "contention window after a drop",
        'cw_rule = "qsrc"',
        "QSRC (802.11-2020 §10.23.2.2), as ns-3.44 runs the DCF",
    ),
    Setting(
        "frame errors",
        "per on every frame each station receives (errors and reverse_errors)",
        "RateErrorModel per packet as each PHY's PostReceptionErrorModel",
    ),
    Setting("interface queue", "50 packets", "WifiMacQueue 50p, no lifetime, no queue disc"),
    Setting(
        "TCP",
        'variant "newreno", mss = datagram - 40 B, rwnd 20 segments, initial window 1, '
        'min RTO 1 s; ack "every" or "delayed" (200 ms)',
        "TcpNewReno + TcpClassicRecovery, SegmentSize = datagram - 40, RcvBufSize 20 "
        "segments, InitialCwnd 1, MinRto 1 s; DelAckCount 1 or 2 (DelAckTimeout 200 ms)",
        note="the paper ran ns-2's Reno; NewReno is what ns-3 offers, and the MAC's retries "
        "leave TCP few losses to recover",
    ),
    Setting("duration", "20 s", "20 s", note="the paper's 100 s reach the same steady state"),
)

EXPLANATIONS: dict[str, str] = {}


class Lle80211bNs3:
    """The family object (`validation.framework.Family`)."""

    name = "lle-80211b-ns3"
    title = "TCP over 802.11b with LLE-TCP's Table 3 parameters against ns-3.44"
    reference = "ns-3.44"
    metric = "throughput_kbps"
    extra_metrics = ("attempts_per_frame", "retry_drops")
    x_label = "TCP/IP datagram, bytes (Fig. 5 axis) or frame error rate (Fig. 7 axis)"
    settings = SETTINGS
    points = (
        *(_size_point(rts, d) for rts in SIZE_SERIES for d in DATAGRAMS),
        *(_per_point(ack, per) for ack in PER_SERIES for per in PERS),
    )
    seeds = 5
    smoke = _size_point("off", 1500, duration_s=2.0)
    explanations: Mapping[str, str] = EXPLANATIONS
    quick_x = (100.0, 1500.0, 0.0, 0.3)

    def run_lastmile(self, point: Point, seed: int) -> Outcome:
        p = point.params
        datagram = harness.param_int(p, "datagram")
        mss = datagram - 40
        tcp: dict[str, Any] = {
            "variant": "newreno",
            "mss": f"{mss}B",
            "rwnd": f"{WINDOW * mss}B",
            "ack": harness.param_str(p, "ack"),
        }
        summary, wall = harness.run_lastmile(
            _wifi.cell_scenario(
                name=f"lle-{datagram}",
                per=harness.param_float(p, "per"),
                seed=seed,
                duration_s=harness.param_float(p, "duration_s"),
                tcp=tcp,
                queue_packets=QUEUE,
                rts_threshold_bytes=RTS_ALWAYS if p["rts"] else RTS_NEVER,
                cw_rule="qsrc",
            )
        )
        return _wifi.lastmile_outcome(summary, wall)

    def run_reference(self, point: Point, seed: int) -> Outcome:
        p = point.params
        datagram = harness.param_int(p, "datagram")
        result, wall = harness.run_ns3(
            "dcf.py",
            [
                "--per",
                p["per"],
                "--seed",
                seed,
                "--duration",
                p["duration_s"],
                "--mss",
                datagram - 40,
                "--window",
                WINDOW,
                "--queue",
                QUEUE,
                "--rts-threshold",
                RTS_ALWAYS if p["rts"] else NS3_RTS_NEVER,
                "--delack-count",
                2 if p["ack"] == "delayed" else 1,
            ],
        )
        return _wifi.reference_outcome(result, wall)


FAMILY = Lle80211bNs3()
