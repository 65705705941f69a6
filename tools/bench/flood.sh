#!/usr/bin/env bash
# Floods against one server on loopback while a client downloads: the
# server's memory and the download's outcome. `handshakes`: HELLOs,
# sealed-looking and garbage datagrams; `sessions`: sealed JOINs, SYNs,
# pulls and GETs on the flood's own connections. Both unless one is named.
# Usage: tools/bench/flood.sh [PPS] [SECONDS] [handshakes|sessions]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cargo build --release -q -p radial-net --example flood
for kind in ${3:-handshakes sessions}; do
    echo "== $kind"
    target/release/examples/flood "${1:-100000}" "${2:-10}" "$kind"
done
