#!/usr/bin/env bash
# The runtime through emulated paths on loopback: each scenario's timing
# beside the bound it meets on an idle machine (the tests in
# crates/radial-net/tests/emulated.rs assert only what holds under load).
# Usage: tools/bench/emulated.sh   Prints a Markdown table.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
cargo run --release -q -p radial-net --example emulated
