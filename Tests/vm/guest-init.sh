#!/bin/sh
# The guest's /init (Tests/vm/vm.py): a busybox initramfs that mounts the host's root file system
# read-only over 9p, loads the GPU driver from it, and runs the commands the test sends on the
# control port (control-loop.sh).
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for module in $(cat /modules.order); do insmod "/modules/$module" || echo "vm: insmod $module failed"; done
mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose host /host || { echo "vm: cannot mount the host"; poweroff -f; }
# splashd.mount=TAG:PATH on the command line (vm.py's `mounts`, as the arm64 guest has the
# checkout that holds its binaries): the share TAG, read-only at PATH, in the overlay below.
mounts=
for word in $(cat /proc/cmdline); do
  case $word in splashd.mount=*) mounts="$mounts ${word#splashd.mount=}" ;; esac
done
# The root as an overlay of the shared one whose upper layer is a tmpfs: the guest may write
# anything (a mount point too), and nothing reaches the host.
overlay() {
  mkdir -p /rw /newroot && mount -t tmpfs -o mode=0755 tmpfs /rw && mkdir -p /rw/upper /rw/work &&
    mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work /newroot ||
    { echo "vm: cannot make the overlay"; poweroff -f; }
  for share in $mounts; do
    mkdir -p "/newroot${share#*:}" && mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose "${share%%:*}" "/newroot${share#*:}" ||
      { echo "vm: cannot mount ${share#*:}"; poweroff -f; }
  done
}
# splashd.systemd on the command line: systemd as PID 1 (Tests/vm/test_kms_systemd.py), on the
# overlay of the shared root (the test's image, with the packages installed).
case " $(cat /proc/cmdline) " in
  *" splashd.systemd "*)
    overlay
    echo "vm: booting systemd; kernel $(uname -r)"
    umount /sys; umount /proc
    exec switch_root /newroot /lib/systemd/systemd
    ;;
esac
root=/host
if [ -n "$mounts" ]; then overlay; root=/newroot; fi
mount -t proc proc $root/proc || echo "vm: cannot mount /proc"
mount -t sysfs sys $root/sys || echo "vm: cannot mount /sys"
mount -t devtmpfs dev $root/dev || echo "vm: cannot mount /dev"
# Scratch space on tmpfs: /run (and /var/tmp). The host's /tmp stays visible, read-only like the
# rest: a checkout there (a CI's clone) holds the binaries the guest runs.
for dir in run var/tmp; do mount -t tmpfs tmpfs "$root/$dir" || echo "vm: cannot mount /$dir"; done
cp /control-loop.sh $root/run/control-loop.sh
echo "vm: host mounted; kernel $(uname -r)"
exec chroot $root /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/run SWIFT_BACKTRACE=enable=no /bin/sh -c '
  # splashd.gpu=later on the command line: the test loads the driver itself (a late GPU).
  grep -q splashd.gpu=later /proc/cmdline || { modprobe virtio-gpu && echo "vm: virtio-gpu loaded"; }
  # The virtual tablet and keyboard (/dev/input/event*), known to udev as on any device:
  # libinput takes only devices udev has initialised.
  mkdir -p /run/t
  modprobe -a virtio_input evdev 2>/dev/null
  # splashd.udev=no: no udevd, as in an initramfs before udev runs (the renderer hears the kernel).
  if grep -q splashd.udev=no /proc/cmdline; then echo "vm: no udevd"; else
  /lib/systemd/systemd-udevd --daemon 2>/dev/null && udevadm trigger --action=add --subsystem-match=input 2>/dev/null &&
    udevadm settle --timeout=240 2>/dev/null && echo "vm: udev settled" || echo "vm: udev did not settle"
  fi
  sh /run/control-loop.sh
  poweroff -f
'
