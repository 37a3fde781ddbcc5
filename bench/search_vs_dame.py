#!/usr/bin/env python3
"""Search depth and speed of Dammer and dame-rs from the start position,
side by side: `dammer analyse --time T` and `dame search --time T` alternate,
ROUNDS times each; prints each run's deepest completed depth, nodes and
nodes per second, the medians, and the speed ratio of each round.

Usage: search_vs_dame.py DAMMER DAME [--time 5] [--rounds 3]
"""

import argparse
import re
import statistics
import subprocess


def dammer(binary, secs):
    out = subprocess.run([binary, "analyse", "--time", str(secs)], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"depth (\d+), (\d+) nodes in ([\d.]+)s", out)
    depth, nodes, t = int(m.group(1)), int(m.group(2)), float(m.group(3))
    return depth, nodes / t


def dame(binary, secs):
    out = subprocess.run([binary, "search", "--time", str(secs)], capture_output=True, text=True,
                         check=True).stdout
    depths = [int(d) for d in re.findall(r"(?m)^depth\s+(\d+)", out)]
    nps = re.findall(r"\(([\d.]+) Mnps\)", out)
    return (max(depths) if depths else None), (float(nps[-1]) * 1e6 if nps else None), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dammer")
    ap.add_argument("dame")
    ap.add_argument("--time", type=float, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    ours, theirs = [], []
    for r in range(args.rounds):
        d1, nps1 = dammer(args.dammer, args.time)
        d2, nps2, raw = dame(args.dame, args.time)
        ours.append((d1, nps1))
        theirs.append((d2, nps2))
        print(f"round {r + 1}: dammer depth {d1} at {nps1 / 1e6:.2f} Mnps; dame depth {d2}"
              + (f" at {nps2 / 1e6:.2f} Mnps" if nps2 else ""), flush=True)
        if r == 0 and d2 is None:
            print("dame output was:\n" + raw)
    med = lambda xs: statistics.median(x for x in xs if x is not None) if any(x is not None for x in xs) else None
    dame_nps = med([n for _, n in theirs])
    print(f"median: dammer depth {med([d for d, _ in ours])} at {med([n for _, n in ours]) / 1e6:.2f} Mnps; "
          f"dame depth {med([d for d, _ in theirs])}"
          + (f" at {dame_nps / 1e6:.2f} Mnps" if dame_nps else ""))
    # Both programs slow down together when the machine is busy, so the
    # speed ratio of each round is steadier than either speed alone.
    ratios = [a[1] / b[1] for a, b in zip(ours, theirs) if b[1]]
    if ratios:
        print(f"speed ratio dammer/dame per round: {' '.join(f'{x:.2f}' for x in ratios)}; "
              f"median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
