#!/bin/sh
# The real root's init for the initramfs test (init= on the kernel's command line): initramfs-tools
# has moved /dev, /proc, /sys and /run into this root; the test's commands come on the second
# serial port (control-loop.sh), and the renderer the initramfs started is still drawing.
mount -t tmpfs tmpfs /var/tmp
mkdir -p /run/t
cp "$(dirname "$0")/control-loop.sh" /run/control-loop.sh
echo "vm: real root; kernel $(uname -r)"
exec /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/run SWIFT_BACKTRACE=enable=no /bin/sh /run/control-loop.sh
