#!/usr/bin/env bash
# One point of the learning curve (docs/training.md, issue 70): the first N
# positions of a self-play file fitted two ways from n6 (bench/nets/n6.nn,
# the network the curve starts from and is measured against; n6's shape, and
# with pattern inputs), each scored on its validation games and on held-out
# games against another engine, the data's coverage, and each fit against
# n6 at 0.1 s a move; the pattern network, slower, also at equal nodes
# (time odds: it thinks ODDS times as long). Every step leaves its file in
# WORK/pN and is skipped when that file is there; the matches resume. So
# the same line run again goes on where it stopped, and a point can be
# played over several sessions.
#
# Usage: bench/curve.sh [-g GAMES] [-e EPOCHS] [-x ODDS] [-s PATTERN] [-n] DATA N HELDOUT WORK
#   DATA     a self-play file (dammer selfplay)
#   N        how many positions from its start: a number, or 12M, 25M, 100M...
#   HELDOUT  positions of other games (dammer relabel), held out of every fit;
#            - for none (the table then shows no held-out loss)
#   WORK     a folder for the data cut, fits, PDNs and logs (out of git)
#   -g  games a match (default 400)   -e  epochs a fit (default 6)
#   -x  the pattern network's time odds (default 1.30, what its rows cost)
#   -s  processes (pkill -f PATTERN) stopped while a match is played, e.g.
#       the data job: -s dammer-d1 (continued after, also on Ctrl-C)
#   -n  fits, coverage and the table only: no match
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
GAMES=400
EPOCHS=6
ODDS=1.30
STOP=""
MATCHES=1
while getopts "g:e:x:s:n" opt; do
    case $opt in
        g) GAMES=$OPTARG ;;
        e) EPOCHS=$OPTARG ;;
        x) ODDS=$OPTARG ;;
        s) STOP=$OPTARG ;;
        n) MATCHES=0 ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 4 ]; then
    sed -n '13,23p' "$0" >&2
    exit 2
fi
DATA=$1
HELDOUT=$3
WORK=$4
case $2 in
    *M) N=$(( ${2%M} * 1000000 )) ;;
    *) N=$2 ;;
esac
HOLDOUT=()
[ "$HELDOUT" = - ] || HOLDOUT=(--holdout "$HELDOUT")
for f in "$DATA" "${HOLDOUT[@]:1}"; do
    [ -f "$f" ] || { echo "$f: no such file" >&2; exit 2; }
done
HAVE=$(( ($(stat -c %s "$DATA") - 8) / 32 ))
if [ "$HAVE" -lt "$N" ]; then
    echo "$DATA holds $HAVE positions, fewer than $N" >&2
    exit 2
fi
P="$WORK/p$2"
mkdir -p "$P"
# The binary is frozen per point, so that a rebuild of the checkout between
# sessions changes neither the fits nor the players.
[ -x "$P/dammer" ] || cp "$(install_runner target/curve)" "$P/dammer"
BIN="$P/dammer"

# The first N positions: an 8-byte header, then 32 bytes a position.
if [ ! -f "$P/data.bin" ]; then
    head -c $((8 + 32 * N)) "$DATA" > "$P/data.bin.tmp"
    mv "$P/data.bin.tmp" "$P/data.bin"
fi
[ -f "$P/coverage.txt" ] || "$BIN" coverage "$P/data.bin" > "$P/coverage.txt"

fit() { # fit NAME [tune options]
    local name=$1
    shift
    [ -f "$P/$name.nn" ] && [ ! -f "$P/$name.nn.ckpt" ] && return
    "$BIN" tune "$P/data.bin" --layout nn --init bench/nets/n6.nn --w2-8bit --lambda 1.0 \
        --epochs "$EPOCHS" "${HOLDOUT[@]}" --out "$P/$name.nn" --resume "$@" 2>&1 | tee -a "$P/$name.fit.log"
    rm -f "$P/$name.nn.ckpt"
}
fit refit
fit pattern --patterns

match() { # match NAME WEIGHTS [ODDS]
    local cmd="$BIN hub"
    [ -n "${3:-}" ] && cmd="$(pwd)/bench/time-odds.sh $3 $BIN hub"
    "$BIN" match --engine "name=$1" "cmd=$cmd" "option.weights=$(realpath "$2")" option.book=false \
        --engine name=n6 "cmd=$BIN hub" "option.weights=$(pwd)/bench/nets/n6.nn" option.book=false \
        --movetime 0.1 --margin 200 --games "$GAMES" --concurrency 2 --pdn "$P/$1-vs-n6.pdn" --resume > "$P/$1-vs-n6.log" 2>&1
}
if [ "$MATCHES" = 1 ]; then
    if [ -n "$STOP" ]; then
        # Not this script, whose own command line holds the pattern.
        stopped() { pgrep -f -- "$STOP" | grep -v -x -e "$$" -e "$PPID" || true; }
        trap 'kill -CONT $(stopped) 2> /dev/null || true' EXIT
        kill -STOP $(stopped) 2> /dev/null || true
    fi
    match refit "$P/refit.nn"
    match pattern "$P/pattern.nn"
    match pattern-odds "$P/pattern.nn" "$ODDS"
fi

# The row: the last epoch's losses, the coverage, each match's Elo.
last_epoch() { grep '^epoch' "$P/$1.fit.log" | tail -1; }
loss() { sed -n "s/.*$2 \([0-9.]*\).*/\1/p" <<< "$(last_epoch "$1")"; }
elo() { [ -f "$P/$1-vs-n6.log" ] && grep -E "^  (games|pairs)" "$P/$1-vs-n6.log" | tail -2 | tr -s ' ' | paste -sd ';' || echo "-"; }
echo "point $2 ($N positions of $DATA)"
echo "  coverage: $(sed 's/^[^:]*: //' "$P/coverage.txt")"
for m in refit pattern; do
    echo "  $m: validation $(loss $m 'validation loss'), held out $(loss $m 'other games')"
done
for m in refit pattern pattern-odds; do
    echo "  $m against n6: $(elo $m)"
done
