"""Installing, then the boot: the package installed on the running system, the socket and
the service at boot, STATUS=, the finished unit's ordering (the fixtures ct and rebooted).
"""

from __future__ import annotations

import re
import time

from checks import TOML, UNITS3, check, enabled_of, first_fields, jcq, ji, le, lt, n0, ping_ok
from container import LAUNCH_FINISHED_ID, Container, in_list, jr, json_objects, lines, paste, squeeze, tdiv


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
