"""The guest's half of `make bench-boot` (bench_boot.py): starts one splash program on the VM's
DRM device and measures it the same way, whichever it is, from outside the program.

    boot_probe.py plymouth ROOT            Debian's plymouthd from ROOT (the unpacked packages)
    boot_probe.py kms BIN THEME SOCKET [ARG...]
                                           the build's splashd-kms (splashd answers on SOCKET),
                                           with ARGs (--cache-dir DIR)

The first frame is read from the kernel, not from the program: the atomic state in debugfs
(/sys/kernel/debug/dri/0/state) names, for every plane, the process that made the framebuffer it
scans out ("allocated by"). The program's first frame on every output is the first poll (every
10 ms) at which each connected output's CRTC scans out a framebuffer the program made. Then, once
it is drawn in full (below), its resident memory (VmRSS, VmHWM, and its anonymous and file
parts), and its CPU ticks and wake-ups over the next 5 s.
Prints one JSON object.
"""

import glob
import json
import os
import subprocess
import sys
import time

STATE = "/sys/kernel/debug/dri/0/state"


def boottime():
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def connected_outputs():
    count = 0
    for status in glob.glob("/sys/class/drm/card0-*/status"):
        with open(status) as f:
            count += f.read().strip() == "connected"
    return count


def crtcs_showing(comms):
    """The CRTCs whose planes scan out a framebuffer that one of `comms` made (a process's name as
    the kernel keeps it: 15 characters at most)."""
    with open(STATE) as f:
        text = f.read()
    crtcs, crtc, in_plane = set(), None, False
    for line in text.splitlines():
        stripped = line.strip()
        if not line.startswith(("\t", " ")):
            in_plane, crtc = line.startswith("plane["), None
        elif in_plane and stripped.startswith("crtc="):
            crtc = stripped[len("crtc="):]
        elif in_plane and stripped.startswith("allocated by = ") and stripped[len("allocated by = "):] in comms \
                and crtc and crtc != "(null)":
            crtcs.add(crtc)
    return crtcs


def status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            fields[name] = value.split()[0] if value.split() else ""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read().rsplit(")", 1)[1].split()
    return fields, int(stat[11]) + int(stat[12])


def main():
    if not os.path.exists(STATE):
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"], check=True)
    outputs = connected_outputs()
    kind = sys.argv[1]
    if kind == "plymouth":
        root = sys.argv[2]
        comms = ("plymouthd",)
        os.makedirs("/run/plymouth", exist_ok=True)
        start = boottime()
        # As Debian's initramfs script starts it (scripts/init-premount/plymouth), but in the
        # foreground, so its PID is the daemon's, and without --attach-to-session (the console's
        # log, which needs /dev/pts, absent from the guest); then the splash is asked for at once.
        program = subprocess.Popen([f"{root}/usr/sbin/plymouthd", "--mode=boot", "--no-daemon",
                                    "--pid-file=/run/plymouth/pid", *os.environ.get("PLYMOUTH_DEBUG", "").split()], stdout=subprocess.DEVNULL, stderr=open("/run/t/plymouthd.log", "w"))
        client = f"{root}/usr/bin/plymouth"
        while subprocess.run([client, "--ping"]).returncode != 0:
            if program.poll() is not None:
                sys.exit(f"plymouthd exited with status {program.returncode}")
            time.sleep(0.01)
        subprocess.run([client, "show-splash"], check=True)
    else:
        bin_dir, theme, socket = sys.argv[2:5]
        # "kms-first-frame": as the unit starts it, splashd-kms-first-frame showing the cache,
        # then becoming splashd-kms (the same process: its frames count as the program's).
        comms = ("splashd-kms", "splashd-kms-fir")
        helper = [f"{bin_dir}/splashd-kms-first-frame"] if kind == "kms-first-frame" else []
        start = boottime()
        program = subprocess.Popen(helper + [f"{bin_dir}/splashd-kms", "--socket", socket, "--theme", theme, *sys.argv[5:]],
                                   stdout=open("/run/t/kms.log", "w"), stderr=subprocess.STDOUT)
    first = None
    end = start + 120
    while boottime() < end and program.poll() is None:
        if len(crtcs_showing(comms)) >= outputs:
            first = boottime() - start
            break
        time.sleep(0.01)
    result = {"program": kind, "outputs": outputs, "first_frame": first}
    if first is not None:
        # Once the splash is drawn in full: splashd-kms says when it stands still (its entry
        # over; at most a minute here); Plymouth's spinner turns for as long as it shows, and its
        # memory is flat from its first second: 3 s after its first frame.
        settled = first + 3
        if kind != "plymouth":
            while boottime() < start + 60 and "stands still" not in open("/run/t/kms.log").read():
                time.sleep(0.05)
            settled = boottime() - start
        time.sleep(max(0.0, start + settled - boottime()))
        result["settled"] = settled
        before, ticks_before = status(program.pid)
        time.sleep(5)
        after, ticks_after = status(program.pid)
        result.update(rss_kb=int(before["VmRSS"]), peak_kb=int(before["VmHWM"]),
                      anon_kb=int(before["RssAnon"]), file_kb=int(before["RssFile"]),
                      ticks=ticks_after - ticks_before,
                      wakeups=int(after["voluntary_ctxt_switches"]) - int(before["voluntary_ctxt_switches"]))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
