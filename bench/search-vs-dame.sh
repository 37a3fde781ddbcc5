#!/usr/bin/env bash
# Compares the depth and speed of a timed search from the start position with
# dame-rs side by side (see search_vs_dame.py).
# Usage: bench/search-vs-dame.sh [SECONDS] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
DAME=$(bench/setup-dame.sh)
python3 bench/search_vs_dame.py target/release/dammer "$DAME" --time "${1:-5}" --rounds "${2:-3}"
