"""Minimal Chrome DevTools Protocol client and headless-Chromium launcher.

Used by the browser tests. Depends only on the standard library and the
PyPI package ``websocket-client`` (import name ``websocket``).

Typical use::

    with Browser(["--force-prefers-reduced-motion"]) as browser:
        page = browser.new_page()
        page.navigate("http://127.0.0.1:8000/")
        img = page.screenshot()
        assert close_to(img.pixel(10, 10), "#0D7377")
"""

from __future__ import annotations

import base64
import collections
import functools
import itertools
import json
import os
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field

import websocket

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class CDPError(RuntimeError):
    """A CDP call returned an error, or a page-side exception was thrown."""


# --------------------------------------------------------------------------
# Connection: one websocket, a reader thread, replies matched by id, events.
# --------------------------------------------------------------------------

class _Connection:
    """A DevTools websocket with a background reader thread.

    Replies are matched to requests by id under one ``threading.Condition``;
    every event is appended to a buffer that ``wait_event`` consumes from.
    """

    def __init__(self, ws_url: str):
        # suppress_origin: Chromium >= 111 rejects websocket handshakes that
        # carry an Origin header unless --remote-allow-origins is given.
        self._ws = websocket.create_connection(ws_url, timeout=None, suppress_origin=True,
                                               enable_multithread=True)
        self._cond = threading.Condition()
        self._send_lock = threading.Lock()
        self._ids = itertools.count(1)
        self._replies: dict[int, dict] = {}
        self._waiting: set[int] = set()
        self._events: list[dict] = []
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, name="cdp-reader", daemon=True)
        self._reader.start()

    # -- reader thread ---------------------------------------------------
    def _read_loop(self) -> None:
        try:
            while True:
                raw = self._ws.recv()
                if not raw:
                    break
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        if msg["id"] in self._waiting:
                            self._replies[msg["id"]] = msg
                            self._cond.notify_all()
                elif "method" in msg:
                    event = {"method": msg["method"], "params": msg.get("params", {})}
                    self._on_event(event)
                    with self._cond:
                        self._events.append(event)
                        self._cond.notify_all()
        except Exception:  # socket closed / broken: just stop
            pass
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def _on_event(self, event: dict) -> None:
        """Hook run on the reader thread before an event is buffered."""

    # -- requests --------------------------------------------------------
    def _post(self, method: str, params: dict | None, want_reply: bool) -> int:
        msg_id = next(self._ids)
        if want_reply:
            with self._cond:
                self._waiting.add(msg_id)
        payload = json.dumps({"id": msg_id, "method": method, "params": params or {}})
        with self._send_lock:
            self._ws.send(payload)
        return msg_id

    def send(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        """Send a CDP command and return its ``result``; raise CDPError on error."""
        if self._closed:
            raise CDPError(f"{method}: connection is closed")
        msg_id = self._post(method, params, want_reply=True)
        deadline = time.monotonic() + timeout
        with self._cond:
            try:
                while msg_id not in self._replies:
                    remaining = deadline - time.monotonic()
                    if self._closed:
                        raise CDPError(f"{method}: connection closed before reply")
                    if remaining <= 0:
                        raise TimeoutError(f"{method}: no reply within {timeout}s")
                    self._cond.wait(remaining)
                reply = self._replies.pop(msg_id)
            finally:
                self._waiting.discard(msg_id)
                self._replies.pop(msg_id, None)
        if "error" in reply:
            err = reply["error"]
            raise CDPError(f"{method}: {err.get('message')} ({err.get('code')}) {err.get('data', '')}".rstrip())
        return reply.get("result", {})

    # -- events ----------------------------------------------------------
    def wait_event(self, method: str, predicate=None, timeout: float = 30) -> dict:
        """Return (and consume) the params of the first buffered event named
        ``method`` for which ``predicate(params)`` is true, waiting up to
        ``timeout`` seconds for one to arrive."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i, ev in enumerate(self._events):
                    if ev["method"] == method and (predicate is None or predicate(ev["params"])):
                        del self._events[i]
                        return ev["params"]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"no {method} event within {timeout}s")
                if self._closed:
                    raise CDPError(f"connection closed while waiting for {method}")
                self._cond.wait(remaining)

    def events(self, method: str) -> list[dict]:
        """All buffered (unconsumed) events named ``method``; not consumed."""
        with self._cond:
            return [ev["params"] for ev in self._events if ev["method"] == method]

    def clear_events(self) -> None:
        """Drop every buffered event."""
        with self._cond:
            self._events.clear()

    def close(self) -> None:
        """Close the websocket; the reader thread then exits."""
        try:
            self._ws.close()
        except Exception:
            pass
        self._reader.join(timeout=5)


# --------------------------------------------------------------------------
# Page
# --------------------------------------------------------------------------

@dataclass
class Frame:
    """One screencast frame: ``timestamp`` (seconds, from frame metadata) and PNG bytes."""
    timestamp: float
    png: bytes
    _image: "Image | None" = field(default=None, repr=False, compare=False)

    def image(self) -> "Image":
        """Decode (once, lazily) and return the frame as an Image."""
        if self._image is None:
            self._image = Image.decode_png(self.png)
        return self._image


class Page(_Connection):
    """A page target attached through its own websocket."""

    def __init__(self, ws_url: str, target_id: str, browser: "Browser | None" = None):
        self.target_id = target_id
        self._browser = browser
        self._screencasting = False
        self._frames: list[Frame] = []
        super().__init__(ws_url)

    def _on_event(self, event: dict) -> None:
        # Screencast frames must be acked right away or Chromium stops sending.
        if event["method"] == "Page.screencastFrame":
            params = event["params"]
            try:
                self._post("Page.screencastFrameAck", {"sessionId": params["sessionId"]}, False)
            except Exception:
                pass
            if self._screencasting:
                ts = float(params.get("metadata", {}).get("timestamp", time.time()))
                self._frames.append(Frame(ts, base64.b64decode(params["data"])))
            # Keep the event, but not a second copy of the image data.
            event["params"] = {k: v for k, v in params.items() if k != "data"}

    def navigate(self, url: str, wait_load: bool = True, timeout: float = 30) -> dict:
        """Navigate to ``url``; by default wait for ``Page.loadEventFired``."""
        self.send("Page.enable")
        with self._cond:
            self._events = [e for e in self._events if e["method"] != "Page.loadEventFired"]
        result = self.send("Page.navigate", {"url": url}, timeout=timeout)
        if result.get("errorText"):
            raise CDPError(f"navigate {url}: {result['errorText']}")
        if wait_load:
            self.wait_event("Page.loadEventFired", timeout=timeout)
        return result

    def evaluate(self, expression: str, await_promise: bool = False, timeout: float = 30):
        """Evaluate JS in the page and return its value (by value)."""
        result = self.send("Runtime.evaluate", {
            "expression": expression, "returnByValue": True,
            "awaitPromise": await_promise, "userGesture": True,
        }, timeout=timeout)
        if "exceptionDetails" in result:
            det = result["exceptionDetails"]
            text = det.get("exception", {}).get("description") or det.get("text", "exception")
            raise CDPError(f"evaluate {expression!r}: {text}")
        return result.get("result", {}).get("value")

    def wait_for(self, js_expression: str, timeout: float = 30, interval: float = 0.05):
        """Evaluate ``js_expression`` until truthy and return it; TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        value = None
        while True:
            value = self.evaluate(js_expression, timeout=max(1.0, deadline - time.monotonic()))
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{js_expression!r} not truthy after {timeout}s (last value: {value!r})")
            time.sleep(min(interval, max(0.0, deadline - time.monotonic())))

    def screenshot_png(self) -> bytes:
        """Capture the viewport as PNG bytes."""
        result = self.send("Page.captureScreenshot", {"format": "png"})
        return base64.b64decode(result["data"])

    def screenshot(self) -> "Image":
        """Capture the viewport and decode it."""
        return Image.decode_png(self.screenshot_png())

    def click(self, selector: str) -> tuple[float, float]:
        """Click the centre of the element matching ``selector`` with real
        mouse events; returns the (x, y) clicked."""
        rect = self.evaluate(f"""(() => {{
            const e = document.querySelector({json.dumps(selector)});
            if (!e) return null;
            e.scrollIntoView({{block: "center", inline: "center"}});
            const r = e.getBoundingClientRect();
            return {{x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height}};
        }})()""")
        if rect is None:
            raise CDPError(f"click: no element matches {selector!r}")
        if rect["w"] <= 0 or rect["h"] <= 0:
            raise CDPError(f"click: element {selector!r} has zero size")
        x, y = rect["x"], rect["y"]
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left", "buttons": 1, "clickCount": 1})
        return x, y

    def emulate_media(self, features: dict[str, str], media: str = "") -> None:
        """Emulate media features, e.g. ``{"prefers-color-scheme": "dark"}``."""
        self.send("Emulation.setEmulatedMedia", {
            "media": media, "features": [{"name": k, "value": v} for k, v in features.items()]})

    def set_viewport(self, width: int, height: int, device_scale_factor: float = 1,
                     mobile: bool = False) -> None:
        """Override the viewport size."""
        self.send("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height,
            "deviceScaleFactor": device_scale_factor, "mobile": mobile})

    def accessibility_tree(self) -> list[dict]:
        """The full AX tree as ``{"role", "name", "ignored", "properties"}`` dicts."""
        self.send("Accessibility.enable")
        nodes = self.send("Accessibility.getFullAXTree")["nodes"]

        def val(v):
            return (v or {}).get("value")
        return [{
            "role": str(val(n.get("role")) or ""),
            "name": str(val(n.get("name")) or ""),
            "ignored": bool(n.get("ignored", False)),
            "properties": {p["name"]: val(p.get("value")) for p in n.get("properties", [])},
        } for n in nodes]

    def start_screencast(self, format: str = "png", every_nth_frame: int = 1) -> None:
        """Start recording screencast frames (acked from the reader thread)."""
        self.send("Page.enable")
        with self._cond:
            self._frames = []
            self._screencasting = True
        self.send("Page.startScreencast", {"format": format, "everyNthFrame": every_nth_frame})

    def frames_so_far(self) -> list[Frame]:
        """The frames received since ``start_screencast``, oldest first, while it goes on."""
        with self._cond:
            return list(self._frames)

    def nudge_paint(self) -> None:
        """Make the compositor draw one more frame without touching what a test samples.

        Chromium sends a screencast frame only when something is drawn, and drops one while two
        are unacked: when the last frame of an animation is the one dropped, no frame ever shows
        the end. This toggles the colour of one pixel in the viewport's bottom-right corner (an
        overlay that never takes input) between two shades one step apart, which draws a frame.
        """
        self.evaluate("""(() => {
            let d = document.getElementById('__nudge');
            if (!d) {
                d = document.createElement('div');
                d.id = '__nudge';
                d.style.cssText = 'position:fixed;right:0;bottom:0;width:1px;height:1px;z-index:2147483647;pointer-events:none';
                document.documentElement.appendChild(d);
            }
            d.style.background = d.style.background === 'rgb(1, 1, 1)' ? 'rgb(2, 2, 2)' : 'rgb(1, 1, 1)';
        })()""")

    def stop_screencast(self) -> list[Frame]:
        """Stop the screencast and return the frames received, oldest first."""
        try:
            self.send("Page.stopScreencast")
        finally:
            with self._cond:
                self._screencasting = False
                frames, self._frames = self._frames, []
        return frames

    def close(self) -> None:
        """Close the websocket and the target."""
        super().close()
        if self._browser is not None and self._browser._conn is not None:
            try:
                self._browser._conn.send("Target.closeTarget", {"targetId": self.target_id}, timeout=5)
            except Exception:
                pass


# --------------------------------------------------------------------------
# Browser
# --------------------------------------------------------------------------

class Browser:
    """Launches headless Chromium with a fresh profile; a context manager."""

    def __init__(self, extra_args=(), width: int = 1280, height: int = 800,
                 executable: str = CHROMIUM, startup_timeout: float = 30):
        self.width, self.height = width, height
        self._root = tempfile.mkdtemp(prefix="cdp-chromium-")
        self.user_data_dir = os.path.join(self._root, "profile")
        os.mkdir(self.user_data_dir)
        self.log_path = os.path.join(self._root, "chromium.log")
        self._conn: _Connection | None = None
        args = [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                "--remote-debugging-port=0", f"--user-data-dir={self.user_data_dir}",
                f"--window-size={width},{height}", *extra_args, "about:blank"]
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT)
        try:
            self.port, browser_path = self._wait_for_port(startup_timeout)
            self._conn = _Connection(f"ws://127.0.0.1:{self.port}{browser_path}")
        except BaseException:
            self.close()
            raise

    def _wait_for_port(self, timeout: float) -> tuple[int, str]:
        path = os.path.join(self.user_data_dir, "DevToolsActivePort")
        deadline = time.monotonic() + timeout
        while True:
            try:
                with open(path) as f:
                    lines = f.read().split("\n")
                if len(lines) >= 2 and lines[0].strip().isdigit() and lines[1].startswith("/"):
                    return int(lines[0]), lines[1].strip()
            except FileNotFoundError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.proc.returncode}:\n{self.stderr_tail()}")
            if time.monotonic() >= deadline:
                raise RuntimeError(f"chromium did not write DevToolsActivePort within {timeout}s:\n"
                                   f"{self.stderr_tail()}")
            # Wake on process exit or after a short poll interval, whichever first.
            try:
                self.proc.wait(timeout=min(0.05, max(0.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                pass

    def stderr_tail(self, n: int = 40) -> str:
        """Last ``n`` lines of chromium's stdout/stderr log."""
        try:
            with open(self.log_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-n:]).decode("utf-8", "replace")
        except OSError:
            return ""

    def send(self, method: str, params: dict | None = None, timeout: float = 30) -> dict:
        """Send a browser-level CDP command."""
        return self._conn.send(method, params, timeout)

    def new_page(self, fit_viewport: bool = True) -> Page:
        """Open a new about:blank tab and attach to it.

        With ``--headless=new`` the page viewport is the window minus the
        (invisible) browser UI, e.g. 1280x713 for a 1280x800 window; with
        ``fit_viewport`` the viewport is overridden to exactly width x height.
        """
        target_id = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        page = Page(f"ws://127.0.0.1:{self.port}/devtools/page/{target_id}", target_id, self)
        if fit_viewport:
            page.set_viewport(self.width, self.height)
        return page

    def close(self) -> None:
        """Stop Chromium (SIGTERM, then SIGKILL after 5 s) and delete the profile."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        self._log.close()
        shutil.rmtree(self._root, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# --------------------------------------------------------------------------
# PNG decoding
# --------------------------------------------------------------------------

@functools.lru_cache(maxsize=8)
def _masks(n: int) -> tuple[int, int]:
    return int.from_bytes(b"\x7f" * n, "big"), int.from_bytes(b"\x80" * n, "big")


def _add_bytes(a: int, b: int, n: int) -> int:
    """Byte-lane-wise (a + b) mod 256 for ints packing ``n`` bytes (SWAR)."""
    lo, hi = _masks(n)
    return ((a & lo) + (b & lo)) ^ ((a ^ b) & hi)


class Image:
    """A decoded RGB(A) image: ``rows`` holds one bytes object per row."""

    def __init__(self, width: int, height: int, channels: int, rows: list[bytes]):
        self.width, self.height, self.channels, self.rows = width, height, channels, rows

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        """The (r, g, b) at (x, y); alpha is ignored."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise IndexError(f"pixel ({x}, {y}) outside {self.width}x{self.height}")
        i = x * self.channels
        return tuple(self.rows[y][i:i + 3])

    def distinct_colors(self, step: int = 8) -> collections.Counter:
        """Counter of (r, g, b) over a grid sampling every ``step`` pixels."""
        c = self.channels
        return collections.Counter(tuple(self.rows[y][x * c:x * c + 3])
                                   for y in range(0, self.height, step)
                                   for x in range(0, self.width, step))

    @staticmethod
    def decode_png(data: bytes) -> "Image":
        """Decode an 8-bit, non-interlaced RGB or RGBA PNG (stdlib only)."""
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("not a PNG")
        pos, idat, ihdr = 8, [], None
        while pos < len(data):
            length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
            chunk = data[pos + 8:pos + 8 + length]
            pos += 12 + length
            if ctype == b"IHDR":
                ihdr = struct.unpack(">IIBBBBB", chunk)
            elif ctype == b"IDAT":
                idat.append(chunk)
            elif ctype == b"IEND":
                break
        if ihdr is None:
            raise ValueError("PNG without IHDR")
        width, height, depth, color, _comp, _filt, interlace = ihdr
        if depth != 8 or color not in (2, 6) or interlace:
            raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {color}, "
                             f"interlace {interlace} (need 8-bit RGB/RGBA, non-interlaced)")
        bpp = 3 if color == 2 else 4
        stride = width * bpp
        raw = zlib.decompress(b"".join(idat))
        if len(raw) < height * (stride + 1):
            raise ValueError("truncated PNG data")
        rows: list[bytes] = []
        prev = bytes(stride)
        for y in range(height):
            off = y * (stride + 1)
            ftype, line = raw[off], raw[off + 1:off + 1 + stride]
            if ftype == 0:
                cur = line
            elif ftype == 1:  # Sub: prefix sum per channel lane (log-step scan)
                acc, k = int.from_bytes(line, "big"), bpp
                while k < stride:
                    acc = _add_bytes(acc, acc >> (8 * k), stride)
                    k *= 2
                cur = acc.to_bytes(stride, "big")
            elif ftype == 2:  # Up
                cur = _add_bytes(int.from_bytes(line, "big"), int.from_bytes(prev, "big"),
                                 stride).to_bytes(stride, "big")
            elif ftype in (3, 4):  # Average / Paeth: byte-by-byte
                out = bytearray(line)
                for i in range(stride):
                    a = out[i - bpp] if i >= bpp else 0
                    b = prev[i]
                    if ftype == 3:
                        out[i] = (out[i] + ((a + b) >> 1)) & 0xFF
                    else:
                        c = prev[i - bpp] if i >= bpp else 0
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                        out[i] = (out[i] + pred) & 0xFF
                cur = bytes(out)
            else:
                raise ValueError(f"bad PNG filter type {ftype} in row {y}")
            rows.append(cur)
            prev = cur
        return Image(width, height, bpp, rows)


def _rgb(value) -> tuple[int, int, int]:
    if isinstance(value, str):
        h = value.lstrip("#")
        if len(h) == 3:
            h = "".join(ch * 2 for ch in h)
        if len(h) != 6:
            raise ValueError(f"bad colour {value!r}")
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)
    return tuple(value[:3])


def close_to(rgb, hex_or_tuple, tol: int = 3) -> bool:
    """True if every channel of ``rgb`` is within ``tol`` of the target colour
    (a "#RRGGBB"/"#RGB" string or an (r, g, b) tuple)."""
    return all(abs(a - b) <= tol for a, b in zip(_rgb(rgb), _rgb(hex_or_tuple)))
