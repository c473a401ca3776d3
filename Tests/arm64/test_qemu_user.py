"""The arm64 packages under qemu-user (docs/packaging.md, "arm64"): their binaries are arm64,
start on Debian 12's arm64 libraries, need nothing newer than Debian 12 has, load on a kernel of
16 KiB pages (a Raspberry Pi 5's), and the daemon runs a whole launch from `loading` to
`finished`, followed by splashctl, both the packaged arm64 programs.

    ARM64_DIST=dist/arm64 ARM64_TARGET=/var/cache/splashd-arm64/target \
        python3 -m pytest -q -p no:cacheprovider Tests/arm64/test_qemu_user.py

ARM64_DIST holds `make deb-arm64`'s packages; ARM64_TARGET is a Debian 12 arm64 root file system
(scripts/arm64/prepare.sh's), whose libraries qemu-user loads (-L). Without ARM64_DIST the tests
are skipped; with it, anything missing fails them.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

DIST = os.environ.get("ARM64_DIST")
TARGET = os.environ.get("ARM64_TARGET", "/var/cache/splashd-arm64/target")
pytestmark = pytest.mark.skipif(not DIST, reason="ARM64_DIST is not set (make deb-arm64, then ARM64_DIST=dist/arm64)")

# Debian 12's glibc and GCC 12's libstdc++: the newest symbol versions a binary may need there.
NEWEST_GLIBC = (2, 36)
NEWEST_GLIBCXX = (3, 4, 30)
# The largest page size among the devices: a Raspberry Pi 5's kernel uses 16 KiB pages.
LARGEST_PAGE = 16 * 1024
QEMU = shutil.which("qemu-aarch64-static") or "qemu-aarch64-static"


@pytest.fixture(scope="module")
def root():
    """The arm64 packages' files, unpacked as dpkg would install them."""
    debs = sorted(glob.glob(os.path.join(DIST, "*_arm64.deb")))
    names = sorted(os.path.basename(deb).split("_")[0] for deb in debs)
    assert names == ["splashd", "splashd-kms", "splashd-otel", "splashd-web"], f"in {DIST}: {debs}"
    assert os.path.isfile(os.path.join(TARGET, "usr/lib/aarch64-linux-gnu/libc.so.6")), f"no Debian arm64 system in {TARGET}"
    directory = tempfile.mkdtemp(prefix="splashd-arm64.")
    for deb in debs:
        subprocess.run(["dpkg-deb", "-x", deb, directory], check=True)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def arm64(root, program, *arguments, **options):
    """Runs an arm64 program of the packages under qemu-user, on the target's libraries."""
    options.setdefault("timeout", 300)
    return subprocess.run([QEMU, "-L", TARGET, os.path.join(root, program.lstrip("/")), *arguments],
                          capture_output=True, text=True, **options)


BINARIES = ["usr/bin/splashd", "usr/bin/splashd-web", "usr/bin/splashd-otel", "usr/bin/splashd-kms",
            "usr/lib/splashd/splashd-kms-first-frame"]


@pytest.mark.parametrize("binary", BINARIES)
def test_each_binary_is_arm64_within_debian_12_and_loads_on_16k_pages(root, binary):
    path = os.path.join(root, binary)
    header = subprocess.run(["readelf", "-hW", path], capture_output=True, text=True, check=True).stdout
    assert re.search(r"Machine:\s+AArch64", header), header
    versions = subprocess.run(["readelf", "-VW", path], capture_output=True, text=True, check=True).stdout
    glibc = [tuple(map(int, v.split("."))) for v in re.findall(r"Name: GLIBC_([0-9.]+)", versions)]
    glibcxx = [tuple(map(int, v.split("."))) for v in re.findall(r"Name: GLIBCXX_([0-9.]+)", versions)]
    assert glibc and max(glibc) <= NEWEST_GLIBC, f"{binary} needs GLIBC_{max(glibc)}"
    assert not glibcxx or max(glibcxx) <= NEWEST_GLIBCXX, f"{binary} needs GLIBCXX_{max(glibcxx)}"
    segments = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True).stdout
    aligns = [int(line.split()[-1], 16) for line in segments.splitlines() if line.strip().startswith("LOAD")]
    assert aligns and min(aligns) >= LARGEST_PAGE, f"{binary}: LOAD segments aligned to {aligns}"


@pytest.mark.parametrize("binary", ["usr/bin/splashd", "usr/bin/splashctl", "usr/bin/splashd-web",
                                    "usr/bin/splashd-otel", "usr/bin/splashd-kms"])
def test_each_program_starts_on_debian_12s_arm64_libraries(root, binary):
    result = arm64(root, binary, "--version")
    assert result.returncode == 0, result.stderr
    version = subprocess.run(["dpkg-deb", "-f", glob.glob(os.path.join(DIST, "splashd_*_arm64.deb"))[0], "Version"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert result.stdout.strip() == version.split("-")[0]


def test_the_packaged_configuration_checks(root):
    """As PackagingTests: the configuration names the group the package creates, which this
    system lacks (that is its only problem), and with `root` in its place it passes."""
    path = os.path.join(root, "etc/splashd/splashd.toml")
    as_is = arm64(root, "usr/bin/splashd", "check", "--config", path)
    problems = [line for line in as_is.stderr.splitlines() if line.startswith("splashd: ")]
    assert as_is.returncode == 0 or (len(problems) == 1 and problems[0].endswith(': control_group "splash" does not exist')), as_is.stderr
    text = open(path).read()
    assert '\ncontrol_group = "splash"\n' in text
    copy = os.path.join(root, "splashd-root.toml")
    with open(copy, "w") as f:
        f.write(text.replace('control_group = "splash"', 'control_group = "root"'))
    result = arm64(root, "usr/bin/splashd", "check", "--config", copy)
    assert result.returncode == 0 and result.stdout.endswith(": OK, 4 steps (0 external)\n"), result.stdout + result.stderr


def test_a_launch_from_loading_to_finished_seen_through_splashctl(root):
    """The packaged configuration (the embedded default's four built-ins), with the launch's
    timeout out of reach: under emulation on a busy machine the launch must still end finished,
    never in "taking longer" (10 s by default)."""
    work = tempfile.mkdtemp(prefix="splashd-arm64-launch.")
    socket_path = os.path.join(work, "splashd.sock")
    text = open(os.path.join(root, "etc/splashd/splashd.toml")).read()
    assert "\n[splash]\n" in text
    config = os.path.join(work, "splashd.toml")
    with open(config, "w") as f:
        f.write(text.replace('control_group = "splash"', 'control_group = "root"')
                .replace("\n[splash]\n", '\n[splash]\ntimeout = "10m"\n', 1))
    log = open(os.path.join(work, "splashd.log"), "w+")
    daemon = subprocess.Popen([QEMU, "-L", TARGET, os.path.join(root, "usr/bin/splashd"), "--config", config,
                               "--socket", socket_path, "--state-dir", os.path.join(work, "state")],
                              stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                              env={**os.environ, "SWIFT_BACKTRACE": "enable=no"})
    try:
        # Bounded: the daemon answers once it listens, or has died (then its log says why).
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and daemon.poll() is None:
            if arm64(root, "usr/bin/splashctl", "--socket", socket_path, "ping", timeout=120).returncode == 0:
                break
        else:
            log.seek(0)
            pytest.fail(f"splashd did not answer (exit {daemon.poll()}): {log.read()}")
        watch = arm64(root, "usr/bin/splashctl", "--socket", socket_path, "watch", "--json")
        assert watch.returncode == 0, watch.stdout + watch.stderr
        phases = [json.loads(line).get("phase") for line in watch.stdout.splitlines() if line.startswith("{")]
        assert phases and phases[-1] == "finished", phases
        status = arm64(root, "usr/bin/splashctl", "--socket", socket_path, "status")
        assert status.returncode == 0 and "finished" in status.stdout, status.stdout + status.stderr
    finally:
        daemon.terminate()
        code = daemon.wait(timeout=120)
        log.seek(0)
        output = log.read()
        shutil.rmtree(work, ignore_errors=True)
    assert code == 0, output
