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
import shutil
import subprocess
import tempfile
import time

import pytest

import processes

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


# The real renderer moved early: init-bottom's SIGUSR1 can come before the renderer first looks for
# splashd's socket, and it always comes before initramfs-tools moves /proc and /run into the real
# root. The watch for the socket, made in between, must see /run arrive over the real root's bare
# directory, and the socket in it. splashd starts only once /run is in the real root, as in a boot
# (it runs from the real root): started before, in the initramfs's /run, a renderer that got to
# its socket before the signal connected there (a run of the test command, beside its builds).
EARLY_MOVE = r"""
set -u
fail() {{ echo "FAIL: $1"; echo "-- the renderer's log:"; cat "$W/kms.log"; kill "$kms" ${{daemon:-}} 2>/dev/null; exit 1; }}
# Bounded, and each ends the moment its condition holds.
until_() {{ n=0; while ! eval "$1"; do n=$((n + 1)); [ "$n" -lt 2400 ] || fail "$2"; sleep 0.05; done; }}
W={work}
R=$W/root
mkdir -p "$R" && mount --bind / "$R" || exit 2            # the real root: /proc and /run bare directories
mount -t tmpfs tmpfs /run && mkdir -p /run/splashd-kms /run/t || exit 2   # the initramfs's /run
export SWIFT_BACKTRACE=enable=no
# (Its display lock where the real root has it too: no GPU here, so nothing waits for the lock.)
{bin}/splashd-kms --new-root "$R" --device /run/t/card0 --socket /run/t/s.sock --theme {theme} \
    --display-lock "$W/display.lock" >"$W/kms.log" 2>&1 &
kms=$!
# Moved the moment its PID is written (first thing in its main): before it looks for the socket.
while [ ! -s /run/splashd-kms/initramfs.pid ]; do kill -0 "$kms" 2>/dev/null || fail "the renderer ended"; done
kill -USR1 "$kms"
until_ '[ "$(cat /run/splashd-kms/new-root 2>/dev/null)" = ok ]' "the renderer in the real root"
until_ 'grep -q "waiting for /run/t/s.sock to appear" "$W/kms.log"' "the renderer watching for the socket"
# initramfs-tools moves /run and /proc into the real root; then splashd starts there.
mount --move /run "$R/run" && mount -t proc proc "$R/proc" || fail "the moves"
{bin}/splashd --config {config} --socket "$R/run/t/s.sock" --state-dir "$R/run/t/state" --log-format text >"$W/splashd.log" 2>&1 &
daemon=$!
until_ 'grep -q "connected to /run/t/s.sock" "$W/kms.log"' "the renderer connected, in the real root"
kill "$kms" "$daemon"; wait
echo PASSED
"""


def test_a_renderer_moved_before_run_and_proc_still_finds_splashds_socket():
    """The power-on filmstrip's boot that never reached the app (3 of 9 with the hook): the
    renderer, moved into the real root before /proc and /run were, watched the real root's bare
    /run for splashd's socket and could not open the mount table (`/proc/self/mountinfo` was not
    there yet), so /run arriving over it woke nothing, and the app waited for the display. Here,
    in a private mount namespace, the real splashd-kms (no GPU: it waits for its device meanwhile)
    moves into a bare bind of / at SIGUSR1 as soon as it runs, watches for splashd's socket there,
    and must connect once /run is moved in."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare (mount namespaces)")
    with tempfile.TemporaryDirectory(dir="/var/tmp") as work:
        config = os.path.join(work, "splashd.toml")
        with open(config, "w") as f:
            f.write('[splash]\ntimeout = "10m"\n\n[[step]]\nid = "first-frame"\nplugin = "signal"\ntimeout = "10m"\n')
        script = EARLY_MOVE.format(work=work, bin=processes.BIN, config=config, theme=os.path.join(ROOT, "renderer/themes/reference"))
        result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                                capture_output=True, text=True, timeout=900)
        assert result.returncode == 0 and "PASSED" in result.stdout, result.stdout + result.stderr


# What the black at power-on was made of, in part (docs/power-on.md): init-top loaded the GPU's
# driver, then started the renderer, and the screen stayed black through the renderer's start.
# The renderer starts first now, and init-top runs before udev's script (it hears its device's
# removal from the kernel, KernelUevent, with no udevd: test_kms.py). The stand-in modprobe
# says which renderer init-top had started when it ran (initramfs.started: the PID init-top writes
# as it starts one), so the order is read from the script's own steps, not from when a process in
# the background was scheduled.
RENDERER_STARTED = """#!/bin/sh
echo "renderer" >> {events}
"""
MODPROBE = """#!/bin/sh
echo "modprobe $*, renderer started: $(cat {run}/initramfs.started 2>/dev/null || echo none)" >> {events}
"""


def test_init_top_starts_the_renderer_before_it_loads_the_gpus_driver():
    with tempfile.TemporaryDirectory(prefix="splashd-initramfs-scripts.") as tmp:
        run, events, bin_dir = os.path.join(tmp, "run"), os.path.join(tmp, "events"), os.path.join(tmp, "bin")
        os.mkdir(bin_dir)
        renderer = os.path.join(tmp, "splashd-kms")
        for path, text in ((renderer, RENDERER_STARTED), (os.path.join(bin_dir, "modprobe"), MODPROBE)):
            with open(path, "w") as f:
                f.write(text.format(events=events, run=run))
            os.chmod(path, 0o755)
        conf = os.path.join(tmp, "initramfs.conf")
        with open(conf, "w") as f:
            f.write("DRM_MODULES='virtio-gpu'\nOPTIONS=''\n")
        top = script(tmp, "init-top", run, renderer, conf)
        env = {"PATH": bin_dir + ":" + os.environ.get("PATH", "/usr/bin:/bin"), "rootmnt": os.path.join(tmp, "root")}
        subprocess.run(["sh", top], env=env, check=True, timeout=30)
        started = open(os.path.join(run, "initramfs.started")).read().strip()
        loads = [line for line in open(events).read().splitlines() if line.startswith("modprobe")]
        assert loads == [f"modprobe -q virtio-gpu, renderer started: {started}"], \
            f"init-top loaded the driver before it started the renderer (PID {started}): {loads}"


def test_init_top_runs_before_udevs_script_in_the_initramfs():
    """The order mkinitramfs writes (Debian's hook-functions, `cache_run_scripts`) for init-top's
    scripts as Debian's initramfs-tools ships them and ours."""
    shipped = "/usr/share/initramfs-tools/scripts/init-top"
    if not os.path.exists("/usr/share/initramfs-tools/hook-functions") or not os.path.isdir(shipped):
        pytest.skip("needs Debian's initramfs-tools")
    with tempfile.TemporaryDirectory(prefix="splashd-initramfs-order.") as tmp:
        dest, conf = os.path.join(tmp, "dest"), os.path.join(tmp, "conf")
        os.makedirs(os.path.join(dest, "scripts", "init-top"))
        os.makedirs(os.path.join(conf, "scripts", "init-top"))
        for name in os.listdir(shipped):
            shutil.copy(os.path.join(shipped, name), os.path.join(dest, "scripts", "init-top", name))
        for where in (dest, conf):
            shutil.copy(os.path.join(ROOT, "initramfs/scripts/init-top/splashd-kms"),
                        os.path.join(where, "scripts", "init-top", "splashd-kms"))
        out = subprocess.run(
            ["sh", "-c", '. /usr/share/initramfs-tools/hook-functions && cache_run_scripts "$1" /scripts/init-top',
             "sh", dest], env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "CONFDIR": conf, "verbose": "n"},
            capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        order = [line.split()[0].rsplit("/", 1)[1] for line in open(os.path.join(dest, "scripts", "init-top", "ORDER"))
                 if line.startswith("/scripts/")]
        assert "udev" in order and "splashd-kms" in order, order
        assert order.index("splashd-kms") < order.index("udev"), f"init-top's order: {order}"


# Early in boot the kernel may have no random numbers yet, and a getrandom that may block waits for
# them: on power-on's emulated machine the renderer's first frame waited a second (Swift's hashing
# seed; and expat's hash salt, when fontconfig parsed its configuration file). The real renderer,
# started by init-top as it starts it (its environment, its arguments, the hook's font
# directories), under strace until it waits for its device with its fonts read and its logo's
# child done: every getrandom it and the child make must be one that cannot block.
NO_BLOCKING_RANDOM = r"""
set -u
W={work}
mount -t tmpfs tmpfs /run && mkdir -p /run/splashd-kms || exit 2     # the initramfs's /run
export SWIFT_BACKTRACE=enable=no rootmnt="$W/root"
sh "$W/init-top" || exit 3
n=0
until grep -q 'waiting for /run/t/card0 to appear' /run/splashd-kms/initramfs.log 2>/dev/null \
    && grep -q 'render-logo' "$W/trace" && grep -Eq '\.(otf|ttf)", O_RDONLY' "$W/trace" \
    && [ "$(grep -c '+++ exited' "$W/trace")" -ge 1 ]; do
    n=$((n + 1)); [ "$n" -lt 2400 ] || {{ echo "FAIL: never ready"; cat /run/splashd-kms/initramfs.log; exit 1; }}
    sleep 0.05
done
cp /run/splashd-kms/initramfs.log "$W/kms.log"
kill "$(cat /run/splashd-kms/initramfs.pid)"
wait
echo PASSED
"""
STRACED = """#!/bin/sh
exec strace -f -o {work}/trace -e trace=getrandom,openat,execve {bin}/splashd-kms "$@" --device /run/t/card0 --socket /run/t/s.sock
"""


def test_the_renderer_init_top_starts_never_waits_for_the_kernels_random_numbers():
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare (mount namespaces)")
    assert shutil.which("strace"), "strace is not installed (scripts/setup.sh tests)"
    with tempfile.TemporaryDirectory(dir="/var/tmp") as work:
        renderer = os.path.join(work, "splashd-kms")
        with open(renderer, "w") as f:
            f.write(STRACED.format(work=work, bin=processes.BIN))
        os.chmod(renderer, 0o755)
        conf = os.path.join(work, "initramfs.conf")
        with open(conf, "w") as f:
            f.write("DRM_MODULES=''\nOPTIONS=''\n")
        # The hook's list: the directories of the fonts it copies (here the machine's own).
        dirs = []
        for pattern in ("Inter:regular", "sans-serif:regular"):
            font = subprocess.run(["fc-match", "-f", "%{file}", pattern], capture_output=True, text=True).stdout
            if font.startswith("/") and os.path.dirname(font) not in dirs:
                dirs.append(os.path.dirname(font))
        with open(os.path.join(work, "font-dirs"), "w") as f:
            f.write("".join(d + "\n" for d in dirs))
        text = open(os.path.join(ROOT, "initramfs/scripts/init-top/splashd-kms")).read()
        text = (text.replace("/usr/bin/splashd-kms", renderer).replace("/etc/splashd/initramfs.conf", conf)
                .replace("/usr/share/splashd/initramfs/font-dirs", os.path.join(work, "font-dirs"))
                .replace("/usr/share/splashd/initramfs/theme", os.path.join(ROOT, "renderer/themes/reference")))
        with open(os.path.join(work, "init-top"), "w") as f:
            f.write(text)
        result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", NO_BLOCKING_RANDOM.format(work=work)],
                                capture_output=True, text=True, timeout=900)
        assert result.returncode == 0 and "PASSED" in result.stdout, result.stdout + result.stderr
        trace = open(os.path.join(work, "trace")).read().splitlines()
        calls = [line for line in trace if " getrandom(" in line]
        assert calls, "strace saw no getrandom at all"
        blocking = [line for line in calls if "GRND_NONBLOCK" not in line and "GRND_INSECURE" not in line]
        assert not blocking, "getrandom calls that wait for the kernel's random numbers:\n" + "\n".join(blocking)
        assert not [line for line in trace if "/etc/fonts" in line or "fonts.conf" in line], "fontconfig read a configuration file"
        log = open(os.path.join(work, "kms.log")).read()
        assert "fonts: " in log and "no fontconfig configuration read" in log, log
        assert "Fontconfig" not in log, log
