#!/usr/bin/env bash
# Makes (once) and caches what the arm64 build needs, from Debian's archive alone
# (docs/packaging.md, "arm64"):
#
#   toolchain/  Debian sid for amd64 with swiftlang (Swift 6.2.3): the compiler, run natively
#   target/     Debian 12 for arm64: the C libraries and their headers (the sysroot), and dpkg,
#               in which dpkg-shlibdeps reads the packages' dependencies
#   sdk/        a Swift SDK bundle: target/ as its sysroot, sid's arm64 swiftlang and
#               libswiftlang unpacked for the Swift runtime (its static archives)
#   versions    the exact versions of each, which the build prints and docs/packaging.md lists
#
# and, with --suite (`make check-arm64`, scripts/arm64/suite.sh), one part more:
#
#   suite-root/ Debian sid for arm64: the C and C++ libraries sid's dynamic Swift runtime was
#               built against (glibc 2.38 or newer), and the project's C libraries, which
#               qemu-user loads the test suite's arm64 programs on (suite.sh)
#
# in ARM64_CACHE (default /var/cache/splashd-arm64). Each part is made again only when what this
# script asks of it changes (its recipe, kept beside it). Needs root (mmdebstrap, chroot) and
# Debian's mmdebstrap and qemu-user-static (`scripts/setup.sh arm64`).
#
#   scripts/arm64/prepare.sh [--suite]
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/arm64/env.sh

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# sid's Release file is signed with a Valid-Until that this machine's clock can be past.
aptopt='Acquire::Check-Valid-Until "false"'
# (libc6-dev: SwiftPM compiles and links each manifest for the build machine, which needs its C
# runtime's start files; sid's gcc only recommends it, and mmdebstrap installs no recommends.)
toolchain_packages=swiftlang,libc6-dev,git,pkg-config,ca-certificates
target_packages=libc6-dev,libgcc-12-dev,libstdc++-12-dev,libsystemd-dev,libdrm-dev,libinput-dev,libudev-dev,libcairo2-dev,libpango1.0-dev,librsvg2-dev,zlib1g-dev,dpkg-dev

mkdir -p "$ARM64_CACHE"
say() { echo "arm64: $*" >&2; }
fail() { say "$*"; exit 1; }
# PART RECIPE: true when PART was made from RECIPE and is whole.
ready() { [[ -d $ARM64_CACHE/$1 && -f $ARM64_CACHE/$1.recipe && $(cat "$ARM64_CACHE/$1.recipe") == "$2" ]]; }
made() { echo "$2" >"$ARM64_CACHE/$1.recipe"; }
# What mmdebstrap said, with the reason when the archive lacks a package.
debstrap() { # PART SUITE ARCHITECTURES PACKAGES VARIANT
    local log=$ARM64_CACHE/$1.log
    rm -rf "$ARM64_CACHE/$1" "$ARM64_CACHE/$1.recipe"
    say "making $1: Debian $2 ($3) with $4"
    if ! mmdebstrap --variant="$5" --architectures="$3" --aptopt="$aptopt" --include="$4" \
        "$2" "$ARM64_CACHE/$1" "$mirror" >"$log" 2>&1; then
        tail -n 20 "$log" >&2
        if grep -qE "Unable to locate package|has no installation candidate|Depends: .* but it is not" "$log"; then
            fail "Debian $2 no longer has what the arm64 build needs (above); $log has the whole run." \
                "The recipe is scripts/arm64/prepare.sh; docs/packaging.md, \"arm64\", lists the versions last used."
        fi
        fail "mmdebstrap could not make $1 ($log)"
    fi
}

# The compiler: sid's swiftlang, for amd64, with arm64 as a foreign architecture so that its arm64
# runtime can be fetched by the same apt, at the same version.
recipe="sid amd64,arm64 $toolchain_packages"
if ! ready toolchain "$recipe"; then
    debstrap toolchain sid amd64,arm64 "$toolchain_packages" apt
    made toolchain "$recipe"
fi

# The target: Debian 12 for arm64, as on a Raspberry Pi OS bookworm device. Its maintainer
# scripts run under qemu-user (binfmt_misc).
recipe="bookworm arm64 $target_packages"
if ! ready target "$recipe"; then
    debstrap target bookworm arm64 "$target_packages" apt
    # Absolute links (libm.so -> /lib/aarch64-linux-gnu/libm.so.6) would point into the build
    # machine; made relative, so that the linker finds the target's (or lld takes libm.a).
    find "$ARM64_CACHE/target/usr/lib" -type l -lname '/*' -print0 | while IFS= read -r -d '' link; do
        dest=$ARM64_CACHE/target$(readlink "$link")
        ln -sfn "$(realpath --relative-to="$(dirname "$link")" -m "$dest")" "$link"
    done
    made target "$recipe"
fi

# The SDK: the runtime of the compiler's own version, for arm64.
swift_version=$(chroot "$ARM64_CACHE/toolchain" dpkg-query -W -f '${Version}' swiftlang)
recipe="swiftlang $swift_version arm64 schema 4.0"
if ! ready sdk "$recipe"; then
    rm -rf "$ARM64_CACHE/sdk" "$ARM64_CACHE/sdk.recipe"
    bundle=$ARM64_CACHE/sdk/$ARM64_SDK.artifactbundle
    variant=$bundle/$ARM64_SDK
    mkdir -p "$variant/runtime" "$ARM64_CACHE/toolchain/tmp/runtime"
    say "making sdk: swiftlang and libswiftlang $swift_version for arm64"
    if ! chroot "$ARM64_CACHE/toolchain" sh -c "apt-get -q update >/dev/null && cd /tmp/runtime &&
        apt-get -q download swiftlang:arm64=$swift_version libswiftlang:arm64=$swift_version" >"$ARM64_CACHE/sdk.log" 2>&1; then
        cat "$ARM64_CACHE/sdk.log" >&2
        fail "sid no longer has swiftlang $swift_version for arm64 beside amd64's: remove $ARM64_CACHE/toolchain.recipe to take the newest of both"
    fi
    for deb in "$ARM64_CACHE"/toolchain/tmp/runtime/*.deb; do dpkg-deb -x "$deb" "$variant/runtime"; done
    # Only the runtime (lib/swift, lib/swift_static, and lib/clang, the C headers lib/swift
    # links to): the rest is an arm64 compiler and its tools, 1.6 GB this build never runs.
    (cd "$variant/runtime/usr" && rm -rf bin share lib libexec/swift/bin libexec/swift/libexec libexec/swift/share &&
        find libexec/swift/lib -maxdepth 1 -name '*.so*' -delete)
    rm -rf "$ARM64_CACHE/toolchain/tmp/runtime"
    ln -s ../../../target "$variant/sysroot"
    resources=runtime/usr/libexec/swift/lib
    [[ -d $variant/$resources/swift_static/linux/static-stdlib-args.lnk || -f $variant/$resources/swift_static/linux/static-stdlib-args.lnk ]] ||
        fail "sid's libswiftlang for arm64 has no static runtime ($resources/swift_static) any more"
    cat >"$bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "$ARM64_SDK": {
      "type": "swiftSDK",
      "version": "$swift_version",
      "variants": [{ "path": "$ARM64_SDK" }]
    }
  }
}
JSON
    cat >"$variant/swift-sdk.json" <<JSON
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "sysroot",
      "swiftResourcesPath": "$resources/swift",
      "swiftStaticResourcesPath": "$resources/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
    cat >"$variant/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
JSON
    made sdk "$recipe"
fi

# The Swift driver takes the static runtime's swiftrt.o from the sysroot's usr/lib/swift_static
# whatever the SDK says: the runtime is linked there too (and kept there if target/ is made again).
runtime=$ARM64_CACHE/sdk/$ARM64_SDK.artifactbundle/$ARM64_SDK/runtime/usr/libexec/swift/lib
for dir in swift swift_static; do ln -sfn "$runtime/$dir" "$ARM64_CACHE/target/usr/lib/$dir"; done

# The test suite's run (scripts/arm64/suite.sh): the suite links the dynamic runtime, whose
# libraries need sid's glibc (fmod@GLIBC_2.38 and more), not Debian 12's, which the shipped
# static runtime does without (packaging/arm64/compat.cc). Only the libraries and their data
# (usr/lib, usr/share): qemu-user looks for every path there first, so anything else (etc, dev,
# tmp, programs, fonts) would hide this machine's. The drawing tests' fonts are the amd64 run's.
suite_packages=libc6,libstdc++6,libgcc-s1,zlib1g,libdrm2,libcairo2,libpango-1.0-0,libpangocairo-1.0-0,libpangoft2-1.0-0,libfontconfig1,librsvg2-2,libinput10,libudev1,libsystemd0
recipe="sid arm64 extract $suite_packages, usr/lib and usr/share without fonts"
if [[ ${1:-} == --suite ]] && ! ready suite-root "$recipe"; then
    debstrap suite-root sid arm64 "$suite_packages" extract
    root=$ARM64_CACHE/suite-root
    find "$root" -mindepth 1 -maxdepth 1 ! -name usr -exec rm -rf {} +
    find "$root/usr" -mindepth 1 -maxdepth 1 ! -name lib ! -name share -exec rm -rf {} +
    rm -rf "$root/usr/share/fonts" "$root/usr/share/fontconfig"
    # The programs' interpreter is /lib/ld-linux-aarch64.so.1 (usrmerge's link, which only
    # base-files makes).
    ln -sfn usr/lib "$root/lib"
    made suite-root "$recipe"
fi
# Debian's libswiftlang has Swift Testing's Foundation overlay's module but not its library, which
# every test module importing both autolinks: an empty archive in its place (the suite calls
# nothing of it; were that to change, its link would name the symbols).
overlay=$ARM64_CACHE/sdk/$ARM64_SDK.artifactbundle/$ARM64_SDK/runtime/usr/libexec/swift/lib/swift/linux/lib_Testing_Foundation
if [[ ${1:-} == --suite && ! -e $overlay.so && ! -e $overlay.a ]]; then
    printf '!<arch>\n' >"$overlay.a"
fi

# The versions, as the build prints them and docs/packaging.md lists them.
{
    echo "toolchain: Debian sid (amd64), swiftlang $swift_version"
    echo "runtime: Debian sid (arm64), swiftlang and libswiftlang $swift_version"
    for package in libc6 libstdc++6 libdrm2 libcairo2 libpango-1.0-0 librsvg2-2 libinput10 libudev1 libsystemd0; do
        echo "target: Debian 12 (arm64), $package $(chroot "$ARM64_CACHE/target" dpkg-query -W -f '${Version}' "$package")"
    done
    if [[ -f $ARM64_CACHE/suite-root.recipe ]]; then
        # (An extracted root has no dpkg database: the C library says its own version.)
        echo "suite: Debian sid (arm64), $(grep -ao 'GNU C Library ([^)]*)' "$ARM64_CACHE/suite-root/usr/lib/aarch64-linux-gnu/libc.so.6" | head -1)"
    fi
} >"$ARM64_CACHE/versions"
cat "$ARM64_CACHE/versions"
