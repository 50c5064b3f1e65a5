"""A two-hop path in ns-3 for the `cc_ns3` validation family: fixed host —wire— base station
—hop— mobile host, one bulk TCP transfer with SACK, its result printed as one JSON line.

Runs inside ns-3's own Python (the `ns3` wheel, 3.44, in a virtual environment of its own;
never a dependency of lastmile). Importing ns-3 costs several seconds, so the script has two
modes:

    # one run
    /work/ns3-venv/bin/python validation/ns3/cc_path.py '{"cc": "TcpCubic", "per": 0.02, ...}'
    # a worker: one JSON run per stdin line, one `RESULT {...}` line per run on stdout
    /work/ns3-venv/bin/python validation/ns3/cc_path.py --worker

The worker imports ns-3 once and forks a child per run, so every run starts from the same
fresh state (node ids, the auto-assigned random streams) whatever ran before it in the same
worker: a run's result depends on its settings and seed only.

The set-up: point-to-point links (each adds ns-3's 2-byte PPP header to a frame) with
drop-tail device queues of `queue` packets at both ends of both hops and no queue disc;
segments of `mss` bytes; initial window `iw` segments; an ACK for every segment
(DelAckCount 1); SACK on; no timestamps; window scaling; limited transmit on (ns-3's
default); minimum RTO `min_rto_s`; the recovery `recovery` (ns-3's default TcpPrrRecovery
unless told); the congestion control `cc` with attribute defaults `attrs`. Packets are lost
at random on the hop's receiving side (the mobile host's device) with probability `per`
(RateErrorModel per packet), after their transmission, so a lost packet costs its airtime.

Measured: the throughput (bytes delivered to the sink times 8 over the time of the last
byte, from the first SYN at 0 s), retransmissions (the socket's `Retransmission` trace),
timeouts (entries into CA_LOSS in the `CongState` trace), fast recoveries (entries into
CA_RECOVERY), drops at the base station's queue onto the hop (with no queue disc and a full
device queue, ns-3's traffic-control layer drops the packet before the device sees it:
`TrafficControlLayer::Send`, `TcDrop`; those count too), and the wall time of
`Simulator::Run` and of the whole run (in the worker: from the fork).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def _setup_probe(ns: Any) -> Any:
    """C++ helpers: the sink's byte count (stopping the simulation at the target) and the
    sender socket's traces."""
    ns.cppyy.cppdef(
        """
        namespace lastmile_cc {
        uint64_t target_bytes = 0;
        uint64_t rx_bytes = 0;
        uint64_t last_rx_ns = 0;
        uint64_t retransmissions = 0;
        uint64_t timeouts = 0;
        uint64_t recoveries = 0;
        uint64_t tc_drops = 0;
        void OnTcDrop(ns3::Ptr<const ns3::Packet>) {
            tc_drops++;
        }
        void OnRx(ns3::Ptr<const ns3::Packet> p, const ns3::Address&) {
            rx_bytes += p->GetSize();
            last_rx_ns = ns3::Simulator::Now().GetNanoSeconds();
            if (rx_bytes >= target_bytes) {
                ns3::Simulator::Stop();
            }
        }
        void OnRetransmission(ns3::Ptr<const ns3::Packet>, const ns3::TcpHeader&,
                              const ns3::Address&, const ns3::Address&,
                              ns3::Ptr<const ns3::TcpSocketBase>) {
            retransmissions++;
        }
        void OnCongState(ns3::TcpSocketState::TcpCongState_t,
                         ns3::TcpSocketState::TcpCongState_t now) {
            if (now == ns3::TcpSocketState::CA_LOSS) {
                timeouts++;
            } else if (now == ns3::TcpSocketState::CA_RECOVERY) {
                recoveries++;
            }
        }
        void HookSocket() {
            ns3::Config::ConnectWithoutContext(
                "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/Retransmission",
                ns3::MakeCallback(&OnRetransmission));
            ns3::Config::ConnectWithoutContext(
                "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/CongState",
                ns3::MakeCallback(&OnCongState));
        }
        void Start(ns3::Ptr<ns3::Application> sink, uint64_t target) {
            target_bytes = target;
            // With no queue disc, a packet for a device whose queue is full (flow control
            // has stopped it) is dropped by the traffic-control layer, not by the queue.
            ns3::Config::ConnectWithoutContext(
                "/NodeList/1/$ns3::TrafficControlLayer/TcDrop", ns3::MakeCallback(&OnTcDrop));
            sink->TraceConnectWithoutContext("Rx", ns3::MakeCallback(&OnRx));
            // The source's socket exists once its application has started at 0 s.
            ns3::Simulator::Schedule(ns3::NanoSeconds(1), &HookSocket);
        }
        }
        """
    )
    return ns.cppyy.gbl.lastmile_cc


def run(ns: Any, probe: Any, r: dict[str, Any]) -> dict[str, Any]:
    """One run of `r` (see the module notes for its keys); the measured values."""
    t0 = time.perf_counter()
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(r["seed"]))
    tcp = "ns3::TcpSocket::"
    base = "ns3::TcpSocketBase::"
    lookup = ns.TypeId.LookupByName
    ns.Config.SetDefault(
        "ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(lookup("ns3::" + r["cc"]))
    )
    recovery = r.get("recovery", "TcpPrrRecovery")
    ns.Config.SetDefault(
        "ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(lookup("ns3::" + recovery))
    )
    ns.Config.SetDefault(tcp + "SegmentSize", ns.UintegerValue(int(r["mss"])))
    ns.Config.SetDefault(tcp + "InitialCwnd", ns.UintegerValue(int(r["iw"])))
    ns.Config.SetDefault(tcp + "DelAckCount", ns.UintegerValue(1))
    ns.Config.SetDefault(tcp + "RcvBufSize", ns.UintegerValue(int(r["rwnd"])))
    ns.Config.SetDefault(tcp + "SndBufSize", ns.UintegerValue(1 << 27))
    ns.Config.SetDefault(base + "Sack", ns.BooleanValue(True))
    ns.Config.SetDefault(base + "Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault(base + "WindowScaling", ns.BooleanValue(True))
    ns.Config.SetDefault(base + "LimitedTransmit", ns.BooleanValue(True))
    ns.Config.SetDefault(base + "MinRto", ns.TimeValue(ns.Seconds(float(r["min_rto_s"]))))
    for name, value in r.get("attrs", {}).items():
        ns.Config.SetDefault(name, ns.StringValue(str(value)))

    nodes = ns.NodeContainer()
    nodes.Create(3)
    p2p = ns.PointToPointHelper()
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{int(r['queue'])}p"))
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(r["wired_rate"]))
    p2p.SetChannelAttribute("Delay", ns.StringValue(r["wired_delay"]))
    wired = p2p.Install(nodes.Get(0), nodes.Get(1))
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(r["hop_rate"]))
    p2p.SetChannelAttribute("Delay", ns.StringValue(r["hop_delay"]))
    hop = p2p.Install(nodes.Get(1), nodes.Get(2))
    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.0.1.0"), ns.Ipv4Mask("255.255.255.0"))
    addresses.Assign(wired)
    addresses.SetBase(ns.Ipv4Address("10.0.2.0"), ns.Ipv4Mask("255.255.255.0"))
    hop_ifaces = addresses.Assign(hop)
    # Drop-tail device queues only, as lastmile's links: no queue disc in front of them.
    tc = ns.TrafficControlHelper()
    tc.Uninstall(wired)
    tc.Uninstall(hop)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    per = float(r["per"])
    if per > 0:
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetAttribute("ErrorRate", ns.DoubleValue(per))
        em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
        em.AssignStreams(int(r["seed"]) * 7 + 3)
        hop.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))

    port = 5000
    sink_addr = ns.InetSocketAddress(hop_ifaces.GetAddress(1), port)
    source = ns.BulkSendHelper("ns3::TcpSocketFactory", sink_addr.ConvertTo())
    source.SetAttribute("MaxBytes", ns.UintegerValue(int(r["bytes"])))
    source.SetAttribute("SendSize", ns.UintegerValue(int(r["mss"])))
    source_apps = source.Install(nodes.Get(0))
    source_apps.Start(ns.Seconds(0))
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port)
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr.ConvertTo())
    sink_apps = sink.Install(nodes.Get(2))
    sink_apps.Start(ns.Seconds(0))
    probe.Start(sink_apps.Get(0), int(r["bytes"]))

    ns.Simulator.Stop(ns.Seconds(float(r["stop_s"])))
    t1 = time.perf_counter()
    ns.Simulator.Run()
    engine_s = time.perf_counter() - t1

    def drops(devices: Any, i: int) -> int:
        return int(
            devices.Get(i).GetObject[ns.PointToPointNetDevice]().GetQueue().GetTotalDroppedPackets()
        )

    rx_bytes = int(probe.rx_bytes)
    last_rx_s = int(probe.last_rx_ns) / 1e9
    out = {
        "bytes_delivered": rx_bytes,
        "completed": rx_bytes >= int(r["bytes"]),
        "throughput_mbps": rx_bytes * 8 / last_rx_s / 1e6 if last_rx_s > 0 else 0.0,
        "retransmissions": int(probe.retransmissions),
        "timeouts": int(probe.timeouts),
        "fast_recoveries": int(probe.recoveries),
        "queue_drops": drops(hop, 0) + int(probe.tc_drops),
        "other_queue_drops": drops(wired, 0) + drops(wired, 1) + drops(hop, 1),
        "engine_s": engine_s,
    }
    ns.Simulator.Destroy()
    out["wall_s"] = time.perf_counter() - t0
    return out


#: The warm-up run: every key a run needs, a short transfer.
WARM_UP: dict[str, Any] = {
    "cc": "TcpNewReno",
    "per": 0.01,
    "seed": 1,
    "mss": 1400,
    "iw": 1,
    "rwnd": 65536,
    "min_rto_s": 1.0,
    "queue": 10,
    "wired_rate": "100Mbps",
    "wired_delay": "1ms",
    "hop_rate": "10Mbps",
    "hop_delay": "1ms",
    "bytes": 14000,
    "stop_s": 60.0,
}


def _child(ns: Any, probe: Any, r: dict[str, Any], w: int) -> None:
    """In a forked child: run `r`, write the result to the pipe `w`, exit."""
    try:
        result: dict[str, Any] = run(ns, probe, r)
    except Exception as e:  # the parent reports it against the run
        result = {"error": f"{type(e).__name__}: {e}"}
    os.write(w, json.dumps(result).encode())
    os.close(w)
    os._exit(0)


def run_forked(ns: Any, probe: Any, r: dict[str, Any]) -> dict[str, Any]:
    """`run` in a child process forked from this one (ns-3 already imported)."""
    t0 = time.perf_counter()
    rd, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        _child(ns, probe, r, w)
    os.close(w)
    chunks = []
    while chunk := os.read(rd, 1 << 16):
        chunks.append(chunk)
    os.close(rd)
    _, status = os.waitpid(pid, 0)
    if not chunks:
        return {"error": f"ns-3 child exited with status {status} and no result"}
    result: dict[str, Any] = json.loads(b"".join(chunks))
    result["wall_s"] = time.perf_counter() - t0
    return result


def main() -> None:
    t0 = time.perf_counter()
    from ns import ns

    probe = _setup_probe(ns)
    # A small run in the parent compiles the bindings every run uses, once; each run then
    # forks from this same state (the warm-up's random streams included), so its result does
    # not depend on which runs came before it.
    run_forked(ns, probe, WARM_UP)
    import_s = time.perf_counter() - t0
    if sys.argv[1:] == ["--worker"]:
        sys.stdout.write("READY " + json.dumps({"import_s": import_s}) + "\n")
        sys.stdout.flush()
        for line in sys.stdin:
            if line.strip():
                result = run_forked(ns, probe, json.loads(line))
                sys.stdout.write("RESULT " + json.dumps(result) + "\n")
                sys.stdout.flush()
        return
    result = run_forked(ns, probe, json.loads(sys.argv[1]))
    result["import_s"] = import_s
    sys.stdout.write("RESULT " + json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
