"""The app watch on arm64 (issue 49): test_kms_systemd.py's story (`the_apps_life`) with the arm64
packages, in the arm64 VM of vm.py (`VM(arch="arm64", systemd=True)`: qemu-system-aarch64, Debian
12's arm64 kernel, systemd as PID 1). The image (`systemd_image`) is an overlay of the arm64
guest's root (scripts/arm64/vmroot.sh) where the packages of $ARM64_DIST (splashd, splashd-kms,
splashd-themes) are installed with dpkg in a chroot, under qemu-user through binfmt_misc, with the
test app built for arm64. The boot's launch runs to `finished` and hands the display to the app;
splashd is a child subreaper there (a plugin's orphan is given to it: qemu-user refuses
PR_SET_CHILD_SUBREAPER with EINVAL, so Tests/arm64 cannot show it); the app killed, the splash is back, its
unit is restarted through the polkit grant (polkitd is in the guest's root for this) and takes
the display again, with one renderer process throughout; then the crash loop, Retry by touch and
the hang.

    ARM64_DIST=dist/arm64 python3 -m pytest -q -p no:cacheprovider Tests/vm/test_kms_systemd_arm64.py

Skipped when ARM64_DIST is unset; failed when it is set and something the test needs is not
there: root, the packages, the guest's root with its kernel and polkitd, qemu-system-aarch64,
qemu-user's binfmt_misc entry for arm64, what builds the test app (test_kms_arm64.app_missing)."""

import glob
import os
import shutil
import tempfile

import pytest

import vm
from test_kms_arm64 import app_missing, build_app
from test_kms_systemd import systemd_image, the_apps_life

DIST = os.environ.get("ARM64_DIST")
PACKAGES = ("splashd_*_arm64.deb", "splashd-kms_*_arm64.deb", "splashd-themes_*_all.deb")
BINFMT = "/proc/sys/fs/binfmt_misc/qemu-aarch64"

pytestmark = pytest.mark.skipif(not DIST, reason="ARM64_DIST is unset: the arm64 packages' directory (make deb-arm64: dist/arm64)")


def binfmt_ready():
    """Whether arm64 programs run here under qemu-user, in a chroot too (the F flag: the
    interpreter opened when registered)."""
    try:
        entry = open(BINFMT).read()
    except OSError:
        return False
    flags = next((line.split(":", 1)[1] for line in entry.splitlines() if line.startswith("flags:")), "")
    return entry.startswith("enabled") and "F" in flags


@pytest.fixture(scope="module")
def arm64_image():
    """The guest's root: the arm64 guest's, the arm64 packages installed, the app and its unit.
    Anything missing fails the test with what to do."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (the image's mounts, and dpkg in its chroot)")
    debs = []
    for pattern in PACKAGES:
        found = glob.glob(os.path.join(DIST, pattern))
        if len(found) != 1:
            missing.append(f"one {pattern} in {DIST} (make deb-arm64), not {len(found)}")
        debs += found
    if not shutil.which("qemu-system-aarch64"):
        missing.append("qemu-system-aarch64 (package qemu-system-arm)")
    if not vm.kernel("6.1", vm.ARM64_ROOT):
        missing.append(f"the arm64 guest's root with its kernel, {vm.ARM64_ROOT} (scripts/arm64/vmroot.sh makes it)")
    elif not os.path.exists(os.path.join(vm.ARM64_ROOT, "usr/lib/polkit-1/polkitd")):
        missing.append(f"polkitd in the arm64 guest's root, {vm.ARM64_ROOT} (scripts/arm64/vmroot.sh makes it again with it)")
    if not binfmt_ready():
        missing.append(f"qemu-user for arm64 programs in a chroot, {BINFMT} enabled with the F flag (qemu-user-static, binfmt-support)")
    missing += app_missing()
    if missing:
        pytest.fail("ARM64_DIST is set, but the arm64 systemd VM test lacks:\n  " + "\n  ".join(missing))
    here = tempfile.mkdtemp(prefix="splashd-arm64-app.")
    app = os.path.join(here, "app")
    build_app(app)
    with systemd_image(vm.ARM64_ROOT, debs, app) as root:
        yield root
    shutil.rmtree(here, ignore_errors=True)


def test_the_apps_life_on_a_real_display_under_systemd_on_arm64(arm64_image):
    with vm.VM(arch="arm64", root=arm64_image, systemd=True) as machine:
        assert machine.run("[ $(uname -m) = aarch64 ] && [ $(readlink /proc/1/exe) = /usr/lib/systemd/systemd ]") == 0, \
            "an arm64 guest, systemd as PID 1"
        the_apps_life(machine)
