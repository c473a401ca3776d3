"""The splashd-kms initramfs scripts' hand-over to the real root (docs/renderer-kms.md, "From the
initramfs"), without a VM: init-top starts a renderer, init-bottom asks it to move. The scripts run
as they ship with their paths pointed into a temporary directory (/run/splashd-kms, the renderer,
the configuration), and the renderer is a stand-in that does what splashd-kms does with
`--new-root`: it writes its PID once it is ready (after its start, which takes a while: a binary
and its libraries loaded), then answers SIGUSR1 with "ok" in new-root.

Power-on's filmstrip (power_on.py) found the race: a real initramfs reaches init-bottom before
the renderer has started, init-bottom found no PID and let the switch go on, and the renderer,
left behind in the initramfs, lost /run and died; the splash came only with the unit's renderer
in the real root."""

import os
import subprocess
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The stand-in renderer: ready after START seconds, then "ok" on SIGUSR1.
RENDERER = """#!/bin/sh
run={run}
sleep {start}
trap 'echo ok > "$run/new-root"; exit 0' USR1
echo $$ > "$run/initramfs.pid.tmp" && mv "$run/initramfs.pid.tmp" "$run/initramfs.pid"
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


def hand_over(start, ready_first=False):
    """init-top, then init-bottom (the real root already mounted) at once, or once the renderer
    is ready (`ready_first`), with a renderer that is ready `start` seconds after it starts: what
    new-root says when init-bottom returns, how long init-bottom took, the PID init-top wrote and
    the renderer's own."""
    with tempfile.TemporaryDirectory(prefix="splashd-initramfs-scripts.") as tmp:
        run = os.path.join(tmp, "run")
        renderer = os.path.join(tmp, "splashd-kms")
        with open(renderer, "w") as f:
            f.write(RENDERER.format(run=run, start=start))
        os.chmod(renderer, 0o755)
        conf = os.path.join(tmp, "initramfs.conf")
        with open(conf, "w") as f:
            f.write("DRM_MODULES=''\nOPTIONS=''\n")
        top, bottom = script(tmp, "init-top", run, renderer, conf), script(tmp, "init-bottom", run, renderer, conf)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "rootmnt": os.path.join(tmp, "root")}
        subprocess.run(["sh", top], env=env, check=True, timeout=30)
        end = time.monotonic() + 30
        while ready_first and not os.path.exists(os.path.join(run, "initramfs.pid")) and time.monotonic() < end:
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


def test_a_ready_renderer_is_asked_at_once():
    answer, took, _, _ = hand_over(start=0, ready_first=True)
    assert answer == "ok"
