"""Fleet telemetry against a real OTLP receiver: splashd and splashd-otel as they run on a device,
the receiver decoding every request with the official protobuf definitions (docs/operations.md,
"Fleet telemetry"). Every process is started here and stopped by its PID; every wait is bounded.
"""

from __future__ import annotations

import grp
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from processes import BIN, ENV, deadline_wait, stop
import splash_client
from receiver import Receiver, attributes

GROUP = grp.getgrgid(os.getgid()).gr_name
ACCESS, REFRESH = "tok-access-5ecret-9d1e", "tok-refresh-5ecret-77aa"
PLUGIN = """#!/bin/sh
# Fails its first attempt of every launch (exit 75: retry allowed), then succeeds.
marker="$(dirname "$0")/mark.$SPLASHD_LAUNCH"
if [ ! -e "$marker" ]; then : > "$marker"; echo '{"message":"warming up"}'; exit 75; fi
echo '{"facts":{"warm":true}}'
"""


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Device:
    """splashd with a signed-in session and a flaky plugin, and splashd-otel beside it."""

    def __init__(self, endpoint: str):
        self.dir = tempfile.mkdtemp(prefix="splashd-otel-test-")
        self.socket = os.path.join(self.dir, "splashd.sock")
        state = os.path.join(self.dir, "state")
        os.makedirs(state)
        fd = os.open(os.path.join(state, "session.json"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, json.dumps({"access_token": ACCESS, "refresh_token": REFRESH,
                                 "expires_at": int(time.time()) + 86400, "user": "Ada"}).encode())
        os.close(fd)
        plugins = os.path.join(self.dir, "plugins")
        os.makedirs(plugins)
        fd = os.open(os.path.join(plugins, "warm.sh"), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o755)
        os.write(fd, PLUGIN.encode())
        os.close(fd)
        with open(os.path.join(plugins, "warm.toml"), "w") as f:
            f.write('exec = "warm.sh"\ndescription = "fails once per launch"\n')
        with open(os.path.join(self.dir, "splashd.toml"), "w") as f:
            f.write(f"""
[splash]
min_display = "0ms"
exit_animation = "0ms"
# Never slow, however slow the machine (a sanitizer's tenfold): the trace must say so.
slow_after = "10m"
[socket]
control_group = "{GROUP}"
[[step]]
id = "auth"
plugin = "auth-refresh"
[[step]]
id = "warm"
plugin = "warm"
retry = {{ attempts = 3, backoff = "10ms" }}
[[step]]
id = "counter"
plugin = "launch-counter"
after = ["auth"]
""")
        self.env = ENV
        self.log = open(os.path.join(self.dir, "splashd.log"), "ab")
        self.daemon = subprocess.Popen(
            [os.path.join(BIN, "splashd"), "--config", os.path.join(self.dir, "splashd.toml"), "--socket", self.socket,
             "--state-dir", state, "--plugin-dir", plugins, "--log-format", "text"],
            stdout=self.log, stderr=self.log, env=self.env)
        deadline_wait(lambda: self.request({"cmd": "ping"}), 20, "splashd")
        self.endpoint = endpoint
        self.exporter = None
        self.exporter_log = os.path.join(self.dir, "splashd-otel.log")

    def request(self, command):
        return splash_client.request(self.socket, command)

    def records(self):
        return self.request({"cmd": "records"})["data"]

    def finished_launches(self):
        return [r["launch"] for r in self.records() if r.get("finished_at_ms") is not None]

    def relaunch(self):
        before = len(self.finished_launches())
        assert self.request({"cmd": "relaunch"})["type"] == "ok"
        deadline_wait(lambda: len(self.finished_launches()) > before, 20, "the relaunch to finish")

    def start_exporter(self):
        # The default request timeout (10 s): a collector's reply (a 100 MB one in the hostile
        # tests) read more slowly than a shorter limit allows on a busy machine would be taken for
        # no reply, and the launch sent twice. Export timeouts a little shorter than the defaults
        # (30 s) keep the tests that wait for a failed cycle short.
        env = dict(ENV, OTEL_EXPORTER_OTLP_ENDPOINT=self.endpoint, OTEL_EXPORTER_OTLP_TIMEOUT="10000",
                   OTEL_BSP_EXPORT_TIMEOUT="15000", OTEL_METRIC_EXPORT_TIMEOUT="15000",
                   OTEL_RESOURCE_ATTRIBUTES="deployment.environment=test,host.name=kiosk-7")
        self.exporter = subprocess.Popen(
            [os.path.join(BIN, "splashd-otel"), "--socket", self.socket, "--state-dir", os.path.join(self.dir, "otel")],
            stdout=subprocess.DEVNULL, stderr=open(self.exporter_log, "ab"), env=env)

    def stop_exporter(self):
        self.exporter.send_signal(signal.SIGTERM)
        assert self.exporter.wait(timeout=30) == 0

    def exporter_output(self):
        with open(self.exporter_log) as f:
            return f.read()

    def close(self):
        stop(self.exporter, self.daemon)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def cleanup():
    things = []
    yield things.append
    for thing in reversed(things):
        thing.close()


def test_a_launch_as_the_receiver_decodes_it(cleanup):
    receiver = Receiver()
    cleanup(receiver)
    device = Device(receiver.endpoint)
    cleanup(device)
    deadline_wait(lambda: device.finished_launches(), 20, "the first launch")
    device.start_exporter()
    receiver.wait(lambda: len(receiver.roots()) == 1 and receiver.metrics, 30, "one launch and its metrics")
    record = device.records()[0]
    spans = receiver.spans()
    resource = spans[0][0]
    assert resource["service.name"] == "splashd" and resource["service.version"] == "0.1.0"
    assert resource["host.name"] == "kiosk-7", "OTEL_RESOURCE_ATTRIBUTES wins over the detected name"
    assert resource["deployment.environment"] == "test"
    assert len(resource["host.id"]) == 32 and resource["host.id"] != open("/etc/machine-id").read().strip()

    by_name = {}
    for _, span in spans:
        by_name.setdefault(span.name, []).append(span)
    root = by_name["splashd.launch"][0]
    origin = record["started_at_unix_ms"] * 1_000_000
    assert root.start_time_unix_nano == origin
    assert root.end_time_unix_nano == origin + record["finished_at_ms"] * 1_000_000
    assert root.parent_span_id == b""
    a = attributes(root)
    assert a["splashd.launch.id"] == record["launch"] and a["splashd.launch.outcome"] == "finished"
    assert a["splashd.destination.screen"] == "home" and a["splashd.launch.slow"] is False
    assert a["splashd.launch.retries"] == 0 and a["splashd.version"] == "0.1.0"
    assert a["splashd.graph.fingerprint"] == record["graph_fingerprint"]
    phases = [(attributes(e)["splashd.phase"], e.time_unix_nano) for e in root.events]
    assert phases == [(m["phase"], origin + m["at_ms"] * 1_000_000) for m in record["phases"]]

    steps = {attributes(s)["splashd.step.id"]: s for s in by_name["splashd.step"]}
    assert set(steps) == {"auth", "warm", "counter"}
    for step in record["steps"]:
        span = steps[step["id"]]
        assert span.trace_id == root.trace_id and span.parent_span_id == root.span_id
        assert span.start_time_unix_nano == origin + step["attempts"][0]["start_ms"] * 1_000_000
        assert attributes(span)["splashd.step.plugin"] == step["plugin"]
        assert attributes(span)["splashd.step.status"] == "succeeded"
    assert attributes(steps["warm"])["splashd.step.attempts"] == 2
    attempts = sorted((s for s in by_name["splashd.step.attempt"] if s.parent_span_id == steps["warm"].span_id), key=lambda s: s.start_time_unix_nano)
    assert [attributes(s)["splashd.attempt.outcome"] for s in attempts] == ["failed", "succeeded"]
    assert attributes(attempts[0])["splashd.attempt.code"] == "plugin-tempfail"
    assert attempts[0].status.code == 2  # STATUS_CODE_ERROR
    warm = next(s for s in record["steps"] if s["id"] == "warm")
    assert attempts[0].end_time_unix_nano == origin + warm["attempts"][0]["end_ms"] * 1_000_000

    names = {m.name for request in receiver.metrics for rm in request.resource_metrics for sm in rm.scope_metrics for m in sm.metrics}
    assert {"splashd.launch.duration", "splashd.step.duration", "splashd.step.failures"} <= names, names
    for body in receiver.raw:
        assert ACCESS.encode() not in body and REFRESH.encode() not in body, "a token left the device"
    print("exported launch:", json.dumps({"root": attributes(root), "spans": len(spans), "metrics": sorted(names)}))


def test_offline_launches_are_exported_once_and_a_restart_sends_nothing_twice(cleanup):
    port = free_port()
    device = Device(f"http://127.0.0.1:{port}")
    cleanup(device)
    deadline_wait(lambda: device.finished_launches(), 20, "the first launch")
    device.start_exporter()
    device.relaunch()
    device.relaunch()
    assert len(device.finished_launches()) == 3
    deadline_wait(lambda: "cannot export" in device.exporter_output(), 30, "a failed export")
    started = time.monotonic()
    receiver = Receiver(port)  # the collector comes back
    cleanup(receiver)
    receiver.wait(lambda: len(receiver.roots()) == 3, 60, "the three offline launches")
    caught_up = time.monotonic() - started
    ids = [attributes(r)["splashd.launch.id"] for r in receiver.roots()]
    assert sorted(ids) == sorted(device.finished_launches()) and len(set(ids)) == 3
    warnings = device.exporter_output().count("cannot export")
    assert warnings == 1, f"a collector that is down costs one line a minute, not {warnings}"

    device.stop_exporter()
    device.start_exporter()
    device.relaunch()
    receiver.wait(lambda: len(receiver.roots()) == 4, 60, "the launch after the restart")
    ids = [attributes(r)["splashd.launch.id"] for r in receiver.roots()]
    assert len(ids) == 4 and len(set(ids)) == 4, f"exported twice: {ids}"
    print(f"offline catch-up: 3 launches delivered {caught_up:.2f} s after the receiver came back; "
          f"after a restart: 4 launches, each once")


def test_a_collector_answering_503_costs_one_log_line_and_gets_the_launch_once(cleanup):
    receiver = Receiver()
    receiver.status = 503
    cleanup(receiver)
    device = Device(receiver.endpoint)
    cleanup(device)
    deadline_wait(lambda: device.finished_launches(), 20, "the first launch")
    device.start_exporter()
    device.relaunch()
    # Two failed export cycles at least (each retried inside swift-otel until its export timeout).
    deadline_wait(lambda: "cannot export" in device.exporter_output(), 60, "a failed export")
    first = receiver.refused
    receiver.wait(lambda: receiver.refused > first, 60, "another failed cycle")
    assert device.exporter_output().count("cannot export") == 1, "at most one line a minute"
    receiver.status = 200
    receiver.wait(lambda: len(receiver.roots()) == 2, 60, "both launches")
    device.relaunch()
    receiver.wait(lambda: len(receiver.roots()) >= 3, 60, "the next launch")
    ids = [attributes(r)["splashd.launch.id"] for r in receiver.roots()]
    assert len(set(ids)) == 3 == len(ids), f"exported twice: {ids}"
    print(f"503: {receiver.refused} refused requests, one log line, then each launch once")


def big_cursor(path):
    with open(path, "w") as f:
        f.write('{"exported":["' + "x" * (1 << 20) + '"]}')


@pytest.mark.parametrize("make", [
    pytest.param(lambda path: os.mkfifo(path), id="fifo"),
    pytest.param(big_cursor, id="over-1-MiB"),
    pytest.param(lambda path: os.mkdir(path), id="directory"),
    pytest.param(lambda path: os.symlink("/etc/passwd", path), id="symlink"),
])
def test_a_cursor_that_cannot_be_read_is_moved_aside_with_an_error_and_saving_works_again(cleanup, make):
    receiver = Receiver()
    cleanup(receiver)
    device = Device(receiver.endpoint)
    cleanup(device)
    deadline_wait(lambda: device.finished_launches(), 20, "the first launch")
    state = os.path.join(device.dir, "otel")
    os.makedirs(state)
    cursor = os.path.join(state, "cursor.json")
    make(cursor)
    device.start_exporter()
    # Before its fix a FIFO hung the exporter in open(2), and the others were dropped silently.
    receiver.wait(lambda: len(receiver.roots()) == 1, 30, "the launch")
    deadline_wait(lambda: "cannot be read" in device.exporter_output(), 10, "the cursor's error")
    assert f"the export cursor {cursor} cannot be read" in device.exporter_output()
    assert os.path.lexists(cursor + ".unreadable"), "kept aside, not lost"
    deadline_wait(lambda: os.path.isfile(cursor), 10, "the new cursor")
    # Saved in its place: after a restart the first launch is not sent again.
    device.stop_exporter()
    device.start_exporter()
    device.relaunch()
    receiver.wait(lambda: len(receiver.roots()) == 2, 30, "the launch after the restart")
    ids = [attributes(r)["splashd.launch.id"] for r in receiver.roots()]
    assert len(set(ids)) == 2 == len(ids), f"exported twice: {ids}"


@pytest.mark.parametrize("mode", ["garbage", "huge", "hang", "reset", "429"])
def test_a_hostile_collector_gets_every_launch_exactly_once(cleanup, mode):
    """Issue 22, item 9 and the hostile collector: a 2xx is delivered whatever its body (before
    the fix, a 200 with an unreadable body was a failure and the launch was sent again); a
    request the collector did not take is sent again, once it takes them."""
    receiver = Receiver()
    receiver.mode = mode
    cleanup(receiver)
    device = Device(receiver.endpoint)
    cleanup(device)
    deadline_wait(lambda: device.finished_launches(), 20, "the first launch")
    device.start_exporter()

    def distinct(n):
        return lambda: len({attributes(r)["splashd.launch.id"] for r in receiver.roots()}) >= n

    if mode in ("hang", "reset", "429"):
        receiver.wait(lambda: receiver.hostile >= 1, 60, "a request the collector does not take")
        # The hung request stays hung: the exporter gives up on it (its timeout) and sends again.
        receiver.mode = "ok"
    receiver.wait(distinct(1), 60, "the first launch")
    device.relaunch()
    receiver.wait(distinct(2), 60, "the second launch")
    if mode in ("garbage", "huge"):
        # The second cycle is over once it says so (or once a launch came twice: the defect).
        deadline_wait(lambda: device.exporter_output().count("count as delivered") >= 2
                      or len(receiver.roots()) > len({attributes(r)["splashd.launch.id"] for r in receiver.roots()}),
                      30, "two cycles to end")
    # One more cycle through the same exporter: nothing before it is sent again.
    device.relaunch()
    receiver.wait(distinct(3), 60, "the third launch")
    ids = [attributes(r)["splashd.launch.id"] for r in receiver.roots()]
    assert sorted(ids) == sorted(device.finished_launches()) and len(set(ids)) == 3 == len(ids), f"exported twice: {ids}"
    assert device.exporter.poll() is None
    if mode in ("garbage", "huge"):
        assert "cannot export" not in device.exporter_output()
    print(f"hostile collector ({mode}): {receiver.hostile} requests not taken, each of 3 launches delivered once")
