#!/usr/bin/env python3
"""The network's training loop, one generation after another, resumable.

Each generation plays self-play games with the current best network (with
--label-nodes, searches their positions again with it at that many nodes a
position: labels from a deeper search than the games'), fits a candidate
from that network (a warm start, on this generation's data and the
generations' before it, --mix), plays a gate match of the candidate against
the best network, and on a pass keeps the candidate as the new best (and,
with --embed, writes it where the engine embeds it). See docs/training.md,
"The training loop".

Every step checkpoints (the self-play file, the relabelled file, the fit's
checkpoint OUT.ckpt, the gate's PDN), and the loop's own state is written
after each step and every minute during one: a loop stopped anywhere
(Ctrl-C, a killed session) goes on with the same command. Two
directories: --work holds the data (self-play and relabelled files, fits,
gate PDNs: large, may vanish); --keep holds the state (loop.json) and the
accepted networks (small). When --work or a file in it has vanished, the
step that makes the missing file runs again, and the loop says so.

    bench/train_loop.py --work /work/data/loop --generations 3
    bench/train_loop.py --work /work/data/loop --report
"""

import argparse
import datetime
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EMBEDDED = os.path.join(ROOT, "src", "engine", "eval", "nn.bin")
STATE_VERSION = 1
# Settings that decide what the loop computes: a loop is resumed with the
# same ones. The others (threads, binary, how many generations) may change.
FIXED = ["games", "nodes", "random_plies", "seed", "mix", "epochs", "lr", "egdb",
         "gate_games", "gate_movetime", "gate_sprt", "w2_bits", "label_nodes"]
# What a setting added since a loop started meant before it existed.
OLD_DEFAULTS = {"gate_sprt": "off", "w2_bits": 16, "label_nodes": 0}
# A gate's SPRT error rates (false pass, false fail).
SPRT_ALPHA = SPRT_BETA = 0.05


def say(text):
    print(f"[loop] {text}", flush=True)


class LoopError(Exception):
    pass


class State:
    """loop.json in --keep: the settings, the best network, each generation's
    steps with their cost, and the step running when the loop was stopped."""

    def __init__(self, keep):
        self.keep = keep
        self.path = os.path.join(keep, "loop.json")
        self.lock = threading.Lock()
        self.data = None
        if os.path.exists(self.path):
            try:
                with open(self.path) as f:
                    self.data = json.load(f)
            except (OSError, ValueError) as e:
                raise LoopError(f"{self.path} cannot be read ({e}); move it away to start a new loop")
            if self.data.get("version") != STATE_VERSION:
                raise LoopError(f"{self.path} is of another version of this script")

    def save(self):
        with self.lock:
            os.makedirs(self.keep, exist_ok=True)
            tmp = self.path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(self.data, f, indent=1)
            os.replace(tmp, self.path)


class Step:
    """Times one step; while it runs, a heartbeat writes its elapsed time into
    the state every minute, so that a loop killed mid-step still counts it."""

    def __init__(self, state, gen, name, cores):
        self.state, self.gen, self.name, self.cores = state, gen, name, cores

    def __enter__(self):
        self.start = time.monotonic()
        self.stop = threading.Event()
        self.state.data["running"] = {"gen": self.gen["gen"], "step": self.name, "seconds": 0.0, "cores": self.cores}
        self.state.save()
        self.beat = threading.Thread(target=self._beat, daemon=True)
        self.beat.start()
        return self

    def _beat(self):
        while not self.stop.wait(60):
            with self.state.lock:
                self.state.data["running"]["seconds"] = time.monotonic() - self.start
            self.state.save()

    def __exit__(self, *exc):
        self.stop.set()
        self.beat.join()
        add_cost(self.gen, self.name, time.monotonic() - self.start, self.cores)
        self.state.data.pop("running", None)
        self.state.save()
        return False


def add_cost(gen, step, seconds, cores):
    cost = gen.setdefault("cost", {})
    cost[step] = cost.get(step, 0.0) + seconds * cores


def pentanomial(text):
    """The last pentanomial Elo of a match report and its 95% interval:
    `pentanomial Elo X +- E`, or `pentanomial Elo X (95% interval LO .. HI)`
    when it is not symmetric (a score of 0 or 100%)."""
    num = r"([-+]?(?:[\d.]+|inf))"
    found = re.findall(r"pentanomial Elo " + num + r" (?:\+- " + num + r"|\(95% interval " + num + r" \.\. " + num + r"\))", text)
    if not found:
        # No pair finished (a gate its SPRT stopped at once): the games' Elo.
        found = [(e, err, "", "") for e, err in re.findall(r"^  Elo " + num + r" \+- " + num + r" \(95%\)", text, re.M)]
    if not found:
        return float("nan"), float("-inf"), float("inf")
    elo, err, lo, hi = found[-1]
    if err:
        return float(elo), float(elo) - float(err), float(elo) + float(err)
    return float(elo), float(lo), float(hi)


def interval(g):
    if g["elo"] != g["elo"]:
        return "- (no Elo: no game decided)"
    return f"{g['elo']:+.1f} ({g['low']:+.1f} .. {g['high']:+.1f})"


def sprt_bounds(text):
    """--gate-sprt: "ELO0,ELO1", or "off" (None)."""
    if text == "off":
        return None
    try:
        e0, e1 = (float(x) for x in text.split(","))
        if not (abs(e0) < 1e4 and abs(e1) < 1e4):
            raise ValueError
    except ValueError:
        raise LoopError(f"--gate-sprt {text}: give ELO0,ELO1 (e.g. 0,30) or off") from None
    if not e0 < e1:
        raise LoopError(f"--gate-sprt {text}: ELO0 must be below ELO1")
    return e0, e1


def run(cmd, log):
    """Runs cmd, echoing and logging its output; returns (rc, output). An
    interrupt is passed on to the child (a Ctrl-C at a terminal reaches it
    anyway; a `kill -INT` of this script does not): its own clean stop is
    waited for, then the interrupt goes on up."""
    say("$ " + " ".join(cmd))
    out = []
    with open(log, "a") as logf:
        logf.write(f"\n# {datetime.datetime.now().isoformat(timespec='seconds')} $ {' '.join(cmd)}\n")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        try:
            for line in proc.stdout:
                sys.stdout.write(line)
                sys.stdout.flush()
                logf.write(line)
                out.append(line)
            rc = proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            for line in proc.stdout:
                logf.write(line)
            proc.wait()
            raise
    return rc, "".join(out)


class Loop:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.keep = os.path.abspath(args.keep or os.path.join(ROOT, "bench", "out", "train-loop"))
        self.nets = os.path.join(self.keep, "nets")
        self.state = State(self.keep)
        self.dammer = os.path.abspath(args.dammer) if os.sep in args.dammer else shutil.which(args.dammer) or args.dammer
        self.log = os.path.join(self.keep, "loop.log")

    # -- settings and state --------------------------------------------------

    def settings(self):
        a = self.args
        return {"games": a.games, "nodes": a.nodes, "random_plies": a.random_plies, "seed": a.seed, "mix": a.mix,
                "epochs": a.epochs, "lr": a.lr, "egdb": os.path.abspath(a.egdb) if a.egdb else None,
                "gate_games": a.gate_games, "gate_movetime": a.gate_movetime, "gate_sprt": a.gate_sprt,
                "w2_bits": a.w2_bits, "label_nodes": a.label_nodes}

    def open_state(self):
        st = self.state
        if st.data is None:
            say(f"no state in {st.path}: a new loop, starting from the embedded network ({EMBEDDED})")
            st.data = {"version": STATE_VERSION, "settings": self.settings(), "best": "n0", "nets": {"n0": None},
                       "generations": []}
            st.save()
            return
        old = st.data["settings"]
        new = self.settings()
        for k in FIXED:
            if k not in old:
                # A loop of an older script, which had no such setting: it
                # may take the given one while nothing it decides has run
                # yet (no gate has started); after that, the old behaviour.
                gated = any("gate" in g or os.path.exists(self.gate_pdn(g["gen"])) for g in st.data["generations"])
                old[k] = OLD_DEFAULTS[k] if gated else new[k]
                say(f"{st.path} has no --{k.replace('_', '-')} (a loop of an older script): "
                    f"it is {old[k]} from now on")
                st.save()
        diff = [f"--{k.replace('_', '-')} {old[k]} (given {new[k]})" for k in FIXED if old.get(k) != new[k]]
        if diff:
            raise LoopError(f"{st.path} is a loop started with " + ", ".join(diff)
                            + ": run it with the same settings, or give another --keep for a new loop")
        running = st.data.pop("running", None)
        if running:
            gen = self.generation(running["gen"])
            add_cost(gen, running["step"], running["seconds"], running["cores"])
            say(f"the last run stopped during generation {running['gen']}'s {running['step']} "
                f"(about {running['seconds'] / 60:.0f} min of it counted): going on")
            st.save()

    def generation(self, k):
        for g in self.state.data["generations"]:
            if g["gen"] == k:
                return g
        raise LoopError(f"no generation {k} in {self.state.path}")

    def net_path(self, name):
        """The file of network `name` (None: the embedded one, read from the
        checkout for a fit's warm start)."""
        path = self.state.data["nets"].get(name)
        if path is not None and not os.path.exists(path):
            raise LoopError(f"network {name} ({path}) is gone from --keep: the loop cannot go on from it "
                            f"(restore it, or start a new loop with another --keep)")
        return path

    def data_file(self, k):
        return os.path.join(self.work, f"gen{k}.bin")

    def labelled_file(self, k):
        return os.path.join(self.work, f"gen{k}-{self.args.label_nodes}n.bin")

    def fit_file(self, k):
        """What generation k's fit reads: its self-play, or that relabelled."""
        return self.labelled_file(k) if self.args.label_nodes else self.data_file(k)

    def candidate(self, k):
        return os.path.join(self.work, f"cand{k}.nn")

    def gate_pdn(self, k):
        return os.path.join(self.work, f"gate{k}.pdn")

    # -- steps ---------------------------------------------------------------

    def play(self, gen):
        k = gen["gen"]
        out = self.data_file(k)
        cmd = [self.dammer, "selfplay", "--out", out, "--games", str(self.args.games), "--nodes",
               str(self.args.nodes), "--random-plies", str(self.args.random_plies), "--eval", "nn",
               "--seed", str(self.args.seed * 1000 + k), "--threads", str(self.args.threads)]
        weights = self.net_path(gen["best"])
        if weights:
            cmd += ["--weights", weights]
        with Step(self.state, gen, "play", self.args.threads):
            rc, text = run(cmd, self.log)
        # A file already complete says so at once ("N games there, 0 to play").
        held = [int(n) for n in re.findall(r"the file holds (\d+) games", text)]
        held += [int(n) for n, todo in re.findall(r": (\d+) games there, (\d+) to play", text) if todo == "0"]
        if rc != 0 or not held or max(held) < self.args.games:
            raise LoopError(f"generation {k}'s self-play stopped before its {self.args.games} games "
                            f"(exit {rc}): run the same command to go on")
        gen["played"] = True

    def label(self, gen):
        """Searches every position of the generation's self-play again at
        --label-nodes with the network that played it (distillation from a
        deeper search than the games'); `dammer relabel` resumes its file."""
        k = gen["gen"]
        if not os.path.exists(self.data_file(k)):
            say(f"{self.data_file(k)} is gone (was the --work directory removed?): generation {k}'s self-play "
                f"runs again, with its network {gen['best']}, to be relabelled")
            gen["played"] = False
            self.state.save()
            self.play(gen)
        cmd = [self.dammer, "relabel", self.data_file(k), "--out", self.labelled_file(k), "--nodes",
               str(self.args.label_nodes), "--eval", "nn", "--threads", str(self.args.threads)]
        weights = self.net_path(gen["best"])
        if weights:
            cmd += ["--weights", weights]
        with Step(self.state, gen, "label", self.args.threads):
            rc, text = run(cmd, self.log)
        done = re.search(r": \d+ games there, 0 to relabel", text) or (
            re.search(r"^relabelled \d+ games", text, re.M) and "(interrupted" not in text)
        if rc != 0 or not done:
            raise LoopError(f"generation {k}'s relabelling stopped before its last game "
                            f"(exit {rc}): run the same command to go on")
        gen["labelled"] = True

    def fit(self, gen):
        k = gen["gen"]
        gens = range(max(1, k - self.args.mix + 1), k + 1)
        data = [self.fit_file(j) for j in gens]
        for j, path in zip(gens, data):
            if not os.path.exists(path):
                # The step that makes the file runs again (the relabelling
                # plays its self-play again first if that is gone too).
                g = self.generation(j)
                flag, what, step = (("labelled", "relabelling", self.label) if self.args.label_nodes
                                    else ("played", "self-play", self.play))
                say(f"{path} is gone (was the --work directory removed?): generation {j}'s {what} "
                    f"runs again, with its network {g['best']}")
                g[flag] = False
                self.state.save()
                step(g)
        init = self.net_path(gen["best"]) or EMBEDDED
        if not os.path.exists(self.candidate(k) + ".ckpt") and os.path.exists(self.gate_pdn(k)):
            # A gate's games against a candidate that is no more.
            say(f"no checkpoint of generation {k}'s fit: its old gate games ({self.gate_pdn(k)}) are set aside")
            os.replace(self.gate_pdn(k), self.gate_pdn(k) + ".old")
        cmd = [self.dammer, "tune", *data, "--layout", "nn", "--init", init, "--lr", str(self.args.lr),
               "--epochs", str(self.args.epochs), "--out", self.candidate(k), "--resume",
               "--threads", str(self.args.threads)]
        if self.args.egdb:
            cmd += ["--egdb", self.args.egdb]
        if self.args.w2_bits == 8:
            cmd += ["--w2-8bit"]
        with Step(self.state, gen, "fit", self.args.threads):
            rc, text = run(cmd, self.log)
        if rc != 0:
            raise LoopError(f"generation {k}'s fit failed (exit {rc}; {self.log})")
        positions = {p: int(n) for p, n in re.findall(r"^(\S+): (\d+) positions of", text, re.M)}
        if self.fit_file(k) in positions:
            gen["positions"] = positions[self.fit_file(k)]
        gen["fit_positions"] = sum(positions.values())
        gen["fitted"] = True

    def gate(self, gen):
        """The candidate against the best network. With --gate-sprt, the
        match stops early when the SPRT finds the candidate no better than
        ELO0 (a fail: most candidates, in a fraction of the games); a pass
        still needs all --gate-games games and a 95% interval above 0, so a
        match whose SPRT passes early plays on to them."""
        k = gen["gen"]
        a = self.args
        best = self.net_path(gen["best"])
        cand = ["name=g%d" % k, f"cmd={self.dammer} hub", f"option.weights={self.candidate(k)}", "option.book=false"]
        base = [f"name={gen['best']}", f"cmd={self.dammer} hub", "option.book=false"]
        if best:
            base.append(f"option.weights={best}")
        cmd = [self.dammer, "match", "--engine", *cand, "--engine", *base, "--movetime", str(a.gate_movetime),
               "--games", str(a.gate_games), "--concurrency", str(a.concurrency),
               "--draw-adjudication", "80", "0.05", "12", "--resign-adjudication", "3", "3",
               "--pdn", self.gate_pdn(k), "--resume"]
        sprt = a.sprt
        verdict = None
        with Step(self.state, gen, "gate", a.concurrency):
            if sprt:
                rc, text = run(cmd + ["--sprt", str(sprt[0]), str(sprt[1]), str(SPRT_ALPHA), str(SPRT_BETA)], self.log)
                if rc != 0:
                    raise LoopError(f"generation {k}'s gate match stopped (exit {rc}): run the same command to go on")
                found = re.findall(r"^SPRT .*-> (H0 accepted|H1 accepted|undecided)", text, re.M)
                verdict = found[-1] if found else None
                if verdict == "H1 accepted":
                    say(f"generation {k}'s gate: the SPRT passed early; the match plays on to {a.gate_games} games")
            if verdict != "H0 accepted":
                rc, text = run(cmd, self.log)
        games = re.findall(r"games (\d+): \+(\d+) =(\d+) -(\d+)", text)
        if rc != 0 or not games or (int(games[-1][0]) < a.gate_games and verdict != "H0 accepted"):
            raise LoopError(f"generation {k}'s gate match stopped before its {a.gate_games} games "
                            f"(exit {rc}): run the same command to go on")
        n, w, d, l = (int(x) for x in games[-1])
        elo, lo, hi = pentanomial(text)
        gen["gate"] = {"games": n, "result": f"+{w} ={d} -{l}", "elo": elo, "low": lo, "high": hi,
                       "passed": n >= a.gate_games and lo > 0}
        if verdict == "H0 accepted":
            gen["gate"]["sprt"] = f"SPRT [{sprt[0]:g}, {sprt[1]:g}] H0 accepted"

    def accept(self, gen):
        k = gen["gen"]
        name = f"g{k}"
        if gen["gate"]["passed"]:
            os.makedirs(self.nets, exist_ok=True)
            path = os.path.join(self.nets, f"{name}.nn")
            shutil.copyfile(self.candidate(k), path)
            self.state.data["nets"][name] = path
            self.state.data["best"] = name
            say(f"generation {k} passed its gate (Elo {interval(gen['gate'])}): "
                f"{name} is the best network ({path})")
            if self.args.embed:
                shutil.copyfile(path, self.args.embed)
                # The name `dammer --version` gives the embedded network.
                with open(os.path.splitext(self.args.embed)[0] + ".name", "w") as f:
                    f.write(name + "\n")
                say(f"written to {self.args.embed}: rebuild, run `dammer bench` and commit it with the table")
        else:
            why = gen["gate"].get("sprt") or "its 95% interval not above 0"
            say(f"generation {k} did not pass its gate (Elo {interval(gen['gate'])} after {gen['gate']['games']} "
                f"games, {why}): {gen['best']} stays the best network")
        gen["done"] = True

    # -- the loop ------------------------------------------------------------

    def go(self):
        self.open_state()
        os.makedirs(self.work, exist_ok=True)
        st = self.state
        while True:
            gens = st.data["generations"]
            if not gens or gens[-1].get("done"):
                if len(gens) >= self.args.generations:
                    say(f"{len(gens)} generations done (--generations {self.args.generations})")
                    return
                k = len(gens) + 1
                gens.append({"gen": k, "best": st.data["best"]})
                st.save()
                say(f"generation {k}: self-play with {st.data['best']}")
            gen = gens[-1]
            k = gen["gen"]
            # What a step needs must still be there: a vanished file sends the
            # generation back to the step that makes it.
            if gen.get("fitted") and not gen.get("done") and not os.path.exists(self.candidate(k)):
                say(f"{self.candidate(k)} is gone (was the --work directory removed?): "
                    f"generation {k}'s fit runs again, then its gate")
                gen["fitted"] = False
                gen.pop("gate", None)
            labelling = self.args.label_nodes > 0
            if gen.get("labelled") and not gen.get("fitted") and not os.path.exists(self.labelled_file(k)):
                say(f"{self.labelled_file(k)} is gone (was the --work directory removed?): "
                    f"generation {k}'s relabelling runs again")
                gen["labelled"] = False
            if (gen.get("played") and not gen.get("fitted") and not (labelling and gen.get("labelled"))
                    and not os.path.exists(self.data_file(k))):
                say(f"{self.data_file(k)} is gone (was the --work directory removed?): "
                    f"generation {k}'s self-play runs again")
                gen["played"] = False
            st.save()
            if not gen.get("played"):
                self.play(gen)
            elif labelling and not gen.get("labelled") and not gen.get("fitted"):
                self.label(gen)
            elif not gen.get("fitted"):
                self.fit(gen)
            elif "gate" not in gen:
                self.gate(gen)
            else:
                self.accept(gen)
            st.save()

    def report(self):
        if self.state.data is None:
            raise LoopError(f"no loop in {self.state.path}")
        rows = ["| generation | network played | positions (fitted on) | self-play core-h | relabel core-h | fit core-h "
                "| gate core-h | gate | Elo against it (pentanomial 95%) | kept |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for g in self.state.data["generations"]:
            c = g.get("cost", {})
            gate = g.get("gate")
            rows.append("| %d | %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |" % (
                g["gen"], g["best"],
                f"{g['positions']:,} ({g['fit_positions']:,})" if "positions" in g else "-",
                c.get("play", 0) / 3600, c.get("label", 0) / 3600, c.get("fit", 0) / 3600, c.get("gate", 0) / 3600,
                f"{gate['games']} games, {gate['result']}" + (f" ({gate['sprt']})" if "sprt" in gate else "")
                if gate else "-",
                interval(gate) if gate else "-",
                ("yes" if gate["passed"] else "no") if gate and g.get("done") else "-"))
        print("\n".join(rows))
        print(f"best network: {self.state.data['best']} ({self.state.data['nets'][self.state.data['best']] or 'embedded'})")


def stop_on_signal(signum, frame):
    raise KeyboardInterrupt


def main():
    # SIGTERM (a scheduler's preemption, `kill`) stops the loop as Ctrl-C
    # does: the running step is told to stop cleanly and counted. SIGINT
    # too when the shell that started the loop in the background made it
    # ignored (`kill -INT` of a `nohup ... &` loop would do nothing).
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--work", required=True, help="data directory: self-play files, fits, gate PDNs")
    p.add_argument("--keep", help="state and accepted networks (default bench/out/train-loop)")
    p.add_argument("--dammer", default=os.path.join(ROOT, "target", "release", "dammer"), help="the binary")
    p.add_argument("--generations", type=int, default=1, help="run until this many generations are done")
    p.add_argument("--games", type=int, default=20000, help="self-play games a generation")
    p.add_argument("--nodes", type=int, default=4000, help="self-play nodes a move")
    p.add_argument("--random-plies", type=int, default=6, help="up to this many random plies after the ballot")
    p.add_argument("--seed", type=int, default=1, help="generation k plays seed*1000+k")
    p.add_argument("--label-nodes", type=int, default=0,
                   help="search each generation's positions again at this many nodes a position with the network "
                        "that played them (dammer relabel) and fit on those scores; 0: the self-play's own")
    p.add_argument("--mix", type=int, default=2, help="a fit's data: this generation's and the ones before, this many in all")
    p.add_argument("--epochs", type=int, default=4, help="epochs of a fit")
    p.add_argument("--lr", type=float, default=0.0005, help="a fit's Adam step size (a warm start: small)")
    p.add_argument("--egdb", help="endgame tables that label the positions they hold")
    p.add_argument("--w2-bits", type=int, choices=[8, 16], default=8,
                   help="the candidates' second layer: 8 (dammer tune --w2-8bit, as the embedded network: the faster "
                        "kernel) or 16")
    p.add_argument("--gate-games", type=int, default=600, help="games of a gate match")
    p.add_argument("--gate-sprt", default="0,30",
                   help="ELO0,ELO1: a gate stops early when an SPRT (alpha = beta = 0.05) finds the candidate "
                        "no better than ELO0; a pass still needs every gate game; 'off': always every game")
    p.add_argument("--gate-movetime", type=float, default=0.1, help="seconds a move in a gate match")
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="threads for self-play and fits")
    p.add_argument("--concurrency", type=int, default=os.cpu_count() or 1, help="gate games at once")
    p.add_argument("--embed", help="also write each network that passes here (e.g. src/engine/eval/nn.bin)")
    p.add_argument("--report", action="store_true", help="print the table of generations and stop")
    args = p.parse_args()
    for name in ["generations", "games", "nodes", "mix", "epochs", "gate_games", "threads", "concurrency"]:
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.label_nodes < 0:
        p.error("--label-nodes must be 0 (off) or more")
    if args.random_plies < 0 or not args.lr > 0 or not args.gate_movetime > 0:
        p.error("--random-plies must be 0 or more, --lr and --gate-movetime more than 0")
    try:
        # Parsed once, before any step runs; kept in the state written one
        # way (0,30 = 0.0, 30).
        args.sprt = sprt_bounds(args.gate_sprt.strip())
    except LoopError as e:
        p.error(str(e))
    args.gate_sprt = f"{args.sprt[0]:g},{args.sprt[1]:g}" if args.sprt else "off"
    try:
        loop = Loop(args)
        if args.report:
            loop.report()
            return 0
        if not (os.path.isfile(loop.dammer) and os.access(loop.dammer, os.X_OK)):
            raise LoopError(f"no dammer binary at {loop.dammer} (cargo build --release, or --dammer)")
        loop.go()
        loop.report()
    except LoopError as e:
        print(f"train_loop: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("train_loop: interrupted; run the same command to go on", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
