"""`make bench-boot`: splashd-kms against Plymouth on the same virtual GPU (docs/benchmarks.md,
"From power-on, against Plymouth"). The VM of vm.py, a fresh boot per run, three runs of each,
alternating (Plymouth first; splashd-kms without its first-frame cache, as at a first boot; with the
cache a first boot wrote; and as its unit starts it, splashd-kms-first-frame showing that cache
before it becomes splashd-kms). Each run measures, from outside the program (boot_probe.py): program
start to its first frame on every output, its resident memory while showing, and its CPU ticks and
wake-ups over 5 s once shown.

Plymouth is Debian 12's plymouthd with its DRM renderer and the two-step plugin: the packages are
downloaded (apt-get download) and unpacked under .build/bench-boot, never installed on this
machine; the guest lays them over its own /usr and /etc with overlay mounts (for both programs,
so both read through the same file systems). Its theme is Debian's spinner on the reference
theme's background (#0D7377). splashd-kms draws the reference theme with splashd already
answering. The binaries of SPLASHD_BIN_DIR (make bench-boot uses the shipping build's)."""

import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
from processes import BIN, ROOT  # noqa: E402
import vm  # noqa: E402
from test_kms import THEME, add_plugin, config, until  # noqa: E402

PACKAGES = ["plymouth", "libplymouth5", "plymouth-themes", "plymouth-label"]
HERE = os.path.dirname(os.path.abspath(__file__))
PLYMOUTH = os.path.join(ROOT, ".build", "bench-boot", "plymouth")
# The kernel's command line Plymouth needs for its graphical splash with a serial console.
APPEND = "splash plymouth.ignore-serial-consoles"

THEME_FILE = """[Plymouth Theme]
Name=splashd bench
Description=Debian's spinner on the reference theme's background
ModuleName=two-step

[two-step]
Font=Cantarell 12
TitleFont=Cantarell Light 30
ImageDir=/usr/share/plymouth/themes/spinner
DialogHorizontalAlignment=.5
DialogVerticalAlignment=.382
TitleHorizontalAlignment=.5
TitleVerticalAlignment=.382
HorizontalAlignment=.5
VerticalAlignment=.7
WatermarkHorizontalAlignment=.5
WatermarkVerticalAlignment=.96
Transition=none
TransitionDuration=0.0
BackgroundStartColor=0x0D7377
BackgroundEndColor=0x0D7377
ProgressBarBackgroundColor=0x606060
ProgressBarForegroundColor=0xffffff
MessageBelowAnimation=true

[boot-up]
UseEndAnimation=false
"""


def unpack_plymouth():
    """Debian's Plymouth packages unpacked under .build/bench-boot (once), with the bench's theme."""
    marker = os.path.join(PLYMOUTH, ".unpacked")
    if os.path.exists(marker):
        return
    debs = os.path.join(os.path.dirname(PLYMOUTH), "debs")
    os.makedirs(debs, exist_ok=True)
    subprocess.run(["apt-get", "download", *PACKAGES], cwd=debs, check=True, stdout=subprocess.DEVNULL)
    for deb in glob.glob(os.path.join(debs, "*.deb")):
        subprocess.run(["dpkg-deb", "-x", deb, PLYMOUTH], check=True)
    theme = os.path.join(PLYMOUTH, "usr/share/plymouth/themes/splashd-bench")
    os.makedirs(theme, exist_ok=True)
    with open(os.path.join(theme, "splashd-bench.plymouth"), "w") as f:
        f.write(THEME_FILE)
    with open(os.path.join(PLYMOUTH, "etc/plymouth/plymouthd.conf"), "w") as f:
        f.write("[Daemon]\nTheme=splashd-bench\nShowDelay=0\nDeviceTimeout=8\n")
    open(marker, "w").close()


def guest(machine, command, timeout=600):
    """Runs `command` in the guest; its output (a file read back over the console)."""
    status = machine.run(f"({command}) > /run/t/bench.out 2>&1", timeout=timeout)
    marker = f"-- {time.monotonic_ns()} --"
    machine.run(f"echo '{marker}' > /dev/ttyS0; cat /run/t/bench.out > /dev/ttyS0; echo '{marker}' > /dev/ttyS0")
    end = time.monotonic() + 10
    while time.monotonic() < end and machine.console_text().count(marker) < 2:
        time.sleep(0.05)
    text = machine.console_text().split(marker)[1].strip() if machine.console_text().count(marker) >= 2 else ""
    assert status == 0, f"{command} failed ({status}):\n{text}"
    return text


CACHE = os.path.join(os.path.dirname(PLYMOUTH), "cache")


def one_run(program):
    """One VM, one program: "plymouth", "kms" (no first-frame cache: a first boot),
    "kms-cached" (the cache a first boot wrote, in CACHE: every later boot) or "kms-first-frame"
    (that cache shown by splashd-kms-first-frame, which then becomes splashd-kms: the unit's way)."""
    with vm.VM(append=APPEND, shares={"cache": CACHE}) as machine:
        # Plymouth finds the GPU through udev, as on a real boot: the DRM devices known to udev.
        assert machine.run("udevadm trigger --action=add --subsystem-match=drm && udevadm settle --timeout=240") == 0
        for directory in ["/usr/lib/x86_64-linux-gnu", "/usr/share", "/etc"]:
            assert machine.run(f"mount -t overlay overlay -o lowerdir={PLYMOUTH}{directory}:{directory} {directory}") == 0
        if program == "plymouth":
            line = f"python3 {HERE}/boot_probe.py plymouth {PLYMOUTH}"
        else:
            # A launch held in `loading` (the hold plugin) with no indicator: the still splash.
            add_plugin(machine, "hold")
            text = config("/run/t/splashd.toml", slow_after="10m", timeout="10m")
            text = text.replace(" > /run/t/splashd.toml", " '' '[[step]]' 'id = \"hold\"' 'plugin = \"hold\"' > /run/t/splashd.toml")
            assert machine.run(text) == 0
            assert machine.run(f"{BIN}/splashd --config /run/t/splashd.toml --plugin-dir /run/t/plugins --socket /run/t/s.sock --state-dir /run/t/state "
                               "--log-format text >/run/t/splashd.log 2>&1 &") == 0
            until(machine, "[ -S /run/t/s.sock ]", "splashd listening in the guest")
            assert machine.run("mkdir -p /run/t/cache && mount -t 9p -o trans=virtio,version=9p2000.L cache /run/t/cache") == 0
            # The same arguments for both cached runs: the index answers only for those it was written for.
            cache = "--cache-dir /run/t/cache" if program != "kms" else ""
            line = f"python3 {HERE}/boot_probe.py {'kms-first-frame' if program == 'kms-first-frame' else 'kms'} {BIN} {THEME} /run/t/s.sock {cache}"
        result = json.loads(guest(machine, line).splitlines()[-1])
        # When the picture is whole: Plymouth's first frame is (the spinner on the background), and
        # so is splashd-kms's from the cache (the theme's still view); without the cache, its
        # entry ends, then it stands still ("settled").
        result["whole"] = result["settled"]
        if program == "plymouth":
            result["whole"] = result["settled"] = result["first_frame"]
        if program != "plymouth":
            result["own_word"] = guest(machine, "grep 'first frame' /run/t/kms.log").split("splashd-kms: ")[-1]
            if program == "kms-first-frame":
                result["helper_word"] = guest(machine, "grep 'first frame from the cache' /run/t/kms.log || true").strip()
            # The cache's picture is the theme's still view: the picture is whole at once.
            if "first frames from the cache (" in result["own_word"] or ": the first frame from the cache, " in result.get("helper_word", ""):
                result["whole"] = result["first_frame"]
        return result


def spread(values, unit, digits):
    values = [v for v in values if v is not None]
    if not values:
        return "none"
    return f"{statistics.median(values):.{digits}f} {unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def main():
    unpack_plymouth()
    print(f"splashd-kms from {BIN}; Plymouth from {PLYMOUTH}")
    names = ("kms", "kms-cached", "kms-first-frame", "plymouth")
    runs = {name: [] for name in names}
    # BENCH_BOOT_PROGRAMS="plymouth kms": a build without the cache (an older one, to compare).
    programs = os.environ.get("BENCH_BOOT_PROGRAMS", "plymouth kms kms-cached kms-first-frame").split()
    shutil.rmtree(CACHE, ignore_errors=True)
    os.makedirs(CACHE)
    if "kms-cached" in programs or "kms-first-frame" in programs:
        # The first-frame cache a first boot writes (once the splash stands still), for the later boots.
        one_run("kms-cached")
        print(f"first-frame cache: {sorted(os.listdir(CACHE))}")
    for run in range(int(os.environ.get("BENCH_BOOT_RUNS", "3"))):
        for program in programs:
            started = time.monotonic()
            result = one_run(program)
            runs[program].append(result)
            print(f"run {run + 1} {program}: {json.dumps(result)} ({time.monotonic() - started:.0f} s)", flush=True)
    print()
    print("| | splashd-kms, first boot | splashd-kms, cached | splashd-kms-first-frame, cached | Plymouth | ratio (first-frame) |")
    print("|---|---|---|---|---|---|")
    rows = [("program start → first frame on every output", "first_frame", 1, "s", 2),
            ("program start → the picture whole", "whole", 1, "s", 2),
            ("program start → standing still (memory given back)", "settled", 1, "s", 2),
            ("RSS while showing", "rss_kb", 1 / 1024, "MB", 1),
            ("  of it anonymous", "anon_kb", 1 / 1024, "MB", 1),
            ("  of it files", "file_kb", 1 / 1024, "MB", 1),
            ("peak RSS", "peak_kb", 1 / 1024, "MB", 1),
            ("CPU over 5 s once shown (ticks)", "ticks", 1, "", 0),
            ("wake-ups over 5 s once shown", "wakeups", 1, "", 0)]
    for title, key, scale, unit, digits in rows:
        k, c, f, p = ([r.get(key) * scale if r.get(key) is not None else None for r in runs[name]] for name in names)
        fm, pm = [statistics.median([v for v in xs if v is not None] or [0]) for xs in (f, p)]
        ratio = f"{fm / pm:.2f}×" if pm else "—"
        print(f"| {title} | {spread(k, unit, digits)} | {spread(c, unit, digits)} | {spread(f, unit, digits)} | {spread(p, unit, digits)} | {ratio} |")


if __name__ == "__main__":
    main()
