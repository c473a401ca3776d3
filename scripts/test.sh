#!/usr/bin/env bash
# Runs every test: core units, adapters, real plugin processes, and end to end with the real
# binaries over real sockets.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export SWIFT_BACKTRACE=enable=no
swift build --build-tests
swift test --skip-build
# Each libFuzzer target briefly, with a fixed seed so the run is repeatable (`make fuzz` runs longer).
scripts/fuzz.sh --runs 50000 --seed 1
# System tests under real systemd as PID 1 (root, systemd-nspawn; a package or built binaries):
# scripts/system-test.sh dist/splashd_VERSION_ARCH.deb — see docs/system-tests.md. Not run here yet.
