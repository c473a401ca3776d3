"""The system checks (docs/system-tests.md): splashd's package and units under real systemd 252 as
PID 1, in one container through all of them (conftest.py, container.py).

The checks are defined in the order they run, which is not their numbers': 0, 1, 2, 3, 6, 5, 7, 9,
10, 16, 18, 20, 4, 8, 11, then the package's life 12, 13, 14, 17, 19, 15. Each runs on the state the ones
before it left (`needs=`: the checks whose state it uses; with -k it is skipped unless they are
selected too), and a failed check does not stop the later ones.

A check adds evidence with `verdict.ev(…)` and reasons to fail with `verdict.bad(…)`; its line
(PASS/FAIL) is made from them. Commands in the container are the same as ever (`ct.c(…)`); what
the shell pipelines did with their output (jq, awk, grep, paste) is done here in Python.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import re
import resource
import shutil
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

import configs
from container import (LAUNCH_FINISHED_ID, LAUNCH_STARTED_ID, LEGACY, Container, about, count_lines, daemon, field,
                       in_list, jc, jr, json_objects, lines, message, ms_since, msg, num, paste, squeeze, tdiv)

TOML = "/etc/splashd/splashd.toml"
UNITS3 = ("splashd.socket", "splashd.service", "splashd-finished.service")
TEST_PLUGINS = ("/etc/splashd/plugins.d/systest-probe.toml", "/etc/splashd/plugins.d/systest-probe.sh",
                "/etc/splashd/plugins.d/systest-sleeper.toml", "/etc/splashd/plugins.d/systest-sleeper.sh")


def check(check_id: int, name: str, stage: str, needs: tuple[int, ...] = (), package: bool = False):
    """A system check: its number and name (its line), the fixture it runs on (ct, rebooted,
    booted), the checks whose state it uses, whether it needs a package (not with --bin-dir)."""
    return pytest.mark.systest_check(check_id, name, stage=stage, needs=needs, package=package)


# ---------------------------------------------------------------------------------------------
# What the checks share


def ji(value) -> str:
    """A value in a jq string interpolation: strings as they are, null as "null"."""
    if value is None:
        return "null"
    return jr(value)


def jcq(document, *path) -> str:
    """`jq -c .a.b`: empty when there was no document."""
    if document is None:
        return ""
    value = document
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return jc(value)


def cut_fields(line: str, delimiter: str, wanted: tuple[int, ...]) -> str:
    """cut -d DELIMITER -f WANTED (1-based) of one line; a line without the delimiter as it is."""
    if delimiter not in line:
        return line
    parts = line.split(delimiter)
    return delimiter.join(parts[i - 1] for i in wanted if i <= len(parts))


def first_fields(text: str) -> list[str]:
    """awk '{print $1}'."""
    return [(line.split() or [""])[0] for line in lines(text)]


def steps_of(state) -> str:
    """[.steps[].id] | join(",")"""
    if state is None:
        return ""
    return ",".join(ji(step.get("id")) for step in state.get("steps") or [])


def lt(a, b) -> bool:
    """[ A -lt B ] (false unless both are numbers)."""
    a, b = num(a), num(b)
    return a is not None and b is not None and a < b


def le(a, b) -> bool:
    a, b = num(a), num(b)
    return a is not None and b is not None and a <= b


def n0(text) -> int:
    """A number in $((…)): empty (or not a number) counts as 0."""
    value = num(text)
    return value if value is not None else 0


def sha12(ct: Container, path: str = TOML) -> str:
    """sha256sum PATH | cut -c1-12"""
    return "\n".join(line[:12] for line in lines(ct.c("sha256sum", path).stdout))


def after_colon(text: str) -> str:
    """sed 's/.*: //' (what `stat` says when there is nothing)."""
    return "\n".join(re.sub(r".*: ", "", line) for line in lines(text))


def ping_ok(ct: Container) -> bool:
    return ct.c("splashctl", "ping", merge=True).out == f"pong (splashd {ct.c('splashd', '--version', merge=True).out})"


def enabled_of(ct: Container, *units: str) -> str:
    return paste(ct.c("systemctl", "is-enabled", *units, merge=True).stdout, "/")


def processes_of_splashd(ct: Container, columns: str = "pid=,args=") -> list[str]:
    return lines(ct.c("ps", "-u", "splashd", "-o", columns).stdout)


def running_units(ct: Container) -> str:
    """What an upgrade must leave alone, one line: the daemon, its socket, the finished unit, the launch."""
    return (f"splashd {ct.prop('splashd.service', 'MainPID')} {ct.prop('splashd.service', 'InvocationID')} "
            f"NRestarts={ct.prop('splashd.service', 'NRestarts')} "
            f"socket-since {ct.prop('splashd.socket', 'ActiveEnterTimestampMonotonic')} "
            f"finished-since {ct.prop('splashd-finished.service', 'ActiveEnterTimestampMonotonic')} "
            f"launch {jr(ct.state(), 'launch')}")


def package_leftovers(ct: Container) -> str:
    """The paths of memo.package_paths that exist in the container and that no other package lists."""
    mine = sorted(set(ct.memo.package_paths) - set(ct.memo.other_paths))
    script = 'while read -r p; do if [ -e "$p" ] || [ -L "$p" ]; then echo "$p"; fi; done'
    return paste(ct.c("sh", "-c", script, input="".join(p + "\n" for p in mine)).stdout, " ")


def other_packages_paths(ct: Container, excluded: tuple[str, ...]) -> list[str]:
    """What the other packages list (dpkg's *.list files but the EXCLUDED names), sorted, unique."""
    argv = ["find", "/var/lib/dpkg/info", "-name", "*.list"]
    for name in excluded:
        argv += ["!", "-name", name]
    return sorted(set(lines(ct.c(*argv, "-exec", "cat", "{}", "+").stdout)))


def write_plugins(ct: Container) -> None:
    for name, mode in [("systest-probe.toml", 0o644), ("systest-probe.sh", 0o755),
                       ("systest-sleeper.toml", 0o644), ("systest-sleeper.sh", 0o755)]:
        ct.write_from_files(name, f"/etc/splashd/plugins.d/{name}", mode)


# ---------------------------------------------------------------------------------------------
# Check 0: what installing did on the running system. The package (design §11) enables the socket
# and the finished unit and starts the socket; --bin-dir follows docs/systemd.md (enable --now
# splashd.service, which also enables the socket).


@check(0, "install", stage="ct")
def test_00_install(ct: Container, verdict):
    enabled = enabled_of(ct, *UNITS3)
    active = paste(ct.c("systemctl", "is-active", *UNITS3).stdout, "/")
    ldd = ct.c("ldd", "/usr/bin/splashd", "/usr/bin/splashctl", merge=True).stdout
    libs = " ".join(sorted({line.split()[0] for line in lines(ldd) if ("=>" in line or "ld-linux" in line) and line.split()}))
    verdict.ev(f"splashd --version: {ct.c('splashd', '--version', merge=True).out}; is-enabled socket/service/finished: {enabled}; "
               f"is-active: {active}")
    verdict.ev(f"libraries: {libs}")
    if re.search(r"not found|/opt/swift|libswift|libFoundation|libdispatch", ct.c("ldd", "/usr/bin/splashd", "/usr/bin/splashctl").stdout):
        verdict.bad("the binaries need the Swift toolchain's libraries")
    # One executable for both names (docs/packaging.md); libsystemd is loaded only when needed.
    link = ct.c("readlink", "/usr/bin/splashctl", merge=True).out
    verdict.ev(f"/usr/bin/splashctl -> {link}")
    if link != "splashd":
        verdict.bad(f"/usr/bin/splashctl is not a link to splashd: {link!r}")
    if "libsystemd" in ldd:
        verdict.bad("the binary links libsystemd (it is loaded with dlopen when needed)")
    # The sysusers and tmpfiles snippets.
    dirs = paste(ct.c("stat", "-c", "%n %U:%G %a", "/var/lib/splashd", "/run/splashd", "/etc/splashd/plugins.d", merge=True).stdout, ",")
    groups = ct.c("id", "-nG", "splashd", merge=True).out
    verdict.ev(f"directories: {dirs}; splashd's groups: {groups}")
    if dirs != "/var/lib/splashd splashd:splashd 700,/run/splashd splashd:splashd 755,/etc/splashd/plugins.d root:root 755":
        verdict.bad(f"directories' owners and modes: {dirs}")
    if not in_list("splash", groups):
        verdict.bad("the user splashd is not in the group splash")
    # The web bridge's user (issue 48): its own uid, in splash, so that polkit's grant to splashd
    # is not the bridge's.
    web = ct.c("id", "splashd-web", merge=True).out
    verdict.ev(f"id splashd-web: {web}")
    if not ct.c("id", "-u", "splashd-web").ok or ct.c("id", "-u", "splashd-web").out == ct.c("id", "-u", "splashd").out:
        verdict.bad("no user splashd-web of its own (the bridge would run with splashd's uid and polkit grant)")
    if not in_list("splash", ct.c("id", "-nG", "splashd-web", merge=True).out):
        verdict.bad("the user splashd-web is not in the group splash")
    if ct.deb:
        conffiles = " ".join(first for first in first_fields(ct.c("dpkg-query", "-W", "-f", "${Conffiles}", "splashd").stdout) if first)
        verdict.ev(f"dpkg: {ct.c('dpkg-query', '-W', '-f', '${Status} ${Version}', 'splashd').out}; conffiles: {conffiles}")
        if enabled != "enabled/disabled/enabled":
            verdict.bad(f"is-enabled socket/service/finished is {enabled}, want enabled/disabled/enabled (design §11)")
        if active.split("/")[0] != "active":
            verdict.bad("postinst did not start splashd.socket")
        if active != "active/inactive/inactive":
            verdict.bad(f"is-active socket/service/finished is {active}: installing should start only the socket")
        shipped = ct.c("splashd", "check", "--config", TOML, merge=True)
        verdict.ev(f"the shipped configuration: {shipped.out}")
        if not shipped.ok:
            verdict.bad("the shipped /etc/splashd/splashd.toml does not pass splashd check")
        if not ping_ok(ct):
            verdict.bad("splashctl ping through the new socket failed")
        verdict.ev(f"splashctl ping right after install (socket activation): {ct.c('splashctl', 'ping', merge=True).out}")
        # scripts/deb.sh gzips the docs over 4 KiB (as dh_compress does), but not those the units
        # and the journal catalog point at: each of those is there as named.
        pointers = ct.c("sh", "-c", "cat /usr/lib/systemd/system/splashd* /usr/lib/systemd/catalog/splashd.catalog").stdout
        named = sorted(set(re.findall(r"file:(/usr/share/doc/splashd/\S+)", pointers)))
        missing = [path for path in named if not ct.c("test", "-f", path).ok]
        docs = ct.c("ls", "/usr/share/doc/splashd").stdout.split()
        verdict.ev(f"docs the units and the catalog name: {' '.join(named)}; gzipped: {len([d for d in docs if d.endswith('.md.gz')])}")
        if not named or missing:
            verdict.bad(f"the docs the units and the catalog name are missing: {missing or 'none named'}")
        if "design.md.gz" not in docs:
            verdict.bad(f"the docs over 4 KiB are not gzipped: {docs}")
    else:
        # The finished unit has an [Install] section (for the package); systemd.md's commands
        # leave it disabled.
        if enabled != "enabled/enabled/disabled":
            verdict.bad(f"is-enabled socket/service/finished is {enabled}, want enabled/enabled/disabled (docs/systemd.md)")


# ---------------------------------------------------------------------------------------------
# Check 1. The test connects only after the boot's start job of splashd.service is done, and
# splashd-finished.service (the one client at boot) is ordered after it: what started the
# service is the boot transaction, never a connection. Which unit pulled it in is reported.


@check(1, "socket-at-boot", stage="rebooted")
def test_01_socket_at_boot(ct: Container, verdict):
    socket_state = f"{ct.prop('splashd.socket', 'ActiveState')}/{ct.prop('splashd.socket', 'SubState')}"
    service_state = f"{ct.prop('splashd.service', 'ActiveState')}/{ct.prop('splashd.service', 'SubState')}"
    socket_at = ct.prop("splashd.socket", "ActiveEnterTimestampMonotonic")
    service_exit = ct.prop("splashd.service", "InactiveExitTimestampMonotonic")
    service_at = ct.prop("splashd.service", "ActiveEnterTimestampMonotonic")
    svc_enabled = ct.c("systemctl", "is-enabled", "splashd.service").out
    svc_wanted = ct.prop("splashd.service", "WantedBy")
    svc_required = ct.prop("splashd.service", "RequiredBy")
    triggered = ct.prop("splashd.service", "TriggeredBy")
    sock_wanted = ct.prop("splashd.socket", "WantedBy")
    fin_wanted = ct.prop("splashd-finished.service", "WantedBy")
    stat = ct.c("stat", "-c", "%F %U:%G %a", "/run/splashd/splashd.sock", merge=True).out
    # The container shares the host's network namespace, so ss lists every listening Unix socket
    # on the machine (other containers' too): ours is the one this container's PID 1 holds.
    listen = "\n".join(squeeze(line) for line in lines(ct.c("ss", "-xlnp").stdout)
                       if "/run/splashd/splashd.sock" in line and '"systemd",pid=1,' in line)
    verdict.ev(f"splashd.socket {socket_state} since +{tdiv(n0(socket_at), 1000)}ms (container clock), WantedBy={sock_wanted}")
    verdict.ev(f"socket file: {stat}; ss: {listen or 'nothing'}")
    verdict.ev(f"splashd.service {service_state}, started +{tdiv(n0(service_exit), 1000)}ms, ready +{tdiv(n0(service_at), 1000)}ms, "
               f"TriggeredBy={triggered}")
    if socket_state not in ("active/running", "active/listening"):
        verdict.bad(f"splashd.socket is {socket_state}")
    if not in_list("sockets.target", sock_wanted):
        verdict.bad("splashd.socket is not enabled in sockets.target")
    if stat != "socket root:splash 660":
        verdict.bad(f"socket file is '{stat}', want 'socket root:splash 660'")
    if "LISTEN" not in listen:
        verdict.bad("nothing listens on /run/splashd/splashd.sock")
    if service_state != "active/running":
        verdict.bad(f"splashd.service is {service_state}")
    if ct.memo.boot_invocation != ct.prop("splashd.service", "InvocationID"):
        verdict.bad("splashd.service was restarted since boot")
    if not in_list("splashd.socket", triggered):
        verdict.bad("splashd.service is not triggered by splashd.socket")
    if not (lt(0, socket_at) and le(socket_at, service_exit)):
        verdict.bad("the socket did not listen before the service started")
    # docs/systemd.md: splashd.service is enabled (WantedBy=multi-user.target) and starts at boot.
    # The package (design §11) enables splashd-finished.service instead, which Requires= it.
    if in_list("multi-user.target", svc_wanted):
        verdict.ev(f"started at boot: multi-user.target wants splashd.service (is-enabled: {svc_enabled}), as docs/systemd.md says")
    elif in_list("splashd-finished.service", svc_required) and in_list("multi-user.target", fin_wanted):
        verdict.ev("started at boot: multi-user.target wants splashd-finished.service, which Requires= splashd.service "
                   f"(splashd.service is-enabled: {svc_enabled}; docs/systemd.md says it is enabled itself)")
    else:
        verdict.bad(f"nothing at boot pulls in splashd.service (WantedBy={svc_wanted} RequiredBy={svc_required})")


@check(2, "status-text", stage="rebooted")
def test_02_status_text(ct: Container, verdict):
    # Once the built-ins have finished (on a busy machine they may still run: their labels are then
    # in the text too), and systemd has the STATUS= that followed.
    def only_first_frame_left(state):
        return all(s.get("id") == "first-frame" or s.get("status") in ("succeeded", "failed", "skipped")
                   for s in state.get("steps") or [])
    ct.follow(60, ["splashctl", "watch", "--json"], only_first_frame_left)
    end = time.monotonic() + 60
    while not re.fullmatch(r"loading [0-9]+%: Starting the app", ct.prop("splashd.service", "StatusText")) and time.monotonic() < end:
        time.sleep(0.1)
    status = ct.c("systemctl", "status", "splashd.service", "--no-pager", merge=True).stdout
    status_line = "\n".join(line.lstrip(" ") for line in lines(status) if re.match(r" *Status: ", line))
    text = ct.prop("splashd.service", "StatusText")
    verdict.ev(f"systemctl status: {status_line or 'no Status: line'}")
    if not re.fullmatch(r"loading [0-9]+%: Starting the app", text):
        verdict.bad(f"StatusText is '{text}', want 'loading N%: Starting the app' (the boot launch waits for first-frame)")
    if status_line != f'Status: "{text}"':
        verdict.bad("systemctl status does not show the STATUS= text")


# Check 3 at boot: the launch waits in first-frame; the test completes it and sends dismissed.


@check(3, "finished-unit-ordering", stage="rebooted")
def test_03_finished_unit_ordering(ct: Container, verdict):
    finished_state = f"{ct.prop('splashd-finished.service', 'ActiveState')}/{ct.prop('splashd-finished.service', 'SubState')}"
    app_state = ct.prop("systest-app.service", "ActiveState")
    jobs = " ".join("/".join((line.split() + ["", "", "", ""])[1:4])
                    for line in lines(ct.c("systemctl", "list-jobs", "--no-legend", "--no-pager").stdout))
    verdict.ev(f"while loading: splashd-finished {finished_state}, systest-app {app_state}, jobs: {jobs or 'none'}")
    if finished_state != "activating/start":
        verdict.bad(f"splashd-finished.service is {finished_state} while the splash is loading")
    if app_state != "inactive":
        verdict.bad(f"systest-app.service is {app_state} while the splash is loading")

    if not ct.cl("splashctl", "complete", "first-frame"):
        verdict.bad("splashctl complete first-frame failed")
    if not ct.cl("splashctl", "wait", "dismissing", "--timeout", "20s"):
        verdict.bad("no dismissing after first-frame")
    st = ct.state()
    finished_state = ct.prop("splashd-finished.service", "ActiveState")
    verdict.ev(f"in {jr(st, 'phase')}: splashd-finished {finished_state}")
    if jr(st, "phase") != "dismissing":
        verdict.bad(f"phase is {jr(st, 'phase')}, want dismissing (exit_animation 5m)")
    if finished_state != "activating":
        verdict.bad(f"splashd-finished.service is {finished_state} in phase dismissing")

    before = ct.cursor()
    if not ct.cl("splashctl", "dismissed"):
        verdict.bad("splashctl dismissed failed")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "10s").ok:
        verdict.bad("no finished after dismissed")
    st = ct.state()
    launch = jr(st, "launch")
    verdict.ev(f"launch {launch} finished, destination {jcq(st, 'destination')}")
    rc = ct.wait_start_job(30, before, "systest-app.service")
    if rc != "done":
        verdict.bad(f"systest-app.service start job: '{rc or 'no job'}'")
    # When the daemon sent the launch-finished record: journald stamps __MONOTONIC_TIMESTAMP when
    # it gets to the record, which can be a few ms after splashd-finished.service is already
    # active; _SOURCE_REALTIME_TIMESTAMP is the socket's receive time (SO_TIMESTAMP), and the
    # daemon sends the record (synchronously) before it publishes the state. Mapped onto the
    # monotonic clock with the record's own realtime/monotonic pair.
    records = json_objects("\n".join(lines(ct.c("journalctl", "-o", "json", f"MESSAGE_ID={LAUNCH_FINISHED_ID}",
                                                f"SPLASHD_LAUNCH={launch}").stdout)[:1]))
    record = records[0] if records else None
    stored_mono = jr(record, "__MONOTONIC_TIMESTAMP") if record and record.get("__MONOTONIC_TIMESTAMP") is not None else ""
    launch_mono = 0
    if record:
        realtime = n0(record.get("__REALTIME_TIMESTAMP"))
        source = record.get("_SOURCE_REALTIME_TIMESTAMP")
        launch_mono = n0(record.get("__MONOTONIC_TIMESTAMP")) - (realtime - (n0(source) if source is not None else realtime))
    if stored_mono:
        source = record.get("_SOURCE_REALTIME_TIMESTAMP")
        verdict.ev(f"launch-finished record sent at {launch_mono}, stored by journald at {stored_mono} "
                   f"(+{tdiv(n0(stored_mono) - launch_mono, 1000)}ms; _SOURCE_REALTIME_TIMESTAMP {ji(source) if source is not None else 'missing'})")
    finished_exit = ct.prop("splashd-finished.service", "InactiveExitTimestampMonotonic")
    finished_at = ct.prop("splashd-finished.service", "ActiveEnterTimestampMonotonic")
    app_exit = ct.prop("systest-app.service", "InactiveExitTimestampMonotonic")
    app_at = ct.prop("systest-app.service", "ActiveEnterTimestampMonotonic")
    if not stored_mono:
        verdict.bad(f"no launch-finished record (MESSAGE_ID f0d9…) for launch {launch}")
        return
    verdict.ev(f"monotonic µs: splashd-finished started {finished_exit}; launch-finished record {launch_mono}; "
               f"splashd-finished active {finished_at} (+{tdiv(n0(finished_at) - launch_mono, 1000)}ms); "
               f"systest-app started {app_exit}, active {app_at} (+{tdiv(n0(app_at) - launch_mono, 1000)}ms)")
    if not lt(finished_exit, launch_mono):
        verdict.bad("splashd-finished.service did not wait (started after the launch finished)")
    if not le(launch_mono, finished_at):
        verdict.bad("splashd-finished.service became active before the launch finished")
    if not le(finished_at, app_exit):
        verdict.bad("systest-app.service started before splashd-finished.service was active")


# ---------------------------------------------------------------------------------------------
# Check 6: reload, with a good configuration (a new step) and a broken one.


@check(6, "reload", stage="booted")
def test_06_reload(ct: Container, verdict):
    pid = ct.prop("splashd.service", "MainPID")
    ct.write_file(TOML, 0o644, configs.auto())
    before = ct.cursor()
    if not ct.cl("systemctl", "reload", "splashd.service"):
        verdict.bad("systemctl reload failed")
    msg = ct.wait_reload(before)
    verdict.ev(f"good config: '{msg}'")
    if "configuration reloaded" not in msg:
        verdict.bad("no 'configuration reloaded' in the journal")
    if not ct.cl("splashctl", "relaunch"):
        verdict.bad("relaunch after the reload failed")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("the launch after the reload did not finish")
    st = ct.state()
    steps = steps_of(st)
    verdict.ev(f"next launch's steps: {steps}")
    if not (",reloaded," in f",{steps}," and ",first-frame," not in f",{steps},"):
        verdict.bad("the reloaded graph did not take effect")

    ct.write_file(TOML, 0o644, "this is = = not toml\n")
    checked = ct.c("splashd", "check", "--config", TOML, merge=True)
    verdict.ev(f"splashd check on the bad config: exit {checked.rc}, '{(lines(checked.out) or [''])[0]}'")
    if checked.rc != 78:
        verdict.bad(f"splashd check exited {checked.rc}, want 78")
    before = ct.cursor()
    if not ct.cl("systemctl", "reload", "splashd.service"):
        verdict.bad("systemctl reload (bad config) failed")
    msg = ct.wait_reload(before)
    failed = ct.since(before, daemon() & message("reload failed"))
    priority = ji(failed[0].get("PRIORITY")) if failed else ""
    verdict.ev(f"bad config: '{msg}' (priority {priority})")
    if "reload failed" not in msg:
        verdict.bad("no 'reload failed' in the journal")
    if not (ct.prop("splashd.service", "MainPID") == pid and ct.prop("splashd.service", "ActiveState") == "active"):
        verdict.bad("the daemon did not keep running")
    if not ct.cl("splashctl", "relaunch"):
        verdict.bad("relaunch after the bad reload failed")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("the launch after the bad reload did not finish")
    steps = steps_of(ct.state())
    verdict.ev(f"still running (pid {pid}, {ct.prop('splashd.service', 'ActiveState')}); next launch's steps: {steps}")
    if steps != steps_of(st):
        verdict.bad("the graph changed after a bad reload")
    ct.write_file(TOML, 0o644, configs.auto())  # the next starts read a good file again


# ---------------------------------------------------------------------------------------------
# Check 5: the watchdog (a drop-in WatchdogSec=10s; the daemon stopped with SIGSTOP). Not shorter: the
# daemon pings at half of it, and a busy machine must not make a ping late enough for a false restart.


@check(5, "watchdog", stage="booted", needs=(6,))
def test_05_watchdog(ct: Container, verdict):
    ct.write_file("/etc/systemd/system/splashd.service.d/50-systest-watchdog.conf", 0o644, "[Service]\nWatchdogSec=10s\n")
    ct.cl("systemctl", "daemon-reload")
    before = ct.cursor()
    if not ct.cl("systemctl", "restart", "splashd.service"):
        verdict.bad("restart with the watchdog drop-in failed")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad("no launch finished after the restart")
    inode = ct.c("stat", "-c", "%i", "/run/splashd/splashd.sock").out
    socket_since = ct.prop("splashd.socket", "ActiveEnterTimestampMonotonic")
    socket_left = ct.prop("splashd.socket", "InactiveEnterTimestampMonotonic")
    pid = ct.prop("splashd.service", "MainPID")
    restarts = ct.prop("splashd.service", "NRestarts")
    launch = jr(ct.state(), "launch")
    watchdog = "\n".join(v for v in ct.c("cat", f"/proc/{pid}/environ").stdout.split("\0") if v.startswith("WATCHDOG_USEC="))
    verdict.ev(f"test drop-in WatchdogSec=10s (the unit ships 30s): daemon {pid} has {watchdog}")
    if watchdog != "WATCHDOG_USEC=10000000":
        verdict.bad(f"the daemon got {watchdog}")

    before = ct.cursor()
    stopped_ns = time.time_ns()
    # Never `kill 0` (the test's own process group, through nsenter).
    if not pid.isdigit() or int(pid) <= 1 or not ct.c("kill", "-STOP", pid).ok:
        verdict.bad("could not SIGSTOP the daemon")
    if ct.jwait(60, before, about("splashd.service") & message("Watchdog timeout")):
        verdict.ev(f"systemd: 'Watchdog timeout' {ms_since(stopped_ns)} ms after SIGSTOP")
    else:
        verdict.bad("no watchdog timeout within 60s of SIGSTOP")
    result = ct.wait_start_job(60, before, "splashd.service")
    verdict.ev(f"restarted ({ms_since(stopped_ns)} ms after SIGSTOP): start job {result}")
    if result != "done":
        verdict.bad(f"restart job: '{result or 'none within 60s'}'")
    entries = ct.since(before, about("splashd.service") & message(
        "Watchdog timeout|Killing process|Main process exited|Failed with result|Scheduled restart|Started"))
    killed_how = ""
    if entries:
        t0 = n0(entries[0].get("__MONOTONIC_TIMESTAMP"))
        killed_how = "|".join(f"+{(n0(e.get('__MONOTONIC_TIMESTAMP')) - t0) // 1000}ms {ji(e.get('MESSAGE'))}" for e in entries)
    verdict.ev(f"journal: {killed_how}")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad("no launch finished after the watchdog restart")
    st = ct.state()
    after = ct.prop("splashd.service", "MainPID")
    verdict.ev(f"new daemon {after}, launch {jr(st, 'launch')} {jr(st, 'phase')}; NRestarts {restarts} -> {ct.prop('splashd.service', 'NRestarts')}")
    if not (after != pid and after != "0"):
        verdict.bad("no new main process")
    if jr(st, "launch") == launch:
        verdict.bad("no new launch")
    if num(ct.prop("splashd.service", "NRestarts")) != n0(restarts) + 1:
        verdict.bad("NRestarts did not go up by one")
    inode2 = ct.c("stat", "-c", "%i", "/run/splashd/splashd.sock").out
    verdict.ev(f"socket inode {inode} -> {inode2}; splashd.socket active since {socket_since} -> "
               f"{ct.prop('splashd.socket', 'ActiveEnterTimestampMonotonic')}, state {ct.prop('splashd.socket', 'ActiveState')}")
    if inode != inode2:
        verdict.bad("the socket file changed")
    if not (socket_since == ct.prop("splashd.socket", "ActiveEnterTimestampMonotonic")
            and socket_left == ct.prop("splashd.socket", "InactiveEnterTimestampMonotonic")):
        verdict.bad("splashd.socket was deactivated")
    dropins = ct.root / "etc/systemd/system/splashd.service.d"
    (dropins / "50-systest-watchdog.conf").unlink(missing_ok=True)
    try:
        dropins.rmdir()  # the purge check looks for anything named splashd there
    except OSError as error:
        ct.log(f"rmdir {dropins}: {error}")
    ct.cl("systemctl", "daemon-reload")


# ---------------------------------------------------------------------------------------------
# Check 7: SIGKILL; Restart=on-failure, with the launch counter and the history intact.


@check(7, "sigkill-restart", stage="booted", needs=(6,))
def test_07_sigkill_restart(ct: Container, verdict):
    def history_lines() -> str:
        return (first_fields(ct.c("wc", "-l", "/var/lib/splashd/history.jsonl").stdout) or [""])[0]

    count = ct.c("jq", "-r", ".count", "/var/lib/splashd/launch-counter.json").out
    history = history_lines()
    pid = ct.prop("splashd.service", "MainPID")
    restarts = ct.prop("splashd.service", "NRestarts")
    before = ct.cursor()
    killed = ct.c("systemctl", "kill", "-s", "KILL", "splashd.service", merge=True)
    # systemd 252 sometimes reports "Failed to send signal SIGKILL to auxiliary processes:
    # Input/output error" (exit 1) although the main process was killed: what counts is the
    # journal's "status=9/KILL" below.
    if not killed.ok:
        verdict.ev(f"systemctl kill exited {killed.rc}: {killed.out}")
    result = ct.wait_start_job(30, before, "splashd.service")
    if result != "done":
        verdict.bad(f"restart job: '{result or 'none within 30s'}'")
    how = ct.since_messages(before, about("splashd.service") & message("Main process exited|Failed with result|Scheduled restart"))
    verdict.ev(how)
    if "status=9/KILL" not in how:
        verdict.bad("the main process was not killed by SIGKILL")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("no launch finished after the restart")
    count2 = ct.c("jq", "-r", ".count", "/var/lib/splashd/launch-counter.json").out
    history2 = history_lines()
    listed = ct.c("splashctl", "history").stdout.count("\n")
    marker = "present" if ct.c("test", "-e", "/var/lib/splashd/launched").ok else "missing"
    verdict.ev(f"daemon {pid} -> {ct.prop('splashd.service', 'MainPID')}, NRestarts {restarts} -> {ct.prop('splashd.service', 'NRestarts')}; "
               f"launch counter {count} -> {count2}; history.jsonl {history} -> {history2} lines; splashctl history: {listed} lines; "
               f"launched marker: {marker}")
    if ct.prop("splashd.service", "MainPID") == pid:
        verdict.bad("no new main process")
    if count2 != str(n0(count) + 1):
        verdict.bad(f"the launch counter went {count} -> {count2}, want {n0(count) + 1}")
    if history2 != str(n0(history) + 1):
        verdict.bad(f"history.jsonl went {history} -> {history2} lines")
    if not lt(history, listed):
        verdict.bad(f"splashctl history shows {listed} lines")
    if not ct.c("test", "-e", "/var/lib/splashd/launched").ok:
        verdict.bad("the launched marker is gone")


# ---------------------------------------------------------------------------------------------
# Check 9: who may control the splash (the socket's group).


@check(9, "control-group", stage="booted", needs=(6,))
def test_09_control_group(ct: Container, verdict):
    ct.cl("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--groups", "splash", "systest-kiosk")
    ct.cl("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "--gid", "splash", "systest-renderer")
    ct.cl("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "systest-outsider")
    verdict.ev(f"systest-kiosk: {ct.c('id', 'systest-kiosk').out}")

    def quoted(out: str) -> str:
        return f"'{out}'" if out else ""

    r = ct.as_user("systest-kiosk", "splashctl", "relaunch", merge=True)
    verdict.ev(f"systest-kiosk (splash as a supplementary group) relaunch: exit {r.rc} {quoted(r.out)}")
    if r.rc != 0:
        verdict.bad("a member of splash could not relaunch")
    if not ct.as_user("systest-renderer", "splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("systest-renderer could not wait")
    r = ct.as_user("systest-renderer", "splashctl", "relaunch", merge=True)
    verdict.ev(f"systest-renderer (primary group splash) relaunch: exit {r.rc} {quoted(r.out)}")
    if r.rc != 0:
        verdict.bad("a user whose primary group is splash could not relaunch")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("the relaunched launch did not finish")
    r = ct.as_user("systest-outsider", "splashctl", "relaunch", merge=True)
    verdict.ev(f"systest-outsider relaunch: exit {r.rc} '{r.out}'")
    if r.rc != 77:
        verdict.bad(f"a user outside splash got exit {r.rc}, want 77")
    r = ct.as_user("systest-outsider", "splashctl", "status", merge=True)
    verdict.ev(f"systest-outsider status: exit {r.rc}")
    if r.rc != 77:
        verdict.bad(f"a user outside splash could read the state (exit {r.rc})")


# ---------------------------------------------------------------------------------------------
# Check 10: HTTPS for auth-refresh and config-fetch inside the sandbox, an operator plugin, the
# shipped wait-device.


@check(10, "plugins-and-https", stage="booted")
def test_10_plugins_and_https(ct: Container, verdict):
    (ct.root / "usr/local/share/ca-certificates").mkdir(parents=True, exist_ok=True)
    shutil.copy(ct.files / "ca.crt", ct.root / "usr/local/share/ca-certificates/splashd-systest.crt")
    (ct.root / "srv/systest").mkdir(parents=True, exist_ok=True)
    for name in ("server.crt", "server.key"):
        shutil.copy(ct.files / name, ct.root / "srv/systest" / name)
    if not ct.cl("update-ca-certificates"):
        verdict.bad("update-ca-certificates failed")
    ct.write_from_files("https-server.py", "/srv/systest/https-server.py", 0o755)
    if not ct.cl("systemd-run", "--unit=systest-https", "-p", "Type=notify", "--quiet", "/usr/bin/python3",
                 "/srv/systest/https-server.py", "/srv/systest/server.crt", "/srv/systest/server.key"):
        verdict.bad("the HTTPS server did not start")
        return
    port = ct.c("cat", "/run/systest-https.port").out
    out = ct.c("curl", "-sS", "--max-time", "5", f"https://127.0.0.1:{port}/config.json", merge=True).out
    verdict.ev(f"HTTPS server on 127.0.0.1:{port} (container loopback = host's), curl with the system CA store: {out}")
    # An expired session: auth-refresh must POST the refresh grant.
    expires = int(time.time()) - 600
    session = '{"access_token":"systest-access-1","refresh_token":"systest-refresh-1","expires_at":%d,"user":"Ada"}' % expires
    ct.c("sh", "-c", "umask 077; cat >/var/lib/splashd/session.json && chown splashd:splashd /var/lib/splashd/session.json",
         input=session + "\n")
    write_plugins(ct)
    ct.write_file(TOML, 0o644, configs.plugins(port))
    checked = ct.c("splashd", "check", "--config", TOML, merge=True)
    verdict.ev(f"splashd check: {checked.out}")
    if not checked.ok:
        verdict.bad("splashd check refused the plugins config")
    before = ct.cursor()
    ct.cl("systemctl", "reload", "splashd.service")
    if "configuration reloaded" not in ct.wait_reload(before):
        verdict.bad("the plugins config was not reloaded")
    if not ct.cl("splashctl", "relaunch"):
        verdict.bad("relaunch failed")
    # The display step waits for a path: once a renderer sees it running, the "display" appears.
    if ct.watch_until(20, "display", "running"):
        verdict.ev("wait-device (shipped plugin) running, waiting for /run/systest-display")
    else:
        verdict.bad("the display step never ran")
    ct.c("touch", "/run/systest-display")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad("the launch did not finish")
    st = ct.state()
    launch = jr(st, "launch")
    ct.memo.plugins_launch = launch  # check 16 reads this launch back with splashctl logs
    ct.log(jc(st))
    steps = (st or {}).get("steps") or []
    summary = " ".join(f"{ji(s.get('id'))}={ji(s.get('status'))}#{ji(s.get('attempt'))}" for s in steps)
    verdict.ev(f"steps: {summary}; destination {jcq(st, 'destination')}")
    if st is None or any(s.get("status") != "succeeded" for s in steps):
        verdict.bad("not every step succeeded")
    if "\n".join(ji(s.get("attempt")) for s in steps if s.get("id") == "probe") != "2":
        verdict.bad("the probe did not need its second attempt")
    if jr(st, "destination", "screen") != "home":
        verdict.bad("destination is not home (auth-refresh did not sign in)")
    probe = ct.c("journalctl", "-u", "splashd.service", f"SPLASHD_LAUNCH={launch}", "SPLASHD_STEP=probe", "-o", "cat", "--no-pager").stdout
    out = next((line for line in lines(probe) if "attempt 2" in line), "")
    verdict.ev(f"probe's stderr in the journal: '{out}'")
    if "as splashd" not in out:
        verdict.bad("the probe did not run as splashd")
    out = ct.c("jq", "-r", ".access_token", "/var/lib/splashd/session.json").out
    verdict.ev(f"session.json access_token after the refresh: {out}; mode {ct.c('stat', '-c', '%a %U', '/var/lib/splashd/session.json').out}")
    if out != "systest-access-2":
        verdict.bad("the session was not refreshed over HTTPS")
    out = ct.c("cat", "/var/lib/splashd/config.json", merge=True).out
    verdict.ev(f"config.json: {out}; etag {ct.c('cat', '/var/lib/splashd/config.json.etag', merge=True).out}")
    try:
        served = json.loads(out)
    except ValueError:
        served = None
    if not (isinstance(served, dict) and served.get("greeting") == "hello from the system test"):
        verdict.bad("config-fetch did not store the served config")
    server = ct.c("journalctl", "-u", "systest-https.service", "-o", "cat", "--no-pager").stdout
    verdict.ev(f"server: {'|'.join(line for line in lines(server) if re.search('request|token', line))}")
    if re.search(r"systest-(access|refresh)-", ct.c("journalctl", "-u", "splashd.service", "-o", "cat", "--no-pager").stdout):
        verdict.bad("a token reached the journal")


# ---------------------------------------------------------------------------------------------
# Check 16: splashctl logs reads a launch back from the system journal through sd-journal:
# check 10's launch, in which the operator's probe failed its first attempt and succeeded with
# its second.


@check(16, "splashctl-logs", stage="booted", needs=(10,))
def test_16_splashctl_logs(ct: Container, verdict):
    launch = ct.memo.plugins_launch
    if not launch:
        verdict.bad("check 10 recorded no launch")
        return
    result = ct.c("splashctl", "logs", "last", "--json")
    if not result.ok:
        verdict.bad("splashctl logs last --json failed")
        return
    text = result.out
    ct.log(text)
    records = json_objects(text)

    def alt(value) -> str:  # jq's `value // "-"`
        return "-" if value is None or value is False else ji(value)

    events = " ".join(f"{ji(r.get('event'))}/{alt(r.get('step'))}#{alt(r.get('attempt'))}" for r in records)
    launches = sorted({ji(r.get("launch")) for r in records})
    verdict.ev(f"splashctl logs last --json: {count_lines(text)} records, launch {','.join(launches)}; events: {events[:300]}")
    if "\n".join(launches) != launch:
        verdict.bad(f"'last' is not check 10's launch {launch}")
    if not records or ji(records[0].get("event")) != "launch-started":
        verdict.bad("the first record is not launch-started")
    if not records or ji(records[-1].get("event")) != "launch-finished":
        verdict.bad("the last record is not launch-finished")
    if not any(r.get("event") == "step-failed" and r.get("step") == "probe" and ji(r.get("attempt")) == "1" for r in records):
        verdict.bad("no step-failed record of the probe's first attempt")
    if not any(r.get("event") == "step-finished" and r.get("step") == "probe" and ji(r.get("attempt")) == "2" for r in records):
        verdict.bad("no step-finished record of the probe's second attempt")
    table_result = ct.c("splashctl", "logs", launch)
    if not table_result.ok:
        verdict.bad("splashctl logs LAUNCH failed")
    table = table_result.out
    ct.log(table)
    verdict.ev(f"table: {squeeze((lines(table) or [''])[0])}; {count_lines(table)} lines; "
               f"probe rows: {sum(1 for line in lines(table) if ' probe ' in line)}")
    if "attempt 2 of step probe as splashd" not in table:
        verdict.bad("the table lacks the probe's stderr line")
    unknown = ct.c("splashctl", "logs", "00000000-0000-0000-0000-000000000000", merge=True)
    verdict.ev(f"an unknown launch: exit {unknown.rc} '{unknown.out}'")
    if unknown.rc != 1:
        verdict.bad("an unknown launch did not exit 1")


# ---------------------------------------------------------------------------------------------
# Check 18: the app's life (design §14) under systemd as PID 1, through the shipped polkit grant.


# The app's `route` command four times, as the app sends it (it is in group splash): a good
# route, a 65,400-byte one, a percent-encoded `..` and an encoded `/`; the reply codes.
ROUTE_PROBE = r"""
import json, socket
s = socket.socket(socket.AF_UNIX)
s.connect("/run/splashd/splashd.sock")
f = s.makefile("rwb")
f.readline()
codes = []
for route in ["orders/42", "orders/" + "a" * 65400, "orders/%2e%2e/x", "orders%2F..%2Fadmin"]:
    f.write((json.dumps({"cmd": "route", "route": route}) + "\n").encode())
    f.flush()
    reply = json.loads(f.readline())
    codes.append(reply.get("code", reply.get("type")))
print(" ".join(codes))
"""


def restore_without_app(ct: Container, verdict, saved: Path) -> None:
    """The app's unit stopped, the configuration SAVED back, splashd restarted on it."""
    ct.cl("systemctl", "stop", "systest-kiosk.service")
    try:
        shutil.copy(saved, ct.root / TOML.lstrip("/"))
    except OSError as error:
        ct.log(f"cp {saved}: {error}")
    ct.cl("systemctl", "restart", "splashd.service")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok:
        verdict.bad("the launch with the earlier configuration did not finish")


def signal_app(ct: Container, verdict, sig: str) -> str:
    """SIG to the app's main process; its pid. Never `kill 0`: with the unit not running
    (MainPID 0), that would signal the test's own process group, through nsenter."""
    pid = ct.prop("systest-kiosk.service", "MainPID")
    if not pid.isdigit() or int(pid) <= 1:
        verdict.bad(f"SIG{sig}: the app's unit has no main process (MainPID {pid!r})")
        return pid
    ct.c("kill", f"-{sig}", pid)
    return pid


def app_recovery(ct: Container, verdict, app: SimpleNamespace, sig: str, reason: str) -> bool:
    """One recovery: SIG to the app's main process, then the launch with REASON, a new app,
    finished. app.ms: how long after the signal the launch started (from the daemon's journal
    record); app.pids: the app's pid before → after."""
    before = ct.cursor()
    sent = time.time_ns()
    pid = signal_app(ct, verdict, sig)
    record = ct.jwait(60, before, daemon() & field("MESSAGE_ID", LAUNCH_STARTED_ID) & field("SPLASHD_REASON", reason))
    if not record:
        verdict.bad(f"no launch with reason {reason} after SIG{sig}")
        return False
    at = record.get("_SOURCE_REALTIME_TIMESTAMP")
    if at is None:
        at = record.get("__REALTIME_TIMESTAMP")
    app.ms = tdiv(n0(at) * 1000 - sent, 1_000_000)
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad(f"the {reason} launch did not finish")
        return False
    newpid = ct.prop("systest-kiosk.service", "MainPID")
    app.pids = f"{pid}→{newpid}"
    if not (ct.prop("systest-kiosk.service", "ActiveState") == "active" and newpid != pid and newpid != "0"):
        verdict.bad(f"after {reason} the app is not running again ({ct.prop('systest-kiosk.service', 'ActiveState')}, pid {pid} → {newpid})")
        return False
    return True


@check(18, "app-life", stage="booted", needs=(6,))
def test_18_app_life(ct: Container, verdict):
    app = SimpleNamespace(ms=None, pids="")

    def ms_or(default):
        return app.ms if app.ms is not None else default

    ct.write_from_files("kiosk-app.py", "/srv/systest/kiosk-app.py", 0o755)
    ct.write_from_files("systest-kiosk.service", "/etc/systemd/system/systest-kiosk.service", 0o644)
    ct.write_from_files("systest-other.service", "/etc/systemd/system/systest-other.service", 0o644)
    ct.cl("systemctl", "daemon-reload")
    saved = ct.files / "config-before-app.toml"
    try:
        shutil.copy(ct.root / TOML.lstrip("/"), saved)
    except OSError as error:
        ct.log(f"cp {TOML}: {error}")
    ct.write_file(TOML, 0o644, configs.app())
    out = ct.c("splashd", "check", "--print-app-unit", "--config", TOML, merge=True).out
    verdict.ev(f"splashd check --print-app-unit: {out}")
    if out != "systest-kiosk.service":
        verdict.bad(f"--print-app-unit printed '{out}'")
    ct.cl("systemctl", "restart", "splashd.service")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad("the boot launch with [app] did not finish")
    st = ct.state()
    user = ct.c("ps", "-o", "user=", "-p", ct.prop("systest-kiosk.service", "MainPID")).out.replace(" ", "")
    steps = " ".join(f"{ji(s.get('id'))}={ji(s.get('status'))}" for s in (st or {}).get("steps") or [])
    verdict.ev(f"boot with [app]: reason {jr(st, 'reason')}, steps {steps}, app {ct.prop('systest-kiosk.service', 'ActiveState')} as {user}")
    if ct.prop("systest-kiosk.service", "ActiveState") != "active":
        verdict.bad("splashd's app step did not start the app (polkit grant?)")
        return
    # The grant: the app's unit with start, restart and kill, nothing else.
    r = ct.as_user("splashd", "systemctl", "--no-ask-password", "kill", "-s", "CONT", "systest-kiosk.service", merge=True)
    if r.stdout:
        ct.log(r.stdout)
    verdict.ev(f"as splashd: kill -s CONT systest-kiosk → exit {r.rc}")
    if r.rc != 0:
        verdict.bad("splashd may not kill the app's unit")
    out = ""
    for denied in ("stop systest-kiosk.service", "start systest-other.service", "restart systest-other.service",
                   "kill -s CONT systest-other.service", "restart splashd-finished.service"):
        r = ct.as_user("splashd", "systemctl", "--no-ask-password", *denied.split(), merge=True)
        out = r.out
        if r.rc == 0:
            verdict.bad(f"splashd may {denied}")
    verdict.ev("as splashd: stop of the app, start/restart/kill of another unit, restart of splashd-finished: all refused "
               f"({(lines(out) or [''])[0]})")
    # The web bridge's user holds none of it (issue 48: it ran as splashd, with the grant).
    if not ct.c("id", "-u", "splashd-web").ok:
        verdict.bad("no user splashd-web: the web bridge runs as splashd, with its grant")
    refused = []
    for verb in ("restart", "start", "kill -s CONT"):
        r = ct.as_user("splashd-web", "systemctl", "--no-ask-password", *verb.split(), "systest-kiosk.service", merge=True)
        if r.rc == 0:
            verdict.bad(f"the web bridge's user may {verb} the app's unit")
        refused.append(f"{verb.split()[0]} → exit {r.rc}")
    verdict.ev(f"as splashd-web (the web bridge): {', '.join(refused)} of systest-kiosk")
    # Only systemd speaks for systemd (design §18): nobody sends splashd's connection five rounds of
    # systemd's PropertiesChanged (the app failed) and JobRemoved, unicast, where the bus daemon
    # does not hold a match's sender. Before the check: RestartUnit, then "The app keeps stopping".
    harness = Path(__file__).resolve().parent.parent / "harness" / "spoof_signals.py"
    ct.write_file("/srv/systest/spoof_signals.py", 0o755, harness.read_text(encoding="utf-8"))
    spoof_cursor = ct.cursor()
    app_pid = ct.prop("systest-kiosk.service", "MainPID")
    launch = jr(ct.state(), "launch")
    r = ct.as_user("nobody", "/usr/bin/python3", "/srv/systest/spoof_signals.py", "unix:path=/run/dbus/system_bus_socket",
                   ct.prop("splashd.service", "MainPID"), "5", "systest-kiosk.service", merge=True)
    refusal = ct.jwait(20, spoof_cursor, daemon() & message("refused a signal in systemd's name"))
    verdict.ev(f"as nobody: {squeeze(r.out)[:80]}; splashd: {squeeze(msg(refusal))[:90] if refusal else 'said nothing'}")
    if r.rc != 0 or not refusal:
        verdict.bad("the spoofed signals were not sent, or splashd did not refuse them")
    starts = ct.since(spoof_cursor, about("systest-kiosk.service") & message("^Start"))
    if ct.prop("systest-kiosk.service", "MainPID") != app_pid or starts or jr(ct.state(), "launch") != launch:
        verdict.bad(f"a spoofed signal restarted the app or began a launch: {len(starts)} start(s), launch {jr(ct.state(), 'launch')}")
    else:
        verdict.ev(f"the app {app_pid} untouched, no launch, no start")
    if app_recovery(ct, verdict, app, "USR1", "app-exited"):
        verdict.ev(f"exits (0): launch app-exited {app.ms} ms after the exit, app {app.pids}, destination {jcq(ct.state(), 'destination')}")
    if jr(ct.state(), "destination", "route") != "orders/42":
        verdict.bad("the route the app reported was not restored")
    # (How soon the splash comes back is a figure of `make bench-app`, not a bound here: on a busy
    # machine the journal, D-Bus and systemd take their time. The milliseconds are evidence.)
    if app_recovery(ct, verdict, app, "USR2", "app-exited"):
        verdict.ev(f"fails (1): {app.ms} ms, app {app.pids}")
    hang = ct.cursor()
    if app_recovery(ct, verdict, app, "STOP", "app-hung"):
        verdict.ev(f"hangs (SIGSTOP, heartbeat 3s): launch app-hung {app.ms} ms after SIGSTOP, app {app.pids} (the stopped one killed)")
    said = ct.since_messages(hang, daemon() & message("missed"))
    if "the app missed 3 heartbeats (every 3s); killing systest-kiosk.service" not in said:
        verdict.bad(f"the hang was not told by three missed heartbeats: {said!r}")
    # Six crashes in a row, the recovery count fresh: its record removed (a restart of splashd
    # keeps the count, below).
    ct.c("rm", "-f", "/var/lib/splashd/app-recoveries.json")
    ct.cl("systemctl", "restart", "splashd.service")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad("the launch after restarting splashd did not finish")
    for _ in range(5):
        if not app_recovery(ct, verdict, app, "KILL", "app-exited"):
            break
    verdict.ev(f"crashes 1-5: each recovered, the last {ms_or('')} ms after SIGKILL")
    before = ct.cursor()
    signal_app(ct, verdict, "KILL")
    if not ct.c("splashctl", "wait", "error", "--timeout", "15s").ok:
        verdict.bad("the sixth crash did not end in phase error")
    st = ct.state()
    if st is not None:
        error = st.get("error") if isinstance(st.get("error"), dict) else {}
        crash = jc({"phase": st.get("phase"), "reason": st.get("reason"),
                    "error": {"code": error.get("code"), "message": error.get("message"), "actions": error.get("actions")}})
    else:
        crash = ""
    verdict.ev(f"crash 6: {crash}")
    if jr(st, "error", "code") != "app-crash-loop":
        verdict.bad("the sixth crash is not app-crash-loop")
    # No restart for a minute: nothing may start the app's unit.
    if ct.jwait(60, before, about("systest-kiosk.service") & message("^Start")):
        verdict.bad("the app was started again during the crash loop")
    else:
        verdict.ev(f"no start of the app for 60 s; unit {ct.prop('systest-kiosk.service', 'ActiveState')}")
    # The crash loop outlives a restart of splashd (before: the restart left the error and started
    # the app; an app whose crashes take splashd down was never held).
    before = ct.cursor()
    ct.cl("systemctl", "restart", "splashd.service")
    held = ct.c("splashctl", "wait", "error", "--timeout", "5m").ok
    st = ct.state()
    starts = ct.since(before, about("systest-kiosk.service") & message("^Start"))
    verdict.ev(f"splashd restarted in the crash loop: {jr(st, 'phase')} {jr(st, 'error', 'code')}, starts of the app: {len(starts)}")
    if not held or jr(st, "error", "code") != "app-crash-loop" or starts:
        verdict.bad("a restart of splashd left the crash loop")
    if not ct.cl("splashctl", "retry"):
        verdict.bad("retry refused")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad("the launch after Retry did not finish")
    if ct.prop("systest-kiosk.service", "ActiveState") != "active":
        verdict.bad("Retry did not start the app")
    verdict.ev(f"Retry: finished, app {ct.prop('systest-kiosk.service', 'ActiveState')}")
    counted = collections.Counter(ji(e["MESSAGE_ID"]) for e in json_objects(
        ct.c("journalctl", "-u", "splashd.service", "-o", "json", "--no-pager").stdout) if e.get("MESSAGE_ID") not in (None, False))
    ids = "".join(f"{counted[i]}×{i[:8]} " for i in sorted(counted) if re.match(r"(8347258a|678ed15d|de49cae7)", i))
    verdict.ev(f"journal: {ids}")
    for message_id in ("8347258a", "678ed15d", "de49cae7"):
        if message_id not in ids:
            verdict.bad(f"no record with MESSAGE_ID {message_id}…")
    history = lines(ct.c("splashctl", "history").stdout)[-3:]
    verdict.ev(f"history: {' '.join((line.split() + ['', '', ''])[2] for line in history)}")
    # Nothing left behind: the app stopped, the earlier configuration back.
    restore_without_app(ct, verdict, saved)
    out = ct.c("pgrep", "-af", "kiosk-app.py").out
    verdict.ev(f"after the test: app processes: {out or 'none'}, unit {ct.prop('systest-kiosk.service', 'ActiveState')}")
    if out:
        verdict.bad(f"app processes are left: {out}")


# ---------------------------------------------------------------------------------------------
# Check 20: the app watch made exact (issue 34): what systemd says happened, not a snapshot.

APP_EXITED_ID = "8347258ac1cd457dbb6020f3fd5cd5ca"
APP_HUNG_ID = "678ed15ddeb044ee82aaf32c8eccc3a2"


def recoveries_since(ct: Container, cursor: str) -> list[str]:
    """The app-exited and app-hung records after the cursor, as their messages."""
    entries = ct.since(cursor, daemon() & (field("MESSAGE_ID", APP_EXITED_ID) | field("MESSAGE_ID", APP_HUNG_ID)))
    return [msg(entry) for entry in entries]


def broken_app_loops(ct: Container, verdict, mode: str) -> None:
    """The app in MODE (kiosk-app.py) from a relaunch on: every start a recovery, the sixth an
    app-crash-loop, with no launch left waiting for a first frame that never comes; then the app
    mended and Retry."""
    # Stopped first: the relaunch's start of a running app would do nothing.
    ct.cl("systemctl", "stop", "systest-kiosk.service")
    ct.write_file("/srv/systest/kiosk-mode", 0o644, mode + "\n")
    before = ct.cursor()
    if not ct.cl("splashctl", "relaunch"):
        verdict.bad(f"{mode}: relaunch refused")
    # Each start is a recovery the moment the app dies: five recoveries take seconds, not the
    # launch's 1-minute timeout each (before, each waited for a first frame that never came).
    record = ct.jwait(600, before, daemon() & field("MESSAGE_ID", "de49cae7e4d34c2bbb79294fc7bce06d"))
    st = ct.state()
    recovered = recoveries_since(ct, before)
    timeouts = ct.since_messages(before, daemon() & message("no result within"))
    verdict.ev(f"{mode}: {len(recovered)} recoveries, then {jr(st, 'phase')} {jr(st, 'error', 'code')}; "
               f"step timeouts: {timeouts or 'none'}")
    if record is None or jr(st, "error", "code") != "app-crash-loop":
        verdict.bad(f"{mode}: the app that keeps dying did not end in app-crash-loop")
    if len(recovered) != 6:
        verdict.bad(f"{mode}: {len(recovered)} app-exited records, not 6 (5 recoveries and the loop): {recovered}")
    if timeouts:
        verdict.bad(f"{mode}: a launch waited out a step: {timeouts}")
    ct.write_file("/srv/systest/kiosk-mode", 0o644, "\n")
    if not ct.cl("splashctl", "retry"):
        verdict.bad(f"{mode}: retry refused")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok:
        verdict.bad(f"{mode}: the launch after Retry did not finish")


@check(20, "app-watch-exact", stage="booted", needs=(18,))
def test_20_app_watch_exact(ct: Container, verdict):
    saved = ct.files / "config-before-app-watch.toml"
    try:
        shutil.copy(ct.root / TOML.lstrip("/"), saved)
    except OSError as error:
        ct.log(f"cp {TOML}: {error}")
    ct.write_file("/srv/systest/kiosk-mode", 0o644, "\n")
    ct.write_file(TOML, 0o644, configs.app())
    ct.cl("systemctl", "restart", "splashd.service")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok:
        verdict.bad("the launch with [app] did not finish")
    # The polkit grant follows the unit the running daemon watches: written as root before it
    # started, not read from the configuration file at each call (before: a file with a syntax
    # error, or an [app] edit not applied yet, left the running daemon's recoveries refused).
    grant = ct.c("stat", "-c", "%U %a %n:", "/run/splashd-grant", "/run/splashd-grant/app-unit").out.replace("\n", " ")
    owners = ct.c("stat", "-c", "%U", "/run/splashd-grant", "/run/splashd-grant/app-unit").out.split()
    granted = ct.c("cat", "/run/splashd-grant/app-unit").out
    verdict.ev(f"grant: {grant} {granted}")
    if granted != "systest-kiosk.service" or owners != ["root", "root"]:
        verdict.bad("the grant file is not root's, or not the running daemon's unit")
    good = (ct.root / TOML.lstrip("/")).read_text(encoding="utf-8")
    ct.write_file(TOML, 0o644, good + "\n[broken\n")
    recovery = SimpleNamespace(ms=None, pids="")
    if app_recovery(ct, verdict, recovery, "KILL", "app-exited"):
        verdict.ev(f"a syntax error in the file: the crash still recovered, app {recovery.pids}")
    ct.write_file(TOML, 0o644, good.replace('unit = "systest-kiosk.service"', 'unit = "systest-other.service"'))
    other = ct.as_user("splashd", "systemctl", "--no-ask-password", "restart", "systest-other.service", merge=True)
    mine = ct.as_user("splashd", "systemctl", "--no-ask-password", "kill", "-s", "CONT", "systest-kiosk.service", merge=True)
    verdict.ev(f"[app] edited to another unit, not applied: restart of it exit {other.rc}, kill of the watched unit exit {mine.rc}")
    if other.rc == 0 or mine.rc != 0:
        verdict.bad("an edit not applied widened or broke the grant")
    ct.write_file(TOML, 0o644, good)
    # A hang that is not a freeze (SIGHUP: alive every 30 s, against heartbeat 3s): one hang is one
    # restart. The old process's complete of the app-hung launch's first frame does not count, and
    # splashd's own kill of it is no crash (before: it finished that launch before the new process
    # drew, and its SIGKILL was seen as a crash: a second, app-exited launch).
    before = ct.cursor()
    old_pid = signal_app(ct, verdict, "HUP")
    hung = ct.jwait(120, before, daemon() & field("MESSAGE_ID", APP_HUNG_ID))
    done = ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok
    new_pid = ct.prop("systest-kiosk.service", "MainPID")
    exits = ct.since(before, daemon() & field("MESSAGE_ID", APP_EXITED_ID))
    refused = ct.since_messages(before, daemon() & message("^refused complete"))
    verdict.ev(f"a late heartbeat: {'app-hung' if hung else 'no hang'}, app {old_pid}→{new_pid}, "
               f"{len(exits)} app-exited after it; the old process's complete: {refused or 'not sent before it was killed'}")
    if not hung or not done or new_pid in (old_pid, "0") or exits:
        verdict.bad("one hang was not one restart")
    # Routes every state reader can carry (before: a 65,400-byte route made a 65,964-byte state
    # line, past splashctl's and every renderer's limit, and orders/%2e%2e/x was restored).
    answers = ct.c("python3", "-c", ROUTE_PROBE).out
    verdict.ev(f"the app's route command: {answers}")
    if answers != "ok bad-request bad-request bad-request":
        verdict.bad("a long or percent-encoded dot route was not refused")
    # A resume loop cannot flood the journal (before: 3 records a resume, 500 resumes 1,500).
    before = ct.cursor()
    for _ in range(30):
        ct.c("splashctl", "resume", quiet=True)
    resumes = ct.since(before, daemon() & field("MESSAGE_ID", "7b0884b96f304ef7bdcd21b429f32bb4"))
    verdict.ev(f"30 resumes: {len(resumes)} resume records")
    if len(resumes) > 10:
        verdict.bad("every resume was logged")
    # An operator's stop is never a crash, however soon after `finished` or however fast the stop
    # job (before: 6 of 15 such stops were taken for crashes).
    before = ct.cursor()
    loops = 0
    for _ in range(30):
        if not (ct.cl("systemctl", "start", "systest-kiosk.service")
                and ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok
                and ct.cl("systemctl", "stop", "systest-kiosk.service")):
            verdict.bad("a start, wait or stop of the loop failed")
            break
        loops += 1
    recovered = recoveries_since(ct, before)
    verdict.ev(f"start / wait finished / stop, {loops} times: {len(recovered)} recoveries")
    if recovered:
        verdict.bad(f"an operator's stop was taken for a crash or a hang: {recovered[:3]}")
    # A stopped app has no heartbeat to miss (heartbeat 3s: a hang would be told after 9 s; before,
    # 2.6 s after the stop the app was killed and started again).
    hang = ct.jwait(20, before, daemon() & message("missed"))
    state = ct.prop("systest-kiosk.service", "ActiveState")
    verdict.ev(f"stopped by the operator for 20 s: {'a hang: ' + msg(hang) if hang else 'no hang'}, unit {state}")
    if hang or state != "inactive":
        verdict.bad("the stopped app was taken for a hung one or started again")
    # Without a signal step the launch ends once the start is queued: the unit not started yet is
    # no crash (before: flagged app-exited 0.6 ms after `finished`, at every start of splashd).
    ct.write_file(TOML, 0o644, configs.app(first_frame=False))
    before = ct.cursor()
    ct.cl("systemctl", "restart", "splashd.service")
    finished = ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok
    job = ct.wait_start_job(300, before, "systest-kiosk.service")
    # A false recovery would be a second launch, begun at once: wait for whatever launch is last.
    finished = ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok and finished
    up = finished and job == "done" and ct.prop("systest-kiosk.service", "ActiveState") == "active"
    recovered = recoveries_since(ct, before)
    verdict.ev(f"no signal step: finished, the app's start job {job or 'not seen'}, unit "
               f"{ct.prop('systest-kiosk.service', 'ActiveState')}, {len(recovered)} recoveries")
    if not up or recovered:
        verdict.bad(f"without a signal step the healthy app was recovered: {recovered[:3]}")
    ct.write_file(TOML, 0o644, configs.app())
    # The recovery count fresh: the recoveries above are kept across restarts of splashd.
    ct.c("rm", "-f", "/var/lib/splashd/app-recoveries.json")
    ct.cl("systemctl", "restart", "splashd.service")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok:
        verdict.bad("the launch with [app] did not finish")
    # An app that dies before its first frame, at every start: recovered at once each time, and
    # app-crash-loop after max_restarts (before: never; a launch waited 30 s for first-frame and
    # went to step-failed, again and again). And one that dies after a random 0-2 s.
    broken_app_loops(ct, verdict, "exit-at-start")
    broken_app_loops(ct, verdict, "exit-random")
    # The system bus away: the app dies meanwhile (SIGKILL), its missed heartbeats start the
    # recovery, whose app step cannot reach systemd; once dbus is back, the recovery runs by
    # itself (before: step-failed, until someone pressed Retry).
    before = ct.cursor()
    ct.cl("systemctl", "stop", "dbus.socket", "dbus.service")
    signal_app(ct, verdict, "KILL")
    blocked = ct.jwait(300, before, daemon() & message("^step app (attempt [0-9]+ )?failed"))
    ct.cl("systemctl", "start", "dbus.socket", "dbus.service")
    back = ct.c("splashctl", "wait", "finished", "--timeout", "5m").ok
    state = ct.prop("systest-kiosk.service", "ActiveState")
    said = ct.since_messages(before, daemon() & message("system bus|app failed|lost the watch|watching the app"))
    verdict.ev(f"dbus stopped, the app killed: {msg(blocked) if blocked else 'the app step never failed'}; "
               f"dbus back: {'finished' if back else 'not finished'}, app {state}; {said[:300]}")
    if not blocked or not back or state != "active":
        verdict.bad("the recovery the bus blocked did not run once it was back")
    # Nothing left behind.
    restore_without_app(ct, verdict, saved)


# ---------------------------------------------------------------------------------------------
# Check 4: the journal's fields over the whole run, and the catalog.


@check(4, "journal-fields-and-catalog", stage="booted", needs=(10,))
def test_04_journal_fields_and_catalog(ct: Container, verdict):
    entries = json_objects(ct.c("journalctl", "-o", "json", "-u", "splashd.service", "--no-pager").stdout)
    fields = sorted({key for entry in entries for key in entry})
    missing = [f for f in ("SPLASHD_LAUNCH", "SPLASHD_STEP", "SPLASHD_PHASE", "SPLASHD_ATTEMPT", "SPLASHD_DURATION_MS",
                           "CODE_FILE", "CODE_LINE", "MESSAGE_ID") if f not in fields]
    counted = collections.Counter(ji(e["MESSAGE_ID"]) for e in entries
                                  if e.get("_SYSTEMD_UNIT") == "splashd.service" and e.get("MESSAGE_ID") not in (None, False))
    ids = " ".join(f"{i}×{counted[i]}" for i in sorted(counted))
    verdict.ev(f"{len(entries)} entries; SPLASHD_* fields: {','.join(f for f in fields if f.startswith('SPLASHD_'))}; MESSAGE_IDs: {ids}")
    if missing:
        verdict.bad(f"fields missing: {' '.join(missing)}")
    for message_id in ("76bc5e5dee6741ef924f31ac5e522255", "2fada2569d0c4ec18c2ed58c92bdb5ca", "02735621af554ba9a64591fdb7ce0bc1",
                       "e926d20f31694d59abb8d172b1b2931e", LAUNCH_FINISHED_ID):
        if message_id not in ids:
            verdict.bad(f"no record with MESSAGE_ID={message_id}")
    catalog = ct.c("journalctl", "-x", "-u", "splashd.service", f"MESSAGE_ID={LAUNCH_FINISHED_ID}", "-n", "1", "--no-pager").out
    ct.log(catalog)
    subject = next((line.lstrip(" ") for line in lines(catalog) if "░░ Subject:" in line), "")
    verdict.ev(f"journalctl -x: {subject}")
    if "Units ordered after splashd-finished.service start now." not in catalog:
        verdict.bad("journalctl -x shows no catalog text for launch finished")
    listed = ct.catalog_entries()
    verdict.ev(f"journalctl --list-catalog: {listed} splashd entries")
    if listed != 5:
        verdict.bad(f"journalctl --list-catalog lists {listed} of the 5 splashd MESSAGE_IDs")


# ---------------------------------------------------------------------------------------------
# Check 8: stop leaves nothing, not even a plugin's setsid child; socket activation after a stop.


@check(8, "stop-leaves-nothing", stage="booted", needs=(10,))
def test_08_stop_leaves_nothing(ct: Container, verdict):
    ct.write_file(TOML, 0o644, configs.sleeper())
    before = ct.cursor()
    ct.cl("systemctl", "reload", "splashd.service")
    if "configuration reloaded" not in ct.wait_reload(before):
        verdict.bad("the sleeper config was not reloaded")
    if not ct.cl("splashctl", "relaunch"):
        verdict.bad("relaunch failed")
    if not ct.watch_until(60, "sleeper", "running"):
        verdict.bad("the sleeper step never ran")
    # The step runs once its shell is started; its two sleeps come a moment later.
    end = time.monotonic() + 60
    while True:
        procs = "|".join(squeeze(line) for line in processes_of_splashd(ct, "pid=,pgid=,args="))
        if ("sleep 301" in procs and "sleep 302" in procs) or time.monotonic() > end:
            break
        time.sleep(0.1)
    verdict.ev(f"running as splashd before the stop: {procs}")
    if not ("sleep 301" in procs and "sleep 302" in procs):
        verdict.bad("the sleeper's processes are not there")
    ct.cl("systemctl", "stop", "splashd.service")
    procs = "|".join(squeeze(line) for line in processes_of_splashd(ct))
    verdict.ev(f"after systemctl stop splashd: Result={ct.prop('splashd.service', 'Result')}, "
               f"ExecMainStatus={ct.prop('splashd.service', 'ExecMainStatus')}, processes of splashd: {procs or 'none'}; "
               f"splashd.socket {ct.prop('splashd.socket', 'ActiveState')}")
    if procs:
        verdict.bad(f"processes of user splashd survived the stop: {procs}")
    if ct.prop("splashd.service", "ExecMainStatus") != "0":
        verdict.bad("the daemon did not exit 0")
    tail = lines(ct.c("journalctl", "-u", "splashd.service", "-n", "30", "-o", "cat", "--no-pager").stdout)
    for line in [line for line in tail if re.search("outlived|Stopped|Stopping", line)][-3:]:
        ct.log(f"  {line.strip()}")
    # Socket activation: the socket is still there; a client starts the daemon again.
    ping = ct.c("splashctl", "ping", merge=True)
    verdict.ev(f"socket activation with the service stopped: splashctl ping -> exit {ping.rc} '{ping.out}', "
               f"splashd.service {ct.prop('splashd.service', 'ActiveState')}")
    if not (ping.ok and ct.prop("splashd.service", "ActiveState") == "active"):
        verdict.bad("a connection did not start splashd.service through the socket")
    ct.cl("systemctl", "stop", "splashd.socket", "splashd.service")
    procs = "|".join(squeeze(line) for line in processes_of_splashd(ct))
    socket_file = after_colon(ct.c("stat", "-c", "%F", "/run/splashd/splashd.sock", merge=True).stdout)
    verdict.ev(f"after stopping the socket and the service: processes of splashd: {procs or 'none'}; socket file: {socket_file}")
    if procs:
        verdict.bad(f"processes of user splashd survived: {procs}")
    if not ct.c("test", "!", "-e", "/run/splashd/splashd.sock").ok:
        verdict.bad("the socket file is still there")


# ---------------------------------------------------------------------------------------------
# Check 11: what the boot start logged at warning or above, and what the daemon's process logged
# other than through its own logger (which speaks the journal's native protocol): records that
# came by syslog(3) or on stdout/stderr are from a library or the runtime.


@check(11, "no-warning-at-start", stage="booted")
def test_11_no_warning_at_start(ct: Container, verdict):
    records = ct.memo.boot_records
    boot_warnings = ct.memo.boot_warnings
    warnings = [f"{ji(r.get('SYSLOG_IDENTIFIER')) if r.get('SYSLOG_IDENTIFIER') not in (None, False) else '?'}"
                f"[{ji(r.get('PRIORITY'))}]: {ji(r.get('MESSAGE'))}"
                for r in records if num(r.get("PRIORITY")) is not None and num(r.get("PRIORITY")) <= 4]
    foreign_lines = sorted(f"{ji(r.get('_TRANSPORT'))} priority {ji(r.get('PRIORITY'))}: {re.sub('0x[0-9a-f]+', '0x…', r['MESSAGE'], count=1)}"
                           for r in records if r.get("_SYSTEMD_UNIT") == "splashd.service" and r.get("_TRANSPORT") != "journal"
                           and isinstance(r.get("MESSAGE"), str))
    foreign = "|".join(f"{n}× {line}" for line, n in sorted(collections.Counter(foreign_lines).items()))
    verdict.ev(f"journalctl -b -u splashd -p warning: {'empty' if not boot_warnings else '|'.join(lines(boot_warnings)[:3])}")
    verdict.ev(f"the boot invocation's records at warning or above: {'none' if not warnings else '|'.join(warnings[:3])}")
    verdict.ev(f"records of the daemon's process not from its logger: {foreign or 'none'}")
    if boot_warnings:
        verdict.bad("journalctl -u splashd -p warning is not empty after a normal start")
    if warnings:
        verdict.bad("warnings at a normal start")
    # libdispatch gives its timer and signal thread nice -4; the unit allows that with
    # SystemCallFilter=setpriority and LimitNICE=-4 (RLIMIT_NICE 24). systemd sets the limit as
    # close as it can, so where the host's hard RLIMIT_NICE is lower (a sandbox without
    # CAP_SYS_RESOURCE, as on the machine these tests were written on) that one call still fails
    # with EACCES: then exactly that record is expected, and nothing else. The EPERM records the
    # syscall filter caused (four per start before) must be gone everywhere.
    asked = ct.prop("splashd.service", "LimitNICE")
    hard = resource.getrlimit(resource.RLIMIT_NICE)[1]
    host_hard = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
    cap_eff = next((line.split()[1] for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("CapEff")), "0")
    can_raise = "yes" if (int(cap_eff, 16) >> 24) & 1 else "no"  # CAP_SYS_RESOURCE
    verdict.ev(f"LimitNICE asked: {asked or '?'}; the host's hard RLIMIT_NICE: {host_hard}")
    verdict.ev(f"the host has CAP_SYS_RESOURCE: {can_raise}")
    if asked != "24":
        verdict.bad(f"splashd.service does not ask for LimitNICE=-4 (RLIMIT_NICE 24): {asked}")
    if can_raise == "no" and host_hard != "unlimited" and int(host_hard) < 24:
        verdict.ev("this host cannot grant RLIMIT_NICE 24 (no CAP_SYS_RESOURCE): the one EACCES record of the nice -4 thread is "
                   "expected here, and only it")
        expected = "1× [a-z]+ priority 5: Failed to set thread priority for worker thread: pqc=0x… errno=13"
        foreign = "|".join(part for part in foreign.split("|") if not re.fullmatch(expected, part))
    if foreign:
        verdict.bad("the daemon's process logged outside its logger at a normal start (below warning, so -p warning does not show it)")


# ---------------------------------------------------------------------------------------------
# The package's life after the other checks (12–15 and 17, a package only): upgrade, remove,
# purge, the split.


def make_upgrade_package(ct: Container) -> str | None:
    """The package again with a higher version (VERSION+systest1), uncompressed: a real upgrade
    (old prerm upgrade, new postinst configure OLD-VERSION) with the same files. Its name under
    /srv/systest."""
    tree = ct.files / "upgrade"
    shutil.rmtree(tree, ignore_errors=True)
    if ct.host("dpkg-deb", "-R", ct.files / ct.deb_name, tree).returncode != 0:
        return None
    control_path = tree / "DEBIAN/control"
    control = lines(control_path.read_text())
    version = "\n".join(line[len("Version: "):] for line in control if line.startswith("Version: ")) + "+systest1"
    arch = "\n".join(line[len("Architecture: "):] for line in control if line.startswith("Architecture: "))
    control_path.write_text("".join((f"Version: {version}" if line.startswith("Version: ") else line) + "\n" for line in control))
    name = f"splashd_{version}_{arch}.deb"
    built = subprocess.run(["dpkg-deb", "-Znone", "-b", str(tree), str(ct.root / "srv/systest" / name)], stdin=subprocess.DEVNULL,
                           stdout=ct.logger.file, stderr=subprocess.STDOUT, timeout=120)
    if built.returncode != 0:
        return None
    shutil.rmtree(tree, ignore_errors=True)
    return name


# Check 12: upgrading the package while the daemon runs does not restart it (postinst only
# starts the socket): no new splash over the running app. A reinstall (`apt-get install
# --reinstall`) runs the same maintainer-script steps with the same arguments (prerm upgrade,
# postinst configure OLD-VERSION); only the version differs.


@check(12, "upgrade-keeps-daemon", stage="booted", package=True)
def test_12_upgrade_keeps_daemon(ct: Container, verdict):
    # As on a device whose app is up: the operator's configuration (the conffile, changed), the
    # daemon started by a client through the socket, the launch finished, the finished unit active.
    ct.write_file(TOML, 0o644, configs.auto())
    conf = sha12(ct)
    if not ct.cl("systemctl", "start", "splashd.socket"):
        verdict.bad("splashd.socket did not start")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("no launch finished after a client started the daemon")
    if not ct.cl("timeout", "30", "systemctl", "start", "splashd-finished.service", timeout=60):
        verdict.bad("splashd-finished.service did not start")
    units = running_units(ct)
    verdict.ev(f"running: {units}")
    upgrade = make_upgrade_package(ct)
    if not upgrade:
        verdict.bad("could not build the upgrade package")
        return
    before = ct.cursor()
    ok, took = ct.apt_get("install", f"/srv/systest/{upgrade}")
    if not ok:
        verdict.bad("apt-get install (upgrade) failed")
    version = ct.c("dpkg-query", "-W", "-f", "${Version}", "splashd").out
    verdict.ev(f"apt-get install ./{upgrade} (upgrade): {took}, installed {version}")
    if version != (upgrade.split("_") + [""])[1]:
        verdict.bad(f"the upgrade did not install {upgrade}")
    if running_units(ct) != units:
        verdict.bad(f"upgrading changed: {running_units(ct)}")
    moved = ct.since_messages(before, about("splashd.service") | about("splashd.socket") | about("splashd-finished.service"))
    verdict.ev(f"systemd about the units meanwhile: {moved or 'nothing'}")
    if moved:
        verdict.bad("systemd started or stopped a unit")
    if not ping_ok(ct):
        verdict.bad("splashctl ping failed after the upgrade")
    enabled = enabled_of(ct, *UNITS3)
    verdict.ev(f"is-enabled socket/service/finished: {enabled}; the operator's splashd.toml {conf} -> {sha12(ct)}")
    if enabled != "enabled/disabled/enabled":
        verdict.bad("the upgrade changed what is enabled")
    if sha12(ct) != conf:
        verdict.bad("the upgrade replaced the operator's configuration")


# Check 13: remove stops the units, takes everything but the state directory and the conffile
# (design §11; docs/packaging.md, "Remove and purge").


@check(13, "remove", stage="booted", needs=(12,), package=True)
def test_13_remove(ct: Container, verdict):
    listed = ct.c("dpkg", "-L", "splashd")
    if not listed.ok:
        verdict.bad("dpkg -L failed")
    ct.memo.package_paths = lines(listed.stdout)
    ct.memo.other_paths = other_packages_paths(ct, ("splashd.list", "splashd:*.list"))
    conf = sha12(ct)
    ct.memo.splashd_ids = ct.c("id", "splashd").out
    procs = "|".join(line.lstrip(" ") for line in processes_of_splashd(ct))
    verdict.ev(f"dpkg -L: {listed.stdout.count(chr(10))} paths; running as splashd: {procs or 'nothing'}")
    if not procs:
        verdict.bad("the daemon was not running before the remove (nothing to stop)")
    ok, took = ct.apt_get("remove", "splashd")
    if not ok:
        verdict.bad("apt-get remove failed")
    status = ct.c("dpkg-query", "-W", "-f", "${db:Status-Abbrev}", "splashd").stdout.replace(" ", "").rstrip("\n")
    units, active = [], []
    for unit in ("splashd.service", "splashd.socket", "splashd-finished.service"):
        units.append(f"{unit} {ct.prop(unit, 'ActiveState')}/{ct.prop(unit, 'LoadState')}")
        if ct.prop(unit, "ActiveState") != "inactive":
            active.append(unit)
    procs = "|".join(line.lstrip(" ") for line in processes_of_splashd(ct))
    verdict.ev(f"apt-get remove: {took}, dpkg status {status}; {', '.join(units)}; processes of splashd: {procs or 'none'}")
    if status != "rc":
        verdict.bad(f"dpkg status is '{status}', want rc (removed, configuration kept)")
    if active:
        verdict.bad(f"not stopped: {' '.join(active)}")
    if procs:
        verdict.bad("processes of splashd are still running")
    left = package_leftovers(ct)
    conffiles = " ".join(first for first in first_fields(ct.c("dpkg-query", "-W", "-f", "${Conffiles}", "splashd").stdout) if first)
    verdict.ev(f"the package's paths left: {left or 'none'}; conffiles: {conffiles}")
    if left != "/etc/splashd /etc/splashd/splashd.toml":
        verdict.bad(f"remove left '{left}', want '/etc/splashd /etc/splashd/splashd.toml'")
    if sha12(ct) != conf:
        verdict.bad("the operator's splashd.toml changed")
    verdict.ev(f"/var/lib/splashd: {ct.c('stat', '-c', '%U %a', '/var/lib/splashd', merge=True).out}, "
               f"{paste(ct.c('ls', '/var/lib/splashd', merge=True).stdout, ' ')}")
    if not (ct.c("test", "-s", "/var/lib/splashd/launch-counter.json").ok and ct.c("test", "-s", "/var/lib/splashd/history.jsonl").ok):
        verdict.bad("the state directory was not kept")
    verdict.ev(f"/run/splashd: {after_colon(ct.c('stat', '-c', '%F', '/run/splashd', merge=True).stdout)}; "
               f"catalog entries: {ct.catalog_entries()}")
    if not ct.c("test", "!", "-e", "/run/splashd").ok:
        verdict.bad("/run/splashd is still there")
    if ct.catalog_entries() != 0:
        verdict.bad("the journal catalog still has splashd's entries")
    # docs/packaging.md: kept, dangling, so that a reinstall keeps the operator's choice.
    links = paste(ct.c("find", "/etc/systemd/system", "-name", "splashd*", "-type", "l").stdout, " ")
    verdict.ev(f"enablement links: {links or 'none'}")
    if not ("sockets.target.wants/splashd.socket" in links and "multi-user.target.wants/splashd-finished.service" in links):
        verdict.bad("the enablement links are gone (packaging.md: kept until purge)")


# Check 14: purge leaves none of the package's paths, no state, configuration or enablement
# state; the user and the group stay.


@check(14, "purge", stage="booted", needs=(13,), package=True)
def test_14_purge(ct: Container, verdict):
    # The test's own plugins in /etc/splashd/plugins.d are an operator's files: purge keeps them
    # (docs/packaging.md). Gone first, as an operator who wants /etc/splashd gone would do.
    ct.c("rm", "-f", *TEST_PLUGINS)
    ok, took = ct.apt_get("purge", "splashd")
    if not ok:
        verdict.bad("apt-get purge failed")
    status = ct.c("dpkg-query", "-W", "-f", "${db:Status-Abbrev}", "splashd").stdout.replace(" ", "").rstrip("\n")
    left = package_leftovers(ct)
    verdict.ev(f"apt-get purge: {took}; dpkg status: {status or 'no record of splashd'}; the package's paths left: {left or 'none'}")
    if status not in ("", "un"):
        verdict.bad(f"dpkg status is '{status}' after the purge")
    if left:
        verdict.bad(f"purge left {left}")
    rest = paste(ct.c("sh", "-c", 'for p in /var/lib/splashd /etc/splashd /run/splashd; do [ -e "$p" ] && echo "$p"; done; '
                                  'find /etc/systemd /var/lib/systemd -name "*splashd*"').stdout, " ")
    verdict.ev(f"state, configuration, enablement left: {rest or 'none'}")
    if rest:
        verdict.bad(f"purge left {rest}")
    group = "\n".join(cut_fields(line, ":", (1, 3)) for line in lines(ct.c("getent", "group", "splash").stdout))
    verdict.ev(f"id splashd: {ct.c('id', 'splashd', merge=True).out}; group splash: {group}")
    if ct.c("id", "splashd", merge=True).out != ct.memo.splashd_ids:
        verdict.bad(f"the user splashd changed (before: {ct.memo.splashd_ids})")
    if not ct.c("getent", "group", "splash").ok:
        verdict.bad("the group splash is gone")


def make_legacy_package(ct: Container) -> str | None:
    """The single package of 0.1.0-1, before the split (legacy-0.1.0-1/: its control file and
    maintainer scripts), made again from the files of this build's packages. Its name under
    /srv/systest."""
    tree = ct.files / "legacy"
    shutil.rmtree(tree, ignore_errors=True)
    (tree / "DEBIAN").mkdir(parents=True)
    for deb in (ct.deb_name, *ct.siblings):
        if ct.host("dpkg-deb", "-x", ct.files / deb, tree).returncode != 0:
            return None
    # Its documentation and overrides were splashd's alone.
    for path in glob.glob(f"{tree}/usr/share/doc/splashd-*") + glob.glob(f"{tree}/usr/share/lintian/overrides/splashd-*"):
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    arch = ct.host("dpkg-deb", "-f", ct.files / ct.deb_name, "Architecture").stdout.rstrip("\n")
    depends = ct.host("dpkg-deb", "-f", ct.files / ct.deb_name, "Depends").stdout.rstrip("\n")
    maintainer = ct.host("dpkg-deb", "-f", ct.deb, "Maintainer").stdout.rstrip("\n")
    size = ct.host("du", "-sk", tree).stdout.split("\t")[0]
    control = []
    for line in lines((LEGACY / "control.in").read_text()):
        for placeholder, value in (("@VERSION@", "0.1.0-1"), ("@ARCH@", arch), ("@MAINTAINER@", maintainer),
                                   ("@INSTALLED_SIZE@", size), ("@DEPENDS@", depends)):
            line = line.replace(placeholder, value, 1)
        control.append(line + "\n")
    (tree / "DEBIAN/control").write_text("".join(control))
    for script in ("postinst", "prerm", "postrm"):
        shutil.copyfile(LEGACY / script, tree / "DEBIAN" / script)
        os.chmod(tree / "DEBIAN" / script, 0o755)
    (tree / "DEBIAN/conffiles").write_text("/etc/splashd/splashd.toml\n")
    name = f"splashd_0.1.0-1_{arch}.deb"
    built = subprocess.run(["dpkg-deb", "--root-owner-group", "-Znone", "-b", str(tree), str(ct.root / "srv/systest" / name)],
                           stdin=subprocess.DEVNULL, stdout=ct.logger.file, stderr=subprocess.STDOUT, timeout=120)
    if built.returncode != 0:
        return None
    shutil.rmtree(tree, ignore_errors=True)
    return name


SPLIT = ("splashd", "splashd-kms", "splashd-otel", "splashd-themes", "splashd-web")

# Check 17: a device that runs the single 0.1.0-1 package (the renderer's unit enabled by its
# operator, the configuration changed, the daemon running) upgrades to the five split packages:
# each file goes to its package, none is lost, nothing is restarted or disabled, and the
# configuration stays. Then all five are purged: nothing of them is left.


@check(17, "split-upgrade", stage="booted", needs=(14,), package=True)
def test_17_split_upgrade(ct: Container, verdict):
    legacy = make_legacy_package(ct)
    if not legacy:
        verdict.bad("could not build the 0.1.0-1 package")
        return
    ok, took = ct.apt_get("install", f"/srv/systest/{legacy}")
    if not ok:
        verdict.bad(f"apt-get install ./{legacy} failed")
        return
    verdict.ev(f"apt-get install ./{legacy}: {took}, {ct.c('dpkg-query', '-W', '-f', '${Package} ${Version}', 'splashd').out}")
    ct.write_file(TOML, 0o644, configs.auto())
    conf = sha12(ct)
    if not ct.cl("systemctl", "enable", "splashd-web.service"):
        verdict.bad("could not enable splashd-web.service")
    if not ct.cl("systemctl", "start", "splashd.socket"):
        verdict.bad("splashd.socket did not start")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("no launch finished under 0.1.0-1")
    units = running_units(ct)
    legacy_paths = sorted(lines(ct.c("dpkg", "-L", "splashd").stdout))
    for deb in (ct.deb_name, *ct.siblings):
        shutil.copy(ct.files / deb, ct.root / "srv/systest" / deb)
    ok, took = ct.apt_get("install", f"/srv/systest/{ct.deb_name}", *(f"/srv/systest/{s}" for s in ct.siblings))
    if not ok:
        verdict.bad("apt-get install of the split packages failed")
    versions = ct.c("dpkg-query", "-W", "-f", "${Package}=${Version} ", *SPLIT).out
    verdict.ev(f"upgrade to the split packages: {took}; {versions}")
    v = ct.split_version
    if versions != f"splashd={v} splashd-kms={v} splashd-otel={v} splashd-themes={v} splashd-web={v} ":
        verdict.bad(f"installed: {versions}, want each at {v}")
    owned = ct.c("dpkg", "-S", "/usr/bin/splashd", "/usr/bin/splashctl", "/usr/bin/splashd-web", "/usr/share/splashd/web/index.html",
                 "/usr/bin/splashd-otel", "/usr/share/splashd/themes/reference/theme.toml", merge=True).stdout
    owners = " ".join(cut_fields(line, ":", (1,)) for line in lines(owned))
    verdict.ev(f"owners of splashd, splashctl, splashd-web, the page, splashd-otel, a theme: {owners}")
    if owners != "splashd splashd splashd-web splashd-web splashd-otel splashd-themes":
        verdict.bad(f"files owned by: {owners}")
    missing = paste(ct.c("sh", "-c", 'while read -r p; do [ -e "$p" ] || [ -L "$p" ] || echo "$p"; done',
                         input="".join(p + "\n" for p in legacy_paths)).stdout, " ")
    verdict.ev(f"paths of 0.1.0-1 missing after the upgrade: {missing or 'none'} (of {len(legacy_paths)})")
    if missing:
        verdict.bad(f"lost in the upgrade: {missing}")
    if running_units(ct) != units:
        verdict.bad(f"the upgrade changed: {running_units(ct)} (before: {units})")
    enabled = enabled_of(ct, "splashd.socket", "splashd-finished.service", "splashd-web.service", "splashd-otel.service")
    verdict.ev(f"is-enabled socket/finished/web/otel: {enabled}; splashd.toml {conf} -> {sha12(ct)}")
    if enabled != "enabled/enabled/enabled/disabled":
        verdict.bad(f"the upgrade changed what is enabled: {enabled}")
    if sha12(ct) != conf:
        verdict.bad("the upgrade replaced the operator's configuration")
    # The bridge of the split packages runs as its own user (issue 48), not splashd's, and still
    # reaches the socket and sends the page's commands (as a member of splash, the control group):
    # a `dismissed` after the launch is refused for the phase, not for permission.
    if not ct.cl("systemctl", "start", "splashd-web.service"):
        verdict.bad("splashd-web.service did not start")
    bridge = ct.c("ps", "-o", "user:32=,group:32=", "-p", ct.prop("splashd-web.service", "MainPID")).out.split()
    ct.write_from_files("bridge-page.py", "/srv/systest/bridge-page.py", 0o755)
    page = ct.c("python3", "/srv/systest/bridge-page.py", merge=True).out
    verdict.ev(f"splashd-web runs as {':'.join(bridge)} (uid {ct.c('id', '-u', 'splashd-web').out}, splashd's "
               f"{ct.c('id', '-u', 'splashd').out}); the page's dismissed: {page}")
    if bridge[:1] != ["splashd-web"] or ct.c("id", "-u", "splashd-web").out == ct.c("id", "-u", "splashd").out:
        verdict.bad(f"the bridge does not run as a user of its own: {bridge}")
    if page != "error invalid-transition":
        verdict.bad(f"the bridge's command was not splashd's to refuse for the phase: {page!r}")
    ct.cl("systemctl", "stop", "splashd-web.service")
    if not ct.c("splashd-web", "check", "--theme", "/usr/share/splashd/themes/reference", merge=True).ok:
        verdict.bad("splashd-web check of the shipped theme failed")
    ct.memo.package_paths = sorted(set(lines(ct.c("dpkg", "-L", *SPLIT).stdout)))
    ct.memo.other_paths = other_packages_paths(ct, ("splashd*.list",))
    ct.c("rm", "-f", *TEST_PLUGINS)
    ok, took = ct.apt_get("purge", *SPLIT)
    if not ok:
        verdict.bad("apt-get purge of the five failed")
    left = package_leftovers(ct)
    status = ct.c("dpkg-query", "-W", "-f", "${db:Status-Abbrev}", *SPLIT, merge=True).stdout
    verdict.ev(f"apt-get purge of the five: {took}; their paths left: {left or 'none'}; dpkg: {paste(squeeze(status), ' ')}")
    if left:
        verdict.bad(f"purge left {left}")


# Check 19: the native renderer's package and units (design §13). splashd-kms.service is enabled
# and starts with the earliest boot services (nothing of basic.target, sysinit.target or the
# network before it); started, it is ready before the display is there (the container has no
# GPU: it waits for /dev/dri/card0) and holds the display lock; the hand-off unit, which an app's
# unit orders after, stays activating while the renderer holds the display, and becomes active
# once it lets it go (here: the renderer stopped). With no renderer it is active at once. Then the
# package is purged: nothing of it is left.


@check(19, "kms-units", stage="booted", needs=(17,), package=True)
def test_19_kms_units(ct: Container, verdict):
    debs = [ct.deb_name] + [s for s in ct.siblings if s.startswith(("splashd-kms_", "splashd-themes_"))]
    for deb in debs:
        shutil.copy(ct.files / deb, ct.root / "srv/systest" / deb)
    ok, took = ct.apt_get("install", *(f"/srv/systest/{d}" for d in debs))
    if not ok:
        verdict.bad("apt-get install of splashd, splashd-themes and splashd-kms failed")
        return
    enabled = enabled_of(ct, "splashd-kms.service")
    wanted_by = ct.prop("splashd-kms.service", "WantedBy")
    after = ct.prop("splashd-kms.service", "After").split()
    early = [u for u in ("basic.target", "sysinit.target", "network.target", "network-online.target", "local-fs.target") if u in after]
    verdict.ev(f"install: {took}; splashd-kms.service {enabled}, wanted by {wanted_by}, after {' '.join(sorted(after))}")
    if enabled != "enabled" or "sysinit.target" not in wanted_by.split():
        verdict.bad(f"splashd-kms.service is {enabled}, wanted by {wanted_by}: not started at boot with sysinit.target")
    if early:
        verdict.bad(f"splashd-kms.service starts after {early}")
    if ct.prop("splashd-kms.service", "ActiveState") != "inactive":
        verdict.bad("the package started the renderer (it must not take a running system's display)")
    cursor = ct.cursor()
    if not ct.cl("systemctl", "start", "splashd-kms.service"):
        verdict.bad("splashd-kms.service did not start")
    waiting = ct.jwait(20, cursor, field("_SYSTEMD_UNIT", "splashd-kms.service") & message("waiting for /dev/dri/card0 to appear"))
    lock = ct.c("stat", "-c", "%U %a", "/run/splashd-kms/display.lock").out
    verdict.ev(f"renderer: {ct.prop('splashd-kms.service', 'ActiveState')}, said {jr(waiting, 'MESSAGE') if waiting else 'nothing'}; "
               f"display lock: {lock or 'none'}")
    if not waiting or lock != "root 644":
        verdict.bad("the renderer is not ready, waiting for the display and holding its lock")
    cursor = ct.cursor()
    ct.c("systemctl", "start", "--no-block", "splashd-kms-handoff.service")
    # systemd says it is starting it once its process runs: then the unit must stay activating
    # (a blocked flock, no timer to race).
    starting = ct.jwait(20, cursor, about("splashd-kms-handoff.service") & message("^Starting "))
    held = ct.prop("splashd-kms-handoff.service", "ActiveState") if starting else "not started"
    verdict.ev(f"hand-off unit while the renderer holds the display: {held}")
    if held != "activating":
        verdict.bad(f"the hand-off unit is {held} while the renderer holds the display")
    ct.cl("systemctl", "stop", "splashd-kms.service")
    ok = ct.cl("timeout", "20", "systemctl", "start", "splashd-kms-handoff.service", timeout=30)
    after_stop = ct.prop("splashd-kms-handoff.service", "ActiveState")
    result = ct.prop("splashd-kms.service", "Result")
    verdict.ev(f"renderer stopped ({result}): hand-off unit {after_stop}")
    if not ok or after_stop != "active" or result != "success":
        verdict.bad(f"the hand-off unit is {after_stop} once the renderer let the display go (renderer: {result})")
    ct.cl("systemctl", "stop", "splashd-kms-handoff.service")
    ok = ct.cl("timeout", "20", "systemctl", "start", "splashd-kms-handoff.service", timeout=30)
    alone = ct.prop("splashd-kms-handoff.service", "ActiveState")
    verdict.ev(f"no renderer: hand-off unit {alone}")
    if not ok or alone != "active":
        verdict.bad(f"with no renderer the hand-off unit is {alone}")
    ct.memo.package_paths = sorted(set(lines(ct.c("dpkg", "-L", "splashd-kms").stdout)))
    ct.memo.other_paths = other_packages_paths(ct, ("splashd-kms.list",))
    ok, took = ct.apt_get("purge", "splashd-kms")
    left = package_leftovers(ct)
    verdict.ev(f"apt-get purge splashd-kms: {took}; its paths left: {left or 'none'}")
    if not ok or left:
        verdict.bad(f"purge failed or left {left}")
    ct.apt_get("purge", "splashd", "splashd-themes")


# Check 15: the container is still running cleanly after all that: nothing failed.


@check(15, "still-running", stage="booted", package=True)
def test_15_still_running(ct: Container, verdict):
    system = ct.c("timeout", "30", "systemctl", "is-system-running", "--wait", merge=True, timeout=60).out
    failed = " ".join(first_fields(ct.c("systemctl", "--failed", "--no-legend", "--plain").stdout))
    verdict.ev(f"is-system-running: {system}; failed units: {failed or 'none'}")
    if system != "running":
        verdict.bad(f"the system is {system}")


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
