#!/usr/bin/env bash
# The whole Swift test suite on arm64 (`make check-arm64`; docs/benchmarks.md, "arm64"): built by
# Swift 6.2.3 in the toolchain chroot (a debug build, as `make check`'s, into ARM64_TESTS, default
# .build/arm64-tests), then run under qemu-user with the tests' arm64 programs (splashd, the
# renderers, the first-frame helper) on Debian sid's arm64 libraries (prepare.sh --suite), this
# machine's own tools beside them (python3, dbus-daemon, rauc, systemd-socket-activate: qemu-user
# runs what is not arm64's natively).
#
# The suite links the dynamic Swift runtime (Debian has no static Swift Testing), whose
# libraries need sid's glibc: the shipped programs, with the runtime linked in, are the ones run
# on Debian 12's libraries (Tests/arm64, Tests/vm/*arm64*).
#
# Every failure must be one of Tests/arm64/suite-exceptions.txt's, each named there with its
# measured reason; any other is red. An exception that passed is said (it may go).
#
#   scripts/arm64/suite.sh [--skip-build] [SWIFT-TESTING ARGUMENTS...]
#
# The arguments go to each run beside its own: `--skip REGEX` narrows a run, but `--filter REGEX`
# widens it (Swift Testing takes any filter's match); ARM64_SUITE_RUNS=units (or end-to-end) and
# a --filter run one part of the suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/arm64/env.sh
say() { echo "arm64: $*" >&2; }
scratch=${ARM64_TESTS:-$PWD/.build/arm64-tests}
case $scratch in /*) ;; *) scratch=$PWD/$scratch ;; esac
build=yes
if [[ ${1:-} == --skip-build ]]; then build=no; shift; fi

if [[ -z ${ARM64_SUITE_NAMESPACE:-} ]]; then
    bash scripts/arm64/prepare.sh --suite >/dev/null
    sed 's/^/arm64: /' "$ARM64_CACHE/versions" >&2
fi
target=$ARM64_CACHE/target
bin=$scratch/$ARM64_TRIPLE/debug
if [[ $build == yes ]]; then
    start=$SECONDS
    # (--allow-shlib-undefined: the runtime's libraries name symbol versions of sid's glibc,
    # which the Debian 12 sysroot linked against does not define; sid's, at run time, does.)
    bash scripts/arm64/chroot.sh swift build --build-tests -c debug --swift-sdks-path "$ARM64_CACHE/sdk" \
        --swift-sdk "$ARM64_SDK" --scratch-path "$scratch" -Xlinker --allow-shlib-undefined
    bash scripts/arm64/chroot.sh /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu --sysroot="$target" -fuse-ld=lld \
        -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion -I"$target/usr/include/libdrm" \
        -o "$bin/splashd-kms-first-frame" helpers/splashd-kms-first-frame.c
    say "the test suite built in $((SECONDS - start)) s"
fi
runner=$bin/splashdPackageTests.xctest
[[ -x $runner ]] || { say "no $runner: run without --skip-build"; exit 1; }
[[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] ||
    { say "binfmt_misc does not run arm64 programs: scripts/setup.sh arm64"; exit 1; }

# The runs happen in a mount namespace of their own, where /etc/qemu-binfmt/aarch64 (the library
# root Debian's binfmt_misc wrapper for qemu-user takes) is the suite's root: unlike
# QEMU_LD_PREFIX, it holds for a process started with an empty environment too (the renderer's
# logo child). An overlay of /etc, only there; nothing on this
# machine changes.
if [[ -z ${ARM64_SUITE_NAMESPACE:-} ]]; then
    ARM64_SUITE_NAMESPACE=1 exec unshare --mount --propagation private bash "$0" --skip-build "$@"
fi
etc=$(mktemp -d /tmp/splashd-arm64-suite.XXXXXX)
trap 'umount /etc 2>/dev/null; rm -rf "$etc"' EXIT
mkdir -p "$etc/upper/qemu-binfmt" "$etc/work"
ln -s "$ARM64_CACHE/suite-root" "$etc/upper/qemu-binfmt/aarch64"
mount -t overlay splashd-arm64-suite -o "lowerdir=/etc,upperdir=$etc/upper,workdir=$etc/work" /etc

# The runs' output and results (Swift Testing's xunit), kept for reading: the unit tests in
# parallel, then the end-to-end tests one at a time (in parallel under qemu-user, with every
# test's programs emulated on 2 cores, the suite stalled after 7 minutes with every process idle).
results=$scratch/results
rm -rf "$results" && mkdir -p "$results"
run() { # NAME ARGUMENTS...
    local name=$1 start=$SECONDS code=0
    shift
    # binfmt_misc runs the arm64 programs under qemu-user, which looks in the suite's root first
    # for every path (the libraries), then in this machine's root (everything else). Emulated,
    # every program runs several times slower: the tests' bounded waits are ten times longer, as
    # under the sanitizers (their waits are for events: a passing test takes no longer for it).
    # (`make install`, which PackagingTests run, strips with STRIP.)
    SWIFT_BACKTRACE=enable=no SPLASHD_TEST_TIME_SCALE=${SPLASHD_TEST_TIME_SCALE:-10} STRIP=aarch64-linux-gnu-strip \
        "$runner" --testing-library swift-testing --xunit-output "$results/$name.xml" "$@" >"$results/$name.txt" 2>&1 || code=$?
    say "$name ran in $((SECONDS - start)) s under qemu-user (exit $code; $results/$name.txt has its output)"
}
# ARM64_SUITE_RUNS: which of the two (default both).
runs=${ARM64_SUITE_RUNS:-units end-to-end}
for name in $runs; do
    case $name in
    units) run units --skip '^EndToEndTests\.' "$@" ;;
    end-to-end) run end-to-end --no-parallel --filter '^EndToEndTests\.' "$@" ;;
    *) say "ARM64_SUITE_RUNS: no run $name (units, end-to-end)"; exit 64 ;;
    esac
done
python3 scripts/arm64/suite_report.py Tests/arm64/suite-exceptions.txt $(for name in $runs; do echo "$results/$name"; done)
