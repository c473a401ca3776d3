"""The one Python client of splashd's socket protocol (docs/protocol.md), for every Python test and
benchmark: a request and its reply, and a subscriber that records each state with the instant it
arrived. (The C client of scripts/bench/splashbench.c is there because the fan-out benchmark
needs a thousand subscribers read by epoll.)"""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Callable

from processes import json_lines


def request(path: str, command: dict, timeout: float = 10) -> dict | None:
    """Sends `command` on a connection of its own and returns splashd's reply, or None when
    splashd cannot be reached or closes first."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(path)
            with s.makefile("rb") as f:
                f.readline()  # hello
                s.sendall((json.dumps(command) + "\n").encode())
                line = f.readline()
            return json.loads(line) if line else None
    except OSError:
        return None


def answers(path: str) -> bool:
    """Whether splashd answers a ping on `path`."""
    reply = request(path, {"cmd": "ping"}, timeout=1)
    return reply is not None and reply.get("type") == "ok"


class Subscriber:
    """A subscriber of splashd's socket that records every state with the instant it arrived.

    `on_state(subscriber, state)`, when given, runs on the reading thread for each state (a
    benchmark's app completes its first-frame step there). `log`: splashd's log, whose end a
    timed-out wait reports (what the daemon saw meanwhile)."""

    def __init__(self, path: str, log: str | None = None, on_state: Callable[[Subscriber, dict], None] | None = None):
        self.log = log
        self.on_state = on_state
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.lock = threading.Lock()
        self.states: list[tuple[float, dict]] = []
        self.cond = threading.Condition()
        self.send({"cmd": "subscribe"})
        threading.Thread(target=self._read, daemon=True).start()

    def send(self, message: dict):
        with self.lock:
            self.sock.sendall((json.dumps(message) + "\n").encode())

    def _read(self):
        for message in json_lines(self.sock):
            if message.get("type") != "state":
                continue
            with self.cond:
                self.states.append((time.monotonic(), message))
                self.cond.notify_all()
            if self.on_state:
                self.on_state(self, message)

    def wait(self, predicate, timeout=20.0, what="a state"):
        """The first recorded state (instant, state) for which `predicate(state)` holds."""
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for entry in self.states:
                    if predicate(entry[1]):
                        return entry
                left = end - time.monotonic()
                if left <= 0:
                    phases = [s["phase"] for _, s in self.states]
                    raise TimeoutError(f"timed out waiting for {what}; phases seen: {phases}{self._log_tail()}")
                self.cond.wait(left)

    def phase(self, phase, timeout=20.0, after=None):
        return self.wait(lambda s: s["phase"] == phase and (after is None or s["seq"] > after), timeout, f"phase {phase}")

    @property
    def latest(self):
        with self.cond:
            return self.states[-1][1] if self.states else None

    def finished_launches(self):
        with self.cond:
            return [s for _, s in self.states if s["phase"] == "finished"]

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def _log_tail(self) -> str:
        if not self.log:
            return ""
        try:
            with open(self.log, errors="replace") as f:
                return "; splashd's log ends:\n" + "".join(f.readlines()[-30:])
        except OSError:
            return ""
