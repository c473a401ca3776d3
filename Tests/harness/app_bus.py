"""A private D-Bus with the fake systemd of fake_systemd.py on it: `AppBus(unit).address` is what
splashd's sd-bus connects to as its system bus (DBUS_SYSTEM_BUS_ADDRESS)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading

from processes import ROOT, deadline_wait, stop


class AppBus:
    def __init__(self, unit: str = "kiosk-app.service"):
        self.dir = tempfile.mkdtemp(prefix="splashd-bus-")
        self.address = f"unix:path={self.dir}/bus"
        self.bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={self.address}", "--print-address"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.bus.stdout.readline()  # listening
        self.systemd = subprocess.Popen(
            ["/usr/bin/python3", os.path.join(ROOT, "Tests", "harness", "fake_systemd.py"), self.address, unit],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.systemd.stdout.readline().strip() == "ready"
        self.calls: list[str] = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.systemd.stdout:
            with self.cond:
                self.calls.append(line.strip().removeprefix("call "))
                self.cond.notify_all()

    def send(self, command: str):
        """`exit`, `fail` or `stop` (see fake_systemd.py)."""
        self.systemd.stdin.write(command + "\n")
        self.systemd.stdin.flush()

    def wait_call(self, call: str, count: int = 1, timeout: float = 20.0):
        """Waits until `call` (e.g. `RestartUnit kiosk-app.service`) was made `count` times."""
        deadline_wait(lambda: self.calls.count(call) >= count, timeout, f"{count}× {call} (calls: {self.calls})")

    def close(self):
        if self.systemd.stdin:
            self.systemd.stdin.close()
        stop(self.systemd, self.bus)
        shutil.rmtree(self.dir, ignore_errors=True)
