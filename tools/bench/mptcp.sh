#!/usr/bin/env bash
# Radial against the kernel's MPTCP and single-path TCP through the same
# emulated paths (`radial shell`, root): goodput against the sum of the
# paths' rates, the longest stall, and the client's CPU seconds per GB, at
# each side's default receive buffer and at 2x the largest path's
# bandwidth-delay product. Every client does the same work: it writes the
# file it receives and hashes it (SHA-256), as `radial get` does. Needs
# root, a kernel with MPTCP, python3.
# Usage: sudo tools/bench/mptcp.sh [REPEAT]   (default 1; medians of REPEAT)
# Prints a Markdown table.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repeat=${1:-1}
# shellcheck source=tools/bench/shell_setup.sh
. tools/bench/shell_setup.sh
bulk="python3 $PWD/tools/bench/bulk.py"

# case file MB ideal_mbps small_buffer_bytes addresses...
cases=(
    "agg-20-20 100 40 600000 10.0.0.2 10.0.1.2"
    "agg-30-10 100 40 200000 10.0.0.2 10.0.1.2"
    "three 30 17 750000 10.0.0.2 10.0.1.2 10.0.2.2"
    "handoff 20 12 150000 10.0.0.2 10.0.1.2"
)

# One run: prints "goodput_mbps stall_s cpu_s bytes rcvbuf window", the
# window being the most data the receive buffer let the sender have in
# flight (Radial's: its buffer; the kernel's: the largest window it would
# advertise, from TCP_INFO).
one() {
    local proto=$1 scenario=$2 mb=$3 buffer=$4
    shift 4
    local vias=() a
    for a in "$@"; do vias+=(--via "$a"); done
    case $proto in
    radial)
        local flags=()
        [ "$buffer" != default ] && flags+=(--buffer "$buffer")
        "$radial" shell "$scenario" \
            --server "$radial serve --root $work/files --listen $server:7400 --insecure >/dev/null 2>&1" -- \
            $bulk cpu "$work/cpu" "$radial" get "radial://$server:7400/f$mb.bin" "${vias[@]}" \
            --insecure --json --force -o "$work/out.bin" "${flags[@]}" >"$work/run.json" 2>"$work/err"
        python3 - "$work/run.json" "$work/cpu" "$buffer" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cpu = float(open(sys.argv[2]).read())
buf = "4200000" if sys.argv[3] == "default" else sys.argv[3]
print(r["mbps"], r["longest_stall_s"], cpu, r["bytes"], buf, buf)
PY
        ;;
    tcp | mptcp)
        local f=() rb=()
        [ "$proto" = mptcp ] && f+=(--mptcp)
        [ "$buffer" != default ] && rb+=(--rcvbuf "$buffer")
        [ "$proto" = tcp ] && rb+=(--bind "$1")
        "$radial" shell "$scenario" \
            --server "$bulk serve $server 5201 $((mb * 1000000)) ${f[*]}" -- \
            $bulk get $server 5201 "${f[@]}" "${rb[@]}" --out "$work/out.bin" >"$work/run.json" 2>/dev/null
        python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["goodput_mbps"], r["max_gap_s"], r["cpu_s"], r["bytes"], r["rcvbuf"], r["window_max"])' "$work/run.json"
        ;;
    esac
}

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "| case | buffer | protocol | goodput (Mbit/s) | / Ideal | longest stall (s) | CPU s/GB | receive buffer (bytes) | largest window (bytes) |"
echo "|---|---|---|---|---|---|---|---|---|"
# row LABEL PROTO CASE MB BUFFER IDEAL ADDRESSES...: runs REPEAT times,
# prints the table row, and leaves the first run's largest window in $win.
row() {
    local label=$1 proto=$2 name=$3 mb=$4 buffer=$5 ideal=$6
    shift 6
    local rows=() g s cpu rb
    for _ in $(seq "$repeat"); do
        rows+=("$(one "$proto" "scenarios/shell/$name.toml" "$mb" "$buffer" "$@")")
    done
    g=$(printf '%s\n' "${rows[@]}" | awk '{print $1}' | median)
    s=$(printf '%s\n' "${rows[@]}" | awk '{print $2}' | median)
    cpu=$(printf '%s\n' "${rows[@]}" | awk '{print $3 / ($4 / 1e9)}' | median)
    rb=$(printf '%s\n' "${rows[0]}" | awk '{print $5}')
    win=$(printf '%s\n' "${rows[0]}" | awk '{print $6}')
    printf '| %s | %s | %s | %.2f | %.2f | %.3f | %.1f | %s | %s |\n' \
        "$name" "$label" "$proto" "$g" "$(echo "$g / $ideal" | bc -l)" "$s" "$cpu" "$rb" "$win"
}

for c in "${cases[@]}"; do
    read -r name mb ideal small addrs <<<"$c"
    read -ra addresses <<<"$(echo "$c" | cut -d' ' -f5-)"
    [ -f "$work/files/f$mb.bin" ] || head -c $((mb * 1000000)) /dev/urandom >"$work/files/f$mb.bin"
    for proto in radial mptcp tcp; do
        row default "$proto" "$name" "$mb" default "$ideal" "${addresses[@]}"
    done
    # "2x BDP" sets SO_RCVBUF (the kernel) or --buffer (Radial) to twice the
    # largest path's bandwidth-delay product; the kernel then advertises
    # windows larger than that value. The last row gives Radial the largest
    # window MPTCP advertised there: equal windows.
    row "2x BDP" mptcp "$name" "$mb" "$small" "$ideal" "${addresses[@]}"
    kernel_window=$win
    row "2x BDP" tcp "$name" "$mb" "$small" "$ideal" "${addresses[@]}"
    row "2x BDP" radial "$name" "$mb" "$small" "$ideal" "${addresses[@]}"
    row "MPTCP's window" radial "$name" "$mb" "$kernel_window" "$ideal" "${addresses[@]}"
done
