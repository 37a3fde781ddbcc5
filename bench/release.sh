#!/usr/bin/env bash
# The release archives: one folder per platform, each a binary a user
# unpacks and points a GUI or tournament manager at, with LICENSE and a
# page for that platform (docs/install-*.md, as README.md):
#
#   dammer-VERSION-x86_64-windows.zip    dammer.exe (x86-64-v2, MinGW, no DLL beyond Windows' own)
#   dammer-VERSION-x86_64-linux.tar.gz   dammer (x86-64-v2, static musl: any x86-64 Linux kernel)
#   dammer-VERSION-aarch64-linux.tar.gz  dammer (ARMv8-A with NEON, static musl)
#
# Every binary is built for the x86-64-v2 baseline (or plain ARMv8-A) and
# picks the network's kernel at run time (AVX-512, AVX2, NEON or scalar);
# .cargo/config.toml sets the same baseline for every build. The network,
# the book and the variants' networks are embedded; endgame tables are
# made by `dammer egdb generate` and named by `bb-path` (a relative path
# is found from the working directory or beside the executable).
#
# With --check every archive's binary is then run: natively, under wine
# (with a stand-in bcryptprimitives.dll that only tests use, see
# tests/wine/) and under qemu-aarch64: the version, `bench --depth 13`
# whose node count must equal the native build's, a Hub session
# (tests/release/hub_session.py), and a DXP game against the native build;
# and the x86-64 Linux binary under qemu-x86_64 as a Nehalem (no AVX, no
# AVX2: the scalar kernel), `bench --depth 8` with the same node count.
# Installs what it lacks (rustup targets; Debian's mingw-w64, the aarch64
# cross linker, qemu-user and wine) when it may.
#
# Usage: bench/release.sh [--check] [OUT_DIR]   (default target/release-archives)
set -euo pipefail
cd "$(dirname "$0")/.."
CHECK=0
if [ "${1:-}" = "--check" ]; then CHECK=1; shift; fi
OUT=${1:-target/release-archives}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

source bench/debian.sh

TARGETS=(x86_64-pc-windows-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
installed=$(rustup target list --installed)
for t in "${TARGETS[@]}"; do
    grep -qx "$t" <<< "$installed" || rustup target add "$t" > /dev/null
done
need_debian x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64
need_debian aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=aarch64-linux-gnu-gcc

VERSION=$(cargo build --release --quiet && target/release/dammer --version | awk '{print $2}')
NAME=dammer-${VERSION%%+*}
echo "Dammer $VERSION"

# platform target binary page archive-kind
PLATFORMS=(
    "x86_64-windows x86_64-pc-windows-gnu dammer.exe docs/install-windows.md zip"
    "x86_64-linux x86_64-unknown-linux-musl dammer docs/install-linux.md tar"
    "aarch64-linux aarch64-unknown-linux-musl dammer docs/install-linux.md tar"
)
for p in "${PLATFORMS[@]}"; do
    read -r platform target bin page kind <<< "$p"
    cargo build --release --quiet --target "$target"
    dir="$OUT/$NAME-$platform"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "target/$target/release/$bin" "$dir/$bin"
    cp LICENSE "$dir/LICENSE"
    cp "$page" "$dir/README.md"
    rm -f "$dir.zip" "$dir.tar.gz"
    if [ "$kind" = zip ]; then
        (cd "$OUT" && python3 -m zipfile -c "$NAME-$platform.zip" "$NAME-$platform")
        archive="$dir.zip"
    else
        tar -C "$OUT" -czf "$dir.tar.gz" "$NAME-$platform"
        archive="$dir.tar.gz"
    fi
    printf '%-45s %9d bytes (binary %d)\n' "$(basename "$archive")" "$(stat -c %s "$archive")" \
        "$(stat -c %s "$dir/$bin")"
done
echo "built in $SECONDS s"
[ "$CHECK" = 1 ] || exit 0

need_debian qemu-aarch64 qemu-user
need_debian wine wine wine64
export WINEDEBUG=-all
# A test folder beside the archive's: dammer.exe with the stand-in DLL, in
# a path with a space, as under "Program Files".
WINDIR="$OUT/wine test"
rm -rf "$WINDIR"
mkdir -p "$WINDIR"
cp "$OUT/$NAME-x86_64-windows/dammer.exe" "$WINDIR/"
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINDIR/bcryptprimitives.dll" tests/wine/bcryptprimitives.c -ladvapi32
if x86_64-w64-mingw32-objdump -p "$WINDIR/dammer.exe" | grep "DLL Name" | grep -viE \
    "kernel32|ntdll|bcryptprimitives|msvcrt|api-ms-win|ucrtbase|ws2_32|userenv|advapi32|shell32|ole32|user32|secur32|crypt32|bcrypt"; then
    echo "dammer.exe needs a DLL that Windows does not have (above)" >&2
    exit 1
fi

NATIVE=target/release/dammer
native=$("$NATIVE" bench --depth 13 | tail -1)
echo "native build: $native"
PORT=$((20000 + RANDOM % 20000))
runs=(
    "x86_64-linux||$OUT/$NAME-x86_64-linux/dammer"
    "x86_64-windows|wine|$WINDIR/dammer.exe"
    "aarch64-linux|qemu-aarch64|$OUT/$NAME-aarch64-linux/dammer"
)
for r in "${runs[@]}"; do
    IFS='|' read -r platform runner exe <<< "$r"
    run=($runner "$exe")
    echo "== $platform: ${run[*]}"
    "${run[@]}" --version
    got=$("${run[@]}" bench --depth 13 | tail -1 | tr -d '\r')
    echo "bench --depth 13: $got"
    if [ "${got%% *}" != "${native%% *}" ]; then
        echo "$platform: the node count differs from the native build's" >&2
        exit 1
    fi
    python3 tests/release/hub_session.py "${run[@]}" hub
    # Tables unpacked beside the executable, found from another working
    # directory by a relative bb-path.
    bindir=$(dirname "$exe")
    "$NATIVE" egdb generate --pieces 3 --dir "$bindir/egdb" > /dev/null
    absolute="$bindir/egdb"
    [ "$runner" = wine ] && absolute=$(winepath -w "$absolute")
    TABLES_ABSOLUTE="$absolute" python3 tests/release/tables_beside.py "${run[@]}" hub
    rm -rf "$bindir/egdb"
    # A DXP game: the native build listens and follows, the archive's
    # binary connects and initiates one game, a minute for 200 moves each,
    # from a middle game (12 men a side), so that it ends in a minute.
    PORT=$((PORT + 1))
    "$NATIVE" dxp --listen "127.0.0.1:$PORT" > "$OUT/dxp-follower.log" 2>&1 &
    follower=$!
    sleep 1
    if ! timeout 300 "${run[@]}" dxp --connect "127.0.0.1:$PORT" --initiate --games 1 --minutes 1 --moves 200 \
        --fen "W:W27,28,31,32,33,34,35,36,37,38,39,40:B11,12,13,14,15,16,17,18,19,20,23,24" \
        > "$OUT/dxp-$platform.log" 2>&1; then
        kill "$follower" 2> /dev/null || true
        cat "$OUT/dxp-$platform.log" >&2
        echo "$platform: the DXP game failed" >&2
        exit 1
    fi
    kill "$follower" 2> /dev/null || true
    wait "$follower" 2> /dev/null || true
    echo "DXP game against the native build: $(tr -d '\r' < "$OUT/dxp-$platform.log" | grep -i "result\|game" | tail -1) ($SECONDS s since the start)"
done
echo "== x86_64-linux under qemu-x86_64 as a Nehalem (no AVX2)"
need_debian qemu-x86_64 qemu-user
emulated=$(qemu-x86_64 -cpu Nehalem "$OUT/$NAME-x86_64-linux/dammer" bench --depth 8 | tail -1)
native8=$("$NATIVE" bench --depth 8 | tail -1)
echo "emulated: $emulated; native: $native8"
if [ "${emulated%% *}" != "${native8%% *}" ]; then
    echo "the node counts differ: the emulated search is not the native one" >&2
    exit 1
fi
echo "release check: ok"
