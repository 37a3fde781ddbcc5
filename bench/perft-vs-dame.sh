#!/usr/bin/env bash
# Builds Dammer, installs dame-rs 0.2.0 in a venv, and compares perft speed
# side by side (see perft_vs_dame.py). Usage: bench/perft-vs-dame.sh [DEPTH] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
VENV=target/bench-venv
[ -x "$VENV/bin/dame" ] || { python3 -m venv "$VENV" && "$VENV/bin/pip" install --quiet dame-rs==0.2.0; }
python3 bench/perft_vs_dame.py target/release/dammer "$VENV/bin/dame" --depth "${1:-10}" --rounds "${2:-5}"
