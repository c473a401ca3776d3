"""A QEMU virtual machine with real kernel DRM drivers, for splashd-kms's tests (docs/system-tests.md).

Debian's own kernel (linux-image-amd64) boots under TCG with a virtio GPU of two outputs and a
small busybox initramfs (guest-init.sh) that mounts this machine's root file system read-only
over 9p, so the guest runs the very binaries the build made, with every library they load.
Commands go to the guest on its second serial port, one shell line each, answered "done STATUS";
screens are captured from outside with QMP's screendump (PPM), read exactly.

arm64 (`VM(arch="arm64", root=ARM64_ROOT, mounts={CHECKOUT: CHECKOUT})`): qemu-system-aarch64's
`virt` machine (a Cortex-A72, TCG) boots Debian 12's arm64 kernel from the root it shares, which
is not this machine's (its programs are arm64's) but scripts/arm64/vmroot.sh's Debian 12 arm64
tree: the kernel is its /boot/vmlinuz-*, the initramfs's modules are from its /lib/modules and its
busybox is its /bin/busybox. The same GPU (virtio-gpu-pci, two outputs: Virtual-1 and Virtual-2),
tablet, keyboard and 9p shares; the console is the PL011 (ttyAMA0), and the control port, the virt
machine having a single UART, is a virtio console (hvc0: `splashd.control=hvc0` on the kernel's
command line tells control-loop.sh). What the guest runs from this machine (the arm64 build's
binaries, the themes, a test app) is shared by `mounts`: each directory read-only at the same path
in the guest, over a root then made writable by a tmpfs overlay (guest-init.sh), so the paths the
test names are the guest's too.
"""

from __future__ import annotations

import glob
import gzip
import json
import lzma
import os
import shutil
import socket
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay"]
# Debian's UEFI firmware for QEMU (package ovmf): with a virtio GPU it shows its logo and
# publishes it as ACPI's BGRT (/sys/firmware/acpi/bgrt/).
OVMF = "/usr/share/ovmf/OVMF.fd"
# Debian's UEFI firmware for QEMU's arm64 virt machine (package qemu-efi-aarch64): its code, and
# the variables' store each VM copies.
AAVMF_CODE, AAVMF_VARS = "/usr/share/AAVMF/AAVMF_CODE.fd", "/usr/share/AAVMF/AAVMF_VARS.fd"
# The arm64 guest's root: Debian 12 arm64 with its kernel (scripts/arm64/vmroot.sh).
ARM64_ROOT = os.path.join(os.environ.get("ARM64_CACHE", "/var/cache/splashd-arm64"), "vmroot")


# systemd as PID 1 (guest-init.sh switches to it): only the test's target, no fstab of the host
# (its disks are not the guest's), nothing of the host's that would wait for hardware or the net.
SYSTEMD_ARGS = ("splashd.systemd systemd.unit=splashd-vm.target fstab=0 systemd.gpt_auto=0 systemd.show_status=0 "
                "systemd.log_color=0 " + " ".join(f"systemd.mask={unit}" for unit in [
                    "postgresql.service", "apt-daily.service", "apt-daily-upgrade.service", "man-db.service", "e2scrub_all.service",
                    "e2scrub_reap.service", "fstrim.service", "dpkg-db-backup.service", "networking.service", "ssh.service",
                    "systemd-networkd.service", "systemd-resolved.service", "systemd-timesyncd.service", "cron.service",
                    "systemd-binfmt.service", "apparmor.service", "docker.service", "containerd.service"]))


def kernel(series="6.1", root="/"):
    """The newest installed Debian kernel of a series: (release, vmlinuz path), or None. 6.1 is
    Debian 12's own (linux-image-amd64); 6.12 its newer one (linux-image-6.12-amd64), which has
    CLOSEFB (Linux 6.8). `root`: the tree whose /boot is looked in (the arm64 guest's own)."""
    boot = os.path.join(root, "boot/vmlinuz-")

    def version(path):
        release = path[len(boot):]
        parts = release.replace("-", ".").replace("+", ".").split(".")
        return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in parts]
    images = sorted(glob.glob(f"{boot}{series}.*"), key=version)
    if not images:
        return None
    image = images[-1]
    return image[len(boot):], image


def module_name(path):
    """`virtio_pci` of kernel/drivers/virtio/virtio_pci.ko (or .ko.xz, as 6.12 ships them)."""
    base = os.path.basename(path)
    return base[: base.index(".ko")].replace("-", "_")


def module_order(release, wanted, root="/"):
    """The .ko files (paths under ROOT/lib/modules/RELEASE) for `wanted` and their dependencies,
    each after what it needs, from modules.dep; modules built into the kernel (modules.builtin, as
    virtio_pci is in 6.12) are left out."""
    base = os.path.join(root, f"lib/modules/{release}")
    deps = {}
    with open(f"{base}/modules.dep") as f:
        for line in f:
            name, _, rest = line.partition(":")
            deps[name] = rest.split()
    builtin = set()
    if os.path.exists(f"{base}/modules.builtin"):
        with open(f"{base}/modules.builtin") as f:
            builtin = {module_name(line.strip()) for line in f if line.strip()}
    wanted = [module for module in wanted if module not in builtin]
    by_name = {module_name(p): p for p in deps}
    order = []

    def visit(path):
        for dep in deps[path]:
            visit(dep)
        if path not in order:
            order.append(path)

    for module in wanted:
        visit(by_name[module])
    return base, order


def cpio_newc(entries):
    """A cpio archive (newc) of (name, mode, data) entries; directories have data None."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], start=1):
        body = data or b""
        encoded = name.encode() + b"\0"
        fields = [ino, mode, 0, 0, 1, 0, len(body), 0, 0, 0, 0, len(encoded), 0]
        out += b"070701" + b"".join(b"%08X" % v for v in fields) + encoded
        out += b"\0" * (-len(out) % 4)
        out += body
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def build_initramfs(release, path, root="/", modules=MODULES, busybox=None):
    """The busybox initramfs (guest-init.sh) with `modules` of ROOT/lib/modules/RELEASE; this
    machine's busybox unless `busybox` names another (the arm64 guest's)."""
    base, order = module_order(release, modules, root)
    busybox = busybox or shutil.which("busybox") or "/bin/busybox"
    entries = [(d, 0o040755, None) for d in ["bin", "proc", "sys", "dev", "host", "modules"]]
    entries.append(("bin/busybox", 0o100755, open(busybox, "rb").read()))
    for applet in ["sh", "mount", "umount", "cp", "insmod", "mkdir", "cat", "echo", "chroot", "poweroff", "uname", "switch_root"]:
        entries.append((f"bin/{applet}", 0o120777, b"busybox"))
    names = []
    for module in order:
        data = open(f"{base}/{module}", "rb").read()
        name = os.path.basename(module)
        if name.endswith(".xz"):  # busybox's insmod takes them uncompressed
            data, name = lzma.decompress(data), name[: -len(".xz")]
        entries.append((f"modules/{name}", 0o100644, data))
        names.append(name)
    entries.append(("modules.order", 0o100644, "\n".join(names).encode() + b"\n"))
    entries.append(("init", 0o100755, open(os.path.join(HERE, "guest-init.sh"), "rb").read()))
    entries.append(("control-loop.sh", 0o100755, open(os.path.join(HERE, "control-loop.sh"), "rb").read()))
    with open(path, "wb") as f:
        f.write(gzip.compress(cpio_newc(entries), 1))


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM: the header's maxval ends with exactly one
    whitespace byte, and the pixels begin right after it (0x0D, the reference teal's blue, is
    whitespace too: never skip more)."""
    data = open(path, "rb").read()
    fields, i = [], 0
    while len(fields) < 4:
        while data[i : i + 1].isspace():
            i += 1
        if data[i : i + 1] == b"#":
            while data[i : i + 1] not in (b"\n", b""):
                i += 1
            continue
        start = i
        while not data[i : i + 1].isspace():
            i += 1
        fields.append(data[start:i])
    assert fields[0] == b"P6", f"not a binary PPM: {fields[0]!r}"
    width, height, maxval = int(fields[1]), int(fields[2]), int(fields[3])
    assert maxval == 255
    pixels = data[i + 1 : i + 1 + width * height * 3]
    assert len(pixels) == width * height * 3, "short PPM"
    return width, height, pixels


class VM:
    """One virtual machine; `with VM() as vm:` boots it and stops it."""

    def __init__(self, outputs=2, memory=1024, append="", second_output=True, kernel_series="6.1", root="/", systemd=False,
                 firmware=False, initrd=None, ready=b"vm: ready\n", shares=None, arch="amd64", mounts=None):
        """`root`: the directory the guest mounts as its root over 9p (read-only). `systemd`: the
        guest boots systemd as PID 1 on a tmpfs overlay of that root (guest-init.sh), and its
        `vm-control.service` answers the test's commands. `firmware`: a UEFI firmware (Debian's
        OVMF) boots the kernel instead of QEMU's own loader: it draws its logo on the GPU and
        publishes it as ACPI's BGRT; `boot_screens` then keeps what output 0 showed while it
        booted (each distinct screen once). `initrd`: this initramfs instead of the busybox one
        guest-init.sh runs; `ready`: what the guest says on the control port once it is up.
        `shares`: {tag: directory} of this machine, each shared writable over 9p (the guest mounts
        it: mount -t 9p -o trans=virtio TAG DIR). `arch`: "amd64" (this machine's kernel) or "arm64"
        (qemu-system-aarch64; the kernel, its modules and busybox are `root`'s: pass
        root=ARM64_ROOT). `mounts`: {guest path: directory of this machine}, each mounted read-only
        at that path by guest-init.sh, which then makes the root a tmpfs overlay of the shared one
        (for the mount points) as it does for systemd."""
        assert arch in ("amd64", "arm64"), arch
        self.arch = arch
        self.mounts = mounts or {}
        assert not any(c.isspace() or c == ":" for path in self.mounts for c in path), "mount paths are words"
        # Where the guest's kernel writes (console=): the tests copy logs there.
        self.console_device = "/dev/ttyAMA0" if arch == "arm64" else "/dev/ttyS0"
        self.root = root
        self.systemd = systemd
        self.firmware = firmware
        self.initrd = initrd
        self.ready = ready
        self.boot_screens = []
        self.shares = shares or {}
        self.dir = tempfile.mkdtemp(prefix="splashd-vm.")
        self.kernel_series = kernel_series
        self.outputs = outputs
        self.memory = memory
        self.append = append
        self.second_output = second_output
        self.process = None
        self.qmp = None
        self.control = None
        self.buffer = b""

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self, timeout=300):
        arm64 = self.arch == "arm64"
        found = kernel(self.kernel_series, self.root if arm64 else "/")
        if not found:
            raise RuntimeError(f"no {self.kernel_series} kernel in {self.root if arm64 else '/'}boot")
        release, image = found
        initrd = self.initrd
        if not initrd:
            initrd = os.path.join(self.dir, "initrd.gz")
            if arm64:
                build_initramfs(release, initrd, self.root, MODULES + ["virtio_console"],
                                os.path.join(self.root, "bin/busybox"))
            else:
                build_initramfs(release, initrd)
        qmp_path, ctl_path = os.path.join(self.dir, "qmp.sock"), os.path.join(self.dir, "ctl.sock")
        self.console = os.path.join(self.dir, "console.log")
        if arm64:
            command = self._arm64_command(image, initrd, qmp_path, ctl_path)
        else:
            command = self._amd64_command(image, initrd, qmp_path, ctl_path)
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(self.dir, "qemu.log"), "wb"))
        self.qmp = self._connect(qmp_path)
        self._qmp_read()  # greeting
        self.execute("qmp_capabilities")
        self.control = self._connect(ctl_path)
        if self.firmware:
            self._watch_boot(self.ready, timeout)
        self.wait_for(self.ready, timeout)
        return self

    def _amd64_command(self, image, initrd, qmp_path, ctl_path):
        shares, words = self._shares()
        # video=Virtual-2:e turns the second output on (headless QEMU enables only the first; a
        # test that plugs it in later leaves it off);
        # edid=off gives each output a preferred mode of the device's default size.
        command = [
            "qemu-system-x86_64", "-machine", "q35", "-accel", "tcg", "-m", str(self.memory), "-smp", "2",
            *(["-bios", OVMF] if self.firmware else []),
            "-nodefaults", "-no-reboot", "-display", "none",
            "-kernel", image, "-initrd", initrd,
            "-append", f"console=ttyS0 panic=-1 loglevel=4 {'video=Virtual-2:e' if self.second_output else ''} "
                       f"{SYSTEMD_ARGS if self.systemd else ''} {self.append}" + (f" {words}" if words else ""),
            "-device", f"virtio-gpu-pci,id=gpu,max_outputs={self.outputs},edid=off",
            # A touch-like absolute pointer and a keyboard, driven with QMP input-send-event.
            "-device", "virtio-tablet-pci", "-device", "virtio-keyboard-pci",
            *shares,
            "-serial", f"file:{self.console}",
            "-chardev", f"socket,id=ctl,path={ctl_path},server=on,wait=off",
            "-serial", "chardev:ctl",
            "-qmp", f"unix:{qmp_path},server=on,wait=off",
        ]
        return command

    def _shares(self):
        """The 9p devices: the root (read-only), `shares` (writable), `mounts` (read-only), and
        the kernel command line's words that tell guest-init.sh where to mount `mounts`."""
        args = [
            "-fsdev", f"local,id=host,path={self.root},security_model=none,readonly=on,multidevs=remap",
            "-device", "virtio-9p-pci,fsdev=host,mount_tag=host",
            *[arg for tag, path in self.shares.items() for arg in (
                "-fsdev", f"local,id={tag},path={path},security_model=none,multidevs=remap",
                "-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag}")]]
        words = []
        for i, (guest, path) in enumerate(self.mounts.items()):
            args += ["-fsdev", f"local,id=mount{i},path={path},security_model=none,readonly=on,multidevs=remap",
                     "-device", f"virtio-9p-pci,fsdev=mount{i},mount_tag=mount{i}"]
            words.append(f"splashd.mount=mount{i}:{guest}")
        return args, " ".join(words)

    def _arm64_command(self, image, initrd, qmp_path, ctl_path):
        """qemu-system-aarch64's virt machine: the devices of the amd64 VM on PCIe, the console on
        its UART and the control port on a virtio console (hvc0); UEFI (AAVMF) with `firmware`."""
        firmware = []
        if self.firmware:
            variables = os.path.join(self.dir, "AAVMF_VARS.fd")
            shutil.copyfile(AAVMF_VARS, variables)
            firmware = ["-drive", f"if=pflash,format=raw,unit=0,readonly=on,file={AAVMF_CODE}",
                        "-drive", f"if=pflash,format=raw,unit=1,file={variables}"]
        shares, words = self._shares()
        return [
            "qemu-system-aarch64", "-machine", "virt", "-cpu", "cortex-a72", "-accel", "tcg", "-m", str(self.memory), "-smp", "2",
            *firmware,
            "-nodefaults", "-no-reboot", "-display", "none",
            "-kernel", image, "-initrd", initrd,
            "-append", f"console=ttyAMA0 splashd.control=hvc0 panic=-1 loglevel=4 {'video=Virtual-2:e' if self.second_output else ''} "
                       f"{words} {SYSTEMD_ARGS if self.systemd else ''} {self.append}",
            "-device", f"virtio-gpu-pci,id=gpu,max_outputs={self.outputs},edid=off",
            "-device", "virtio-tablet-pci", "-device", "virtio-keyboard-pci",
            *shares,
            "-serial", f"file:{self.console}",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=ctl,path={ctl_path},server=on,wait=off",
            "-device", "virtconsole,chardev=ctl",
            "-qmp", f"unix:{qmp_path},server=on,wait=off",
        ]

    def _watch_boot(self, marker, timeout):
        """Captures output 0 every 0.3 s until the guest says `marker`, keeping each new screen."""
        end = time.monotonic() + timeout
        while marker not in self.buffer and time.monotonic() < end and self.process.poll() is None:
            try:
                screen = self.screendump()
            except RuntimeError:  # no scanout yet
                screen = None
            if screen and (not self.boot_screens or self.boot_screens[-1] != screen):
                self.boot_screens.append(screen)
            self.control.settimeout(0.3)
            try:
                chunk = self.control.recv(65536)
                if not chunk:
                    break
                self.buffer += chunk
            except socket.timeout:
                pass

    def _connect(self, path, timeout=120):
        end = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"qemu exited: {open(os.path.join(self.dir, 'qemu.log')).read()}")
            try:
                s = socket.socket(socket.AF_UNIX)
                s.connect(path)
                return s
            except OSError:
                s.close()
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)

    def _qmp_read(self):
        data = b""
        while not data.endswith(b"\n"):
            chunk = self.qmp.recv(65536)
            if not chunk:
                raise RuntimeError("QMP closed")
            data += chunk
        return [json.loads(line) for line in data.splitlines() if line.strip()]

    def execute(self, command, **arguments):
        """A QMP command; its return value (events on the way are skipped)."""
        self.qmp.sendall(json.dumps({"execute": command, "arguments": arguments}).encode() + b"\n")
        while True:
            for message in self._qmp_read():
                if "return" in message:
                    return message["return"]
                if "error" in message:
                    raise RuntimeError(f"QMP {command}: {message['error']}")

    def wait_for(self, marker, timeout):
        """Reads the control port until `marker`; returns what came before it."""
        end = time.monotonic() + timeout
        while marker not in self.buffer:
            left = end - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise TimeoutError(f"no {marker!r} from the guest; console:\n{self.console_text()[-3000:]}")
            self.control.settimeout(left)
            try:
                chunk = self.control.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise RuntimeError(f"the guest's control port closed; console:\n{self.console_text()[-3000:]}")
            self.buffer += chunk
        before, _, self.buffer = self.buffer.partition(marker)
        return before

    def run(self, line, timeout=60):
        """Runs one shell line in the guest (as root, in the host's file system); its exit status.
        A line ending in & starts a process and returns at once."""
        self.control.sendall(line.encode() + b"\n")
        self.wait_for(b"done ", timeout)
        status = self.wait_for(b"\n", timeout)
        return int(status)

    def screendump(self, head=0):
        """Output `head`'s screen now: (width, height, RGB bytes)."""
        path = os.path.join(self.dir, f"screen-{head}.ppm")
        self.execute("screendump", filename=path, device="gpu", head=head)
        return read_ppm(path)

    def click(self, x, y, width, height, head=0):
        """A press and release of the tablet's left button at pixel (x, y) of output `head`
        (QMP input-send-event: absolute axes run 0 to 0x7fff across the output)."""
        ax, ay = round(x * 0x7FFF / (width - 1)), round(y * 0x7FFF / (height - 1))
        self.execute("input-send-event", head=head, events=[
            {"type": "abs", "data": {"axis": "x", "value": ax}},
            {"type": "abs", "data": {"axis": "y", "value": ay}}])
        for down in (True, False):
            self.execute("input-send-event", head=head, events=[{"type": "btn", "data": {"down": down, "button": "left"}}])

    def key(self, qcode):
        """A press and release of a key (QEMU's qcode: "ret", "tab", ...)."""
        for down in (True, False):
            self.execute("input-send-event", events=[{"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}])

    def console_text(self):
        try:
            return open(self.console, errors="replace").read()
        except OSError:
            return ""

    def stop(self):
        if self.process and self.process.poll() is None:
            try:
                self.execute("quit")
            except Exception:
                pass
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for s in (self.qmp, self.control):
            if s:
                s.close()
        shutil.rmtree(self.dir, ignore_errors=True)
