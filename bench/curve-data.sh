#!/usr/bin/env bash
# The data queue of the learning curve (docs/training.md, issue 70), in
# order: d1 (diverse) to 135,000 games, the narrow control n1 (n6's own
# settings) to 130,000, then d1 on to 1.2 M games, all played by n6
# (bench/nets/n6.nn, the network the curve starts from and is measured
# against; the engine plays n7 since 2026-12-07). Every step resumes game
# by game, so the same line run again (each session, first thing) goes on
# where the last one stopped. Niced; bench/curve.sh -s dammer-d1 stops it
# while a match is measured.
#
# Usage: bench/curve-data.sh DIR    (the files go to DIR/div; the binary is
#   frozen in DIR/bin/dammer-d1 on the first run, so a rebuild of the
#   checkout does not change the data)
# Run it in the background:
#   setsid bench/curve-data.sh /work/data < /dev/null > /dev/null 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { sed -n '11,15p' "$0" >&2; exit 2; }
. bench/lib.sh
DIR=$1
mkdir -p "$DIR/bin" "$DIR/div"
[ -x "$DIR/bin/dammer-d1" ] || cp "$(install_runner target/curve)" "$DIR/bin/dammer-d1"
play() { # play FILE GAMES [selfplay options]
    local out=$1 games=$2
    shift 2
    nice -n 19 "$DIR/bin/dammer-d1" selfplay --out "$DIR/div/$out" --games "$games" --nodes 4000 \
        --eval nn --weights bench/nets/n6.nn --threads 2 "$@" >> "$DIR/div/log.txt" 2>&1
}
DIVERSE=(--random-plies 16 --balance 30 --sample-plies 30 --temperature 25 --weak-share 0.2 --seed 7101)
play d1.bin 135000 "${DIVERSE[@]}"
play n1.bin 130000 --seed 7201
play d1.bin 1200000 "${DIVERSE[@]}"
