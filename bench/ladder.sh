#!/usr/bin/env bash
# A strength-ladder run: the current Dammer against dame-rs and against
# earlier Dammer revisions, with `dammer match` (gauntlet, 2-move openings,
# both colours). Results go to bench/out/ladder-<time>.{log,pdn}.
#
# Usage: bench/ladder.sh [-g GAMES] [-t TIMECONTROL] [-c CONCURRENCY] [REV ...]
#   -g  games per opponent (default 200)
#   -t  "movetime=0.1" (default) or a clock such as "10+0.1"
#   -c  games at once (default: the number of cores)
#   REV git revisions of earlier Dammer versions to include (built in target/ladder/)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
GAMES=200
TC="movetime=0.1"
CONC=$(nproc)
while getopts "g:t:c:" opt; do
    case $opt in
        g) GAMES=$OPTARG ;;
        t) TC=$OPTARG ;;
        c) CONC=$OPTARG ;;
        *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
DAME=$(bench/setup-dame.sh)
mkdir -p bench/out target/ladder
CUR=target/ladder/dammer-current
cp target/release/dammer "$CUR"
ENGINES=(--engine name=Dammer "cmd=$CUR hub" --engine name=dame-rs-0.2.0 "cmd=$DAME hub")
for rev in "$@"; do
    sha=$(git rev-parse --short "$rev")
    bin=$(bench/build-rev.sh target/ladder "$sha")
    ENGINES+=(--engine "name=Dammer-$sha" "cmd=$bin hub")
done
limit_args "$TC"
STAMP=$(date +%Y%m%d-%H%M%S)
echo "commit $(git rev-parse --short HEAD), $GAMES games per opponent, $TC, concurrency $CONC" | tee "bench/out/ladder-$STAMP.log"
"$CUR" match "${ENGINES[@]}" --gauntlet "${LIMIT[@]}" --games "$GAMES" --concurrency "$CONC" \
    --pdn "bench/out/ladder-$STAMP.pdn" | tee -a "bench/out/ladder-$STAMP.log"
