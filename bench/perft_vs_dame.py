#!/usr/bin/env python3
"""Perft speed of Dammer against dame-rs, side by side in one run.

Runs `dammer perft D` and `dame perft D` alternately (so both see the same
machine load), ROUNDS times each, and prints every time, the medians and
the ratio of the medians. Both must report the same node count.

Usage: perft_vs_dame.py DAMMER DAME [--depth 10] [--rounds 5]
"""

import argparse
import re
import statistics
import subprocess
import sys
import time


def run(cmd):
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - start
    m = re.search(r"perft\((\d+)\)\s*=\s*(\d+)", out)
    if not m:
        sys.exit(f"cannot read the count from {cmd}: {out!r}")
    return int(m.group(2)), wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dammer")
    ap.add_argument("dame")
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    ours, theirs = [], []
    for r in range(args.rounds):
        n1, t1 = run([args.dammer, "perft", str(args.depth)])
        n2, t2 = run([args.dame, "perft", str(args.depth)])
        if n1 != n2:
            sys.exit(f"counts differ: dammer {n1}, dame {n2}")
        ours.append(t1)
        theirs.append(t2)
        print(f"round {r + 1}: dammer {t1:.3f} s, dame {t2:.3f} s  ({n1} leaves)", flush=True)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"median perft({args.depth}): dammer {a:.3f} s ({n1 / a / 1e6:.0f} M leaves/s), "
          f"dame {b:.3f} s ({n1 / b / 1e6:.0f} M leaves/s)")
    print(f"dammer takes {a / b:.3f} of dame's time ({b / a:.1f}x faster); target: at most 0.2")


if __name__ == "__main__":
    main()
