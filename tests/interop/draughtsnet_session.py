#!/usr/bin/env python3
"""A Hub session the way lidraughts' draughtsnet client drives an engine,
for each variant it requires: the start of the conversation (`hub`, the
variant and, for Frisian, `bb-size=4`, then `init`), one analysis job
(`level nodes=N`, `go analyze`) and one move at computer level 1 and one at
level 8, with the level settings draughtsnet sends (its tables: nodes,
depth, handicap, ply, `eval=pst|pattern`, book ply and margin, move time).
Prints the transcript (`>` sent, `<` received; long `info` runs shortened)
and checks what the client relies on: every `done` carries a move that is
legal by pydraughts' rules of the variant, and each analysis has an `info`
line with a score before its `done`.

Usage: draughtsnet_session.py DAMMER_BINARY   (needs pydraughts; run by .ci/run)
Exit status 0 when every check passes.
"""

import os
import subprocess
import sys

from draughts import Board

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hubmove import move_key  # noqa: E402

START = "Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww"
FRYSK = "Wbbbbbeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeewwwww"

# (job variant, Hub variant, pydraughts variant, position, moves,
#  level 1 settings, level 8 settings), the settings as draughtsnet's
# tables give them for that variant.
L1 = dict(nodes=50, handicap=3, pst=True, book_ply=4, margin=100, movetime=0.05)
L8 = dict(depth=21, pst=False, book_ply=8, margin=50, movetime=1.0)
JOBS = [
    ("standard", "normal", "standard", START, "32-28 19-23 28x19x23 14x23x19", L1, L8),
    ("breakthrough", "bt", "breakthrough", START, "33-28 18-22", L1, L8),
    ("antidraughts", "losing", "antidraughts", START, "32-28 18-23",
     dict(depth=3, ply=4, pst=True, book_ply=4, margin=100, movetime=0.05),
     dict(depth=19, pst=False, book_ply=8, margin=50, movetime=1.0)),
    ("frisian", "frisian", "frisian", START, "31-27 17-22",
     dict(nodes=20, handicap=3, pst=True, book_ply=4, margin=100, movetime=0.05),
     dict(depth=21, pst=False, book_ply=8, margin=50, movetime=1.0)),
    ("frysk", "frisian", "frysk!", FRYSK, "47-41 4-10",
     dict(nodes=50, handicap=3, pst=True, book_ply=4, margin=100, movetime=0.05),
     dict(depth=21, pst=False, book_ply=8, margin=50, movetime=1.0)),
]
FAILURES = []


class Engine:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "hub"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.shown_infos = 0

    def send(self, line):
        print(f"> {line}")
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, word):
        """Lines up to and including the first that starts with `word`."""
        lines, infos = [], []
        while True:
            line = self.p.stdout.readline()
            if not line:
                FAILURES.append(f"the engine closed its output before {word!r}")
                return lines
            line = line.rstrip("\n")
            lines.append(line)
            if line.startswith("info"):
                infos.append(line)
            else:
                if infos:
                    for shown in infos[:2]:
                        print(f"< {shown}")
                    if len(infos) > 3:
                        print(f"< ... ({len(infos) - 3} more info lines)")
                    if len(infos) > 2:
                        print(f"< {infos[-1]}")
                    infos = []
                if not line.startswith("param"):
                    print(f"< {line}")
            if line.startswith(word):
                return lines


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def legal(variant, position, moves):
    """The legal moves after `moves` by pydraughts' rules of `variant`."""
    board = Board(variant=variant, fen=position_fen(position))
    for m in moves.split():
        match = [x for x in board.legal_moves() if move_key(x.hub_move) == move_key(m)]
        board.push(match[0])
    return {move_key(m.hub_move) for m in board.legal_moves()}


def position_fen(hub):
    """A 51-character Hub position as FEN."""
    def king(i, c):
        return ("K" if c.isupper() else "") + str(i + 1)
    white = [king(i, c) for i, c in enumerate(hub[1:]) if c in "wW"]
    black = [king(i, c) for i, c in enumerate(hub[1:]) if c in "bB"]
    return f"{hub[0]}:W{','.join(white)}:B{','.join(black)}"


def go(e, position, moves, s, analysis_nodes=None):
    e.send(f'pos pos={position} moves="{moves}"')
    if s.get("handicap"):
        e.send(f"level handicap={s['handicap']}")
    if s.get("ply"):
        e.send(f"level ply={s['ply']}")
    if s.get("nodes"):
        e.send(f"level nodes={s['nodes']}")
    e.send("set-param name=eval value=" + ("pst" if s.get("pst") else "pattern"))
    e.send(f"set-param name=book-margin value={s.get('margin', 0)}")
    e.send(f"set-param name=book-ply value={s.get('book_ply', 0)}")
    if s.get("depth"):
        e.send(f"level depth={s['depth']}")
    e.send(f"level move-time={s.get('movetime', 4)}")
    if analysis_nodes:
        e.send(f"level nodes={analysis_nodes}")
        e.send("go analyze")
    else:
        e.send("go think")
    return e.until("done")


def main():
    binary = sys.argv[1]
    for job, hub_variant, theirs, position, moves, level1, level8 in JOBS:
        print(f"\n=== {job} (variant {hub_variant})")
        e = Engine(binary)
        e.send("hub")
        e.until("wait")
        e.send(f"set-param name=variant value={hub_variant}")
        if hub_variant == "frisian":
            e.send("set-param name=bb-size value=4")
        e.send("init")
        lines = e.until("ready")
        check(not any(l.startswith("error") for l in lines), f"{job}: set-up without error")
        allowed = legal(theirs, position, moves)
        e.send("new-game")
        lines = go(e, position, moves, dict(movetime=4), analysis_nodes=200000)
        infos = [l for l in lines if l.startswith("info") and " score=" in l]
        done = lines[-1].split()
        check(bool(infos), f"{job} analysis: {len(infos)} info lines with a score before done")
        check(len(done) > 1 and move_key(done[1].split("=")[1]) in allowed, f"{job} analysis: {lines[-1]}")
        for name, settings in (("level 1", level1), ("level 8", level8)):
            e.send("new-game")
            lines = go(e, position, moves, settings)
            done = lines[-1].split()
            check(len(done) > 1 and move_key(done[1].split("=")[1]) in allowed, f"{job} {name}: {lines[-1]}")
        e.send("quit")
        e.p.wait(timeout=5)
        e.p.stdin.close()
        e.p.stdout.close()
    print(f"\ndraughtsnet session: {len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
