#!/usr/bin/env python3
"""Runs a download command and watches its output file grow, for
tools/bench/tunnel.sh.

  watch_fetch.py OUT EXPECTED_SHA256 COMMAND...

Polls OUT's size every 10 ms while COMMAND runs and prints one JSON line:
the command's exit status, the bytes, the seconds from the first byte to
the last, the goodput over them (Mbit/s), the longest time the file did
not grow in between (the stall an outage causes), and whether the file's
SHA-256 is the one expected.
"""

import hashlib
import json
import os
import subprocess
import sys
import time


def main():
    out, want, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    p = subprocess.Popen(cmd)
    first = last = None
    size = 0
    stall = 0.0
    while True:
        done = p.poll() is not None
        now = time.monotonic()
        try:
            s = os.path.getsize(out)
        except OSError:
            s = 0
        if s > size:
            if first is None:
                first = now
            else:
                stall = max(stall, now - last)
            last = now
            size = s
        if done:
            break
        time.sleep(0.01)
    digest = hashlib.sha256()
    with open(out, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    seconds = (last - first) if first is not None and last > first else 0.0
    print(json.dumps({
        "status": p.returncode,
        "bytes": size,
        "seconds": round(seconds, 3),
        "goodput_mbps": round(size * 8 / seconds / 1e6, 2) if seconds else 0.0,
        "stall_s": round(stall, 3),
        "sha256_ok": digest.hexdigest() == want,
    }))


if __name__ == "__main__":
    main()
