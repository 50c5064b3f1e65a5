# ns-2.35 twin of bench/scenarios/wifi.toml, for bench/vs_ns2.py: two stations n1 -> n2 in
# one 802.11 DCF cell (Mac/802_11 at 11 Mb data, 1 Mb basic rate, no RTS/CTS), TCP Reno
# with ns-2's default Agent/TCP settings (which the lastmile file sets), 1460-byte
# segments, window 20, an ACK per segment (TCPSink), FTP for 300 s. DumbAgent routing
# (one hop, no routing traffic), DropTail interface queues of 50 packets, no trace
# written: the run is timed. Prints the line bench/ns2/chain.tcl prints.
#
# What cannot match: ns-2's error model sits on n2's receiving side only, so it loses 10 %
# of the TCP data frames and of the MAC ACKs that answer n2's TCP-ACK frames (each such
# loss costs n2 a retransmission, as a lost TCP-ACK frame does in lastmile, whose model
# loses 10 % of the data frames of both stations); a frame it loses never reaches n2's MAC
# (no EIFS). ns-2 resolves n2's address by ARP before the first segment: with this seed
# the first ARP request is lost, and the connection waits for the 3 s initial RTO (1 % of
# the run).
#
#     ns bench/ns2/wifi.tcl

set ns [new Simulator]
ns-random 1
# A wireless node needs a trace object to exist; with every trace kind OFF below, nothing
# is written to it.
set tracefd [open /dev/null w]
$ns trace-all $tracefd

Mac/802_11 set dataRate_ 11Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ 3000

set topo [new Topography]
$topo load_flatgrid 100 100
create-god 2
set chan [new Channel/WirelessChannel]

proc data_errors {} {
    set err [new ErrorModel]
    $err unit pkt
    $err set rate_ 0.1
    $err ranvar [new RandomVariable/Uniform]
    $err drop-target [new Agent/Null]
    return $err
}

$ns node-config -adhocRouting DumbAgent -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan \
    -topoInstance $topo -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
set n1 [$ns node]
$ns node-config -IncomingErrProc data_errors
set n2 [$ns node]
$n1 set X_ 10.0
$n1 set Y_ 10.0
$n1 set Z_ 0.0
$n2 set X_ 20.0
$n2 set Y_ 10.0
$n2 set Z_ 0.0

set tcp [new Agent/TCP/Reno]
$tcp set packetSize_ 1460
$tcp set window_ 20
set sink [new Agent/TCPSink]
$ns attach-agent $n1 $tcp
$ns attach-agent $n2 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

proc finish {} {
    global ns tcp
    puts "delivered_bytes [expr {([$tcp set ack_] + 1) * 1460}] segments_sent [$tcp set ndatapack_]\
          retransmitted [$tcp set nrexmitpack_] timeouts [$tcp set nrexmit_] sim_time_s [$ns now]"
    exit 0
}
$ns at 0.0 "$ftp start"
$ns at 300.0 "finish"
$ns run
