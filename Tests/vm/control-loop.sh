#!/bin/sh
# The guest's answer to the test (vm.py): the shell lines the test sends on the control port (the
# second serial port, /dev/ttyS1; on arm64's virt machine the virtio console /dev/hvc0, named by
# splashd.control=hvc0 on the kernel's command line), each run in turn, answered "done STATUS".
# guest-init.sh runs it without systemd; vm-control.service runs it under systemd
# (test_kms_systemd.py).
#
# The port stays open from here on (descriptor 9, never read): a tty flushes its input when its
# last descriptor closes, and the first line of the test may already be on its way.
port=/dev/ttyS1
for word in $(cat /proc/cmdline); do
  case $word in splashd.control=*) port=/dev/${word#splashd.control=} ;; esac
done
exec 9<$port
stty -F $port raw -echo
echo "vm: ready" >$port
while IFS= read -r line; do
  sh -c "$line" </dev/null >>/run/vm-commands.log 2>&1 9<&-
  echo "done $?" >$port
done <$port
