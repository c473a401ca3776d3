#!/usr/bin/env python3
"""`make bench-app`: the daemon while it only watches a healthy app, and how fast the splash
comes back when the app dies (docs/design.md §14; docs/benchmarks.md, "The app's life").

The release splashd (`make dist`) with [app], its sd-bus talking to the fake systemd of
Tests/harness/fake_systemd.py on a private D-Bus (real systemd's numbers come from system check
18). A client sends `alive` at the heartbeat as the app would.

1. Idle: for WATCH seconds after `finished`, the daemon's CPU time and its context switches (every
   thread's voluntary + involuntary switches from /proc: each is a wake-up), against the heartbeats
   the client sent in the same time.
2. Death to splash: the fake unit fails; the time until a subscriber reads the first `loading`
   state of the `app-exited` launch, ROUNDS times.

Usage: scripts/bench-app.py [SPLASHD] [--watch SECONDS] [--rounds N] [--heartbeat SECONDS (0: none)]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "harness"))
os.environ.setdefault("SPLASHD_BIN_DIR", os.path.join(ROOT, ".build", "dist", "release"))
from app_bus import AppBus  # noqa: E402
from processes import deadline_wait, stop  # noqa: E402
from procfs import cpu_seconds, switches  # noqa: E402
from splash_client import Subscriber  # noqa: E402


def complete_first_frame(done: set):
    """The app's side of the socket: completes first-frame once for each launch."""
    def on_state(client: Subscriber, state: dict):
        if state["phase"] == "loading" and state["launch"] not in done and any(
                s["id"] == "first-frame" and s["status"] == "running" for s in state["steps"]):
            client.send({"cmd": "complete", "step": "first-frame"})
            done.add(state["launch"])
    return on_state


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("splashd", nargs="?", default=os.path.join(ROOT, ".build", "dist", "release", "splashd"))
    parser.add_argument("--watch", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--heartbeat", type=float, default=10)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="splashd-bench-app-")
    unit = "kiosk-app.service"
    with open(os.path.join(work, "splashd.toml"), "w") as f:
        f.write(f'[splash]\nmin_display = "0ms"\nexit_animation = "0ms"\n[app]\nunit = "{unit}"\n'
                + (f'heartbeat = "{int(args.heartbeat)}s"\n' if args.heartbeat > 0 else "")
                + 'max_restarts = 1000\nrestart_window = "1s"\n'
                '[[step]]\nid = "first-frame"\nplugin = "signal"\n')
    bus = AppBus(unit)
    path = os.path.join(work, "splashd.sock")
    daemon = subprocess.Popen(
        [args.splashd, "--config", os.path.join(work, "splashd.toml"), "--socket", path, "--state-dir", os.path.join(work, "state"),
         "--log-format", "text"], stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "splashd.log"), "w"),
        env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=bus.address, SWIFT_BACKTRACE="enable=no"))
    try:
        deadline_wait(lambda: os.path.exists(path), 20, "the socket")
        client = Subscriber(path, on_state=complete_first_frame(set()))
        deadline_wait(lambda: client.finished_launches(), 20, "the first launch to finish")
        time.sleep(1)  # what the launch itself set going (memory release after the launch) settles
        before_switches, before_cpu, started = switches(daemon.pid), cpu_seconds(daemon.pid), time.monotonic()
        beats = 0
        while time.monotonic() - started < args.watch:
            if args.heartbeat > 0:
                client.send({"cmd": "alive"})
                beats += 1
            time.sleep(min(args.heartbeat if args.heartbeat > 0 else args.watch, max(0.0, args.watch - (time.monotonic() - started))))
        elapsed = time.monotonic() - started
        woke = switches(daemon.pid) - before_switches
        cpu = cpu_seconds(daemon.pid) - before_cpu
        per_hour = 3600 / elapsed
        print(f"idle watch of a healthy app, {elapsed:.0f} s, heartbeat {args.heartbeat:g} s (0: none): "
              f"{woke} context switches ({woke * per_hour:.0f}/h) for {beats} heartbeats ({beats * per_hour:.0f}/h); "
              f"CPU {cpu * 1000:.0f} ms ({cpu * per_hour * 1000:.0f} ms/h)")
        latencies = []
        for _ in range(args.rounds):
            seen = len(client.states)
            launches = len(client.finished_launches())
            died = time.monotonic()
            bus.send("fail")
            at = deadline_wait(lambda: next((t for t, s in client.states[seen:] if s["phase"] == "loading" and s.get("reason") == "app-exited"), None),
                               10, "the app-exited launch")
            latencies.append((at - died) * 1000)
            deadline_wait(lambda: len(client.finished_launches()) > launches, 20, "the recovery to finish")
        latencies.sort()
        print(f"app death -> first loading state at a subscriber, {len(latencies)} rounds: median {statistics.median(latencies):.2f} ms, "
              f"p90 {latencies[max(0, -(-len(latencies) * 9 // 10) - 1)]:.2f} ms, max {latencies[-1]:.2f} ms "
              "(includes the fake systemd's signal over the bus)")
    finally:
        stop(daemon)
        bus.close()


if __name__ == "__main__":
    main()
