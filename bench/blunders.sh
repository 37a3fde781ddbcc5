#!/usr/bin/env bash
# Does a search choice hide shots? Blunder positions from match PDNs
# (bench/blunders.py), checked by a deep search, then searched by each
# engine at a few node budgets: how many of them each avoids.
#
# Usage: bench/blunders.sh [-n CHECK_NODES] [-b "BUDGETS"] OUT_DIR NAME=BINARY... -- FILE.pdn...
#   -n  nodes of the deep check, the first engine's (default 50000000)
#   -b  node budgets of the test (default "1000000 4000000 16000000")
# A position is kept when the first engine's deep search prefers another
# move and scores the blunder at least 0.40 men worse (its reply searched as
# deep). OUT_DIR gets blunders.tsv, positions.tsv, checked.tsv, kept.tsv,
# moves.tsv and the summary (summary.txt): per engine and budget, the
# blunders avoided and the deep check's move found. The first engine also made the deep check,
# so "found" favours it; "avoided" does not.
set -euo pipefail
cd "$(dirname "$0")/.."
CHECK=50000000
BUDGETS="1000000 4000000 16000000"
while getopts "n:b:" opt; do
    case $opt in
        n) CHECK=$OPTARG ;;
        b) BUDGETS=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 4 ] || { sed -n '6,15p' "$0" >&2; exit 2; }
OUT=$1; shift
ENGINES=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do ENGINES+=("$1"); shift; done
[ "${1:-}" = -- ] && shift
mkdir -p "$OUT"
REF=${ENGINES[0]#*=}
fen_of() { "$REF" show --fen "$1" --moves "$2" --color never | grep -E '^[WB]:[WB]' | head -1; }
best_of() { "$1" analyse "$2" --nodes "$3" --no-book --color never 2>/dev/null | grep '^best move'; }
# The move (PDN notation) and the score of a `best move` line.
move_of() { sed -E 's/best move ([^ ,]+).*/\1/' <<< "$1"; }
score_of() { sed -E 's/.*score ([-0-9.]+).*/\1/' <<< "$1"; }

bench/blunders.py "$@" > "$OUT/blunders.tsv"
: > "$OUT/positions.tsv"
while IFS=$'\t' read -r start moves bm; do
    fen=$(fen_of "$start" "$moves")
    printf '%s\t%s\t%s\n' "$fen" "$bm" "$(fen_of "$fen" "$bm")" >> "$OUT/positions.tsv"
done < "$OUT/blunders.tsv"

# fen, blunder, deep best move, its score, the blunder's score
: > "$OUT/checked.tsv"
while IFS=$'\t' read -r fen bm child; do
    root=$(best_of "$REF" "$fen" "$CHECK")
    reply=$(best_of "$REF" "$child" "$CHECK")
    blunder=$(awk -v t="$(score_of "$reply")" 'BEGIN { printf "%.2f", -t }')
    printf '%s\t%s\t%s\t%s\t%s\n' "$fen" "$bm" "$(move_of "$root")" "$(score_of "$root")" "$blunder" >> "$OUT/checked.tsv"
done < "$OUT/positions.tsv"
awk -F'\t' '$2 != $3 && $4 - $5 >= 0.40' "$OUT/checked.tsv" > "$OUT/kept.tsv"
n=$(wc -l < "$OUT/kept.tsv")

: > "$OUT/moves.tsv"
{
    echo "$(wc -l < "$OUT/positions.tsv") blunders, $n kept by the deep check ($CHECK nodes)"
    for e in "${ENGINES[@]}"; do
        for nodes in $BUDGETS; do
            avoided=0 found=0
            while IFS=$'\t' read -r fen bm best _; do
                mv=$(move_of "$(best_of "${e#*=}" "$fen" "$nodes")")
                printf '%s\t%s\t%s\t%s\n' "${e%%=*}" "$nodes" "$fen" "$mv" >> "$OUT/moves.tsv"
                [ "$mv" != "$bm" ] && avoided=$((avoided + 1))
                [ "$mv" = "$best" ] && found=$((found + 1))
            done < "$OUT/kept.tsv"
            echo "${e%%=*} $nodes nodes: avoided $avoided/$n, found $found/$n"
        done
    done
} | tee "$OUT/summary.txt"
