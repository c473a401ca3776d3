"""`make bench-kms`: the native renderer's figures in the VM (docs/benchmarks.md, "The native
renderer in a virtual machine"): from its start to the first frame on the outputs, beside the
kernel's boot time in the same run; its resident memory while it shows the splash; and its
wake-ups while nothing moves (context switches over 10 s, and its CPU time). The binaries of
SPLASHD_BIN_DIR (make bench-kms builds release ones)."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
from processes import BIN, ROOT  # noqa: E402
import vm  # noqa: E402
from test_kms import start, wait_screen, logo_and_text_drawn, THEME  # noqa: E402


def guest(machine, command):
    """Runs `command` in the guest; its output (through a file read back over the console)."""
    assert machine.run(f"({command}) > /run/t/bench.out 2>&1") == 0, command
    marker = f"-- {time.monotonic_ns()} --"
    machine.run(f"echo '{marker}' > /dev/ttyS0; cat /run/t/bench.out > /dev/ttyS0; echo '{marker}' > /dev/ttyS0")
    end = time.monotonic() + 10
    while time.monotonic() < end:
        text = machine.console_text()
        if text.count(marker) >= 2:
            return text.split(marker)[1].strip()
        time.sleep(0.05)
    return ""


def main():
    print(f"splashd-kms from {BIN}")
    for run in range(3):
        with vm.VM() as machine:
            start(machine, {"slow_after": "10m", "timeout": "10m"})
            wait_screen(machine, 0, logo_and_text_drawn, "the reference splash")
            time.sleep(1)  # the entry is over: nothing moves from here
            first = guest(machine, "grep 'first frame' /run/t/kms.log")
            pid = guest(machine, "pgrep -x splashd-kms")
            before = guest(machine, f"grep -E 'VmRSS|VmHWM|voluntary_ctxt' /proc/{pid}/status; cat /proc/{pid}/stat")
            time.sleep(10)
            after = guest(machine, f"grep -E 'VmRSS|voluntary_ctxt' /proc/{pid}/status; cat /proc/{pid}/stat")

            def field(text, name):
                m = re.search(rf"^{name}:\s+(\d+)", text, re.M)
                return int(m.group(1)) if m else None

            def cpu_ticks(text):
                stat = text.strip().splitlines()[-1]
                fields = stat.rsplit(")", 1)[1].split()
                return int(fields[11]) + int(fields[12])  # utime + stime

            switches = [(field(after, n) or 0) - (field(before, n) or 0)
                        for n in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")]
            print(f"run {run + 1}: {first.split('splashd-kms: ')[-1]}")
            print(f"  RSS while showing the splash: {field(before, 'VmRSS')} kB (peak {field(before, 'VmHWM')} kB)")
            print(f"  over 10 s with nothing moving: {switches[0]} voluntary and {switches[1]} involuntary context switches, "
                  f"{cpu_ticks(after) - cpu_ticks(before)} ticks of CPU")


if __name__ == "__main__":
    main()
