#!/usr/bin/env bash
# A Dammer binary to copy to other machines, and its check.
#
# `cargo build --release` targets the processor that compiles it
# (.cargo/config.toml: target-cpu=native); such a binary may stop with an
# illegal instruction on an older processor. This script builds one for
# the x86-64-v2 baseline instead (SSE4.2 and POPCNT: every x86-64 processor
# since about 2009), in target/portable/release/dammer. The network's
# kernels still pick AVX2 or AVX-512 at run time where the processor has
# them, so only the rest of the code loses the newer instructions
# (docs/performance.md gives the cost on this machine).
#
# With --check it then runs the binary under qemu-user emulating a
# processor without AVX or AVX2 (Nehalem): `--version`, and `bench` to
# depth 8, whose node count must equal the native build's (the scalar
# kernels give the SIMD kernels' scores bit for bit). qemu-x86_64 comes
# from Debian's qemu-user; the script installs it when it may (root).
#
# Usage: bench/portable.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_TARGET_DIR=target/portable RUSTFLAGS="-C target-cpu=x86-64-v2" cargo build --release --quiet
BIN=target/portable/release/dammer
echo "built $BIN ($("$BIN" --version))"
[ "${1:-}" = "--check" ] || exit 0

if ! command -v qemu-x86_64 > /dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user > /dev/null
    else
        echo "qemu-x86_64 is missing: install Debian's qemu-user" >&2
        exit 1
    fi
fi
EMU=(qemu-x86_64 -cpu Nehalem)
"${EMU[@]}" "$BIN" --version
emulated=$("${EMU[@]}" "$BIN" bench --depth 8 | tail -1)
cargo build --release --quiet
native=$(target/release/dammer bench --depth 8 | tail -1)
echo "under emulation (Nehalem, no AVX2): $emulated"
echo "native build, this processor:       $native"
if [ "${emulated%% *}" != "${native%% *}" ]; then
    echo "the node counts differ: the emulated search is not the native one" >&2
    exit 1
fi
echo "portable check: ok (same nodes)"
