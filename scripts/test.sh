#!/usr/bin/env bash
# Runs every test: core units, adapters, real plugin processes, and end to end with the real
# binaries over real sockets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export SWIFT_BACKTRACE=enable=no
swift build --build-tests
swift test --skip-build
