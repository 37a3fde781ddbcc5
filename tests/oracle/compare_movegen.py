#!/usr/bin/env python3
"""Compare Dammer's legal moves and game results with an independent
implementation: the `dame` module of PyPI's dame-rs.

Positions come from random games and from random placements rich in kings
(long king captures, many kings). Moves are compared as (from, to, captured
set). Game results are compared on random games played out from king-heavy
endings, where the draw rules (repetition, 25-move, 16/5-move) decide.

Usage: compare_movegen.py DAMMER_BINARY [--positions N] [--games N] [--seed S]
Exit status 0 when everything agrees, 1 on any difference (printed).
"""

import argparse
import os
import random
import subprocess
import sys

import dame

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hubmove import move_key  # noqa: E402


def dame_key(from_sq, to_sq, captured):
    return (from_sq, to_sq, frozenset(captured))


def dame_moves(board):
    return {dame_key(m.from_square, m.to_square, m.captured) for m in board.legal_moves}


def random_placement(rng):
    """A legal random position with a varying share of kings: at most 20
    pieces a side, and a piece for the side that moved last (draws the
    rules do not allow are drawn again)."""
    while True:
        fen = random_draw(rng)
        side, white, black = fen.split(":")
        counts = {"W": len(white) > 1 and white.count(",") + 1, "B": len(black) > 1 and black.count(",") + 1}
        if counts["W"] <= 20 and counts["B"] <= 20 and counts["B" if side == "W" else "W"] > 0:
            return fen


def random_draw(rng):
    fill = rng.randint(4, 40)
    king_share = rng.choice([0, 10, 30, 60, 100])
    white, black = [], []
    for sq in range(1, 51):
        if rng.randrange(50) >= fill:
            continue
        is_white = rng.random() < 0.5
        king = rng.randrange(100) < king_share
        if (is_white and sq <= 5) or (not is_white and sq >= 46):
            king = True
        (white if is_white else black).append(("K" if king else "") + str(sq))
    side = rng.choice("WB")
    return f"{side}:W{','.join(white)}:B{','.join(black)}"


def collect_positions(rng, count):
    fens = []
    while len(fens) < count:
        if rng.random() < 0.5:
            board = dame.Board()
            while not board.is_game_over() and board.ply < 250 and len(fens) < count:
                fens.append(board.fen())
                board.push(rng.choice(board.legal_moves))
        else:
            for _ in range(200):
                fen = random_placement(rng)
                try:
                    board = dame.Board(fen)
                except ValueError:
                    continue
                # A few random plies from there reach captures and crownings.
                for _ in range(rng.randint(0, 6)):
                    if board.is_game_over():
                        break
                    board.push(rng.choice(board.legal_moves))
                fens.append(board.fen())
                if len(fens) >= count:
                    break
    return fens


def run_dammer(binary, lines, with_result=False):
    args = [binary, "legal", "-"] + (["--result"] if with_result else [])
    out = subprocess.run(
        args, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True
    ).stdout.splitlines()
    if len(out) != len(lines):
        sys.exit(f"dammer printed {len(out)} lines for {len(lines)} positions")
    return out


def compare_moves(binary, fens):
    bad = 0
    for fen, line in zip(fens, run_dammer(binary, fens)):
        if line.startswith("error"):
            print(f"MOVES {fen}: dammer rejected it: {line}")
            bad += 1
            continue
        ours = {move_key(t) for t in line.split()}
        theirs = dame_moves(dame.Board(fen))
        if ours != theirs:
            bad += 1
            if bad <= 20:
                print(f"MOVES {fen}\n  only dammer: {sorted(ours - theirs)}\n  only dame:   {sorted(theirs - ours)}")
    return bad


RESULTS = {
    None: "*",
    "NO_MOVES": None,
    "REPETITION": "1-1 Repetition",
    "TWENTY_FIVE_MOVES": "1-1 TwentyFiveMoves",
    "SIXTEEN_MOVES": "1-1 SixteenMoves",
    "FIVE_MOVES": "1-1 FiveMoves",
}


def dame_result(board):
    outcome = board.outcome()
    if outcome is None:
        return "*"
    name = str(outcome.termination).split(".")[-1]
    if name == "NO_MOVES":
        return outcome.result()
    return RESULTS[name]


def compare_results(binary, rng, games):
    lines, expected = [], []
    while len(lines) < games:
        fen = random_placement(rng) if rng.random() < 0.3 else king_ending(rng)
        try:
            board = dame.Board(fen)
        except ValueError:
            continue
        start = board.fen()
        moves = []
        while not board.is_game_over() and len(moves) < 300:
            m = pick_move(rng, board, moves)
            moves.append(m.hub())
            board.push(m)
        lines.append(start + ";" + " ".join(moves))
        expected.append(dame_result(board))
    bad = 0
    seen = {}
    for line, want, got in zip(lines, expected, run_dammer(binary, lines, with_result=True)):
        got_result = got.split(":")[0]
        seen[want] = seen.get(want, 0) + 1
        if got_result != want:
            bad += 1
            if bad <= 20:
                print(f"RESULT {line}\n  dammer: {got_result}\n  dame:   {want}")
    print("game endings compared:", dict(sorted(seen.items())))
    return bad


def pick_move(rng, board, played):
    """Random, but biased toward quiet king moves and toward undoing the
    side's previous move, so that repetitions and the king-move rules come
    up often, not just losses."""
    legal = board.legal_moves
    if len(played) >= 2 and rng.random() < 0.3 and "-" in played[-2]:
        a, b = played[-2].split("-")
        back = [m for m in legal if m.hub() == f"{b}-{a}"]
        if back:
            return back[0]
    kings = [m for m in legal if not m.is_capture and board.piece_at(m.from_square).is_king]
    rng.shuffle(kings)
    if kings and rng.random() < 0.95:
        for m in kings[:4]:
            board.push(m)
            safe = not board.must_capture
            board.pop()
            if safe:
                return m
        return kings[0]
    return rng.choice(legal)


def king_ending(rng):
    """Few pieces, kings on both sides: where the draw rules decide."""
    squares = rng.sample(range(1, 51), rng.randint(2, 9))
    split = rng.randint(1, len(squares) - 1)
    def side(sqs):
        out = []
        for i, sq in enumerate(sqs):
            king = i == 0 or rng.random() < 0.6
            out.append(("K" if king else "") + str(sq))
        return out
    white = [s for s in side(squares[:split])]
    black = [s for s in side(squares[split:])]
    # Men must not stand on their own crowning row.
    white = [s if s.startswith("K") or int(s) > 5 else "K" + s for s in white]
    black = [s if s.startswith("K") or int(s) < 46 else "K" + s for s in black]
    return f"{rng.choice('WB')}:W{','.join(white)}:B{','.join(black)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--positions", type=int, default=100_000)
    ap.add_argument("--games", type=int, default=3_000)
    ap.add_argument("--seed", type=int, default=20261129)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    fens = collect_positions(rng, args.positions)
    captures = sum(1 for f in fens if dame.Board(f).must_capture) if len(fens) <= 200_000 else -1
    bad_moves = compare_moves(args.binary, fens)
    print(f"positions compared: {len(fens)} ({captures} with a capture), differences: {bad_moves}")
    bad_results = compare_results(args.binary, rng, args.games)
    print(f"games compared: {args.games}, differences: {bad_results}")
    if bad_moves or bad_results:
        print("FAILED: dammer and dame disagree")
        return 1
    print("oracle: all agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
