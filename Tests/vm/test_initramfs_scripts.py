"""The splashd-kms initramfs scripts' hand-over to the real root (docs/renderer-kms.md, "From the
initramfs"), without a VM: init-top starts a renderer, init-bottom asks it to move. The scripts run
as they ship with their paths pointed into a temporary directory (/run/splashd-kms, the renderer,
the configuration), and the renderer is a stand-in that does what splashd-kms does with
`--new-root`: it writes its PID first thing (after its start, which takes a while: a binary and
its libraries loaded), then makes its display lock, and answers SIGUSR1 with "ok" in new-root.

Power-on's filmstrip (power_on.py) found the race: a real initramfs reaches init-bottom before
the renderer has started, init-bottom found no PID and let the switch go on, and the renderer,
left behind in the initramfs, lost /run and died; the splash came only with the unit's renderer
in the real root."""

import os
import subprocess
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The stand-in renderer: its PID written START seconds after its start (first thing in its main,
# SIGUSR1 armed), its display lock LOCK seconds after that (once it has read what it needs from
# the initramfs and /sys); on SIGUSR1, "ok" in new-root, or "too early" before its lock (the real
# renderer, moved then, finds neither /run nor /sys and dies).
RENDERER = """#!/bin/sh
run={run}
sleep {start}
trap 'if [ -e "$run/display.lock" ]; then echo ok; else echo too early; fi > "$run/new-root"; exit 0' USR1
echo $$ > "$run/initramfs.pid.tmp" && mv "$run/initramfs.pid.tmp" "$run/initramfs.pid"
sleep {lock}
: > "$run/display.lock"
while :; do sleep 0.05; done
"""


def script(tmp, name, run, renderer, conf):
    """The package's script `name` (init-top or init-bottom), its paths in `tmp`."""
    text = open(os.path.join(ROOT, "initramfs/scripts", name, "splashd-kms")).read()
    text = text.replace("/run/splashd-kms", run).replace("/usr/bin/splashd-kms", renderer).replace("/etc/splashd/initramfs.conf", conf)
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def hand_over(start, lock=0.0, ready_first=False):
    """init-top, then init-bottom (the real root already mounted) at once, or once the renderer
    is ready (`ready_first`), with a renderer that is ready `start` seconds after it starts: what
    new-root says when init-bottom returns, how long init-bottom took, the PID init-top wrote and
    the renderer's own."""
    with tempfile.TemporaryDirectory(prefix="splashd-initramfs-scripts.") as tmp:
        run = os.path.join(tmp, "run")
        renderer = os.path.join(tmp, "splashd-kms")
        with open(renderer, "w") as f:
            f.write(RENDERER.format(run=run, start=start, lock=lock))
        os.chmod(renderer, 0o755)
        conf = os.path.join(tmp, "initramfs.conf")
        with open(conf, "w") as f:
            f.write("DRM_MODULES=''\nOPTIONS=''\n")
        top, bottom = script(tmp, "init-top", run, renderer, conf), script(tmp, "init-bottom", run, renderer, conf)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "rootmnt": os.path.join(tmp, "root")}
        subprocess.run(["sh", top], env=env, check=True, timeout=30)
        end = time.monotonic() + 30
        while ready_first and not os.path.exists(os.path.join(run, "display.lock")) and time.monotonic() < end:
            time.sleep(0.02)
        began = time.monotonic()
        subprocess.run(["sh", bottom], env=env, check=True, timeout=30, stderr=subprocess.DEVNULL)
        took = time.monotonic() - began
        answer = open(os.path.join(run, "new-root")).read().strip() if os.path.exists(os.path.join(run, "new-root")) else None
        started = int(open(os.path.join(run, "initramfs.started")).read()) if os.path.exists(os.path.join(run, "initramfs.started")) else None
        # A stand-in that was never asked (the race) still runs: once it is ready, it is stopped
        # here, by its PID.
        pid_file = os.path.join(run, "initramfs.pid")
        end = time.monotonic() + 30
        while not os.path.exists(pid_file) and time.monotonic() < end:
            time.sleep(0.05)
        pid = int(open(pid_file).read())
        if answer is None and os.path.exists(f"/proc/{pid}"):
            os.kill(pid, 9)
        return answer, took, started, pid


def test_a_renderer_still_starting_at_init_bottom_moves_into_the_real_root():
    answer, took, started, pid = hand_over(start=1.5)
    assert answer == "ok", f"the renderer, ready 1.5 s after its start, was asked to move (init-bottom took {took:.2f} s)"
    assert pid == started, "init-top wrote the PID of the renderer it started"


def test_a_renderer_is_asked_to_move_only_once_it_has_its_lock():
    """Its PID written, it still reads its theme and the firmware's logo (/sys): a move then
    would leave it without them (the second boot of power-on's filmstrip: new-root said ok, and
    the renderer died making its lock in the real root's /run, not yet moved there)."""
    answer, took, _, _ = hand_over(start=0.2, lock=1.5)
    assert answer == "ok", f"asked to move before it had its lock: {answer!r} (init-bottom took {took:.2f} s)"


def test_a_ready_renderer_is_asked_at_once():
    answer, took, _, _ = hand_over(start=0, ready_first=True)
    assert answer == "ok"
