"""`make bench-kms`: the native renderer's figures in the VM (docs/benchmarks.md, "The native
renderer in a virtual machine"): from its start to the first frame on the outputs, beside the
kernel's boot time in the same run; its resident memory while it shows the splash; and its
wake-ups while nothing moves (context switches over 10 s, and its CPU time). Then its life after
the hand-off: wake-ups, CPU and memory while the app runs; the app's death to the splash on both
outputs; the cost of waiting for a hung app's master. The binaries of SPLASHD_BIN_DIR (make
bench-kms builds release ones)."""

import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
from processes import BIN, ROOT  # noqa: E402
import vm  # noqa: E402
from test_kms import start, wait_screen, logo_and_text_drawn, build_app, start_app, until, THEME, Screen  # noqa: E402


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


def field(text, name):
    m = re.search(rf"^{name}:\s+(\d+)", text, re.M)
    return int(m.group(1)) if m else None


def cpu_ticks(text):
    stat = text.strip().splitlines()[-1]
    fields = stat.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def over_10s(machine, pid):
    """The process's voluntary context switches (wake-ups) and CPU ticks over 10 s, and its RSS."""
    probe = f"grep -E 'VmRSS|voluntary_ctxt' /proc/{pid}/status; cat /proc/{pid}/stat"
    before = guest(machine, probe)
    time.sleep(10)
    after = guest(machine, probe)
    return (field(after, "voluntary_ctxt_switches") - field(before, "voluntary_ctxt_switches"),
            cpu_ticks(after) - cpu_ticks(before), field(after, "VmRSS"))


def log_time(line):
    """The instant (s, UTC) of a text log line's timestamp: 2026-11-28T07:50:01.123Z ..."""
    import datetime
    stamp = line.split()[0]
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()


def app_life(run):
    """After the hand-off: the renderer while the app runs, the app's death to the splash, and
    the wait for a hung app's master."""
    app = build_app()
    with vm.VM() as machine:
        start(machine, {"exit_animation": "10m"}, kms_args="--display-lock /run/t/display.lock")
        wait_screen(machine, 0, logo_and_text_drawn, "the reference splash")
        start_app(machine, app, "ff00ff", "/run/t/app1.log")
        assert machine.run("touch /run/t/go") == 0
        until(machine, "grep -q 'the app has the display' /run/t/kms.log", "the hand-off")
        pid = guest(machine, "pgrep -x splashd-kms")
        time.sleep(1)
        wakeups, ticks, rss = over_10s(machine, pid)
        print(f"run {run + 1}: while the app runs, over 10 s: {wakeups} wake-ups, {ticks} ticks of CPU; RSS {rss} kB")
        # The app dies and a launch begins at once (splashd's watch does the same on a real death).
        killed = guest(machine, "rm /run/t/go; date +%s.%N; kill -9 $(cat /run/t/app1.log.pid); "
                                f"{BIN}/splashctl --socket /run/t/s.sock relaunch")
        host_killed = time.monotonic()
        wait_screen(machine, 0, logo_and_text_drawn, "the splash back")
        wait_screen(machine, 1, logo_and_text_drawn, "the splash back")
        host = time.monotonic() - host_killed
        until(machine, "grep -q 'the splash is back' /run/t/kms.log", "the renderer's word")
        back = guest(machine, "grep 'the splash is back' /run/t/kms.log | tail -1")
        print(f"  app killed -> the splash on both outputs: {log_time(back) - float(killed.split()[0]):.3f} s by the guest's "
              f"clock (its log), {host:.2f} s seen from outside (screendumps)")
        # A hung app: a launch while it still holds master.
        start_app(machine, app, "ffff00", "/run/t/app2.log")
        assert machine.run("touch /run/t/go") == 0
        until(machine, "[ $(grep -c 'the app has the display' /run/t/kms.log) -ge 2 ]", "the second hand-off")
        assert machine.run(f"rm /run/t/go && {BIN}/splashctl --socket /run/t/s.sock relaunch") == 0
        until(machine, "grep -q 'still has the display' /run/t/kms.log", "the wait for master")
        wakeups, ticks, rss = over_10s(machine, pid)
        print(f"  waiting for a hung app's master, over 10 s: {wakeups} wake-ups, {ticks} ticks of CPU; RSS {rss} kB")
        killed = guest(machine, "date +%s.%N; kill -9 $(cat /run/t/app2.log.pid)")
        until(machine, "[ $(grep -c 'the splash is back' /run/t/kms.log) -ge 2 ]", "the splash after the hung app")
        back = guest(machine, "grep 'the splash is back' /run/t/kms.log | tail -1")
        print(f"  hung app killed -> the splash on both outputs: {log_time(back) - float(killed.split()[0]):.3f} s by the guest's clock")
        assert Screen(*machine.screendump(1)) is not None


def main():
    print(f"splashd-kms from {BIN}")
    if os.environ.get("BENCH_KMS") != "life":
        first_frames()
    for run in range(3):
        app_life(run)


def first_frames():
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

            switches = [(field(after, n) or 0) - (field(before, n) or 0)
                        for n in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")]
            print(f"run {run + 1}: {first.split('splashd-kms: ')[-1]}")
            print(f"  RSS while showing the splash: {field(before, 'VmRSS')} kB (peak {field(before, 'VmHWM')} kB)")
            print(f"  over 10 s with nothing moving: {switches[0]} voluntary and {switches[1]} involuntary context switches, "
                  f"{cpu_ticks(after) - cpu_ticks(before)} ticks of CPU")


if __name__ == "__main__":
    main()
