"""The daemon's life under systemd: reload, the watchdog, a SIGKILL's restart, who may
control the splash, a stop that leaves nothing.
"""

from __future__ import annotations

import re
import time

import configs
from checks import TOML, after_colon, check, first_fields, ji, lt, n0, processes_of_splashd, steps_of
from container import Container, about, daemon, jr, lines, message, ms_since, msg, num, squeeze


# ---------------------------------------------------------------------------------------------
# Check 4: reload, with a good configuration (a new step) and a broken one.


@check(4, "reload", stage="booted")
def test_04_reload(ct: Container, verdict):
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


@check(5, "watchdog", stage="booted")
def test_05_watchdog(ct: Container, verdict, auto_config):
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
# Check 6: SIGKILL; Restart=on-failure, with the launch counter and the history intact.


@check(6, "sigkill-restart", stage="booted")
def test_06_sigkill_restart(ct: Container, verdict, auto_config):
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
# Check 7: who may control the splash (the socket's group).


@check(7, "control-group", stage="booted")
def test_07_control_group(ct: Container, verdict, auto_config):
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
# Check 13: stop leaves nothing, not even a plugin's setsid child; socket activation after a stop.


@check(13, "stop-leaves-nothing", stage="booted")
def test_13_stop_leaves_nothing(ct: Container, verdict, plugins_launch):
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
