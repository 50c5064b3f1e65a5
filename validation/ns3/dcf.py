"""Two IEEE 802.11b stations in ns-3.44, one bulk TCP transfer between them, frame errors on
every frame each station receives; prints one line "RESULT {json}".

Runs inside ns-3's own Python (the `ns3` wheel in a virtual environment of its own, never a
dependency of lastmile), for the `dcf_ns3` and `lle_80211b_ns3` families:

    /work/ns3-venv/bin/python validation/ns3/dcf.py --per 0.3 --seed 1

The set-up (each line matches a lastmile setting of `validation/families/dcf_ns3.py`):
- ad hoc MAC (non-QoS DCF), DSSS/HR-DSSS PHY: data at `--rate` (DsssRate11Mbps), control
  responses at 1 Mbps — the basic rate set is cut to DsssRate1Mbps after the stations
  meet, since `AdhocWifiMac` puts every mandatory rate (1, 2, 5.5 and 11 Mbps) into it and
  would send the MAC ACK of an 11 Mbps frame at 11 Mbps; long PLCP preamble; RTS/CTS for
  frames above `--rts-threshold` bytes (65535: never, 0: always);
  `WifiMac::FrameRetryLimit` 7 (dot11ShortRetryLimit; 3.44 has one retry limit for every
  frame, so lastmile's long limit of 4 has no counterpart when RTS/CTS is on);
- the two nodes `--distance` metres apart (1 µs of propagation at 300 m) with a fixed
  received power of -50 dBm, so the PHY itself never corrupts a frame;
- `RateErrorModel` per packet as each PHY's `PostReceptionErrorModel`: every frame a
  station receives (data, TCP ACKs in data frames, MAC ACKs) is lost with probability
  `--per`, after it occupied the medium, and the MAC sees a reception error (EIFS);
- a MAC queue of `--queue` packets with no lifetime limit (`WifiMacQueue::MaxDelay` is 500 ms
  by default), no traffic-control queue disc, ARP entries filled in beforehand (an ARP
  request is a broadcast with no retries);
- TCP NewReno (`TcpNewReno` + `TcpClassicRecovery`), `--mss`-byte segments, a receive
  buffer of `--window` segments, initial window 1, an ACK for every `--delack-count`
  segments (2: RFC 1122 delayed ACKs with the 200 ms timer), no SACK, no
  timestamps, no window scaling, no limited transmit, minimum RTO 1 s; bulk data from
  node 0 to node 1 for `--duration` seconds.

Reported: the TCP throughput (bytes delivered to the sink x 8 / duration), MAC data-frame
transmissions of both stations, frames finished (acknowledged or dropped), frames dropped at
the retry limit, the highest rate a MAC ACK went at (a check of the basic-rate set-up),
and the wall time of `Simulator::Run` alone (`engine_s`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--per", type=float, default=0.0, help="frame error rate at each receiver")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--duration", type=float, default=60.0, help="seconds")
    p.add_argument("--rate", default="DsssRate11Mbps", help="data rate (an ns-3 WifiMode)")
    p.add_argument("--mss", type=int, default=1460, help="TCP segment payload, bytes")
    p.add_argument("--window", type=int, default=20, help="receive buffer, segments")
    p.add_argument("--queue", type=int, default=100, help="MAC queue, packets")
    p.add_argument("--distance", type=float, default=300.0, help="metres")
    p.add_argument("--retry-limit", type=int, default=7)
    p.add_argument(
        "--rts-threshold", type=int, default=65535, help="frames above it use RTS/CTS (0: all)"
    )
    p.add_argument(
        "--queue-max-delay",
        type=float,
        default=100000.0,
        help="WifiMacQueue lifetime, s (ns-3's default is 0.5)",
    )
    p.add_argument("--delack-count", type=int, default=1, help="segments per TCP ACK (2: delayed)")
    args = p.parse_args()

    from ns import ns

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(args.seed)

    tcp = "ns3::TcpSocket::"
    base = "ns3::TcpSocketBase::"
    ns.Config.SetDefault(
        "ns3::TcpL4Protocol::SocketType",
        ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpNewReno")),
    )
    ns.Config.SetDefault(
        "ns3::TcpL4Protocol::RecoveryType",
        ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")),
    )
    ns.Config.SetDefault(tcp + "SegmentSize", ns.UintegerValue(args.mss))
    ns.Config.SetDefault(tcp + "InitialCwnd", ns.UintegerValue(1))
    ns.Config.SetDefault(tcp + "DelAckCount", ns.UintegerValue(args.delack_count))
    ns.Config.SetDefault(tcp + "RcvBufSize", ns.UintegerValue(args.window * args.mss))
    ns.Config.SetDefault(tcp + "SndBufSize", ns.UintegerValue(1 << 26))
    ns.Config.SetDefault(base + "Sack", ns.BooleanValue(False))
    ns.Config.SetDefault(base + "Timestamp", ns.BooleanValue(False))
    ns.Config.SetDefault(base + "WindowScaling", ns.BooleanValue(False))
    ns.Config.SetDefault(base + "LimitedTransmit", ns.BooleanValue(False))
    ns.Config.SetDefault(base + "MinRto", ns.TimeValue(ns.Seconds(1)))
    ns.Config.SetDefault("ns3::WifiMac::FrameRetryLimit", ns.UintegerValue(args.retry_limit))
    ns.Config.SetDefault(
        "ns3::WifiRemoteStationManager::RtsCtsThreshold", ns.UintegerValue(args.rts_threshold)
    )
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.StringValue(f"{args.queue}p"))
    ns.Config.SetDefault(
        "ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(args.queue_max_delay))
    )

    nodes = ns.NodeContainer()
    nodes.Create(2)
    wifi = ns.WifiHelper()
    wifi.SetStandard(ns.WIFI_STANDARD_80211b)
    wifi.SetRemoteStationManager(
        "ns3::ConstantRateWifiManager",
        "DataMode",
        ns.StringValue(args.rate),
        "ControlMode",
        ns.StringValue("DsssRate1Mbps"),
    )
    channel = ns.YansWifiChannelHelper()
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
    channel.AddPropagationLoss("ns3::FixedRssLossModel", "Rss", ns.DoubleValue(-50.0))
    phy = ns.YansWifiPhyHelper()
    phy.SetChannel(channel.Create())
    mac = ns.WifiMacHelper()
    mac.SetType("ns3::AdhocWifiMac")
    devices = wifi.Install(phy, mac, nodes)

    mobility = ns.MobilityHelper()
    positions = ns.CreateObject[ns.ListPositionAllocator]()
    positions.Add(ns.Vector(0.0, 0.0, 0.0))
    positions.Add(ns.Vector(args.distance, 0.0, 0.0))
    mobility.SetPositionAllocator(positions)
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
    mobility.Install(nodes)

    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    ifaces = addresses.Assign(devices)
    ns.TrafficControlHelper().Uninstall(devices)
    ns.NeighborCacheHelper().PopulateNeighborCache()

    ns.cppyy.cppdef(
        """
        namespace lastmile_dcf {
        uint64_t rx_bytes = 0;
        uint64_t data_tx = 0;
        uint64_t acked = 0;
        uint64_t retry_drops = 0;
        uint64_t other_drops = 0;
        uint64_t ack_tx = 0;
        uint64_t ack_rate_max = 0;
        void OnRx(ns3::Ptr<const ns3::Packet> p, const ns3::Address&) { rx_bytes += p->GetSize(); }
        void OnPhyTx(ns3::Ptr<const ns3::WifiPsdu> psdu, ns3::WifiTxVector v, double) {
            if (psdu->GetHeader(0).IsData()) { data_tx += 1; }
            if (psdu->GetHeader(0).IsAck()) {
                ack_tx += 1;
                ack_rate_max = std::max<uint64_t>(ack_rate_max, v.GetMode().GetDataRate(v));
            }
        }
        void OnPhyTxMap(ns3::WifiConstPsduMap psdus, ns3::WifiTxVector v, double w) {
            for (auto& kv : psdus) { OnPhyTx(kv.second, v, w); }
        }
        void OnAcked(ns3::Ptr<const ns3::WifiMpdu> mpdu) {
            if (mpdu->GetHeader().IsData()) { acked += 1; }
        }
        void OnDropped(ns3::WifiMacDropReason reason, ns3::Ptr<const ns3::WifiMpdu> mpdu) {
            if (reason == ns3::WIFI_MAC_DROP_REACHED_RETRY_LIMIT) { retry_drops += 1; }
            else { other_drops += 1; }
        }
        // The MAC ACK at the basic rate: keep only DsssRate1Mbps in the BSS basic rate set
        // once the ad hoc MAC has filled it (it adds every mandatory DSSS/HR-DSSS rate).
        void BasicRateOnly(ns3::Ptr<ns3::WifiNetDevice> dev, ns3::Mac48Address peer) {
            auto m = dev->GetRemoteStationManager();
            m->AddAllSupportedModes(peer);
            m->RecordDisassociated(peer);
            std::vector<ns3::WifiMode> keep;
            keep.push_back(ns3::WifiMode("DsssRate1Mbps"));
            // Rebuild the basic set: Reset() forgets the stations, so add the peer back as
            // known (not brand new) with every supported mode, but only 1 Mbps as basic.
            m->Reset();
            for (auto& mode : keep) { m->AddBasicMode(mode); }
            for (const auto& mode : dev->GetPhy()->GetModeList()) {
                m->AddSupportedMode(peer, mode);
            }
            m->RecordDisassociated(peer);
        }
        void Hook(ns3::Ptr<ns3::WifiNetDevice> dev) {
            auto phy = dev->GetPhy();
            auto mac = dev->GetMac();
            phy->TraceConnectWithoutContext("PhyTxPsduBegin", ns3::MakeCallback(&OnPhyTxMap));
            mac->TraceConnectWithoutContext("AckedMpdu", ns3::MakeCallback(&OnAcked));
            mac->TraceConnectWithoutContext("DroppedMpdu", ns3::MakeCallback(&OnDropped));
        }
        void HookSink(ns3::Ptr<ns3::Application> sink) {
            sink->TraceConnectWithoutContext("Rx", ns3::MakeCallback(&OnRx));
        }
        }
        """
    )
    probe = ns.cppyy.gbl.lastmile_dcf
    dev0 = devices.Get(0).GetObject[ns.WifiNetDevice]()
    dev1 = devices.Get(1).GetObject[ns.WifiNetDevice]()
    probe.BasicRateOnly(dev0, ns.Mac48Address.ConvertFrom(dev1.GetAddress()))
    probe.BasicRateOnly(dev1, ns.Mac48Address.ConvertFrom(dev0.GetAddress()))
    probe.Hook(dev0)
    probe.Hook(dev1)

    for i in range(2):
        em = ns.CreateObject[ns.RateErrorModel]()
        em.SetAttribute("ErrorRate", ns.DoubleValue(args.per))
        em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
        em.AssignStreams(1000 + 10 * args.seed + i)
        devices.Get(i).GetObject[ns.WifiNetDevice]().GetPhy().SetPostReceptionErrorModel(em)

    port = 5000
    sink_addr = ns.InetSocketAddress(ifaces.GetAddress(1), port)
    source = ns.BulkSendHelper("ns3::TcpSocketFactory", sink_addr.ConvertTo())
    source.SetAttribute("MaxBytes", ns.UintegerValue(0))
    source.SetAttribute("SendSize", ns.UintegerValue(args.mss))
    source.Install(nodes.Get(0)).Start(ns.Seconds(0))
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port)
    sinks = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr.ConvertTo()).Install(nodes.Get(1))
    sinks.Start(ns.Seconds(0))
    probe.HookSink(sinks.Get(0))

    ns.Simulator.Stop(ns.Seconds(args.duration))
    start = time.perf_counter()
    ns.Simulator.Run()
    engine_s = time.perf_counter() - start
    finished = int(probe.acked) + int(probe.retry_drops)
    out = {
        "per": args.per,
        "seed": args.seed,
        "throughput_kbps": int(probe.rx_bytes) * 8 / args.duration / 1000,
        "mac_attempts": int(probe.data_tx),
        "frames_finished": finished,
        "attempts_per_frame": int(probe.data_tx) / finished if finished else 0.0,
        "retry_drops": int(probe.retry_drops),
        "other_drops": int(probe.other_drops),
        "mac_acks": int(probe.ack_tx),
        "mac_ack_rate_bps": int(probe.ack_rate_max),
        "engine_s": engine_s,
    }
    ns.Simulator.Destroy()
    sys.stdout.write("RESULT " + json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
