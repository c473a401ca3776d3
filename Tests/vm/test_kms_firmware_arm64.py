"""From power-on on arm64 (issue 49): test_kms_firmware.py's story (`kms_guest.firmware_logo_kept`)
in the arm64 VM of test_kms_arm64.py, booted by Debian's UEFI firmware for it (AAVMF, package
qemu-efi-aarch64: `VM(arch="arm64", firmware=True)`), which draws the TianoCore logo on the
virtio GPU and publishes it as ACPI's BGRT as OVMF does. The logo captured while the firmware
shows it is, pixel for pixel and at the BGRT's place, in the splash of a theme with
`logo = "firmware"` drawn by the arm64 splashd-kms; the BGRT's size is the BMP's own (read in the
guest), not OVMF's. The firmware's logo is a BMP the renderer decodes itself: no librsvg, no logo
process, so no CPU budget the emulation could exceed.

    ARM64_BIN_DIR=.build/arm64/aarch64-unknown-linux-gnu/release python3 -m pytest -q -p no:cacheprovider Tests/vm/test_kms_firmware_arm64.py

Skipped and failed as test_kms_arm64.py (its `guest` fixture says what is missing), and failed
when ARM64_BIN_DIR is set and AAVMF is not installed."""

import os

import pytest

import kms_guest
import vm
from test_kms_arm64 import THEME, arm64_vm, guest, pytestmark  # noqa: F401 (the fixture and the skip)


def test_the_firmwares_logo_stays_where_aavmf_drew_it_and_no_mode_is_set(guest):  # noqa: F811
    if not (os.path.exists(vm.AAVMF_CODE) and os.path.exists(vm.AAVMF_VARS)):
        pytest.fail(f"ARM64_BIN_DIR is set, but the arm64 firmware test lacks AAVMF, {vm.AAVMF_CODE} (package qemu-efi-aarch64)")
    with arm64_vm(guest, outputs=1, second_output=False, firmware=True) as machine:
        kms_guest.firmware_logo_kept(machine, bin_dir=guest["bin_dir"], theme=THEME)
