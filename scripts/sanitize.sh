#!/usr/bin/env bash
# Runs the whole test suite under each sanitizer named (thread, address; default both), each in
# its own build directory (.build-thread, .build-address). The binaries the end-to-end tests run
# are built with the same sanitizer. Fails on the first report: the sanitizers halt on error.
#
#   scripts/sanitize.sh [thread] [address] [-- swift test arguments, e.g. --filter Config]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp ${TSAN_OPTIONS:-}"
# Bounded waits in the tests last ten times longer: the sanitizers slow everything down.
export SPLASHD_TEST_TIME_SCALE="${SPLASHD_TEST_TIME_SCALE:-10}"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0 ${ASAN_OPTIONS:-}"
sanitizers=() rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --) shift; rest=("$@"); break ;;
    thread|address) sanitizers+=("$1"); shift ;;
    *) echo "sanitize: unknown sanitizer $1 (thread, address)" >&2; exit 64 ;;
  esac
done
[ "${#sanitizers[@]}" -gt 0 ] || sanitizers=(thread address)
for sanitizer in "${sanitizers[@]}"; do
  echo "sanitize: $sanitizer" >&2
  swift build --build-tests --sanitize "$sanitizer" --scratch-path ".build-$sanitizer"
  swift test --skip-build --sanitize "$sanitizer" --scratch-path ".build-$sanitizer" "${rest[@]}"
  echo "sanitize: $sanitizer clean" >&2
done
