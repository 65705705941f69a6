"""The RCP paper's Figure 5(a) from Python: goodput against the wireless
loss rate for TCP-SACK, TCP-ELN, RCP and RCP-ELN over a 2 Mbit/s, 15 ms
wireless last hop (the scenario `radial repro rcp-fig5a` runs; its table
and checks are in docs/results/rcp.md).

    python python/examples/rcp_fig5a.py --out fig5a.png            # the paper's 10 seeds
    python python/examples/rcp_fig5a.py --seeds 2 --out quick.png  # fewer, faster

Prints the mean goodput per protocol and loss rate and writes the figure:
mean over seeds with 95 % confidence intervals, one colour per protocol.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import radial  # noqa: E402

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "papers" / "rcp-fig5a.toml"
# Student's t at 97.5 % for n - 1 degrees of freedom (n seeds, up to 10).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=None, help="first N of the scenario's seeds (default: all)")
    ap.add_argument("--jobs", type=int, default=None, help="threads (default: every core)")
    ap.add_argument("--out", default="rcp-fig5a.png", help="the figure (PNG)")
    args = ap.parse_args()

    seeds = radial.parameters(SCENARIO)["seeds"]
    if args.seeds is not None:
        seeds = seeds[: args.seeds]
    df = radial.sweep(SCENARIO, jobs=args.jobs, seeds=seeds)

    stats = df.groupby(["protocol", "loss"]).goodput_mbps.agg(["mean", "std", "count"]).reset_index()
    print(stats.pivot(index="loss", columns="protocol", values="mean").round(3).to_string())

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for protocol, rows in stats.groupby("protocol", sort=False):
        n = rows["count"].iloc[0]
        half = rows["std"].fillna(0) * T975.get(n - 1, 1.96) / math.sqrt(n) if n > 1 else 0
        ax.errorbar(rows["loss"] * 100, rows["mean"], yerr=half, marker="o", capsize=3,
                    color=radial.COLOURS.get(protocol), label=protocol)
    ax.set_xscale("log")
    ax.set_xlabel("packet loss rate on the wireless link (%)")
    ax.set_ylabel("goodput (Mbit/s), mean over %d seeds" % len(seeds))
    ax.set_title("RCP Figure 5(a): goodput against wireless loss")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
