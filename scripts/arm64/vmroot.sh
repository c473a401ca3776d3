#!/usr/bin/env bash
# Makes (once) and caches the arm64 virtual machine's root file system (Tests/vm/vm.py,
# VM(arch="arm64")): Debian 12 for arm64 with its own kernel (linux-image-arm64: the guest boots
# its /boot/vmlinuz-* and loads its /lib/modules), an arm64 busybox for the guest's initramfs,
# udev and systemd, and the libraries and font the arm64 binaries load, in
#
#   ARM64_CACHE/vmroot         (default /var/cache/splashd-arm64/vmroot)
#   ARM64_CACHE/vmroot.recipe  what it was made from: made again only when this changes
#   ARM64_CACHE/vmroot.versions the kernel and the libraries' versions, as printed
#
# The guest mounts it read-only over 9p; nothing of it is written by a test. Needs root
# (mmdebstrap; the maintainer scripts run under qemu-user through binfmt_misc).
#
#   scripts/arm64/vmroot.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/arm64/env.sh

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
aptopt='Acquire::Check-Valid-Until "false"'
# The guest: a kernel and its modules (kmod to load them), busybox for the initramfs, udev (for
# libinput) and systemd, dbus; the tests' shell tools (procps: pgrep, pidof; util-linux: setpriv).
# The binaries: what splashd-kms, splashd and the test app load (libsystemd by dlopen), and the
# reference theme's font.
packages=linux-image-arm64,kmod,busybox-static,udev,systemd,systemd-sysv,dbus,procps,util-linux
packages+=,libc6,libstdc++6,libgcc-s1,zlib1g,libdrm2,libcairo2,libpango-1.0-0,libpangocairo-1.0-0,libpangoft2-1.0-0
packages+=,libfontconfig1,librsvg2-2,libinput10,libudev1,libsystemd0,fonts-inter
# The packages' app watch under systemd (Tests/vm/test_kms_systemd_arm64.py): splashd restarts the
# app's unit through its polkit rule (/usr/share/polkit-1/rules.d/50-splashd.rules), which polkitd
# alone evaluates; without it systemd refuses the restart (splashd's unit is no root's).
packages+=,polkitd
# The guest boots with vm.py's initramfs, never with Debian's: mkinitramfs, which takes 8 minutes
# under qemu-user, is left out (update-initramfs diverted before the kernel comes, a shim in its
# place). No manuals or translations.
hook='chroot "$1" dpkg-divert --quiet --local --divert /usr/sbin/update-initramfs.distrib --add /usr/sbin/update-initramfs &&
    printf "#!/bin/sh\n" >"$1/usr/sbin/update-initramfs" && chmod 755 "$1/usr/sbin/update-initramfs"'
excludes=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/locale/*')
part=vmroot
root=$ARM64_CACHE/$part
recipe="bookworm arm64 apt $packages ${excludes[*]} $hook"

say() { echo "arm64: $*" >&2; }
fail() { say "$*"; exit 1; }

mkdir -p "$ARM64_CACHE"
if [[ -d $root && -f $root.recipe && $(cat "$root.recipe") == "$recipe" ]]; then
    cat "$root.versions"
    exit 0
fi
rm -rf "$root" "$root.recipe" "$root.versions"
say "making $part: Debian bookworm (arm64) with $packages"
start=$SECONDS
if ! mmdebstrap --variant=apt --architectures=arm64 --aptopt="$aptopt" --include="$packages" "${excludes[@]}" \
    --essential-hook="$hook" bookworm "$root" "$mirror" >"$root.log" 2>&1; then
    tail -n 20 "$root.log" >&2
    if grep -qE "Unable to locate package|has no installation candidate|Depends: .* but it is not" "$root.log"; then
        fail "Debian bookworm no longer has what the arm64 VM needs (above); $root.log has the whole run." \
            "The recipe is scripts/arm64/vmroot.sh; $root.versions, where it is left, lists the versions last used."
    fi
    fail "mmdebstrap could not make $part ($root.log)"
fi
kernels=("$root"/boot/vmlinuz-*)
[[ ${#kernels[@]} == 1 && -f ${kernels[0]} ]] || fail "$part: not one kernel in $root/boot: ${kernels[*]}"
release=${kernels[0]#"$root/boot/vmlinuz-"}
[[ -f $root/lib/modules/$release/modules.dep ]] || fail "$part: no modules for $release"
# QEMU reads the kernel as whoever runs the tests.
chmod a+r "$root/boot/vmlinuz-$release"
{
    echo "vmroot: Debian 12 (arm64), kernel $release (linux-image-arm64 $(chroot "$root" dpkg-query -W -f '${Version}' linux-image-arm64))"
    for package in busybox-static systemd libc6 libdrm2 libcairo2 libpango-1.0-0 librsvg2-2 libinput10 fonts-inter; do
        echo "vmroot: $package $(chroot "$root" dpkg-query -W -f '${Version}' "$package")"
    done
} >"$root.versions"
echo "$recipe" >"$root.recipe"
say "$part made in $((SECONDS - start)) s ($(du -sh "$root" | cut -f1))"
cat "$root.versions"
