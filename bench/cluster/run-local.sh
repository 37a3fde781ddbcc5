#!/usr/bin/env bash
# Runs the cluster files here as a scheduler would: a job array of 4 tasks
# (SLURM_ARRAY_TASK_ID 1-4 and SLURM_ARRAY_TASK_COUNT, or with -k the
# Kubernetes JOB_COMPLETION_INDEX 0-3 and TASKS), two tasks at a time, then
# the merge, and checks the merged output against one process doing the
# whole run:
#   self-play: the merged data file must be byte for byte the one-run file;
#   match: the merged PDN must hold the same games (round, players, moves,
#     result) as the one-run PDN, and the report the same result line. The
#     engines are strength levels 5 and 6 without book (fixed depths: the
#     same moves every run), so the games are comparable.
# Usage: bench/cluster/run-local.sh [-k] [DIR]   (DIR default: a new temporary one)
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=slurm
if [ "${1:-}" = -k ]; then
    mode=k8s
    shift
fi
dir=${1:-$(mktemp -d)}
mkdir -p "$dir"
cargo build --release --quiet
export DAMMER=$PWD/target/release/dammer
SP=(--games 24 --nodes 500 --eval nn --seed 7 --threads 1)
MATCH=(--engine name=L5 "cmd=$DAMMER hub" option.strength=5 option.book=false
       --engine name=L6 "cmd=$DAMMER hub" option.strength=6 option.book=false
       --movetime 1 --games 16 --concurrency 1)
task() { # task KIND K: task K (1-based) of 4, as the scheduler starts it
    if [ $mode = slurm ]; then
        SLURM_ARRAY_TASK_ID=$2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_COUNT=4 \
            bench/cluster/task.sh "$1" "$dir/array" "${@:3}"
    else
        JOB_COMPLETION_INDEX=$(($2 - 1)) TASKS=4 bench/cluster/task.sh "$1" "$dir/array" "${@:3}"
    fi
}
array() { # array KIND ARGS...: tasks 1-4, two at a time
    for pair in "1 2" "3 4"; do
        for k in $pair; do
            task "$1" "$k" "${@:2}" > "$dir/$1-task$k.log" 2>&1 &
        done
        wait
    done
}
echo "self-play: 4 tasks ($mode), then the merge, against one run"
array selfplay "${SP[@]}"
bench/cluster/merge.sh selfplay "$dir/array" "$dir/merged.bin"
"$DAMMER" selfplay --out "$dir/one.bin" "${SP[@]}" > "$dir/one-selfplay.log" 2>&1
cmp "$dir/merged.bin" "$dir/one.bin"
echo "self-play: merged file identical to one run's ($(stat -c %s "$dir/one.bin") bytes)"
echo "match: 4 tasks ($mode), then the merge, against one run"
array match "${MATCH[@]}"
bench/cluster/merge.sh match "$dir/array" "$dir/merged.pdn" "${MATCH[@]}" > "$dir/merged-report.txt"
"$DAMMER" match --color never --pdn "$dir/one.pdn" "${MATCH[@]}" > "$dir/one-report.txt"
games() { # the games of a PDN: round, players, moves and result, comments and dates left out
    python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
out = []
for g in re.split(r"\n(?=\[Event )", text.strip()):
    tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', g))
    body = re.sub(r"\{[^}]*\}", " ", g.split("\n\n", 1)[1] if "\n\n" in g else "")
    out.append((int(tags.get("Round", 0)), tags.get("White"), tags.get("Black"), tags.get("Result"), " ".join(body.split())))
for row in sorted(out):
    print(*row, sep=" | ")
PY
}
diff <(games "$dir/merged.pdn") <(games "$dir/one.pdn")
result() { grep -m1 -E "^  games [0-9]+:" "$1"; }
diff <(result "$dir/merged-report.txt") <(result "$dir/one-report.txt")
echo "match: merged games identical to one run's ($(games "$dir/one.pdn" | wc -l) games); result $(result "$dir/one-report.txt" | sed 's/^ *//')"
echo "files in $dir"
