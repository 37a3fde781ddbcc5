#!/usr/bin/env python3
"""Writes balanced endgame start positions (one FEN a line) for matches that
exercise the endgame tables: 6 or 7 pieces, men and at most one king a side,
equal material or one man up, no capture pending for either side, White to
move. Deterministic (seed 1); checked with `dammer legal`.

usage: bench/make_endgames.py DAMMER_BINARY COUNT > bench/endgames-7.fen
"""
import random
import subprocess
import sys


def candidate(rng):
    total = rng.choice([6, 7, 7])
    white_n = total // 2 + (rng.random() < 0.5 and total % 2)
    black_n = total - white_n
    squares = rng.sample(range(1, 51), total)
    white, black = squares[:white_n], squares[white_n:]
    def side(pieces, promo_row):
        out = []
        king_given = False
        for s in pieces:
            if s in promo_row or (not king_given and rng.random() < 0.25):
                out.append(f"K{s}")
                king_given = True
            else:
                out.append(str(s))
        return out
    w = side(white, range(1, 6))
    b = side(black, range(46, 51))
    if sum(p.startswith("K") for p in w) > 1 or sum(p.startswith("K") for p in b) > 1:
        return None
    return f"W:W{','.join(w)}:B{','.join(b)}"


def main():
    dammer, count = sys.argv[1], int(sys.argv[2])
    rng = random.Random(1)
    out = []
    while len(out) < count:
        batch = [c for c in (candidate(rng) for _ in range(200)) if c]
        flipped = ["B" + c[1:] for c in batch]
        res = subprocess.run([dammer, "legal", *batch, *flipped], capture_output=True, text=True, check=True)
        lines = res.stdout.splitlines()
        for fen, mine, theirs in zip(batch, lines[: len(batch)], lines[len(batch):]):
            if mine and theirs and "x" not in mine and "x" not in theirs:
                out.append(fen)
                if len(out) == count:
                    break
    print("\n".join(out))


if __name__ == "__main__":
    main()
