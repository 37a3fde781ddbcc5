#!/usr/bin/env bash
# Compares perft speed with dame-rs side by side (see perft_vs_dame.py).
# Usage: bench/perft-vs-dame.sh [DEPTH] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
DAME=$(bench/setup-dame.sh)
python3 bench/perft_vs_dame.py target/release/dammer "$DAME" --depth "${1:-10}" --rounds "${2:-5}"
