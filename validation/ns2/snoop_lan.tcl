# The Snoop family in ns-2.35: fixed host -- base station -- mobile host, the base station's
# hop to the mobile a two-node LAN whose base-station interface runs `LL/LLSnoop` (ns-2's
# Snoop, tcp/snoop.cc) and whose MAC is the plain, contention-free `Mac` (a 64-byte MAC
# header per frame, no collisions); one bulk one-way TCP agent; uniform per-packet losses
# on the frames the mobile receives. Prints one line "RESULT {json}".
#
#   ns snoop_lan.tcl <agent> <window> <per> <seed> <duration_s> <lan_delay_s> <ll> [trace_file]
#
# <ll>: LL/LLSnoop (Snoop on the base station) or LL (none: the same path without it).
# <agent>: Tahoe | Reno | Newreno. Every other TCP setting is ns-2.35's default
# (tcl/lib/ns-default.tcl), as in chain.tcl; Snoop's are ns-ll.tcl's (snoopTick_ 0.1 s,
# srtt_ 0.1 s, rttvar_ 0.25 s, g_ 0.125, maxbufs_ 0 = 100 packets).
#
# Two traps of ns-2.35's LANs (validation-notes.md):
# * `LanIface add-receive-filter` fails (the base `Mac` has no `target`), so the error model
#   is spliced by hand between the mobile's MAC and its LL (`up-target`). It sees every
#   frame the mobile receives (data from the base station; the mobile's own ACKs go the
#   other way) after its transmission and propagation, so a lost frame costs its airtime;
#   the plain LL then drops a frame marked in error (mac/ll.cc `LL::sendUp`).
# * `make-lan`'s delay is applied by each LL, on the way down and on the way up (the
#   channel's own delay is ~4 µs), and the base `Mac` hands a frame to the receiver with its
#   first bit: the one-way latency is 2·<lan_delay_s>, the serialisation only holds the
#   sender's queue. Snoop, in the base station's LL, sees a data packet before its LL delay
#   and an ACK before it (measured: 40.872 ms path rtt, Snoop's sample 15 ms + queueing with
#   <lan_delay_s> 5 ms and the 10 ms wire).
#
# <per>: a packet error rate, or "list:<c1>,<c2>,..." to lose exactly those frames (0-based
# counts of the frames the mobile receives, the SYN being frame 0; ErrorModel/List), to set a
# run beside lastmile's `drop_list` frame by frame (lastmile's ordinal = count + 1).
#
# With a trace file: every event in ns-2's trace format (trace-all), the source's cwnd_,
# ssthresh_, rto_ and dupacks_, and every 10 ms a line "snoop <time> <src:dst> <srtt_s>
# <rttvar_s>" with Snoop's estimator.

if {$argc < 7} {
    puts stderr "usage: ns snoop_lan.tcl agent window per seed duration_s lan_delay_s ll \[trace_file\]"
    exit 2
}
set agent_name [lindex $argv 0]
set window [lindex $argv 1]
set per [lindex $argv 2]
set seed [lindex $argv 3]
set duration [lindex $argv 4]
set lan_delay [lindex $argv 5]
set bs_ll [lindex $argv 6]
set trace_file [lindex $argv 7]

set ns [new Simulator]
$defaultRNG seed $seed
if {$trace_file != ""} {
    set tf [open $trace_file w]
    $ns trace-all $tf
}

set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
$ns duplex-link $fh $bs 10Mb 10ms DropTail
$ns queue-limit $fh $bs 50
$ns queue-limit $bs $fh 50

# The mobile joins with a plain LL, the base station with LL/LLSnoop (test-suite-snoop.tcl).
set lan [$ns make-lan [list $mh] 2Mb ${lan_delay}s LL Queue/DropTail Mac Channel]
$lan addNode [list $bs] 2Mb ${lan_delay}s $bs_ll Queue/DropTail Mac

if {[string match "list:*" $per]} {
    # A drop list (0-based counts of the frames the mobile receives; frame 0 is the SYN).
    set em [new ErrorModel/List]
    $em unit pkt
    $em droplist [split [string range $per 5 end] ","]
    $em drop-target [new Agent/Null]
    set nif [$lan set lanIface_($mh)]
    $em target [$nif set ll_]
    [$nif set mac_] up-target $em
} elseif {$per > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $per
    set rv [new RandomVariable/Uniform]
    $rv use-rng $defaultRNG
    $em ranvar $rv
    $em drop-target [new Agent/Null]
    set nif [$lan set lanIface_($mh)]
    set mac [$nif set mac_]
    $em target [$nif set ll_]
    $mac up-target $em
}

switch -- $agent_name {
    Tahoe { set tcp [new Agent/TCP]; set sink [new Agent/TCPSink] }
    Reno { set tcp [new Agent/TCP/Reno]; set sink [new Agent/TCPSink] }
    Newreno { set tcp [new Agent/TCP/Newreno]; set sink [new Agent/TCPSink] }
    default { puts stderr "unknown agent $agent_name"; exit 2 }
}
$tcp set window_ $window
$ns attach-agent $fh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

# With a trace file: Snoop's estimator every 10 ms, as lines "snoop <time> <srtt_s> <rttvar_s>".
proc sample_snoop {ll interval} {
    global ns tf
    if {[$ll array exists snoops_] && [$ll array size snoops_] > 0} {
        foreach key [$ll array names snoops_] {
            set s [$ll set snoops_($key)]
            puts $tf "snoop [$ns now] $key [$s set srtt_] [$s set rttvar_]"
        }
    }
    $ns at [expr {[$ns now] + $interval}] "sample_snoop $ll $interval"
}
if {$trace_file != ""} {
    $tcp attach $tf
    $tcp trace cwnd_
    $tcp trace ssthresh_
    $tcp trace rto_
    $tcp trace dupacks_
}
if {$trace_file != "" && $bs_ll == "LL/LLSnoop"} {
    set bs_iface [$lan set lanIface_($bs)]
    $ns at 0.0 "sample_snoop [$bs_iface set ll_] 0.01"
}

proc finish {} {
    global ns tcp agent_name window per seed duration engine_start trace_file tf
    set engine_s [expr {([clock clicks -milliseconds] - $engine_start) / 1000.0}]
    set pkt [$tcp set packetSize_]
    set acked [expr {[$tcp set ack_] + 1}]
    puts [format "RESULT {\"agent\": \"%s\", \"window\": %d, \"per\": \"%s\", \"seed\": %d,\
\"goodput_kbps\": %.6f, \"timeouts\": %d, \"retransmissions\": %d, \"data_packets\": %d,\
\"acked_packets\": %d, \"engine_s\": %.4f}" \
        $agent_name $window $per $seed \
        [expr {$acked * $pkt * 8.0 / $duration / 1000.0}] \
        [$tcp set nrexmit_] [$tcp set nrexmitpack_] [$tcp set ndatapack_] $acked $engine_s]
    if {$trace_file != ""} { $ns flush-trace; close $tf }
    exit 0
}

$ns at 0.0 "$ftp start"
$ns at $duration "finish"
set engine_start [clock clicks -milliseconds]
$ns run
