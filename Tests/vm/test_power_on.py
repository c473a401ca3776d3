"""One picture from power-on to the app (design §16; docs/power-on.md): the filmstrip's rules for
splashd as it ships, not its timings.

power_on.py's VM boots from its UEFI firmware (OVMF, its logo) an image with the packages of
$SPLASHD_DIST installed and an initramfs made by initramfs-tools in the image, with the
splashd-kms hook on (SPLASH=yes); systemd is PID 1, splashd starts the app's unit (`[app]`), and
the test app takes the display at the hand-off. Both outputs are captured every 50 ms from QEMU's
start to the app's first frame, each capture classified (frames.py). On each output, from its
first picture (the firmware's logo on the first; the splash on the second, which the firmware
leaves off) to the app:

- no console text;
- from the splash to the app, only splash or app frames (no black, nothing else);
- the renderer the initramfs started is the one that shows the splash in the real root.

Black between the firmware's logo and the splash is counted, not held: the guest's GPU driver
resets the device when it takes it (QEMU's placeholder, then the kernel's text console on the
driver's frame buffer, black with the cursor off), and the splash comes once the renderer has
started, which in this emulated guest takes seconds (docs/power-on.md, "Where the black and the
console come from").

Needs root (the image's mounts and chroot), qemu, OVMF, initramfs-tools and the packages:
scripts/test.sh sets SPLASHD_DIST after `make deb`.
"""

import glob
import os
import shutil

import pytest

import frames
import power_on
import vm

DIST = os.environ.get("SPLASHD_DIST", "")

needs_the_vm = pytest.mark.skipif(
    not (DIST and glob.glob(os.path.join(DIST, "splashd-kms_*.deb")) and os.geteuid() == 0
         and shutil.which("qemu-system-x86_64") and shutil.which("mkinitramfs") and os.path.exists(vm.OVMF) and vm.kernel()),
    reason="needs root, qemu, OVMF, initramfs-tools, and the packages in $SPLASHD_DIST (scripts/test.sh sets it after make deb)")


def rules(summary):
    """What the filmstrip's rules find wrong on each output: [(output, what)]."""
    wrong = []
    for head, s in summary.items():
        where = f"output {head + 1} ({s['runs']})"
        if s["app"] is None:
            wrong.append((head, f"{where}: the app never showed"))
        if s["console"]:
            wrong.append((head, f"{where}: {s['console']} console captures"))
        if set(s["after_splash"]) - {"splash", "app"}:
            wrong.append((head, f"{where}: from the splash to the app, {s['after_splash']}"))
    return wrong


def test_the_rules_find_what_a_person_would_see():
    """The rules themselves, on summaries of made-up filmstrips: each breach is found."""
    def film(*kinds_per_head):
        return {"frames": {h: [[i * 0.05, k] for i, k in enumerate(kinds)] for h, kinds in enumerate(kinds_per_head)},
                "whole": {h: None for h in range(len(kinds_per_head))}}
    good = film(["black", "firmware", "firmware", "black", "splash", "splash", "app", "app"],
                ["black", "black", "black", "splash", "app", "app"])
    assert rules(power_on.summary(good)) == []
    assert rules(power_on.summary(film(["firmware", "console", "splash", "app"], ["splash", "app"])))[0][0] == 0
    # Black before the splash (the driver's takeover) is counted, not a breach.
    assert rules(power_on.summary(film(["firmware", "black", "black", "splash", "app"], ["splash", "app"]))) == []
    assert rules(power_on.summary(film(["firmware", "splash", "app"], ["splash", "mixed", "splash", "app"])))[0][0] == 1
    # Black between the splash and the app is.
    assert rules(power_on.summary(film(["firmware", "splash", "black", "app"], ["splash", "app"])))
    assert rules(power_on.summary(film(["firmware", "splash", "black", "black", "app"], ["splash", "app"])))
    assert rules(power_on.summary(film(["firmware", "splash"], ["splash", "app"])))


@needs_the_vm
def test_from_power_on_to_the_app_one_picture_with_the_initramfs_hook():
    power_on.private_mount_namespace()
    with power_on.image("splashd-initramfs", DIST) as built:
        assert built["has_splashd_kms"], "the hook put the renderer into the initramfs"
        result = power_on.boot("splashd-initramfs", built)
    summary = result["summary"]
    for head, s in summary.items():
        print(f"output {head + 1}: {s['runs']}")
    print(result["journal"])
    path = power_on.save(result, "test-splashd-initramfs")
    assert result["carried_over"], f"the initramfs's renderer moved into the real root and shows the splash there:\n{result['journal']}"
    assert summary[0]["runs"][0][0] in ("black", "none", "firmware") and any(k == "firmware" for k, _ in summary[0]["runs"]), \
        f"the firmware's logo first on output 1 ({path}): {summary[0]['runs']}"
    assert all(kind in frames.KINDS + ("none",) for s in summary.values() for kind, _ in s["runs"])
    print(f"black captures between the firmware's logo and the splash: output 1 {summary[0]['black']}, output 2 {summary[1]['black']}")
    wrong = rules(summary)
    assert not wrong, f"the filmstrip ({path}): " + "; ".join(what for _, what in wrong)
