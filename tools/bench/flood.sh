#!/usr/bin/env bash
# A flood of handshakes, sealed-looking and garbage datagrams against one
# server on loopback while a client downloads: the server's memory and the
# download's outcome. Usage: tools/bench/flood.sh [PPS] [SECONDS]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cargo run --release -q -p radial-net --example flood -- "${1:-100000}" "${2:-10}"
