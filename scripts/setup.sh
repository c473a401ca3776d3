#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine with the Swift toolchain lacks, for what you mean to do:
#
#   scripts/setup.sh [PURPOSE ...]        (no purpose: all of them; `make deps` is the same)
#
#   build     `swift build`: the C libraries the package links and the tools its build runs
#   demo      build, and README's first command (scripts/demo.sh): headless Chromium, the theme's font
#   tests     build, and `swift test` with the browser and telemetry tests (`make check` needs these)
#   vm        the VM tests (Tests/vm): QEMU, Debian's kernels, a busybox initramfs, a UEFI firmware
#   packages  `make deb`, lintian, and the system tests' container (scripts/system-test.sh)
#   arm64     `make deb-arm64` and the arm64 tests: mmdebstrap (the toolchain and target it makes
#             from Debian's archive: scripts/arm64/prepare.sh), qemu-user and qemu-system-aarch64
#   all       every one of them: README's test command (scripts/test.sh)
#
# Each line below says what the package is for. Idempotent: installs nothing when everything is
# there; asks apt once, for every purpose given.
set -euo pipefail
need=()
pip=()
disable_swupdate=false
arm64_binfmt=false

build() {
  command -v make >/dev/null || need+=(make)                                   # the Makefile
  pkg-config --exists libsystemd 2>/dev/null || need+=(libsystemd-dev pkg-config)  # sd-journal, sd-bus
  for pc in cairo pangocairo librsvg-2.0; do                                   # the native renderer's drawing
    pkg-config --exists "$pc" 2>/dev/null || need+=(libcairo2-dev libpango1.0-dev librsvg2-dev pkg-config)
  done
  pkg-config --exists libdrm 2>/dev/null || need+=(libdrm-dev)       # ... its mode setting (SplashKMS)
  pkg-config --exists libinput 2>/dev/null || need+=(libinput-dev)   # ... its touch, pointer and keys
  pkg-config --exists libudev 2>/dev/null || need+=(libudev-dev)     # ... and its hotplug
}

browser() {
  command -v python3 >/dev/null || need+=(python3)
  command -v chromium >/dev/null || need+=(chromium)          # the reference renderer, driven over DevTools
  dpkg -s fonts-inter >/dev/null 2>&1 || need+=(fonts-inter)  # the reference theme's font
  python3 -c "import websocket" 2>/dev/null || pip+=(websocket-client)  # the DevTools client (Tests/browser/cdp.py)
}

demo() {
  build
  browser
}

tests() {
  build
  browser
  command -v setpriv >/dev/null || need+=(util-linux)     # the tests drop privileges with setpriv
  command -v dot >/dev/null || need+=(graphviz)           # ... parse `splashctl graph` with dot
  command -v readelf >/dev/null || need+=(binutils)       # PackagingTests read the binaries' sections
  command -v groff >/dev/null || need+=(groff-base)       # ... and render the man pages
  command -v zsh >/dev/null || need+=(zsh)                  # the renderers' completion scripts, run in zsh ...
  command -v fish >/dev/null || need+=(fish)                # ... and fish
  command -v strace >/dev/null || need+=(strace)            # what the initramfs's renderer asks the kernel
  command -v openssl >/dev/null || need+=(openssl)        # HTTPS servers' certificates, signed updates
  command -v dbus-daemon >/dev/null || need+=(dbus-daemon)  # the app-life tests' private bus ...
  /usr/bin/python3 -c "import dbus, gi" 2>/dev/null || need+=(python3-dbus python3-gi)  # ... and their fake systemd
  command -v rauc >/dev/null || need+=(rauc)                # the update view: real RAUC installing bundles ...
  command -v mksquashfs >/dev/null || need+=(squashfs-tools)  # ... which it makes with mksquashfs ...
  command -v swupdate >/dev/null || need+=(swupdate)        # ... and real SWUpdate with its swupdate-progress -p ...
  command -v cpio >/dev/null || need+=(cpio)                # ... whose .swu archive is a cpio
  [ -f /usr/share/initramfs-tools/hook-functions ] || need+=(initramfs-tools-core)  # InitramfsHookTests run the hook with its hook-functions
  python3 -c "import pytest" 2>/dev/null || pip+=(pytest)   # the Python tests' runner
  python3 -c "import opentelemetry.proto" 2>/dev/null || pip+=(opentelemetry-proto)  # the telemetry tests' OTLP receiver
  disable_swupdate=true
}

vm() {
  command -v python3 >/dev/null || need+=(python3)
  python3 -c "import pytest" 2>/dev/null || pip+=(pytest)
  [ -x /lib/systemd/systemd-udevd ] || need+=(udev)                        # the guest runs udev for its input devices
  command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)      # real kernel DRM drivers in a VM ...
  ls /boot/vmlinuz-6.1.* >/dev/null 2>&1 || need+=(linux-image-amd64)       # ... booting Debian 12's own kernel (6.1) ...
  ls /boot/vmlinuz-6.12.* >/dev/null 2>&1 || need+=(linux-image-6.12-amd64)  # ... and its 6.12 (CLOSEFB) ...
  [ -x /bin/busybox ] || need+=(busybox-static)                            # ... from a busybox initramfs
  [ -f /usr/share/ovmf/OVMF.fd ] || need+=(ovmf)                           # ... and a UEFI firmware with a BGRT logo
  command -v systemd-nspawn >/dev/null || need+=(systemd-container)  # the systemd VM test builds its image's tree
}

packages() {
  command -v make >/dev/null || need+=(make)
  command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)            # make deb: Depends and the changelog
  command -v lintian >/dev/null || need+=(lintian)                    # the packages are checked after make deb
  command -v systemd-nspawn >/dev/null || need+=(systemd-container)   # scripts/system-test.sh boots a container
  command -v jq >/dev/null || need+=(jq)                              # ... reads the journal and states with jq
  command -v openssl >/dev/null || need+=(openssl)                    # ... makes a CA for its HTTPS server
  python3 -c "import pytest" 2>/dev/null || pip+=(pytest)             # ... whose checks pytest runs
  dpkg -s polkitd >/dev/null 2>&1 || need+=(polkitd)                  # system check 10: the package's polkit grant
  command -v rauc >/dev/null || need+=(rauc)                          # system check 22: RAUC ...
  [ -e /lib/systemd/system/rauc.service ] || need+=(rauc-service)     # ... as its D-Bus-activated service
  disable_swupdate=true
}

arm64() {
  packages
  command -v mmdebstrap >/dev/null || need+=(mmdebstrap)                      # scripts/arm64/prepare.sh's toolchain and target
  command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)       # ... whose arm64 programs run under qemu-user
  command -v update-binfmts >/dev/null || need+=(binfmt-support)              # ... by binfmt_misc (mmdebstrap, dpkg-shlibdeps)
  command -v aarch64-linux-gnu-strip >/dev/null || need+=(binutils-aarch64-linux-gnu)  # the packages' binaries stripped
  command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)        # the arm64 VM tests: an arm64 machine ...
  [ -f /usr/share/AAVMF/AAVMF_CODE.fd ] || need+=(qemu-efi-aarch64)           # ... with its UEFI firmware
  arm64_binfmt=true
}

all() { demo; tests; vm; packages; arm64; }

[ "$#" -gt 0 ] || set -- all
for purpose in "$@"; do
  case "$purpose" in
    build | demo | tests | vm | packages | arm64 | all) "$purpose" ;;
    *) echo "setup: unknown purpose '$purpose' (build, demo, tests, vm, packages, arm64, all)" >&2; exit 64 ;;
  esac
done

sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ "${#need[@]}" -gt 0 ]; then
  mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
  echo "setup: installing ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Debian's swupdate enables its own daemon's units: the tests run swupdate themselves, and the
# system tests' container (an overlay of this machine) would count them as failed units.
if $disable_swupdate && [ -e /lib/systemd/system/swupdate.service ] &&
  [ -e /etc/systemd/system/multi-user.target.wants/swupdate.service ]; then
  $sudo systemctl --root=/ disable swupdate.socket swupdate.service swupdate-progress.service >/dev/null 2>&1 || true
  if [ -d /run/systemd/system ]; then $sudo systemctl stop swupdate.socket swupdate.service swupdate-progress.service 2>/dev/null || true; fi
fi
# arm64 programs run under qemu-user through binfmt_misc (its F flag: also inside a chroot):
# mmdebstrap runs the target's maintainer scripts so, and deb.sh its dpkg-shlibdeps.
if $arm64_binfmt && [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  [ -e /proc/sys/fs/binfmt_misc/register ] || $sudo mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  $sudo update-binfmts --enable qemu-aarch64
fi
if [ "${#pip[@]}" -gt 0 ]; then
  mapfile -t pip < <(printf '%s\n' "${pip[@]}" | sort -u)
  echo "setup: installing ${pip[*]} (PyPI)" >&2
  python3 -m pip install -q --disable-pip-version-check "${pip[@]}"
fi
