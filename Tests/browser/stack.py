"""The real parts the browser tests drive: splashd, splashd-web, a test app, a socket watcher.

Every process here is started by the test and stopped by its PID; every wait has a deadline.
"""

from __future__ import annotations

import http.server
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse

from processes import BIN, ENV, ROOT, deadline_wait, stop
from splash_client import Subscriber, answers


class Stack:
    """splashd on a config, and splashd-web on a theme, in a fresh directory."""

    def __init__(self, config: str, theme: str | dict = "reference", plugins: dict[str, str] | None = None,
                 system_bus: str | None = None, web_args: list[str] | None = None):
        # splashd's sd-bus talks to this bus instead of the system's ([app]: app_bus.AppBus).
        self.env = dict(ENV, DBUS_SYSTEM_BUS_ADDRESS=system_bus) if system_bus else ENV
        self.web_args = web_args or []
        self.dir = tempfile.mkdtemp(prefix="splashd-browser-")
        self.socket = os.path.join(self.dir, "splashd.sock")
        with open(os.path.join(self.dir, "splashd.toml"), "w") as f:
            f.write(config)
        self.plugin_dir = os.path.join(self.dir, "plugins")
        os.mkdir(self.plugin_dir)
        for name, script in (plugins or {}).items():
            path = os.path.join(self.plugin_dir, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o755)
            os.write(fd, script.encode())
            os.close(fd)
            with open(os.path.join(self.plugin_dir, name + ".toml"), "w") as f:
                f.write(f'exec = "{name}"\ndescription = "test plugin"\n')
        if isinstance(theme, str):
            self.theme = os.path.join(ROOT, "renderer", "themes", theme)
        else:
            self.theme = os.path.join(self.dir, "theme")
            shutil.copytree(os.path.join(ROOT, "renderer", "themes", theme.pop("base", "reference")), self.theme)
            path = os.path.join(self.theme, "theme.toml")
            with open(path) as f:
                text = f.read()
            for old, new in theme.get("replace", []):
                assert old in text, old
                text = text.replace(old, new)
            with open(path, "w") as f:
                f.write(theme.get("prepend", "") + "\n" + text + "\n" + theme.get("append", "") + "\n")
        self.daemon = None
        self.web = None
        self.url = None
        self.watcher = None
        self.start_daemon()
        self.start_web()

    def start_daemon(self):
        log = open(os.path.join(self.dir, "splashd.log"), "ab")
        self.daemon = subprocess.Popen(
            [os.path.join(BIN, "splashd"), "--config", os.path.join(self.dir, "splashd.toml"), "--socket", self.socket,
             "--state-dir", os.path.join(self.dir, "state"), "--plugin-dir", self.plugin_dir, "--log-format", "text"],
            stdout=log, stderr=log, env=self.env)
        deadline_wait(lambda: self.ping(), 20, "splashd to answer")
        if self.watcher:
            self.watcher.close()
        self.watcher = Subscriber(self.socket, log=os.path.join(self.dir, "splashd.log"))

    def ping(self):
        return answers(self.socket)

    def start_web(self, listen="127.0.0.1:0"):
        log = open(os.path.join(self.dir, "splashd-web.log"), "ab")
        self.web = subprocess.Popen(
            [os.path.join(BIN, "splashd-web"), "--socket", self.socket, "--listen", listen, "--theme", self.theme,
             "--web-root", os.path.join(ROOT, "renderer", "web"), "--url-file", os.path.join(self.dir, "url"), *self.web_args],
            stdout=subprocess.PIPE, stderr=log, env=ENV)
        self.url = self.web.stdout.readline().decode().strip()
        if not self.url.startswith("http://127.0.0.1:"):
            with open(os.path.join(self.dir, "splashd-web.log")) as f:
                raise AssertionError(f"splashd-web printed {self.url!r}: {f.read()}")
        self.origin = self.url.split("/?")[0]

    def ctl(self, *args, check=True):
        result = subprocess.run([os.path.join(BIN, "splashctl"), "--socket", self.socket, *args],
                                capture_output=True, text=True, env=ENV, timeout=30)
        if check and result.returncode != 0:
            raise AssertionError(f"splashctl {' '.join(args)}: {result.returncode} {result.stderr}")
        return result

    def stop_daemon(self):
        if self.daemon and self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            self.daemon.wait(timeout=20)

    def close(self):
        if self.watcher:
            self.watcher.close()
        stop(self.web, self.daemon)
        if self.web and self.web.stdout:
            self.web.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)


class AppServer:
    """The kiosk's app: a page of one color on loopback that reports when it painted."""

    COLOR = "#FF8800"

    def __init__(self, delay: float = 0):
        app = self
        self.delay = delay
        self.painted_at: float | None = None
        self.paths: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.startswith("/painted"):
                    # The page's own instant of its paint (epoch ms), on this process's monotonic
                    # clock: when the request got here is the machine's pace, not the paint's.
                    query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                    painted = time.monotonic()
                    if "t" in query:
                        painted -= max(0.0, time.time() - float(query["t"][0]) / 1000)
                    app.painted_at = app.painted_at or painted
                    body = b"ok"
                    content_type = "text/plain"
                else:
                    app.paths.append(self.path)
                    if app.delay:
                        time.sleep(app.delay)  # a slow app server: the hand-off must wait for it
                    body = (f"<!doctype html><html><head><style>html,body{{margin:0;height:100%;overflow:hidden;background:{AppServer.COLOR}}}p{{margin:0}}"
                            "</style></head><body><p id=t>app</p><script>requestAnimationFrame(()=>requestAnimationFrame(()=>"
                            "fetch('/painted?t=' + (performance.timeOrigin + performance.now()))))</script></body></html>").encode()
                    content_type = "text/html"
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
