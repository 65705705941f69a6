#!/usr/bin/env bash
# Single-pipe loopback goodput and CPU seconds per GB: `radial get` against
# `radial serve` (encrypted, with --insecure, and encrypted in segments of
# 16,000 bytes, as the loopback device carries), one stream of a stream
# connection (encrypted, in segments of 1,200 and of 16,000 bytes, and not
# encrypted in segments of 16,000 bytes, as the kernel's TCP runs:
# radial-net's `fetch` example, client and server in one process), side by
# side with quinn
# (QUIC with its defaults: tools/bench/quinn) and the kernel's TCP (iperf3),
# in one run.
# Usage: tools/bench/net.sh [SIZE_MB] [REPEAT]   (default 1000 MB, 5 runs)
# RADIAL_BIN=path runs another build of `radial`. RADIAL_BASE=path compares
# two builds instead: in each run, the base build's `get` from its own
# `serve` and this build's (in turns, each first every other run),
# encrypted and with --insecure (after one
# transfer each, so the server's hashing is not counted), and prints the
# two side by side. Installs iperf3 from Debian if it is missing. Prints a
# Markdown table.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
size_mb=${1:-1000}
repeat=${2:-5}
if ! command -v iperf3 >/dev/null; then
    apt-get update -qq && apt-get install -y -qq iperf3 >/dev/null
fi
if [ -z "${RADIAL_BIN:-}" ]; then cargo build --release -q -p radial; fi
cargo build --release -q --manifest-path tools/bench/quinn/Cargo.toml
cargo build --release -q -p radial-net --example fetch
radial=${RADIAL_BIN:-target/release/radial}
quinn=tools/bench/quinn/target/release/quinn-bench
# In memory where there is a tmpfs: the kernel's writeback of a gigabyte of
# output to disk, on a two-core machine, otherwise lands on whichever
# transfer comes next.
if [ -w /dev/shm ]; then work=$(mktemp -d -p /dev/shm); else work=$(mktemp -d); fi
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
# The server's key and the client's known servers live with the run.
export XDG_CONFIG_HOME="$work/config"
head -c $((size_mb * 1000000)) /dev/urandom > "$work/file.bin"
port=$((20000 + RANDOM % 20000))

# CPU seconds (user + system) of a process tree, from /proc, at exit.
cpu_of() { awk '{print ($14 + $15 + $16 + $17) / 100}' "/proc/$1/stat"; }

mkdir -p "$work/files"
mv "$work/file.bin" "$work/files/file.bin"
"$radial" serve --root "$work/files" --listen "127.0.0.1:$port" --insecure >/dev/null 2>&1 &
srv=$!
iperf3 -s -p $((port + 1)) >/dev/null 2>&1 &
ipf=$!
"$quinn" serve "127.0.0.1:$((port + 2))" "$work/files/file.bin" "$work/cert.der" >/dev/null 2>&1 &
qsrv=$!
sleep 0.5

# One `radial get` of the file with extra flags: "Mbit/s CPU-s/GB"
# (RUN_BIN, RUN_SRV and RUN_PORT name another build and its server).
radial_run() {
    local s0 s1 t0 t1 c bin=${RUN_BIN:-$radial} pid=${RUN_SRV:-$srv} p=${RUN_PORT:-$port}
    rm -f "$work/out.bin"
    s0=$(cpu_of "$pid")
    t0=$(date +%s.%N)
    /usr/bin/time -o "$work/time" -f '%U %S' "$bin" get "radial://127.0.0.1:$p/file.bin" \
        --via 127.0.0.1 -o "$work/out.bin" --force "$@" >/dev/null 2>/dev/null
    c=$(tail -1 "$work/time")
    t1=$(date +%s.%N)
    s1=$(cpu_of "$pid")
    cmp -s "$work/files/file.bin" "$work/out.bin" || { echo "radial: file differs" >&2; exit 1; }
    echo "$(echo "$size_mb * 8 / ($t1 - $t0)" | bc -l) \
$(echo "($(echo "$c" | awk '{print $1 + $2}') + $s1 - $s0) / ($size_mb / 1000)" | bc -l)"
}

# One quinn fetch of the file: "Mbit/s CPU-s/GB".
quinn_run() {
    local s0 s1 t0 t1 c
    rm -f "$work/quinn.bin"
    s0=$(cpu_of $qsrv)
    t0=$(date +%s.%N)
    /usr/bin/time -o "$work/time" -f '%U %S' "$quinn" get "127.0.0.1:$((port + 2))" "$work/cert.der" \
        "$work/quinn.bin" >/dev/null 2>/dev/null
    c=$(tail -1 "$work/time")
    t1=$(date +%s.%N)
    s1=$(cpu_of $qsrv)
    cmp -s "$work/files/file.bin" "$work/quinn.bin" || { echo "quinn: file differs" >&2; exit 1; }
    echo "$(echo "$size_mb * 8 / ($t1 - $t0)" | bc -l) \
$(echo "($(echo "$c" | awk '{print $1 + $2}') + $s1 - $s0) / ($size_mb / 1000)" | bc -l)"
}

if [ -n "${RADIAL_BASE:-}" ]; then
    "$RADIAL_BASE" serve --root "$work/files" --listen "127.0.0.1:$((port + 3))" --insecure >/dev/null 2>&1 &
    base_srv=$!
    sleep 0.5
    radial_run >/dev/null
    RUN_BIN=$RADIAL_BASE RUN_SRV=$base_srv RUN_PORT=$((port + 3)) radial_run >/dev/null
    echo "| run | base, encrypted: Mbit/s | CPU s/GB | this build, encrypted: Mbit/s | CPU s/GB | base --insecure: Mbit/s | CPU s/GB | this build --insecure: Mbit/s | CPU s/GB |"
    echo "|---|---|---|---|---|---|---|---|---|"
    base_run() { RUN_BIN=$RADIAL_BASE RUN_SRV=$base_srv RUN_PORT=$((port + 3)) radial_run "$@"; }
    for r in $(seq "$repeat"); do
        # Alternate which build goes first: the second of a pair runs on a
        # machine the first has just warmed or loaded.
        if [ $((r % 2)) = 1 ]; then
            read -r b_enc b_enc_cpu <<< "$(base_run)"
            read -r n_enc n_enc_cpu <<< "$(radial_run)"
            read -r b_ins b_ins_cpu <<< "$(base_run --insecure)"
            read -r n_ins n_ins_cpu <<< "$(radial_run --insecure)"
        else
            read -r n_enc n_enc_cpu <<< "$(radial_run)"
            read -r b_enc b_enc_cpu <<< "$(base_run)"
            read -r n_ins n_ins_cpu <<< "$(radial_run --insecure)"
            read -r b_ins b_ins_cpu <<< "$(base_run --insecure)"
        fi
        row=$(printf '%.0f %.2f %.0f %.2f %.0f %.2f %.0f %.2f' "$b_enc" "$b_enc_cpu" \
            "$n_enc" "$n_enc_cpu" "$b_ins" "$b_ins_cpu" "$n_ins" "$n_ins_cpu")
        echo "$row" >> "$work/rows"
        echo "| $r | ${row// / | } |"
    done
else
echo "| run | radial, encrypted: Mbit/s | CPU s/GB | radial --insecure: Mbit/s | CPU s/GB | radial --segment 16000: Mbit/s | CPU s/GB | radial stream: Mbit/s | CPU s/GB | stream, 16000-byte segments: Mbit/s | CPU s/GB | stream, 16000, not encrypted: Mbit/s | CPU s/GB | quinn: Mbit/s | CPU s/GB | iperf3 TCP: Mbit/s | CPU s/GB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
# One stream of `fetch` in segments of $1 bytes (and $2: `insecure` or
# nothing): "Mbit/s CPU-s/GB", from
# "fetch: N MB over 1 path(s) in T s, segments of S bytes: M Mbit/s, C CPU-s/GB (...)".
fetch_run() {
    target/release/examples/fetch "$size_mb" 1 "$1" ${2:-} \
        | sed -E 's/.*: ([0-9.]+) Mbit\/s, ([0-9.]+) CPU.*/\1 \2/'
}
for r in $(seq "$repeat"); do
    read -r enc_mbps enc_cpu <<< "$(radial_run)"
    read -r ins_mbps ins_cpu <<< "$(radial_run --insecure)"
    read -r seg_mbps seg_cpu <<< "$(radial_run --segment 16000)"
    read -r s_mbps s_cpu <<< "$(fetch_run 1200)"
    read -r sl_mbps sl_cpu <<< "$(fetch_run 16000)"
    read -r si_mbps si_cpu <<< "$(fetch_run 16000 insecure)"
    read -r q_mbps q_cpu <<< "$(quinn_run)"
    i0=$(cpu_of $ipf)
    /usr/bin/time -o "$work/time" -f '%U %S' iperf3 -c 127.0.0.1 -p $((port + 1)) -n "${size_mb}M" -J > "$work/iperf.json"
    out=$(tail -1 "$work/time")
    i1=$(cpu_of $ipf)
    ipf_mbps=$(python3 -c "import json;d=json.load(open('$work/iperf.json'));print(d['end']['sum_received']['bits_per_second']/1e6)")
    ipf_cpu=$(echo "($(echo "$out" | awk '{print $1 + $2}') + $i1 - $i0) / ($size_mb * 1.048576 / 1000)" | bc -l)
    row=$(printf '%.0f %.2f %.0f %.2f %.0f %.2f %.0f %.2f %.0f %.2f %.0f %.2f %.0f %.2f %.0f %.2f' \
        "$enc_mbps" "$enc_cpu" "$ins_mbps" "$ins_cpu" "$seg_mbps" "$seg_cpu" "$s_mbps" "$s_cpu" \
        "$sl_mbps" "$sl_cpu" "$si_mbps" "$si_cpu" "$q_mbps" "$q_cpu" "$ipf_mbps" "$ipf_cpu")
    echo "$row" >> "$work/rows"
    echo "| $r | ${row// / | } |"
done
fi
# Each column's median over the runs.
python3 - "$work/rows" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
cols = [statistics.median(float(r[i]) for r in rows) for i in range(len(rows[0]))]
print("| median | " + " | ".join(f"{v:.0f}" if i % 2 == 0 else f"{v:.2f}" for i, v in enumerate(cols)) + " |")
if len(cols) == 16:
    # One stream in 16,000-byte segments against the kernel's TCP, from
    # the medians: the goodput's and the CPU per byte's ratios.
    ipf, ipf_cpu = cols[14], cols[15]
    print()
    for name, i in (("encrypted", 8), ("not encrypted", 10)):
        print(f"One stream, 16,000-byte segments, {name}: {cols[i] / ipf:.2f}x iperf3's "
              f"goodput at {cols[i + 1] / ipf_cpu:.1f}x its CPU per byte (medians).")
PY
