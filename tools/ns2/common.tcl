# Shared helpers for the Radial ns-2 (2.35) reference scenarios.
# Sourced by s1-wireless-loss.tcl, s2-dumbbell.tcl, s4-long-delay.tcl.
#
# Conventions (see docs/validation.md):
#   * TCP = Agent/TCP/Sack1 + Agent/TCPSink/Sack1 (immediate ACK per packet),
#     packetSize_ 1000 payload bytes (+40 B TCP/IP header = 1040 B on the wire),
#     window_ (receiver window) per scenario, everything else ns-2 defaults
#     (this includes syn_=1: seqno 0 is a 40-byte SYN carrying no data).
#   * Drop-tail queues on both directions of every link; ns-2 DropTail with
#     limit_ N holds at most N-1 waiting packets plus the one being transmitted.
#   * Goodput = in-order payload bytes delivered to the sink / duration.
#     Agent/TCPSink's bytes_ counts in-order *wire* bytes (40 for the SYN and
#     1040 per data packet), so delivered data packets = (bytes_ - 40) / 1040,
#     and payload bytes = that * 1000.  The SYN is excluded.

set RADIAL_PKT 1000
set RADIAL_HDR 40

# Seed the default RNG from the command-line seed.  ns-2's MRG32k3a seeded
# with a small integer k has state k*(1,...,1); every stream derived from it
# is then k times the seed-1 stream (mod m), i.e. u_k = frac(k*u_1) and the
# very first draw is ~3.4e-4*k.  To make seeds 1..10 behave as independent
# replications we scramble the seed with SplitMix64 first (deterministic).
proc radial_mix_seed {seed} {
    set m64 0xFFFFFFFFFFFFFFFF
    set z [expr {($seed * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & $m64}]
    set z [expr {(($z ^ ($z >> 30)) * 0xBF58476D1CE4E5B9) & $m64}]
    set z [expr {(($z ^ ($z >> 27)) * 0x94D049BB133111EB) & $m64}]
    set z [expr {$z ^ ($z >> 31)}]
    # RNG raw seeds must be positive and < 2^31
    return [expr {($z % 2147483646) + 1}]
}

proc radial_seed {seed} {
    global defaultRNG
    $defaultRNG seed [radial_mix_seed $seed]
}

# A fresh independent RNG stream (derived from the default RNG's seed, so it
# changes with the run seed) wrapped in a Uniform(0,1) random variable.
proc radial_uniform01 {} {
    set rng [new RNG]
    set rv [new RandomVariable/Uniform]
    $rv set min_ 0.0
    $rv set max_ 1.0
    $rv use-rng $rng
    return $rv
}

# Duplex drop-tail link with the same queue limit (packets) in both directions.
proc radial_link {ns a b bw delay limit} {
    $ns duplex-link $a $b $bw $delay DropTail
    $ns queue-limit $a $b $limit
    $ns queue-limit $b $a $limit
}

# One backlogged FTP/Sack1 flow from node src to node dst; returns {tcp sink}.
proc radial_flow {ns src dst fid window start} {
    global RADIAL_PKT
    set tcp [new Agent/TCP/Sack1]
    $tcp set fid_ $fid
    $tcp set packetSize_ $RADIAL_PKT
    $tcp set window_ $window
    set sink [new Agent/TCPSink/Sack1]
    $ns attach-agent $src $tcp
    $ns attach-agent $dst $sink
    $ns connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at $start "$ftp start"
    return [list $tcp $sink]
}

# Print one result line per flow: flows is a list of {tcp sink} pairs.
proc radial_report {flows duration} {
    global RADIAL_PKT RADIAL_HDR
    set i 0
    foreach f $flows {
        set tcp [lindex $f 0]
        set sink [lindex $f 1]
        set wire [$sink set bytes_]
        if {$wire >= $RADIAL_HDR} {
            set npkts [expr {($wire - $RADIAL_HDR) / ($RADIAL_PKT + $RADIAL_HDR)}]
            if {($wire - $RADIAL_HDR) % ($RADIAL_PKT + $RADIAL_HDR) != 0} {
                puts stderr "warning: flow $i sink bytes_ $wire not 40+1040*n"
            }
        } else {
            set npkts 0
        }
        set bytes [expr {$npkts * $RADIAL_PKT}]
        set mbps [expr {$bytes * 8.0 / $duration / 1.0e6}]
        set rtx [expr {int([$tcp set nrexmitpack_])}]
        puts [format "flow=%d goodput_mbps=%.6f bytes=%d retransmits=%d" $i $mbps $bytes $rtx]
        incr i
    }
    flush stdout
}
