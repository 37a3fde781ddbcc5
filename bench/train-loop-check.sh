#!/usr/bin/env bash
# Checks bench/train_loop.py end to end with tiny settings (CI): a loop
# interrupted in its first generation (SIGINT, or SIGTERM) goes on with the
# same command, one killed outright counts the step it was in and goes on,
# one whose data directory was removed plays the missing self-play again and
# finishes, a gate's SPRT stops a failing gate early but not a passing one,
# and a loop with deeper labels relabels what it needs again after its data
# directory was removed.
#
# Usage: bench/train-loop-check.sh DIR [DAMMER]   (DIR is emptied first)
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$1
BIN=$(realpath "${2:-target/release/dammer}")
rm -rf "$DIR"
mkdir -p "$DIR"
LOOP=(bench/train_loop.py --work "$DIR/work" --keep "$DIR/keep" --dammer "$BIN" --games 16 --nodes 300
      --epochs 2 --gate-games 6 --gate-movetime 0.05 --threads 1 --concurrency 1 --gate-sprt off)
fail() { echo "train-loop-check: $*" >&2; exit 1; }

# 1. Interrupted (SIGINT) a few seconds in, during its gate match.
set +e
timeout --preserve-status -s INT 4 "${LOOP[@]}" --generations 1 > "$DIR/1.txt" 2>&1
rc=$?
set -e
[ $rc = 130 ] || { cat "$DIR/1.txt"; fail "an interrupted loop exits 130, not $rc"; }
grep -q "run the same command to go on" "$DIR/1.txt" || fail "no word on how to go on"
# 2. The same command goes on and finishes generation 1.
"${LOOP[@]}" --generations 1 > "$DIR/2.txt" 2>&1 || { cat "$DIR/2.txt"; fail "the resumed loop failed"; }
grep -q "1 generations done" "$DIR/2.txt" || fail "generation 1 not done after the resume"
grep "^\[loop\] \\$" "$DIR/2.txt" | grep -q selfplay && fail "the resumed loop played generation 1's self-play again"
# 3. Killed outright during generation 2, with its children (as a session's
#    end kills them): the step it was in is counted.
setsid "${LOOP[@]}" --generations 2 > "$DIR/3.txt" 2>&1 &
pid=$!
sleep 3
kill -KILL -- -"$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
# 4. The data directory removed: the self-play generation 2's fit needs
#    (generation 1's, --mix 2) is played again, and the loop finishes.
rm -rf "$DIR/work"
"${LOOP[@]}" --generations 2 > "$DIR/4.txt" 2>&1 || { cat "$DIR/4.txt"; fail "the loop failed after its data went"; }
grep -q "the last run stopped during generation 2" "$DIR/4.txt" || fail "the killed step was not counted"
grep -q "is gone (was the --work directory removed?)" "$DIR/4.txt" || fail "the removed data was not named"
grep -q "2 generations done" "$DIR/4.txt" || fail "generation 2 not done"
# 5. A loop of other settings in the same --keep is refused, by name.
if "${LOOP[@]}" --games 17 > "$DIR/5.txt" 2>&1; then fail "other settings were accepted"; fi
grep -q -- "--games 16 (given 17)" "$DIR/5.txt" || { cat "$DIR/5.txt"; fail "the refusal does not name the setting"; }
# 6. A gate's SPRT: a candidate far below ELO0 fails early, and one whose
#    SPRT passes early plays on to every gate game before it may pass.
SPRT=(bench/train_loop.py --dammer "$BIN" --games 16 --nodes 300 --epochs 2 --gate-games 12 --gate-movetime 0.05
      --threads 1 --concurrency 1)
"${SPRT[@]}" --work "$DIR/h0/work" --keep "$DIR/h0/keep" --gate-sprt 200,400 > "$DIR/6.txt" 2>&1 \
    || { cat "$DIR/6.txt"; fail "the loop with an SPRT gate failed"; }
grep -q "(SPRT \[200, 400\] H0 accepted)" "$DIR/6.txt" || { cat "$DIR/6.txt"; fail "the SPRT did not stop the gate"; }
grep -q "| 12 games," "$DIR/6.txt" && fail "the gate played every game though its SPRT had failed"
# SIGTERM (a scheduler's preemption) stops it as Ctrl-C does.
set +e
timeout --preserve-status -s TERM 4 "${SPRT[@]}" --work "$DIR/h1/work" --keep "$DIR/h1/keep" --gate-sprt=-400,-200 \
    > "$DIR/7a.txt" 2>&1
rc=$?
set -e
[ $rc = 130 ] || { cat "$DIR/7a.txt"; fail "a loop sent SIGTERM exits 130, not $rc"; }
grep -q "run the same command to go on" "$DIR/7a.txt" || fail "no word on how to go on after SIGTERM"
"${SPRT[@]}" --work "$DIR/h1/work" --keep "$DIR/h1/keep" --gate-sprt=-400,-200 > "$DIR/7.txt" 2>&1 \
    || { cat "$DIR/7.txt"; fail "the loop with an SPRT gate failed"; }
grep -q "the SPRT passed early; the match plays on to 12 games" "$DIR/7.txt" || { cat "$DIR/7.txt"; fail "no early SPRT pass"; }
grep -q "| 12 games," "$DIR/7.txt" || { cat "$DIR/7.txt"; fail "an early SPRT pass did not play every gate game"; }
# 8. Deeper labels (--label-nodes): each generation's self-play is relabelled
#    and the fit reads the relabelled file; with the data directory removed
#    after generation 1, generation 2's fit (--mix 2) relabels generation 1
#    again, after playing its self-play again.
LABEL=(bench/train_loop.py --work "$DIR/label/work" --keep "$DIR/label/keep" --dammer "$BIN" --games 16 --nodes 300
       --label-nodes 900 --epochs 2 --gate-games 6 --gate-movetime 0.05 --threads 1 --concurrency 1 --gate-sprt off)
"${LABEL[@]}" --generations 1 > "$DIR/8a.txt" 2>&1 || { cat "$DIR/8a.txt"; fail "the loop with --label-nodes failed"; }
grep "^\[loop\] \\$" "$DIR/8a.txt" | grep -q "relabel .*gen1.bin --out .*gen1-900n.bin --nodes 900" \
    || { cat "$DIR/8a.txt"; fail "generation 1 was not relabelled"; }
grep "^\[loop\] \\$" "$DIR/8a.txt" | grep -q "tune .*gen1-900n.bin " || { cat "$DIR/8a.txt"; fail "the fit did not read the relabelled file"; }
rm -rf "$DIR/label/work"
"${LABEL[@]}" --generations 2 > "$DIR/8.txt" 2>&1 || { cat "$DIR/8.txt"; fail "the labelling loop failed after its data went"; }
grep -q "gen1-900n.bin is gone (was the --work directory removed?): generation 1's relabelling runs again" "$DIR/8.txt" \
    || { cat "$DIR/8.txt"; fail "the removed relabelled file was not named"; }
grep -q "gen1.bin is gone (was the --work directory removed?): generation 1's self-play runs again" "$DIR/8.txt" \
    || { cat "$DIR/8.txt"; fail "the removed self-play was not played again for the relabelling"; }
grep -q "2 generations done" "$DIR/8.txt" || fail "the labelling loop's generation 2 not done"
grep "^\[loop\]" "$DIR/2.txt" "$DIR/4.txt" "$DIR/6.txt" "$DIR/7.txt" "$DIR/8.txt" | grep -v "\\$ " | sed "s|$DIR|DIR|g"
bench/train_loop.py --work "$DIR/work" --keep "$DIR/keep" --report | sed "s|$DIR|DIR|g"
