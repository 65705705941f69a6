# S1 wireless random loss (ns-2.35 reference).
#   S -(10 Mbit/s, 20 ms, queue 100)- AP -(2 Mbit/s, 15 ms, queue 50)- MH
# Independent per-packet loss with probability <loss> on the AP-MH link in
# BOTH directions (data and ACKs).  The ErrorModel is inserted with
# `$ns link-lossmodel`, i.e. AFTER the link's DelayLink: a lost packet has
# been serialised and propagated (it consumed capacity) and is dropped where
# it would have been handed to the next node.  (`$ns lossmodel` would put it
# at the link head, before the queue, where a loss consumes nothing.)
# One Sack1 flow S->MH, 300 s, receiver window 256 packets.
# Usage: ns s1-wireless-loss.tcl <seed> <loss>
source [file join [file dirname [info script]] common.tcl]

if {$argc != 2} {
    puts stderr "usage: ns s1-wireless-loss.tcl <seed> <loss>"
    exit 1
}
set seed [lindex $argv 0]
set loss [lindex $argv 1]
set duration 300.0

set ns [new Simulator]
radial_seed $seed

set s  [$ns node]
set ap [$ns node]
set mh [$ns node]
radial_link $ns $s  $ap 10Mb 20ms 100
radial_link $ns $ap $mh 2Mb  15ms 50

# per-direction independent loss processes, each with its own RNG stream
foreach {from to} [list $ap $mh $mh $ap] {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $loss
    $em ranvar [radial_uniform01]
    $ns link-lossmodel $em $from $to
}

set flows [list [radial_flow $ns $s $mh 0 256 0.0]]

$ns at $duration "radial_report {$flows} $duration; exit 0"
$ns run
