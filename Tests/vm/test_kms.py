"""splashd-kms on real kernel DRM drivers (design §13): Debian's kernel in QEMU with a virtio GPU of
two outputs (vm.py), the build's splashd and splashd-kms running in it, the screens captured from
outside with QMP's screendump and checked pixel by pixel against the reference theme."""

import os
import shutil
import time

import pytest

from processes import BIN, ROOT
import vm

pytestmark = pytest.mark.skipif(
    not (shutil.which("qemu-system-x86_64") and vm.kernel() and os.path.exists("/bin/busybox")),
    reason="needs qemu-system-x86, linux-image-amd64 and busybox-static (scripts/setup.sh vm installs them)",
)

THEME = os.path.join(ROOT, "renderer/themes/reference")
TEAL = (0x0D, 0x73, 0x77)
WHITE = (0xFF, 0xFF, 0xFF)
RED = (0xEA, 0x54, 0x55)


# Every limit of a launch in these tests is far beyond what the slowest honest run takes (the guest
# is emulated, and the host may be busy: the renderer's first frame has come 17 s after the
# kernel's start): a test that wants a timeout names a small one on a step that never answers.
LAUNCH_LIMITS = {"timeout": "10m"}


def config(tmp, **splash):
    splash = {**LAUNCH_LIMITS, **splash}
    lines = ["[splash]"] + [f"{k} = {str(v).lower()}" if isinstance(v, bool) else f'{k} = "{v}"' for k, v in splash.items()]
    # first-frame waits for the app (or for the end of the test): not the 30 s a step has by default.
    lines += ["", "[[step]]", 'id = "first-frame"', 'plugin = "signal"', 'timeout = "10m"']
    return "printf '%s\\n' " + " ".join("'" + line.replace("'", "") + "'" for line in lines) + f" > {tmp}"


# How long a wait may last before the test gives up: a bound against a hang, not a time the code
# must keep. Every wait ends as soon as what it waits for has happened.
PATIENCE = 300


def until(machine, condition, what, timeout=PATIENCE):
    """Waits in the guest until the shell `condition` holds (checked every 50 ms, by the guest's
    own clock, for at most `timeout` seconds); fails the test with the guest's logs otherwise."""
    line = (f"end=$(( $(date +%s) + {timeout} )); until {condition}; do "
            f"[ $(date +%s) -lt $end ] || exit 1; sleep 0.05; done")
    if machine.run(line, timeout=timeout + 60) != 0:
        machine.run("cat /run/t/kms.log /run/t/splashd.log > /dev/ttyS0")
        pytest.fail(f"{what} never happened; the guest said:\n{machine.console_text()[-3000:]}")


class Screen:
    def __init__(self, width, height, pixels):
        self.width, self.height, self.pixels = width, height, pixels

    def at(self, x, y):
        i = (y * self.width + x) * 3
        return tuple(self.pixels[i : i + 3])

    def near(self, x, y, color, tolerance=3):
        return all(abs(a - b) <= tolerance for a, b in zip(self.at(x, y), color))

    def count(self, x0, y0, x1, y1, color, tolerance=24):
        """How many pixels of the box are `color` (within the tolerance)."""
        n = 0
        for y in range(y0, y1):
            for x in range(x0, x1):
                if all(abs(a - b) <= tolerance for a, b in zip(self.at(x, y), color)):
                    n += 1
        return n


# External plugins the tests' launches run, each a shell script in the guest's /run/t/plugins.
PLUGINS = {
    # Runs until /run/t/go exists: the launch's work in progress, so its destination is not
    # decided (the renderer does not hand the display over).
    "hold": "while [ ! -e /run/t/go ]; do sleep 0.05; done",
    # Fails when told to: its Nth run waits until /run/t/fail-N exists, then exits 1 (failed for
    # good: the error view with Retry, until Retry runs it again).
    "gate": "n=$(( $(cat /run/t/runs 2>/dev/null || echo 0) + 1 )); echo $n > /run/t/runs; "
            "while [ ! -e /run/t/fail-$n ]; do sleep 0.05; done; exit 1",
}


def add_plugin(machine, name):
    script = PLUGINS[name].replace("'", "'\\''")
    assert machine.run(f"mkdir -p /run/t/plugins && printf '#!/bin/sh\\n%s\\n' '{script}' > /run/t/plugins/{name}.sh"
                       f" && chmod +x /run/t/plugins/{name}.sh"
                       f" && printf 'exec = \"/run/t/plugins/{name}.sh\"\\ntimeout = \"10m\"\\n' > /run/t/plugins/{name}.toml") == 0


def start(machine, splash, kms_args="", step="hold"):
    """splashd with the given [splash] settings, a first-frame step and the external plugin `step`
    (or none), then splashd-kms with `kms_args`."""
    text = config("/run/t/splashd.toml", **splash)
    if step:
        add_plugin(machine, step)
        text = text.replace(" > /run/t/splashd.toml", f" '' '[[step]]' 'id = \"{step}\"' 'plugin = \"{step}\"' > /run/t/splashd.toml")
    assert machine.run(text) == 0
    assert machine.run(f"{BIN}/splashd --config /run/t/splashd.toml --plugin-dir /run/t/plugins --socket /run/t/s.sock --state-dir /run/t/state "
                       "--log-format text >/run/t/splashd.log 2>&1 &") == 0
    until(machine, "[ -S /run/t/s.sock ]", "splashd listening in the guest")
    assert machine.run(f"{BIN}/splashd-kms --socket /run/t/s.sock --theme {THEME} {kms_args} >/run/t/kms.log 2>&1 &") == 0


def wait_screen(machine, head, predicate, what, timeout=PATIENCE):
    """Captures output `head` until `predicate(screen)` holds; the last screen otherwise."""
    end = time.monotonic() + timeout
    while True:
        screen = Screen(*machine.screendump(head))
        if predicate(screen):
            return screen
        if time.monotonic() > end:
            machine.run("cat /run/t/kms.log /run/t/splashd.log > /dev/ttyS0")
            pytest.fail(f"output {head}: {what} never showed; the guest said:\n{machine.console_text()[-3000:]}")
        time.sleep(0.2)


def logo_and_text_drawn(screen):
    """The reference splash, laid out for this output's own size: the background everywhere but
    the middle, the logo's white circle 40 px above the centre, the name under it."""
    w, h = screen.width, screen.height
    cx, cy = w // 2, h // 2 - 40
    return (all(screen.near(x, y, TEAL) for x, y in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1), (cx, 40), (cx, h - 40)])
            and all(screen.near(x, y, WHITE) for x, y in [(cx - 55, cy), (cx + 55, cy), (cx, cy - 55), (cx, cy + 55)])
            and screen.count(cx - 120, h // 2 + 44, cx + 120, h // 2 + 84, WHITE, 40) > 300)


def test_every_output_shows_the_splash_laid_out_for_its_size():
    with vm.VM() as machine:
        start(machine, {"slow_after": "1s", "timeout": "10m"})
        screens = [wait_screen(machine, head, logo_and_text_drawn, "the reference splash") for head in (0, 1)]
        assert (screens[0].width, screens[0].height) != (screens[1].width, screens[1].height), "two sizes, each its own layout"
        for screen in screens:
            # Once slow, the three dots under the tagline (white on the reference's light palette).
            w, h = screen.width, screen.height
            dots = wait_screen(machine, screens.index(screen),
                               lambda s: s.count(w // 2 - 30, h // 2 + 100, w // 2 + 30, h // 2 + 160, WHITE, 60) > 20,
                               "the indicator")
            assert dots.count(0, 0, w, h // 2 - 120, TEAL, 2) == w * (h // 2 - 120), "nothing else above the logo"


def test_the_error_view_and_a_quarter_turn():
    with vm.VM() as machine:
        # A soft timeout after 2 s: phase error, code timeout, with Retry.
        assert machine.run("mkdir -p /run/t/cache") == 0
        start(machine, {"slow_after": "1s", "timeout": "2s"}, kms_args="--rotate 90 --cache-dir /run/t/cache")
        screen = wait_screen(machine, 0, lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200, "the error view's red")
        # Once it stood still, each output's still view (turned) was cached for the next start; a
        # renderer started again shows those as its first frames, then the error view again.
        until(machine, "[ -s /run/t/cache/first-frame-1280x800-90.raw ] && [ -s /run/t/cache/first-frame-1024x768-90.raw ] "
                       "&& [ -s /run/t/cache/first-frames ]", "the first-frame cache and its index written")
        assert machine.run("kill $(pgrep -x splashd-kms) && while pgrep -x splashd-kms; do sleep 0.05; done") == 0
        # Started again as the unit starts it: splashd-kms-first-frame shows both cached pictures,
        # then becomes the renderer (the same process), which takes its device and frames over and
        # lets those frames go once its own stand still.
        assert machine.run(f"{BIN}/splashd-kms-first-frame {BIN}/splashd-kms --socket /run/t/s.sock --theme {THEME} --rotate 90 "
                           "--cache-dir /run/t/cache >/run/t/kms2.log 2>&1 & echo $! > /run/t/kms2.pid") == 0
        until(machine, "grep -q \"first frames: the still view, over splashd-kms-first-frame's\" /run/t/kms2.log",
              "the renderer's first frames over the helper's")
        log = "/run/t/kms2.log"
        assert machine.run(f"grep -q 'Virtual-1 (1280x800): the first frame from the cache' {log} && "
                           f"grep -q 'Virtual-2 (1024x768): the first frame from the cache' {log}") == 0, "the helper's two pictures"
        assert machine.run(f"grep -q 'from splashd-kms-first-frame, with its first frames on 2 outputs' {log}") == 0, "taken over"
        assert machine.run('[ "$(pgrep -x splashd-kms)" = "$(cat /run/t/kms2.pid)" ]') == 0, "the helper became the renderer"
        until(machine, f"grep -q \"splashd-kms-first-frame's 2 first frames are let go\" {log}", "the helper's frames let go")
        # The renderer started on its own reads the same cache itself.
        assert machine.run("kill $(pgrep -x splashd-kms) && while pgrep -x splashd-kms; do sleep 0.05; done") == 0
        assert machine.run(f"{BIN}/splashd-kms --socket /run/t/s.sock --theme {THEME} --rotate 90 --cache-dir /run/t/cache "
                           ">/run/t/kms3.log 2>&1 &") == 0
        until(machine, "grep -q 'first frames from the cache (/run/t/cache)' /run/t/kms3.log", "the renderer's own first frames from the cache")
        screen = wait_screen(machine, 0, lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200, "the error view again")
        w, h = screen.width, screen.height
        # Turned a quarter clockwise: upright it is h x w, and upright (x, y) is at (w - 1 - y, x).
        ux, uy = h // 2, w // 2 - 40
        assert screen.near(w - 1 - (uy), ux - 55, WHITE) and screen.near(w - 1 - uy, ux + 55, WHITE), "the logo, turned"
        assert screen.near(0, 0, TEAL) and screen.near(w - 1, h - 1, TEAL)
        # The red of the icon and the title lies below the text, upright: left of the logo on screen.
        reds = [(x, y) for y in range(0, h, 2) for x in range(0, w, 2) if screen.near(x, y, RED, 20)]
        assert reds and max(x for x, _ in reds) < w - 1 - uy, "the error view is under the logo, upright"


DARK = (0x1E, 0x1E, 0x1E)


def drawn_turned(rotation, background=TEAL, ink=WHITE):
    """`logo_and_text_drawn` for a picture turned `rotation` degrees clockwise on its output, in
    the given palette: the upright layout's points mapped onto the screen."""
    def check(screen):
        w, h = screen.width, screen.height
        uw, uh = (h, w) if rotation in (90, 270) else (w, h)
        def at(ux, uy):
            return {0: (ux, uy), 90: (w - 1 - uy, ux), 180: (w - 1 - ux, h - 1 - uy), 270: (uy, h - 1 - ux)}[rotation]
        cx, cy = uw // 2, uh // 2 - 40
        corners = [at(0, 0), at(uw - 1, 0), at(0, uh - 1), at(uw - 1, uh - 1), at(cx, 40), at(cx, uh - 40)]
        circle = [at(cx - 55, cy), at(cx + 55, cy), at(cx, cy - 55), at(cx, cy + 55)]
        text = [at(x, y) for y in range(uh // 2 + 44, uh // 2 + 84) for x in range(cx - 120, cx + 120)]
        return (all(screen.near(x, y, background) for x, y in corners)
                and all(screen.near(x, y, WHITE) for x, y in circle)
                and sum(1 for x, y in text if screen.near(x, y, ink, 40)) > 300)
    return check


def test_panel_orientation_the_themes_rotate_named_outputs_and_dark():
    """Each output is turned as its connector's panel orientation says (set here on the guest
    kernel's command line, which gives virtio-gpu's connector the property: Virtual-1 is mounted
    left side up, so its picture is turned 270° clockwise); `--output` keeps the renderer to the
    named outputs; a theme's `rotate` overrides every panel; `--dark` draws the dark palette."""
    with vm.VM(append="video=Virtual-1:panel_orientation=left_side_up") as machine:
        start(machine, {"slow_after": "10m", "timeout": "10m"}, kms_args="--dark --output Virtual-1")
        wait_screen(machine, 0, drawn_turned(270, DARK, (0xE0, 0xE0, 0xE0)), "the dark splash, turned for a panel mounted left side up")
        assert machine.run("grep -q 'first frame on Virtual-1 (1280x800, turned 270°) ' /run/t/kms.log") == 0
        # Virtual-2 was not named: not drawn on. The renderer's log names every output it drew its
        # first frame on (one capture alone would pass while a slow renderer had not drawn yet).
        assert machine.run("! grep -q 'Virtual-2' /run/t/kms.log") == 0, "Virtual-2 was not named: not drawn on"
        other = Screen(*machine.screendump(1))
        assert not other.near(0, 0, DARK) and not drawn_turned(0, DARK)(other), "Virtual-2 was not named: not drawn on"
        # The theme's rotate = 180 turns both, the panel's orientation notwithstanding.
        assert machine.run("kill $(pidof splashd-kms) && mkdir -p /run/t/theme && cp " + THEME + "/logo.svg /run/t/theme/ && "
                           "{ echo 'rotate = 180'; cat " + THEME + "/theme.toml; } > /run/t/theme/theme.toml") == 0
        assert machine.run(f"{BIN}/splashd-kms --socket /run/t/s.sock --theme /run/t/theme >/run/t/kms.log 2>&1 &") == 0
        for head in (0, 1):
            wait_screen(machine, head, drawn_turned(180), "the splash turned by the theme")


def test_a_late_gpu_is_waited_for_and_then_drawn_on():
    """Early in boot the renderer may start before the GPU's driver is loaded: it waits for the
    device (inotify, no polling) and draws as soon as it appears."""
    with vm.VM(append="splashd.gpu=later") as machine:
        assert machine.run("[ ! -e /dev/dri/card0 ]") == 0, "the driver is not loaded yet"
        start(machine, {"slow_after": "1s", "timeout": "10m"})
        until(machine, "grep -q 'waiting for /dev/dri/card0' /run/t/kms.log", "the renderer waiting for the device")
        assert machine.run("modprobe virtio-gpu") == 0
        for head in (0, 1):
            wait_screen(machine, head, logo_and_text_drawn, "the reference splash after the driver came")


MAGENTA = (0xFF, 0x00, 0xFF)


def test_a_gpu_device_that_goes_away_and_comes_back_is_drawn_on_again():
    """The renderer's device goes away under it (virtio-gpu unbound from its device: as when a
    firmware framebuffer, simpledrm, is replaced by the real GPU's driver early in boot) and
    comes back (bound again): the renderer lets the old one go, waits for the node, and draws the
    splash on the new one's outputs."""
    with vm.VM() as machine:
        start(machine, {"slow_after": "10m", "timeout": "10m"})
        for head in (0, 1):
            wait_screen(machine, head, logo_and_text_drawn, "the reference splash")
        assert machine.run("cd /sys/bus/virtio/drivers/virtio_gpu && ls -d virtio* > /run/t/gpu && echo $(cat /run/t/gpu) > unbind") == 0
        until(machine, "grep -q 'went away' /run/t/kms.log", "the renderer letting the device go")
        assert machine.run("grep -q 'card0 went away: waiting for it to come back' /run/t/kms.log && [ ! -e /dev/dri/card0 ]") == 0
        assert machine.run("echo $(cat /run/t/gpu) > /sys/bus/virtio/drivers/virtio_gpu/bind") == 0
        until(machine, "grep -q 'is back' /run/t/kms.log", "the renderer drawing on the device again")
        assert machine.run("grep -q 'card0 is back: the splash on Virtual-1 (1280x800)' /run/t/kms.log") == 0
        # The second connector may come up a moment after the device node (seen on a busy host):
        # then it is named when it is, as an output plugged in.
        until(machine, "grep -q 'card0 is back: the splash on Virtual-1 (1280x800), Virtual-2 (1024x768)' /run/t/kms.log"
                       " || grep -q 'Virtual-2 (1024x768) plugged in' /run/t/kms.log", "the splash on Virtual-2 again")
        for head in (0, 1):
            wait_screen(machine, head, logo_and_text_drawn, "the reference splash on the device that came back")
        assert machine.run("pgrep -x splashd-kms >/dev/null") == 0, "the renderer goes on"


def retry_button(screen):
    """The middle of the error view's one button (Retry, no Continue offline): the white pill
    under the red title."""
    w, h = screen.width, screen.height
    reds = [y for y in range(0, h, 2) for x in range(0, w, 2) if screen.near(x, y, RED, 20)]
    pill = [(x, y) for y in range(max(reds) + 8, min(h, max(reds) + 90), 2) for x in range(w // 4, 3 * w // 4, 2)
            if screen.near(x, y, WHITE, 8)]
    assert len(pill) > 300, f"the Retry button: {len(pill)} white pixels under the title"
    return sum(x for x, _ in pill) / len(pill), sum(y for _, y in pill) / len(pill)


def build_app():
    app = os.path.join(ROOT, ".build", "vm-test-app")
    os.makedirs(os.path.dirname(app), exist_ok=True)
    import subprocess
    subprocess.run(["cc", "-O2", "-Wall", "-I/usr/include/libdrm", "-o", app, os.path.join(os.path.dirname(__file__), "app.c"), "-ldrm"],
                   check=True)
    return app


@pytest.mark.skipif(not vm.kernel("6.12"), reason="needs linux-image-6.12-amd64 (scripts/setup.sh vm installs it)")
def test_with_closefb_the_renderer_leaves_the_splash_on_an_output_the_app_does_not_use():
    """On a kernel with CLOSEFB (Debian 12's 6.12): the app takes only the first output; once it
    shows there, the renderer closes its framebuffers with CLOSEFB and sends dismissed, and the
    second output keeps the splash's last frame with no framebuffer of the renderer's left."""
    app = build_app()
    with vm.VM(kernel_series="6.12") as machine:
        start(machine, {"exit_animation": "10m"}, kms_args="--display-lock /run/t/display.lock")
        for head in (0, 1):
            wait_screen(machine, head, logo_and_text_drawn, "the reference splash")
        assert machine.run(f"{{ {BIN}/splashd-kms wait --lock /run/t/display.lock; APP_NOW=1 APP_OUTPUTS=1 {app} ff00ff "
                           f"'{BIN}/splashctl --socket /run/t/s.sock complete first-frame'; }} >/run/t/app.log 2>&1 &") == 0
        assert machine.run("touch /run/t/go") == 0
        assert machine.run(f"{BIN}/splashctl --socket /run/t/s.sock wait finished --timeout {PATIENCE}s", timeout=PATIENCE + 60) == 0
        until(machine, "grep -q 'the app has the display' /run/t/kms.log", "the renderer letting the display go")
        assert machine.run("grep -q 'handing the display to the app (CLOSEFB)' /run/t/kms.log && "
                           "grep -q 'the splash stays on Virtual-2 (CLOSEFB)' /run/t/kms.log && "
                           "grep -q 'app: painted 1 outputs' /run/t/app.log") == 0
        assert Screen(*machine.screendump(0)).near(0, 0, MAGENTA), "the app has the first output"
        assert logo_and_text_drawn(Screen(*machine.screendump(1))), "the second keeps the splash, its framebuffers closed"


def test_retry_by_touch_and_by_key():
    """The error view's Retry works by touch (a virtual tablet) and by Enter (a virtual keyboard),
    both sent from outside with QMP: splashd goes back to loading each time. The input devices
    come after the renderer started (as early in boot): their driver is unbound from them before,
    and bound again once the error view shows; udev's add events bring them to the renderer.
    The errors come when the test says (the gate plugin fails on cue), so each press meets an
    error view the renderer has drawn for the error it is in, however slow the machine."""
    with vm.VM() as machine:
        assert machine.run("cd /sys/bus/virtio/drivers/virtio_input && for d in virtio*; do echo $d > unbind && echo $d >> /run/t/input; done; "
                           "cd /; [ -s /run/t/input ] && ! grep -q Virtio /proc/bus/input/devices") == 0, "no virtio tablet or keyboard yet"
        start(machine, {"slow_after": "1s", "allow_offline": False}, step="gate")
        error_view = lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200  # noqa: E731
        assert machine.run("touch /run/t/fail-1") == 0
        wait_screen(machine, 0, error_view, "the error view")
        assert machine.run("for d in $(cat /run/t/input); do echo $d > /sys/bus/virtio/drivers/virtio_input/bind; done") == 0
        until(machine, "[ $(grep -c 'input device /dev/input/event' /run/t/kms.log) -ge 2 ]",
              "the renderer taking the tablet and the keyboard once they came")
        for retries, how in enumerate(("touch", "key"), start=1):
            screen = wait_screen(machine, 0, error_view, "the error view")
            cx, cy = retry_button(screen)
            if how == "touch":
                machine.click(cx, cy, screen.width, screen.height)
            else:
                machine.key("ret")
            until(machine, f"[ $(grep -c 'phase error -> loading' /run/t/splashd.log) -ge {retries} ]",
                  f"Retry by {how} taking the launch back to loading")
            # The gate's next run waits: loading stays until the test fails it. Once the renderer
            # has drawn that loading view, the next error view it draws is the next error's.
            wait_screen(machine, 0, lambda s: s.count(0, 0, s.width, s.height, RED, 20) == 0, "the loading view after Retry")
            assert machine.run(f"touch /run/t/fail-{retries + 1}") == 0


def test_an_output_plugged_in_later_shows_the_splash_and_one_unplugged_is_let_go():
    """Hotplug (design §13): the second output is connected from the guest's side while the splash
    is up: its connector forced on through sysfs, announced by a change uevent on card0 (forcing
    sends none in Linux 6.1, and headless QEMU has no run-time way to connect a virtio-gpu output;
    a real plug sends the same event with HOTPLUG=1), passed on by udev. The renderer shows the
    splash on it, laid out for its size; forced off again, it is let go and the renderer goes on."""
    with vm.VM(second_output=False) as machine:
        start(machine, {"slow_after": "10m", "timeout": "10m"})
        wait_screen(machine, 0, logo_and_text_drawn, "the reference splash")
        assert not logo_and_text_drawn(Screen(*machine.screendump(1))), "the second output is not on yet"
        plugged = time.monotonic()
        assert machine.run("echo on > /sys/class/drm/card0-Virtual-2/status && echo change > /sys/class/drm/card0/uevent") == 0
        wait_screen(machine, 1, logo_and_text_drawn, "the splash on the output plugged in")
        print(f"plugged in -> the splash on it, seen from outside: {time.monotonic() - plugged:.2f} s")
        assert machine.run("grep -q 'Virtual-2 (1024x768) plugged in: the splash on it [0-9]* ms after' /run/t/kms.log "
                           "&& grep 'plugged in' /run/t/kms.log > /dev/ttyS0") == 0
        print([line for line in machine.console_text().splitlines() if "plugged in" in line])
        assert machine.run("echo off > /sys/class/drm/card0-Virtual-2/status && echo change > /sys/class/drm/card0/uevent") == 0
        until(machine, "grep -q 'Virtual-2 unplugged' /run/t/kms.log", "the unplugged output let go")
        assert machine.run("pgrep -x splashd-kms >/dev/null") == 0, "the renderer goes on"
        assert logo_and_text_drawn(Screen(*machine.screendump(0)))


YELLOW = (0xFF, 0xFF, 0x00)
BLACK = (0x00, 0x00, 0x00)


def kind_of(screen, apps):
    """What a capture shows, by its corner: the splash, one of the apps (name -> colour), black,
    or something else (the text console, a half frame)."""
    if screen.near(0, 0, TEAL):
        return "splash"
    for name, colour in apps.items():
        if screen.near(0, 0, colour):
            return name
    if screen.near(0, 0, BLACK) and screen.count(0, 0, screen.width, screen.height // 8, BLACK, 0) == screen.width * (screen.height // 8):
        return "black"
    return f"other {screen.at(0, 0)}"


def watch_screens(machine, apps, done, what):
    """Captures both outputs until `done(screens)` holds, recording per output the kinds seen, in
    order (a run of one kind counted); the runs."""
    seen = {0: [], 1: []}
    end = time.monotonic() + PATIENCE
    while True:
        screens = {head: Screen(*machine.screendump(head)) for head in (0, 1)}
        for head, screen in screens.items():
            kind = kind_of(screen, apps)
            if not seen[head] or seen[head][-1][0] != kind:
                seen[head].append([kind, 0])
            seen[head][-1][1] += 1
        if done(screens):
            return seen
        if time.monotonic() > end:
            machine.run("cat /run/t/kms.log /run/t/splashd.log > /dev/ttyS0")
            pytest.fail(f"{what} never showed; captured {seen}; the guest said:\n{machine.console_text()[-3000:]}")


def handed_over(machine, apps, app, what, watch=None):
    """Captures both outputs until `app` shows on both; asserts splash frames, then the app's, and
    nothing else on each. `watch(done, what)` captures (default: `watch_screens`)."""
    watch = watch or (lambda done, what: watch_screens(machine, apps, done, what))
    runs = watch(lambda s: all(kind_of(x, apps) == app for x in s.values()), what)
    print(f"{what}: frames per output {runs}")
    for head, seen in runs.items():
        assert [kind for kind, _ in seen] == ["splash", app], f"output {head}: {seen}"


def splash_shown(screen):
    """The splash's background and its logo's circle, drawn or appearing: what an output shows
    from the splash's first frames on, while its entry animation may still run."""
    w, h = screen.width, screen.height
    return (screen.near(0, 0, TEAL) and screen.near(w - 1, h - 1, TEAL)
            and not screen.near(w // 2 - 45, h // 2 - 40, TEAL, 24) and not screen.near(w // 2 + 45, h // 2 - 40, TEAL, 24))


def splash_back(machine, apps, what, watch=None, drawn=logo_and_text_drawn):
    """Captures both outputs until the splash shows on both (`drawn`: by default all of it, the
    entry animation over); asserts nothing but an app's frame or black came before it on each."""
    watch = watch or (lambda done, what: watch_screens(machine, apps, done, what))
    last = {}

    def done(screens):
        last.update(screens)
        return all(drawn(x) for x in screens.values())
    runs = watch(done, what)
    print(f"{what}: frames per output {runs}; the entry animation over on both then: "
          f"{all(logo_and_text_drawn(x) for x in last.values())}")
    for head, seen in runs.items():
        kinds = [kind for kind, _ in seen]
        assert kinds[-1] == "splash" and all(k in (*apps, "black", "splash") for k in kinds), f"output {head}: {seen}"


def start_app(machine, app, colour, log):
    """The test app as an app unit with `ExecStartPre=splashd-kms wait` runs it: it waits for the
    renderer's display lock, then must become master at once, paints, and completes first-frame."""
    assert machine.run(f"{{ {BIN}/splashd-kms wait --lock /run/t/display.lock; echo waited; "
                       f"APP_NOW=1 exec {app} {colour} '{BIN}/splashctl --socket /run/t/s.sock complete first-frame'; }} >{log} 2>&1 & "
                       f"echo $! > {log}.pid") == 0


def test_the_app_takes_the_display_with_no_gap_and_the_splash_comes_back_for_every_launch():
    """The hand-off (design §13): once only the signal step is left, the renderer stops, keeps its
    last frame and gives DRM master up; the app takes it and paints; its first-frame completes the
    launch; the renderer sends dismissed and stays, holding nothing. Screens captured all along
    show splash frames, then app frames, and nothing else: never black, never the console.

    After it, the renderer stays. The app killed, then a launch: the splash is back on both
    outputs, drawn by the same process, with nothing but the dead app's frame or black between.
    A second app, waiting in `splashd-kms wait` as an app unit does, takes over at the launch's
    hand-off with only splash and app frames. A launch while that app still holds master draws
    nothing until the app is killed; then the splash is back."""
    app = build_app()
    apps = {"app1": MAGENTA, "app2": YELLOW}
    with vm.VM() as machine:
        # The exit animation's limit is far off: only the renderer's dismissed can finish a launch.
        start(machine, {"exit_animation": "10m"}, kms_args="--display-lock /run/t/display.lock")
        for head in (0, 1):
            wait_screen(machine, head, logo_and_text_drawn, "the reference splash")
        assert machine.run("pgrep -x splashd-kms > /run/t/kms.pid") == 0
        # The app starts once `splashd-kms wait` (what the hand-off unit, or the app unit's
        # ExecStartPre, runs) returns, and then must become DRM master at once (APP_NOW).
        start_app(machine, app, "ff00ff", "/run/t/app1.log")
        # (The waiter is looked for by its own command line: `pgrep -f 'splashd-kms wait'` would
        # also find the shell that runs pgrep.) It may not have started yet; once it has, it blocks.
        until(machine, f"pgrep -f '^{BIN}/splashd-kms wait' >/dev/null", "`splashd-kms wait` started")
        assert machine.run("[ -e /run/t/display.lock ] && ! grep -q waited /run/t/app1.log") == 0, \
            "the renderer holds the display lock while the launch's work goes on"
        # The hold step ends: only first-frame is left.
        assert machine.run("touch /run/t/go") == 0
        handed_over(machine, apps, "app1", "the first hand-off")
        # The launch finished by the renderer's dismissed (the exit animation's own limit is 10
        # minutes away). The renderer stays, subscribed, holding nothing.
        assert machine.run(f"{BIN}/splashctl --socket /run/t/s.sock wait finished --timeout {PATIENCE}s", timeout=PATIENCE + 60) == 0
        until(machine, "grep -q 'the app has the display' /run/t/kms.log", "the renderer letting the display go")
        assert machine.run("grep -q 'no CLOSEFB: waiting for every output' /run/t/kms.log") == 0, "Linux 6.1 has no CLOSEFB"
        assert machine.run("grep -q 'app: painted 2 outputs' /run/t/app1.log && [ ! -e /run/t/display.lock ]") == 0
        assert machine.run("[ $(pgrep -x splashd-kms) = $(cat /run/t/kms.pid) ]") == 0, "the renderer stays"
        # A second renderer started while the app has the display takes nothing from it: it waits
        # for a launch that wants the display, and this one has handed it over.
        assert machine.run(f"{BIN}/splashd-kms --socket /run/t/s.sock --theme {THEME} >/run/t/kms2.log 2>&1 & echo $! > /run/t/kms2.pid") == 0
        until(machine, "grep -q 'the app keeps it' /run/t/kms2.log", "the second renderer leaving the display to the app")
        assert machine.run("grep -q 'the app has the display): waiting for it to let go' /run/t/kms2.log && kill $(cat /run/t/kms2.pid)") == 0
        for head in (0, 1):
            assert Screen(*machine.screendump(head)).near(0, 0, MAGENTA), "the app keeps the display"

        # 1. The app dies, then a launch (a relaunch: without systemd in this guest nothing
        #    restarts the app). The hold step holds the launch, so the splash stays up.
        assert machine.run("rm /run/t/go && kill -9 $(cat /run/t/app1.log.pid)") == 0
        killed = time.monotonic()
        assert machine.run(f"{BIN}/splashctl --socket /run/t/s.sock relaunch") == 0
        splash_back(machine, apps, "the splash back after the app died")
        print(f"app killed -> the splash on both outputs, seen from outside: {time.monotonic() - killed:.2f} s")
        assert machine.run("[ $(pgrep -x splashd-kms) = $(cat /run/t/kms.pid) ]") == 0, "the same renderer process"
        until(machine, "grep -q 'the splash is back on Virtual-1 (1280x800), Virtual-2 (1024x768)' /run/t/kms.log", "the renderer's word")
        assert machine.run("[ -e /run/t/display.lock ]") == 0, "the lock is the renderer's again"

        # 2. The next app waits for the renderer as an app unit does, and takes over at the
        #    hand-off with nothing but splash and app frames between.
        start_app(machine, app, "ffff00", "/run/t/app2.log")
        until(machine, f"pgrep -f '^{BIN}/splashd-kms wait' >/dev/null", "the second app waiting in `splashd-kms wait`")
        assert machine.run("! grep -q waited /run/t/app2.log") == 0, "the app waits while the renderer has the display"
        assert machine.run("touch /run/t/go") == 0
        handed_over(machine, apps, "app2", "the second hand-off")
        assert machine.run(f"{BIN}/splashctl --socket /run/t/s.sock wait finished --timeout {PATIENCE}s", timeout=PATIENCE + 60) == 0
        until(machine, "[ $(grep -c 'the app has the display' /run/t/kms.log) -ge 2 ]", "the second hand-off's end")

        # 3. A launch while the app still holds master (hung, not yet killed): nothing drawn, no
        #    error; the renderer asks for master at a bounded interval. The app killed, the splash
        #    is back.
        assert machine.run("rm /run/t/go") == 0
        assert machine.run(f"{BIN}/splashctl --socket /run/t/s.sock relaunch") == 0
        until(machine, "grep -q 'still has the display' /run/t/kms.log", "the renderer waiting for the app's master")
        before = machine.run("cat /proc/$(cat /run/t/kms.pid)/stat > /run/t/stat-before")
        for _ in range(5):
            for head in (0, 1):
                assert kind_of(Screen(*machine.screendump(head)), apps) == "app2", "nothing drawn over the app that holds master"
        assert before == 0 and machine.run("cat /proc/$(cat /run/t/kms.pid)/stat > /run/t/stat-after") == 0
        assert machine.run("kill -9 $(cat /run/t/app2.log.pid)") == 0
        killed = time.monotonic()
        splash_back(machine, apps, "the splash after the hung app was killed")
        print(f"hung app killed -> the splash on both outputs, seen from outside: {time.monotonic() - killed:.2f} s")
        assert machine.run("[ $(pgrep -x splashd-kms) = $(cat /run/t/kms.pid) ]") == 0, "the same renderer process"
        assert machine.run("grep -q 'the display is ours [0-9]* ms after the launch wanted it' /run/t/kms.log "
                           "&& grep -E 'is back on|is ours|taking the display back|still has' /run/t/kms.log > /dev/ttyS0") == 0


def test_touch_on_the_second_output_presses_that_outputs_retry():
    """Each touch device maps to the output it is on (design §13): here udev's WL_OUTPUT, set by a
    rule, binds the virtual tablet to Virtual-2; a press on Virtual-2's Retry, in Virtual-2's own
    coordinates, presses Retry there."""
    with vm.VM() as machine:
        rule = 'SUBSYSTEM==\\"input\\", KERNEL==\\"event*\\", ATTRS{name}==\\"*Tablet*\\", ENV{WL_OUTPUT}=\\"Virtual-2\\"'
        assert machine.run(f"mkdir -p /run/udev/rules.d && echo \"{rule}\" > /run/udev/rules.d/90-touch.rules && "
                           "udevadm control --reload && udevadm trigger --action=change --subsystem-match=input && udevadm settle --timeout=120") == 0
        until(machine, "for d in /dev/input/event*; do udevadm info $d; done | grep -q 'WL_OUTPUT=Virtual-2'", "udev's WL_OUTPUT on the tablet")
        start(machine, {"slow_after": "1s", "allow_offline": False}, step="gate")
        assert machine.run("touch /run/t/fail-1") == 0
        error_view = lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200  # noqa: E731
        wait_screen(machine, 0, error_view, "the error view on Virtual-1")
        screen = wait_screen(machine, 1, error_view, "the error view on Virtual-2")
        assert (screen.width, screen.height) == (1024, 768)
        cx, cy = retry_button(screen)
        machine.click(cx, cy, screen.width, screen.height, head=1)
        until(machine, "grep -q 'phase error -> loading' /run/t/splashd.log", "Retry on Virtual-2 taking the launch back to loading")
        assert machine.run("grep -q 'Retry, pressed on Virtual-2' /run/t/kms.log") == 0
