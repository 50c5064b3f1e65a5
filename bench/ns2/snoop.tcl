# ns-2.35 twin of the Snoop chain of bench/vs_ns2.py (`lastmile run --example tulip-basic
# --set base_station.agent=snoop` with ns-2's default Agent/TCP settings: TULIP's Fig. 8
# chain with Snoop, Table 1's "Snoop" row at BER 15 per million). fh -10 Mb, 1 ms- bs; bs
# and mh share a 1 Mb LAN whose base-station side runs Snoop (LL/LLSnoop, ns-2's Snoop
# lives in the link layer of a LAN); packet errors (BER 15e-6 on a 1440-byte packet) on
# what mh receives. TCP Reno, 1400-byte segments, window 30 (42 KB), 500 ms timer tick, an
# ACK per segment, until 10 MB are acknowledged. Queues of 100 packets. Prints the line
# bench/ns2/chain.tcl prints.
#
# What ns-2 cannot match: its LAN MAC is half-duplex (Mac/802_3, CSMA/CD, as in ns-2's own
# Snoop test suite) where lastmile's chain hop is a full-duplex point-to-point link. The
# two do not keep the same schedule: with no errors at all the transfer takes ns-2 133 s of
# simulated time and lastmile 82 s (data and ACKs contend for ns-2's LAN); with the errors,
# 322 s (6 timeouts at the source) against 98 s (at 13706e4; 130 s at e578496, the
# build of docs/performance.md's first table). The speed comparison counts the same
# transfer, not the same schedule.
#
#     ns bench/ns2/snoop.tcl

set ns [new Simulator]
ns-random 1
Queue/DropTail set limit_ 100

set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
$ns duplex-link $fh $bs 10Mb 1ms DropTail
set lan [$ns make-lan [list $mh] 1Mb 1us LL Queue/DropTail Mac/802_3]
$lan addNode [list $bs] 1Mb 1us LL/LLSnoop Queue/DropTail Mac/802_3

# Packet errors on what mh's link layer passes up: PER 0.1587, BER 15e-6 over a 1440-byte
# packet (ns-2's bit-unit model is a table for two packet sizes, not a per-bit draw).
set errors [new ErrorModel]
$errors unit pkt
$errors set rate_ 0.1587
$errors ranvar [new RandomVariable/Uniform]
$errors drop-target [new Agent/Null]
set nif [$lan set lanIface_($mh)]
$errors target [$nif set iface_]
[$nif set ll_] up-target $errors

set tcp [new Agent/TCP/Reno]
$tcp set packetSize_ 1400
$tcp set window_ 30
$tcp set tcpTick_ 0.5
set sink [new Agent/TCPSink]
$ns attach-agent $fh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

# Ends the run once the 10 MB (7143 segments) are acknowledged, looking every simulated second.
proc finish_when_done {} {
    global ns tcp
    if {[$tcp set ack_] + 1 >= 7143} {
        puts "delivered_bytes [expr {([$tcp set ack_] + 1) * 1400}] segments_sent\
              [$tcp set ndatapack_] retransmitted [$tcp set nrexmitpack_] timeouts\
              [$tcp set nrexmit_] sim_time_s [$ns now]"
        exit 0
    }
    $ns at [expr {[$ns now] + 1.0}] "finish_when_done"
}
$ns at 0.0 "$ftp send 10000000"
$ns at 1.0 "finish_when_done"
$ns run
