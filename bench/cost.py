#!/usr/bin/env python3
"""What a decision costs with a match set-up: draw rate, game-pair spread
and the games an SPRT needs to decide a 10-Elo change, read from the PDN
of a `dammer match` run (any number of files, each one match).

Usage: bench/cost.py ENGINE FILE.pdn [FILE.pdn ...]

ENGINE is the player whose score is counted (its name in the White/Black
tags). Games are paired by round as the runner schedules them: rounds
2k-1 and 2k play the same opening with colours swapped. For each file:
games, +wins =draws -losses, the draw rate, the pentanomial counts of the
pairs, Elo with its 95% margin from the pairs, and the expected games of
an SPRT with elo0 = 0, elo1 = 10, alpha = beta = 0.05 (pair variance as
measured; Wald's approximation E[N] = (1 - 2 alpha) ln((1 - beta) / alpha)
/ E[LLR a pair] at either hypothesis, E[LLR a pair] = d^2 / (2 var) with d
the difference of the expected pair scores at 10 and at 0 Elo).
"""
import math
import sys

from pdn_depths import games

POINTS = {"2-0": (1.0, 0.0), "0-2": (0.0, 1.0), "1-1": (0.5, 0.5)}


def expected(elo):
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def report(engine, path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    by_round = {}
    for tags, _ in games(text):
        result = POINTS.get(tags.get("Result", ""))
        if result is None or "Round" not in tags:
            continue
        if tags.get("White") == engine:
            s = result[0]
        elif tags.get("Black") == engine:
            s = result[1]
        else:
            continue
        by_round[int(tags["Round"])] = s
    scores = list(by_round.values())
    n = len(scores)
    if n == 0:
        return f"{path}: no game of {engine}"
    wins = sum(1 for s in scores if s == 1.0)
    draws = sum(1 for s in scores if s == 0.5)
    pairs = []
    for r, s in by_round.items():
        if r % 2 == 1 and r + 1 in by_round:
            pairs.append((s + by_round[r + 1]) / 2.0)
    penta = [sum(1 for p in pairs if abs(p * 4 - k) < 1e-9) for k in range(5)]
    m = len(pairs)
    mean = sum(pairs) / m
    var = sum((p - mean) ** 2 for p in pairs) / max(m - 1, 1)
    margin = 1.96 * math.sqrt(var / m)
    elo, lo, hi = elo_of(mean), elo_of(mean - margin), elo_of(mean + margin)
    d = expected(10.0) - expected(0.0)
    a = math.log((1 - 0.05) / 0.05)
    pairs_needed = (1 - 2 * 0.05) * a / (d * d / (2 * var)) if var > 0 else float("inf")
    return (
        f"{path}: {n} games +{wins} ={draws} -{n - wins - draws}, draws {100.0 * draws / n:.1f}%, "
        f"pairs {m} {penta}, Elo {elo:+.1f} ({lo:+.1f} .. {hi:+.1f}), pair sd {math.sqrt(var):.3f}, "
        f"SPRT [0, 10] needs about {2 * pairs_needed:.0f} games"
    )


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for path in sys.argv[2:]:
        print(report(sys.argv[1], path))


if __name__ == "__main__":
    main()
