#!/usr/bin/env bash
# curl fetches a file from an HTTP server in `radial shell`'s servers'
# namespace through a SOCKS5 proxy, over two emulated paths one of which
# goes down and comes back: through `radial tunnel` (to `radial serve
# --tunnel`), and through the kernel's MPTCP (`mptcpize run curl` to
# `mptcpize run microsocks`). Prints goodput (first byte to last) and the
# longest stall for each, side by side, and checks each file's SHA-256.
# Needs root, a kernel with MPTCP, python3; installs curl, mptcpd (for
# mptcpize) and microsocks from Debian if missing.
# Usage: sudo tools/bench/tunnel.sh [MB] [REPEAT]   (default 40 MB, 3 runs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mb=${1:-40}
repeat=${2:-3}
for tool in curl mptcpize microsocks; do
    if ! command -v $tool >/dev/null; then
        pkg=$tool
        [ $tool = mptcpize ] && pkg=mptcpd
        apt-get update -qq && apt-get install -y -qq $pkg >/dev/null
    fi
done
# shellcheck source=tools/bench/shell_setup.sh
. tools/bench/shell_setup.sh
watch="python3 $PWD/tools/bench/watch_fetch.py"
head -c $((mb * 1000000)) /dev/urandom > "$work/files/f.bin"
sha=$(sha256sum "$work/files/f.bin" | cut -d' ' -f1)
# A WLAN and a cellular path; the WLAN goes 4 s after the command starts
# and comes back 4 s later.
cat > "$work/paths.toml" <<TOML
[[path]]
rate = "20Mbit/s"
delay = "20ms"
[[path]]
rate = "10Mbit/s"
delay = "50ms"
[[schedule]]
at = "4s"
path = 0
action = "down"
[[schedule]]
at = "8s"
path = 0
action = "up"
TOML
http="cd $work/files && exec python3 -m http.server 8080 --bind $server >/dev/null 2>&1"

# One fetch through Radial: the watcher's JSON.
radial_run() {
    "$radial" shell "$work/paths.toml" \
        --server "$radial serve --root $work/files --listen $server:7400 --tunnel \
            --tunnel-clients $work/clients --tunnel-allow 10.255.0.0/24 >/dev/null 2>&1" \
        --server "$http" -- sh -c "
        $radial tunnel radial://$server:7400 --via 10.0.0.2 --via 10.0.1.2 \
            --socks 127.0.0.1:1080 --key $work/client.key >$work/tunnel.out 2>&1 & t=\$!
        for i in \$(seq 100); do grep -q 'tunnel to' $work/tunnel.out && break; sleep 0.1; done
        rm -f $work/out.bin
        $watch $work/out.bin $sha curl -sS --retry 10 --retry-delay 1 --retry-all-errors \
            --socks5-hostname 127.0.0.1:1080 http://$server:8080/f.bin -o $work/out.bin
        kill \$t" 2>/dev/null | tail -1
}

# One fetch through the kernel's MPTCP.
mptcp_run() {
    "$radial" shell "$work/paths.toml" \
        --server "exec mptcpize run microsocks -i $server -p 1080 >/dev/null 2>&1" \
        --server "$http" -- sh -c "
        sleep 0.5
        rm -f $work/out.bin
        $watch $work/out.bin $sha mptcpize run curl -sS --retry 10 --retry-delay 1 \
            --retry-all-errors --socks5-hostname $server:1080 http://$server:8080/f.bin \
            -o $work/out.bin" 2>/dev/null | tail -1
}

# The client's key: `radial tunnel` makes it; the server lists it.
"$radial" tunnel radial://127.0.0.1:1 --socks 127.0.0.1:0 --key "$work/client.key" \
    2>&1 >/dev/null | sed -n 's/^client key \([0-9a-f]*\).*/\1/p' | head -1 > "$work/clients" || true
[ -s "$work/clients" ] || { echo "no client key" >&2; exit 1; }

field() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(d['$2'])" "$1"; }
echo "| run | radial tunnel: Mbit/s | longest stall s | MPTCP + SOCKS: Mbit/s | longest stall s |"
echo "|---|---|---|---|---|"
for r in $(seq "$repeat"); do
    a=$(radial_run)
    b=$(mptcp_run)
    for j in "$a" "$b"; do
        [ "$(field "$j" sha256_ok)" = True ] || { echo "a download failed: $j" >&2; exit 1; }
    done
    echo "| $r | $(field "$a" goodput_mbps) | $(field "$a" stall_s) | $(field "$b" goodput_mbps) | $(field "$b" stall_s) |"
done
