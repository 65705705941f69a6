#!/usr/bin/env bash
# Goodput and CPU per GB of one stream on loopback (radial-net's `fetch`
# example: client and server in one process, encrypted) against the
# segment size its connection asks in, to choose the size for the loopback
# device (`config::LOOPBACK_SEGMENT`). The sizes run in turn within each
# round, so that a slow spell of the machine falls on all of them; prints a
# Markdown table of each size's medians.
# Usage: tools/bench/segments.sh [SIZE_MB] [ROUNDS]   (default 1000 MB, 5)
# FETCH_BASE=path compares another build of `fetch` with this one, in
# turns, at 1,200 and 16,000 bytes; FETCH_INSECURE=1 runs both without
# encryption.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
size_mb=${1:-1000}
rounds=${2:-5}
sizes="1200 4000 8000 16000 32000 60000"
cargo build --release -q -p radial-net --example fetch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One run of build $1 ("this" or "base") in segments of $2 bytes, appended
# to the rows as "build segment Mbit/s CPU-s/GB", from "fetch: ... segments
# of S bytes: M Mbit/s, C CPU-s/GB (...)".
run() {
    local bin=target/release/examples/fetch
    [ "$1" = base ] && bin=$FETCH_BASE
    "$bin" "$size_mb" 1 "$2" ${FETCH_INSECURE:+insecure} \
        | sed -E "s/.*: ([0-9.]+) Mbit\/s, ([0-9.]+) CPU.*/$1 $2 \1 \2/" >> "$work/rows"
}
for r in $(seq "$rounds"); do
    if [ -n "${FETCH_BASE:-}" ]; then
        for s in 1200 16000; do
            if [ $((r % 2)) = 1 ]; then run base "$s"; run this "$s"; else run this "$s"; run base "$s"; fi
        done
    else
        for s in $sizes; do run this "$s"; done
    fi
    echo "round $r of $rounds done" >&2
done
python3 - "$work/rows" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    build, s, mbps, cpu = line.split()
    by.setdefault((int(s), build), []).append((float(mbps), float(cpu)))
builds = len({b for _, b in by}) > 1
print("| segment (bytes) |" + (" build |" if builds else "") + " runs | Mbit/s (median) | CPU s/GB (median) |")
print("|---|" + ("---|" if builds else "") + "---|---|---|")
for (s, b) in sorted(by):
    runs = by[(s, b)]
    print(f"| {s} |" + (f" {b} |" if builds else "") + f" {len(runs)} | {statistics.median(m for m, _ in runs):.0f} "
          f"| {statistics.median(c for _, c in runs):.2f} |")
PY
