#!/usr/bin/env bash
# The one step after a job array (bench/cluster/task.sh): joins the shards.
#
#   merge.sh selfplay OUT MERGED.bin
#       dammer merge of OUT/selfplay-*-of-N.bin: the same file one run of the
#       generation would have made (games in number order).
#   merge.sh match OUT MERGED.pdn [the tasks' dammer match arguments]
#       the shards' PDN files in one (games in round order), then the same
#       match with --resume over it: the whole match's report (results,
#       Elo, pentanomial pairs, forfeits). A game that a failed task left
#       out is played then, so the report always covers the whole match.
# Every shard file of the array must be there: a missing one is an error
# naming it (rerun that task first). DAMMER names the binary.
set -euo pipefail
DAMMER=${DAMMER:-dammer}
if [ $# -lt 3 ]; then
    sed -n '4,13p' "$0" >&2
    exit 2
fi
kind=$1
out=$2
merged=$3
shift 3
shopt -s nullglob
files=("$out/$kind"-*-of-*.*)
if [ ${#files[@]} -eq 0 ]; then
    echo "merge.sh: no $kind shard in $out" >&2
    exit 2
fi
n=${files[0]##*-of-}
n=${n%%.*}
ext=${files[0]##*.}
shards=()
for k in $(seq 1 "$n"); do
    f="$out/$kind-$k-of-$n.$ext"
    if [ ! -s "$f" ]; then
        echo "merge.sh: $f is missing or empty: run task $k of $n again" >&2
        exit 1
    fi
    shards+=("$f")
done
case $kind in
    selfplay) exec "$DAMMER" merge --out "$merged" "${shards[@]}" ;;
    match)
        python3 "$(dirname "$0")/pdn_rounds.py" "${shards[@]}" > "$merged"
        exec "$DAMMER" match --color never --pdn "$merged" --resume "$@"
        ;;
    *) echo "merge.sh: the kind is selfplay or match, not $kind" >&2; exit 2 ;;
esac
