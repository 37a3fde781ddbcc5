#!/usr/bin/env python3
"""Engine-vs-engine match over the Hub protocol, refereed by dame-rs's rules.

Each opening is played twice with colours swapped. Every move an engine
returns is checked against the referee's legal moves; an illegal move, a
crash or a time-out loses the game. Games end by the FMJD rules (no move,
threefold repetition, 25-move and 16/5-move rules) or are adjudicated a draw
after --max-plies plies.

Usage:
  match.py --engine1 "target/release/dammer hub" --engine2 "dame hub" \
           --openings ../shared/data/openings-2move.fen --movetime 0.1
"""

import argparse
import math
import queue
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import dame


def fen_to_hub(fen):
    side, *lists = fen.strip().rstrip(".").split(":")
    squares = ["e"] * 51
    for lst in lists:
        if not lst or lst[0] not in "WB":
            continue
        colour = lst[0]
        for tok in filter(None, lst[1:].split(",")):
            king = tok.startswith("K")
            tok = tok.lstrip("K")
            lo, _, hi = tok.partition("-")
            for sq in range(int(lo), int(hi or lo) + 1):
                squares[sq] = colour if king else colour.lower()
    return side + "".join(squares[1:])


class Engine:
    def __init__(self, command, params):
        self.command = command
        self.proc = subprocess.Popen(
            shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.name = command
        self.send("hub")
        for line in self.until("wait", 10):
            if line.startswith("id "):
                for part in shlex.split(line)[1:]:
                    if part.startswith("name="):
                        self.name = part[5:]
        for name, value in params:
            self.send(f"set-param name={name} value={value}")
        self.send("init")
        list(self.until("ready", 30))

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, word, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.name}: no {word!r} within {timeout}s")
            line = self.lines.get(timeout=left)
            if line is None:
                raise EOFError(f"{self.name} exited")
            yield line
            if line.split(" ", 1)[0] == word:
                return

    def play(self, start_hub, moves, movetime):
        self.send(f'pos pos={start_hub} moves="{" ".join(moves)}"')
        self.send(f"level move-time={movetime}")
        self.send("go think")
        start = time.monotonic()
        for line in self.until("done", movetime * 10 + 5):
            pass
        used = time.monotonic() - start
        parts = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
        return parts.get("move"), used

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=2)
        except Exception:
            self.proc.kill()


def play_game(engines, fen, movetime, max_plies):
    """engines[0] plays White. Returns (result for White: 1, 0.5, 0; reason,
    moves played, max time used)."""
    board = dame.Board(fen)
    start_hub = fen_to_hub(board.fen())
    moves = []
    slowest = 0.0
    while not board.is_game_over():
        if len(moves) >= max_plies:
            return 0.5, "adjudicated", moves, slowest
        side = 0 if str(board.turn).endswith("WHITE") else 1
        try:
            text, used = engines[side].play(start_hub, moves, movetime)
            slowest = max(slowest, used)
            move = board.parse_move(text)
        except Exception as e:  # illegal move, time-out or crash loses
            return (0.0 if side == 0 else 1.0), f"{engines[side].name}: {e}", moves, slowest
        moves.append(move.hub())
        board.push(move)
    outcome = board.outcome()
    if outcome.winner is None:
        return 0.5, str(outcome.termination).split(".")[-1], moves, slowest
    white_won = str(outcome.winner).endswith("WHITE")
    return (1.0 if white_won else 0.0), "no moves", moves, slowest


def elo(score, n, scores):
    if n == 0:
        return 0.0, 0.0
    s = min(max(score / n, 1e-3), 1 - 1e-3)
    e = -400 * math.log10(1 / s - 1)
    var = sum((x - s) ** 2 for x in scores) / max(n - 1, 1)
    se = math.sqrt(var / n)
    lo = min(max(s - 1.96 * se, 1e-3), 1 - 1e-3)
    hi = min(max(s + 1.96 * se, 1e-3), 1 - 1e-3)
    return e, (-400 * math.log10(1 / hi - 1) + 400 * math.log10(1 / lo - 1)) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine1", required=True)
    ap.add_argument("--engine2", required=True)
    ap.add_argument("--param1", action="append", default=[], help="name=value for engine 1")
    ap.add_argument("--param2", action="append", default=[], help="name=value for engine 2")
    ap.add_argument("--openings", required=True)
    ap.add_argument("--movetime", type=float, default=0.1)
    ap.add_argument("--games", type=int, default=0, help="stop after this many games (0: all)")
    ap.add_argument("--max-plies", type=int, default=300)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--pdn", help="append every game to this PDN file")
    args = ap.parse_args()
    openings = [l.strip() for l in open(args.openings) if l.strip() and not l.startswith("#")]
    jobs = [(fen, swap) for fen in openings for swap in (False, True)]
    if args.games:
        jobs = jobs[: args.games]
    p1 = [p.split("=", 1) for p in args.param1]
    p2 = [p.split("=", 1) for p in args.param2]
    lock = threading.Lock()
    results = []
    local = threading.local()

    def worker(job):
        fen, swap = job
        if not hasattr(local, "engines"):
            local.engines = (Engine(args.engine1, p1), Engine(args.engine2, p2))
        e1, e2 = local.engines
        white, black = (e2, e1) if swap else (e1, e2)
        r, why, moves, slowest = play_game((white, black), fen, args.movetime, args.max_plies)
        plies = len(moves)
        if "exited" in why or "within" in why:
            for e in local.engines:
                e.close()
            del local.engines
        score1 = (1 - r) if swap else r
        with lock:
            results.append(score1)
            n = len(results)
            w = sum(1 for x in results if x == 1)
            d = sum(1 for x in results if x == 0.5)
            l = n - w - d
            if args.pdn:
                with open(args.pdn, "a") as f:
                    result = {1.0: "2-0", 0.5: "1-1", 0.0: "0-2"}[r]
                    f.write(f'[White "{white.name}"]\n[Black "{black.name}"]\n[Result "{result}"]\n'
                            f'[GameType "20"]\n[FEN "{fen}"]\n[Termination "{why}"]\n\n'
                            f'{" ".join(moves)} {result}\n\n')
            print(f"game {n}: {'e2' if swap else 'e1'} white, {score1:.1f} for e1 ({why}, {plies} plies, "
                  f"slowest move {slowest:.3f}s)  total +{w} ={d} -{l}", flush=True)

    with ThreadPoolExecutor(args.concurrency) as pool:
        list(pool.map(worker, jobs))
    n = len(results)
    score = sum(results)
    w = sum(1 for x in results if x == 1)
    d = sum(1 for x in results if x == 0.5)
    e, margin = elo(score, n, results)
    print(f"{args.engine1} vs {args.engine2}: +{w} ={d} -{n - w - d} in {n} games, "
          f"score {100 * score / max(n, 1):.1f}%, Elo {e:+.0f} +- {margin:.0f}")


if __name__ == "__main__":
    sys.exit(main())
