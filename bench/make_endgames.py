#!/usr/bin/env python3
"""Writes endgame start positions (one FEN a line) for matches that exercise
the endgame tables: PIECES pieces (e.g. 6,7), men and at most one king a
side (each piece a king with probability KING_SHARE, besides men that would
stand on their crowning row), the same number of pieces a side or one more
for White, no capture pending for either side, White to move.
Deterministic (seed 1); checked with `dammer legal`.

usage: bench/make_endgames.py DAMMER_BINARY COUNT [PIECES [KING_SHARE]] > FILE
  bench/make_endgames.py target/release/dammer 40 6,7,7 0.25 > bench/endgames-7.fen
  bench/make_endgames.py target/release/dammer 50 8 0 > bench/endgames-8.fen
"""
import random
import subprocess
import sys


def candidate(rng, sizes, king_share):
    total = rng.choice(sizes)
    white_n = total // 2 + (rng.random() < 0.5 and total % 2)
    black_n = total - white_n
    squares = rng.sample(range(1, 51), total)
    white, black = squares[:white_n], squares[white_n:]
    def side(pieces, promo_row):
        out = []
        king_given = False
        for s in pieces:
            if s in promo_row or (not king_given and rng.random() < king_share):
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
    sizes = [int(n) for n in (sys.argv[3] if len(sys.argv) > 3 else "6,7,7").split(",")]
    king_share = float(sys.argv[4]) if len(sys.argv) > 4 else 0.25
    rng = random.Random(1)
    out = []
    while len(out) < count:
        batch = [c for c in (candidate(rng, sizes, king_share) for _ in range(200)) if c]
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
