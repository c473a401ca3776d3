"""What the Python tests and benchmarks read of a process in /proc: its CPU time, resident memory
and wake-ups. (The guest's probes in Tests/vm read the same fields inside the VM, where this file
is not.)"""

from __future__ import annotations

import os


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_kb(pid: int, field: str) -> int:
    """A field of /proc/PID/status in kB (VmRSS, VmHWM, RssAnon, RssFile)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise AssertionError(f"/proc/{pid}/status has no {field}")


def rss_bytes(pid: int) -> int:
    return status_kb(pid, "VmRSS") * 1024


def switches(pid: int) -> int:
    """Every thread's voluntary and involuntary context switches: each is a wake-up."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
    return total
