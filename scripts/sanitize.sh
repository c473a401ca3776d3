#!/usr/bin/env bash
# Runs the whole test suite under each sanitizer named (thread, address; default both), each in
# its own build directory (.build-thread, .build-address). The binaries the end-to-end tests run
# are built with the same sanitizer. Fails on the first report: the sanitizers halt on error.
#
#   scripts/sanitize.sh [--build-only] [thread] [address] [-- swift test arguments, e.g. --filter Config]
#
# --build-only builds the configuration and runs nothing (the full run is `make sanitize`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh tests
export SWIFT_BACKTRACE=enable=no
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp ${TSAN_OPTIONS:-}"
# Bounded waits in the tests last ten times longer: the sanitizers slow everything down.
export SPLASHD_TEST_TIME_SCALE="${SPLASHD_TEST_TIME_SCALE:-10}"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0 ${ASAN_OPTIONS:-}"
sanitizers=() rest=() build_only=false
while [ $# -gt 0 ]; do
  case "$1" in
    --build-only) build_only=true; shift ;;
    --) shift; rest=("$@"); break ;;
    thread|address) sanitizers+=("$1"); shift ;;
    *) echo "sanitize: unknown sanitizer $1 (thread, address)" >&2; exit 64 ;;
  esac
done
[ "${#sanitizers[@]}" -gt 0 ] || sanitizers=(thread address)
for sanitizer in "${sanitizers[@]}"; do
  echo "sanitize: $sanitizer" >&2
  flags=()
  if [ "$sanitizer" = thread ]; then
    # Under -sanitize=thread, SILGen adds a `tsanInoutAccess` builtin to every inout access, and
    # the region-based isolation checker (the SIL pass `send-non-sendable`) takes it for a use:
    # swift-otel 1.6.0's OTelBatchLogRecordProcessor.export (a `var logger` mutated, then captured
    # by an actor-isolated closure) is refused with "sending 'logger' risks causing data races",
    # though it builds without the sanitizer (Swift 6.3.1; docs/hardening.md has a
    # reproduction). That pass only diagnoses, it changes no code: this build skips it and is
    # instrumented whole; the same sources are held to it by every other build.
    flags=(-Xswiftc -Xllvm -Xswiftc -sil-disable-pass=send-non-sendable)
  fi
  swift build --build-tests --sanitize "$sanitizer" --scratch-path ".build-$sanitizer" "${flags[@]}"
  # The first-frame helper (C, not instrumented) beside the binaries, where FirstFrameHelperTests
  # and PackagingTests look for it, as `make check` puts it in .build/debug.
  make --no-print-directory first-frame FIRST_FRAME_BUILD="--sanitize $sanitizer --scratch-path .build-$sanitizer"
  if $build_only; then
    echo "sanitize: $sanitizer builds (not run: --build-only)" >&2
    continue
  fi
  swift test --skip-build --sanitize "$sanitizer" --scratch-path ".build-$sanitizer" "${rest[@]}"
  echo "sanitize: $sanitizer clean" >&2
done
