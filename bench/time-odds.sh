#!/usr/bin/env bash
# Time odds for a Hub engine at a fixed move time: runs PROGRAM ARGS... with
# every `level move-time=S` it is sent rewritten to S times FACTOR, so that
# one side of a `dammer match --movetime` thinks FACTOR times as long as the
# other (e.g. 2: what a doubling of time is worth). Everything else passes
# unchanged, line by line, unbuffered; the engine's output is its own.
# The runner still enforces its own move time plus --margin, so keep
# FACTOR * S under that.
#
# Usage: bench/time-odds.sh FACTOR PROGRAM [ARGS...]
set -euo pipefail
if [ $# -lt 2 ] || ! [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    sed -n '9p' "$0" >&2
    exit 2
fi
FACTOR=$1
shift
# Python, not awk: mawk reads a pipe in blocks and would hold every line
# back until the runner closes it.
python3 -u -c '
import re, sys
factor = float(sys.argv[1])
level = re.compile(r"level move-time=([0-9.]+)\s*$")
for line in iter(sys.stdin.readline, ""):
    m = level.match(line)
    if m:
        line = "level move-time=%.3f\n" % (float(m.group(1)) * factor)
    sys.stdout.write(line)
    sys.stdout.flush()
' "$FACTOR" | "$@"
