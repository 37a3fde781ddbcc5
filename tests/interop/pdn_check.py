#!/usr/bin/env python3
"""Check that `dammer match` writes PDN that pydraughts reads: play a few
fast games between two Dammer processes, read the file with pydraughts'
PDNReader, and replay every game by pydraughts' own rules.

Usage: pdn_check.py DAMMER_BINARY
Exit status 0 when every check passes.
"""

import os
import subprocess
import sys
import tempfile

from draughts import Board, Move
from draughts.PDN import PDNReader
from draughts.core.board import BLACK, WHITE

BINARY = sys.argv[1]
GAMES = 6


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        pdn = os.path.join(tmp, "games.pdn")
        run = subprocess.run(
            [BINARY, "match", "--engine", "name=A", f"cmd={BINARY} hub", "--engine", "name=B", f"cmd={BINARY} hub",
             "--movetime", "0.02", "--games", str(GAMES), "--concurrency", "2", "--pdn", pdn],
            capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            print(run.stdout, run.stderr)
            return 1
        if "games lost on time or by an engine failure: none" not in run.stdout:
            failures.append("the match report counts forfeits:\n" + run.stdout[-2000:])
        games = PDNReader(filename=pdn).games
        if len(games) != GAMES:
            failures.append(f"pydraughts read {len(games)} games, expected {GAMES}")
        for i, game in enumerate(games, 1):
            tags = game.tags
            board = Board(variant="standard", fen=tags["FEN"])
            for ply, text in enumerate(game.moves, 1):
                legal = board.legal_moves()
                try:
                    move = Move(board, pdn_move=text)
                except Exception as e:  # noqa: BLE001 - any failure to read the move is a failure
                    failures.append(f"game {i} ply {ply}: pydraughts cannot read {text!r}: {e}")
                    break
                if move.board_move not in [m.board_move for m in legal]:
                    failures.append(f"game {i} ply {ply}: {text} is not legal for pydraughts")
                    break
                board.push(move)
            # A forfeit (flag, crash, illegal move) is a bug of the engine or
            # the runner, never an acceptable ending of these games.
            if tags["Termination"] in ("time forfeit", "engine failure", "illegal move"):
                failures.append(f"game {i}: ended by {tags['Termination']}")
            if game.game_ending != tags["Result"]:
                failures.append(f"game {i}: result {game.game_ending} != tag {tags['Result']}")
            if tags["Termination"] == "no legal move":
                if board.legal_moves():
                    failures.append(f"game {i}: pydraughts still has moves at the end")
                loser_to_move = BLACK if tags["Result"] == "2-0" else WHITE
                if board.turn != loser_to_move:
                    failures.append(f"game {i}: the side to move at the end is not the loser")
            print(f"ok   game {i}: {len(game.moves)} moves, {tags['Result']} ({tags['Termination']})")
        # The same games annotated by `dammer annotate`: comments, glyphs
        # and variations must not change what pydraughts reads.
        annotated = os.path.join(tmp, "annotated.pdn")
        run = subprocess.run([BINARY, "annotate", pdn, "--depth", "4", "--out", annotated, "--svg",
                              os.path.join(tmp, "graph.svg")], capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            failures.append("dammer annotate failed: " + run.stderr[-2000:])
        else:
            again = PDNReader(filename=annotated).games
            if len(again) != len(games):
                failures.append(f"pydraughts read {len(again)} annotated games, expected {len(games)}")
            for i, (a, b) in enumerate(zip(again, games), 1):
                if a.moves != b.moves:
                    failures.append(f"annotated game {i}: pydraughts reads other moves than in the match PDN")
                if a.game_ending != b.game_ending or "Annotator" not in a.tags or "WhiteBlunders" not in a.tags:
                    failures.append(f"annotated game {i}: result or annotation tags lost")
                board = Board(variant="standard", fen=a.tags["FEN"])
                for text in a.moves:
                    board.push(Move(board, pdn_move=text))
            with open(annotated) as f:
                glyphs = f.read().count("?")
            print(f"ok   annotated: {len(again)} games read back by pydraughts ({glyphs} '?' marks)")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
