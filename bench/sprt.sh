#!/usr/bin/env bash
# One search choice decided by SPRT (docs/strength.md, "Search choices by
# SPRT"): a candidate against a base, self-play from the 2-move ballots (or
# the openings of -o, e.g. bench/openings-edge.fen),
# book off on both sides, one thread each. Resumable: run the same line
# again and the games of bench/out/sprt-NAME.pdn count (dammer match
# --resume), so a test of many hours can run in pieces.
#
# Usage: bench/sprt.sh [-t TC] [-e ELO0,ELO1] [-c CONCURRENCY] [-g GAMES] [-o OPENINGS] NAME CANDIDATE [BASE]
#   NAME       names the candidate in the report and the files
#   CANDIDATE  a git revision, or a patch file applied to BASE
#   BASE       a git revision (default HEAD)
#   -t  clock (default 10+0.1), or movetime=S (S seconds a move)   -e  SPRT bounds (default 0,15)
#   -c  games at once (default 1)   -g  most games before the test stops undecided (default 4000)
#   -o  openings file (default: the 2-move ballots)
# Binaries are built in target/sprt/; the log and PDN go to bench/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
TC=10+0.1
BOUNDS=0,15
CONC=1
GAMES=4000
OPENINGS=()
while getopts "t:e:c:g:o:" opt; do
    case $opt in
        t) TC=$OPTARG ;;
        e) BOUNDS=$OPTARG ;;
        c) CONC=$OPTARG ;;
        g) GAMES=$OPTARG ;;
        o) OPENINGS=(--openings "$OPTARG") ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    sed -n '9,16p' "$0" >&2
    exit 2
fi
NAME=$1
CANDIDATE=$2
BASE=$(git rev-parse --short "${3:-HEAD}")
mkdir -p bench/out target/sprt

# The runner is this checkout's build (--resume and the SPRT of today).
RUNNER=$(install_runner target/sprt)
BASE_BIN=$(bench/build-rev.sh target/sprt "$BASE")
if [ -f "$CANDIDATE" ]; then
    CAND_BIN=$(bench/build-rev.sh target/sprt "$BASE" "$CANDIDATE")
else
    CAND_BIN=$(bench/build-rev.sh target/sprt "$CANDIDATE")
fi
limit_args "$TC"
echo "$NAME: bench $("$CAND_BIN" bench 2>/dev/null | tail -1); base $BASE: bench $("$BASE_BIN" bench 2>/dev/null | tail -1)"
"$RUNNER" match --engine "name=$NAME" "cmd=$CAND_BIN hub" option.book=false \
    --engine name=base "cmd=$BASE_BIN hub" option.book=false \
    "${LIMIT[@]}" --games "$GAMES" --concurrency "$CONC" "${OPENINGS[@]}" --sprt "${BOUNDS%,*}" "${BOUNDS#*,}" 0.05 0.05 \
    --draw-adjudication 80 0.05 12 --resign-adjudication 3 3 \
    --pdn "bench/out/sprt-$NAME.pdn" --resume | tee -a "bench/out/sprt-$NAME.log"
