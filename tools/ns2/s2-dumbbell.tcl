# S2 dumbbell (ns-2.35 reference).
#   Si -(100 Mbit/s, 1 ms, queue 1000)- R1 -(10 Mbit/s, 20 ms, queue 100)- R2
#      -(100 Mbit/s, 1 ms, queue 1000)- Di,   i = 0..19
# 20 Sack1 flows Si->Di, flow i starts at U(0,1) s drawn from a seeded RNG
# stream; 300 s; receiver window 256 packets.  Goodput is bytes delivered by
# t = 300 s divided by 300 s (not by 300 - start_i).
# Usage: ns s2-dumbbell.tcl <seed> [<flows> <duration s>]
#   With <flows> N (the scaling curve of `radial bench --scaling`), the
#   bottleneck is scaled with the flow count: N/2 Mbit/s and a queue of 5N
#   packets (10 Mbit/s and 100 packets for 20 flows).
source [file join [file dirname [info script]] common.tcl]

if {$argc != 1 && $argc != 3} {
    puts stderr "usage: ns s2-dumbbell.tcl <seed> \[<flows> <duration s>\]"
    exit 1
}
set seed [lindex $argv 0]
set duration 300.0
set nflows 20
if {$argc == 3} {
    set nflows [lindex $argv 1]
    set duration [lindex $argv 2]
}
set bottleneck [expr {$nflows / 2.0}]Mb
set bqueue [expr {5 * $nflows}]

set ns [new Simulator]
radial_seed $seed

set r1 [$ns node]
set r2 [$ns node]
radial_link $ns $r1 $r2 $bottleneck 20ms $bqueue

set startrv [radial_uniform01]
set flows {}
for {set i 0} {$i < $nflows} {incr i} {
    set src [$ns node]
    set dst [$ns node]
    radial_link $ns $src $r1 100Mb 1ms 1000
    radial_link $ns $r2 $dst 100Mb 1ms 1000
    set start [$startrv value]
    lappend flows [radial_flow $ns $src $dst $i 256 $start]
}

$ns at $duration "radial_report {$flows} $duration; exit 0"
$ns run
