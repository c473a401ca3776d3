#!/bin/sh
# The guest's answer to the test (vm.py): the shell lines the test sends on the second serial
# port (/dev/ttyS1), each run in turn, answered "done STATUS". guest-init.sh runs it without
# systemd; vm-control.service runs it under systemd (test_kms_systemd.py).
#
# The port stays open from here on (descriptor 9, never read): a tty flushes its input when its
# last descriptor closes, and the first line of the test may already be on its way.
exec 9</dev/ttyS1
stty -F /dev/ttyS1 raw -echo
echo "vm: ready" >/dev/ttyS1
while IFS= read -r line; do
  sh -c "$line" </dev/null >>/run/vm-commands.log 2>&1 9<&-
  echo "done $?" >/dev/ttyS1
done </dev/ttyS1
