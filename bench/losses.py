#!/usr/bin/env python3
"""Where an engine loses its games, read from the scores both engines wrote
into a `dammer match` PDN ({score/depth time} after each searched move).

Usage: bench/losses.py ENGINE FILE.pdn [FILE.pdn ...]

For each lost game of ENGINE: the first ply at which the winner's own score
reached +0.50 men, the first at which the loser's fell to -0.50, the
loser's score just before the winner saw +0.50, and whether the loss came
with a sudden drop (the loser's score fell by 0.80 men or more between two
of its own consecutive moves, from -0.30 or better: a shot it did not see)
or gradually (an evaluation that did not see the position going wrong).
Prints the medians and counts, then one line a lost game.
"""
import re
import statistics
import sys

from pdn_depths import MOVE, games

SCORE = re.compile(r"^([+-][\d.]+)/(\d+)")


def lost_games(engine, text):
    for tags, body in games(text):
        result, white = tags.get("Result"), tags.get("White") == engine
        if engine not in (tags.get("White"), tags.get("Black")):
            continue
        if not ((result == "0-2" and white) or (result == "2-0" and not white)):
            continue
        players = [tags.get("White"), tags.get("Black")]
        if tags.get("FEN", "W").startswith("B"):
            players.reverse()
        mine, theirs = [], []
        for i, m in enumerate(MOVE.finditer(body)):
            s = SCORE.match(m.group(2).strip())
            if s:
                (mine if players[i % 2] == engine else theirs).append((i, float(s.group(1))))
        yield tags.get("Round", "?"), mine, theirs, tags.get("Termination", "")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    engine = sys.argv[1]
    rows = []
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for rnd, mine, theirs, why in lost_games(engine, text):
            seen = next((i for i, s in theirs if s >= 0.5), None)
            felt = next((i for i, s in mine if s <= -0.5), None)
            before = [s for i, s in mine if seen is not None and i < seen]
            shot = any(a >= -0.3 and b <= a - 0.8 for (_, a), (_, b) in zip(mine, mine[1:]))
            rows.append((rnd, seen, felt, before[-1] if before else None, shot, why))
    if not rows:
        sys.exit(f"no lost game of {engine}")
    seen = [r[1] for r in rows if r[1] is not None]
    felt = [r[2] for r in rows if r[2] is not None]
    unaware = sum(1 for r in rows if r[3] is not None and r[3] >= -0.1)
    shots = sum(1 for r in rows if r[4])
    print(f"{len(rows)} games lost by {engine}")
    print(f"median ply where the winner first scores +0.50: {statistics.median(seen) if seen else '-'}")
    print(f"median ply where {engine} first scores -0.50: {statistics.median(felt) if felt else '-'}")
    print(f"{engine} still at -0.10 or better when the winner saw +0.50: {unaware}")
    print(f"with a sudden drop (a shot): {shots}; gradual: {len(rows) - shots}")
    for rnd, s, f, b, shot, why in rows:
        before = f"{b:+.2f}" if b is not None else "-"
        print(f"round {rnd}: winner +0.50 at ply {s}, {engine} -0.50 at ply {f}, "
              f"{engine} before {before}, {'shot' if shot else 'gradual'}, {why}")


if __name__ == "__main__":
    main()
