#!/usr/bin/env bash
# Dammer against Scan 2.0 (docs/strength.md), over
# Scan's early Hub dialect (`dammer match` engine kind `early-hub=`). Scan
# 2.0 is the public commit 57082ee of github.com/rhalbersma/scan ("Scan 2.0
# by Fabien Letouzey", GPL-3), with its own evaluation, book and 2-4 piece
# bitbases; build it yourself, outside this repository, and name its
# directory (the one that holds `scan`, `scan.ini` and `data/`) in
# SCAN2_DIR. Nothing of Scan is in this repository. Both books are off,
# both engines single-threaded (Scan's scan.ini says threads = 1; its
# bb-size there is used as it is). Games are played out (the FMJD rules
# end them) unless -a asks for adjudication. Resumable: run the same line
# again and the games of bench/out/scan2-NAME.pdn count (dammer match --resume).
#
# Usage: SCAN2_DIR=DIR bench/scan2.sh [-a] [-t TC] [-g GAMES] [-c CONCURRENCY] [-o OPENINGS] [-p PARAM=VALUE]... [-x FACTOR] NAME [REV|PATCH [BASE]]
#   NAME       names the run (the PDN, the log, Dammer's name in them)
#   REV        the Dammer revision to play (default HEAD); or a PATCH applied to BASE (default HEAD)
#   -t  clock (e.g. 60+0.5), or movetime=S (default movetime=0.1)   -g  games (default 400)
#   -c  games at once (default 2)   -o  openings file (default: the 2-move ballots)
#   -p  a Hub parameter for Dammer, e.g. -p threads=2 (then -c 1 on two cores: Scan waits while Dammer thinks)
#   -x  time odds: Dammer thinks FACTOR times Scan's move time (movetime only; bench/time-odds.sh), e.g. -x 2
#   -a  adjudicate: a draw when both see |score| <= 0.05 for 12 moves from ply 80, a loss when both see 3 men for 3 moves
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
TC=movetime=0.1
GAMES=400
CONC=2
OPENINGS=()
PARAMS=()
ODDS=()
ADJUDICATE=()
while getopts "at:g:c:o:p:x:" opt; do
    case $opt in
        a) ADJUDICATE=(--draw-adjudication 80 0.05 12 --resign-adjudication 3 3) ;;
        t) TC=$OPTARG ;;
        g) GAMES=$OPTARG ;;
        c) CONC=$OPTARG ;;
        o) OPENINGS=(--openings "$OPTARG") ;;
        p) PARAMS+=("option.$OPTARG") ;;
        x) ODDS=("$(pwd)/bench/time-odds.sh" "$OPTARG") ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
    sed -n '14,21p' "$0" >&2
    exit 2
fi
if [ ${#ODDS[@]} -gt 0 ] && [[ $TC != movetime=* ]]; then
    echo "-x (time odds) needs a move time (-t movetime=S)" >&2
    exit 2
fi
if [ -z "${SCAN2_DIR:-}" ] || [ ! -x "$SCAN2_DIR/scan" ] || [ ! -f "$SCAN2_DIR/scan.ini" ] || [ ! -f "$SCAN2_DIR/data/eval" ]; then
    echo "SCAN2_DIR must name a built Scan 2.0 (commit 57082ee of rhalbersma/scan): scan, scan.ini and data/eval" >&2
    exit 2
fi
SCAN2_DIR=$(realpath "$SCAN2_DIR")
NAME=$1
mkdir -p bench/out
RUNNER=$(install_runner target/scan2)
if [ -n "${2:-}" ] && [ -f "$2" ]; then
    BIN=$(bench/build-rev.sh target/scan2 "${3:-HEAD}" "$2")
else
    BIN=$(bench/build-rev.sh target/scan2 "${2:-HEAD}")
fi
limit_args "$TC"
# Scan finishes depth 12 before it looks at its clock: 300 ms of grace
# keeps its overshoots at short move times from counting as losses on time
# (the think-time table shows what each engine took).
"$RUNNER" match --engine "name=$NAME" "cmd=${ODDS[*]:+${ODDS[*]} }$BIN hub" option.book=false "${PARAMS[@]}" \
    --engine name=Scan2.0 "early-hub=$SCAN2_DIR/scan hub" "dir=$SCAN2_DIR" option.book=false \
    "${LIMIT[@]}" --margin 300 --games "$GAMES" --concurrency "$CONC" "${OPENINGS[@]}" \
    "${ADJUDICATE[@]}" --pdn "bench/out/scan2-$NAME.pdn" --resume | tee -a "bench/out/scan2-$NAME.log"
