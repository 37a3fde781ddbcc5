# Sourced by the scripts that need Debian packages (bench/release.sh,
# tests/web/run.sh): need_debian COMMAND PACKAGE... installs the packages
# when COMMAND is missing and the script runs as root with apt-get, else
# says what to install and exits.
need_debian() {
    local cmd=$1; shift
    command -v "$cmd" > /dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" > /dev/null
    else
        echo "$cmd is missing: install Debian's $*" >&2
        exit 1
    fi
}
