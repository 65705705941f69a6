#!/usr/bin/env python3
"""Bulk transfer over the kernel's TCP or MPTCP, for tools/bench/mptcp.sh.

  bulk.py serve ADDR PORT BYTES [--mptcp]     send BYTES to every client
  bulk.py get ADDR PORT [--mptcp] [--rcvbuf N] [--bind IP] [--out FILE]
                                              receive until the server closes;
                                              print a JSON summary; with
                                              --out, write what arrives to
                                              FILE and hash it (SHA-256), the
                                              work `radial get` does
  bulk.py cpu FILE COMMAND...                 run COMMAND; write the CPU
                                              seconds it took to FILE

The summary has the bytes, seconds, goodput (Mbit/s), the longest time
between two receipts (the stall a handoff causes), the client's CPU seconds
(from just before it connects: not the interpreter's start),
the receive buffer the kernel reports (SO_RCVBUF: twice what was set, for
its bookkeeping) and the largest window it would advertise during the
transfer (TCP_INFO's tcpi_rcv_ssthresh, sampled every megabyte): the bytes
of data the receive buffer actually lets the sender have in flight.
"""

import hashlib
import json
import resource
import socket
import struct
import sys
import time

IPPROTO_MPTCP = 262


# struct tcp_info (linux/tcp.h): tcpi_rcv_ssthresh is the 18th 32-bit field
# after the 8 one-byte ones.
RCV_SSTHRESH_AT = 64


def advertisable(s):
    """The largest window the socket would advertise now (bytes)."""
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
    return struct.unpack_from("I", info, RCV_SSTHRESH_AT)[0]


def make_socket(mptcp):
    return socket.socket(socket.AF_INET, socket.SOCK_STREAM,
                         IPPROTO_MPTCP if mptcp else socket.IPPROTO_TCP)


def serve(addr, port, size, mptcp):
    s = make_socket(mptcp)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(8)
    chunk = bytes(range(256)) * 256
    while True:
        c, _ = s.accept()
        left = size
        try:
            while left > 0:
                n = c.send(chunk[:min(left, len(chunk))])
                left -= n
        except OSError:
            pass
        c.close()


def get(addr, port, mptcp, rcvbuf, bind, out):
    # The CPU counted from here: the interpreter's own start is not the
    # transport's, and on a file of tens of megabytes it is a sizeable
    # share of what the receiving costs.
    begun = resource.getrusage(resource.RUSAGE_SELF)

    def fresh():
        s = make_socket(mptcp)
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        if bind:
            s.bind((bind, 0))
        s.settimeout(60)
        return s

    # The server may not listen yet: try again for up to 5 s.
    s = fresh()
    for _ in range(50):
        try:
            s.connect((addr, port))
            break
        except (ConnectionRefusedError, socket.timeout):
            time.sleep(0.1)
            s.close()
            s = fresh()
    start = last = time.monotonic()
    got = 0
    gap = 0.0
    gap_at = 0.0
    # Received into a quarter megabyte, written and hashed when it fills
    # (as `radial get` hands its writer a quarter megabyte at a time), not
    # per receive call.
    chunk = 1 << 18
    buf = bytearray(chunk + (1 << 16))
    view = memoryview(buf)
    filled = 0
    window = 0
    sampled = 0
    f = open(out, "wb") if out else None
    h = hashlib.sha256()
    while True:
        n = s.recv_into(view[filled:filled + (1 << 16)])
        if n == 0:
            break
        if f:
            filled += n
            if filled >= chunk:
                f.write(view[:filled])
                h.update(view[:filled])
                filled = 0
        now = time.monotonic()
        if got and now - last > gap:
            gap, gap_at = now - last, last - start
        last = now
        got += n
        if got - sampled >= 1 << 20:
            sampled = got
            window = max(window, advertisable(s))
    seconds = last - start
    if f:
        f.write(view[:filled])
        h.update(view[:filled])
        f.close()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "protocol": "mptcp" if mptcp else "tcp",
        "bytes": got,
        "seconds": seconds,
        "goodput_mbps": got * 8 / seconds / 1e6 if seconds > 0 else 0.0,
        "max_gap_s": gap,
        "max_gap_at_s": gap_at,
        "cpu_s": (usage.ru_utime - begun.ru_utime) + (usage.ru_stime - begun.ru_stime),
        "rcvbuf": s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
        "window_max": window,
        "sha256": h.hexdigest() if f else None,
    }))


def cpu(out, command):
    import subprocess
    code = subprocess.call(command)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "w") as f:
        f.write("%f\n" % (usage.ru_utime + usage.ru_stime))
    sys.exit(code)


def main(argv):
    if len(argv) >= 3 and argv[0] == "cpu":
        cpu(argv[1], argv[2:])
    mptcp = "--mptcp" in argv
    args = [a for a in argv if a != "--mptcp"]

    def option(name):
        if name in args:
            i = args.index(name)
            value = args[i + 1]
            del args[i:i + 2]
            return value
        return None

    rcvbuf = int(option("--rcvbuf") or 0)
    bind = option("--bind")
    out = option("--out")
    if len(args) >= 4 and args[0] == "serve":
        serve(args[1], int(args[2]), int(args[3]), mptcp)
    elif len(args) == 3 and args[0] == "get":
        get(args[1], int(args[2]), mptcp, rcvbuf, bind, out)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
