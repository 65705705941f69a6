#!/usr/bin/env python3
"""Random handoff storms for R²CP, beyond the stress page's fixed ones.

Each case takes scenarios/stress/handoff-storm.toml (a host's WLAN and WWAN
links up in turn, one of them up at any time) and draws the WLAN's rate
(2, 5, 9 or 20 Mbit/s) and the delay to its access point (5, 15 or 30 ms),
the WWAN's rate (0.5, 1, 2 or 5 Mbit/s) and the delay to its base station
(50, 85, 150 or 250 ms), the last hops' queue (20, 50 or 100 packets), the
receive buffer (32, 64, 256 or 1024 segments), how long each link stays up
in a turn (1 to 2 s) and a simulation seed. It runs the scenario's three
variants (R²CP told of each link change, R²CP told nothing, and RCP handing
off hard to the link that comes up) and compares R²CP's goodput with RCP's.

With --fresh it takes scenarios/stress/fresh-attachments.toml instead:
each attachment is a new pipe (a new address each time), and it compares
R²CP with every rule (`r2cp`), R²CP without rule `route_memory`
(`r2cp-forgetful`, each new pipe starting afresh) and hard-handoff RCP.

Usage: tools/stress/random_storms.py [--fresh] [--seed N] [--cases N] [--radial PATH]
Prints one Markdown row per case and a summary. The same seed draws the
same cases.
"""

import argparse
import csv
import os
import subprocess
import tempfile
from pathlib import Path
import random

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "scenarios" / "stress" / "handoff-storm.toml"
FRESH = ROOT / "scenarios" / "stress" / "fresh-attachments.toml"
FRESH_DURATION_S = 40


def draw(rng):
    return {
        "wlan": rng.choice([2, 5, 9, 20]),
        "wwan": rng.choice([0.5, 1, 2, 5]),
        "ap_ms": rng.choice([5, 15, 30]),
        "bs_ms": rng.choice([50, 85, 150, 250]),
        "queue": rng.choice([20, 50, 100]),
        "window": rng.choice([32, 64, 256, 1024]),
        "turn": rng.choice([1, 1.2, 1.4, 1.6, 1.8, 2]),
        "seed": rng.randint(1, 1000),
    }


def links(c):
    return [
        ('rate = "2Mbit/s"', f'rate = "{c["wwan"]}Mbit/s"'),
        ('rate = "9Mbit/s"', f'rate = "{c["wlan"]}Mbit/s"'),
        ('delay = "15ms"', f'delay = "{c["ap_ms"]}ms"'),
        ('delay = "85ms"', f'delay = "{c["bs_ms"]}ms"'),
        ("queue = 50", f'queue = {c["queue"]}'),
        ("window = 256", f'window = {c["window"]}'),
        ("seeds = [1]", f'seeds = [{c["seed"]}]'),
    ]


def replaced(base, text, pairs):
    for old, new in pairs:
        if old not in text:
            raise SystemExit(f"{base}: expected `{old}` to draw from")
        text = text.replace(old, new)
    return text


def scenario(c):
    return replaced(
        BASE,
        BASE.read_text(),
        links(c)
        + [
            ("period = [1, 1.5, 2]", f'period = [{c["turn"]}]'),
            ("cycle = [2, 3, 4]", f'cycle = [{2 * c["turn"]}]'),
        ],
    )


def fresh_pipes(turn):
    """One pipe per attachment over the run, the WLAN's first."""
    entries, k = [], 0
    while k * turn < FRESH_DURATION_S:
        via = "MHL" if k % 2 == 0 else "MHW"
        start, end = round(k * turn, 3), round((k + 1) * turn, 3)
        drop = f', drop = "{end}s"' if end < FRESH_DURATION_S else ""
        entries.append(f'{{ via = "{via}", open = "{start}s"{drop} }}')
        k += 1
    return "pipes = [ " + ",\n             ".join(entries) + " ]"


def fresh_scenario(c):
    text = FRESH.read_text()
    turn = c["turn"]
    lines = text.split("\n")
    # Each flow's pipe list: from its `pipes = [` line to the line closing it.
    out, skipping = [], False
    for line in lines:
        if line.startswith("pipes = ["):
            out.append(fresh_pipes(turn))
            skipping = not line.rstrip().endswith("]")
            continue
        if skipping:
            skipping = not line.rstrip().endswith("]")
            continue
        out.append(line)
    text = "\n".join(out)
    return replaced(
        FRESH,
        text,
        links(c)
        + [
            ('at = "2s", every = "4s"', f'at = "{turn}s", every = "{2 * turn}s"'),
            ('at = "4s", every = "4s"', f'at = "{2 * turn}s", every = "{2 * turn}s"'),
            ('at = "2s"\nevery = "4s"', f'at = "{turn}s"\nevery = "{2 * turn}s"'),
            ('at = "4s"\nevery = "4s"', f'at = "{2 * turn}s"\nevery = "{2 * turn}s"'),
            ('at = "0s"\nevery = "4s"', f'at = "0s"\nevery = "{2 * turn}s"'),
        ],
    )


def run(radial, c, make=scenario):
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "storm.toml")
        with open(path, "w") as f:
            f.write(make(c))
        out = os.path.join(work, "out")
        subprocess.run([radial, "sweep", path, "--out", out], check=True, capture_output=True)
        with open(os.path.join(out, "results.csv")) as f:
            return {r["variant"]: r for r in csv.DictReader(f)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="draws the cases")
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--radial", default=str(ROOT / "target" / "release" / "radial"))
    ap.add_argument("--fresh", action="store_true", help="a new pipe per attachment")
    a = ap.parse_args()
    if a.cases < 0:
        ap.error("--cases must be at least 0")
    rng = random.Random(a.seed)
    cases = [draw(rng) for _ in range(a.cases)]
    if a.fresh:
        fresh(a, cases)
        return
    table(
        a,
        cases,
        scenario,
        {"r2cp-signalled": "signalled", "r2cp-silent": "silent"},
        ["signalled (Mbit/s)", "silent", "RCP hard", "signalled / RCP", "silent / RCP",
         "longest gap signalled / silent (s)"],
        "storms",
        gaps=True,
    )


def fresh(a, cases):
    table(
        a,
        cases,
        fresh_scenario,
        {"r2cp": "r2cp", "r2cp-forgetful": "r2cp-forgetful"},
        ["r2cp (Mbit/s)", "r2cp-forgetful", "RCP hard", "r2cp / RCP", "forgetful / RCP"],
        "cases",
        gaps=False,
    )


def table(a, cases, make, compared, columns, what, gaps):
    """Runs every case with `make`'s scenario and prints one row per case:
    the goodput of each variant in `compared` (by its label) and of RCP
    handing off hard, each against RCP's, and with `gaps` the longest
    delivery gaps; then how often each fell below RCP, and the sums."""
    head = "| case | WLAN (Mbit/s, ms to AP) | WWAN (Mbit/s, ms to BS) | queue | buffer | turn (s) "
    print(head + "".join(f"| {c} " for c in columns) + "|")
    print("|---" * (6 + len(columns)) + "|")
    below = {v: 0 for v in compared}
    total = {v: 0.0 for v in [*compared, "rcp-hard"]}
    for n, c in enumerate(cases):
        r = run(a.radial, c, make)
        g = {v: float(r[v]["goodput_mbps"]) for v in total}
        for v in total:
            total[v] += g[v]
        for v in below:
            below[v] += g[v] < g["rcp-hard"]
        row = (
            f'| {n} | {c["wlan"]}, {c["ap_ms"]} | {c["wwan"]}, {c["bs_ms"]} | {c["queue"]} '
            f'| {c["window"]} | {c["turn"]} '
            + "".join(f"| {g[v]:.2f} " for v in total)
            + "".join(f'| {g[v] / g["rcp-hard"]:.2f} ' for v in compared)
        )
        if gaps:
            gap = [f'{float(r[v]["max_delivery_gap_s"] or 0):.2f}' for v in compared]
            row += "| " + " / ".join(gap) + " "
        print(row + "|", flush=True)
    labels = list(compared.items())
    first = ", ".join(f"{label} in {below[v]}" for v, label in labels[:-1])
    last_v, last_label = labels[-1]
    sums = ", ".join(f"{label} {total[v]:.1f}" for v, label in labels)
    print(
        f"\nBelow hard-handoff RCP: {first}, {last_label} in {below[last_v]} of {len(cases)} "
        f"{what}. Summed goodput: {sums}, RCP hard {total['rcp-hard']:.1f} Mbit/s."
    )


if __name__ == "__main__":
    main()
