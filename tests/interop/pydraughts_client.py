#!/usr/bin/env python3
"""Drive Dammer with pydraughts' HubEngine, the client real tournament tools
use, and check every move against pydraughts' own rules.

Usage: pydraughts_client.py DAMMER_BINARY
Exit status 0 when every check passes.
"""

import os
import sys
import threading
import time

from draughts import Board, Move
from draughts.engine import HubEngine, Limit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from hubmove import move_key  # noqa: E402

BINARY = sys.argv[1]
FAILURES = []
PASSED = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    (PASSED if cond else FAILURES).append(what)


def legal_hub(board):
    return {m.hub_move for m in board.legal_moves()}


def play_game(engine, limit, max_plies=400, fen="startpos", variant="standard"):
    board = Board(variant=variant, fen=fen)
    plies = 0
    while not board.is_over() and plies < max_plies:
        result = engine.play(board, limit, ponder=False)
        hub = result.move.hub_move
        if move_key(hub) not in {move_key(m) for m in legal_hub(board)}:
            return False, f"illegal move {hub} at ply {plies} in {board.fen}"
        board.push(result.move)
        plies += 1
    return True, f"{plies} plies, winner {board.winner()}"


def main():
    engine = HubEngine([BINARY, "hub"])
    check(engine.id.get("name") == "Dammer", f"hub: id {engine.id}")
    check({"threads", "hash", "tt-size", "ponder"} <= engine.options, f"params {sorted(engine.options)}")
    engine.configure({"threads": 2, "hash": 32, "ponder": "true"})
    engine.init()
    engine.ping()

    ok, why = play_game(engine, Limit(time=1, inc=0.02))
    check(ok, f"game with time and increment: {why}")
    ok, why = play_game(engine, Limit(movetime=0.02))
    check(ok, f"game with move time: {why}")
    ok, why = play_game(engine, Limit(depth=3), max_plies=60)
    check(ok, f"game with depth: {why}")
    ok, why = play_game(engine, Limit(nodes=3000), max_plies=60)
    check(ok, f"game with nodes: {why}")

    # A set-up position sent as FEN (pydraughts' own tests do this).
    fen = "W:W27,28,32,37,38,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,16,17,18,23"
    board = Board(fen=fen)
    move, _ = engine.go(fen, movetime=0.1)
    check(move in legal_hub(board), f"go on a FEN position: {move}")

    # Pondering: ponder-hit, then stop.
    board = Board()
    board.push(board.legal_moves()[0])
    hub_moves = " ".join(m.hub_move for m in board.move_stack)
    start_hub = board._game.initial_hub_fen
    result = {}

    def ponder():
        result["move"] = engine.go(start_hub, moves=hub_moves, my_time=5, inc=0.0, ponder=True)

    t = threading.Thread(target=ponder)
    t.start()
    time.sleep(0.3)
    engine.ponderhit()
    t.join(timeout=15)
    check(not t.is_alive() and result.get("move", ("",))[0] in legal_hub(board),
          f"ponder then ponder-hit: {result.get('move')}")

    result.clear()
    t = threading.Thread(target=ponder)
    t.start()
    time.sleep(0.3)
    started = time.monotonic()
    engine.stop()
    t.join(timeout=5)
    check(not t.is_alive() and result.get("move", ("",))[0] in legal_hub(board),
          f"ponder then stop: {result.get('move')} in {time.monotonic() - started:.3f}s")

    # Zero and negative time (pydraughts subtracts the increment first).
    board = Board()
    move, _ = engine.go(board._game.initial_hub_fen, my_time=0.0, inc=0.0)
    check(move in legal_hub(board), f"no time left: {move}")

    # The variants lidraughts' draughtsnet requires, and games of each
    # played by pydraughts' rules with the variant set as its clients set it.
    check({"normal", "bt", "frisian", "losing"} <= engine.variants, f"variants {sorted(engine.variants)}")
    for theirs, ours in [("frisian", "frisian"), ("breakthrough", "bt"), ("antidraughts", "losing")]:
        other = HubEngine([BINARY, "hub"])
        other.configure({"variant": ours})
        other.init()
        ok, why = play_game(other, Limit(movetime=0.02), max_plies=300, variant=theirs)
        check(ok, f"{theirs} game with move time: {why}")
        other.quit()
        other.p.wait(timeout=2)
        other.p.stdin.close()
        other.p.stdout.close()

    engine.quit()
    engine.p.wait(timeout=2)
    check(engine.p.returncode == 0, f"quit: exit status {engine.p.returncode}")
    engine.p.stdin.close()
    engine.p.stdout.close()
    print(f"pydraughts interop: {len(PASSED)} passed, {len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
