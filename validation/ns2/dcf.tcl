# Two IEEE 802.11b stations in ns-2.35 (Mac/802_11), one bulk TCP NewReno transfer from the
# first to the second, uniform frame errors on every frame each station receives; prints one
# line "RESULT {json}".
#
#   ns dcf.tcl <per> <seed> <duration_s> [rts_threshold_bytes]
#
# - Mac/802_11: dataRate_ 11Mb, basicRate_ 1Mb (RTS, CTS and MAC ACKs), long PLCP
#   (PreambleLength_ 144 + PLCPHeaderLength_ 48 bits at 1 Mbps), ShortRetryLimit_ 7,
#   LongRetryLimit_ 4, RTSThreshold_ 3000 bytes (off) unless given; every other MAC and PHY
#   setting ns-2.35's default. The nodes are 100 m apart (0.33 us of propagation), well
#   inside the default 250 m range, so TwoRayGround never corrupts a frame.
# - Errors: an ErrorModel (unit pkt, Uniform on $defaultRNG) per node as its
#   IncomingErrProc, with no drop target: a corrupted frame is marked, still reaches the MAC,
#   and Mac802_11::recv_timer discards it and sets the NAV to EIFS.
# - ARP is resolved before the measurement: one UDP packet at t = 0 on an error-free channel;
#   the errors and the TCP source start at t = 0.05 s and the run ends duration_s later.
# - TCP: Agent/TCP/Newreno, packetSize_ 1460, window_ 20, every other setting ns-2's default
#   (windowInit_ 2, tcpTick_ 10 ms, minrto_ 200 ms, singledup_ 1); TCPSink (an ACK per
#   segment). Interface queue: Queue/DropTail/PriQueue of 100 packets. Routing: DumbAgent.
#
# Reported: goodput ((ack_ + 1) x 1460 B x 8 / duration), the MAC's data-frame transmissions
# ("s ... MAC" lines of tcp and ack packets in the MAC trace, both stations; a packet keeps
# its uid across MAC retries, so the distinct uids are the frames), frames dropped at the
# retry limit ("D ... MAC RET"), and the time of `$ns run` alone.

if {$argc < 3} {
    puts stderr "usage: ns dcf.tcl per seed duration_s \[rts_threshold_bytes\]"
    exit 2
}
set per [lindex $argv 0]
set seed [lindex $argv 1]
set duration [lindex $argv 2]
set rts_threshold [expr {$argc > 3 ? [lindex $argv 3] : 3000}]
set start 0.05

set ns [new Simulator]
$defaultRNG seed $seed
set tracefd [open mac.tr w]
$ns trace-all $tracefd

Mac/802_11 set dataRate_ 11Mb
Mac/802_11 set basicRate_ 1Mb
Mac/802_11 set RTSThreshold_ $rts_threshold
Mac/802_11 set ShortRetryLimit_ 7
Mac/802_11 set LongRetryLimit_ 4

set topo [new Topography]
$topo load_flatgrid 500 500
create-god 2
set chan [new Channel/WirelessChannel]

set error_models {}
proc uniform_errors {} {
    global error_models defaultRNG
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ 0
    set rv [new RandomVariable/Uniform]
    $rv use-rng $defaultRNG
    $em ranvar $rv
    lappend error_models $em
    return $em
}

$ns node-config -adhocRouting DumbAgent \
    -llType LL \
    -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue \
    -ifqLen 100 \
    -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy \
    -channel $chan \
    -topoInstance $topo \
    -agentTrace OFF \
    -routerTrace OFF \
    -macTrace ON \
    -movementTrace OFF \
    -IncomingErrProc uniform_errors

set n0 [$ns node]
set n1 [$ns node]
$n0 random-motion 0
$n1 random-motion 0
$n0 set X_ 100.0
$n0 set Y_ 100.0
$n0 set Z_ 0.0
$n1 set X_ 200.0
$n1 set Y_ 100.0
$n1 set Z_ 0.0

# ARP before the measurement.
set udp [new Agent/UDP]
set null [new Agent/Null]
$ns attach-agent $n0 $udp
$ns attach-agent $n1 $null
$ns connect $udp $null
$ns at 0.0 "$udp send 100"

set tcp [new Agent/TCP/Newreno]
$tcp set packetSize_ 1460
$tcp set window_ 20
set sink [new Agent/TCPSink]
$ns attach-agent $n0 $tcp
$ns attach-agent $n1 $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

proc errors_on {} {
    global error_models per
    foreach em $error_models { $em set rate_ $per }
}

proc finish {} {
    global ns tcp per seed duration engine_start tracefd
    set engine_s [expr {([clock clicks -milliseconds] - $engine_start) / 1000.0}]
    $ns flush-trace
    close $tracefd
    set attempts 0
    set drops 0
    array set frames {}
    set f [open mac.tr]
    while {[gets $f line] >= 0} {
        set fields [split [regsub -all { +} $line " "] " "]
        if {[lindex $fields 3] != "MAC"} { continue }
        set kind [lindex $fields 0]
        set type [lindex $fields 6]
        if {$kind == "s" && ($type == "tcp" || $type == "ack")} {
            incr attempts
            set frames([lindex $fields 5]) 1
        }
        if {$kind == "D" && [lindex $fields 4] == "RET"} { incr drops }
    }
    close $f
    set nframes [array size frames]
    set acked [expr {[$tcp set ack_] + 1}]
    puts [format "RESULT {\"per\": %s, \"seed\": %d, \"throughput_kbps\": %.6f,\
\"mac_attempts\": %d, \"frames\": %d, \"attempts_per_frame\": %.6f, \"retry_drops\": %d,\
\"timeouts\": %d, \"retransmissions\": %d, \"engine_s\": %.4f}" \
        $per $seed [expr {$acked * 1460 * 8.0 / $duration / 1000.0}] $attempts $nframes \
        [expr {$nframes ? double($attempts) / $nframes : 0.0}] $drops \
        [$tcp set nrexmit_] [$tcp set nrexmitpack_] $engine_s]
    exit 0
}

$ns at $start "errors_on"
$ns at $start "$ftp start"
$ns at [expr {$start + $duration}] "finish"
set engine_start [clock clicks -milliseconds]
$ns run
