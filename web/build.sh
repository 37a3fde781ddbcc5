#!/usr/bin/env bash
# Builds Dammer for the browser into one static folder (default target/web):
#   dammer.wasm           the engine (WebAssembly with SIMD128), Asyncify'd
#   dammer-nosimd.wasm    the same without SIMD128, for browsers that lack it
#   dammer-engine.js      the worker: runs the engine, one Hub line a message
#   scan_<v>.wasm.js      lidraughts' worker names, v = normal frisian losing bt
#   index.html, app.js, style.css   the analysis page
# Serve the folder with any static server, e.g.
#   python3 -m http.server -d target/web 8000   (then open http://localhost:8000)
# Needs: rustup target wasm32-unknown-unknown, binaryen's wasm-opt (Debian:
# apt install binaryen).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/web}
command -v wasm-opt > /dev/null || { echo "web/build.sh: wasm-opt not found (apt install binaryen)" >&2; exit 1; }

# Asyncify lets the engine pause (the import dammer.pause) and resume with
# its stack as it was; only functions on a path to it are instrumented. No
# indirect call leads there (the search's callbacks never pause).
asyncify=(--asyncify --pass-arg=asyncify-imports@dammer.pause --pass-arg=asyncify-ignore-indirect)

build() { # target dir, output, extra RUSTFLAGS or "" for the config's
    local dir=$1 wasm=$2
    if [ -n "${3:-}" ]; then
        RUSTFLAGS=$3 cargo rustc --quiet --release --lib --crate-type cdylib --target wasm32-unknown-unknown --target-dir "$dir"
    else
        cargo rustc --quiet --release --lib --crate-type cdylib --target wasm32-unknown-unknown --target-dir "$dir"
    fi
    wasm-opt "$dir/wasm32-unknown-unknown/release/dammer.wasm" -O3 "${asyncify[@]}" -o "$wasm"
}

mkdir -p "$out"
build target "$out/dammer.wasm"
build target/wasm-nosimd "$out/dammer-nosimd.wasm" "-C link-arg=-zstack-size=8388608"
cp web/engine.js "$out/dammer-engine.js"
for v in normal frisian losing bt; do
    cat > "$out/scan_$v.wasm.js" <<JS
// Dammer as lidraughts' local analysis engine for the variant $v: a classic
// worker, one Hub protocol line a message each way (see dammer-engine.js).
self.DAMMER_FIRST_LINES = ['set-param name=variant value=$v'];
importScripts('dammer-engine.js');
JS
done
cp web/index.html web/app.js web/style.css "$out/"
for f in dammer.wasm dammer-nosimd.wasm; do
    echo "$out/$f: $(stat -c %s "$out/$f") bytes, $(gzip -9 -c "$out/$f" | wc -c) gzipped"
done
