"""The TULIP chain in ns-3, for `cross_check.py`: fixed host —wire— base station —hop— mobile
host, one bulk TCP transfer, printed as one JSON line.

Runs inside ns-3's own Python (the `ns3` wheel, 3.44, in a virtual environment of its own;
never a dependency of lastmile):

    /work/ns3-venv/bin/python validation/ns3_chain.py --cc TcpVegas --per 0.01 --seed 1

The set-up mirrors the lastmile scenario `cross_check.py` writes: point-to-point links with
drop-tail device queues and no queue disc, segments of 1400 bytes, an initial window of one
segment, an ACK for every segment, no SACK, no timestamps, no limited transmit, classic
(RFC 5681 / RFC 6582) fast recovery rather than ns-3's default PRR, a 1 s minimum RTO. Frames
are lost at random on the hop's receiving side with probability `--per` (RateErrorModel per
packet). It reports the throughput (bytes delivered times 8 over the time from the first SYN to
the last byte), the mean number of packets waiting in the base station's queue onto the hop
(sampled every 10 ms from `--measure-from` until the last byte arrives), and the packets the
source sent.
Left out: ns-3's point-to-point adds a 2-byte PPP header to every frame.
"""

from __future__ import annotations

import argparse
import json
import sys


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cc", default="TcpNewReno", help="ns-3 TcpCongestionOps type name")
    p.add_argument("--per", type=float, default=0.0, help="packet error rate on the hop")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--wired-rate", default="10Mbps")
    p.add_argument("--wired-delay", default="20ms")
    p.add_argument("--hop-rate", default="1Mbps")
    p.add_argument("--queue", type=int, default=100, help="drop-tail queue, packets")
    p.add_argument("--rwnd", type=int, default=65536, help="receive buffer, bytes")
    p.add_argument("--bytes", type=int, default=2_000_000)
    p.add_argument("--sack", action="store_true", help="negotiate SACK")
    p.add_argument("--stop", type=float, default=600.0)
    p.add_argument("--measure-from", type=float, default=5.0)
    p.add_argument(
        "--attr",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an ns-3 attribute default, e.g. ns3::TcpVegas::Alpha=1 (repeatable)",
    )
    args = p.parse_args()

    from ns import ns

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(args.seed)
    tcp = "ns3::TcpSocket::"
    base = "ns3::TcpSocketBase::"
    ns.Config.SetDefault(
        "ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName("ns3::" + args.cc))
    )
    ns.Config.SetDefault(
        "ns3::TcpL4Protocol::RecoveryType",
        ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")),
    )
    ns.Config.SetDefault(tcp + "SegmentSize", ns.UintegerValue(1400))
    ns.Config.SetDefault(tcp + "InitialCwnd", ns.UintegerValue(1))
    ns.Config.SetDefault(tcp + "DelAckCount", ns.UintegerValue(1))
    ns.Config.SetDefault(tcp + "RcvBufSize", ns.UintegerValue(args.rwnd))
    ns.Config.SetDefault(tcp + "SndBufSize", ns.UintegerValue(1 << 26))
    ns.Config.SetDefault(base + "Sack", ns.BooleanValue(args.sack))
    ns.Config.SetDefault(base + "Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault(base + "WindowScaling", ns.BooleanValue(True))
    ns.Config.SetDefault(base + "LimitedTransmit", ns.BooleanValue(False))
    ns.Config.SetDefault(base + "MinRto", ns.TimeValue(ns.Seconds(1)))
    for attr in args.attr:
        name, value = attr.split("=", 1)
        ns.Config.SetDefault(name, ns.StringValue(value))

    nodes = ns.NodeContainer()
    nodes.Create(3)
    p2p = ns.PointToPointHelper()
    queue = ns.StringValue(f"{args.queue}p")
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", queue)
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(args.wired_rate))
    p2p.SetChannelAttribute("Delay", ns.StringValue(args.wired_delay))
    wired = p2p.Install(nodes.Get(0), nodes.Get(1))
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(args.hop_rate))
    p2p.SetChannelAttribute("Delay", ns.StringValue("1us"))
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

    if args.per > 0:
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetAttribute("ErrorRate", ns.DoubleValue(args.per))
        em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
        em.AssignStreams(args.seed * 7 + 3)
        hop.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))

    port = 5000
    sink_addr = ns.InetSocketAddress(hop_ifaces.GetAddress(1), port)
    source = ns.BulkSendHelper("ns3::TcpSocketFactory", sink_addr.ConvertTo())
    source.SetAttribute("MaxBytes", ns.UintegerValue(args.bytes))
    source.SetAttribute("SendSize", ns.UintegerValue(1400))
    source_apps = source.Install(nodes.Get(0))
    source_apps.Start(ns.Seconds(0))
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port)
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr.ConvertTo())
    sink_apps = sink.Install(nodes.Get(2))
    sink_apps.Start(ns.Seconds(0))

    # The base station's device queue onto the hop, sampled every 10 ms.
    dev = hop.Get(0).GetObject[ns.PointToPointNetDevice]()
    dev_queue = dev.GetQueue()
    ns.cppyy.cppdef(
        """
        namespace lastmile_probe {
        std::vector<uint32_t> samples;
        ns3::Ptr<ns3::Queue<ns3::Packet>> queue;
        double from_s = 0;
        uint64_t target_bytes = 0;
        uint64_t rx_bytes = 0;
        void Sample() {
            if (rx_bytes >= target_bytes) {
                return;
            }
            if (ns3::Simulator::Now().GetSeconds() >= from_s) {
                samples.push_back(queue->GetNPackets());
            }
            ns3::Simulator::Schedule(ns3::MilliSeconds(10), &Sample);
        }
        uint64_t last_rx_ns = 0;
        void OnRx(ns3::Ptr<const ns3::Packet> p, const ns3::Address&) {
            rx_bytes += p->GetSize();
            last_rx_ns = ns3::Simulator::Now().GetNanoSeconds();
            if (rx_bytes >= target_bytes) {
                ns3::Simulator::Stop();
            }
        }
        void Start(ns3::Ptr<ns3::Queue<ns3::Packet>> q, double from,
                   ns3::Ptr<ns3::Application> sink, uint64_t target) {
            queue = q;
            from_s = from;
            target_bytes = target;
            ns3::Simulator::Schedule(ns3::MilliSeconds(10), &Sample);
            sink->TraceConnectWithoutContext("Rx", ns3::MakeCallback(&OnRx));
        }
        }
        """
    )
    probe = ns.cppyy.gbl.lastmile_probe
    probe.Start(dev_queue, args.measure_from, sink_apps.Get(0), args.bytes)

    ns.Simulator.Stop(ns.Seconds(args.stop))
    ns.Simulator.Run()
    sent = int(
        wired.Get(0).GetObject[ns.PointToPointNetDevice]().GetQueue().GetTotalReceivedPackets()
    )
    samples = [int(x) for x in probe.samples]
    rx_bytes = int(probe.rx_bytes)
    last_rx_s = int(probe.last_rx_ns) / 1e9
    ns.Simulator.Destroy()
    out = {
        "cc": args.cc,
        "per": args.per,
        "seed": args.seed,
        "bytes_delivered": rx_bytes,
        "completed": rx_bytes >= args.bytes,
        "throughput_bps": rx_bytes * 8 / last_rx_s if last_rx_s > 0 else 0.0,
        "mean_queue_packets": sum(samples) / len(samples) if samples else 0.0,
        "packets_sent": sent,
        "max_queue_packets": max(samples) if samples else 0,
    }
    sys.stdout.write("RESULT " + json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
