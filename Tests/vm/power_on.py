"""From power-on to the app, as a person sees it (design §16; docs/power-on.md): a filmstrip of
the VM's two outputs from QEMU's start to the app's first frame, for three systems as they ship.

    python3 Tests/vm/power_on.py [SYSTEM...]     (make bench-power-on: three boots each, a table)

The VM is vm.py's: Debian's UEFI firmware (OVMF, which shows its logo and publishes it as ACPI's
BGRT), Debian 12's kernel, the virtio GPU with two outputs. Its root is an image: this machine's
root file system under a tmpfs overlay in a private mount namespace (as test_kms_systemd.py makes
it), the packages installed with dpkg in a chroot, and an initramfs made in that chroot by Debian's
initramfs-tools with every installed hook (`mkinitramfs`, MODULES=most as Debian ships it). The
initramfs finds the root the VM's way (Tests/vm/initramfs-boot.sh, `boot=splashdtest`: the image
over 9p under a tmpfs overlay, where a device would mount its disk); then systemd is PID 1.
The kernel's command line is the same for all: `quiet splash vt.global_cursor_default=0` (a
quiet boot as docs/renderer-kms.md asks for one), and `plymouth.ignore-serial-consoles` (the VM's
console is a serial port, which would turn Plymouth's graphics off).

- "plymouth": Debian 12's plymouth, plymouth-themes, plymouth-label (downloaded with apt-get
  download into .build/power-on/debs), its initramfs-tools hook and boot scripts, its units; its
  theme is Debian's spinner (two-step) on the reference theme's background (bench_boot.py's).
  The app's unit takes the display as GDM does: `plymouth deactivate`, the app becomes DRM master
  and paints, then `plymouth quit --retain-splash`.
- "splashd-initramfs": the packages of $SPLASHD_DIST (splashd, splashd-kms, splashd-themes) with
  the splashd-kms hook on (/etc/splashd/initramfs.conf: SPLASH=yes, DRM_MODULES="virtio-gpu",
  the VM's GPU, which the chroot cannot see), their units, the packaged configuration with `[app]`
  naming the app's unit and its first-frame step; the theme is the reference theme with
  `logo = "firmware"`.
- "splashd-units": the same without the hook (SPLASH=no): splashd-kms.service from the real root.

For splashd, a boot without the first-frame cache (`cache=False`: a first boot) or with the cache
a first boot wrote (copied out of the guest into .build/power-on/cache-SYSTEM, then into the
image's /var/cache/splashd-kms).

Both outputs are captured with QMP's screendump about every 50 ms (each capture's time on this
machine's monotonic clock from QEMU's start), reduced and classified by frames.py, until the app's
first frame shows on both. Then the guest says (over its control port) the renderer's resident
memory, sampled every 0.2 s while it ran (vm-rss, a unit started first thing).
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import frames  # noqa: E402
import vm  # noqa: E402
from bench_boot import THEME_FILE  # noqa: E402
from test_kms_systemd import CONTROL_UNIT, private_mount_namespace, write  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "power-on")
SYSTEMS = ("plymouth", "splashd-initramfs", "splashd-units")
PLYMOUTH_PACKAGES = ["plymouth", "libplymouth5", "plymouth-themes", "plymouth-label", "fonts-cantarell"]
# With `quiet splash` (FilmedVM puts them first) as a quiet boot has it, and no cursor on the text
# console (docs/renderer-kms.md: `vt.global_cursor_default=0`; Plymouth hides it itself once it
# shows).
APPEND = "boot=splashdtest splashd.nohold init=/lib/systemd/systemd vt.global_cursor_default=0 plymouth.ignore-serial-consoles"
# The test app's colour (Tests/vm/app.c paints it): magenta.
APP_COLOUR = "ff00ff"
# A bound against a hang, not a time anything must keep: the guest is emulated.
PATIENCE = int(os.environ.get("POWER_ON_PATIENCE", "600"))
INTERVAL = 0.05

# Plymouth's theme: `make bench-boot`'s, Debian's spinner on the reference theme's background.
PLYMOUTH_THEME = THEME_FILE

# The boot's target (systemd.unit=, vm.py's SYSTEMD_ARGS): what a kiosk's multi-user.target would
# pull in for the splash and the app, and the test's control port; nothing of this machine's own.
TARGET = """[Unit]
Description=The VM's boot from power-on: the splash, the app, the control port
Requires=basic.target
After=basic.target
Wants={wants} vm-control.service vm-rss.service
"""


# The renderer's resident memory every 0.2 s while it runs (plymouthd; splashd-kms, also as the
# first-frame helper it starts as): "uptime comm pid VmRSS VmHWM" lines, shell builtins only.
RSS_UNIT = """[Unit]
Description=The renderer's memory, sampled
DefaultDependencies=no

[Service]
ExecStart=/bin/sh /usr/local/sbin/vm-rss
"""
RSS = r"""#!/bin/sh
while :; do
  read -r up _ </proc/uptime
  for comm in /proc/[0-9]*/comm; do
    read -r name <"$comm" 2>/dev/null || continue
    case $name in
      plymouthd|splashd-kms|splashd-kms-fir)
        dir=${comm%/comm} rss= hwm=
        while read -r key value _; do
          case $key in VmRSS:) rss=$value ;; VmHWM:) hwm=$value ;; esac
        done <"$dir/status"
        echo "$up $name ${dir#/proc/} $rss $hwm" ;;
    esac
  done
  sleep 0.2
done >/run/vm-rss.log 2>/dev/null
"""

SPLASHD_APP_UNIT = """[Unit]
Description=The VM's kiosk app (behind splashd-kms)
StartLimitIntervalSec=0
Wants=splashd.service splashd-kms-handoff.service
After=splashd.socket splashd-kms-handoff.service

[Service]
Environment=APP_NOW=1
ExecStartPre=/usr/bin/splashd-kms wait
ExecStart=/usr/local/bin/vm-app {colour} 'splashctl complete first-frame'
Restart=no
"""

# As GDM takes the display from Plymouth: deactivate (Plymouth lets DRM master go and leaves its
# frame), the app becomes master (app.c retries until it is free) and paints, then quit with the
# splash retained.
PLYMOUTH_APP_UNIT = """[Unit]
Description=The VM's kiosk app (behind Plymouth)
After=plymouth-start.service

[Service]
ExecStartPre=-/usr/bin/plymouth deactivate
ExecStart=/usr/local/bin/vm-app {colour} '/usr/bin/plymouth quit --retain-splash'
Restart=no
"""

SPLASHD_CONFIG = """
[app]
unit = "vm-kiosk.service"

# The app's first frame ends the launch (the app says so: splashctl complete first-frame).
[[step]]
id = "first-frame"
plugin = "signal"
timeout = "10m"
"""


def plymouth_debs():
    """Debian's Plymouth packages (downloaded once into .build/power-on/debs)."""
    debs = os.path.join(WORK, "debs")
    os.makedirs(debs, exist_ok=True)
    if len(glob.glob(os.path.join(debs, "*.deb"))) < len(PLYMOUTH_PACKAGES):
        subprocess.run(["apt-get", "download", *PLYMOUTH_PACKAGES], cwd=debs, check=True, stdout=subprocess.DEVNULL)
    return sorted(glob.glob(os.path.join(debs, "*.deb")))


def splashd_debs(dist):
    debs = [p for name in ("splashd", "splashd-kms", "splashd-themes") for p in glob.glob(os.path.join(dist, f"{name}_*_*.deb"))]
    assert len(debs) == 3, f"splashd, splashd-kms and splashd-themes in {dist}: {debs}"
    return debs


def build_app():
    app = os.path.join(WORK, "vm-app")
    os.makedirs(WORK, exist_ok=True)
    subprocess.run(["cc", "-O2", "-Wall", "-I/usr/include/libdrm", "-o", app, os.path.join(HERE, "app.c"), "-ldrm"], check=True)
    return app


def chroot(root, command, what):
    done = subprocess.run(["chroot", root, "sh", "-c", command], capture_output=True, text=True)
    assert done.returncode == 0, f"{what}: {done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


@contextlib.contextmanager
def image(system, dist=None):
    """The guest's root for `system` and its initramfs: {"root", "initrd", ...}, in this
    process's private mount namespace (private_mount_namespace() first)."""
    work = tempfile.mkdtemp(prefix=f"splashd-power-on-{system}.")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755,size=3g", "splashd-power-on", work], check=True)
    try:
        for d in ("upper", "ovlwork", "root"):
            os.makedirs(os.path.join(work, d))
        root = os.path.join(work, "root")
        subprocess.run(["mount", "-t", "overlay", "splashd-power-on", "-o",
                        f"lowerdir=/,upperdir={work}/upper,workdir={work}/ovlwork", root], check=True)
        # The host's /tmp is not the guest's (systemd-tmpfiles would empty it at boot, over 9p).
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=1777", "splashd-power-on-tmp", os.path.join(root, "tmp")], check=True)
        # The initramfs is made once, below, for the VM's kernel only (not by dpkg's triggers).
        write(root, "/etc/initramfs-tools/update-initramfs.conf", "update_initramfs=no\nbackup_initramfs=no\n")
        debs = plymouth_debs() if system == "plymouth" else splashd_debs(dist)
        os.makedirs(os.path.join(root, "var/tmp/debs"), exist_ok=True)
        for deb in debs:
            shutil.copy(deb, os.path.join(root, "var/tmp/debs"))
        subprocess.run(["mount", "-t", "proc", "proc", os.path.join(root, "proc")], check=True)
        try:
            chroot(root, "dpkg -i /var/tmp/debs/*.deb", "dpkg -i")
            if system == "plymouth":
                write(root, "/usr/share/plymouth/themes/splashd-power-on/splashd-power-on.plymouth", PLYMOUTH_THEME)
                chroot(root, "plymouth-set-default-theme splashd-power-on", "plymouth-set-default-theme")
                # (A look at why: POWER_ON_PLYMOUTH_DEVICE_TIMEOUT=N for another DeviceTimeout than
                # Debian's 8 s.)
                if os.environ.get("POWER_ON_PLYMOUTH_DEVICE_TIMEOUT"):
                    with open(os.path.join(root, "etc/plymouth/plymouthd.conf"), "a") as f:
                        f.write(f"DeviceTimeout={os.environ['POWER_ON_PLYMOUTH_DEVICE_TIMEOUT']}\n")
                app_unit, wants = PLYMOUTH_APP_UNIT, "vm-kiosk.service"
            else:
                shutil.copytree(os.path.join(ROOT, "renderer/themes/reference"), os.path.join(root, "etc/splashd/theme"))
                theme = os.path.join(root, "etc/splashd/theme/theme.toml")
                text = open(theme).read()
                assert "\nlogo = " in text
                # (POWER_ON_LOGO_FALLBACK=none: no fallback logo, so no librsvg, libxml2 or ICU's
                # data in the hook's initramfs; docs/power-on.md, "The renderer before udev".)
                fallback = os.environ.get("POWER_ON_LOGO_FALLBACK", "logo.svg")
                logo = 'logo = "firmware"' + ("" if fallback == "none" else f'\nlogo_fallback = "{fallback}"')
                lines = [(logo if line.startswith("logo = ") else line) for line in text.splitlines()]
                open(theme, "w").write("\n".join(lines) + "\n")
                config = os.path.join(root, "etc/splashd/splashd.toml")
                text = open(config).read()
                # (The guest is emulated: far beyond any honest launch's time.)
                assert "\n[splash]\n" in text
                open(config, "w").write(text.replace("\n[splash]\n", '\n[splash]\ntimeout = "10m"\n', 1) + SPLASHD_CONFIG)
                splash = "yes" if system == "splashd-initramfs" else "no"
                write(root, "/etc/splashd/initramfs.conf", f'SPLASH={splash}\nDRM_MODULES="virtio-gpu"\n')
                app_unit, wants = SPLASHD_APP_UNIT, "splashd-finished.service polkit.service"
            shutil.copy(build_app(), os.path.join(root, "usr/local/bin/vm-app"))
            write(root, "/etc/systemd/system/vm-kiosk.service", app_unit.format(colour=APP_COLOUR))
            write(root, "/etc/systemd/system/vm-control.service", CONTROL_UNIT)
            write(root, "/etc/systemd/system/vm-rss.service", RSS_UNIT)
            write(root, "/usr/local/sbin/vm-rss", RSS, 0o755)
            shutil.copy(os.path.join(HERE, "control-loop.sh"), os.path.join(root, "usr/local/sbin/vm-control"))
            write(root, "/etc/systemd/system/splashd-vm.target", TARGET.format(wants=wants))
            for marker in ("/.dockerenv", "/run/.containerenv"):
                if os.path.lexists(root + marker):
                    os.remove(root + marker)
            # The VM's way to its root (in place of a disk's driver and fstab), then the initramfs,
            # made by the image's own initramfs-tools with every hook the packages installed.
            shutil.copy(os.path.join(HERE, "initramfs-boot.sh"), os.path.join(root, "etc/initramfs-tools/scripts/splashdtest"))
            with open(os.path.join(root, "etc/initramfs-tools/modules"), "a") as f:
                f.write("9pnet_virtio\n9p\noverlay\n")
            release, _ = vm.kernel("6.1")
            made = chroot(root, f"mkinitramfs -o /boot/initrd.img-power-on {release}", "mkinitramfs")
        finally:
            subprocess.run(["umount", os.path.join(root, "proc")], check=True)
        initrd = os.path.join(root, "boot/initrd.img-power-on")
        listing = subprocess.run(["lsinitramfs", initrd], capture_output=True, text=True, check=True).stdout.split()
        yield {"root": root, "initrd": initrd, "initrd_bytes": os.path.getsize(initrd), "mkinitramfs": made.strip(),
               "has_plymouthd": "usr/sbin/plymouthd" in listing, "has_splashd_kms": "usr/bin/splashd-kms" in listing,
               "splash_files": [name for name in listing if "splashd" in name or "plymouth/themes" in name]}
    finally:
        subprocess.run(["umount", "-R", work])
        os.rmdir(work)


def use_cache(root, cache):
    """The files of `cache` (a first boot's, copied out of the guest) as the image's first-frame
    cache, owned and moded as the renderer wrote them."""
    target = os.path.join(root, "var/cache/splashd-kms")
    os.makedirs(target, exist_ok=True)
    names = os.listdir(cache)
    assert names, f"no first-frame cache in {cache}: the first boot wrote none"
    for name in names:
        shutil.copy2(os.path.join(cache, name), os.path.join(target, name))


class FilmedVM(vm.VM):
    """vm.VM whose boot is filmed: both outputs captured every INTERVAL from QEMU's start until
    the app's first frame shows on both (or PATIENCE passes)."""

    def _amd64_command(self, *args):
        command = super()._amd64_command(*args)
        # `quiet splash` first on the kernel's command line: Plymouth 22 looks at the first
        # occurrence of "splash" only, and vm.py's words begin with splashd.systemd (Plymouth then
        # shows its text "details" splash: "kernel command line lacks splash").
        at = command.index("-append") + 1
        command[at] = "quiet splash " + command[at]
        self.t0 = time.monotonic()
        # (The guest's clock starts from this machine's: its logs' wall-clock times are ours.)
        self.started_utc = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f"{time.time() % 1:.3f}"[1:]
        return command

    def _watch_boot(self, marker, timeout):
        self.film = film(self)

    def _capture(self, head):
        try:
            return frames.thumbnail(self.screendump(head))
        except RuntimeError:
            return None


def film(machine, heads=(0, 1), interval=INTERVAL, patience=PATIENCE):
    """Captures until the app shows on every output: {"frames": {head: [[t, kind], ...]},
    "kept": {head: [(t, kind, thumbnail), ...]} (the first and last frame of each run)}."""
    seen = {head: [] for head in heads}
    kept = {head: [] for head in heads}
    # Each distinct splash picture (t, thumbnail), to find when the splash was first whole.
    pictures = {head: [] for head in heads}
    last = {head: None for head in heads}
    firmware = None
    apps = {head: 0 for head in heads}
    next_at = time.monotonic()
    while time.monotonic() - machine.t0 < patience and machine.process.poll() is None:
        for head in heads:
            t = time.monotonic() - machine.t0
            thumb = machine._capture(head)
            if thumb is None:
                kind = "none"
            else:
                # The firmware's picture: the first lit frame of output 0, before anything else.
                if firmware is None and head == 0 and not any(k != "black" for _, k in seen[0]) \
                        and frames.classify(thumb) not in ("black", "splash", "app"):
                    firmware = thumb
                kind = frames.classify(thumb, firmware)
            if not seen[head] or seen[head][-1][1] != kind:
                if last[head] is not None and kept[head] and kept[head][-1][:2] != last[head][:2]:
                    kept[head].append(last[head])
                kept[head].append((round(t, 3), kind, thumb))
            seen[head].append([round(t, 3), kind])
            if kind == "splash" and (not pictures[head] or pictures[head][-1][1] != thumb):
                pictures[head].append((round(t, 3), thumb))
            last[head] = (round(t, 3), kind, thumb)
            apps[head] = apps[head] + 1 if kind == "app" else 0
        # Drain the control port on the way (vm.py reads the rest).
        machine.control.setblocking(False)
        try:
            while True:
                chunk = machine.control.recv(65536)
                if not chunk:
                    break
                machine.buffer += chunk
        except (BlockingIOError, socket.timeout):
            pass
        finally:
            machine.control.setblocking(True)
        if all(apps[head] >= 2 for head in heads):
            break
        next_at += interval
        pause = next_at - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        else:
            next_at = time.monotonic()
    for head in heads:
        if last[head] is not None and kept[head][-1][:2] != last[head][:2]:
            kept[head].append(last[head])
    # The splash whole: the first of its pictures that is the last one's (the still view; a
    # spinner or the indicator's dots are less than a thousandth of the picture).
    whole = {}
    for head in heads:
        shown = pictures[head]
        whole[head] = next((t for t, thumb in shown if frames.same_picture(thumb, shown[-1][1], share=0.998)), None) \
            if shown else None
    return {"frames": seen, "kept": kept, "whole": whole}


def summary(film_result):
    """The filmstrip's numbers: per output the runs of kinds, the first frame that is neither
    the firmware's nor black (first pixel), the first splash frame, the first whole picture (the
    splash as it stands before the app, or the app), the app's first frame, and the black and
    console captures after the first picture and before the app."""
    out = {}
    for head, seen in film_result["frames"].items():
        kinds = [k for _, k in seen]
        first = lambda pred: next((t for t, k in seen if pred(k)), None)  # noqa: E731
        app_at = first(lambda k: k == "app")
        lit = first(lambda k: k not in ("black", "firmware", "none"))
        # Between the first picture (the firmware's on output 0, the splash's on the other) and
        # the app: black and console captures, and what else showed.
        start = next((i for i, k in enumerate(kinds) if k not in ("black", "none")), len(kinds))
        end = next((i for i, k in enumerate(kinds) if k == "app"), len(kinds))
        between = kinds[start:end]
        splash_at = next((i for i, k in enumerate(kinds) if k == "splash"), None)
        after_splash = kinds[splash_at:end] if splash_at is not None else []
        out[head] = {
            "runs": frames.runs(kinds),
            "first_pixel": lit, "first_splash": first(lambda k: k == "splash"),
            "first_whole": film_result["whole"][head] if film_result["whole"][head] is not None else app_at, "app": app_at,
            "black": between.count("black"), "console": between.count("console"), "mixed": between.count("mixed"),
            "longest_black": max((n for k, n in frames.runs(between) if k == "black"), default=0),
            "after_splash": sorted(set(after_splash)),
            "captures": len(kinds),
        }
    return out


def strip_rows(film_result, limit=12):
    """The kept frames per output for a filmstrip: at most `limit`, the first and last of each run
    kept while there is room."""
    rows = []
    for head in sorted(film_result["kept"]):
        kept = film_result["kept"][head]
        if len(kept) > limit:
            starts = [f for i, f in enumerate(kept) if i == 0 or kept[i - 1][1] != f[1]]
            kept = starts[:limit - 1] + [kept[-1]] if len(starts) >= limit else starts + [kept[-1]]
        rows.append(kept)
    return rows


def guest_output(machine, command, timeout=120):
    """A command's output in the guest, through the console (the control port answers status
    only)."""
    marker = f"-- {time.monotonic_ns()} --"
    machine.run(f"{{ echo '{marker}'; {command}; echo '{marker}'; }} > /dev/ttyS0 2>&1", timeout=timeout)
    end = time.monotonic() + 10
    while time.monotonic() < end and machine.console_text().count(marker) < 2:
        time.sleep(0.05)
    text = machine.console_text()
    return text.split(marker)[1].strip() if text.count(marker) >= 2 else ""


def rss(machine):
    """The renderer's resident memory while it ran, from vm-rss's samples: {comm: (median VmRSS
    KB, peak VmHWM KB)} (the first-frame helper counted as splashd-kms: the same process)."""
    samples = {}
    for line in guest_output(machine, "cat /run/vm-rss.log").splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[3].isdigit() and parts[4].isdigit():
            name = "splashd-kms" if parts[1].startswith("splashd-kms") else parts[1]
            samples.setdefault(name, []).append((int(parts[3]), int(parts[4])))
    return {name: (statistics.median(r for r, _ in values), max(h for _, h in values)) for name, values in samples.items()}


def boot(system, built, cache_out=None):
    """One boot of `built` (image()'s): the film, its summary, the renderer's memory, what the
    guest's journal says of the splash; with `cache_out`, the first-frame cache the boot wrote is
    copied there."""
    shares = {"out": cache_out} if cache_out else None
    # (POWER_ON_APPEND: more words for the kernel's command line, e.g. plymouth.debug.)
    append = f"{APPEND} {os.environ.get('POWER_ON_APPEND', '')}".strip()
    machine = FilmedVM(root=built["root"], initrd=built["initrd"], systemd=True, firmware=True, append=append, shares=shares)
    try:
        machine.start(timeout=PATIENCE)
        result = {"system": system, "summary": summary(machine.film), "film": machine.film}
        result["rss"] = rss(machine)
        if system == "plymouth":
            result["journal"] = guest_output(machine, "journalctl -b -o short-monotonic --no-pager | grep -iE 'plymouth|vm-kiosk' | tail -n 20; "
                                             "cat /etc/plymouth/plymouthd.conf; grep -iE 'drm|renderer|device|timeout|plugin|splash|text' "
                                             "/var/log/plymouth-debug.log 2>/dev/null | head -n 60")
        else:
            # (POWER_ON_JOURNAL=full: every line of those units and the hand-off's, not only the
            # splash's milestones.)
            pick = ("cat" if os.environ.get("POWER_ON_JOURNAL") == "full"
                    else "grep -E 'first frame|display|cache|stands still|launch|mode|splashd-kms-first' | head -n 30")
            result["journal"] = guest_output(machine, "journalctl -b -o short-monotonic --no-pager -u splashd-kms -u splashd -u vm-kiosk "
                                             f"-u splashd-kms-handoff -u splashd.socket | {pick}; "
                                             "echo '-- the initramfs renderer:'; cat /run/splashd-kms/initramfs.log /run/splashd-kms/new-root 2>&1 | head -n 40")
        if system != "plymouth" and any(s["app"] is None for s in result["summary"].values()):
            # No app within PATIENCE: where the renderer is (its watches: inotify's fdinfo names
            # each watched inode and device) and what systemd still waits for.
            result["stuck"] = guest_output(machine, "for pid in $(pgrep -x splashd-kms); do echo \"== $pid $(tr '\\0' ' ' < /proc/$pid/cmdline)\"; "
                                           "readlink /proc/$pid/root; cat /proc/$pid/wchan; echo; cat /proc/$pid/stack; grep -E 'State|Sig' /proc/$pid/status; "
                                           "for fd in /proc/$pid/fd/*; do echo \"$fd -> $(readlink $fd)\"; grep -h inotify /proc/$pid/fdinfo/${fd##*/}; done; done; "
                                           "stat -c '%n dev=%d ino=%i' /run /run/splashd /run/splashd/splashd.sock; grep -E ' /run | / ' /proc/self/mountinfo; "
                                           "systemctl list-jobs --no-pager | head -n 20; journalctl -b -o short-monotonic --no-pager | grep -iE 'kms|vm-kiosk' | tail -n 30")
            print(f"{system}: no app; the guest says:\n{result['stuck']}", flush=True)
        if cache_out:
            # The cache is written once the splash stands still (maybe after the hand-off).
            machine.run("end=$(( $(date +%s) + 120 )); until [ -s /var/cache/splashd-kms/first-frames ]; do"
                        " [ $(date +%s) -lt $end ] || exit 1; sleep 0.2; done", timeout=200)
            machine.run("mkdir -p /run/out && mount -t 9p -o trans=virtio,version=9p2000.L out /run/out && "
                        "cp -p /var/cache/splashd-kms/* /run/out/ && umount /run/out")
        if system == "splashd-initramfs":
            # The initramfs's renderer, moved into the real root, is the one that shows the splash.
            result["carried_over"] = machine.run(
                "pid=$(cat /run/splashd-kms/initramfs.pid) && [ \"$(cat /run/splashd-kms/new-root)\" = ok ] "
                "&& [ \"$(head -c 1 /proc/$pid/cmdline)\" = @ ] && [ \"$(readlink /proc/$pid/root)\" = / ]") == 0
        # (And when the kernel first had random numbers: a program that asks for them with
        # getrandom's flags 0 before that waits, docs/power-on.md. With POWER_ON_JOURNAL=full, the
        # units' critical chain too: systemd-analyze took over 2 minutes in the guest on a busy
        # machine, longer than a command's bound.)
        chain = ("; systemd-analyze critical-chain --no-pager splashd.service vm-kiosk.service 2>/dev/null | tail -n 25"
                 if os.environ.get("POWER_ON_JOURNAL") == "full" else "")
        result["kernel"] = guest_output(machine, "dmesg | grep -iE 'fb|drm|virtio_gpu|virtio-gpu|console|Run /init|switch|crng' | head -n 40"
                                        + chain)
        result["started_utc"] = machine.started_utc
        result["console"] = machine.console_text()[-4000:]
        return result
    finally:
        machine.stop()


def spread(values, digits=2, unit="s"):
    values = [v for v in values if v is not None]
    if not values:
        return "—"
    return f"{statistics.median(values):.{digits}f} {unit} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def save(result, name):
    """The boot's numbers (JSON) and its filmstrip (PNG) under .build/power-on; the PNG's path."""
    os.makedirs(WORK, exist_ok=True)
    film_result = result["film"]
    with open(os.path.join(WORK, f"{name}.json"), "w") as f:
        json.dump({k: v for k, v in result.items() if k != "film"} | {"frames": film_result["frames"]}, f, indent=1)
    path = os.path.join(WORK, f"{name}.png")
    with open(path, "wb") as f:
        f.write(frames.filmstrip(strip_rows(film_result)))
    return path


def table(results):
    """A markdown table of `results` ({column: [result, ...]})."""
    columns = list(results)
    lines = ["| | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]

    def row(title, pick, digits=2, unit="s"):
        cells = [spread([pick(r) for r in results[c]], digits, unit) for c in columns]
        lines.append(f"| {title} | " + " | ".join(cells) + " |")

    def worst(values):
        return max(values) if values else None
    row("first pixel after the firmware's (either output)", lambda r: min(
        (s["first_pixel"] for s in r["summary"].values() if s["first_pixel"] is not None), default=None))
    row("first splash pixel (either output)", lambda r: min(
        (s["first_splash"] for s in r["summary"].values() if s["first_splash"] is not None), default=None))
    row("first whole picture, output 1", lambda r: r["summary"][0]["first_whole"])
    row("first whole picture, output 2", lambda r: r["summary"][1]["first_whole"])
    row("the app's first frame (both outputs)", lambda r: worst([s["app"] for s in r["summary"].values() if s["app"] is not None]))
    for head in (0, 1):
        row(f"black captures before the app, output {head + 1}", lambda r, h=head: r["summary"][h]["black"], 0, "")
        row(f"console captures before the app, output {head + 1}", lambda r, h=head: r["summary"][h]["console"], 0, "")
    row("renderer RSS while showing (median of samples)", lambda r: next(iter(r["rss"].values()), (None,))[0] / 1024
        if r["rss"] else None, 1, "MB")
    row("renderer peak RSS", lambda r: next(iter(r["rss"].values()), (None, None))[1] / 1024 if r["rss"] else None, 1, "MB")
    return "\n".join(lines)


def main():
    systems = [a for a in sys.argv[1:] if a in SYSTEMS] or list(SYSTEMS)
    runs = int(os.environ.get("POWER_ON_RUNS", "3"))
    dist = os.environ.get("SPLASHD_DIST", os.path.join(ROOT, "dist"))
    private_mount_namespace()
    results = {}
    for system in systems:
        # The initramfs's renderer has no first-frame cache (its hook gives it none): every boot
        # of it is a first boot.
        if system == "plymouth":
            columns = [("Plymouth", False)]
        elif system == "splashd-initramfs":
            columns = [("splashd, initramfs hook", False)]
        else:
            columns = [("splashd, units, first boot", False), ("splashd, units, cache written", True)]
        cache_dir = os.path.join(WORK, f"cache-{system}")
        with image(system, dist) as built:
            print(f"{system}: initramfs {built['initrd_bytes'] / 1e6:.1f} MB (plymouthd in it: {built['has_plymouthd']}, "
                  f"splashd-kms: {built['has_splashd_kms']}): {' '.join(built['splash_files'][:40])}", flush=True)
            for column, cached in columns:
                results[column] = []
                for n in range(runs):
                    if not cached:
                        shutil.rmtree(cache_dir, ignore_errors=True)
                        os.makedirs(cache_dir)
                    else:
                        use_cache(built["root"], cache_dir)
                    started = time.monotonic()
                    result = boot(system, built, cache_out=cache_dir if not cached and system == "splashd-units" else None)
                    name = column.replace(", ", "-").replace(" ", "-")
                    path = save(result, f"{name}-{n + 1}")
                    results[column].append(result)
                    brief = {h: {k: v for k, v in s.items() if k != "runs"} | {"runs": s["runs"]} for h, s in result["summary"].items()}
                    print(f"{column} #{n + 1} ({time.monotonic() - started:.0f} s; {path}): {json.dumps(brief)} rss {result['rss']}",
                          flush=True)
    print()
    print(table(results))


if __name__ == "__main__":
    main()
