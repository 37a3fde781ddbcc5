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
# Usage: bench/curve-data.sh DIR [STEP...]   (the files go to DIR/div; the
#   binary is frozen in DIR/bin/dammer-d1 on the first run, so a rebuild of
#   the checkout does not change the data)
#   STEP  d1 (d1 to 135,000 games, about 12.6 M positions), n1 (the narrow
#         control to 130,000), d1-25M (d1 to 270,000), d1-all (d1 to 1.2 M);
#         default: d1 n1 d1-all. Two cores make 13-16 M positions an hour;
#         a machine that lasts one session: name the steps it needs.
# Run it in the background:
#   setsid bench/curve-data.sh /work/data < /dev/null > /dev/null 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '11,19p' "$0" >&2; exit 2; }
. bench/lib.sh
DIR=$1
shift
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(d1 n1 d1-all)
for step in "${STEPS[@]}"; do
    case $step in
        d1 | n1 | d1-25M | d1-all) ;;
        *) echo "$step: no such step (d1, n1, d1-25M, d1-all)" >&2; exit 2 ;;
    esac
done
mkdir -p "$DIR/bin" "$DIR/div"
[ -x "$DIR/bin/dammer-d1" ] || cp "$(install_runner target/curve)" "$DIR/bin/dammer-d1"
play() { # play FILE GAMES [selfplay options]
    local out=$1 games=$2
    shift 2
    nice -n 19 "$DIR/bin/dammer-d1" selfplay --out "$DIR/div/$out" --games "$games" --nodes 4000 \
        --eval nn --weights bench/nets/n6.nn --threads 2 "$@" >> "$DIR/div/log.txt" 2>&1
}
DIVERSE=(--random-plies 16 --balance 30 --sample-plies 30 --temperature 25 --weak-share 0.2 --seed 7101)
for step in "${STEPS[@]}"; do
    case $step in
        d1) play d1.bin 135000 "${DIVERSE[@]}" ;;
        n1) play n1.bin 130000 --seed 7201 ;;
        d1-25M) play d1.bin 270000 "${DIVERSE[@]}" ;;
        d1-all) play d1.bin 1200000 "${DIVERSE[@]}" ;;
    esac
done
