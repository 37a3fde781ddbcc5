#!/usr/bin/env python3
"""Compare Dammer's legal moves and game results in the variants with an
independent implementation: pydraughts' breakthrough, antidraughts and
frisian (PyPI `pydraughts`).

Random games are played out with pydraughts, from the start and from random
placements (with kings, where antidraughts' kings and breakthrough's
set-up wins show). At every ply the legal moves are compared as (from, to,
captured set) and the result as winner or draw; the whole game goes to
`dammer legal --result --variant V` as the start position and the moves.

pydraughts misses some landing squares of long Frisian king captures (a
king taking 11 pieces in a random set-up with many kings). Where its
captures differ from Dammer's, a third, plain implementation here (every
path of every piece, the value rule and the king's precedence, written
for clarity, not speed) decides: a difference it settles for Dammer is
counted and shown as pydraughts' defect, not hidden, and any other
difference fails.

Usage: compare_variants.py DAMMER_BINARY [--games N] [--seed S]
Exit status 0 when everything agrees, 1 on any difference (printed).
"""

import argparse
import os
import random
import subprocess
import sys

from draughts import BLACK, WHITE, Board

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hubmove import move_key  # noqa: E402

# pydraughts' name, Dammer's name
VARIANTS = [("breakthrough", "bt"), ("antidraughts", "losing"), ("frisian", "frisian")]


def random_placement(rng, kings):
    """A legal random position: at most 20 pieces a side, each side at least
    one, no man on its own crowning row. Without `kings` (breakthrough, where
    a king means the game is over) a piece on its crowning row is left out."""
    while True:
        white, black = [], []
        fill = rng.randint(4, 30)
        for sq in range(1, 51):
            if rng.randrange(50) >= fill:
                continue
            is_white = rng.random() < 0.5
            king = kings and rng.random() < 0.3
            if (is_white and sq <= 5) or (not is_white and sq >= 46):
                if not kings:
                    continue
                king = True
            (white if is_white else black).append(("K" if king else "") + str(sq))
        if 0 < len(white) <= 20 and 0 < len(black) <= 20:
            return f"{rng.choice('WB')}:W{','.join(white)}:B{','.join(black)}"


def square_rc(s):
    r = (s - 1) // 5
    return r, ((s - 1) % 5) * 2 + (1 if r % 2 == 0 else 0)


RC_SQUARE = {square_rc(s): s for s in range(1, 51)}
EIGHT = [(-1, -1), (-1, 1), (1, -1), (1, 1), (-2, 0), (2, 0), (0, -2), (0, 2)]


def frisian_captures(fen):
    """Every legal Frisian capture of a FEN position as (from, to,
    captured set): the plain third opinion (see the module's docstring)."""
    side, white, black = fen.split(":")
    pieces = {}
    for part, colour in ((white[1:], "W"), (black[1:], "B")):
        for t in part.split(","):
            if t:
                pieces[int(t.lstrip("K"))] = (colour, t.startswith("K"))
    me = side.upper()
    found = []  # (value, is_king, from, to, captured)

    def free(rc, start):
        return rc in RC_SQUARE and (RC_SQUARE[rc] not in pieces or RC_SQUARE[rc] == start)

    def extend(start, king, at, captured):
        more = False
        r, c = square_rc(at)
        for dr, dc in EIGHT:
            rr, cc = r + dr, c + dc
            if king:
                while free((rr, cc), start):
                    rr, cc = rr + dr, cc + dc
            if (rr, cc) not in RC_SQUARE:
                continue
            s = RC_SQUARE[(rr, cc)]
            if s == start or s not in pieces or s in captured or pieces[s][0] == me:
                continue
            lr, lc = rr + dr, cc + dc
            while free((lr, lc), start):
                more = True
                land = RC_SQUARE[(lr, lc)]
                if not extend(start, king, land, captured | {s}):
                    cap = frozenset(captured | {s})
                    value = sum(1501 if pieces[x][1] else 1000 for x in cap)
                    found.append((value, king, start, land, cap))
                if not king:
                    break
                lr, lc = lr + dr, lc + dc
        return more

    for s, (colour, king) in pieces.items():
        if colour == me:
            extend(s, king, s, frozenset())
    if not found:
        return set()
    best = max((v, k) for v, k, *_ in found)
    return {(f, t, cap) for v, k, f, t, cap in found if (v, k) == best}


def winner_tag(winner):
    return {None: "*", WHITE: "2-0", BLACK: "0-2", 0: "1-1"}[winner]


def play(rng, variant, fen):
    """One random game: the start, then per ply (moves so far, legal moves,
    result)."""
    board = Board(variant=variant, fen=fen)
    plies, played = [], []
    while True:
        winner = board.winner()
        legal = board.legal_moves()
        plies.append((list(played), {move_key(m.hub_move) for m in legal}, winner_tag(winner), board.fen))
        if winner is not None or not legal or len(played) >= 300:
            return plies
        m = rng.choice(legal)
        played.append(m.hub_move)
        board.push(m)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    bad = 0
    oracle_defects = third_checked = 0
    for theirs, ours in VARIANTS:
        games = positions = 0
        lines, expected = [], []
        for g in range(args.games):
            if g % 2 == 0:
                fen = "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
            else:
                fen = random_placement(rng, kings=(ours != "bt"))
            for played, legal, result, now in play(rng, theirs, fen):
                lines.append(f"{fen};{' '.join(played)}")
                expected.append((legal, result, now))
            games += 1
        out = subprocess.run(
            [args.binary, "legal", "-", "--result", "--variant", ours],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
        ).stdout.splitlines()
        if len(out) != len(lines):
            sys.exit(f"dammer printed {len(out)} lines for {len(lines)} positions")
        for line, text, (legal, result, now) in zip(lines, out, expected):
            positions += 1
            if text.startswith("error"):
                bad += 1
                print(f"{ours} {line}: dammer rejected it: {text}")
                continue
            tag, _, moves = text.partition(": ")
            tag = tag.split(" ")[0]
            mine = {move_key(t) for t in moves.split()}
            captures = ours == "frisian" and tag == "*" and any(m[2] for m in mine)
            if captures:
                third_checked += 1
                if frisian_captures(now) != mine:
                    bad += 1
                    print(f"frisian {now}: the third opinion differs from dammer")
            if (ours == "frisian" and tag == result == "*" and mine != legal
                    and all(m[2] for m in mine | legal) and frisian_captures(now) == mine):
                oracle_defects += 1
                if oracle_defects <= 3:
                    print(f"pydraughts misses {len(mine - legal)} captures in {now} (the third opinion agrees with dammer)")
                continue
            # Once a game is over the variants' move lists do not matter.
            if tag != result or (result == "*" and mine != legal):
                bad += 1
                if bad <= 20:
                    print(f"{ours} {line}\n  dammer {tag}: {sorted(mine - legal)} more, {sorted(legal - mine)} fewer; pydraughts {result}")
        print(f"{ours}: {games} games, {positions} positions, {bad} differences so far"
              + (f"; {third_checked} capture positions also checked by the third opinion, {oracle_defects} pydraughts"
                 " defects settled by it" if ours == "frisian" else ""))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
