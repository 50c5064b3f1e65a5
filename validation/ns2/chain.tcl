# Path B of the classic-TCP family in ns-2.35: fixed host -- base station -- mobile host,
# one bulk one-way TCP agent, uniform per-packet losses on the base station's hop towards
# the mobile; prints one line "RESULT {json}" with what the agent counted.
#
#   ns chain.tcl <agent> <window> <per> <seed> <duration_s> [trace_file]
#
# <per>: a packet error rate, or "list:<c1>,<c2>,..." to lose exactly those packets on the
# hop (0-based counts of the packets it carries, the 40 B first packet that stands for the
# SYN being 0; ErrorModel/List): beside lastmile's `drop_list` (1-based ordinals, its SYN
# being 1), lastmile's ordinal = count + 1.
#
# <agent>: Tahoe | Reno | Newreno | Sack1 | Fack | Vegas. Every other setting is ns-2.35's
# default (tcl/lib/ns-default.tcl): packetSize_ 1000 B of payload plus 40 B of headers,
# windowInit_ 2, tcpTick_ 10 ms, minrto_ 200 ms, rtxcur_init_ 3 s, maxrto_ 60 s, an ACK per
# segment (TCPSink), DropTail queues of 50 packets. The error model sits after the hop's
# transmission and propagation (`link-lossmodel`), so a lost packet costs its airtime.
#
# Vegas's `output` leaves out the 40 B of headers that `TcpAgent::output` adds
# (tcp-vegas.cc), so its packetSize_ is set to 1040 B to put the same bytes on the wire;
# goodput counts 1000 B of payload per packet for every agent.
# Timeouts are nrexmit_, except for Agent/TCP/Fack, whose timeout() does not count it
# (tcp-fack.cc): there they are the retransmission timer's back-offs (each expiry with data
# outstanding doubles backoff_, which is traced). The two counts agree for Tahoe, Reno,
# Newreno and Sack1; Vegas also backs the timer off at its fast retransmits
# (reset_rtx_timer(1) in tcp-vegas.cc), so nrexmit_ it is.
#
# Diagnostic, never set by the suite: with the environment variable VEGAS_RING=<n>,
# Agent/TCP/Vegas sizes its ring of send times (v_sendtime_, v_transmits_: window_ packets
# when the first packet is sent, tcp-vegas.cc:468) to <n> while window_ and ssthresh_ are
# set back to <window> at once, so that only the ring changes.
# Diagnostic too: with VEGAS_TRACE=<file>, every packet event (trace-all) and the agent's
# traced variables go to <file>, in the order they happen (validation/ns2/vegas_trace.py
# replays Vegas's per-round code on it).

if {$argc < 5} {
    puts stderr "usage: ns chain.tcl agent window per seed duration_s \[trace_file\]"
    exit 2
}
set agent_name [lindex $argv 0]
set window [lindex $argv 1]
set per [lindex $argv 2]
set seed [lindex $argv 3]
set duration [lindex $argv 4]
set trace_file [lindex $argv 5]

set ns [new Simulator]
$defaultRNG seed $seed
set vegas_trace [expr {[info exists env(VEGAS_TRACE)] ? $env(VEGAS_TRACE) : ""}]
if {$vegas_trace != ""} {
    set trace_all [open $vegas_trace w]
    $ns trace-all $trace_all
}

set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
$ns duplex-link $fh $bs 10Mb 10ms DropTail
$ns duplex-link $bs $mh 2Mb 10ms DropTail
$ns queue-limit $fh $bs 50
$ns queue-limit $bs $fh 50
$ns queue-limit $bs $mh 50
$ns queue-limit $mh $bs 50

if {[string match "list:*" $per]} {
    set em [new ErrorModel/List]
    $em unit pkt
    $em droplist [split [string range $per 5 end] ","]
    $em drop-target [new Agent/Null]
    $ns link-lossmodel $em $bs $mh
} elseif {$per > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $per
    set rv [new RandomVariable/Uniform]
    $rv use-rng $defaultRNG
    $em ranvar $rv
    $em drop-target [new Agent/Null]
    $ns link-lossmodel $em $bs $mh
}

switch -- $agent_name {
    Tahoe { set tcp [new Agent/TCP]; set sink [new Agent/TCPSink] }
    Reno { set tcp [new Agent/TCP/Reno]; set sink [new Agent/TCPSink] }
    Newreno { set tcp [new Agent/TCP/Newreno]; set sink [new Agent/TCPSink] }
    Sack1 { set tcp [new Agent/TCP/Sack1]; set sink [new Agent/TCPSink/Sack1] }
    Fack { set tcp [new Agent/TCP/Fack]; set sink [new Agent/TCPSink/Sack1] }
    Vegas { set tcp [new Agent/TCP/Vegas]; set sink [new Agent/TCPSink] }
    default { puts stderr "unknown agent $agent_name"; exit 2 }
}
$tcp set window_ $window
set vegas_ring [expr {[info exists env(VEGAS_RING)] ? $env(VEGAS_RING) : 0}]
if {$agent_name == "Vegas" && $vegas_ring > 0} { $tcp set window_ $vegas_ring }
set payload 1000
if {$agent_name == "Vegas"} { $tcp set packetSize_ 1040 }
set backoff_file [open backoff.tr w]
$tcp attach $backoff_file
$tcp trace backoff_
$ns attach-agent $fh $tcp
$ns attach-agent $mh $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp

if {$vegas_trace != ""} {
    $tcp attach $trace_all
    foreach var {cwnd_ ssthresh_ t_seqno_ ack_ dupacks_ backoff_ nrexmit_} { $tcp trace $var }
}
if {$trace_file != ""} {
    set tf [open $trace_file w]
    $tcp attach $tf
    $tcp trace backoff_
    $tcp trace cwnd_
    $tcp trace ssthresh_
    $tcp trace rto_
    $tcp trace backoff_
    $tcp trace nrexmit_
    $tcp trace ack_
    $tcp trace t_seqno_
    $tcp trace dupacks_
}

# The number of doublings of backoff_ in its trace.
proc backoffs {} {
    global backoff_file
    close $backoff_file
    set f [open backoff.tr]
    set prev 1
    set n 0
    while {[gets $f line] >= 0} {
        set value [lindex $line end]
        if {$value > $prev} { incr n }
        set prev $value
    }
    close $f
    return $n
}

proc finish {} {
    global ns tcp agent_name window per seed duration engine_start trace_file tf payload vegas_trace trace_all
    set engine_s [expr {([clock clicks -milliseconds] - $engine_start) / 1000.0}]
    set pkt $payload
    set acked [expr {[$tcp set ack_] + 1}]
    puts [format "RESULT {\"agent\": \"%s\", \"window\": %d, \"per\": %s, \"seed\": %d,\
\"goodput_kbps\": %.6f, \"timeouts\": %d, \"retransmissions\": %d, \"data_packets\": %d,\
\"acked_packets\": %d, \"nrexmit\": %d, \"engine_s\": %.4f}" \
        $agent_name $window [expr {[string match "list:*" $per] ? "\"list\"" : $per}] $seed \
        [expr {$acked * $pkt * 8.0 / $duration / 1000.0}] \
        [expr {$agent_name == "Fack" ? [backoffs] : [$tcp set nrexmit_]}] [$tcp set nrexmitpack_] [$tcp set ndatapack_] $acked \
        [$tcp set nrexmit_] $engine_s]
    if {$trace_file != ""} { close $tf }
    if {$vegas_trace != ""} { $ns flush-trace; close $trace_all }
    exit 0
}

$ns at 0.0 "$ftp start"
if {$agent_name == "Vegas" && $vegas_ring > 0} {
    $ns at 0.0 "$tcp set window_ $window; $tcp set ssthresh_ $window"
}
$ns at $duration "finish"
set engine_start [clock clicks -milliseconds]
$ns run
