#!/usr/bin/env bash
# Validate Radial's TCP baselines against ns-2 (the scenarios of docs/validation.md):
# installs Debian's ns2 if missing, runs the S1/S2/S4 grids in ns-2 and in
# Radial, and rewrites the side-by-side table in docs/validation.md.
# Exits non-zero if an acceptance criterion fails.
# Usage: tools/ns2/validate.sh            (from anywhere in the repository)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="$HERE/out"
mkdir -p "$OUT"

"$HERE/install-ns2.sh"
"$HERE/run-ns2.sh"

cargo build --release -q -p radial --manifest-path "$ROOT/Cargo.toml"
RADIAL="$ROOT/target/release/radial"
"$RADIAL" sweep "$ROOT/scenarios/validation/s1-wireless-loss.toml" --out "$OUT/radial-s1" >/dev/null
"$RADIAL" sweep "$ROOT/scenarios/validation/s2-dumbbell.toml" --out "$OUT/radial-s2" >/dev/null
"$RADIAL" sweep "$ROOT/scenarios/validation/s4-long-delay.toml" --out "$OUT/radial-s4" >/dev/null

python3 "$HERE/compare.py" "$ROOT/docs/validation.md"
