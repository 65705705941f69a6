#!/usr/bin/env bash
# Run the ns-2 reference grids (one ns process at a time) and write
#   ns2-s1.csv, ns2-s2.csv, ns2-s4.csv into $RADIAL_NS2_OUT
#   (default: radial-out/validation/runs)
# with header scenario,param,seed,flow,goodput_mbps,bytes,retransmits
# (param = loss for S1, delay_ms for S4, empty for S2).
# Wall time of every S2 run is printed to stderr and written to
# ns2-s2-walltime.csv beside them.
# Usage: tools/ns2/run-ns2.sh [s1] [s2] [s4]      (default: all)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${RADIAL_NS2_OUT:-$(cd "$HERE/../.." && pwd)/radial-out/validation/runs}"
mkdir -p "$OUT"

command -v ns >/dev/null 2>&1 || "$HERE/install-ns2.sh"

SEEDS="1 2 3 4 5 6 7 8 9 10"
S1_LOSS="0 0.0001 0.001 0.002 0.005 0.01 0.02 0.05 0.1"
S4_DELAY="50 100 150 200 250"
HEADER="scenario,param,seed,flow,goodput_mbps,bytes,retransmits"

# run_one SCENARIO PARAM SEED CMD...  -> appends CSV rows to stdout
run_one() {
    local scen="$1" param="$2" seed="$3"; shift 3
    local res
    if ! res="$("$@")"; then
        echo "FAILED: $*" >&2
        return 1
    fi
    local n
    n="$(printf '%s\n' "$res" | grep -c '^flow=')" || true
    if [ "$n" -lt 1 ]; then
        echo "no result lines from: $*" >&2
        return 1
    fi
    printf '%s\n' "$res" | sed -n \
        's/^flow=\([0-9]*\) goodput_mbps=\([0-9.]*\) bytes=\([0-9]*\) retransmits=\([0-9]*\)$/\1,\2,\3,\4/p' |
        while IFS=, read -r flow gp bytes rtx; do
            echo "$scen,$param,$seed,$flow,$gp,$bytes,$rtx"
        done
}

SEL="${*:-s1 s2 s4}"

if [[ " $SEL " == *" s1 "* ]]; then
    tmp="$OUT/ns2-s1.csv.tmp"
    echo "$HEADER" > "$tmp"
    for loss in $S1_LOSS; do
        for seed in $SEEDS; do
            run_one s1 "$loss" "$seed" ns "$HERE/s1-wireless-loss.tcl" "$seed" "$loss" >> "$tmp"
        done
        echo "s1 loss=$loss done" >&2
    done
    mv "$tmp" "$OUT/ns2-s1.csv"
fi

if [[ " $SEL " == *" s4 "* ]]; then
    tmp="$OUT/ns2-s4.csv.tmp"
    echo "$HEADER" > "$tmp"
    for delay in $S4_DELAY; do
        for seed in $SEEDS; do
            run_one s4 "$delay" "$seed" ns "$HERE/s4-long-delay.tcl" "$seed" "$delay" >> "$tmp"
        done
        echo "s4 delay_ms=$delay done" >&2
    done
    mv "$tmp" "$OUT/ns2-s4.csv"
fi

if [[ " $SEL " == *" s2 "* ]]; then
    tmp="$OUT/ns2-s2.csv.tmp"
    wt="$OUT/ns2-s2-walltime.csv.tmp"
    echo "$HEADER" > "$tmp"
    echo "seed,wall_s" > "$wt"
    for seed in $SEEDS; do
        t0="$(date +%s.%N)"
        run_one s2 "" "$seed" ns "$HERE/s2-dumbbell.tcl" "$seed" >> "$tmp"
        t1="$(date +%s.%N)"
        w="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')"
        echo "$seed,$w" >> "$wt"
        echo "s2 seed=$seed wall_s=$w" >&2
    done
    mv "$tmp" "$OUT/ns2-s2.csv"
    mv "$wt" "$OUT/ns2-s2-walltime.csv"
fi
