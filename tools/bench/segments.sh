#!/usr/bin/env bash
# Goodput and CPU per GB of one stream on loopback (radial-net's `fetch`
# example: client and server in one process, encrypted) against the
# segment size its connection asks in, to choose the size for the loopback
# device (`config::LOOPBACK_SEGMENT`). The sizes run in turn within each
# round, so that a slow spell of the machine falls on all of them; prints a
# Markdown table of each size's medians.
# Usage: tools/bench/segments.sh [SIZE_MB] [ROUNDS]   (default 1000 MB, 5)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
size_mb=${1:-1000}
rounds=${2:-5}
sizes="1200 4000 8000 16000 32000 60000"
cargo build --release -q -p radial-net --example fetch
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$rounds"); do
    for s in $sizes; do
        # "fetch: ... segments of S bytes: M Mbit/s, C CPU-s/GB (...)"
        target/release/examples/fetch "$size_mb" 1 "$s" \
            | sed -E "s/.*: ([0-9.]+) Mbit\/s, ([0-9.]+) CPU.*/$s \1 \2/" >> "$work/rows"
    done
    echo "round $r of $rounds done" >&2
done
python3 - "$work/rows" <<'PY'
import statistics, sys
by = {}
for line in open(sys.argv[1]):
    s, mbps, cpu = line.split()
    by.setdefault(int(s), []).append((float(mbps), float(cpu)))
print("| segment (bytes) | runs | Mbit/s (median) | CPU s/GB (median) |")
print("|---|---|---|---|")
for s in sorted(by):
    runs = by[s]
    print(f"| {s} | {len(runs)} | {statistics.median(m for m, _ in runs):.0f} "
          f"| {statistics.median(c for _, c in runs):.2f} |")
PY
