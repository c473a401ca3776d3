"""`splashctl screenshot` held against QMP's screendump, and the update and shutdown views, on the
VM's display, on either architecture (test_kms_screenshot.py on amd64, test_kms_arm64.py on
arm64); with SPLASHD_SCREENSHOTS=DIR the screendumps are kept as PNGs."""

import os
import sys

from kms_guest import MAGENTA, PATIENCE, RED, WHITE, Screen, logo_and_text_drawn, start, start_app, until, wait_screen
from pictures import write_png

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser"))
from cdp import Image  # noqa: E402  (the PNG reader the browser tests use)

SOCKET = "--socket /run/t/s.sock"
# The most a screenshot's pixel may differ from the screendump's in any channel, and how many may
# differ at all: the two read the same buffer, one from the guest, one from QEMU's copy of it.
TOLERANCE, MOST_DIFFERING = 2, 0.001


def save(screen, name):
    """Keeps a screendump as DIR/NAME.png when SPLASHD_SCREENSHOTS=DIR."""
    directory = os.environ.get("SPLASHD_SCREENSHOTS")
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    row = screen.width * 3
    write_png(os.path.join(directory, name + ".png"), screen.width, screen.height,
              [screen.pixels[y * row:(y + 1) * row] for y in range(screen.height)])


def screenshot_matches(machine, out, name, heads=(0, 1), *, bin_dir):
    """`splashctl screenshot` in the guest (one PNG for each output), then QMP's screendump of each
    output: the same size and, within the tolerance, the same pixels. The screendumps."""
    path = f"/run/out/{name}.png"
    # Timed in the guest (emulated: a figure to read, not a bound).
    assert machine.run(f"t=$(date +%s%N); {bin_dir}/splashctl {SOCKET} screenshot {path} > /run/out/{name}.txt 2>&1; s=$?; "
                       f"echo $(( ($(date +%s%N) - t) / 1000000 )) > /run/out/{name}.ms; exit $s") == 0, \
        open(os.path.join(out, f"{name}.txt")).read()
    said = open(os.path.join(out, f"{name}.txt")).read()
    print(f"{name}: splashctl screenshot took {open(os.path.join(out, name + '.ms')).read().strip()} ms in the guest (TCG)")
    screens = []
    for head in heads:
        output = f"Virtual-{head + 1}"
        assert f"{path[:-4]}-{output}.png: {output}, " in said and ", XR24" in said, said
        shot = Image.decode_png(open(os.path.join(out, f"{name}-{output}.png"), "rb").read())
        screen = Screen(*machine.screendump(head))
        assert (shot.width, shot.height) == (screen.width, screen.height), f"{output}: {said}"
        differing = 0
        for y in range(screen.height):
            row, theirs = shot.rows[y], screen.pixels[y * screen.width * 3:(y + 1) * screen.width * 3]
            if row != theirs:
                differing += sum(1 for x in range(screen.width)
                                 if max(abs(row[3 * x + c] - theirs[3 * x + c]) for c in range(3)) > TOLERANCE)
        print(f"{name} on {output}: {differing} of {screen.width * screen.height} pixels differ by more than {TOLERANCE}")
        assert differing <= MOST_DIFFERING * screen.width * screen.height, f"{output}: the screenshot is not what the display shows"
        screens.append(screen)
    return screens


def update_bar(fraction):
    """The update view's bar (at most 240 px wide, under the title) filled `fraction` of the way:
    a row whose white run starts at the bar's left edge and is that long, with teal beside it."""
    def check(screen):
        w, h = screen.width, screen.height
        left, filled = w // 2 - 120, round(240 * fraction)
        for y in range(h // 2, h - 40):
            if screen.near(left + 1, y, WHITE, 40) and not screen.near(left - 2, y, WHITE, 60):
                run = next((x for x in range(left + 1, left + 240) if not screen.near(x, y, WHITE, 60)), left + 240) - left
                if abs(run - filled) <= 4:
                    return True
        return False
    return check


def shutdown_view(screen):
    """The logo and the name, "Restarting" under them, and neither the launch's tagline nor an
    update's bar."""
    s, w, h = screen, screen.width, screen.height
    return (logo_and_text_drawn(s) and s.count(w // 2 - 45, h // 2 + 117, w // 2 + 45, h // 2 + 137, WHITE, 40) > 40
            and s.count(w // 2 - 130, h // 2 + 95, w // 2 - 60, h // 2 + 112, WHITE, 60) == 0
            and s.count(w // 2 - 120, h // 2 + 150, w // 2 + 120, h // 2 + 165, WHITE, 60) == 0)


def screenshots_and_views(machine, app, out, *, bin_dir, theme, prefix="kms-vm"):
    """The splash's frame, the update view, the app's frame after the hand-off and the shutdown
    view: `splashctl screenshot` of each equals QMP's screendump of the same moment. A screenshot
    of an output that is not there, or by a user who is not root, is refused with its reason.
    `out`: the directory of this machine shared with the guest as "out" (vm.VM(shares=...)); the
    screendumps kept as PREFIX-update.png and so on. The splash's screendumps, one per output."""
    assert machine.run("mkdir -p /run/out && mount -t 9p -o trans=virtio out /run/out") == 0
    start(machine, {"exit_animation": "10m", "slow_after": "10m"}, kms_args="--display-lock /run/t/display.lock",
          bin_dir=bin_dir, theme=theme)
    for head in (0, 1):
        wait_screen(machine, head, logo_and_text_drawn, "the reference splash")
    splash = screenshot_matches(machine, out, "splash", bin_dir=bin_dir)

    # Refused, with the reason: an output that is not there.
    assert machine.run(f"{bin_dir}/splashctl {SOCKET} screenshot /run/out/none.png --output HDMI-A-9 2> /run/out/none.txt") == 1
    said = open(os.path.join(out, "none.txt")).read()
    assert "has no connected output HDMI-A-9 (connected: Virtual-1, Virtual-2)" in said, said

    # The update view, over the launch (its work goes on; it is held at its end).
    assert machine.run(f"{bin_dir}/splashctl {SOCKET} update --progress 40 --message 'Copying image to rootfs.1'") == 0
    update = wait_screen(machine, 0, update_bar(0.4), "the update view at 40 %")
    wait_screen(machine, 1, update_bar(0.4), "the update view at 40 % on Virtual-2")
    screenshot_matches(machine, out, "update", bin_dir=bin_dir)
    save(update, f"{prefix}-update")
    assert machine.run(f"{bin_dir}/splashctl {SOCKET} update --progress 75") == 0
    wait_screen(machine, 0, update_bar(0.75), "the update view at 75 %")
    # A failed update: RAUC's words, the title in the error's red, no bar.
    assert machine.run(f"{bin_dir}/splashctl {SOCKET} update --failed 'signature verification failed'") == 0
    failed = wait_screen(machine, 0, lambda s: s.count(s.width // 2 - 100, s.height // 2 + 80, s.width // 2 + 100, s.height // 2 + 160, RED, 40) > 100
                         and not update_bar(0.75)(s), "the failed update's view")
    save(failed, f"{prefix}-update-failed")
    assert machine.run(f"{bin_dir}/splashctl {SOCKET} update --clear") == 0
    wait_screen(machine, 0, logo_and_text_drawn, "the launch's splash again")

    # The hand-off: the app's frame, read back from the app's own framebuffer.
    start_app(machine, app, "ff00ff", "/run/t/app.log", bin_dir=bin_dir)
    until(machine, f"pgrep -f '^{bin_dir}/splashd-kms wait' >/dev/null", "the app waiting in `splashd-kms wait`")
    assert machine.run("touch /run/t/go") == 0
    for head in (0, 1):
        wait_screen(machine, head, lambda s: s.near(0, 0, MAGENTA) and s.near(s.width // 2, s.height // 2, MAGENTA), "the app's frame")
    shots = screenshot_matches(machine, out, "app", bin_dir=bin_dir)
    assert all(s.near(s.width // 2, s.height // 2 - 40, MAGENTA) for s in shots), "the app's frame, not the splash's"
    assert machine.run(f"{bin_dir}/splashctl {SOCKET} wait finished --timeout {PATIENCE}s", timeout=PATIENCE + 60) == 0

    # Shutdown: the app's unit is stopped, and the renderer takes the display back.
    assert machine.run(f"{bin_dir}/splashctl {SOCKET} shutdown --reboot") == 0
    assert machine.run("kill -9 $(cat /run/t/app.log.pid)") == 0
    shutdown = wait_screen(machine, 0, shutdown_view, "the shutdown view")
    wait_screen(machine, 1, shutdown_view, "the shutdown view on Virtual-2")
    screenshot_matches(machine, out, "shutdown", bin_dir=bin_dir)
    save(shutdown, f"{prefix}-shutdown")
    assert splash[0].pixels != shutdown.pixels

    # Not root: the kernel hands the framebuffer to root alone, and the reason is said.
    assert machine.run(f"chmod 666 /dev/dri/card0 && setpriv --reuid=65534 --regid=65534 --clear-groups "
                       f"{bin_dir}/splashctl {SOCKET} screenshot /run/out/user.png 2> /run/out/user.txt") == 1
    said = open(os.path.join(out, "user.txt")).read()
    assert "needs root" in said, said
    return splash
