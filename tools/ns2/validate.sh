#!/usr/bin/env bash
# Validate Radial's TCP baselines against ns-2 (the scenarios of docs/validation.md):
# installs Debian's ns2 if missing, runs the S1/S2/S4 grids in ns-2 and in
# Radial, and writes the side-by-side table into DIR/validation.md
# (default DIR: radial-out/validation; `--out docs` updates the published
# page). The runs' outputs go to radial-out/validation/runs.
# Exits non-zero if an acceptance criterion fails.
# Usage: tools/ns2/validate.sh [--out DIR]   (from anywhere in the repository)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
REPORT_DIR="$ROOT/radial-out/validation"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) REPORT_DIR="${2:?--out needs a directory}"; shift 2 ;;
        *) echo "usage: tools/ns2/validate.sh [--out DIR]" >&2; exit 2 ;;
    esac
done
OUT="$ROOT/radial-out/validation/runs"
export RADIAL_NS2_OUT="$OUT"
mkdir -p "$OUT" "$REPORT_DIR"
REPORT="$REPORT_DIR/validation.md"
# The page's text around the table comes from the published one.
[ -f "$REPORT" ] || cp "$ROOT/docs/validation.md" "$REPORT"

"$HERE/install-ns2.sh"
"$HERE/run-ns2.sh"

cargo build --release -q -p radial --manifest-path "$ROOT/Cargo.toml"
RADIAL="$ROOT/target/release/radial"
"$RADIAL" sweep "$ROOT/scenarios/validation/s1-wireless-loss.toml" --out "$OUT/radial-s1" >/dev/null
"$RADIAL" sweep "$ROOT/scenarios/validation/s2-dumbbell.toml" --out "$OUT/radial-s2" >/dev/null
"$RADIAL" sweep "$ROOT/scenarios/validation/s4-long-delay.toml" --out "$OUT/radial-s4" >/dev/null

python3 "$HERE/compare.py" "$REPORT"
