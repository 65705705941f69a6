#!/usr/bin/env python3
"""Side-by-side table of ns-2 and Radial on the validation scenarios.

Reads ns2-{s1,s2,s4}.csv (from run-ns2.sh) and radial-{s1,s2,s4}/results.csv
(from `radial sweep`) in $RADIAL_NS2_OUT (default radial-out/validation/runs),
prints the side-by-side table, writes it between the markers of the Markdown
report REPORT when one is given, and exits 1 if an acceptance criterion of
the validation scenarios (docs/validation.md) fails:
  S1, S4: mean goodput within 10 % of ns-2 at every grid point, or within the
          combined 95 % confidence interval where that is wider;
  S2:     mean per-flow goodput within 5 %, CoV within 0.05 absolute.
Usage: compare.py [REPORT]
Standard library only.
"""
import argparse
import csv
import math
import os
import statistics as st
import sys
from pathlib import Path

OUT = Path(os.environ.get("RADIAL_NS2_OUT")
           or Path(__file__).resolve().parents[2] / "radial-out" / "validation" / "runs")
# Two-sided 95 % Student t quantiles by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
       8: 2.306, 9: 2.262, 10: 2.228, 15: 2.131, 20: 2.086, 30: 2.042}


def t95(df):
    return T95.get(df) or T95[max(k for k in T95 if k <= df)] if df > 0 else float("inf")


def ci(values):
    if len(values) < 2:
        return 0.0
    return t95(len(values) - 1) * st.stdev(values) / math.sqrt(len(values))


def ns2_rows(name):
    return list(csv.DictReader(open(OUT / f"ns2-{name}.csv")))


def radial_rows(name):
    return list(csv.DictReader(open(OUT / f"radial-{name}" / "results.csv")))


def grid(name, param):
    ns = {}
    for r in ns2_rows(name):
        ns.setdefault(float(r["param"]), []).append((float(r["goodput_mbps"]), int(r["retransmits"])))
    ours = {}
    for r in radial_rows(name):
        ours.setdefault(float(r[param]), []).append((float(r["goodput_mbps"]), int(r["retransmits"])))
    lines = [
        f"| {param} | ns-2 Mbit/s (±95 % CI) | Radial Mbit/s (±95 % CI) | difference | ns-2 rexmits | Radial rexmits | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    ok = True
    for key in sorted(ns):
        a = [g for g, _ in ns[key]]
        b = [g for g, _ in ours.get(key, [])]
        if not b:
            lines.append(f"| {key:g} | — | missing | | | | FAIL |")
            ok = False
            continue
        ma, mb = st.mean(a), st.mean(b)
        ca, cb = ci(a), ci(b)
        diff = (mb - ma) / ma if ma else 0.0
        combined = math.hypot(ca, cb)
        passed = abs(diff) <= 0.10 or abs(mb - ma) <= combined
        ok &= passed
        ra = st.mean(r for _, r in ns[key])
        rb = st.mean(r for _, r in ours[key])
        lines.append(
            f"| {key:g} | {ma:.4f} ± {ca:.4f} | {mb:.4f} ± {cb:.4f} | {diff * 100:+.2f} % "
            f"| {ra:.1f} | {rb:.1f} | {'pass' if passed else 'FAIL'} |"
        )
    return lines, ok


def dumbbell():
    def stats(rows):
        g = [float(r["goodput_mbps"]) for r in rows]
        mean = st.mean(g)
        pooled_cov = st.pstdev(g) / mean
        seeds = sorted({r["seed"] for r in rows})
        per_seed = []
        for s in seeds:
            x = [float(r["goodput_mbps"]) for r in rows if r["seed"] == s]
            per_seed.append(st.pstdev(x) / st.mean(x))
        rexmit = st.mean(int(r["retransmits"]) for r in rows)
        return mean, pooled_cov, st.mean(per_seed), rexmit, len(g)

    ma, pa, sa, ra, na = stats(ns2_rows("s2"))
    mb, pb, sb, rb, nb = stats(radial_rows("s2"))
    d = (mb - ma) / ma
    ok_mean = abs(d) <= 0.05
    ok_cov = abs(pb - pa) <= 0.05 and abs(sb - sa) <= 0.05
    lines = [
        "| metric | ns-2 | Radial | difference | verdict |",
        "|---|---|---|---|---|",
        f"| mean per-flow goodput (Mbit/s) | {ma:.4f} | {mb:.4f} | {d * 100:+.2f} % | {'pass' if ok_mean else 'FAIL'} |",
        f"| CoV, all flows of all seeds | {pa:.4f} | {pb:.4f} | {pb - pa:+.4f} | {'pass' if abs(pb - pa) <= 0.05 else 'FAIL'} |",
        f"| CoV, mean of per-seed values | {sa:.4f} | {sb:.4f} | {sb - sa:+.4f} | {'pass' if abs(sb - sa) <= 0.05 else 'FAIL'} |",
        f"| mean retransmissions per flow | {ra:.1f} | {rb:.1f} | | |",
        f"| flow-runs | {na} | {nb} | | |",
    ]
    return lines, ok_mean and ok_cov


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", nargs="?", type=Path,
                    help="Markdown page whose validation table is replaced")
    report = ap.parse_args().report
    s1, ok1 = grid("s1", "loss")
    s4, ok4 = grid("s4", "delay_ms")
    s2, ok2 = dumbbell()
    body = ["### S1 — wireless random loss", "", *s1, "", "### S2 — dumbbell fairness", "", *s2, "",
            "### S4 — long delay", "", *s4, ""]
    verdict = "all acceptance criteria hold" if ok1 and ok2 and ok4 else "SOME ACCEPTANCE CRITERIA FAIL"
    text = "\n".join(body) + f"\n**Verdict: {verdict}.**\n"
    print(text)
    if report:
        marker_start, marker_end = "<!-- validation-table:start -->", "<!-- validation-table:end -->"
        doc = report.read_text() if report.exists() else f"{marker_start}\n{marker_end}\n"
        head, _, rest = doc.partition(marker_start)
        _, _, tail = rest.partition(marker_end)
        report.write_text(f"{head}{marker_start}\n{text}{marker_end}{tail}")
    sys.exit(0 if ok1 and ok2 and ok4 else 1)


if __name__ == "__main__":
    main()
