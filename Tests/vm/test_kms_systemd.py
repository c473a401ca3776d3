"""splashd's app watch meets a real DRM display (design §13, §14): the VM of vm.py boots systemd as
PID 1 on an image with the packages installed, and the app's unit (the C test app behind
`ExecStartPre=/usr/bin/splashd-kms wait`) crashes, is restarted through the polkit grant, loops
until "The app keeps stopping" (Retry by touch), and hangs; every transition's frames are
captured from outside. A plugin's orphan shows the daemon a child subreaper.

The image: an overlay of this machine's root file system (the lower layer) with a tmpfs upper
layer, in a private mount namespace of this test process, where the packages of $SPLASHD_DIST
are installed with dpkg in a chroot, as on a device; QEMU, started in the same namespace, shares
it with the guest over 9p, and the guest puts a tmpfs overlay of its own over it to boot
(guest-init.sh). Nothing on the host changes. Needs root and the packages: scripts/test.sh runs
it after `make deb`. test_kms_systemd_arm64.py tells the same story (`systemd_image`,
`the_apps_life`) with the arm64 packages over the arm64 guest's root."""

import contextlib
import ctypes
import glob
import os
import shutil
import subprocess
import tempfile

import pytest

import vm
from kms_guest import (MAGENTA, PATIENCE, RED, Screen, handed_over, kind_of, retry_button, splash_back, splash_shown,
                       wait_screen, watch_screens)

DIST = os.environ.get("SPLASHD_DIST", "")

pytestmark = pytest.mark.skipif(
    not (DIST and glob.glob(os.path.join(DIST, "splashd-kms_*.deb")) and os.geteuid() == 0
         and shutil.which("qemu-system-x86_64") and vm.kernel()),
    reason="needs root, qemu, and the packages in $SPLASHD_DIST (scripts/test.sh sets it after make deb)")

APPS = {"app": MAGENTA}

CONFIG = """# The VM's splashd: the app's life on a real DRM display.
[splash]
min_display = "0ms"
# Far beyond what the slowest honest run takes: the guest is emulated.
timeout = "10m"

[app]
unit = "vm-kiosk.service"
# Three missed heartbeats are a hang: the app sends one a second.
heartbeat = "3s"
max_restarts = 1
restart_window = "1h"

[[step]]
id = "first-frame"
plugin = "signal"
timeout = "10m"

# A plugin that leaves a process behind (ORPHAN).
[[step]]
id = "orphan"
plugin = "vm-orphan"
"""

# The app's unit, written as docs/systemd.md says for a display with no browser.
KIOSK_UNIT = """[Unit]
Description=The VM's kiosk app
StartLimitIntervalSec=0
Wants=splashd.service splashd-kms-handoff.service
After=splashd.socket splashd-kms-handoff.service

[Service]
ExecStartPre=/usr/bin/splashd-kms wait
ExecStart=/usr/local/bin/vm-kiosk
Restart=no
"""

# The app: its heartbeat beside it (perl-base's: Essential in Debian, where python may not be, as
# in the arm64 guest's root), then the C app (master at once: it starts only once the renderer has
# handed over), which paints and completes first-frame.
KIOSK = """#!/bin/sh
perl -MIO::Socket::UNIX -e '
my $s = IO::Socket::UNIX->new(Peer => "/run/splashd/splashd.sock") or die "heartbeat: $!\\n";
while (1) { print $s q({"cmd":"alive"}), "\\n"; sleep 1 }
' &
APP_NOW=1 exec /usr/local/bin/vm-app ff00ff 'splashctl complete first-frame'
"""

# A plugin whose child leaves it (a double fork): the subshell exits at once, and its sleep, an
# orphan, goes to the nearest child subreaper above it, splashd (PR_SET_CHILD_SUBREAPER), else to
# PID 1. It writes the orphan's pid and its parent's where the daemon's unit lets it write.
ORPHAN = """#!/bin/sh
( sleep 600 </dev/null >/dev/null 2>&1 & echo $! >/run/splashd/orphan.pid )
pid=$(cat /run/splashd/orphan.pid)
echo "$pid $(sed -n 's/^PPid:[[:space:]]*//p' /proc/$pid/status)" >/run/splashd/orphan
"""

# polkitd starts with the boot, not at splashd's first start of the app's unit (a D-Bus
# activation): under arm64 emulation that activation outlasted dbus-daemon's 25 s and failed the
# app step's first two attempts. Started early, it may still not answer the first in time; the
# step's six attempts ride that out.
TARGET = """[Unit]
Description=The VM's boot: splashd, the renderer, the app, polkitd and the test's control port
Requires=basic.target
After=basic.target
Wants=splashd.service polkit.service vm-control.service
"""

# splashd.vm.hold on the kernel's command line: the app's start waits (its unit is ordered after
# this one) until the test writes to the FIFO. Skipped otherwise.
HOLD_UNIT = """[Unit]
Description=The test's hold on the app's start
DefaultDependencies=no
ConditionKernelCommandLine=splashd.vm.hold

[Service]
Type=oneshot
TimeoutStartSec=infinity
ExecStart=/bin/sh -c 'mkfifo /run/splashd-vm-hold && exec cat /run/splashd-vm-hold'
"""

HOLD_DROP_IN = """[Unit]
Wants=vm-hold.service
After=vm-hold.service
"""

CONTROL_UNIT = """[Unit]
Description=The test's commands on the control port
DefaultDependencies=no
After=sysinit.target

[Service]
ExecStart=/bin/sh /usr/local/sbin/vm-control
"""

def private_mount_namespace():
    """This process (and QEMU, its child) in a mount namespace of its own: the image's mounts
    exist only there and vanish with it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)


def write(root, path, text, mode=0o644):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)
    os.chmod(full, mode)


@contextlib.contextmanager
def systemd_image(lower, debs, app, binaries=None):
    """The guest's root: the tree `lower` (this machine's, or the arm64 guest's), the packages
    `debs` installed with dpkg in a chroot of it (an arm64 one runs under qemu-user, through
    binfmt_misc), the app (the test app built for the guest) and its unit, the ORPHAN plugin.
    `binaries`: a directory whose splashd-kms and splashd replace the packages' (development)."""
    private_mount_namespace()
    work = tempfile.mkdtemp(prefix="splashd-vm-image.")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755,size=1g", "splashd-vm-image", work], check=True)
    for d in ("upper", "ovlwork", "root"):
        os.makedirs(os.path.join(work, d))
    root = os.path.join(work, "root")
    subprocess.run(["mount", "-t", "overlay", "splashd-vm-image", "-o",
                    f"lowerdir={lower},upperdir={work}/upper,workdir={work}/ovlwork", root], check=True)
    os.makedirs(os.path.join(root, "var/tmp/debs"), exist_ok=True)
    for deb in debs:
        shutil.copy(deb, os.path.join(root, "var/tmp/debs"))
    subprocess.run(["mount", "-t", "proc", "proc", os.path.join(root, "proc")], check=True)
    installed = subprocess.run(["chroot", root, "sh", "-c", "dpkg -i /var/tmp/debs/*.deb"], capture_output=True, text=True)
    subprocess.run(["umount", os.path.join(root, "proc")], check=True)
    assert installed.returncode == 0, f"dpkg -i: {installed.stdout}\n{installed.stderr}"
    for name in ("splashd-kms", "splashd"):
        override = os.path.join(binaries or "/nonexistent", name)
        if os.path.exists(override):
            shutil.copy(override, os.path.join(root, "usr/bin", name))
    os.makedirs(os.path.join(root, "usr/local/bin"), exist_ok=True)
    shutil.copy(app, os.path.join(root, "usr/local/bin/vm-app"))
    write(root, "/usr/local/bin/vm-kiosk", KIOSK, 0o755)
    write(root, "/usr/local/lib/splashd-vm/orphan.sh", ORPHAN, 0o755)
    write(root, "/etc/splashd/plugins.d/vm-orphan.toml", 'exec = "/usr/local/lib/splashd-vm/orphan.sh"\ntimeout = "10m"\n')
    os.makedirs(os.path.join(root, "usr/local/sbin"), exist_ok=True)
    shutil.copy(os.path.join(vm.HERE, "control-loop.sh"), os.path.join(root, "usr/local/sbin/vm-control"))
    write(root, "/etc/systemd/system/vm-kiosk.service", KIOSK_UNIT)
    write(root, "/etc/systemd/system/vm-control.service", CONTROL_UNIT)
    write(root, "/etc/systemd/system/splashd-vm.target", TARGET)
    write(root, "/etc/systemd/system/vm-hold.service", HOLD_UNIT)
    write(root, "/etc/systemd/system/vm-kiosk.service.d/vm-hold.conf", HOLD_DROP_IN)
    write(root, "/etc/splashd/splashd.toml", CONFIG)
    # The reference theme (teal), which the captures are checked against, as the device's own.
    shutil.copytree(os.path.join(vm.HERE, "..", "..", "renderer/themes/reference"), os.path.join(root, "etc/splashd/theme"))
    # A host that is a container (Docker's /.dockerenv) would make the guest's systemd think it is
    # one too, and ignore the kernel's command line (systemd.unit=, systemd.mask=).
    for marker in ("/.dockerenv", "/run/.containerenv"):
        if os.path.lexists(root + marker):
            os.remove(root + marker)
    # The host's /tmp (work trees, tests' leftovers) is not the guest's: systemd-tmpfiles would
    # empty it at boot, file by file over 9p.
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=1777", "splashd-vm-tmp", os.path.join(root, "tmp")], check=True)
    try:
        yield root
    finally:
        # (The mounts vanish with this process's namespace; the directory is the host's.)
        subprocess.run(["umount", "-R", work])
        os.rmdir(work)


@pytest.fixture(scope="module")
def image():
    """The guest's root: this machine's, the packages installed, the app and its unit."""
    from test_kms import build_app
    debs = [p for name in ("splashd", "splashd-kms", "splashd-themes") for p in glob.glob(os.path.join(DIST, f"{name}_*.deb"))]
    # (Development: $SPLASHD_VM_BIN_DIR's splashd-kms and splashd over the packages' own.)
    with systemd_image("/", debs, build_app(), os.environ.get("SPLASHD_VM_BIN_DIR")) as root:
        yield root


def journal(machine, unit):
    """A unit's journal, to the console (read back by the failure message)."""
    machine.run(f"journalctl -b -u {unit} -o short-monotonic --no-pager > {machine.console_device}")


# The renderer the boot started is the one still running: systemd never restarted it, its main
# process is the boot's, and it said its first frame at most once (not at all when the GPU's
# device came after the boot's launch had handed the display over: then it is the app's at once,
# and the renderer's first picture is a later launch's splash coming back).
ONE_RENDERER = ("[ $(systemctl show -p NRestarts --value splashd-kms.service) = 0 ]"
                " && [ $(systemctl show -p MainPID --value splashd-kms.service) = $(cat /run/kms-at-boot) ]"
                " && [ $(journalctl -b -u splashd-kms -o cat | grep -c 'first frame on') -le 1 ]")


def the_apps_life(machine):
    """The story, in a VM booted with systemd on `systemd_image`'s root: the boot's launch to the
    app, splashd a child subreaper, the app killed and recovered, the crash loop and Retry by
    touch, the hang."""
    def ok(line, what):
        if machine.run(line, timeout=PATIENCE + 60) != 0:
            for unit in ("splashd", "splashd-kms", "vm-kiosk"):
                journal(machine, unit)
            pytest.fail(f"{what}; the guest said:\n{machine.console_text()[-6000:]}")

    def watch(done, what):
        """`watch_screens`, with the units' journals on the console when it fails."""
        try:
            return watch_screens(machine, APPS, done, what)
        except pytest.fail.Exception:
            for unit in ("splashd", "splashd-kms", "vm-kiosk"):
                journal(machine, unit)
            pytest.fail(f"{what} never showed; the guest said:\n{machine.console_text()[-8000:]}")

    def both(predicate):
        return lambda screens: all(predicate(s) for s in screens.values())

    # The boot: the renderer's splash, handed to the app, which paints both outputs.
    runs = watch(both(lambda s: kind_of(s, APPS) == "app"), "the app after the boot's launch")
    print(f"the boot: frames per output {runs}")
    ok(f"splashctl wait finished --timeout {PATIENCE}s", "the boot's launch finished")
    ok("systemctl show -p MainPID --value splashd-kms.service > /run/kms-at-boot", "the boot's renderer")
    ok("journalctl -b -u splashd-kms -o cat | grep -q 'the app has the display'", "the renderer's hand-off at boot")
    # The unit starts splashd-kms-first-frame, which (no cache yet at a first boot) became the
    # renderer: the same unit's process, under the unit's sandbox.
    ok("journalctl -b -u splashd-kms -o cat | grep -q '^splashd-kms-first-frame: no first frame from the cache: no index'",
       "the helper's word, then the renderer")
    # The daemon is a child subreaper (qemu-user refuses PR_SET_CHILD_SUBREAPER; a kernel does
    # not): the boot's orphan step left a process, which went to splashd, not to PID 1, and was
    # stopped and reaped with its step.
    ok("! journalctl -b -u splashd -o cat | grep 'cannot become a child subreaper'", "splashd a child subreaper")
    ok('read pid parent < /run/splashd/orphan && [ "$parent" = "$(systemctl show -p MainPID --value splashd.service)" ]',
       "the plugin's orphan given to splashd")
    ok(f"read pid parent < /run/splashd/orphan; end=$(( $(date +%s) + {PATIENCE} )); until [ ! -e /proc/$pid ];"
       f" do [ $(date +%s) -lt $end ] || exit 1; sleep 0.2; done", "the orphan stopped and reaped with its step")

    # 1. The app crashes: splashd's watch starts an app-exited launch, the renderer takes the
    #    display back, the app's unit is restarted through the polkit grant and waits in
    #    `splashd-kms wait` until the hand-off, then takes the display again.
    ok("systemctl show -p MainPID --value vm-kiosk.service > /run/app-before && kill -9 $(cat /run/app-before)", "the app killed")
    # (The splash is up only until the restarted app takes over, a few seconds of the guest's
    # time: on a busy machine the entry animation may not have ended within them.)
    splash_back(machine, APPS, "the splash after the crash", watch, drawn=splash_shown)
    handed_over(machine, APPS, "app", "the restarted app", watch)
    ok(f"splashctl wait finished --timeout {PATIENCE}s", "the crash's launch finished")
    ok("journalctl -b -u splashd -o cat | grep -q 'launch started (app-exited)'", "an app-exited launch")
    ok("pid=$(systemctl show -p MainPID --value vm-kiosk.service) && [ $pid != 0 ] && [ $pid != $(cat /run/app-before) ]"
       " && [ $(systemctl is-active vm-kiosk.service) = active ]", "the app's unit restarted: another process")
    ok(f"end=$(( $(date +%s) + {PATIENCE} )); until [ $(journalctl -b -u splashd-kms -o cat | grep -c 'the app has the display') -ge 2 ];"
       f" do [ $(date +%s) -lt $end ] || exit 1; sleep 0.2; done", "the second hand-off")
    ok(ONE_RENDERER, "one renderer process throughout")

    # 2. The crash loop (max_restarts = 1): the next crash is an error, "The app keeps
    #    stopping", with Retry only, on the display; Retry by touch starts the app again.
    ok("kill -9 $(systemctl show -p MainPID --value vm-kiosk.service)", "the app killed again")
    error_view = lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200  # noqa: E731
    runs = watch(both(error_view), "the crash loop's error view")
    print(f"crash loop: frames per output until the error view {runs}")
    ok("splashctl status --json | grep -q app-crash-loop", "the crash-loop error")
    screen = Screen(*machine.screendump(0))
    machine.click(*retry_button(screen), screen.width, screen.height)
    runs = watch(both(lambda s: kind_of(s, APPS) == "app"), "the app after Retry")
    print(f"Retry by touch: frames per output until the app {runs}")
    ok("journalctl -b -u splashd-kms -o cat | grep -q 'Retry, pressed on Virtual-1'", "Retry pressed by touch")

    # 3. A hang: the app stops (SIGSTOP: it still holds DRM master, its heartbeats stop).
    #    splashd kills its unit after three missed heartbeats; the splash is back once the
    #    app's master is gone.
    ok(f"splashctl wait finished --timeout {PATIENCE}s", "Retry's launch finished")
    ok("systemctl kill -s STOP vm-kiosk.service", "the app stopped")
    splash_back(machine, APPS, "the splash after the hang", watch, drawn=splash_shown)
    ok("journalctl -b -u splashd -o cat | grep -q 'launch started (app-hung)'", "an app-hung launch")
    ok(ONE_RENDERER, "one renderer process throughout")
    machine.run("journalctl -b -u splashd -u splashd-kms -o short-monotonic --no-pager | grep -E 'launch started|step app|"
                f"hand|back|ours|still|Retry|first frame|waiting|went away|plugged' > {machine.console_device}")
    print("\n".join(line for line in machine.console_text().splitlines() if "splashd-kms[" in line or "splashd[" in line))


def test_the_apps_life_on_a_real_display_under_systemd(image):
    with vm.VM(root=image, systemd=True) as machine:
        the_apps_life(machine)


def test_a_gpu_that_comes_after_the_launch_handed_over_is_left_to_the_app(image):
    """Under load the GPU's driver may load after the renderer started, and after the boot's
    launch decided its destination (seen on a busy CI machine: the outputs kept the console, and
    the app's `splashd-kms wait` timed out, the renderer holding the display lock). Made so on
    purpose: udev does not load virtio-gpu (the kernel's command line blacklists it; the test
    modprobes it), and the app's start is held (vm-hold.service) until the device is there. With
    nothing of the splash on screen, the renderer lets the display lock go at the hand-off, leaves
    the device that comes to the app, and the app shows on both outputs."""
    with vm.VM(root=image, systemd=True, append="modprobe.blacklist=virtio_gpu splashd.vm.hold") as machine:
        renderer = "journalctl -b -u splashd-kms -o cat"

        def until(condition, what):
            line = (f"end=$(( $(date +%s) + {PATIENCE} )); until {condition}; do "
                    f"[ $(date +%s) -lt $end ] || exit 1; sleep 0.05; done")
            if machine.run(line, timeout=PATIENCE + 60) != 0:
                for unit in ("splashd", "splashd-kms", "vm-kiosk", "vm-hold"):
                    journal(machine, unit)
                pytest.fail(f"{what} never happened; the guest said:\n{machine.console_text()[-6000:]}")

        until(f"{renderer} | grep -q 'waiting for /dev/dri/card0 to appear'", "the renderer waiting for the device")
        until("journalctl -b -u splashd -o cat | grep -q 'is starting'", "the boot's launch starting the app's unit")
        until("[ ! -e /run/splashd-kms/display.lock ]", "the display lock let go with no device open")
        assert machine.run("[ ! -e /dev/dri/card0 ] && modprobe virtio_gpu") == 0, "the driver loaded only now"
        until(f"{renderer} | grep -q 'the device came while the app has the display'", "the renderer leaving the device to the app")
        until("[ -p /run/splashd-vm-hold ]", "the hold on the app")
        assert machine.run("echo go > /run/splashd-vm-hold") == 0
        for head in (0, 1):
            wait_screen(machine, head, lambda s: kind_of(s, APPS) == "app", "the app on the device that came late")
        until(f"splashctl wait finished --timeout {PATIENCE}s", "the boot's launch finished")
        until("[ $(systemctl show -p NRestarts --value splashd-kms.service) = 0 ] && pgrep -x splashd-kms >/dev/null",
              "the renderer going on")
