# ns-2.35 twin of bench/scenarios/chain.toml, for bench/vs_ns2.py: fh -10 Mb, 10 ms- bs
# -2 Mb, 10 ms, 2 % of packets lost- mh; TCP NewReno with ns-2's default Agent/TCP
# settings (which the lastmile file sets), 1000-byte segments (packetSize_, to which ns-2
# adds 40 bytes of headers, as lastmile's MSS), window 100, an ACK per segment (TCPSink),
# FTP for 1000 s; DropTail queues of 50 packets. No trace: the run is timed.
#
# Prints one line: delivered bytes (the sink's highest in-order segment times the segment
# size), data segments sent, retransmitted, the timeouts and the simulated time, to check
# that both simulators did the same work. The random streams differ, so the counts agree
# to within the loss process's spread, not exactly.
#
#     ns bench/ns2/chain.tcl

set ns [new Simulator]
ns-random 1

set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
$ns duplex-link $fh $bs 10Mb 10ms DropTail
$ns duplex-link $bs $mh 2Mb 10ms DropTail
$ns queue-limit $fh $bs 50
$ns queue-limit $bs $fh 50
$ns queue-limit $bs $mh 50
$ns queue-limit $mh $bs 50

# Packet errors on the data direction of the wireless hop.
set loss [new ErrorModel]
$loss unit pkt
$loss set rate_ 0.02
$loss ranvar [new RandomVariable/Uniform]
$loss drop-target [new Agent/Null]
$ns lossmodel $loss $bs $mh

set tcp [new Agent/TCP/Newreno]
$tcp set packetSize_ 1000
$tcp set window_ 100
set sink [new Agent/TCPSink]
$ns attach-agent $fh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

proc finish {} {
    global ns tcp
    puts "delivered_bytes [expr {([$tcp set ack_] + 1) * 1000}] segments_sent [$tcp set ndatapack_]\
          retransmitted [$tcp set nrexmitpack_] timeouts [$tcp set nrexmit_] sim_time_s [$ns now]"
    exit 0
}
$ns at 0.0 "$ftp start"
$ns at 1000.0 "finish"
$ns run
