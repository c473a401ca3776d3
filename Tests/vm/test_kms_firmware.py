"""From power-on (design §16): the firmware's logo kept, and the first frame without a mode set.

A UEFI firmware (Debian's OVMF) boots the VM's kernel: it draws its logo on the virtio GPU and
publishes it as ACPI's BGRT. The test captures the logo while the firmware shows it, then the
splash of a theme with `logo = "firmware"`, and compares the two pixel for pixel at the place the
firmware published (docs/renderer-kms.md, "From power-on"; `kms_guest.firmware_logo_kept`, which
test_kms_firmware_arm64.py tells under AAVMF on arm64).
"""

import os

import kms_guest
from processes import BIN, ROOT
import vm

THEME = os.path.join(ROOT, "renderer/themes/reference")


def test_the_firmwares_logo_stays_where_the_firmware_drew_it_and_no_mode_is_set():
    with vm.VM(outputs=1, second_output=False, firmware=True) as machine:
        kms_guest.firmware_logo_kept(machine, bin_dir=BIN, theme=THEME)
