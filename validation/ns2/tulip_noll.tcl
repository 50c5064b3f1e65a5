# TULIP Experiment 1's TCP alone ("no LL", Parsa and Garcia-Luna-Aceves, seed 000, §5.1,
# Table 1) in ns-2.35: a fixed host -10 Mbps, 1 ms- base station -1 Mbps hop- mobile host,
# TCP Reno with 1400 B segments, a 30-segment (42 KB) window, one segment initially, an ACK
# per segment, the paper's 500 ms timer granularity (tcpTick_ 0.5; ns-2's RTO is at least two
# ticks), independent bit errors on both directions of the radio hop: a 1440 B data packet
# lost with probability 1 - (1 - BER)^11520, a 40 B ACK with 1 - (1 - BER)^320. The radio
# hop is a point-to-point link, not FAMA-NCS: what is compared is TCP's recovery and timers.
#
#   ns tulip_noll.tcl <ber> <seed> [bytes]
#
# Prints "done <s> <timeouts> <retransmitted packets>" when the file (10 MB by default) is
# acknowledged, or "end ..." at 20,000 s.

set ber [lindex $argv 0]
set seed [lindex $argv 1]
set bytes [expr {$argc > 2 ? [lindex $argv 2] : 10000000}]
set ns [new Simulator]
$defaultRNG seed $seed
set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
$ns duplex-link $fh $bs 10Mb 1ms DropTail
$ns duplex-link $bs $mh 1Mb 0.001ms DropTail
$ns queue-limit $fh $bs 100
$ns queue-limit $bs $mh 100
$ns queue-limit $mh $bs 100
set per_data [expr {1.0 - pow(1.0 - $ber, 1440 * 8)}]
set per_ack [expr {1.0 - pow(1.0 - $ber, 40 * 8)}]
foreach {a b rate} [list $bs $mh $per_data $mh $bs $per_ack] {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $rate
    set rv [new RandomVariable/Uniform]
    $rv use-rng $defaultRNG
    $em ranvar $rv
    $em drop-target [new Agent/Null]
    $ns link-lossmodel $em $a $b
}
Agent/TCP set window_ 30
set tcp [new Agent/TCP/Reno]
set sink [new Agent/TCPSink]
$tcp set packetSize_ 1400
$tcp set tcpTick_ 0.5
$tcp set windowInit_ 1
$ns attach-agent $fh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
set segments [expr {int(ceil($bytes / 1400.0))}]
proc check {} {
    global ns tcp segments
    if {[$tcp set ack_] + 1 >= $segments} {
        puts [format "done %.3f %d %d" [$ns now] [$tcp set nrexmit_] [$tcp set nrexmitpack_]]
        exit 0
    }
    $ns at [expr {[$ns now] + 0.01}] "check"
}
$ns at 0.0 "$ftp start"
$ns at 0.01 "check"
$ns at 20000.0 {
    puts [format "end %.3f %d %d" [$ns now] [$tcp set nrexmit_] [$tcp set nrexmitpack_]]
    exit 0
}
$ns run
