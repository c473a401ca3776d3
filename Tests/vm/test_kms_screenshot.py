"""`splashctl screenshot` on real kernel DRM drivers (design §15), and the update and shutdown views
on the VM's display: every screenshot the guest takes is held against QMP's screendump of the
same moment, taken from outside; with SPLASHD_SCREENSHOTS=DIR the screendumps are kept as PNGs
(docs/kms-vm-update.png and docs/kms-vm-shutdown.png are two of them)."""

import os
import tempfile

import pytest

from kms_screenshots import screenshots_and_views
from processes import BIN
import vm
from test_kms import THEME, build_app

pytestmark = pytest.mark.skipif(
    not (vm.shutil.which("qemu-system-x86_64") and vm.kernel() and os.path.exists("/bin/busybox")),
    reason="needs qemu-system-x86, linux-image-amd64 and busybox-static (scripts/setup.sh vm installs them)",
)


def test_screenshots_are_what_the_display_shows_and_the_update_and_shutdown_views():
    """The splash's frame, the update view, the app's frame after the hand-off and the shutdown
    view: `splashctl screenshot` of each equals QMP's screendump of the same moment. A screenshot
    of an output that is not there, or by a user who is not root, is refused with its reason."""
    app = build_app()
    out = tempfile.mkdtemp(prefix="splashd-shots.")
    os.chmod(out, 0o777)
    with vm.VM(shares={"out": out}) as machine:
        screenshots_and_views(machine, app, out, bin_dir=BIN, theme=THEME)
