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


ANALYSE = re.compile(r"^best move .*, depth (\d+)\+?, (\d+) nodes in ([\d.]+)s", re.M)


def analyse(binary, fen, seconds, threads, hash_mb):
    """(completed depth, nodes) of one `dammer analyse --time` search."""
    cmd = [binary, "analyse", "--fen", fen, "--time", f"{seconds:g}", "--threads", str(threads),
           "--hash", str(hash_mb), "--no-book", "--color", "never"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    m = ANALYSE.search(out.stdout)
    if out.returncode != 0 or not m:
        sys.exit(f"{' '.join(cmd)} failed: {out.stdout.strip()[-300:]}")
    return int(m.group(1)), int(m.group(2))


def read_positions(path):
    with open(path) as f:
        rows = [line.split(";", 1) for line in f if line.strip() and not line.startswith("#")]
    return [(r[0].strip(), r[-1].strip()) for r in rows]


def at_movetime(a):
    """The --movetime table: depth completed in S seconds, 1 and N threads, and 1 thread in 2S."""
    positions = read_positions(a.positions)
    n = a.threads
    kinds = [("1 thread", 1, a.movetime), (f"{n} threads", n, a.movetime), ("1 thread, 2S", 1, 2 * a.movetime)]
    depth = {k: [[] for _ in positions] for k, _, _ in kinds}
    nodes = {k: [[] for _ in positions] for k, _, _ in kinds}
    for rep in range(a.reps):
        for kind, threads, seconds in kinds:
            for i, (fen, _) in enumerate(positions):
                d, nd = analyse(a.bin, fen, seconds, threads, a.hash)
                depth[kind][i].append(d)
                nodes[kind][i].append(nd)
            print(f"rep {rep + 1}/{a.reps}, {kind}: done", file=sys.stderr)
    k1, kn, k2 = (k for k, _, _ in kinds)
    lines = [f"depth completed in {a.movetime:g} s a move (median of {a.reps} runs each), 1 against {n} "
             f"threads, and 1 thread in {2 * a.movetime:g} s; {a.hash} MiB table",
             f"{'position':<28} {'d1':>5} {'d' + str(n):>5} {'d1@2S':>6} {'nodes' + str(n) + '/1':>9}"]
    med = {k: [statistics.median(runs) for runs in depth[k]] for k in (k1, kn, k2)}
    gain_n = [dn - d1 for d1, dn in zip(med[k1], med[kn])]
    gain_2 = [d2 - d1 for d1, d2 in zip(med[k1], med[k2])]
    for i, (_, name) in enumerate(positions):
        nr = statistics.median(nodes[kn][i]) / max(1, statistics.median(nodes[k1][i]))
        lines.append(f"{name[:28]:<28} {med[k1][i]:5.1f} {med[kn][i]:5.1f} {med[k2][i]:6.1f} {nr:9.2f}")
    mean = statistics.mean
    lines.append(f"mean depth: 1 thread {mean(med[k1]):.2f}, {n} threads {mean(med[kn]):.2f}, "
                 f"1 thread in 2S {mean(med[k2]):.2f}")
    ratio = mean(gain_n) / mean(gain_2) if mean(gain_2) > 0 else float("nan")
    lines.append(f"depth gained over 1 thread: {n} threads {mean(gain_n):+.2f}, a doubling of time "
                 f"{mean(gain_2):+.2f} ({n} threads = {ratio:.2f} of a doubling)")
    return lines


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="target/release/dammer")
    ap.add_argument("--positions", default="bench/smp-positions.fen")
    ap.add_argument("--depth", type=int, default=15)
    ap.add_argument("--movetime", type=float, help="depth reached in this many seconds instead of time to --depth")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--out", help="also write the table to this file")
    a = ap.parse_args()
    if a.movetime is not None:
        if not a.movetime > 0:
            sys.exit("--movetime must be a positive number of seconds")
        finish(a, at_movetime(a))
        return
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
    finish(a, lines)


def finish(a, lines):
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
