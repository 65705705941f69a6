#!/usr/bin/env python3
"""Random aggregation cases for R²CP, beyond the stress page's fixed ones.

Each case draws 2 to 5 paths (WLAN-like, cellular-like or satellite-like
rates and one-way delays, a bottleneck queue of 50, 100 or 400 packets, and
on most of them a Gilbert-Elliott channel), and one receive buffer among:
twice the best path's bandwidth-delay product, four times the largest one,
and twice the sum of the bandwidths times the largest round trip (round
trips from propagation). It runs R²CP over all the paths, then RCP on each
path alone with the same buffer (the paths share nothing), for several
seeds, and compares the means with the two goodput criteria:

- at least 95 % of the best path alone, once the buffer is at least twice
  that path's bandwidth-delay product;
- at least 95 % of Ideal (the paths alone, summed), once the buffer is at
  least twice the sum of the bandwidths times the largest round trip.

Usage: tools/stress/random_aggregation.py [--seed N] [--cases N] [--runs N]
  [--duration S] [--jobs N] [--radial PATH] [--min-paths N] [--max-paths N]
  [--buffer best|largest|sum] [--all-bursty] [--satellite]
  [--flow span|reserve]
--flow picks R²CP's flow control (the engine's default, reserve, or span). The
five before it narrow the draw to one class, e.g. three bursty paths with a
satellite one and the buffer for Ideal:
  --min-paths 3 --max-paths 3 --all-bursty --satellite --buffer sum
Prints one Markdown row per case; a case below a criterion it is held to is
marked. The same seed draws the same cases.
"""

import argparse
import json
import os
import random
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

KINDS = {
    # kind: (rates in kbit/s, one-way delays in ms)
    "wlan": ([2000, 5000, 10000, 20000], [10, 20, 30, 50]),
    "cellular": ([500, 1000, 2000, 5000], [50, 100, 150]),
    "satellite": ([1000, 5000, 10000], [250, 300]),
}


def draw_paths(rng, a):
    paths = []
    count = rng.randint(a.min_paths, a.max_paths)
    for n in range(count):
        kind = rng.choice(sorted(KINDS))
        if a.satellite and n == count - 1 and all(p["kind"] != "satellite" for p in paths):
            kind = "satellite"
        rates, delays = KINDS[kind]
        paths.append(
            {
                "kind": kind,
                "rate": rng.choice(rates),
                "delay": rng.choice(delays),
                "queue": rng.choice([50, 100, 400]),
                "ge": rng.random() < 0.6 or a.all_bursty,
                "bad_loss": rng.choice([0.05, 0.1]),
                "good_mean": rng.choice([5, 10]),
                "bad_mean": rng.choice([0.5, 1]),
            }
        )
    return paths


def scenario(paths, window, mode, duration, flow="reserve"):
    out = [
        f'[scenario]\nname = "random-aggregation"\nduration = "{duration}s"\n'
        'sample_interval = "1s"\n',
        f"[tcp]\npacket_size = 1000\nwindow = {window}\n",
        '[[node]]\nname = "S"\n[[node]]\nname = "C"\n',
        '[[link]]\nbetween = ["S", "C"]\nrate = "1Gbit/s"\ndelay = "1ms"\n',
    ]
    for i, p in enumerate(paths):
        out.append(f'[[node]]\nname = "BS{i}"\n[[node]]\nname = "MH{i}"\n')
        out.append(
            f'[[link]]\nbetween = ["C", "BS{i}"]\nrate = "1Gbit/s"\n'
            f'delay = "{p["delay"] - 1}ms"\n'
        )
        loss = ""
        if p["ge"]:
            loss = (
                'loss = { model = "gilbert-elliott", good_loss = 0.0001, '
                f'bad_loss = {p["bad_loss"]}, good_mean = "{p["good_mean"]}s", '
                f'bad_mean = "{p["bad_mean"]}s", direction = "forward" }}\n'
            )
        out.append(
            f'[[link]]\nname = "path{i}"\nbetween = ["BS{i}", "MH{i}"]\n'
            f'rate = "{p["rate"]}kbit/s"\ndelay = "1ms"\nqueue = {p["queue"]}\n{loss}'
        )
    if mode == "aggregate":
        pipes = ", ".join(f'{{ via = "MH{i}" }}' for i in range(len(paths)))
        out.append(
            '[[flow]]\nname = "aggregate"\nprotocol = "r2cp"\nfrom = "S"\n'
            f'to = "MH0"\npipes = [ {pipes} ]\npolicy = {{ flow = "{flow}" }}\n'
        )
    else:
        for i in range(len(paths)):
            out.append(
                f'[[flow]]\nname = "alone{i}"\nprotocol = "rcp"\nfrom = "S"\n'
                f'to = "MH{i}"\n'
            )
    return "\n".join(out)


def run(radial, work, text, seed):
    path = os.path.join(work, "case.toml")
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(work, "out")
    subprocess.run(
        [radial, "run", path, "--seed", str(seed), "--out", out],
        check=True,
        capture_output=True,
    )
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)["flows"]


def draw_case(rng, a):
    """One case: its paths and which buffer rule it takes."""
    paths = draw_paths(rng, a)
    choice = rng.choice(["best", "largest", "sum"])
    return paths, a.buffer or choice


def evaluate(a, number, paths, choice):
    """Runs one case and returns its Markdown row and whether it held every
    criterion it is held to (None when it is held to none)."""
    bdp = [p["rate"] / 8 * 2 * p["delay"] / 1000 for p in paths]  # segments
    largest_rtt = max(2 * p["delay"] for p in paths) / 1000
    sum_buffer = 2 * sum(p["rate"] / 8 for p in paths) * largest_rtt
    seeds = range(1, a.runs + 1)
    with tempfile.TemporaryDirectory() as work:
        # The best path is the one whose RCP alone goes fastest.
        alone = [
            run(a.radial, work, scenario(paths, 100000, "alone", a.duration), s)
            for s in seeds
        ]
        mean = [
            sum(r[i]["goodput_mbps"] for r in alone) / len(alone)
            for i in range(len(paths))
        ]
        best = max(range(len(paths)), key=lambda i: mean[i])
        window = {
            "best": max(4, int(2 * bdp[best]) + 1),
            "largest": int(4 * max(bdp)) + 1,
            "sum": int(sum_buffer) + 1,
        }[choice]
        alone = [
            run(a.radial, work, scenario(paths, window, "alone", a.duration), s)
            for s in seeds
        ]
        agg = [
            run(a.radial, work, scenario(paths, window, "aggregate", a.duration, a.flow), s)[0]
            for s in seeds
        ]
    per_path = [
        sum(r[i]["goodput_mbps"] for r in alone) / len(alone) for i in range(len(paths))
    ]
    best_g = max(per_path)
    best = per_path.index(best_g)
    ideal = sum(per_path)
    g = sum(f["goodput_mbps"] for f in agg) / len(agg)
    gap = max(f["max_delivery_gap_s"] for f in agg)
    verdict = []
    if window >= 2 * bdp[best]:
        verdict.append("best: " + ("holds" if g >= 0.95 * best_g else "**fails**"))
    if window >= sum_buffer:
        verdict.append("Ideal: " + ("holds" if g >= 0.95 * ideal else "**fails**"))
    held = None if not verdict else not any("fails" in v for v in verdict)
    desc = ", ".join(
        f'{p["rate"]}/{p["delay"]}/{p["queue"]}{"/GE" if p["ge"] else ""}' for p in paths
    )
    row = (
        f"| {number} | {desc} | {window} | {g:.2f} | {best_g:.2f} | {g / best_g:.0%} "
        f"| {ideal:.2f} | {g / ideal:.0%} | {gap:.2f} | {'; '.join(verdict) or '—'} |"
    )
    return row, held, g, ideal


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="draws the cases")
    ap.add_argument("--cases", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3, help="simulation seeds per case")
    ap.add_argument("--duration", type=int, default=60, help="simulated seconds")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="cases run at once (default: one per CPU)")
    ap.add_argument("--radial", default="target/release/radial")
    ap.add_argument("--min-paths", type=int, default=2)
    ap.add_argument("--max-paths", type=int, default=5)
    ap.add_argument("--buffer", choices=["best", "largest", "sum"],
                    help="one buffer rule for every case (default: drawn)")
    ap.add_argument("--all-bursty", action="store_true",
                    help="a Gilbert-Elliott channel on every path")
    ap.add_argument("--flow", choices=["span", "reserve"], default="reserve",
                    help="R²CP's flow control (default: reserve, the engine's)")
    ap.add_argument("--satellite", action="store_true",
                    help="at least one satellite-like path in every case")
    a = ap.parse_args()
    if a.jobs < 1 or a.cases < 0 or a.runs < 1 or a.duration < 1:
        ap.error("--jobs, --runs and --duration must be at least 1, --cases at least 0")
    if not 1 <= a.min_paths <= a.max_paths:
        ap.error("--min-paths must be at least 1 and at most --max-paths")
    rng = random.Random(a.seed)
    # Every case is drawn first, in order, so a seed draws the same cases
    # however many run at once.
    cases = [draw_case(rng, a) for _ in range(a.cases)]
    print(
        "| case | paths (kbit/s, one-way ms, queue, bursty loss) | buffer (segments) "
        "| R²CP (Mbit/s) | best alone | R²CP / best | Ideal | R²CP / Ideal "
        "| longest gap (s) | verdict |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    held, failed, total, ideal = 0, 0, 0.0, 0.0
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        rows = pool.map(lambda c: evaluate(a, c[0], *c[1]), enumerate(cases))
        for row, ok, g, i in rows:
            print(row, flush=True)
            total += g
            ideal += i
            if ok is True:
                held += 1
            elif ok is False:
                failed += 1
    print(
        f"\n{held} cases hold every criterion they are held to, {failed} fail one. "
        f"R²CP summed over the cases {total:.2f} Mbit/s, Ideal {ideal:.2f}."
    )


if __name__ == "__main__":
    main()
