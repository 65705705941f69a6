#!/usr/bin/env python3
"""Writes the seed corpus of the `runtime` fuzz target (seeds/runtime/,
checked in; pass it to `cargo fuzz run runtime CORPUS seeds/runtime`):
scripts that walk a connection through GET, JOIN, VALIDATE, a pipe's SYN,
pull requests, echoes, bundles, replays, corruption and raw garbage.
Step: opcode (0 sealed, 2 replay, 3 corrupt, 4 raw), path (16 bits), length
(8 bits), bytes."""
import os
import struct

SESSION, RCP, BUNDLE = 0x12, 0x11, 0x16
CONTROL = 0xFFFF
CONN = 5


def step(op, path, body):
    return bytes([op]) + struct.pack(">H", path) + bytes([len(body)]) + body


def get(path="data.bin"):
    m = bytes([SESSION, 1]) + struct.pack(">HH", CONN, len(path)) + path.encode()
    return m + bytes(64 - len(m))


def join(p):
    return bytes([SESSION, 4]) + struct.pack(">HH", CONN, p)


def validate(p, echo=bytes(8)):
    return bytes([SESSION, 6]) + struct.pack(">HH", CONN, p) + echo


def echo(p, nonces):
    return bytes([SESSION, 7]) + struct.pack(">HHB", CONN, p, len(nonces)) + b"".join(
        struct.pack(">I", n) for n in nonces)


def rcp(flags, p, seq=0, deq=0, rid=0, blocks=()):
    h = bytes([RCP, flags, len(blocks), 0]) + struct.pack(">IIII", CONN | (p << 16), seq, deq, rid)
    for (s, e, i) in blocks:
        h += struct.pack(">III", s, e, i)
    return h


SYN, ACK, REQ, PUL, PROBE, FIN = 0x01, 0x02, 0x10, 0x08, 0x20, 0x04


def bundle(*ds):
    return bytes([BUNDLE]) + b"".join(struct.pack(">H", len(d)) + d for d in ds)


seeds = {
    "walk": [step(0, CONTROL, get()), step(0, 0, join(0)), step(0, 0, validate(0)),
             step(0, 0, rcp(SYN, 0)), step(0, 0, rcp(ACK, 0)),
             step(0, 0, rcp(REQ | PUL, 0, 1, 1, 1, [(1, 10001, 1)])),
             step(0, 0, echo(0, [1, 2, 3])), step(2, 0, b""), step(3, 7, b"\x04"),
             step(0, 0, rcp(REQ | FIN, 0, 100001, 100001))],
    "bundle": [step(0, CONTROL, get()), step(0, 1, join(1)), step(0, 1, rcp(SYN, 1)),
               step(0, 1, bundle(rcp(REQ | PUL, 1, 1, 1, 1, [(1, 1201, 1)]),
                                 rcp(REQ | PUL, 1, 1, 1, 2, [(1201, 2401, 2)]),
                                 rcp(REQ | PROBE, 1, 1, 1, 2)))],
    "escape": [step(0, CONTROL, get("../etc/passwd")), step(0, CONTROL, get("/proc/self/environ")),
               step(0, CONTROL, get("data.bin\x00x"))],
    "garbage": [step(4, 0, bytes([0x15]) + bytes(30)), step(4, 1, bytes([0x14, 1]) + bytes(40)),
                step(4, 2, b"\x11\x10\x00\x00" + bytes(16)), step(0, 3, b"\xff" * 40)],
    "paths": [step(0, CONTROL, get())] + [step(0, p, join(p)) for p in range(20)],
}
os.makedirs("seeds/runtime", exist_ok=True)
for name, steps in seeds.items():
    with open(os.path.join("seeds/runtime", name), "wb") as f:
        f.write(b"".join(steps))
