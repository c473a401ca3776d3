#!/usr/bin/env bash
# Runs every test: core units, adapters, real plugin processes, end to end with the real binaries
# over real sockets, each fuzz target briefly, and the Debian package under real systemd.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's minutes on stderr, so CI's budget (60 minutes on 2 cores) can be read off a log.
stage() { echo "test: $(date -u +%H:%M:%S), $((SECONDS / 60)) min in: $*" >&2; }
scripts/setup.sh all
export SWIFT_BACKTRACE=enable=no
stage "the debug build and its tests"
swift build --build-tests
make --no-print-directory first-frame
stage "the unit and end-to-end tests"
swift test --skip-build
# (The ThreadSanitizer and AddressSanitizer runs, and their builds, are `make sanitize`:
# docs/hardening.md, "Sanitizers". The build alone took 8 of CI's 60 minutes.)
# The reference renderer in a real browser: Debian's Chromium, headless, over the DevTools protocol,
# against the real splashd and splashd-web (docs/renderer.md).
# And fleet telemetry against a real OTLP receiver (docs/operations.md, "Fleet telemetry").
# And the native renderer on real kernel DRM drivers: Debian's kernel in QEMU with a virtio GPU of
# two outputs, screens captured with QMP (docs/renderer-kms.md).
stage "the browser, telemetry and VM tests"
SPLASHD_BIN_DIR=$(swift build --show-bin-path) python3 -m pytest -q -p no:cacheprovider --durations=12 Tests/browser Tests/telemetry Tests/vm
stage "the fuzz targets"
# Each libFuzzer target briefly, with a fixed seed so the run is repeatable (`make fuzz` runs longer).
scripts/fuzz.sh --runs 50000 --seed 1
# The Debian package (the shipping build: a release build with the Swift runtime linked in),
# checked by lintian, then installed and driven under real systemd as PID 1 in a container
# (docs/system-tests.md). Needs root for systemd-nspawn; skipped with a message otherwise.
stage "the Debian packages"
make deb
lintian --fail-on error,warning dist/*.deb
# Each package against its budget (design §11's for splashd: at most 8 MB to download and 25 MB
# installed; the others' in docs/benchmarks.md, "Package sizes"): a package that grows by an
# import turns this red.
scripts/package-budgets.sh dist/*.deb
if [ "$(id -u)" -eq 0 ]; then
  # The packages on a real DRM display under systemd as PID 1: the VM boots an image with them
  # installed, and the app's unit crashes, loops and hangs behind splashd-kms (docs/renderer-kms.md).
  stage "the packages under systemd"
  SPLASHD_DIST=dist python3 -m pytest -q -p no:cacheprovider Tests/vm/test_kms_systemd.py
  scripts/system-test.sh dist/splashd_*.deb
else
  echo "test: skipped the system tests: they need root (systemd-nspawn)" >&2
fi
stage "done"
