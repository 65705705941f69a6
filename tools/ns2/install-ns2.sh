#!/usr/bin/env bash
# Install Debian's ns-2 (package ns2, provides /usr/bin/ns, version 2.35) if
# `ns` is not already on PATH.  Idempotent; runs `apt-get update` only when
# the package cannot be installed from the current package lists.
set -euo pipefail

if command -v ns >/dev/null 2>&1; then
    echo "ns already installed: $(command -v ns)"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive

if ! $SUDO apt-get install -y --no-install-recommends ns2; then
    echo "install from current lists failed; running apt-get update" >&2
    $SUDO apt-get update
    $SUDO apt-get install -y --no-install-recommends ns2
fi

command -v ns >/dev/null 2>&1 || { echo "ns still missing after install" >&2; exit 1; }
echo "installed ns: $(command -v ns)"
