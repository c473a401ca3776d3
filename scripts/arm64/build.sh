#!/usr/bin/env bash
# The build that ships, for arm64: `make dist`'s binaries (a release build, the Swift runtime
# linked in, lld with RELR, no unwind tables), made by Swift 6.2.3 in the toolchain chroot against
# Debian 12 arm64 (scripts/arm64/prepare.sh), into .build/arm64/aarch64-unknown-linux-gnu/release
# (ARM64_SCRATCH names another directory, inside the repository or under ARM64_CACHE): splashd,
# splashd-web, splashd-otel, splashd-kms and splashd-kms-first-frame. Prints the versions used and each stage's
# time.
#
#   scripts/arm64/build.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/arm64/env.sh
target=$ARM64_CACHE/target
[[ -f $ARM64_CACHE/versions ]] || { echo "arm64: nothing prepared in $ARM64_CACHE: run scripts/arm64/prepare.sh" >&2; exit 1; }
sed 's/^/arm64: /' "$ARM64_CACHE/versions" >&2
run() { bash scripts/arm64/chroot.sh "$@"; }
clang=/usr/libexec/swift/bin/clang
mkdir -p "$ARM64_SCRATCH"

# What sid's runtime calls and Debian 12 lacks (packaging/arm64/compat.cc), linked into each.
run "$clang" --target=aarch64-linux-gnu --sysroot="$target" -O2 -fPIC -Wall -Wextra -Werror \
    -c packaging/arm64/compat.cc -o "$ARM64_SCRATCH/compat.o"

flags=(-c release --static-swift-stdlib --swift-sdks-path "$ARM64_CACHE/sdk" --swift-sdk "$ARM64_SDK"
    --scratch-path "$ARM64_SCRATCH" -Xlinker "$ARM64_SCRATCH/compat.o"
    -Xlinker -z -Xlinker pack-relative-relocs
    -Xlinker "--version-script=$PWD/packaging/executable-symbols.map"
    -Xlinker "$PWD/packaging/no-unwind-tables.ld" -Xlinker --no-eh-frame-hdr)
for product in splashd splashd-web splashd-otel splashd-kms; do
    start=$SECONDS
    run swift build "${flags[@]}" --product "$product"
    echo "arm64: $product built in $((SECONDS - start)) s" >&2
done
bin=$(run swift build "${flags[@]}" --show-bin-path)
run "$clang" --target=aarch64-linux-gnu --sysroot="$target" -fuse-ld=lld \
    -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion -I"$target/usr/include/libdrm" \
    -o "$bin/splashd-kms-first-frame" helpers/splashd-kms-first-frame.c
# splashctl is splashd called by that name, as in the package.
ln -sfn splashd "$bin/splashctl"
echo "arm64: the binaries are in $bin" >&2
