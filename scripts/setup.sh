#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine with the Swift toolchain lacks to build and test splashd.
# Idempotent: installs nothing when everything is there.
set -euo pipefail
need=()
command -v setpriv >/dev/null || need+=(util-linux)
command -v python3 >/dev/null || need+=(python3)
command -v dot >/dev/null || need+=(graphviz)          # the tests parse `splashctl graph` output
pkg-config --exists libsystemd 2>/dev/null || need+=(libsystemd-dev pkg-config)  # sd-journal: `splashctl logs`
for pc in cairo pangocairo librsvg-2.0; do               # the native renderer's drawing (SplashDraw)
  pkg-config --exists "$pc" 2>/dev/null || need+=(libcairo2-dev libpango1.0-dev librsvg2-dev pkg-config)
done
pkg-config --exists libdrm 2>/dev/null || need+=(libdrm-dev)   # the native renderer's mode setting (SplashKMS) ...
pkg-config --exists libinput 2>/dev/null || need+=(libinput-dev)  # ... and its touch, pointer and keys
pkg-config --exists libudev 2>/dev/null || need+=(libudev-dev)    # ... and its hotplug
[ -x /lib/systemd/systemd-udevd ] || need+=(udev)                   # the VM tests' guest runs udev for its input devices
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)  # its tests: real kernel DRM drivers in a VM ...
ls /boot/vmlinuz-6.1.* >/dev/null 2>&1 || need+=(linux-image-amd64)   # ... booting Debian 12's own kernel (6.1) ...
ls /boot/vmlinuz-6.12.* >/dev/null 2>&1 || need+=(linux-image-6.12-amd64)  # ... and its 6.12 (CLOSEFB) ...
[ -x /bin/busybox ] || need+=(busybox-static)                          # ... from a busybox initramfs (Tests/vm)
[ -f /usr/share/ovmf/OVMF.fd ] || need+=(ovmf)                       # ... and a UEFI firmware with a BGRT logo
command -v make >/dev/null || need+=(make)             # PackagingTests run `make install`,
command -v readelf >/dev/null || need+=(binutils)      # ... read the binaries' sections
command -v groff >/dev/null || need+=(groff-base)      # ... and render the man pages
command -v systemd-nspawn >/dev/null || need+=(systemd-container)   # scripts/system-test.sh boots a container
command -v jq >/dev/null || need+=(jq)                  # ... and reads the journal and states with jq
command -v openssl >/dev/null || need+=(openssl)        # ... and makes a CA for its HTTPS server
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)  # make deb: Depends and the changelog
command -v lintian >/dev/null || need+=(lintian)        # the package is checked after make deb
command -v chromium >/dev/null || need+=(chromium)      # the renderer's tests drive it over DevTools
dpkg -s fonts-inter >/dev/null 2>&1 || need+=(fonts-inter)  # the reference theme's font
command -v dbus-daemon >/dev/null || need+=(dbus-daemon)  # the app-life tests' private bus ...
/usr/bin/python3 -c "import dbus, gi" 2>/dev/null || need+=(python3-dbus python3-gi)  # ... and their fake systemd
dpkg -s polkitd >/dev/null 2>&1 || need+=(polkitd)      # system check 18: the package's polkit grant
command -v rauc >/dev/null || need+=(rauc)                # the update view's tests: real RAUC installing bundles ...
[ -e /lib/systemd/system/rauc.service ] || need+=(rauc-service)  # ... and, in system check 22, as its D-Bus-activated service
command -v mksquashfs >/dev/null || need+=(squashfs-tools)  # ... which it makes with mksquashfs ...
command -v swupdate >/dev/null || need+=(swupdate)        # ... and real SWUpdate with its swupdate-progress -p ...
command -v cpio >/dev/null || need+=(cpio)                # ... whose .swu archive is a cpio
if [ "${#need[@]}" -gt 0 ]; then
  echo "setup: installing ${need[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
# Debian's swupdate enables its own daemon's units: the tests run swupdate themselves, and the
# system tests' container (an overlay of this machine) would count them as failed units.
if [ -e /lib/systemd/system/swupdate.service ] && [ -e /etc/systemd/system/multi-user.target.wants/swupdate.service ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo systemctl --root=/ disable swupdate.socket swupdate.service swupdate-progress.service >/dev/null 2>&1 || true
  if [ -d /run/systemd/system ]; then $sudo systemctl stop swupdate.socket swupdate.service swupdate-progress.service 2>/dev/null || true; fi
fi
# The browser tests' Python side: pytest, and websocket-client for the DevTools protocol.
# And the telemetry tests' OTLP receiver: the official protobuf definitions.
python3 -c "import websocket, pytest, opentelemetry.proto" 2>/dev/null ||
  python3 -m pip install -q --disable-pip-version-check websocket-client pytest opentelemetry-proto
