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
# Each libFuzzer target briefly, with a fixed seed so the run is repeatable (`make fuzz` runs longer:
# an hour a target). The stage is mostly its build (8.5 of its 8.75 minutes); 10,000 runs a
# target, not 50,000, save about a minute (from the slowest targets' rates: 2,000 to 2,500 a second).
scripts/fuzz.sh --runs 10000 --seed 1
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
  # The arm64 packages, built here from Debian's archive alone by Swift 6.2.3 (so the code is
  # built by both compilers it supports), checked by lintian and the same budgets; their programs
  # under qemu-user on Debian 12's arm64 libraries, a whole launch among them (docs/packaging.md,
  # "arm64"). The toolchain, the target and the SDK are made once and kept in ARM64_CACHE; so is
  # this stage's build directory, as a build cache: a clean clone still rebuilds every module of
  # its own, the dependencies' stay built (cold: 17.5 minutes more).
  stage "the arm64 packages"
  export ARM64_CACHE=${ARM64_CACHE:-/var/cache/splashd-arm64}
  make --no-print-directory deb-arm64 ARM64_SCRATCH="$ARM64_CACHE/build"
  lintian --fail-on error,warning dist/arm64/*.deb
  scripts/package-budgets.sh dist/arm64/*.deb
  ARM64_DIST=dist/arm64 ARM64_TARGET="$ARM64_CACHE/target" python3 -m pytest -q -p no:cacheprovider Tests/arm64
  # And the native renderer on an arm64 machine: qemu-system-aarch64 (TCG) with Debian 12's arm64
  # kernel, a virtio GPU of two outputs: the app takes the display with no gap, the splash comes
  # back for every launch (`make test-arm64` runs every arm64 VM test).
  scripts/arm64/vmroot.sh >/dev/null
  ARM64_BIN_DIR="$ARM64_CACHE/build/aarch64-unknown-linux-gnu/release" python3 -m pytest -q -p no:cacheprovider \
    Tests/vm/test_kms_arm64.py -k test_the_app_takes_the_display_with_no_gap
else
  echo "test: skipped the system tests and the arm64 packages: they need root (systemd-nspawn, chroot)" >&2
fi
stage "done"
