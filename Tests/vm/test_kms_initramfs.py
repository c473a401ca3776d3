"""The splash from the initramfs (design §16): a real `mkinitramfs` image with splashd-kms's hook
boots the VM; the renderer draws the theme's still view before any splashd, is still on screen
after the switch to the real root, and follows the launch there as the same process
(docs/renderer-kms.md, "From the initramfs").

The image is Debian's initramfs-tools with the package's hook and boot scripts, the GPU's and 9p's
modules only (MODULES=list), and a boot method of the test's (Tests/vm/initramfs-boot.sh) that
mounts this machine's root over 9p and holds the initramfs until the screen is captured.
"""

import os
import shutil
import subprocess
import tempfile

import pytest

from processes import BIN, ROOT
from test_kms import RED, WHITE, add_plugin, config, logo_and_text_drawn, retry_button, until, wait_screen
import vm

THEME = os.path.join(ROOT, "renderer/themes/reference")
MODULES = ["virtio_pci", "virtio_gpu", "9pnet_virtio", "9p", "overlay"]


def build(tmp, release, splash=True, theme=THEME, binary=None):
    """An initramfs made by mkinitramfs with the package's hook (SPLASH=yes or no), for `theme`
    and the renderer `binary` (default: this build's, without its debug sections); its path."""
    conf = os.path.join(tmp, "conf")
    shutil.rmtree(conf, ignore_errors=True)
    shutil.copytree("/etc/initramfs-tools", conf, symlinks=True)
    with open(os.path.join(conf, "initramfs.conf")) as f:
        settings = [line for line in f if not line.startswith("MODULES=")]
    with open(os.path.join(conf, "initramfs.conf"), "w") as f:
        f.writelines(settings + ["MODULES=list\n"])
    with open(os.path.join(conf, "modules"), "w") as f:
        f.write("\n".join(MODULES) + "\n")
    for path in ["hooks/splashd-kms", "scripts/init-top/splashd-kms", "scripts/init-bottom/splashd-kms"]:
        os.makedirs(os.path.dirname(os.path.join(conf, path)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, "initramfs", path), os.path.join(conf, path))
    shutil.copy(os.path.join(ROOT, "Tests/vm/initramfs-boot.sh"), os.path.join(conf, "scripts/splashdtest"))
    settings = os.path.join(tmp, "initramfs.conf")
    with open(settings, "w") as f:
        f.write(f'SPLASH={"yes" if splash else "no"}\nTHEME={theme}\nDRM_MODULES="virtio-gpu"\n')
    if binary is None:
        # The debug build without its debug sections.
        binary = os.path.join(tmp, "splashd-kms")
        subprocess.run(["strip", "--strip-debug", "-o", binary, os.path.join(BIN, "splashd-kms")], check=True)
    image = os.path.join(tmp, f"initrd-{'splash' if splash else 'none'}-{os.path.basename(theme)}.img")
    env = {**os.environ, "SPLASHD_INITRAMFS_CONF": settings, "SPLASHD_KMS": binary, "SWIFT_BACKTRACE": "enable=no"}
    made = subprocess.run(["mkinitramfs", "-d", conf, "-o", image, release], env=env, capture_output=True, text=True)
    assert made.returncode == 0, f"mkinitramfs: {made.stderr}"
    return image


def test_the_splash_from_the_initramfs_carries_on_in_the_real_root():
    release, _ = vm.kernel("6.1")
    with tempfile.TemporaryDirectory(prefix="splashd-initramfs.") as tmp:
        plain, image = build(tmp, release, splash=False), build(tmp, release)
        listing = subprocess.run(["lsinitramfs", image], capture_output=True, text=True, check=True).stdout.split()
        assert "usr/bin/splashd-kms" in listing and "usr/share/splashd/initramfs/theme/theme.toml" in listing, "the hook's files"
        assert "usr/bin/splashd-kms" not in subprocess.run(["lsinitramfs", plain], capture_output=True, text=True).stdout.split()
        print(f"initramfs: {os.path.getsize(plain)} bytes without the splash, {os.path.getsize(image)} with it")
        init = os.path.join(ROOT, "Tests/vm/initramfs-init.sh")
        with vm.VM(initrd=image, ready=b"initramfs: holding\n", append=f"boot=splashdtest init={init}") as machine:
            # Still in the initramfs (held there): no splashd anywhere, the theme's still view
            # (logo and name, after its entry) on both outputs.
            for head in (0, 1):
                wait_screen(machine, head, logo_and_text_drawn, "the still view from the initramfs")
            machine.control.sendall(b"go\n")
            machine.wait_for(b"vm: ready\n", 300)
            # In the real root: the same process, moved into it, still on screen; no second one.
            assert machine.run("pid=$(cat /run/splashd-kms/initramfs.pid) && [ \"$(pidof splashd-kms)\" = \"$pid\" ] "
                               "&& [ \"$(readlink /proc/$pid/root)\" = / ] && [ \"$(head -c 1 /proc/$pid/cmdline)\" = @ ] "
                               "&& [ \"$(cat /run/splashd-kms/new-root)\" = ok ]") == 0, "the initramfs's renderer, in the real root"
            for head in (0, 1):
                wait_screen(machine, head, logo_and_text_drawn, "the splash after the switch")
            assert machine.run(f"{BIN}/splashd-kms condition; [ $? = 1 ]") == 0, "the unit's condition skips a second renderer"
            assert machine.run(f"{BIN}/splashd-kms-first-frame --condition; [ $? = 1 ]") == 0, "so does the one the unit runs"
            # splashd starts (its socket where the renderer waits for it): the launch goes on with
            # the same renderer, whose indicator shows once the launch is slow.
            # (Its plugin in /var/tmp: initramfs-tools mounts /run noexec, and splashd would refuse
            # it there, then stop for a step with no plugin.)
            add_plugin(machine, "gate", "/var/tmp/plugins")
            assert machine.run(config("/run/t/splashd.toml", slow_after="1s", timeout="10m").replace(
                " > /run/t/splashd.toml", " '' '[[step]]' 'id = \"gate\"' 'plugin = \"gate\"' > /run/t/splashd.toml")) == 0
            assert machine.run(f"mkdir -p /run/splashd && {BIN}/splashd --config /run/t/splashd.toml --plugin-dir /var/tmp/plugins "
                               "--socket /run/splashd/splashd.sock --state-dir /run/t/state --log-format text "
                               ">/run/t/splashd.log 2>&1 &") == 0
            until(machine, "grep -q 'connected to /run/splashd/splashd.sock' /run/splashd-kms/initramfs.log",
                  "the renderer from the initramfs connected to splashd", show="cat /run/splashd-kms/initramfs.log")
            w, h = 1280, 800
            wait_screen(machine, 0, lambda s: s.count(w // 2 - 30, h // 2 + 100, w // 2 + 30, h // 2 + 160, WHITE, 60) > 20,
                        "the indicator of the launch in the real root")
            assert machine.run("[ \"$(pidof splashd-kms)\" = \"$(cat /run/splashd-kms/initramfs.pid)\" ] "
                               "&& [ $(grep -c 'first frame on' /run/splashd-kms/initramfs.log) = 1 ]") == 0, \
                "one renderer all along"
            # The step fails: the error view, whose title (at 500) and button (at 600) are in
            # faces the initramfs never drew with. Found: fontconfig had listed the initramfs's
            # copies, gone after the switch, and pango drew them as boxes ("font_face status is:
            # file not found"). The faces come from the real root now, at the same paths.
            assert machine.run("touch /run/t/fail-1") == 0
            screen = wait_screen(machine, 0, lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200, "the error view in the real root")
            retry_button(screen)
            # Its fonts from the hook's directories, with no configuration file for fontconfig
            # (none is in the initramfs: it would have said it could not load one).
            assert machine.run("grep -q 'no fontconfig configuration read' /run/splashd-kms/initramfs.log") == 0, "--font-dir"
            if machine.run("grep -q 'Pango-WARNING\\|Fontconfig' /run/splashd-kms/initramfs.log") == 0:
                machine.run(f"cat /run/splashd-kms/initramfs.log > {machine.console_device}")
                pytest.fail(f"pango could not load a face in the real root:\n{machine.console_text()[-3000:]}")
