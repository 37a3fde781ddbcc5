#!/usr/bin/env bash
# One task of a cluster job array: one shard of a self-play generation or of
# a match (a gate match between two networks, or against Scan 2.0).
#
# The shard comes from the scheduler:
#   Slurm (sbatch --array=1-N):           SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT
#   Kubernetes Indexed Job (N completions): JOB_COMPLETION_INDEX (0-based), and TASKS=N set in the manifest
# Task K of N writes OUT/selfplay-K-of-N.bin or OUT/match-K-of-N.pdn. A task
# that is run again (a requeue, a preempted pod) resumes its own file.
#
# Usage: bench/cluster/task.sh selfplay OUT [dammer selfplay arguments, without --out and --shard]
#        bench/cluster/task.sh match OUT [dammer match arguments, without --pdn, --resume and --shard]
# DAMMER names the binary (default: dammer on the PATH).
set -euo pipefail
DAMMER=${DAMMER:-dammer}
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    k=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-1} + 1))
    n=${SLURM_ARRAY_TASK_COUNT:?SLURM_ARRAY_TASK_COUNT is not set}
elif [ -n "${JOB_COMPLETION_INDEX:-}" ]; then
    k=$((JOB_COMPLETION_INDEX + 1))
    n=${TASKS:?set TASKS to the number of completions of the Job}
else
    echo "task.sh: no task index: run it under Slurm (--array) or as a Kubernetes Indexed Job, or set SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT" >&2
    exit 2
fi
if [ $# -lt 2 ]; then
    sed -n '12,14p' "$0" >&2
    exit 2
fi
kind=$1
out=$2
shift 2
mkdir -p "$out"
echo "task $k of $n: $kind into $out" >&2
case $kind in
    selfplay) exec "$DAMMER" selfplay --shard "$k/$n" --out "$out/selfplay-$k-of-$n.bin" "$@" ;;
    match) exec "$DAMMER" match --color never --shard "$k/$n" --pdn "$out/match-$k-of-$n.pdn" --resume "$@" ;;
    *) echo "task.sh: the kind is selfplay or match, not $kind" >&2; exit 2 ;;
esac
