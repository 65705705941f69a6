#!/usr/bin/env bash
# Many concurrent clients against one server on loopback, each through its
# own loopback address; every download must complete intact.
# Usage: tools/bench/clients.sh [CLIENTS] [MB]   (default 1000 clients × 10 MB)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cargo run --release -q -p radial-net --example clients -- "${1:-1000}" "${2:-10}"
