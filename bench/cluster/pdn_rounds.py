#!/usr/bin/env python3
"""Joins PDN files (the shards of one match) into one, games in round order."""
import re
import sys

games = []
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    for game in re.split(r"\n(?=\[Event )", text.strip()):
        if game.strip():
            m = re.search(r'\[Round "(\d+)"\]', game)
            games.append((int(m.group(1)) if m else 0, game.strip()))
games.sort(key=lambda g: g[0])
rounds = [r for r, _ in games]
if len(set(rounds)) != len(rounds):
    sys.exit("pdn_rounds.py: a round is in two shards: files of different matches?")
sys.stdout.write("\n\n".join(g for _, g in games) + "\n")
