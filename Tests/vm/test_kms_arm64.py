"""splashd-kms on arm64 (issue 49): the arm64 build's splashd and splashd-kms on Debian 12's arm64
kernel in qemu-system-aarch64 (vm.py, VM(arch="arm64")), with the same virtio GPU of two outputs
as the amd64 VM tests and the same stories: the splash drawn on both, the hand-off to the app with
no gap and the splash back for every launch (kms_guest.hand_off_and_back, as test_kms.py), and
`splashctl screenshot` held against QMP's screendump with the update and shutdown views
(kms_screenshots.screenshots_and_views, as test_kms_screenshot.py).

    ARM64_BIN_DIR=.build/arm64/aarch64-unknown-linux-gnu/release python3 -m pytest -q -p no:cacheprovider Tests/vm/test_kms_arm64.py

Skipped when ARM64_BIN_DIR is unset; failed when it is set and something the VM needs is not
there: the guest's root (scripts/arm64/vmroot.sh), qemu-system-aarch64, the binaries, a clang
with lld (the Swift toolchain's) that builds the test app (Tests/vm/app.c) for arm64 against
scripts/arm64/prepare.sh's sysroot. The guest sees the checkout (the theme), the binaries and the app at their own paths
(`mounts`). As the package lays them out, splashctl is a link to splashd where the build has
none of its own. SPLASHD_SCREENSHOTS=DIR keeps the screendumps as PNGs (kms-vm-arm64-*.png)."""

import contextlib
import os
import shutil
import subprocess
import tempfile
import time

import pytest

import kms_guest
import vm
from kms_screenshots import save, screenshots_and_views

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
THEME = os.path.join(ROOT, "renderer/themes/reference")
BIN_DIR = os.environ.get("ARM64_BIN_DIR")
SYSROOT = os.path.join(os.environ.get("ARM64_CACHE", "/var/cache/splashd-arm64"), "target")
BINARIES = ("splashd", "splashd-kms")

pytestmark = pytest.mark.skipif(
    not BIN_DIR, reason="ARM64_BIN_DIR is unset: the arm64 build's binaries (scripts/arm64/build.sh: "
                        ".build/arm64/aarch64-unknown-linux-gnu/release)")


def arm64_elf(path):
    """Whether `path` is an ELF executable for arm64 (e_machine 183, EM_AARCH64)."""
    with open(path, "rb") as f:
        header = f.read(20)
    return header[:4] == b"\x7fELF" and int.from_bytes(header[18:20], "little") == 183


def app_missing():
    """What building the test app for arm64 needs and this machine lacks, each with what to do."""
    missing = []
    if not shutil.which("clang"):
        missing.append("clang (with lld: the Swift toolchain's), to build the test app for arm64")
    if not os.path.isdir(os.path.join(SYSROOT, "usr/include/libdrm")):
        missing.append(f"the arm64 sysroot with libdrm's headers, {SYSROOT} (scripts/arm64/prepare.sh)")
    return missing


def build_app(path):
    """The test app (Tests/vm/app.c) built for arm64 at `path`, against the arm64 sysroot."""
    subprocess.run([shutil.which("clang"), "--target=aarch64-linux-gnu", f"--sysroot={SYSROOT}", "-fuse-ld=lld", "-O2", "-Wall",
                    f"-I{SYSROOT}/usr/include/libdrm", "-o", path, os.path.join(os.path.dirname(__file__), "app.c"), "-ldrm"],
                   check=True)


@pytest.fixture(scope="module")
def guest():
    """What the arm64 VM runs: a directory of the binaries (links to ARM64_BIN_DIR's, and
    splashctl), the test app built for arm64, and the `mounts` that show them and the checkout to
    the guest. Anything missing fails the test with what to do."""
    bin_dir = os.path.abspath(BIN_DIR)
    missing = []
    if not shutil.which("qemu-system-aarch64"):
        missing.append("qemu-system-aarch64 (package qemu-system-arm)")
    if not vm.kernel("6.1", vm.ARM64_ROOT):
        missing.append(f"the arm64 guest's root with its kernel, {vm.ARM64_ROOT} (scripts/arm64/vmroot.sh makes it)")
    for name in BINARIES:
        path = os.path.join(bin_dir, name)
        if not (os.path.isfile(path) and arm64_elf(path)):
            missing.append(f"{path}, an arm64 executable (scripts/arm64/build.sh)")
    missing += app_missing()
    if missing:
        pytest.fail("ARM64_BIN_DIR is set, but the arm64 VM test lacks:\n  " + "\n  ".join(missing))
    here = tempfile.mkdtemp(prefix="splashd-arm64.")
    os.chmod(here, 0o755)
    links = os.path.join(here, "bin")
    os.mkdir(links)
    for name in (*BINARIES, "splashd-kms-first-frame"):
        if os.path.exists(os.path.join(bin_dir, name)):
            os.symlink(os.path.join(bin_dir, name), os.path.join(links, name))
    splashctl = os.path.join(bin_dir, "splashctl")
    os.symlink(splashctl if os.path.exists(splashctl) else os.path.join(bin_dir, "splashd"), os.path.join(links, "splashctl"))
    app = os.path.join(here, "app")
    build_app(app)
    mounts = {ROOT: ROOT, here: here}
    if os.path.commonpath([bin_dir, ROOT]) != ROOT:
        mounts[bin_dir] = bin_dir
    yield {"bin_dir": links, "app": app, "mounts": mounts}
    shutil.rmtree(here, ignore_errors=True)


@contextlib.contextmanager
def arm64_vm(guest, **options):
    """The arm64 VM, booted (how long it took to answer on its control port printed), stopped."""
    started = time.monotonic()
    with vm.VM(arch="arm64", root=vm.ARM64_ROOT, mounts=guest["mounts"], **options) as machine:
        print(f"arm64 VM: its control port answered {time.monotonic() - started:.1f} s after QEMU's start")
        assert machine.run("[ $(uname -m) = aarch64 ]") == 0, "an arm64 guest"
        yield machine


def test_the_app_takes_the_display_with_no_gap_and_the_splash_comes_back_for_every_launch(guest):
    """The hand-off with no gap and the splash back for every launch (`kms_guest.hand_off_and_back`
    tells it), on arm64."""
    with arm64_vm(guest) as machine:
        kms_guest.hand_off_and_back(machine, guest["app"], bin_dir=guest["bin_dir"], theme=THEME)


def logo_drawn(screen):
    """The theme's logo (the reference's rocket, teal and orange) inside the logo's white circle:
    more than the circle alone."""
    cx, cy = screen.width // 2, screen.height // 2 - 40
    return screen.count(cx - 36, cy - 36, cx + 36, cy + 36, kms_guest.WHITE, 8) < 72 * 72 - 300


# Why the renderer may draw the splash without the logo here: the logo's drawing process has
# 2 s of CPU (LogoBudget), and under TCG loading librsvg alone can take more (the reference's
# logo costs 2 ms natively; an SVG of one rectangle is refused here as well).
LOGO_OVER_BUDGET = "cannot draw the logo: drawing it needs more than 2 s of CPU, the budget"


def test_screenshots_are_what_the_display_shows_and_the_update_and_shutdown_views(guest):
    """The splash on both outputs, each laid out for its size, the update and shutdown views and
    the app's frame: `splashctl screenshot` of each equals QMP's screendump of the same moment
    (`kms_screenshots.screenshots_and_views`), on arm64. The logo is drawn, or the renderer said
    that its drawing went over its CPU budget (the emulation's cost)."""
    out = tempfile.mkdtemp(prefix="splashd-shots.")
    os.chmod(out, 0o777)
    with arm64_vm(guest, shares={"out": out}) as machine:
        splash = screenshots_and_views(machine, guest["app"], out, bin_dir=guest["bin_dir"], theme=THEME, prefix="kms-vm-arm64")
        logo = [logo_drawn(s) for s in splash]
        over_budget = machine.run(f"grep -q '{LOGO_OVER_BUDGET}' /run/t/kms.log") == 0
    print(f"the logo: drawn on {logo.count(True)} of 2 outputs; the renderer said it went over its CPU budget: {over_budget}")
    assert all(logo) or (not any(logo) and over_budget), f"the logo drawn on {logo}, and not for its budget"
    assert [(s.width, s.height) for s in splash] == [(1280, 800), (1024, 768)], "each output laid out for its own size"
    for head, screen in enumerate(splash):
        save(screen, f"kms-vm-arm64-splash-Virtual-{head + 1}")
    shutil.rmtree(out, ignore_errors=True)
