"""From power-on (design §16): the firmware's logo kept, and the first frame without a mode set.

A UEFI firmware (Debian's OVMF) boots the VM's kernel: it draws its logo on the virtio GPU and
publishes it as ACPI's BGRT. The test captures the logo while the firmware shows it, then the
splash of a theme with `logo = "firmware"`, and compares the two pixel for pixel at the place the
firmware published (docs/renderer-kms.md, "From power-on").
"""

import os

from processes import BIN, ROOT
from test_kms import add_plugin, config, until, wait_screen
import vm

THEME = os.path.join(ROOT, "renderer/themes/reference")
BLACK = (0, 0, 0)
WHITE = (0xFF, 0xFF, 0xFF)


def logo_box(screen):
    """The bounding box (x0, y0, x1, y1) of what is not black, or None."""
    width, height, pixels = screen
    xs, ys = [], []
    for y in range(height):
        row = pixels[y * width * 3:(y + 1) * width * 3]
        if row.count(0) == len(row):
            continue
        for x in range(width):
            if row[3 * x] or row[3 * x + 1] or row[3 * x + 2]:
                xs.append(x)
                ys.append(y)
    return (min(xs), min(ys), max(xs) + 1, max(ys) + 1) if xs else None


def crop(screen, x, y, w, h):
    width, _, pixels = screen
    return b"".join(pixels[((y + row) * width + x) * 3:((y + row) * width + x + w) * 3] for row in range(h))


def test_the_firmwares_logo_stays_where_the_firmware_drew_it_and_no_mode_is_set():
    with vm.VM(outputs=1, second_output=False, firmware=True) as machine:
        # The firmware's screen: its logo alone on black (before the kernel writes anything).
        shown = [(s, logo_box(s)) for s in machine.boot_screens if (s[0], s[1]) == (1280, 800)]
        firmware = next(((s, box) for s, box in shown if box and box[3] - box[1] < 100), None)
        assert firmware, f"no screen of the firmware's logo among {len(machine.boot_screens)} captured"
        screen, (x0, y0, x1, y1) = firmware
        assert machine.run("cat /sys/firmware/acpi/bgrt/xoffset /sys/firmware/acpi/bgrt/yoffset > /run/t/bgrt") == 0
        # The theme: the reference's words, on the firmware's black, with the firmware's logo.
        assert machine.run(f"mkdir -p /run/t/theme && cp {THEME}/* /run/t/theme/ && sed -i "
                           "'s/^logo = .*/logo = \"firmware\"\\nlogo_fallback = \"logo.svg\"/; s/^background = .*/background = \"#000000\"/' "
                           "/run/t/theme/theme.toml") == 0
        # A step that holds the launch (no hand-off: the splash stays up and draws its texts).
        add_plugin(machine, "hold")
        assert machine.run(config("/run/t/splashd.toml", slow_after="10m", timeout="10m").replace(
            " > /run/t/splashd.toml", " '' '[[step]]' 'id = \"hold\"' 'plugin = \"hold\"' > /run/t/splashd.toml")) == 0
        assert machine.run(f"{BIN}/splashd --config /run/t/splashd.toml --plugin-dir /run/t/plugins --socket /run/t/s.sock --state-dir /run/t/state "
                           "--log-format text >/run/t/splashd.log 2>&1 &") == 0
        until(machine, "[ -S /run/t/s.sock ]", "splashd listening in the guest")
        assert machine.run(f"{BIN}/splashd-kms --socket /run/t/s.sock --theme /run/t/theme >/run/t/kms.log 2>&1 &") == 0
        # The name under the logo, in white: the splash is up.
        drawn = wait_screen(machine, 0, lambda s: s.count(0, y1 + 24, 1280, y1 + 64, WHITE, 60) > 200, "the name under the firmware's logo")
        splash = (drawn.width, drawn.height, drawn.pixels)
        # The firmware's logo, pixel for pixel, where the firmware drew it.
        w, h = x1 - x0, y1 - y0
        same = sum(a == b for a, b in zip(crop(screen, x0, y0, w, h), crop(splash, x0, y0, w, h)))
        assert same == w * h * 3, f"{w * h * 3 - same} of {w * h * 3} channel values differ in the logo's {w}x{h} at {x0},{y0}"
        assert machine.run("grep -q \"the firmware's logo: 193x58 at $(head -1 /run/t/bgrt),$(tail -1 /run/t/bgrt)\" /run/t/kms.log") == 0, \
            "the renderer read the BGRT's place"
        # The console's mode was already the chosen one: the picture alone was replaced.
        assert machine.run("grep -q 'Virtual-1: the first frame replaced the picture, with no mode set' /run/t/kms.log") == 0
        assert machine.run("! grep -q 'the mode is set' /run/t/kms.log") == 0
