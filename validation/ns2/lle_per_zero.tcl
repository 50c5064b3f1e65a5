# Where TCP Reno's throughput "reaches zero" under a uniform packet error rate on one
# IEEE 802.11b hop in ns-2.35, the paper's own simulator (LLE-TCP, Kliazovich, Granelli and
# Gerla, seed 004, §4.4, Fig. 9): the settings of lle_ack_cost.tcl (Table 3, two stations
# 10 m apart, 11 Mbps, RTS/CTS before every frame as ns-2's RTSThreshold_ 0), TCP Reno with
# an ACK per segment, 1000 B datagrams, and
#   - every frame received by either station (RTS, CTS, data, MAC ACK, both directions)
#     lost with probability <per> (an ErrorModel as the nodes' IncomingErrProc, between
#     the PHY and the MAC);
#   - the interface queue 700 packets, as the LLE-TCP access point's FIFO;
#   - TCP's window_ <window> packets, set before the agent is made: ns-2's agent takes its
#     initial ssthresh_ from window_ when it is created (TcpAgent::reset), so 20 is ns-2's
#     default and 1000 a window that never binds, with slow start up to it.
#
#   ns lle_per_zero.tcl <per> <window> <seed> [stop s]
#
# Prints "payload_bps <payload throughput from 2 s to the end>" and "tcp <timeouts>
# <retransmitted packets>".

if {$argc < 3} {
    puts stderr "usage: ns lle_per_zero.tcl <per> <window> <seed> \[stop\]"
    exit 2
}
set per [lindex $argv 0]
set window [lindex $argv 1]
set seed [lindex $argv 2]
set stop [expr {$argc > 3 ? [lindex $argv 3] : 20.0}]
set datagram 1000
set rate 11
set warmup 2.0

ns-random $seed
global defaultRNG
$defaultRNG seed $seed

# Table 3 and the 22.5 m range of §4.1.
Mac/802_11 set SlotTime_ 0.000020
Mac/802_11 set SIFS_ 0.000010
Mac/802_11 set PreambleLength_ 144
Mac/802_11 set PLCPHeaderLength_ 48
Mac/802_11 set PLCPDataRate_ 1.0e6
Mac/802_11 set dataRate_ [expr {$rate * 1.0e6}]
Mac/802_11 set basicRate_ 1.0e6
# RTS/CTS before every frame (ns-2's default).
Mac/802_11 set RTSThreshold_ 0
Phy/WirelessPhy set freq_ 2.472e9
Phy/WirelessPhy set Pt_ 0.0316
Phy/WirelessPhy set RXThresh_ 5.82e-9
Phy/WirelessPhy set CSThresh_ 5.82e-10

Agent/TCP set window_ $window
set ns [new Simulator]
set tracefd [open /dev/null w]
$ns trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid 100 100
create-god 2
# Every frame a node receives is lost with probability `per`.
proc uniform_err {} {
    global per defaultRNG
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $per
    set rv [new RandomVariable/Uniform]
    $rv use-rng $defaultRNG
    $em ranvar $rv
    $em drop-target [new Agent/Null]
    return $em
}
$ns node-config -adhocRouting DumbAgent -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 700 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -channel [new Channel/WirelessChannel] -topoInstance $topo \
    -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF \
    -IncomingErrProc [expr {$per > 0 ? "uniform_err" : ""}]
set n0 [$ns node]
set n1 [$ns node]
foreach {node x} [list $n0 10.0 $n1 20.0] {
    $node set X_ $x
    $node set Y_ 50.0
    $node set Z_ 0.0
    $node random-motion 0
}

set payload [expr {$datagram - 40}]
set src [new Agent/TCP/Reno]
$src set packetSize_ $payload
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $src
$ns attach-agent $n1 $sink
$ns connect $src $sink
set ftp [new Application/FTP]
$ftp attach-agent $src
$ns at 0.5 "$ftp start"
# The highest cumulative ACK, in segments of `payload` bytes.
proc bytes {} { global src payload; return [expr {double([$src set ack_]) * $payload}] }

set at_warmup 0.0
$ns at $warmup {set at_warmup [bytes]}
$ns at $stop {
    set b [expr {[bytes] - $at_warmup}]
    puts [format "payload_bps %.1f" [expr {8.0 * $b / ($stop - $warmup)}]]
    puts "tcp [$src set nrexmit_] [$src set nrexmitpack_]"
    exit 0
}
$ns run
