#!/usr/bin/env bash
# Builds Dammer at a git revision (with a patch applied, if one is given) in
# a throw-away worktree and prints the binary's path: DIR/dammer-SHA, or
# DIR/dammer-SHA-PATCHHASH. A binary already there is reused. Serves
# bench/ladder.sh and bench/sprt.sh.
#
# Usage: bench/build-rev.sh DIR REV [PATCH]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
sha=$(git rev-parse --short "$2")
patch=${3:-}
bin=$dir/dammer-$sha
if [ -n "$patch" ]; then
    bin=$bin-$(sha1sum "$patch" | cut -c1-8)
fi
if [ ! -x "$bin" ]; then
    mkdir -p "$dir"
    tree=$dir/src-$$
    rm -rf "$tree"
    git worktree add --detach "$tree" "$sha" >/dev/null 2>&1
    if [ -n "$patch" ]; then
        git -C "$tree" apply "$(realpath "$patch")"
    fi
    (cd "$tree" && cargo build --release --quiet)
    cp "$tree/target/release/dammer" "$bin"
    git worktree remove --force "$tree"
fi
echo "$bin"
