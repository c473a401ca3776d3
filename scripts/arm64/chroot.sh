#!/usr/bin/env bash
# Runs a command in the arm64 toolchain (scripts/arm64/prepare.sh's sid chroot with Swift 6.2.3),
# in the repository, which is seen at the same path inside; so are the cache and, where this
# machine has them, the Swift packages git is told to read instead of github.com (/etc/gitconfig's
# url.insteadOf). In a mount namespace of its own: nothing stays mounted after it.
#
#   scripts/arm64/chroot.sh COMMAND...
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/arm64/env.sh
root=$ARM64_CACHE/toolchain
[[ -f $ARM64_CACHE/toolchain.recipe && -x $root/usr/libexec/swift/bin/swift-frontend ]] || { echo "arm64: no toolchain in $root: run scripts/arm64/prepare.sh" >&2; exit 1; }
# git's settings of this machine (a mirror of github.com, say) hold inside too.
if [[ -f /etc/gitconfig ]]; then cp /etc/gitconfig "$root/etc/gitconfig"; else rm -f "$root/etc/gitconfig"; fi
target=$ARM64_CACHE/target
export ROOT=$root HERE=$PWD CACHE=$ARM64_CACHE
exec unshare --mount --propagation private /bin/bash -euc '
    mount -t proc proc "$ROOT/proc"
    mount --rbind /dev "$ROOT/dev"
    bind() { mkdir -p "$ROOT$1" && mount --bind "$1" "$ROOT$1"; }
    bind "$HERE"
    bind "$CACHE"
    if [[ -d /opt/swift-packages ]]; then bind /opt/swift-packages; fi
    exec chroot "$ROOT" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin TERM=dumb LANG=C.UTF-8 \
        SWIFT_BACKTRACE=enable=no "$@"
' bash /bin/bash -c 'cd "$1" && shift && exec "$@"' bash "$HERE" \
    env PKG_CONFIG_SYSROOT_DIR="$target" \
    PKG_CONFIG_PATH="$target/usr/lib/aarch64-linux-gnu/pkgconfig:$target/usr/share/pkgconfig" \
    PKG_CONFIG_LIBDIR="$target/usr/lib/aarch64-linux-gnu/pkgconfig:$target/usr/share/pkgconfig" \
    "$@"
