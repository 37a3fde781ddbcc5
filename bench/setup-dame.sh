#!/usr/bin/env bash
# Shared by the comparison scripts: builds Dammer in release mode and installs
# dame-rs 0.2.0 in a venv under target/; prints the path of the `dame` binary.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
VENV=target/bench-venv
[ -x "$VENV/bin/dame" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet dame-rs==0.2.0; } >&2
echo "$VENV/bin/dame"
