#!/usr/bin/env bash
# The browser build's checks (from .ci/run; installs what it needs):
#   - the network's SIMD128 kernel against the scalar one, bit for bit
#     (the library's tests on wasm32-wasip1 under node's WASI);
#   - web/build.sh into target/web;
#   - the module under node as a Hub engine: the release check's Hub session;
#   - headless Chromium: lidraughts' client on the four worker scripts
#     (every info line read by the site's expression, stops at depth 16+
#     answered within 100 ms) and the analysis page.
# Usage: tests/web/run.sh [STOPS]   (STOPS: lidraughts stops in all, 12)
set -euo pipefail
cd "$(dirname "$0")/../.."
stops=${1:-12}

need_debian() { # command package...
    local cmd=$1; shift
    command -v "$cmd" > /dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" > /dev/null
    else
        echo "$cmd is missing: install Debian's $*" >&2
        exit 1
    fi
}
need_debian wasm-opt binaryen
need_debian chromium chromium
need_debian node nodejs
installed=$(rustup target list --installed)
for t in wasm32-unknown-unknown wasm32-wasip1; do
    grep -qx "$t" <<< "$installed" || rustup target add "$t" > /dev/null
done
(cd tests/web && npm ci --no-audit --no-fund --silent)

echo "-- SIMD128 kernel = scalar kernel (wasm32-wasip1 under node)"
# Node 20's optimising WebAssembly compiler aborts the process now and then
# on this test module (about one run in four; never the engine's): the
# baseline compiler alone runs the same instructions.
CARGO_TARGET_WASM32_WASIP1_RUNNER="node --liftoff --no-wasm-tier-up tests/web/wasi-run.js" RUSTFLAGS="-C target-feature=+simd128" \
    cargo test --quiet --release --target wasm32-wasip1 --target-dir target/wasi --lib -- eval::nn:: 2>&1 \
    | grep -E "^test result"

echo "-- web/build.sh"
web/build.sh target/web

echo "-- the module under node as a Hub engine"
python3 tests/release/hub_session.py node tests/web/hub.js target/web/dammer.wasm

echo "-- Chromium: lidraughts' client, four variants"
node tests/web/browser.js lidraughts --stops "$stops"

echo "-- Chromium: the analysis page"
node tests/web/browser.js page
