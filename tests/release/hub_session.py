#!/usr/bin/env python3
"""One Hub session with a release binary, as a GUI drives it: hub, init,
pos with moves, level, go think, go analyze then stop, ping, a bad line and
an illegal move (each an error that leaves the engine running), quit. Lines
are sent with CRLF endings, as Windows GUIs send them.

Usage: hub_session.py COMMAND... (e.g. `wine dammer.exe hub`)
Exit status 0 when every answer is what the protocol asks.
"""

import subprocess
import sys
import threading
import queue
import time

cmd = sys.argv[1:]
if not cmd:
    sys.exit("usage: hub_session.py COMMAND...")
proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
lines = queue.Queue()


def reader():
    for raw in proc.stdout:
        lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
    lines.put(None)


threading.Thread(target=reader, daemon=True).start()


def send(text):
    proc.stdin.write((text + "\r\n").encode())
    proc.stdin.flush()


def expect(prefix, timeout=30.0):
    """Lines until one starting with `prefix`; returns it and the ones before."""
    seen = []
    deadline = time.time() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.time()))
        except queue.Empty:
            sys.exit(f"no {prefix!r} within {timeout} s; got {seen[-5:]}")
        if line is None:
            sys.exit(f"the engine ended before {prefix!r}; got {seen[-5:]}")
        if line.startswith(prefix):
            return line, seen
        seen.append(line)


send("hub")
line, before = expect("wait")
assert any(l.startswith("id ") for l in before), before
assert any(l.startswith("param name=bb-path") for l in before), before
send("init")
expect("ready")
send('pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves="32-28 19-23 28x19 14x23"')
send("level move-time=0.2")
send("go think")
done, before = expect("done")
assert done.startswith("done move="), done
assert any(l.startswith("info depth=") for l in before), before
send("level infinite")
send("go analyze")
expect("info depth=")
t = time.time()
send("stop")
done, _ = expect("done")
stop_ms = (time.time() - t) * 1000
send("ping")
expect("pong")
# Bad input: each an error line, the engine goes on with its position.
send('pos pos=Wbbbbbbbbbbbbbbbbbbbbeeeeeeeeeewwwwwwwwwwwwwwwwwwww moves="32-28 99-98"')
err, _ = expect("error")
send('pos pos="not a position"')
expect("error")
send("set-param name=bb-path value=\"C:\\No Such\\Folder\"")
expect("error")
send("level depth=3")
send("go think")
done, _ = expect("done")
assert done.startswith("done move="), done
send("quit")
try:
    proc.wait(timeout=20)
except subprocess.TimeoutExpired:
    proc.kill()
    sys.exit("the engine did not quit")
print(f"hub session: ok ({' '.join(cmd)}; stop answered in {stop_ms:.0f} ms, {err})")
