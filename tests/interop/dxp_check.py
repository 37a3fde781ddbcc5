#!/usr/bin/env python3
"""Drive `dammer dxp` through full games with an independent DXP initiator
(a separate Python program, `dxp_engine.py`, written from the protocol's
description rather than from Dammer's code), checking every move Dammer
sends against pydraughts' rules and every game's end.

Dammer runs as a DXP client: the adapter listens, starts the binary with
DXP_HOST/DXP_PORT in its environment and sends the game requests. The other
side plays random legal moves (pydraughts). Also checked on the same
connection: a malformed message gets a CHAT and the connection lives on, a
BACKREQ is answered "not supported", a GAMEREQ during a game "not now", and
a GAMEEND sent while Dammer thinks is confirmed at once.

Usage: dxp_check.py DAMMER_BINARY [PATH_TO_dxp_engine.py]
Exit status 0 when every check passes.
"""

import importlib.util
import os
import random
import sys
import time

from draughts import Board
from draughts.core.board import WHITE

HERE = os.path.dirname(os.path.abspath(__file__))
BINARY = os.path.abspath(sys.argv[1])
ADAPTER = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "..", "..", "..", "shared", "tools", "dxp_engine.py")

spec = importlib.util.spec_from_file_location("dxp_engine", ADAPTER)
dxp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dxp)

failures = []


def key(move):
    """(from, to, captured set) of a pydraughts move: how DXP names a move."""
    steps = move.steps_move
    return steps[0], steps[-1], frozenset(move.captures)


def hub_position(fen):
    """Side to move and the 50 squares in Hub letters, from a FEN."""
    side, *parts = fen.split(":")
    squares = ["e"] * 50
    for part in parts:
        colour, items = part[0], part[1:]
        for item in filter(None, items.split(",")):
            king = item.startswith("K")
            squares[int(item.lstrip("K")) - 1] = colour.upper() if king else colour.lower()
    return side + "".join(squares)


def play_game(eng, engine_white, rnd, fen=None, seconds=30.0, max_plies=300):
    """One game: Dammer against random legal moves. Returns the plies played."""
    board = Board(variant="standard", fen=fen) if fen else Board(variant="standard")
    position = hub_position(fen) if fen else None
    eng.new_game(engine_white, position=position, minutes=seconds)
    white_to_move = board.turn == WHITE
    plies = 0
    while plies < max_plies:
        engine_turn = white_to_move == engine_white
        legal = board.legal_moves()
        if engine_turn:
            try:
                mv = eng.get_move(timeout=seconds + 10)
            except dxp.DxpGameEnded as e:
                # Dammer ends the game on its turn only when it has no move
                # (reason 1) or a draw rule applies (reason 2).
                if e.reason == 1 and legal:
                    failures.append(f"Dammer resigned with {len(legal)} legal moves (ply {plies})")
                if e.reason == 3:
                    failures.append(f"Dammer claimed a win on its own turn (ply {plies})")
                eng.end_game(reason={1: 3, 3: 1}.get(e.reason, e.reason))
                return plies
            found = [m for m in legal if key(m) == (mv.frm, mv.to, frozenset(mv.captured))]
            if not found:
                failures.append(f"Dammer sent an illegal move {mv} at ply {plies}")
                eng.end_game(reason=0)
                return plies
            board.push(found[0])
        else:
            if not legal:
                # We have no move: we lose, and say so.
                eng.end_game(reason=1)
                return plies
            m = rnd.choice(legal)
            eng.send_move(m.steps_move[0], m.steps_move[-1], list(m.captures))
            board.push(m)
            # After our move Dammer may end the game at once (it has no move).
        white_to_move = not white_to_move
        plies += 1
    eng.end_game(reason=2)
    return plies


def main():
    rnd = random.Random(7)
    cmd = f"{BINARY} dxp --hash 16"
    with dxp.DxpEngine(cmd, "dammer", log=lambda s: None) as eng:
        games = 0
        for engine_white in (True, False, True, False):
            plies = play_game(eng, engine_white, rnd, seconds=20.0)
            games += 1
            if plies < 2:
                failures.append(f"game {games} ended after {plies} plies")
        # A start position other than the initial one.
        play_game(eng, False, rnd, fen="W:W28,31,32,36,37,38,42,47:B8,12,13,17,18,19,23,24", seconds=10.0)
        # Malformed messages: each gets a CHAT, and the connection lives
        # on. Dammer answers in order, so the CHATs come before the BACKACC
        # of the BACKREQ after them (which must say "not supported").
        before = len(eng.chats)
        bad = ["Xnonsense", "M00013228", "E9", "R01" + "x" * 10, "A" + " " * 32 + "7", "B12W", "K0"]
        for text in bad:
            eng._send(text)
        code = eng.backreq(1, True)
        if code != 1:
            failures.append(f"BACKREQ answered {code}, expected 1 (not supported)")
        if len(eng.chats) - before != len(bad):
            failures.append(f"{len(bad)} malformed messages got {len(eng.chats) - before} CHATs")
        # A GAMEREQ during a game: not now (2); a GAMEEND while Dammer
        # thinks: confirmed.
        middle = "W:W27,28,31,32,33,34,36,37,38,39,40,41,42,43,44,45,47,48,49:B1,2,3,4,6,7,8,9,10,11,12,13,14,16,17,18,19,20,22"
        eng.new_game(engine_white=True, position=hub_position(middle), minutes=600.0)
        eng._send(f"R01{'again':<32}Z010000A")
        deadline = time.monotonic() + 5
        acc = None
        while acc is None and time.monotonic() < deadline:
            msg = eng._next(deadline)
            if msg and msg[0] == "A":
                acc = msg
        if not acc or acc[33] != "2":
            failures.append(f"GAMEREQ during a game answered {acc!r}, expected code 2")
        time.sleep(0.3)
        started = time.monotonic()
        if not eng.end_game(reason=2, timeout=3):
            failures.append("no GAMEEND confirmation while Dammer thought")
        elif time.monotonic() - started > 1.0:
            failures.append(f"GAMEEND confirmed after {time.monotonic() - started:.2f}s")
        # And a game still plays after all that.
        play_game(eng, True, rnd, seconds=10.0)
        # The adapter's default clock is 999 minutes; its per-move limit
        # ("console time MS", Moby Dam's command) keeps every move short.
        eng.set_time_limit(200)
        eng.new_game(engine_white=True, position=hub_position(middle), minutes="999")
        started = time.monotonic()
        eng.get_move(timeout=5)
        if time.monotonic() - started > 1.0:
            failures.append(f"with console time 200 a move took {time.monotonic() - started:.2f}s")
        eng.end_game(reason=0)
    if failures:
        for f in failures:
            print("FAIL:", f)
        return 1
    print(f"dxp_check: {games + 2} games and the protocol checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
