#!/usr/bin/env bash
# System tests of splashd under real systemd as PID 1 (docs/system-tests.md).
#
#   scripts/system-test.sh path/to/splashd_VERSION_ARCH.deb   # its sibling packages beside it
#   scripts/system-test.sh --bin-dir DIR      # no package yet: DIR/splashd (splashctl: a link to it) + this repo's files
#   scripts/system-test.sh … -- PYTEST-ARGS   # e.g. -- -k 'test_08 or test_09' (some checks)
#
# Runs the checks of Tests/system with pytest (conftest.py: the container as fixtures;
# test_*.py: one test per check, one file per group, run in the order of their numbers). It
# boots a systemd-nspawn container from the host's own
# root file system under a throwaway overlay (upper layer on a tmpfs, in a private mount
# namespace: nothing on the host changes), with the toolchain and the work trees hidden, installs
# splashd in it, reboots it so the units start the way they do on a device, and checks the units,
# the journal, the watchdog, reload, restarts, the sandbox and permissions; then upgrades, removes
# and purges the package (checks 15-17, a package only), and upgrades the single 0.1.0-1 package
# to the split ones (check 18: splashd-web, splashd-otel and splashd-themes are found beside
# splashd's package). One line per check (PASS/FAIL); exit 1 if any failed, 2 if the container
# could not be set up. Needs root, systemd-nspawn (systemd-container), nsenter, openssl, jq, and
# pytest. Bounded: every wait has a timeout, the whole run is ended after SYSTEST_DEADLINE seconds
# (default 900). SYSTEST_HOLD=SECONDS keeps the container up at the end.
set -uo pipefail

usage() {
    echo "usage: $0 PACKAGE.deb | --bin-dir DIR   [--log FILE] [-- PYTEST-ARGS]" >&2
    exit 64
}

export SYSTEST_STARTED_NS=${SYSTEST_STARTED_NS:-$(date +%s%N)}
REPO=$(cd "$(dirname "$0")/.." && pwd)
DEB="" BIN_DIR="" LOG_FILE=""
PYTEST_ARGS=()
while [ $# -gt 0 ]; do
    case $1 in
        --bin-dir) [ $# -ge 2 ] || usage; BIN_DIR=$(realpath "$2"); shift 2 ;;
        --log) [ $# -ge 2 ] || usage; LOG_FILE=$(realpath -m "$2"); shift 2 ;;
        --) shift; PYTEST_ARGS=("$@"); break ;;
        -h | --help) usage ;;
        -*) usage ;;
        *) DEB=$(realpath "$1"); shift ;;
    esac
done

[ "$(id -u)" -eq 0 ] || { echo "system-test: needs root (systemd-nspawn, mounts)" >&2; exit 2; }
for tool in systemd-nspawn nsenter unshare setpriv openssl jq; do
    command -v "$tool" >/dev/null || { echo "system-test: $tool is missing (scripts/setup.sh packages installs it)" >&2; exit 2; }
done
if [ -n "$DEB" ]; then
    [ -f "$DEB" ] || { echo "system-test: no such package: $DEB" >&2; exit 2; }
    TARGET=(--deb "$DEB")
elif [ -n "$BIN_DIR" ]; then
    [ -x "$BIN_DIR/splashd" ] || { echo "system-test: $BIN_DIR lacks splashd" >&2; exit 2; }
    TARGET=(--bin-dir "$BIN_DIR")
else
    usage
fi
[ -z "$LOG_FILE" ] || TARGET+=(--systest-log "$LOG_FILE")

# The Python with pytest (scripts/setup.sh packages installs it for `python3`).
PYTHON=""
for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import pytest' 2>/dev/null; then
        PYTHON=$candidate
        break
    fi
done
[ -n "$PYTHON" ] || { echo "system-test: no python3 with pytest (scripts/setup.sh packages installs it)" >&2; exit 2; }

# pytest's own output kept short: no progress letters (each check prints its line), no
# tracebacks (a check's reasons are in its line; the full story is in --log FILE). The harness
# maps pytest's exit status to this script's: 0 passed, 1 a check failed, 2 anything else.
cd "$REPO"
exec "$PYTHON" -m pytest -q -p no:cacheprovider -o console_output_style=classic --tb=no \
    Tests/system "${TARGET[@]}" "${PYTEST_ARGS[@]}"
