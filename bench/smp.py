#!/usr/bin/env python3
"""Lazy SMP table: time to depth and nodes a second, 1 against N threads.

Runs `dammer bench --positions FILE` with 1 and with N threads, the runs
alternating (1, N, 1, N, ...) so that a machine's drift hits both alike,
and prints for every position the median time to the depth and the median
nodes a second of each thread count, their ratios, and the medians and
geometric means over all positions. Nothing else should run meanwhile.

Usage: bench/smp.py [--bin target/release/dammer] [--positions bench/smp-positions.fen]
                    [--depth 15] [--threads 2] [--reps 3] [--hash 64] [--out FILE]
"""
import argparse
import math
import re
import statistics
import subprocess
import sys

LINE = re.compile(
    r"^\s*(\d+)/\d+ (.*?)\s+depth\s+(\d+) score\s+(\S+) nodes\s+(\d+) time\s+([\d.]+) nps\s+(\d+) best (\S+)"
)


def bench(binary, positions, depth, threads, hash_mb):
    cmd = [binary, "bench", "--color", "never", "--positions", positions, "--depth", str(depth),
           "--threads", str(threads), "--hash", str(hash_mb)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
    rows = {}
    for line in out.stdout.splitlines():
        m = LINE.match(line)
        if m:
            rows[int(m.group(1))] = (m.group(2), float(m.group(6)), int(m.group(7)), int(m.group(5)))
    return rows


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/dammer")
    ap.add_argument("--positions", default="bench/smp-positions.fen")
    ap.add_argument("--depth", type=int, default=15)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    runs = {1: [], a.threads: []}
    for rep in range(a.reps):
        for t in (1, a.threads):
            runs[t].append(bench(a.bin, a.positions, a.depth, t, a.hash))
            print(f"rep {rep + 1}/{a.reps}, {t} thread(s): done", file=sys.stderr)
    n = a.threads
    lines = [f"time to depth {a.depth} and nodes a second, 1 against {n} threads, "
             f"median of {a.reps} runs each (alternating), {a.hash} MiB table",
             f"{'position':<28} {'t1 s':>7} {'t' + str(n) + ' s':>7} {'ratio':>6} "
             f"{'nps1 k':>7} {'nps' + str(n) + ' k':>7} {'ratio':>6}"]
    t_ratios, nps_ratios, tot1, tot_n = [], [], 0.0, 0.0
    for k in sorted(runs[1][0]):
        name = runs[1][0][k][0]
        t1 = statistics.median(r[k][1] for r in runs[1])
        tn = statistics.median(r[k][1] for r in runs[n])
        s1 = statistics.median(r[k][2] for r in runs[1])
        sn = statistics.median(r[k][2] for r in runs[n])
        tot1 += t1
        tot_n += tn
        tr = tn / t1 if t1 > 0 else float("nan")
        nr = sn / s1 if s1 > 0 else float("nan")
        # Positions solved in a few milliseconds measure the start and stop, not the search.
        if t1 >= 0.05:
            t_ratios.append(tr)
            nps_ratios.append(nr)
        lines.append(f"{name[:28]:<28} {t1:7.3f} {tn:7.3f} {tr:6.2f} {s1 / 1000:7.0f} {sn / 1000:7.0f} {nr:6.2f}")
    lines.append(f"positions of 50 ms or more with one thread: {len(t_ratios)} of {len(runs[1][0])}")
    if not t_ratios:
        sys.exit("\n".join(lines) + "\nno position took 50 ms: search deeper (--depth)")
    lines.append(f"time to depth, {n} threads over 1: median {statistics.median(t_ratios):.2f}, "
                 f"geometric mean {geomean(t_ratios):.2f}, total {tot_n / tot1:.2f}")
    lines.append(f"nodes a second, {n} threads over 1: median {statistics.median(nps_ratios):.2f}, "
                 f"geometric mean {geomean(nps_ratios):.2f}")
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
