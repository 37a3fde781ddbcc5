# Shared by the match scripts of bench/ (sourced, from the repository root).

# install_runner DIR: builds this checkout and installs it as DIR/runner,
# printing that path. Copied aside and renamed over, so that a second run
# can start while the first one's runner is running (a busy binary cannot
# be overwritten).
# Each step returns on failure: a command substitution does not inherit
# `set -e`, and the caller's assignment then fails with it.
install_runner() {
    cargo build --release --quiet || return
    mkdir -p "$1" || return
    cp target/release/dammer "$1/runner.$$" || return
    mv -f "$1/runner.$$" "$1/runner" || return
    echo "$1/runner"
}

# limit_args TC: the runner's time-control arguments for TC, `movetime=S`
# (S seconds a move) or a clock such as `10+0.1`, in the array LIMIT.
limit_args() {
    case $1 in
        movetime=*) LIMIT=(--movetime "${1#movetime=}") ;;
        *) LIMIT=(--tc "$1") ;;
    esac
}
