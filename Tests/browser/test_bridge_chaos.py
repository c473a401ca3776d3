"""splashd-web against hostile clients on the same machine (issue 22): floods from clients that
never read, idle connections by the thousand, descriptor exhaustion, broken WebSocket framing.

No browser: raw sockets, WebSocket frames built by hand. The bridge's memory is checked against
a bound (64 MB, docs/hardening.md) and a real page's client must still be served afterwards.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import subprocess
import time

import urllib.request

import pytest
import websocket

from processes import deadline_wait
from procfs import cpu_seconds, rss_bytes
from stack import Stack

SIGNAL = """
[splash]
min_display = "0ms"
exit_animation = "60s"

[[step]]
id = "app"
plugin = "signal"
"""

# The bound (docs/hardening.md); a sanitizer's shadow memory needs more (scripts/sanitize.sh runs).
RSS_BOUND = int(os.environ.get("SPLASHD_BRIDGE_RSS_BOUND_MB", "64")) * 1024 * 1024


def quiet(pid: int, sample) -> bool:
    """Whether `pid` used no CPU over the next 0.5 s (sampling as it waits)."""
    before = cpu_seconds(pid)
    for _ in range(10):
        sample()
        time.sleep(0.05)
    return cpu_seconds(pid) - before < 0.02


def cpu_while(pid: int, action) -> tuple[float, float]:
    """The CPU time `pid` used while `action()` ran, and how long it ran (seconds)."""
    before, started = cpu_seconds(pid), time.monotonic()
    action()
    return cpu_seconds(pid) - before, time.monotonic() - started


def frame(opcode: int, payload: bytes, *, masked=True, rsv1=False, fin=True) -> bytes:
    """One client WebSocket frame (RFC 6455 §5.2)."""
    head = bytes([(0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode])
    n = len(payload)
    mask_bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([mask_bit | n])
    elif n < 65536:
        head += bytes([mask_bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def address(s: Stack) -> tuple[str, int]:
    host, port = s.origin[len("http://"):].rsplit(":", 1)
    return host, int(port)


def token(s: Stack) -> str:
    return s.url.split("token=", 1)[1]


class RawPage:
    """A WebSocket client that does exactly what it is told, and reads only when asked."""

    def __init__(self, s: Stack, *, with_token=False):
        host, port = address(s)
        self.sock = socket.create_connection((host, port), timeout=10)
        query = f"?token={token(s)}" if with_token else ""
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /ws{query} HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: {s.origin}\r\n"
                   f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            assert chunk, f"closed during the handshake: {head!r}"
            head += chunk
        assert head.startswith(b"HTTP/1.1 101"), head

    def flood(self, data: bytes, total: int, seconds: float, sample=lambda: None) -> int:
        """Sends `data` again and again without reading, until `total` bytes went out, the bridge
        stopped taking them for 2 s, or `seconds` passed, calling `sample` every 50 ms. Returns
        the bytes sent."""
        self.sock.setblocking(False)
        sent = 0
        chunk = data * max(1, 65536 // len(data))
        end = time.monotonic() + seconds
        stalled_since = None
        sampled = 0.0
        while sent < total and time.monotonic() < end:
            if time.monotonic() - sampled > 0.05:
                sample()
                sampled = time.monotonic()
            try:
                n = self.sock.send(chunk)
                sent += n
                stalled_since = None
                if n < len(chunk):
                    chunk = chunk[n:] + chunk[:n]
            except BlockingIOError:
                stalled_since = stalled_since or time.monotonic()
                if time.monotonic() - stalled_since > 2:
                    break
                time.sleep(0.01)
            except (BrokenPipeError, ConnectionResetError):
                break
        self.sock.setblocking(True)
        return sent

    def read_close(self, timeout=10.0) -> tuple[int | None, bool]:
        """Reads frames until a close frame arrives or the connection ends: (close code, closed)."""
        self.sock.settimeout(timeout)
        buffer = b""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                chunk = self.sock.recv(65536)
            except (ConnectionResetError, socket.timeout):
                return None, True
            if not chunk:
                return None, True
            buffer += chunk
            while len(buffer) >= 2:
                opcode, n = buffer[0] & 0x0F, buffer[1] & 0x7F
                offset = 2
                if n == 126:
                    if len(buffer) < 4:
                        break
                    n, offset = struct.unpack("!H", buffer[2:4])[0], 4
                elif n == 127:
                    if len(buffer) < 10:
                        break
                    n, offset = struct.unpack("!Q", buffer[2:10])[0], 10
                if len(buffer) < offset + n:
                    break
                payload, buffer = buffer[offset:offset + n], buffer[offset + n:]
                if opcode == 0x8:
                    code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                    return code, True
        return None, False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def page_round_trip(s: Stack) -> float:
    """A well-behaved page: connects with the token, sends a command and times its answer."""
    ws_url = s.url.replace("http://", "ws://").replace("/?", "/ws?")
    ws = websocket.create_connection(ws_url, origin=s.origin, timeout=20)
    try:
        assert json.loads(ws.recv())["type"] == "bridge"
        started = time.monotonic()
        ws.send(json.dumps({"cmd": "ping", "id": "page"}))
        while True:
            message = json.loads(ws.recv())
            if message.get("id") == "page":
                assert message["type"] == "ok", message
                return time.monotonic() - started
    finally:
        ws.close()


def record(name, value):
    print(f"\n[bridge-chaos] {name}: {value}")


@pytest.mark.parametrize("what", ["ping", "viewer-command", "relayed-command"])
def test_a_flood_from_a_client_that_never_reads_stays_within_the_bound(stack, what):
    s = stack(SIGNAL)
    s.watcher.phase("loading")
    before = rss_bytes(s.web.pid)
    if what == "ping":
        flooder, data = RawPage(s), frame(0x9, b"p" * 125)
    elif what == "viewer-command":
        flooder, data = RawPage(s), frame(0x1, b'{"cmd":"retry"}')
    else:
        flooder, data = RawPage(s, with_token=True), frame(0x1, b'{"cmd":"ping"}')
    peak = before

    def sample():
        nonlocal peak
        peak = max(peak, rss_bytes(s.web.pid))

    sent = flooder.flood(data, 100 * 1024 * 1024, 30, sample)
    # What the bridge took in but has not handled yet: until it has used no CPU for 0.5 s.
    deadline_wait(lambda: quiet(s.web.pid, sample), 30, "the bridge to handle what it read")
    if what != "ping":
        # More commands than a page's budget: the flooder is closed (1008, policy violation).
        code, closed = flooder.read_close()
        assert closed and code in (1008, None), f"the flooder was not closed ({code})"
    record(f"{what} flood", f"{sent / 1e6:.1f} MB sent; RSS {before / 1e6:.1f} MB before, peak {peak / 1e6:.1f} MB")
    assert peak < RSS_BOUND, f"the bridge grew to {peak / 1e6:.1f} MB under a {what} flood"
    round_trip = page_round_trip(s)
    record(f"{what} flood", f"the page's round trip during it: {round_trip * 1000:.1f} ms")
    flooder.close()
    assert s.web.poll() is None
    assert page_round_trip(s) >= 0


@pytest.mark.parametrize("broken", ["unmasked", "rsv1"])
def test_a_frame_breaking_rfc_6455_fails_the_connection(stack, broken):
    s = stack(SIGNAL)
    page = RawPage(s, with_token=True)
    text = b'{"cmd":"ping","id":1}'
    page.sock.sendall(frame(0x1, text, masked=broken != "unmasked", rsv1=broken == "rsv1"))
    code, closed = page.read_close()
    assert closed, "the connection stayed open"
    assert code == 1002, f"closed with {code}, not 1002 (protocol error)"
    page.close()


def test_idle_connections_do_not_lock_the_page_out(stack):
    s = stack(SIGNAL)
    host, port = address(s)
    # systemd's default soft limit, the one the bridge had when this locked the page out.
    assert subprocess.run(["prlimit", f"--pid={s.web.pid}", "--nofile=1024:"]).returncode == 0
    idle = []
    try:
        for _ in range(1100):
            idle.append(socket.create_connection((host, port), timeout=10))
        viewers = [RawPage(s) for _ in range(100)]
        idle += [v.sock for v in viewers]
        record("idle", f"{len(idle)} idle connections open")

        def served():
            with urllib.request.urlopen(s.url, timeout=20) as response:
                assert response.status == 200
            assert page_round_trip(s) >= 0
        used, elapsed = cpu_while(s.web.pid, served)
        record("idle", f"the bridge used {used:.2f} s of CPU in {elapsed:.2f} s")
        assert used < max(elapsed, 1) / 2, "the bridge spun"
        # The flood pushed out only its own oldest connections.
        assert idle[-101].recv(1) == b"", "an idle connection over the cap was closed"
    finally:
        for sock in idle:
            sock.close()
    assert s.web.poll() is None


def test_descriptor_exhaustion_at_run_time_neither_spins_nor_stops_the_bridge(stack):
    s = stack(SIGNAL)
    host, port = address(s)
    assert subprocess.run(["prlimit", f"--pid={s.web.pid}", "--nofile=64:"]).returncode == 0
    flood = []
    try:
        # More than the descriptors left, fewer than fit in the listening socket's backlog.
        for _ in range(100):
            flood.append(socket.create_connection((host, port), timeout=10))
        deadline_wait(lambda: "cannot accept" in open(os.path.join(s.dir, "splashd-web.log")).read(), 20,
                      "the bridge to reach its limit")
        used, elapsed = cpu_while(s.web.pid, lambda: time.sleep(2))  # the measurement window
        record("descriptors", f"at its limit the bridge used {used:.2f} s of CPU in {elapsed:.2f} s")
        assert used < elapsed / 4, "the bridge spun at its descriptor limit"
    finally:
        for sock in flood:
            sock.close()
    assert subprocess.run(["prlimit", f"--pid={s.web.pid}", "--nofile=1024:"]).returncode == 0
    assert page_round_trip(s) >= 0
    assert s.web.poll() is None


def test_a_connection_that_never_finishes_its_request_is_closed_after_the_idle_timeout(stack):
    s = stack(SIGNAL)
    sock = socket.create_connection(address(s), timeout=30)
    try:
        sock.sendall(b"GET / HTTP/1.1\r\n")  # and never the rest
        started = time.monotonic()
        assert sock.recv(1) == b"", "closed without an answer"
        record("idle timeout", f"closed {time.monotonic() - started:.1f} s after its last byte")
    finally:
        sock.close()
