"""What every Python test of splashd shares: where the binaries are, their environment, waits
with deadlines, and stopping the processes a test started (by their PID, never by name).

On the path through Tests/pytest.ini (`pythonpath = harness`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("SPLASHD_BIN_DIR") or subprocess.run(
    ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
ENV = dict(os.environ, SWIFT_BACKTRACE="enable=no")


def stop(*processes):
    """SIGTERM to each process started here that still runs, SIGKILL after 20 s; waits for each."""
    for process in processes:
        if process and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def deadline_wait(predicate, timeout=20.0, what="condition", interval=0.02):
    """Polls `predicate` until it is truthy; raises with `what` after `timeout` seconds."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(interval)


def json_lines(sock):
    """Each JSON line splashd (or the bridge) sends on `sock`, decoded, until it closes."""
    import json

    buffer = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except OSError:
            return
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield json.loads(line)
