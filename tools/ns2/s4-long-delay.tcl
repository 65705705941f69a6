# S4 long delay (ns-2.35 reference).
#   S -(10 Mbit/s, 1 ms, queue 1000)- R1 -(1.5 Mbit/s, <delay_ms>, queue 50)- R2
#     -(10 Mbit/s, 1 ms, queue 1000)- D
# One Sack1 flow S->D, 300 s, receiver window 1000 packets.
# Usage: ns s4-long-delay.tcl <seed> <delay_ms>
source [file join [file dirname [info script]] common.tcl]

if {$argc != 2} {
    puts stderr "usage: ns s4-long-delay.tcl <seed> <delay_ms>"
    exit 1
}
set seed [lindex $argv 0]
set delay_ms [lindex $argv 1]
set duration 300.0

set ns [new Simulator]
radial_seed $seed

set s  [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set d  [$ns node]
radial_link $ns $s  $r1 10Mb  1ms 1000
radial_link $ns $r1 $r2 1.5Mb ${delay_ms}ms 50
radial_link $ns $r2 $d  10Mb  1ms 1000

set flows [list [radial_flow $ns $s $d 0 1000 0.0]]

$ns at $duration "radial_report {$flows} $duration; exit 0"
$ns run
