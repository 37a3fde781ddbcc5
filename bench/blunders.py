#!/usr/bin/env python3
"""Blunder positions from the games of `dammer match` PDN files: in each
decided game, the first move of the losing side after which its own score
fell from about level (-0.15 .. +0.30 men) to 0.7 men down or worse within
its next two searched moves, while the winner's score rose to +0.6 or more
in between. Such a move walked into a shot or a breakthrough that the
loser's search did not see in time. Only moves from the 6th of each game on
count, and only scored moves (book and forced moves carry no score).

Usage: bench/blunders.py FILE.pdn... > blunders.tsv

Prints one line per game found: the game's start FEN, the moves before the
blunder (PDN notation, space-separated) and the blunder, tab-separated.
`bench/blunders.sh` turns them into positions, checks them with a deep
search and tests engines on them.
"""
import re
import sys

# The PDN reader of bench/pdn_depths.py: (tags, body) of each game, and a
# move with its comment (the runner comments every move).
from pdn_depths import MOVE, games

SCORE = re.compile(r'\s*([+-]?\d+\.\d+)/\d+')


def score(comment):
    m = SCORE.match(comment)
    return float(m.group(1)) if m else None


def blunder(tags, moves):
    """Index of the game's first blunder by the loser, or None."""
    result = tags.get('Result')
    if result not in ('2-0', '0-2'):
        return None
    first = 0 if tags.get('FEN', 'W').startswith('W') else 1
    loser = 1 if result == '2-0' else 0
    for i, (_, comment) in enumerate(moves):
        if (i + first) % 2 != loser or i < 10:
            continue
        s = score(comment)
        if s is None or not -0.15 <= s <= 0.30:
            continue
        later = [score(moves[j][1]) for j in range(i + 2, min(i + 6, len(moves)), 2)]
        later = [x for x in later if x is not None][:2]
        winner = [score(moves[j][1]) for j in range(i + 1, min(i + 5, len(moves)), 2)]
        winner = [x for x in winner if x is not None][:2]
        if later and min(later) <= -0.7 and winner and max(winner) >= 0.6:
            return i
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    found = 0
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for tags, body in games(text):
            moves = [(m.group(1), m.group(2)) for m in MOVE.finditer(body)]
            i = blunder(tags, moves)
            if i is None or 'FEN' not in tags:
                continue
            found += 1
            print('\t'.join((tags['FEN'], ' '.join(m for m, _ in moves[:i]), moves[i][0])))
    print(f'{found} blunders', file=sys.stderr)


if __name__ == '__main__':
    main()
