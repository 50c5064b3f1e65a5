# What a TCP ACK costs on one IEEE 802.11b hop in ns-2.35: the LLE-TCP single-hop scenario
# (Kliazovich, Granelli and Gerla, seed 004, §4.1 and §4.3, Table 3, Fig. 5).
#
#   ns lle_ack_cost.tcl <agent> <datagram bytes> <rts: off|data|all> <seed> [stop s] [rate]
#
# <agent>: "every" (TCP Reno, Agent/TCPSink: an ACK per segment), "delayed" (TCP Reno,
# Agent/TCPSink/DelAck), or "udp" (a saturating CBR source over UDP: the same data frames
# with no TCP ACK on the air, the ceiling LLE-TCP approaches when its ARQ agent generates
# every ACK at the sender). Two stations 10 m apart (Table 3's 22.5 m range), two-ray
# ground, 11 Mbps data, 1 Mbps basic rate and PLCP, 144 + 48 us long preamble, slot 20 us,
# SIFS 10 us (DIFS 50 us), retry limits 7 / 4; RTS/CTS before every frame ("all",
# ns-2's default RTSThreshold_ 0), before data frames only ("data", 200 B) or never
# ("off", 3000 B). Every other
# parameter is ns-2's default, as the paper keeps them: TCP window_ 20 packets,
# packetSize_ = datagram - 40, DelAck interval 100 ms, a 50-packet interface queue.
# Prints one line: "payload_bps <steady-state payload throughput from 2 s to the end>".

if {$argc < 4} {
    puts stderr "usage: ns lle_ack_cost.tcl every|delayed|udp <datagram> off|data|all <seed> \[stop\]"
    exit 2
}
set agent [lindex $argv 0]
set datagram [lindex $argv 1]
set rts [lindex $argv 2]
set seed [lindex $argv 3]
set stop [expr {$argc > 4 ? [lindex $argv 4] : 100.0}]
# The data rate in Mbps (Table 3: 11; LLE-TCP Table 1 also lists 802.11's 1 and 2).
set rate [expr {$argc > 5 ? [lindex $argv 5] : 11}]
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
# RTS/CTS before frames of at least RTSThreshold_ bytes (ns-2 compares the frame's size as
# it reaches the MAC): every frame, data frames only (a TCP ACK frame is ~100 B, a data
# frame of a 296 B datagram ~350 B), or none.
array set rts_threshold {all 0 data 200 off 3000}
Mac/802_11 set RTSThreshold_ $rts_threshold($rts)
Phy/WirelessPhy set freq_ 2.472e9
Phy/WirelessPhy set Pt_ 0.0316
Phy/WirelessPhy set RXThresh_ 5.82e-9
Phy/WirelessPhy set CSThresh_ 5.82e-10

set ns [new Simulator]
set tracefd [open /dev/null w]
$ns trace-all $tracefd
set topo [new Topography]
$topo load_flatgrid 100 100
create-god 2
$ns node-config -adhocRouting DumbAgent -llType LL -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue -ifqLen 50 -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -channel [new Channel/WirelessChannel] -topoInstance $topo \
    -agentTrace OFF -routerTrace OFF -macTrace OFF -movementTrace OFF
set n0 [$ns node]
set n1 [$ns node]
foreach {node x} [list $n0 10.0 $n1 20.0] {
    $node set X_ $x
    $node set Y_ 50.0
    $node set Z_ 0.0
    $node random-motion 0
}

set payload [expr {$datagram - 40}]
if {$agent == "udp"} {
    # UDP/IP headers are 28 B: the same datagram size on the air as a TCP segment.
    set src [new Agent/UDP]
    # The agent cuts a message into packets of its own packetSize_ (1000 B by default).
    $src set packetSize_ [expr {$datagram - 28}]
    set sink [new Agent/LossMonitor]
    $ns attach-agent $n0 $src
    $ns attach-agent $n1 $sink
    $ns connect $src $sink
    set cbr [new Application/Traffic/CBR]
    $cbr set packetSize_ [expr {$datagram - 28}]
    # Twice the channel's rate: the interface queue is always full, the MAC never idle.
    $cbr set rate_ [expr {2 * $rate}]Mb
    $cbr attach-agent $src
    $ns at 0.5 "$cbr start"
    proc bytes {} { global sink; return [$sink set bytes_] }
    set scale [expr {double($payload) / ($datagram - 28)}]
} else {
    set src [new Agent/TCP/Reno]
    $src set packetSize_ $payload
    set sink [new Agent/TCPSink[expr {$agent == "delayed" ? "/DelAck" : ""}]]
    $ns attach-agent $n0 $src
    $ns attach-agent $n1 $sink
    $ns connect $src $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $src
    $ns at 0.5 "$ftp start"
    # The highest cumulative ACK, in segments of `payload` bytes.
    proc bytes {} { global src payload; return [expr {double([$src set ack_]) * $payload}] }
    set scale 1.0
}

set at_warmup 0.0
$ns at $warmup {set at_warmup [bytes]}
$ns at $stop {
    set b [expr {([bytes] - $at_warmup) * $scale}]
    puts [format "payload_bps %.1f" [expr {8.0 * $b / ($stop - $warmup)}]]
    exit 0
}
$ns run
