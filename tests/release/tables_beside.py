#!/usr/bin/env python3
"""A relative `bb-path` names tables beside the executable, as a release
unpacked with its tables is started by a GUI from another working
directory: `set-param name=bb-path value=egdb` then `init` must load them
(no `error` line), and `egdb-missing` must be refused with an error.

With TABLES_ABSOLUTE set (an absolute path to the same tables, as the
engine's platform writes it: `Z:\\...\\wine test\\egdb` under wine), that
path, quoted, must load them too: backslashes and spaces in a value.

Usage: tables_beside.py COMMAND...   (the executable's folder holds egdb/)
"""

import os
import subprocess
import sys

cmd = sys.argv[1:]
absolute = os.environ.get("TABLES_ABSOLUTE")
script = "\r\n".join([
    "hub",
    "set-param name=bb-path value=egdb",
    "init",
] + ([f'set-param name=bb-path value="{absolute}"', "level depth=2", "go think"] if absolute else []) + [
    "ping",
    "set-param name=bb-path value=egdb-missing",
    "ping",
    "quit",
]) + "\r\n"
# The working directory is the file system's root: nothing named egdb there.
out = subprocess.run(cmd, input=script.encode(), capture_output=True, cwd="/", timeout=120)
lines = [l.strip() for l in out.stdout.decode("utf-8", "replace").splitlines()]
errors = [l for l in lines if l.startswith("error")]
pongs = [i for i, l in enumerate(lines) if l == "pong"]
if "ready" not in lines or len(pongs) != 2:
    sys.exit(f"tables beside the executable: unexpected answers {lines[-6:]}")
before_first_pong = [l for l in lines[: pongs[0]] if l.startswith("error")]
if before_first_pong:
    sys.exit(f"bb-path=egdb beside the executable was not found: {before_first_pong}")
if not any("egdb-missing" in l for l in errors):
    sys.exit(f"a missing bb-path gave no error: {lines[-6:]}")
print(f"tables beside the executable: ok ({' '.join(cmd)}, started in /)")
