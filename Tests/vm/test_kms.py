"""splashd-kms on real kernel DRM drivers (SPEC §13): Debian's kernel in QEMU with a virtio GPU of
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
    reason="needs qemu-system-x86, linux-image-amd64 and busybox-static (scripts/setup.sh installs them)",
)

THEME = os.path.join(ROOT, "renderer/themes/reference")
TEAL = (0x0D, 0x73, 0x77)
WHITE = (0xFF, 0xFF, 0xFF)
RED = (0xEA, 0x54, 0x55)


def config(tmp, **splash):
    lines = ["[splash]"] + [f'{k} = "{v}"' for k, v in splash.items()]
    lines += ["", "[[step]]", 'id = "first-frame"', 'plugin = "signal"']
    return "printf '%s\\n' " + " ".join("'" + line.replace("'", "") + "'" for line in lines) + f" > {tmp}"


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


def start(machine, splash, kms_args=""):
    assert machine.run(config("/tmp/splashd.toml", **splash)) == 0
    assert machine.run(f"{BIN}/splashd --config /tmp/splashd.toml --socket /tmp/s.sock --state-dir /tmp/state "
                       "--log-format text >/tmp/splashd.log 2>&1 &") == 0
    assert machine.run("i=0; while [ ! -S /tmp/s.sock ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; [ -S /tmp/s.sock ]",
                       timeout=90) == 0, "splashd did not listen in the guest"
    assert machine.run(f"{BIN}/splashd-kms --socket /tmp/s.sock --theme {THEME} {kms_args} >/tmp/kms.log 2>&1 &") == 0


def wait_screen(machine, head, predicate, what, timeout=60):
    """Captures output `head` until `predicate(screen)` holds; the last screen otherwise."""
    end = time.monotonic() + timeout
    while True:
        screen = Screen(*machine.screendump(head))
        if predicate(screen):
            return screen
        if time.monotonic() > end:
            machine.run("cat /tmp/kms.log /tmp/splashd.log > /dev/ttyS0")
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
        start(machine, {"slow_after": "1s", "timeout": "2s"}, kms_args="--rotate 90")
        screen = wait_screen(machine, 0, lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200, "the error view's red")
        w, h = screen.width, screen.height
        # Turned a quarter clockwise: upright it is h x w, and upright (x, y) is at (w - 1 - y, x).
        ux, uy = h // 2, w // 2 - 40
        assert screen.near(w - 1 - (uy), ux - 55, WHITE) and screen.near(w - 1 - uy, ux + 55, WHITE), "the logo, turned"
        assert screen.near(0, 0, TEAL) and screen.near(w - 1, h - 1, TEAL)
        # The red of the icon and the title lies below the text, upright: left of the logo on screen.
        reds = [(x, y) for y in range(0, h, 2) for x in range(0, w, 2) if screen.near(x, y, RED, 20)]
        assert reds and max(x for x, _ in reds) < w - 1 - uy, "the error view is under the logo, upright"


def test_a_late_gpu_is_waited_for_and_then_drawn_on():
    """Early in boot the renderer may start before the GPU's driver is loaded: it waits for the
    device (inotify, no polling) and draws as soon as it appears."""
    with vm.VM(append="splashd.gpu=later") as machine:
        assert machine.run("[ ! -e /dev/dri/card0 ]") == 0, "the driver is not loaded yet"
        start(machine, {"slow_after": "1s", "timeout": "10m"})
        assert machine.run("i=0; until grep -q 'waiting for /dev/dri/card0' /tmp/kms.log || [ $i -ge 300 ]; do sleep 0.1; i=$((i+1)); done; "
                           "grep -q 'waiting for /dev/dri/card0' /tmp/kms.log", timeout=60) == 0
        assert machine.run("modprobe virtio-gpu") == 0
        for head in (0, 1):
            wait_screen(machine, head, logo_and_text_drawn, "the reference splash after the driver came")
