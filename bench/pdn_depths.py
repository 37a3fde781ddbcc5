#!/usr/bin/env python3
"""Search depth and think time per engine, read from the move comments
({score/depth time}) that `dammer match` writes into its PDN file.

Usage: bench/pdn_depths.py FILE.pdn [MOVES]

For each player: the mean depth of its searched moves among its first
MOVES moves of each game (default 30; forced moves carry no depth and are
left out, and so are book moves, written with depth 0), the mean and
longest think time over all of its moves (book moves included), and a
table of think time (mean / longest, seconds) by the player's own move
number in the bands of `dammer match`'s report. The PDN file holds every
game of a match run in pieces with --resume, where the runner's own
table covers only the last piece.
"""
import re
import sys
from collections import defaultdict

TAG = re.compile(r'^\[(\w+) "(.*)"\]')
# A move, then its comment: {+0.12/16 0.283s} or, for a forced move, {0.000s}.
MOVE = re.compile(r"(\d+x\d+(?:x\d+)*|\d+-\d+)\s*\{([^}]*)\}")
# The move-number bands of the runner's think-time table.
BANDS = [(1, 5), (6, 10), (11, 20), (21, 30), (31, 40), (41, 60), (61, None)]
# The runner writes "{score:+.2}/{depth} {time:.3}s"; score and depth may be missing.
COMMENT = re.compile(r"^(?:[+-][\d.]+(?:/(\d+))?\s+)?([\d.]+)s$")


def games(text):
    tags, body = {}, []
    for line in text.splitlines():
        m = TAG.match(line)
        if m:
            if body:
                yield tags, " ".join(body)
                tags, body = {}, []
            tags[m.group(1)] = m.group(2)
        elif line.strip():
            body.append(line.strip())
    if body:
        yield tags, " ".join(body)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    depth = defaultdict(list)
    think = defaultdict(list)
    book = defaultdict(int)
    # player -> band index -> think times
    by_band = defaultdict(lambda: defaultdict(list))
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    n = 0
    for tags, body in games(text):
        players = [tags.get("White", "?"), tags.get("Black", "?")]
        if tags.get("FEN", "W").startswith("B"):
            players.reverse()
        n += 1
        for i, m in enumerate(MOVE.finditer(body)):
            player = players[i % 2]
            c = COMMENT.match(m.group(2).strip())
            if not c:
                continue
            secs = float(c.group(2))
            think[player].append(secs)
            own = i // 2 + 1
            band = next(k for k, (lo, hi) in enumerate(BANDS) if own >= lo and (hi is None or own <= hi))
            by_band[player][band].append(secs)
            # Depth 0: a book move (or a score without a search).
            if c.group(1) and int(c.group(1)) > 0 and i // 2 < first:
                depth[player].append(int(c.group(1)))
            elif c.group(1) == "0":
                book[player] += 1
    print(f"{n} games; depth over each side's first {first} moves (searched ones)")
    for p in sorted(think):
        d, t = depth[p], think[p]
        mean_d = sum(d) / len(d) if d else float("nan")
        print(
            f"{p:>12}: depth {mean_d:.2f} ({len(d)} moves), think mean {sum(t) / len(t):.3f} s, "
            f"longest {max(t):.3f} s, {book[p]} moves at depth 0 (book)"
        )
    names = [f"{lo}-{hi}" if hi else f"{lo}+" for lo, hi in BANDS]
    print("| engine | " + " | ".join(names) + " | all |")
    print("|---" * (len(BANDS) + 2) + "|")
    for p in sorted(think):
        cells = []
        for k in range(len(BANDS)):
            t = by_band[p][k]
            cells.append(f"{sum(t) / len(t):.2f}/{max(t):.2f}" if t else "-")
        t = think[p]
        cells.append(f"{sum(t) / len(t):.2f}/{max(t):.2f}")
        print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
