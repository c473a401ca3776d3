"""The modes beside the launch (design §15): the shutdown view at a reboot, RAUC's update view
(a package only).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from checks import TOML, check, enabled_of
from container import Container, jr, json_objects, ms_since, msg, squeeze


# ---------------------------------------------------------------------------------------------
# Check 21 (last: it reboots the container): the shutdown view (design §15). The package enables
# splashd-shutdown.service for the shutdown targets; `systemctl reboot` tells splashd early, so a
# subscriber sees mode shutdown ("Restarting") before the container is gone, and the journal (kept
# on disk for it) has the shutdown's MESSAGE_ID.

# Every state line into /var/tmp/states.jsonl until the end (splashctl watch ends at finished).
SUBSCRIBER = """
import socket
s = socket.socket(socket.AF_UNIX)
s.connect("/run/splashd/splashd.sock")
s.sendall(b'{"cmd":"subscribe","ticks":false}\\n')
with open("/var/tmp/states.jsonl", "ab", buffering=0) as out:
    while True:
        data = s.recv(65536)
        if not data:
            break
        out.write(data)
"""


@check(21, "shutdown-view", stage="booted", package=True)
def test_21_shutdown_view(ct: Container, verdict):
    shutil.copy(ct.files / ct.deb_name, ct.root / "srv/systest" / ct.deb_name)
    ok, took = ct.apt_get("install", f"/srv/systest/{ct.deb_name}")
    if not ok:
        verdict.bad("apt-get install of splashd failed")
        return
    enabled = enabled_of(ct, "splashd-shutdown.service")
    wanted = sorted(t for t in ("poweroff.target", "reboot.target", "halt.target", "kexec.target")
                    if (ct.root / f"etc/systemd/system/{t}.wants/splashd-shutdown.service").is_symlink())
    verdict.ev(f"install: {took}; splashd-shutdown.service {enabled}, wanted by {' '.join(wanted)}")
    if enabled != "enabled" or len(wanted) != 4:
        verdict.bad("splashd-shutdown.service is not enabled for the shutdown targets")
    if not ct.cl("systemctl", "start", "splashd.service"):
        verdict.bad("splashd.service did not start")
        return
    # The journal on disk: the shutdown's records are read after the reboot (journalctl -b -1).
    ct.c("mkdir", "-p", "/var/log/journal")
    ct.c("systemd-tmpfiles", "--create", "--prefix", "/var/log/journal")
    ct.c("journalctl", "--flush")
    states_file = ct.root / "var/tmp/states.jsonl"
    # Entered into the container's namespaces from here, not a unit of its systemd: the shutdown
    # stops no unit of it; only the shutdown's last stage ends it, with every process left.
    subscriber = subprocess.Popen(ct._enter(["/usr/bin/python3", "-c", SUBSCRIBER]), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not (states_file.exists() and states_file.stat().st_size > 0) and time.monotonic() < deadline:
        time.sleep(0.1)  # the subscriber's first state: a file on the overlay, no event to wait for
    if not (states_file.exists() and states_file.stat().st_size > 0):
        verdict.bad("the subscriber got no state")
        return
    started = time.time_ns()
    rebooted = ct.reboot()
    try:
        subscriber.wait(timeout=30)
    except subprocess.TimeoutExpired:
        subscriber.kill()
        subscriber.wait()
    if not rebooted:
        verdict.bad("the container did not reboot")
        return
    states = json_objects(states_file.read_text(errors="replace"))
    modes = [s.get("mode", "launch") for s in states if s.get("type") == "state"]
    down = [s for s in states if s.get("mode") == "shutdown"]
    verdict.ev(f"reboot: back after {ms_since(started)} ms; {len(modes)} states seen before it, modes {sorted(set(modes))}"
               f"{', the shutdown view: ' + str(down[0].get('shutdown')) if down else ''}")
    if not down or down[0].get("shutdown") != "reboot":
        verdict.bad("no state in mode shutdown (reboot) before the container went down")
    entries = json_objects(ct.c("journalctl", "-b", "-1", "--no-pager", "-o", "json",
                                "MESSAGE_ID=1c0f1541d6f445ada5f9d40ed91b32f2").stdout)
    unit = ct.c("journalctl", "-b", "-1", "--no-pager", "-o", "cat", "-u", "splashd-shutdown.service").stdout.strip()
    verdict.ev(f"journal of the boot before: {len(entries)} shutdown record(s)"
               f"{': ' + msg(entries[0]) if entries else ''}; splashd-shutdown.service: {squeeze(unit) or 'nothing'}")
    if not entries or jr(entries[0], "SPLASHD_KIND") != "reboot":
        verdict.bad("the journal has no shutdown record of kind reboot")
        tail = ct.c("journalctl", "-b", "-1", "--no-pager", "-o", "short-monotonic", "-u", "splashd.socket", "-u", "splashd.service",
                    "-u", "splashd-shutdown.service").stdout
        verdict.ev(f"the boot before: {squeeze(' / '.join(tail.splitlines()[-12:]))}")


RAUC_SYSTEM_CONF = """[system]
compatible=splashd-systest
bootloader=noop
data-directory=/var/lib/rauc

[keyring]
path=/etc/rauc/ca.cert.pem

[slot.rootfs.0]
device=/var/tmp/rauc/slot-a.img
type=raw
bootname=A

[slot.rootfs.1]
device=/var/tmp/rauc/slot-b.img
type=raw
bootname=B
"""


def rauc_bundles(directory: Path) -> bool:
    """A CA and its signer, another CA and its signer, and two plain bundles of a 1 MiB image:
    good.raucb (signed by the first) and bad.raucb (by the other), made on this machine with
    openssl and RAUC's own `rauc bundle`."""
    (directory / "content").mkdir(parents=True, exist_ok=True)
    (directory / "content/rootfs.img").write_bytes(os.urandom(1 << 20))
    (directory / "content/manifest.raucm").write_text(
        "[update]\ncompatible=splashd-systest\nversion=1.0.0\n\n[bundle]\nformat=plain\n\n[image.rootfs]\nfilename=rootfs.img\n")
    (directory / "ext.cnf").write_text("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                                       "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
    steps = []
    for ca, signer, bundle in [("ca", "signing", "good"), ("other-ca", "other", "bad")]:
        steps += [
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key.pem", "-out", f"{ca}.cert.pem",
             "-days", "2", "-subj", f"/O=splashd systest/CN={ca}", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{signer}.key.pem", "-out", f"{signer}.csr",
             "-subj", f"/O=splashd systest/CN={signer}"],
            ["openssl", "x509", "-req", "-in", f"{signer}.csr", "-CA", f"{ca}.cert.pem", "-CAkey", f"{ca}.key.pem",
             "-CAcreateserial", "-out", f"{signer}.cert.pem", "-days", "2", "-extfile", "ext.cnf"],
            ["rauc", "bundle", f"--cert={signer}.cert.pem", f"--key={signer}.key.pem", "content", f"{bundle}.raucb"],
        ]
    for argv in steps:
        if subprocess.run(argv, cwd=directory, stdin=subprocess.DEVNULL, capture_output=True, timeout=120).returncode != 0:
            return False
    return True


@check(22, "rauc-update-view", stage="booted", package=True)
def test_22_rauc_update_view(ct: Container, verdict):
    """Real RAUC (Debian's rauc and rauc-service) under the container's systemd: the bundle
    installed by `rauc install`, RAUC activated on the system bus, the packaged splashd.service
    following it with `[update] rauc = true`; then a bundle signed by another CA."""
    if not (shutil.which("rauc") and os.path.exists("/lib/systemd/system/rauc.service") and shutil.which("mksquashfs")):
        verdict.bad("needs rauc, rauc-service and squashfs-tools (scripts/setup.sh packages installs them)")
        return
    work = ct.files / "rauc"
    if not rauc_bundles(work):
        verdict.bad("could not make RAUC's keys and bundles")
        return
    shutil.copy(ct.files / ct.deb_name, ct.root / "srv/systest" / ct.deb_name)
    ok, _ = ct.apt_get("install", f"/srv/systest/{ct.deb_name}")
    if not ok:
        verdict.bad("apt-get install of splashd failed")
        return
    target = ct.root / "var/tmp/rauc"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("good.raucb", "bad.raucb"):
        shutil.copy(work / name, target / name)
    for slot in ("slot-a.img", "slot-b.img"):
        (target / slot).write_bytes(bytes(2 << 20))
    ct.write_file("/etc/rauc/system.conf", 0o644, RAUC_SYSTEM_CONF)
    ct.write_file("/etc/rauc/ca.cert.pem", 0o644, (work / "ca.cert.pem").read_text())
    # The container boots from no slot: RAUC is told it booted A (as the Swift test tells it).
    ct.write_file("/etc/systemd/system/rauc.service.d/systest.conf", 0o644,
                  "[Service]\nExecStart=\nExecStart=/usr/bin/rauc --mount=/run/rauc service --override-boot-slot=A\n")
    config = ct.c("cat", TOML).stdout
    ct.write_file(TOML, 0o644, config + '\n[update]\nrauc = true\nend_view = "10m"\n')
    cursor = ct.cursor()
    if not (ct.cl("systemctl", "daemon-reload") and ct.cl("systemctl", "restart", "splashd.service")):
        verdict.bad("splashd.service did not restart with [update] rauc = true")
        return
    states_file = ct.root / "var/tmp/states.jsonl"
    states_file.unlink(missing_ok=True)
    subscriber = subprocess.Popen(ct._enter(["/usr/bin/python3", "-c", SUBSCRIBER]), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not (states_file.exists() and states_file.stat().st_size > 0) and time.monotonic() < deadline:
            time.sleep(0.1)  # the subscriber's first state: a file on the overlay, no event to wait for
        good = ct.c("rauc", "install", "/var/tmp/rauc/good.raucb", merge=True, timeout=300)
        slot = (target / "slot-b.img").read_bytes()[: 1 << 20] == (work / "content/rootfs.img").read_bytes()
        verdict.ev(f"rauc install of a signed bundle: exit {good.rc}; the image in slot B: {slot}")
        if not good.ok or not slot:
            verdict.bad(f"rauc install failed: {squeeze(good.stdout)[-400:]}")
        bad = ct.c("rauc", "install", "/var/tmp/rauc/bad.raucb", merge=True, timeout=300)
        verdict.ev(f"a bundle of another CA: exit {bad.rc}")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the states reach the subscriber's file a moment later
            updates = [s["update"] for s in json_objects(states_file.read_text(errors="replace")) if s.get("update")]
            if sum(1 for u in updates if u.get("result") == "failed") and any(u.get("result") == "succeeded" for u in updates):
                break
            time.sleep(0.1)
    finally:
        subscriber.kill()
        subscriber.wait()
    updates = [s["update"] for s in json_objects(states_file.read_text(errors="replace")) if s.get("update")]
    distinct = [u for i, u in enumerate(updates) if i == 0 or u != updates[i - 1]]
    succeeded = next((i for i, u in enumerate(distinct) if u.get("result") == "succeeded"), None)
    first = distinct[: succeeded + 1] if succeeded is not None else distinct
    progress = [round(u.get("progress", 0) * 100) for u in first]
    verdict.ev("RAUC's states: " + ", ".join(f"{p}% {u.get('message') or u.get('result')}" for p, u in zip(progress, first)))
    if succeeded is None or not all(u.get("source") == "rauc" for u in distinct):
        verdict.bad("no update state from RAUC ending succeeded")
    if progress != sorted(progress) or (progress and progress[-1] != 100):
        verdict.bad(f"RAUC's progress went backwards or did not reach 100: {progress}")
    failed = [u for u in distinct if u.get("result") == "failed"]
    if not failed or not str(failed[-1].get("error", "")).startswith("signature verification failed"):
        verdict.bad(f"the other CA's bundle did not end failed with RAUC's error: {failed[-1:] }")
    else:
        verdict.ev(f"then: failed, \"{squeeze(failed[-1]['error'])[:90]}\"")
    journal = json_objects(ct.c("journalctl", f"--after-cursor={cursor}", "--no-pager", "-o", "json", "-u", "splashd.service").stdout)
    began = [e for e in journal if jr(e, "MESSAGE_ID") == "5a99ade643014655968923205da93119"]
    ended = [jr(e, "SPLASHD_RESULT") for e in journal if jr(e, "MESSAGE_ID") == "1ec69a2b4c504e6e91bcd02805b8e255"]
    steps = [msg(e) for e in journal if msg(e).startswith("RAUC: ")]
    verdict.ev(f"journal: {len(began)} update(s) began, ended {ended}, {len(steps)} RAUC steps logged")
    if ended[:2] != ["succeeded", "failed"]:
        verdict.bad("the journal does not say the two updates' ends")
    ct.write_file(TOML, 0o644, config)
    ct.cl("systemctl", "restart", "splashd.service")
