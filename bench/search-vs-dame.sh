#!/usr/bin/env bash
# Builds Dammer, installs dame-rs 0.2.0 in a venv, and compares the depth and
# speed of a 5-second search from the start position (see search_vs_dame.py).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
VENV=target/bench-venv
[ -x "$VENV/bin/dame" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet dame-rs==0.2.0; }
python3 bench/search_vs_dame.py target/release/dammer "$VENV/bin/dame" --time "${1:-5}" --rounds "${2:-3}"
