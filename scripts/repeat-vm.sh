#!/usr/bin/env bash
# Runs the VM tests (Tests/vm: the native renderer on real kernel DRM drivers in QEMU) RUNS times
# (default 5) against the debug build, and says how many runs passed. Exit 0 only if every run
# passed. `make test-vm-busy` runs it with a CPU hog beside it (scripts/busy.sh).
#
#   scripts/repeat-vm.sh [RUNS] [-- pytest arguments, e.g. -k hand]
set -uo pipefail
cd "$(dirname "$0")/.."
runs="${1:-5}"
shift $(( $# > 0 ? 1 : 0 ))
[ "${1:-}" = "--" ] && shift
export SWIFT_BACKTRACE=enable=no
swift build --product splashd && swift build --product splashctl && swift build --product splashd-kms || exit 1
bin=$(swift build --show-bin-path)
passed=0
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  if SPLASHD_BIN_DIR="$bin" python3 -m pytest -q -p no:cacheprovider Tests/vm "$@"; then
    passed=$((passed + 1)); outcome=passed
  else
    outcome=FAILED
  fi
  echo "repeat-vm: run $run of $runs $outcome in $(( $(date +%s) - started )) s" >&2
done
echo "repeat-vm: $passed of $runs runs passed" >&2
[ "$passed" -eq "$runs" ]
