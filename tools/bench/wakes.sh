#!/usr/bin/env bash
# The client's CPU with and without wake moderation (`radial get
# --no-wake-moderation`), through the same emulated paths (`radial shell`,
# root): goodput, longest stall, CPU seconds per GB (user + system, `perf
# stat`'s task-clock) and context switches, alternating the two modes.
# Needs root, perf, python3.
# RADIAL_BASE=path compares two builds instead, both with wake moderation:
# the base build's `get` and this build's, in turns, each against its own
# `serve`; the table then also counts the client's receive and send system
# calls (a send is one datagram).
# Usage: sudo tools/bench/wakes.sh [REPEAT]   (default 3)
# Prints a Markdown table, a row per run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repeat=${1:-3}
# shellcheck source=tools/bench/shell_setup.sh
. tools/bench/shell_setup.sh

# case file MB buffer(bytes, - for the default) addresses...
cases=(
    "agg-20-20 50 - 10.0.0.2 10.0.1.2"
    "agg-20-20 50 600000 10.0.0.2 10.0.1.2"
    "three 30 - 10.0.0.2 10.0.1.2 10.0.2.2"
)

# Modes to alternate: wake moderation on and off, or the base build and
# this one.
if [ -n "${RADIAL_BASE:-}" ]; then
    modes=(base this)
    echo "| case | buffer | build | goodput (Mbit/s) | longest stall (s) | CPU s/GB | context switches | recvmmsg calls | datagrams sent |"
    echo "|---|---|---|---|---|---|---|---|---|"
else
    modes=(on off)
    echo "| case | buffer | wake moderation | goodput (Mbit/s) | longest stall (s) | CPU s/GB | context switches |"
    echo "|---|---|---|---|---|---|---|"
fi
for c in "${cases[@]}"; do
    read -r name mb buffer rest <<<"$c"
    read -ra addresses <<<"$rest"
    vias=()
    for a in "${addresses[@]}"; do vias+=(--via "$a"); done
    if [ "$buffer" != - ]; then vias+=(--buffer "$buffer"); fi
    [ -f "$work/files/f$mb.bin" ] || head -c $((mb * 1000000)) /dev/urandom >"$work/files/f$mb.bin"
    for _ in $(seq "$repeat"); do
        for mode in "${modes[@]}"; do
            flags=()
            bin=$radial
            events=task-clock,context-switches
            case $mode in
            off) flags+=(--no-wake-moderation) ;;
            base) bin=$RADIAL_BASE ;;
            esac
            [ -n "${RADIAL_BASE:-}" ] && events+=,syscalls:sys_enter_recvmmsg,syscalls:sys_enter_sendto
            "$radial" shell "scenarios/shell/$name.toml" \
                --server "$bin serve --root $work/files --listen $server:7400 --insecure >/dev/null 2>&1" -- \
                perf stat -x, -e "$events" -o "$work/stat" \
                "$bin" get "radial://$server:7400/f$mb.bin" "${vias[@]}" \
                --insecure --json --force -o "$work/out.bin" "${flags[@]}" >"$work/run.json" 2>/dev/null
            python3 - "$work/run.json" "$work/stat" "$name" "$mode" "$buffer" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
stat = {}
for line in open(sys.argv[2]):
    f = line.strip().split(",")
    if len(f) > 2 and f[0]:
        stat[f[2]] = float(f[0])
cpu = stat["task-clock"] / 1000 / (r["bytes"] / 1e9)
buffer = "default" if sys.argv[5] == "-" else sys.argv[5]
row = f"| {sys.argv[3]} | {buffer} | {sys.argv[4]} | {r['mbps']:.2f} | {r['longest_stall_s']:.3f} | {cpu:.1f} | {int(stat['context-switches'])} |"
if "syscalls:sys_enter_recvmmsg" in stat:
    row += f" {int(stat['syscalls:sys_enter_recvmmsg'])} | {int(stat['syscalls:sys_enter_sendto'])} |"
print(row)
PY
        done
    done
done
