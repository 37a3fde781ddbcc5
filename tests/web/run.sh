#!/usr/bin/env bash
# The browser build's checks (from .ci/run; installs what it needs):
#   - the network's SIMD128 kernel against the scalar one, bit for bit
#     (the library's tests on wasm32-wasip1 under node's WASI);
#   - web/build.sh into target/web;
#   - the module under node as a Hub engine: the release check's Hub session;
#   - headless Chromium: lidraughts' client on the four worker scripts
#     (every info line read by the site's expression, stops at depth 16+
#     answered within 100 ms), the analysis page, and the relaxed SIMD
#     module's searches against the native build's (the same nodes).
# Usage: tests/web/run.sh [STOPS]   (STOPS: lidraughts stops in all, 12)
set -euo pipefail
cd "$(dirname "$0")/../.."
stops=${1:-12}

source bench/debian.sh
need_debian chromium chromium
need_debian node nodejs
installed=$(rustup target list --installed)
for t in wasm32-unknown-unknown wasm32-wasip1; do
    grep -qx "$t" <<< "$installed" || rustup target add "$t" > /dev/null
done
(cd tests/web && npm ci --no-audit --no-fund --silent)

echo "-- SIMD128 kernel = scalar kernel (wasm32-wasip1 under node)"
# The relaxed SIMD kernel is checked in Chromium below (speed: the same
# nodes as native): node 20 runs relaxed SIMD only behind a flag, as a
# draft whose dot product sums otherwise.
# Node 20's WASI aborts the process now and then (one run in four) after
# the pattern network's file round trip, whose buffers grow the memory by a
# few hundred MB; that test is the same code on every platform and runs
# natively, so it is left out here.
CARGO_TARGET_WASM32_WASIP1_RUNNER="node tests/web/wasi-run.js" RUSTFLAGS="-C target-feature=+simd128" \
    cargo test --quiet --release --target wasm32-wasip1 --target-dir target/wasi --lib -- eval::nn:: \
    --skip a_network_with_pattern_inputs 2>&1 | grep -E "^test result"

echo "-- web/build.sh (binaryen's wasm-opt from npm: Debian's predates relaxed SIMD)"
WASM_OPT=tests/web/node_modules/.bin/wasm-opt web/build.sh target/web

echo "-- the module under node as a Hub engine"
python3 tests/release/hub_session.py node tests/web/hub.js target/web/dammer.wasm

echo "-- the module under node with the endgame tables: a 4-piece win scored from them"
# W:WK46,30:B6,7, which a depth-12 search without tables scores as about 4.
python3 - <<'PY'
import re, subprocess, sys
engine = subprocess.Popen(
    ["node", "tests/web/hub.js", "target/web/dammer.wasm", "--tables", "target/web/dammer-tables.bin.gz"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
engine.stdin.write("hub\ninit\npos pos=WeeeeebbeeeeeeeeeeeeeeeeeeeeeeweeeeeeeeeeeeeeeWeeee\n"
                   "level depth=12\ngo analyze\n")
engine.stdin.flush()
last = ""
for line in engine.stdout:
    if line.startswith("info"):
        last = line.strip()
    if line.startswith("done"):
        break
engine.stdin.write("quit\n")
engine.stdin.close()
engine.wait(timeout=30)
print(last)
score = re.search(r"score=(\S+)", last)
if not score or float(score.group(1)) < 80:
    sys.exit("FAIL: not scored from the endgame tables")
PY

echo "-- Chromium: lidraughts' client, four variants"
node tests/web/browser.js lidraughts --stops "$stops"

echo "-- Chromium: the analysis page"
node tests/web/browser.js page

echo "-- Chromium's module (relaxed SIMD) and node's (SIMD128) search the native build's tree"
node tests/web/browser.js speed --rounds 1 --module dammer-relaxed.wasm
