#!/usr/bin/env bash
# The strength ladder for people: each level against the next, two copies
# of this checkout's engine (`option.strength=N`), on the 2-move ballots
# with both colours, at a clock no level reaches (a level caps its own
# time), no adjudication but the runner's ply limit. Resumable: a step's
# PDN is kept and --resume plays only the missing games.
#
# Usage: bench/levels.sh [-g GAMES] [-c CONCURRENCY] [-v VARIANT] FROM TO
#   plays the steps FROM-(FROM+1) .. (TO-1)-TO, e.g. `bench/levels.sh 1 8`
#   -g  games a step (default 100)
#   -c  games at once (default 1)
#   -v  the game (default normal)
# Results: bench/out/levels[-VARIANT]-K-K+1.{pdn,log}
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
GAMES=100
CONC=1
VARIANT=normal
while getopts "g:c:v:" opt; do
    case $opt in
        g) GAMES=$OPTARG ;;
        c) CONC=$OPTARG ;;
        v) VARIANT=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "usage: $0 [-g GAMES] [-c CONCURRENCY] [-v VARIANT] FROM TO" >&2; exit 2; }
BIN=$(install_runner target/levels)
TAG=levels
[ "$VARIANT" = normal ] || TAG="levels-$VARIANT"
mkdir -p bench/out
for ((k = $1; k < $2; k++)); do
    out="bench/out/$TAG-$k-$((k + 1))"
    echo "commit $(git rev-parse --short HEAD), level $k against $((k + 1)), $GAMES games, $VARIANT" | tee -a "$out.log"
    "$BIN" match --engine "name=L$k" "cmd=$BIN hub" "option.strength=$k" \
        --engine "name=L$((k + 1))" "cmd=$BIN hub" "option.strength=$((k + 1))" \
        --tc 60+1 --games "$GAMES" --concurrency "$CONC" --variant "$VARIANT" --color never \
        --pdn "$out.pdn" --resume | tee -a "$out.log"
done
