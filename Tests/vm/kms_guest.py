"""What the VM tests of splashd-kms do in the guest, on either architecture (test_kms.py on amd64,
test_kms_arm64.py on arm64): the launch's configuration, splashd and splashd-kms started from a
directory of binaries the guest sees (`bin_dir`) with a theme (`theme`), waits by the guest's own
clock, screens captured with QMP's screendump and read against the reference theme, the test app,
and the hand-off's whole story, shared by both."""

import time

import pytest

TEAL = (0x0D, 0x73, 0x77)
WHITE = (0xFF, 0xFF, 0xFF)
RED = (0xEA, 0x54, 0x55)
MAGENTA = (0xFF, 0x00, 0xFF)
YELLOW = (0xFF, 0xFF, 0x00)
BLACK = (0x00, 0x00, 0x00)


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


def until(machine, condition, what, timeout=PATIENCE, show=""):
    """Waits in the guest until the shell `condition` holds (checked every 50 ms, by the guest's
    own clock, for at most `timeout` seconds); fails the test with the guest's logs otherwise, and
    with what the shell commands `show` print."""
    line = (f"end=$(( $(date +%s) + {timeout} )); until {condition}; do "
            f"[ $(date +%s) -lt $end ] || exit 1; sleep 0.05; done")
    if machine.run(line, timeout=timeout + 60) != 0:
        machine.run(f"{{ {show + ';' if show else ''} cat /run/t/kms.log /run/t/splashd.log; }} > {machine.console_device} 2>&1")
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


def add_plugin(machine, name, directory="/run/t/plugins"):
    """The plugin `name` (PLUGINS) as a script and its manifest in `directory`, which must allow
    running programs (not a `noexec` mount: initramfs-tools mounts /run so)."""
    script = PLUGINS[name].replace("'", "'\\''")
    assert machine.run(f"mkdir -p {directory} && printf '#!/bin/sh\\n%s\\n' '{script}' > {directory}/{name}.sh"
                       f" && chmod +x {directory}/{name}.sh"
                       f" && printf 'exec = \"{directory}/{name}.sh\"\\ntimeout = \"10m\"\\n' > {directory}/{name}.toml") == 0


def start(machine, splash, kms_args="", step="hold", *, bin_dir, theme):
    """splashd (of the directory `bin_dir` in the guest) with the given [splash] settings, a first-frame
    step and the external plugin `step` (or none), then splashd-kms with `kms_args` and `theme`."""
    text = config("/run/t/splashd.toml", **splash)
    if step:
        add_plugin(machine, step)
        text = text.replace(" > /run/t/splashd.toml", f" '' '[[step]]' 'id = \"{step}\"' 'plugin = \"{step}\"' > /run/t/splashd.toml")
    assert machine.run(text) == 0
    assert machine.run(f"{bin_dir}/splashd --config /run/t/splashd.toml --plugin-dir /run/t/plugins --socket /run/t/s.sock --state-dir /run/t/state "
                       "--log-format text >/run/t/splashd.log 2>&1 &") == 0
    until(machine, "[ -S /run/t/s.sock ]", "splashd listening in the guest")
    assert machine.run(f"{bin_dir}/splashd-kms --socket /run/t/s.sock --theme {theme} {kms_args} >/run/t/kms.log 2>&1 &") == 0


def wait_screen(machine, head, predicate, what, timeout=PATIENCE):
    """Captures output `head` until `predicate(screen)` holds; the last screen otherwise."""
    end = time.monotonic() + timeout
    while True:
        screen = Screen(*machine.screendump(head))
        if predicate(screen):
            return screen
        if time.monotonic() > end:
            machine.run(f"cat /run/t/kms.log /run/t/splashd.log > {machine.console_device}")
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
            machine.run(f"cat /run/t/kms.log /run/t/splashd.log > {machine.console_device}")
            pytest.fail(f"{what} never showed; captured {seen}; the guest said:\n{machine.console_text()[-3000:]}")


def handed_over(machine, apps, app, what, watch=None):
    """Captures both outputs until `app` shows on both; asserts splash frames, then the app's, and
    nothing else on each. `watch(done, what)` captures (default: `watch_screens`)."""
    watch = watch or (lambda done, what: watch_screens(machine, apps, done, what))
    runs = watch(lambda s: all(kind_of(x, apps) == app for x in s.values()), what)
    print(f"{what}: frames per output {runs}")
    for head, seen in runs.items():
        assert [kind for kind, _ in seen] == ["splash", app], f"output {head}: {seen}"


def retry_button(screen):
    """The middle of the error view's one button (Retry, no Continue offline): the white pill
    under the red title."""
    w, h = screen.width, screen.height
    reds = [y for y in range(0, h, 2) for x in range(0, w, 2) if screen.near(x, y, RED, 20)]
    pill = [(x, y) for y in range(max(reds) + 8, min(h, max(reds) + 90), 2) for x in range(w // 4, 3 * w // 4, 2)
            if screen.near(x, y, WHITE, 8)]
    assert len(pill) > 300, f"the Retry button: {len(pill)} white pixels under the title"
    return sum(x for x, _ in pill) / len(pill), sum(y for _, y in pill) / len(pill)


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


def start_app(machine, app, colour, log, *, bin_dir):
    """The test app as an app unit with `ExecStartPre=splashd-kms wait` runs it: it waits for the
    renderer's display lock, then must become master at once, paints, and completes first-frame."""
    assert machine.run(f"{{ {bin_dir}/splashd-kms wait --lock /run/t/display.lock; echo waited; "
                       f"APP_NOW=1 exec {app} {colour} '{bin_dir}/splashctl --socket /run/t/s.sock complete first-frame'; }} >{log} 2>&1 & "
                       f"echo $! > {log}.pid") == 0


def hand_off_and_back(machine, app, *, bin_dir, theme):
    """The hand-off (design §13): once only the signal step is left, the renderer stops, keeps its
    last frame and gives DRM master up; the app takes it and paints; its first-frame completes the
    launch; the renderer sends dismissed and stays, holding nothing. Screens captured all along
    show splash frames, then app frames, and nothing else: never black, never the console.

    After it, the renderer stays. The app killed, then a launch: the splash is back on both
    outputs, drawn by the same process, with nothing but the dead app's frame or black between.
    A second app, waiting in `splashd-kms wait` as an app unit does, takes over at the launch's
    hand-off with only splash and app frames. A launch while that app still holds master draws
    nothing until the app is killed; then the splash is back."""
    apps = {"app1": MAGENTA, "app2": YELLOW}
    # The exit animation's limit is far off: only the renderer's dismissed can finish a launch.
    start(machine, {"exit_animation": "10m"}, kms_args="--display-lock /run/t/display.lock", bin_dir=bin_dir, theme=theme)
    for head in (0, 1):
        wait_screen(machine, head, logo_and_text_drawn, "the reference splash")
    assert machine.run("pgrep -x splashd-kms > /run/t/kms.pid") == 0
    # The app starts once `splashd-kms wait` (what the hand-off unit, or the app unit's
    # ExecStartPre, runs) returns, and then must become DRM master at once (APP_NOW).
    start_app(machine, app, "ff00ff", "/run/t/app1.log", bin_dir=bin_dir)
    # (The waiter is looked for by its own command line: `pgrep -f 'splashd-kms wait'` would
    # also find the shell that runs pgrep.) It may not have started yet; once it has, it blocks.
    until(machine, f"pgrep -f '^{bin_dir}/splashd-kms wait' >/dev/null", "`splashd-kms wait` started")
    assert machine.run("[ -e /run/t/display.lock ] && ! grep -q waited /run/t/app1.log") == 0, \
        "the renderer holds the display lock while the launch's work goes on"
    # The hold step ends: only first-frame is left.
    assert machine.run("touch /run/t/go") == 0
    handed_over(machine, apps, "app1", "the first hand-off")
    # The launch finished by the renderer's dismissed (the exit animation's own limit is 10
    # minutes away). The renderer stays, subscribed, holding nothing.
    assert machine.run(f"{bin_dir}/splashctl --socket /run/t/s.sock wait finished --timeout {PATIENCE}s", timeout=PATIENCE + 60) == 0
    until(machine, "grep -q 'the app has the display' /run/t/kms.log", "the renderer letting the display go")
    assert machine.run("grep -q 'no CLOSEFB: waiting for every output' /run/t/kms.log") == 0, "Linux 6.1 has no CLOSEFB"
    assert machine.run("grep -q 'app: painted 2 outputs' /run/t/app1.log && [ ! -e /run/t/display.lock ]") == 0
    assert machine.run("[ $(pgrep -x splashd-kms) = $(cat /run/t/kms.pid) ]") == 0, "the renderer stays"
    # A second renderer started while the app has the display takes nothing from it: it waits
    # for a launch that wants the display, and this one has handed it over.
    assert machine.run(f"{bin_dir}/splashd-kms --socket /run/t/s.sock --theme {theme} >/run/t/kms2.log 2>&1 & echo $! > /run/t/kms2.pid") == 0
    until(machine, "grep -q 'the app keeps it' /run/t/kms2.log", "the second renderer leaving the display to the app")
    assert machine.run("grep -q 'the app has the display): waiting for it to let go' /run/t/kms2.log && kill $(cat /run/t/kms2.pid)") == 0
    for head in (0, 1):
        assert Screen(*machine.screendump(head)).near(0, 0, MAGENTA), "the app keeps the display"

    # 1. The app dies, then a launch (a relaunch: without systemd in this guest nothing
    #    restarts the app). The hold step holds the launch, so the splash stays up.
    assert machine.run("rm /run/t/go && kill -9 $(cat /run/t/app1.log.pid)") == 0
    killed = time.monotonic()
    assert machine.run(f"{bin_dir}/splashctl --socket /run/t/s.sock relaunch") == 0
    splash_back(machine, apps, "the splash back after the app died")
    print(f"app killed -> the splash on both outputs, seen from outside: {time.monotonic() - killed:.2f} s")
    assert machine.run("[ $(pgrep -x splashd-kms) = $(cat /run/t/kms.pid) ]") == 0, "the same renderer process"
    until(machine, "grep -q 'the splash is back on Virtual-1 (1280x800), Virtual-2 (1024x768)' /run/t/kms.log", "the renderer's word")
    assert machine.run("[ -e /run/t/display.lock ]") == 0, "the lock is the renderer's again"

    # 2. The next app waits for the renderer as an app unit does, and takes over at the
    #    hand-off with nothing but splash and app frames between.
    start_app(machine, app, "ffff00", "/run/t/app2.log", bin_dir=bin_dir)
    until(machine, f"pgrep -f '^{bin_dir}/splashd-kms wait' >/dev/null", "the second app waiting in `splashd-kms wait`")
    assert machine.run("! grep -q waited /run/t/app2.log") == 0, "the app waits while the renderer has the display"
    assert machine.run("touch /run/t/go") == 0
    handed_over(machine, apps, "app2", "the second hand-off")
    assert machine.run(f"{bin_dir}/splashctl --socket /run/t/s.sock wait finished --timeout {PATIENCE}s", timeout=PATIENCE + 60) == 0
    until(machine, "[ $(grep -c 'the app has the display' /run/t/kms.log) -ge 2 ]", "the second hand-off's end")

    # 3. A launch while the app still holds master (hung, not yet killed): nothing drawn, no
    #    error; the renderer asks for master at a bounded interval. The app killed, the splash
    #    is back.
    assert machine.run("rm /run/t/go") == 0
    assert machine.run(f"{bin_dir}/splashctl --socket /run/t/s.sock relaunch") == 0
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
                       f"&& grep -E 'is back on|is ours|taking the display back|still has' /run/t/kms.log > {machine.console_device}") == 0


def logo_box(screen):
    """The bounding box (x0, y0, x1, y1) of what is not black on a (width, height, RGB) screen, or
    None."""
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


def firmware_logo_kept(machine, *, bin_dir, theme):
    """From power-on (design §16), in a VM its UEFI firmware booted (`vm.VM(firmware=True)`, one
    output of 1280x800): the logo the firmware showed (captured while it booted) and published as
    ACPI's BGRT is, pixel for pixel and at the firmware's place, in the splash of a theme with
    `logo = "firmware"`; the renderer names the BGRT's size (the BMP's own header, read here with
    od, not with the renderer's decoder) and place; the console's mode being the chosen one, the
    first frame replaced the picture with no mode set."""
    # The firmware's screen: its logo alone on black (before the kernel writes anything).
    shown = [(s, logo_box(s)) for s in machine.boot_screens if (s[0], s[1]) == (1280, 800)]
    firmware = next(((s, box) for s, box in shown if box and box[3] - box[1] < 100), None)
    assert firmware, f"no screen of the firmware's logo among {len(machine.boot_screens)} captured"
    screen, (x0, y0, x1, y1) = firmware
    # The BGRT: place (x y), then the BMP's width and height (negative for rows top-down).
    assert machine.run("cd /sys/firmware/acpi/bgrt && [ $(cat type) = 0 ] && "
                       "echo $(cat xoffset yoffset) $(od -An -tu4 -j18 -N4 image) $(od -An -td4 -j22 -N4 image | tr -d ' -') "
                       "> /run/t/bgrt") == 0, "the firmware publishes a bitmap logo"
    assert machine.run(f"read x y w h < /run/t/bgrt && [ $x -le {x0} ] && [ {x1} -le $((x + w)) ] && [ $y -le {y0} ] && [ {y1} -le $((y + h)) ]"
                       f" && echo \"firmware: BGRT $w x $h at $x,$y; drawn {x1 - x0}x{y1 - y0} at {x0},{y0}\" > {machine.console_device}") == 0, \
        f"what the firmware drew, {x1 - x0}x{y1 - y0} at {x0},{y0}, is the BGRT's logo"
    print(next((line for line in machine.console_text().splitlines() if "firmware: BGRT" in line), "(no BGRT line on the console)"))
    # The theme: the reference's words, on the firmware's black, with the firmware's logo.
    assert machine.run(f"mkdir -p /run/t/theme && cp {theme}/* /run/t/theme/ && sed -i "
                       "'s/^logo = .*/logo = \"firmware\"\\nlogo_fallback = \"logo.svg\"/; s/^background = .*/background = \"#000000\"/' "
                       "/run/t/theme/theme.toml") == 0
    # A step that holds the launch (no hand-off: the splash stays up and draws its texts).
    add_plugin(machine, "hold")
    assert machine.run(config("/run/t/splashd.toml", slow_after="10m", timeout="10m").replace(
        " > /run/t/splashd.toml", " '' '[[step]]' 'id = \"hold\"' 'plugin = \"hold\"' > /run/t/splashd.toml")) == 0
    assert machine.run(f"{bin_dir}/splashd --config /run/t/splashd.toml --plugin-dir /run/t/plugins --socket /run/t/s.sock --state-dir /run/t/state "
                       "--log-format text >/run/t/splashd.log 2>&1 &") == 0
    until(machine, "[ -S /run/t/s.sock ]", "splashd listening in the guest")
    assert machine.run(f"{bin_dir}/splashd-kms --socket /run/t/s.sock --theme /run/t/theme >/run/t/kms.log 2>&1 &") == 0
    # The name under the logo, in white: the splash is up.
    drawn = wait_screen(machine, 0, lambda s: s.count(0, y1 + 24, 1280, y1 + 64, WHITE, 60) > 200, "the name under the firmware's logo")
    splash = (drawn.width, drawn.height, drawn.pixels)
    # The firmware's logo, pixel for pixel, where the firmware drew it.
    w, h = x1 - x0, y1 - y0
    same = sum(a == b for a, b in zip(crop(screen, x0, y0, w, h), crop(splash, x0, y0, w, h)))
    assert same == w * h * 3, f"{w * h * 3 - same} of {w * h * 3} channel values differ in the logo's {w}x{h} at {x0},{y0}"
    assert machine.run("read x y w h < /run/t/bgrt && grep -q \"the firmware's logo: ${w}x${h} at $x,$y\" /run/t/kms.log") == 0, \
        "the renderer read the BGRT's size and place"
    # The console's mode was already the chosen one: the picture alone was replaced.
    assert machine.run("grep -q 'Virtual-1: the first frame replaced the picture, with no mode set' /run/t/kms.log") == 0
    assert machine.run("! grep -q 'the mode is set' /run/t/kms.log") == 0
