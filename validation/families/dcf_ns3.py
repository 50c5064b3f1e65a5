"""The IEEE 802.11 DCF with frame errors against ns-3.44: two 802.11b stations (11 Mbps data,
1 Mbps basic rate, long preamble, no RTS/CTS, retry limit 7), one bulk TCP NewReno transfer
(1460 B segments, a window of 20 segments, far above the one-frame bandwidth-delay product
of the hop) and uniform frame errors on every frame each station receives — data, TCP ACKs
and MAC ACKs alike — at PER 0 to 0.5. What a failed attempt costs decides the result: the
ACK timeout, EIFS after the corrupted frame, the doubled contention window, the retry
limit, and the frames dropped at it (which TCP must then recover).

The ns-3 side is `validation/ns3/dcf.py`. Two lastmile series: with ns-3's rule for the
contention window after a drop (`cw_rule = "qsrc"`, like with like) and with lastmile's
default (`cw_rule = "dcf"`, IEEE 802.11-2016 §10.3.3). The target is 10 % of ns-3's mean
throughput up to PER 0.4.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from validation import harness
from validation.families import _wifi
from validation.framework import Outcome, Point, Setting

PERS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5)
RULES = {
    "qsrc": "cw_rule = qsrc (ns-3's rule)",
    "dcf": "cw_rule = dcf (lastmile's default)",
}
DURATION_S = 60.0
MSS = 1460
WINDOW = 20
QUEUE = 100

#: RFC 5681/6582 TCP as ns-3 runs it here (TcpNewReno + TcpClassicRecovery): every other
#: key is lastmile's default and ns-3's as dcf.py sets it (initial window 1, minimum and
#: initial RTO 1 s, a 1 ms clock, no SACK, no timestamps, no limited transmit).
TCP: dict[str, Any] = {
    "variant": "newreno",
    "mss": f"{MSS}B",
    "rwnd": f"{WINDOW * MSS}B",
    "ack": "every",
}


def _point(rule: str, per: float, duration_s: float = DURATION_S) -> Point:
    return Point(
        label=f"{RULES[rule]}, PER {per:g}",
        series=RULES[rule],
        x=per,
        params={"per": per, "duration_s": duration_s, "cw_rule": rule},
        target=0.10 if per <= 0.4 else None,
    )


SETTINGS = (
    Setting(
        "stations",
        'preset "adhoc": n1 → n2 in one cell, 1 µs of propagation',
        "AdhocWifiMac, two nodes 300 m apart (1 µs), FixedRssLossModel -50 dBm (no PHY errors)",
    ),
    Setting(
        "PHY",
        'phy "802.11b": 11 Mbps data, 1 Mbps control, long preamble (192 µs); slot 20 µs, '
        "SIFS 10 µs, DIFS 50 µs, EIFS 364 µs, CW 31-1023",
        "WIFI_STANDARD_80211b, ConstantRateWifiManager DsssRate11Mbps; the BSS basic rate set "
        "cut to DsssRate1Mbps so the MAC ACK goes at 1 Mbps (AdhocWifiMac puts every mandatory "
        "rate in it; the run checks the highest ACK rate it saw)",
    ),
    Setting(
        "frames",
        "data: IP + 24 B header + 4 B FCS + 8 B LLC/SNAP; ACK 14 B",
        "the same (WifiMacHeader, FCS, LlcSnapHeader)",
    ),
    Setting(
        "RTS/CTS, retry limits",
        "rts_threshold 2347 B (off); retry_limit_short 7 (retry_limit_long 4 never applies)",
        "RtsCtsThreshold 65535; WifiMac::FrameRetryLimit 7 (one limit for every frame)",
    ),
    Setting(
        "ACK timeout",
        "SIFS + slot + PLCP = 222 µs after the frame",
        "txDuration + SIFS + slot + PHY header of the ACK (222 µs)",
    ),
    Setting(
        "frame errors",
        "errors and reverse_errors = per: every frame a station receives, judged after its "
        "airtime; a corrupted frame means EIFS",
        "RateErrorModel ERROR_UNIT_PACKET as each PHY's PostReceptionErrorModel: the PHY "
        "reports an RX error, the ChannelAccessManager uses EIFS",
    ),
    Setting(
        "contention window after a drop",
        'series "qsrc": 802.11-2020 §10.23.2.2 QSRC (CWmax for the next frame); series "dcf": '
        "CWmin (802.11-2016 §10.3.3)",
        "Txop::UpdateFailedCw, QSRC as in 802.11-2020 §10.23.2.2 (CWmax for the next frame)",
        note='matched in the "qsrc" series only',
    ),
    Setting(
        "backoff after an ACK timeout",
        "counts slots from the timeout (the medium has been idle for more than DIFS since the "
        "frame ended)",
        "a further DIFS after the timeout (m_lastAckTimeoutEnd in GetAccessGrantStart)",
        matched=False,
        note="50 µs more per failed attempt in ns-3; see the differences below",
    ),
    Setting(
        "MAC queue",
        "100 packets",
        "WifiMacQueue MaxSize 100p, MaxDelay unlimited (ns-3's default drops frames queued "
        "500 ms), no traffic-control queue disc",
    ),
    Setting("ARP", "none", "neighbour caches filled before the run (NeighborCacheHelper)"),
    Setting(
        "TCP",
        'variant "newreno", mss 1460 B, rwnd 20 segments, initial window 1, min RTO 1 s, 1 ms '
        "clock, an ACK per segment, no SACK, no timestamps, no limited transmit",
        "TcpNewReno + TcpClassicRecovery, SegmentSize 1460, RcvBufSize 20 x 1460, InitialCwnd "
        "1, MinRto 1 s, DelAckCount 1, Sack/Timestamp/WindowScaling/LimitedTransmit off",
    ),
    Setting(
        "throughput",
        "bytes delivered in order x 8 / 60 s",
        "PacketSink Rx bytes x 8 / 60 s",
    ),
    Setting(
        "attempts per frame, drops",
        "cells[0]: mac_attempts / (mac_attempts - mac_retries), mac_drops (both stations)",
        "PhyTxPsduBegin data frames / (AckedMpdu + DroppedMpdu at the retry limit), both stations",
    ),
)

EXPLANATIONS: dict[str, str] = {}


class DcfNs3:
    """The family object (`validation.framework.Family`)."""

    name = "dcf-ns3"
    title = "IEEE 802.11 DCF with frame errors against ns-3.44"
    reference = "ns-3.44"
    metric = "throughput_kbps"
    extra_metrics = ("attempts_per_frame", "retry_drops")
    x_label = "frame error rate at each receiver"
    settings = SETTINGS
    points = tuple(_point(rule, per) for rule in RULES for per in PERS)
    seeds = 10
    smoke = _point("qsrc", 0.1, duration_s=2.0)
    explanations: Mapping[str, str] = EXPLANATIONS
    quick_x = (0.0, 0.2, 0.4)
    #: Point parameters ns-3 does not read: the two series share their ns-3 runs.
    lastmile_only = ("cw_rule",)

    def run_lastmile(self, point: Point, seed: int) -> Outcome:
        p = point.params
        per = harness.param_float(p, "per")
        summary, wall = harness.run_lastmile(
            _wifi.cell_scenario(
                name=f"dcf-ns3-per{per}",
                per=per,
                seed=seed,
                duration_s=harness.param_float(p, "duration_s"),
                tcp=TCP,
                queue_packets=QUEUE,
                cw_rule=harness.param_str(p, "cw_rule"),
            )
        )
        return _wifi.lastmile_outcome(summary, wall)

    def run_reference(self, point: Point, seed: int) -> Outcome:
        p = point.params
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
                MSS,
                "--window",
                WINDOW,
                "--queue",
                QUEUE,
            ],
        )
        return _wifi.reference_outcome(result, wall)


FAMILY = DcfNs3()
