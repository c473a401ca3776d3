"""`make bench-initramfs`: what the splash adds to an initramfs (docs/benchmarks.md, "The
initramfs"): Debian's mkinitramfs with splashd-kms's hook, for the shipped binary (make dist's,
in SPLASHD_BIN_DIR, default .build/dist/release) and two themes, the reference (an SVG logo: librsvg, libxml2 and ICU come
along) and the same with the firmware's logo (no image library at all); the largest files added."""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
from processes import ROOT  # noqa: E402
import vm  # noqa: E402
from test_kms_initramfs import THEME, build  # noqa: E402


def files(image):
    listing = subprocess.run(["lsinitramfs", "-l", image], capture_output=True, text=True, check=True).stdout
    rows = (line.split() for line in listing.splitlines())
    return {row[-1]: int(row[4]) for row in rows if len(row) > 5 and row[4].isdigit() and row[0].startswith("-")}


def main():
    binary = os.path.join(os.environ.get("SPLASHD_BIN_DIR") or os.path.join(ROOT, ".build/dist/release"), "splashd-kms")
    assert os.path.exists(binary), "make dist first: the shipped binary is measured"
    release, _ = vm.kernel("6.1")
    with tempfile.TemporaryDirectory(prefix="splashd-initramfs.") as tmp:
        # Stripped as the package's (scripts/install.sh).
        shipped = os.path.join(tmp, "splashd-kms-shipped")
        subprocess.run(["strip", "--remove-section=.comment", "--remove-section=.note", "-o", shipped, binary], check=True)
        binary = shipped
        firmware = os.path.join(tmp, "firmware-theme")
        shutil.copytree(THEME, firmware)
        path = os.path.join(firmware, "theme.toml")
        with open(path) as f:
            text = f.read().replace('logo = "logo.svg"', 'logo = "firmware"')
        with open(path, "w") as f:
            f.write(text)
        plain = build(tmp, release, splash=False, binary=binary)
        base = files(plain)
        print(f"splashd-kms {os.path.getsize(binary)} bytes; initramfs without the splash: {os.path.getsize(plain)} bytes")
        for name, theme in [("reference (SVG logo)", THEME), ("firmware logo", firmware)]:
            image = build(tmp, release, binary=binary, theme=theme)
            added = {path: size for path, size in files(image).items() if path not in base}
            print(f"\n{name}: {os.path.getsize(image)} bytes, {os.path.getsize(image) - os.path.getsize(plain)} more compressed; "
                  f"{sum(added.values())} more unpacked in {len(added)} files")
            for path, size in sorted(added.items(), key=lambda item: -item[1])[:12]:
                print(f"  {size:>10}  {path}")


if __name__ == "__main__":
    main()
