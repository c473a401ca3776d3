#!/usr/bin/env bash
# Runs every test: core units, adapters, real plugin processes, end to end with the real binaries
# over real sockets, each fuzz target briefly, and the Debian packages under real systemd, for
# amd64 and arm64.
#
# After the debug build, the work runs as jobs side by side (docs/benchmarks.md, "README's test
# command": most stages keep the two cores only a third to two thirds busy on their own):
#
#   the debug build, then side by side:
#     swift      the Swift tests
#     browser    the browser and telemetry tests
#     builds     the fuzz targets, then the arm64 packages; once those are made:
#       arm64      their tests (qemu-user, the arm64 VM)
#     packages   the amd64 packages; once they are made, beside the rest:
#       vm         the VM tests, with the packages' binaries; once they have ended:
#         kms        the packages on a display under systemd (a VM)
#       system     the system checks (systemd in a container)
#       power-on   the power-on filmstrip's rules (a VM from its firmware to the app)
#
# Each job's output is printed whole when it ends; the timeline (every stage's start and end, its
# seconds, the processor time it used, and how busy the cores were) as it happens. A job that
# fails stops the others when it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
exec 8>&2
started=$SECONDS
cpu() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
# Sets `mine` to the processor time this shell's children have used, in seconds (user and
# system, from /proc: no subshell, whose children are not this shell's; QEMU's time too, since
# every process a stage starts is waited for by its parent).
own() {
  local fields
  read -r -a fields <"/proc/$BASHPID/stat"
  mine=$(( (fields[15] + fields[16]) / $(getconf CLK_TCK) ))
}
name="" from=0 busy0=0 total0=0 own0=0
# Ends this job's stage (its seconds, the processor time it used itself, and the cores' use over
# it: the whole machine's, so jobs side by side share it) and starts the next one, if named.
stage() {
  local busy total mine
  read -r busy total <<<"$(cpu)"
  own
  if [ -n "$name" ]; then
    local used=$(( (busy - busy0) * 100 / (total - total0 > 0 ? total - total0 : 1) ))
    echo "test: $(date -u +%H:%M:%S), $(( (SECONDS - started) / 60 )) min in: $name: $((SECONDS - from)) s, $((mine - own0)) s of processor time, the cores ${used} % busy" >&8
  fi
  name=$* from=$SECONDS busy0=$busy total0=$total own0=$mine
  [ -z "$name" ] || echo "test: $(date -u +%H:%M:%S), $(( (SECONDS - started) / 60 )) min in: $name" >&8
}
scripts/setup.sh all
export SWIFT_BACKTRACE=enable=no
# The builds' directories live outside the clone, in a cache kept between runs (as a CI service
# keeps `.build` between jobs): a fresh clone's files are new, so every module of its own is
# compiled again, while the dependencies' (swift-nio, swift-protobuf, BoringSSL, …: most of what
# a cold build compiles) stay built while the compiler is the same (docs/benchmarks.md, "The test
# command"). One run at a time uses it. SPLASHD_BUILD_CACHE=none builds in the clone, from nothing.
cache=${SPLASHD_BUILD_CACHE:-}
if [ -z "$cache" ]; then
  if [ "$(id -u)" -eq 0 ]; then cache=/var/cache/splashd-build; else cache=${XDG_CACHE_HOME:-$HOME/.cache}/splashd-build; fi
fi
if [ "$cache" = none ]; then
  debug=$PWD/.build dist=$PWD/.build/dist fuzz=$PWD/Fuzz/.build
else
  compiler=$(swift --version 2>&1 | sha256sum | cut -c1-12)
  mkdir -p "$cache/$compiler"
  exec 9>"$cache/lock"
  if ! flock -n 9; then
    echo "test: waiting for another run's use of $cache" >&2
    flock -w 3600 9 || { echo "test: $cache was still in use after an hour" >&2; exit 1; }
  fi
  # Another compiler's builds are of no use to this one (only directories named as this script
  # names them go: SPLASHD_BUILD_CACHE may name a directory that holds other things too).
  find "$cache" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended -regex '.*/[0-9a-f]{12}' \
    ! -name "$compiler" -exec rm -rf {} +
  debug=$cache/$compiler/debug dist=$cache/$compiler/dist fuzz=$cache/$compiler/fuzz-debug
  echo "test: the builds in $cache/$compiler (SPLASHD_BUILD_CACHE=none: in the clone)" >&2
  # And the run itself happens in one tree at one path, $cache/$compiler/src, made the clone's
  # files exactly (uncommitted changes too; build outputs and files since deleted removed), where
  # a file whose contents did not change keeps its inode and time: the build then compiles only
  # the modules whose sources changed since the last run, as in a developer's tree (a fresh
  # clone's files are all new, and its path another: every module of ours was compiled again in
  # each of the four builds; beside the CPU hog, 21 core-minutes of the run's own work with every
  # module compiled, 15 with nothing to compile). A clone that is not a git work tree runs where
  # it is.
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    python3 scripts/sync-tree.py "$PWD" "$cache/$compiler/src" >&2
    cd "$cache/$compiler/src"
  fi
fi
root=false
[ "$(id -u)" -ne 0 ] || root=true

# The jobs. Each runs in a process group of its own (so a failure elsewhere can stop all of it),
# its output in a file until it ends.
logs=$(mktemp -d /tmp/splashd-test.XXXXXX)
declare -A pids=()
set -m
job() {
  local job=$1
  shift
  ( name="" ; "$@"; stage ) >"$logs/$job.log" 2>&1 &
  pids[$job]=$!
}
stop() {
  local job
  for job in "${!pids[@]}"; do
    kill -TERM -- "-${pids[$job]}" 2>/dev/null || true
  done
  rm -rf "$logs"
}
trap stop EXIT
# Waits for the next job to end, whichever it is, and prints its output; one that failed stops
# the others and the run.
declare -A ended=()
reap() {
  local pid="" status=0 job
  wait -n -p pid "${pids[@]}" || status=$?
  for job in "${!pids[@]}"; do [ "${pids[$job]}" != "$pid" ] || break; done
  unset "pids[$job]"
  ended[$job]=1
  echo "test: ──── the $job job's output ────"
  cat "$logs/$job.log"
  if [ "$status" -ne 0 ]; then
    echo "test: the $job job failed (exit $status) after $(( (SECONDS - started) / 60 )) min; the others stopped" >&8
    exit 1
  fi
}
# Waits until each job named has ended.
after() {
  local job
  for job; do
    while [ -z "${ended[$job]:-}" ]; do reap; done
  done
}

swift_tests() {
  stage "the unit and end-to-end tests"
  swift test --skip-build --scratch-path "$debug"
  # (The ThreadSanitizer and AddressSanitizer runs, and their builds, are `make sanitize`:
  # docs/hardening.md, "Sanitizers". The build alone took 8 of CI's 60 minutes.)
}

browser() {
  # The reference renderer in a real browser: Debian's Chromium, headless, over the DevTools
  # protocol, against the real splashd and splashd-web (docs/renderer.md). Fleet telemetry against
  # a real OTLP receiver (docs/operations.md, "Fleet telemetry"). Mostly waiting (for timeouts a
  # test sets off on purpose): 3.5 minutes, about 40 s of processor time.
  stage "the browser and telemetry tests"
  SPLASHD_BIN_DIR=$(swift build --show-bin-path --scratch-path "$debug") python3 -m pytest -q -p no:cacheprovider --durations=8 Tests/browser Tests/telemetry \
    Tests/scripts
}

vm() {
  # The native renderer on real kernel DRM drivers: Debian's kernel in QEMU with a virtio GPU of
  # two outputs, screens captured with QMP (docs/renderer-kms.md), with the binaries that ship (the
  # packages' build; splashctl is splashd by that name, as in the package): a VM draws them in a
  # quarter less processor time than the debug build's (docs/benchmarks.md, "README's test
  # command"). None of them depends on the machine's pace (docs/hardening.md, "A busy machine").
  stage "the VM tests"
  local bin=$logs/bin program
  # (Readable by every user: a VM test runs splashctl as nobody.)
  chmod 711 "$logs"
  mkdir -m 755 "$bin"
  for program in splashd splashd-web splashd-otel splashd-kms splashd-kms-first-frame; do
    cp "$dist/release/$program" "$bin/"
  done
  ln -s splashd "$bin/splashctl"
  SPLASHD_BIN_DIR=$bin python3 -m pytest -q -p no:cacheprovider --durations=12 Tests/vm
}

packages() {
  # The Debian packages (the shipping build: a release build with the Swift runtime linked in),
  # checked by lintian and each against its budget (design §11's for splashd: at most 8 MB to
  # download and 25 MB installed; the others' in docs/benchmarks.md, "Package sizes"): a package
  # that grows by an import turns this red.
  stage "the amd64 packages"
  make --no-print-directory deb DIST_SCRATCH="$dist"
  lintian --fail-on error,warning dist/*.deb
  scripts/package-budgets.sh dist/*.deb
}

builds() {
  # Each libFuzzer target briefly, with a fixed seed so the run is repeatable (`make fuzz` runs
  # longer: an hour a target, optimized). The stage is mostly its build, so it is built without
  # optimization (docs/benchmarks.md, "README's test command").
  stage "the fuzz targets"
  FUZZ_SCRATCH=$fuzz scripts/fuzz.sh --runs 10000 --seed 1 --debug
  if $root; then
    # The arm64 packages, built here from Debian's archive alone by Swift 6.2.3 (so the code is
    # built by both compilers it supports), checked by lintian and the same budgets
    # (docs/packaging.md, "arm64"). The toolchain, the target and the SDK are made once and kept
    # in ARM64_CACHE; so is this build's directory, as a build cache: a clean clone still rebuilds
    # every module of its own, the dependencies' stay built (cold: 17.5 minutes more).
    stage "the arm64 packages"
    make --no-print-directory deb-arm64 ARM64_SCRATCH="$ARM64_CACHE/build"
    lintian --fail-on error,warning dist/arm64/*.deb
    scripts/package-budgets.sh dist/arm64/*.deb
  fi
}

system() {
  # The package installed and driven under real systemd as PID 1 in a container
  # (docs/system-tests.md).
  stage "the system checks"
  scripts/system-test.sh dist/splashd_*.deb
}

kms() {
  # The packages on a real DRM display under systemd as PID 1: the VM boots an image with them
  # installed, and the app's unit crashes, loops and hangs behind splashd-kms (docs/renderer-kms.md).
  stage "the packages on a display under systemd"
  SPLASHD_DIST=dist python3 -m pytest -q -p no:cacheprovider Tests/vm/test_kms_systemd.py
}

power_on() {
  # One picture from power-on to the app (docs/power-on.md): the packages as they ship, from the
  # firmware's logo through the initramfs's splash to the app, filmed; no console text, and only
  # splash or app frames from the splash to the app (the filmstrip's rules, not its timings).
  stage "the power-on filmstrip"
  SPLASHD_DIST=dist python3 -m pytest -q -p no:cacheprovider Tests/vm/test_power_on.py
}

arm64() {
  # The arm64 packages' programs under qemu-user on Debian 12's arm64 libraries, a whole launch
  # among them. And the native renderer on an arm64 machine: qemu-system-aarch64 (TCG) with
  # Debian 12's arm64 kernel, a virtio GPU of two outputs: the app takes the display with no gap,
  # the splash comes back for every launch (`make test-arm64` runs every arm64 VM test).
  stage "the arm64 tests"
  ARM64_DIST=dist/arm64 ARM64_TARGET="$ARM64_CACHE/target" python3 -m pytest -q -p no:cacheprovider Tests/arm64
  scripts/arm64/vmroot.sh >/dev/null
  ARM64_BIN_DIR="$ARM64_CACHE/build/aarch64-unknown-linux-gnu/release" python3 -m pytest -q -p no:cacheprovider \
    Tests/vm/test_kms_arm64.py -k test_the_app_takes_the_display_with_no_gap
}

# Every make target the docs name expands and the scripts it runs parse (seconds: most targets
# are too long for this command; scripts/check-make.sh says what it proves).
bash scripts/check-make.sh
export ARM64_CACHE=${ARM64_CACHE:-/var/cache/splashd-arm64}
# The debug build first, alone: it keeps both cores busy (94 %), and the tests need it.
stage "the debug build and its tests"
swift build --build-tests --scratch-path "$debug"
make --no-print-directory first-frame FIRST_FRAME_BUILD="--scratch-path $debug"
stage
job swift swift_tests
job browser browser
# (The fuzz build first: while the packages' release build keeps the cores only two thirds busy.)
job builds builds
job packages packages
after packages
job vm vm
# systemd-nspawn and the VM's image need root; so does the arm64 build (chroot).
$root && job system system
$root && job power-on power_on
# The VM's systemd test once the VM tests have ended: beside two other VMs and the builds its
# guest's GPU came after the boot's hand-off in two runs of three (the renderer then leaves the
# display to the app at once; the test allows it, but holds the usual story better unhurried).
# The arm64 tests once their packages are made. Each starts as soon as what it waits for ends.
waiting=()
$root && waiting=(kms:vm arm64:builds)
while true; do
  left=()
  for pair in "${waiting[@]}"; do
    if [ -n "${ended[${pair#*:}]:-}" ]; then job "${pair%:*}" "${pair%:*}"; else left+=("$pair"); fi
  done
  waiting=("${left[@]}")
  [ "${#pids[@]}" -gt 0 ] || break
  reap
done
$root || echo "test: skipped the system tests and the arm64 packages: they need root (systemd-nspawn, chroot)" >&2
own
echo "test: every test passed in $(( SECONDS - started )) s ($(( (SECONDS - started) / 60 )) min), $(( mine / 60 )) min of processor time" >&8
